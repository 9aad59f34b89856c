// Pressure projection (Stam §2.2 step 4, on the MAC grid of Harlow & Welch / Foster & Metaxas):
//
//   lap p = div u* / dt   at fluid cell centres,    u = u* - dt grad p   on every free face,
//
// so that the discrete divergence of u vanishes in every fluid cell. Boundary conditions of p:
// walls, inflow faces and solid faces prescribe the normal velocity (Neumann, dp/dn = 0 there:
// the face is simply left out of the stencil); outflow faces fix p = 0 on the face (Dirichlet,
// the ghost is -p); periodic faces wrap. Solid cells are excluded (identity rows, p = 0). When no
// face fixes the pressure level, the constant over fluid cells is the null space and is removed.
#pragma once

#include <array>
#include <memory>

#include "air_pressure.hpp"
#include "divergence.hpp"  // cell_divergence, open_divergence: what a projection makes 0
#include "job.hpp"
#include "solids.hpp"

namespace sf {

class FloatingBodies;

struct ProjectionStats {
  PetscInt iterations = 0;
  double residual_norm = 0.0;   // final KSP residual norm
  double max_divergence = 0.0;  // max over fluid cells of |div u| after the projection
};

/// A projection strategy (step 5 of docs/design.md, "One step"): the Krylov one with multigrid,
/// the free-surface one of a liquid, or the FFT one of a periodic box (make_projection).
class Projection {
public:
  virtual ~Projection() = default;
  /// Makes the global velocity of `velocity` discretely divergence-free. Collective.
  virtual PetscErrorCode project(Field& velocity, double dt, ProjectionStats* stats) = 0;
  /// The incremental projection of the second-order step (Guermond, Minev & Shen 2006, "An
  /// overview of projection methods for incompressible flows", §3.2, standard form): before the
  /// viscous solve u -= dt grad p^n with the last pressure; then project_increment() solves for
  /// the increment phi = p^{n+1} - p^n, u -= dt grad phi and p becomes p^n + phi. The tangential
  /// velocity at a no-slip wall is then wrong by O(dt^2) instead of O(dt), and a steady state
  /// does not depend on dt. Collective.
  virtual PetscErrorCode subtract_pressure_gradient(Field& velocity, double dt) = 0;
  virtual PetscErrorCode project_increment(Field& velocity, double dt, ProjectionStats* stats) = 0;
  /// The last pressure (cell DM layout, global vector), kept as the next solve's initial guess.
  virtual Vec pressure() const = 0;
  /// The step of the last solve (0 before the first), which the warm start rescales by; a
  /// checkpoint saves it with the pressure so that a restart continues bit for bit.
  virtual double last_dt() const = 0;
  virtual void set_last_dt(double dt) = 0;
  /// The time the next projection is at (what varies with it: the air's pressure on a liquid).
  virtual void set_time(double) {}
  /// The divergence the projected velocity is to have in each cell, instead of 0: a source of
  /// volume such as a fire's expanding gas (fire.hpp). A global vector of the cell DM that the
  /// caller keeps and fills before each projection; null: none. The net source must be able to
  /// leave the domain (an outflow face): otherwise only its part with zero mean is made.
  /// Collective. A strategy that cannot take one refuses it.
  virtual PetscErrorCode set_divergence_source(Vec source) {
    PetscFunctionBeginUser;
    PetscCheck(!source, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "this pressure projection takes no divergence source");
    PetscFunctionReturn(0);
  }
};

/// The projection strategy for the job: the Krylov one, with a liquid's level set the
/// free-surface one (free_surface_projection.hpp), or with pressure.solver: fft on a periodic
/// box the FFT one (fft_projection.hpp). Floating `bodies` (with a liquid only) are coupled into
/// the free-surface one. Collective.
PetscErrorCode make_projection(const Grid& grid, const SolidMask& solids,
                               const SolverConfig& config, std::unique_ptr<Projection>* projection,
                               Field* level_set = nullptr,
                               const std::vector<AirPressure>& air = {},
                               FloatingBodies* bodies = nullptr, bool walls_may_open = true);

/// max over fluid cells of |div u - D| (open_divergence(): through the open part of cut faces;
/// D the divergence `source` of the cell DM, 0 without one), from the global vector of
/// `velocity` (the upper faces of a rank's last cells come from the halo, so this fills the
/// velocity's ghosts). Collective.
PetscErrorCode max_divergence(Field& velocity, const SolidMask& solids, double* result,
                              const ConstArrayView* level_set = nullptr, Vec source = nullptr);

}  // namespace sf
