// The state of the free-surface projection (free_surface_projection.hpp), shared by its two
// files: free_surface_projection.cpp (the operator, the right-hand side, the walls the liquid
// leaves, the solve) and free_surface_bodies.cpp (the floating bodies' coupling).
#pragma once

#include <petscksp.h>

#include <algorithm>
#include <array>
#include <vector>

#include "free_surface_projection.hpp"
#include "krylov_setup.hpp"
#include "vec_array.hpp"

namespace sf {

using OwnedNullSpace = Owned<MatNullSpace, MatNullSpaceDestroy>;

/// The options prefix of the pressure solve.
inline constexpr const char* kFreeSurfacePrefix = "pressure_";

struct FreeSurfaceProjection::Impl {
  const Grid* grid = nullptr;
  const SolidMask* solids = nullptr;
  Field* phi = nullptr;
  OwnedDM dm;
  OwnedMat matrix;
  OwnedKSP ksp;
  OwnedNullSpace null_space;
  OwnedVec pressure;
  OwnedVec pressure_local;
  OwnedVec rhs;
  double last_dt = 0.0;
  std::array<double, 3> inv_h2{0.0, 0.0, 0.0};
  double decoupled = 0.0;  // the diagonal of the rows p = 0: sum_a 2 / h_a^2
  std::vector<AirPressure> air;  // the air's pressure on the surface; none: p = 0 there
  double time = 0.0;             // of the projection: where the air's patches are
  Vec source = nullptr;          // the divergence the liquid cells are to have; the caller's
  bool walls_may_open = true;    // false: every wall stays closed (a height field)

  /// The air's pressure on the surface between liquid cell (i, j, k) and its side `side` along
  /// axis a, `fraction` of a spacing from the cell's centre.
  double surface_pressure(PetscInt i, PetscInt j, PetscInt k, int a, int side,
                          double fraction) const {
    if (air.empty()) return 0.0;
    const Grid& g = *grid;
    const PetscInt at[3] = {i, j, k};
    double x[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < g.dim(); ++d) x[d] = g.cell_center(d, at[d]);
    x[a] += (side == 0 ? -fraction : fraction) * g.spacing(a);
    return air_pressure(air, x, time, g.dim());
  }

  /// The surface's distance from the centre of liquid cell s towards its air neighbour n, as a
  /// fraction of the spacing.
  static double theta(double phi_s, double phi_n) {
    return std::max(phi_s / (phi_s - phi_n), kLeastTheta);
  }

  // Floating bodies (couple()): per liquid cell next to a body, its column G_c of that body
  // (floating_bodies.hpp), and per body the inverse of its mass with the liquid's half cells.
  struct BodyRow {
    size_t offset;  // the cell in the owned box (box_offset)
    size_t body;
    std::array<double, FloatingBodies::kDofs> g;
  };
  FloatingBodies* bodies = nullptr;
  std::vector<BodyRow> body_rows;
  std::vector<double> inverse_mass;  // kDofs^2 per body
  // True if G 1 = 0: the bodies' faces next to liquid close round them (a body that touched
  // another obstacle would lose faces there; FloatingBodies::check_clear stops that first).
  bool constant_free_of_bodies = true;
  double cell_volume = 1.0;
  OwnedMat coupled;  // the shell A + V_cell G^T M^-1 G

  /// The bodies' rows and masses from the liquid and the mask as they are now. Collective.
  PetscErrorCode build_coupling(const ConstArrayView& level);
  /// Per body, V_cell G x (kDofs numbers each): the generalised force of a pressure x.
  /// Collective.
  PetscErrorCode body_forces(Vec x, std::vector<double>* forces) const;
  /// y = A x + G^T M^-1 (V_cell G x).
  static PetscErrorCode coupled_product(Mat shell, Vec x, Vec y);
  /// The bodies' velocities at the end of the step from the pressure, given to the bodies.
  PetscErrorCode update_bodies(double dt);

  /// Per owned cell (box_offset layout): bit 2 a + side set where the liquid leaves that wall
  /// of the domain, which is then open to air (p = 0 on the wall's face) in the operator.
  std::vector<unsigned char> open_walls;

  PetscErrorCode assemble(const ConstArrayView& level, PetscInt* dirichlet);
  /// b, and the start of the solve: the last pressure, 0 in the rows that are not liquid.
  PetscErrorCode compute_rhs(Field& velocity, const ConstArrayView& level, double dt);
  /// Starts the solve of `op` from 0 instead of the last pressure where that is the worse start
  /// (|b - op p| > |b|; see project()).
  PetscErrorCode start_from_the_better_guess(Mat op);
  PetscErrorCode subtract_gradient(Field& velocity, const ConstArrayView& level, double dt);
  /// Without air and open faces (`dirichlet` == 0) the pressure is fixed up to a constant over
  /// the liquid: that is the operator's null space, removed from the right-hand side.
  PetscErrorCode set_null_space(const ConstArrayView& level, PetscInt dirichlet);
  /// True if the liquid touches air or an outflow face anywhere: only then may it leave a wall.
  PetscErrorCode has_free_surface(const ConstArrayView& level, bool* result) const;
  /// The walls the liquid left in the last step: those whose face velocity (what the last
  /// projection stored there) points away from the wall, next to a liquid cell.
  PetscErrorCode open_walls_from_velocity(const ConstArrayView& level, Field& velocity);
  /// Sets the velocity on every wall face from `open_walls`, as the projection's u*: an open
  /// wall carries the velocity of its cell's other face along the axis (the liquid's, continued
  /// to the wall: a slab falling from a ceiling stays in free fall), a closed one 0.
  PetscErrorCode set_wall_velocity(Field& velocity);
  /// The active set's update from the new pressure: a closed wall opens where the liquid next to
  /// it is in tension (SolidMask::separates; only if `may_open`), an open one closes where the
  /// velocity it would get, w = u* - dt dp/dn, points into the wall. Counts the changes over all
  /// ranks.
  PetscErrorCode update_open_walls(const ConstArrayView& level, Field& velocity, double dt,
                                   bool may_open, PetscInt* changed);
  /// Calls f(i, j, k, a, side, wall face, other face) for every wall of every owned cell next
  /// to one; the faces as index triples of component a.
  template <typename F>
  void for_each_wall(F&& f) const;
};

}  // namespace sf
