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

#include <memory>

#include "job.hpp"
#include "solids.hpp"

namespace sf {

struct ProjectionStats {
  PetscInt iterations = 0;
  double residual_norm = 0.0;   // final KSP residual norm
  double max_divergence = 0.0;  // max over fluid cells of |div u| after the projection
};

/// A projection strategy (DESIGN.md: "multigrid projection, FFT projection").
class Projection {
public:
  virtual ~Projection() = default;
  /// Makes the global velocity of `velocity` discretely divergence-free. Collective.
  virtual PetscErrorCode project(Field& velocity, double dt, ProjectionStats* stats) = 0;
  /// The last pressure (cell DM layout, global vector), kept as the next solve's initial guess.
  virtual Vec pressure() const = 0;
  /// The step of the last solve (0 before the first), which the warm start rescales by; a
  /// checkpoint saves it with the pressure so that a restart continues bit for bit.
  virtual double last_dt() const = 0;
  virtual void set_last_dt(double dt) = 0;
};

/// Krylov + multigrid projection with PETSc (options prefix "pressure_").
class KrylovProjection : public Projection {
public:
  KrylovProjection();
  ~KrylovProjection() override;
  KrylovProjection(const KrylovProjection&) = delete;  // owns PETSc objects through impl_
  KrylovProjection& operator=(const KrylovProjection&) = delete;
  /// Builds the pressure DM (cell-centred, stencil width 1, the cell DM's ownership ranges),
  /// the KSP with its defaults (see solvers/README.md) and assembles the operator. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const SolverConfig& config);
  PetscErrorCode project(Field& velocity, double dt, ProjectionStats* stats) override;
  Vec pressure() const override;
  double last_dt() const override;
  void set_last_dt(double dt) override;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The projection strategy for the job (today the Krylov one; an FFT projection for periodic
/// boxes or a ghost-fluid one for free surfaces is a new class and one entry here). Collective.
PetscErrorCode make_projection(const Grid& grid, const SolidMask& solids,
                               const SolverConfig& config, std::unique_ptr<Projection>* projection);

/// max over fluid cells of |div u|, from the global vector of `velocity` (the upper faces of a
/// rank's last cells come from the halo, so this fills the velocity's ghosts). Collective.
PetscErrorCode max_divergence(Field& velocity, const SolidMask& solids, double* result);

}  // namespace sf
