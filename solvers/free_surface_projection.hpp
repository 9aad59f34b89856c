// The pressure projection of a liquid with a free surface (Foster & Fedkiw 2001; Enright,
// Marschner & Fedkiw 2002): the Poisson equation in the liquid cells only, with p = 0 on the
// surface by the ghost-fluid method (Gibou, Fedkiw, Cheng & Kang 2002), so that the surface is
// second order and the matrix stays symmetric positive definite:
//
//   A p = b,   b = -div u* / dt   in liquid cells (phi < 0, not solid; -(div u* - s) / dt
//                                 with a divergence source s, set_divergence_source()),
//   u = u* - dt grad p            on every free face that touches a liquid cell.
//
// Row of a liquid cell, per axis a and side: a free face to a liquid neighbour couples as in the
// single-fluid projection (1/h_a^2 on the diagonal, -1/h_a^2 off it); a free face to an air
// neighbour puts the surface at theta h_a from the centre, theta = phi_s / (phi_s - phi_n) (the
// zero of phi along the line, at least kLeastTheta), and p = 0 there: only the diagonal gains
// 1 / (theta h_a^2); a prescribed face (wall, inflow, solid) adds nothing (Neumann); an outflow
// face of the domain is open air, p = 0 on the face (theta = 1/2). Air and solid cells get the
// decoupled row d p = 0. The face between a liquid and an air cell takes the gradient
// (0 - p_s) / (theta h) (with the sign of its direction); faces between two air cells are left to
// the velocity extension (velocity_extension.hpp).
//
// Floating bodies (floating_bodies.hpp) are solved with the pressure: the operator becomes
// A + V_cell G^T M^-1 G, a shell matrix (the assembled A plus rank 6 per body; one reduction of
// 6 numbers per body per product) that CG solves with A's preconditioner, and the bodies'
// velocities follow from the pressure. Measured (2 ranks, the raft of test_floating_bodies
// bobbing in its 64 x 48 tank, 400 steps): a median of 7 CG iterations a step (at most 9),
// against 6 (at most 8) for the same raft moved by a prescribed swing of the same size.
//
// The air's pressure (air_pressure.hpp; Foster & Metaxas §7): where the job presses on the
// surface, the surface value is the air's pressure P at the surface's point (on the line between
// the centres, theta h from the liquid's; on an outflow face or an open wall, the face's centre)
// instead of 0: the row's right-hand side gains P / (theta h^2) and the face's gradient is
// (P - p_s) / (theta h). A uniform P over a closed tank raises the liquid's pressure by P and
// moves nothing (tests/app/test_air_pressure.cpp).
//
// Walls of the domain (wall_separation.hpp): a wall pushes on the liquid but cannot pull. A wall
// next to a liquid cell is either closed (u . n = 0, Neumann) or open to air (p = 0 on its
// face, its u* the velocity of the cell's other face along the axis, so a slab leaving a
// ceiling stays in free fall). Which are open is an active set: the walls the liquid was leaving
// after the last step (their stored face velocity points away from the wall), then, after each
// solve, a closed wall opens where the cell's pressure is negative (SolidMask::separates) and
// an open one closes where its velocity u* - dt dp/dn would point into the wall, both only where
// the gap opened in the step would exceed kLeastGap h (a stream without gravity, p = 0 but for
// the solver's noise, opened its floor on that noise and lost 5.3 % of what entered); after
// kOpeningSweeps solves walls only close, until none changes. The projected velocity of
// an open wall stays on its face.
//
// The liquid moves, so the operator is assembled (AIJ, one row per cell) every projection and
// the preconditioner (hypre's BoomerAMG by default, GAMG where PETSc has no hypre;
// -pressure_pc_type overrides) set up again. Measured on a dam break at 96^3, 2 ranks, 15
// steps (-log_view): assembly 0.07 s in all, BoomerAMG's set-up 0.28 s and the solve 0.24 s a
// step (5 CG iterations); so re-assembling only where the liquid changed would save nothing
// that counts, and reusing the set-up (-pressure_ksp_reuse_preconditioner) took 6 to 76
// iterations instead of 5 and made the step slower (median 1.17 s against 1.08 s). At 128^3 a
// liquid step costs 1.96 times a smoke step with two scalars (2.46 s against 1.26 s, medians of
// 15 steps, 2 ranks), the projection 1.50 s of it. Without air cells (a closed box full of liquid) the constant is the null
// space, as in the single-fluid projection. The second-order step's incremental projection is
// not available with a liquid (the job refuses time.scheme: bdf2 with one).
#pragma once

#include <memory>

#include "field.hpp"
#include "floating_bodies.hpp"
#include "projection.hpp"

namespace sf {

class FreeSurfaceProjection : public Projection {
public:
  FreeSurfaceProjection();
  ~FreeSurfaceProjection() override;
  FreeSurfaceProjection(const FreeSurfaceProjection&) = delete;
  FreeSurfaceProjection& operator=(const FreeSurfaceProjection&) = delete;

  /// `phi`: the liquid's level set, read at every projection (its ghosts are filled here).
  /// Collective.
  /// `walls_may_open`: false keeps every wall of the domain closed (a height field's columns
  /// cannot leave a wall: height_field.hpp). Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const SolverConfig& config,
                       Field& phi, const std::vector<AirPressure>& air = {},
                       bool walls_may_open = true);
  /// Couples the floating bodies into every projection (floating_bodies.hpp): the solve finds
  /// their velocities with the pressure and gives them to the bodies and their faces. Their
  /// faces must hold the bodies' velocities before the liquid pushes (accelerate()) when
  /// project() is called. Collective.
  PetscErrorCode couple(FloatingBodies* bodies);
  PetscErrorCode project(Field& velocity, double dt, ProjectionStats* stats) override;
  PetscErrorCode subtract_pressure_gradient(Field& velocity, double dt) override;
  PetscErrorCode project_increment(Field& velocity, double dt, ProjectionStats* stats) override;
  Vec pressure() const override;
  double last_dt() const override;
  void set_last_dt(double dt) override;
  void set_time(double time) override;
  /// The divergence the liquid cells are to have (a volume controller's, volume_control.hpp):
  /// b = -(div u* - source) / dt in their rows. Air cells ignore it.
  PetscErrorCode set_divergence_source(Vec source) override;

  /// The least fraction of a spacing between a liquid cell's centre and the surface: a closer
  /// surface would make an unbounded diagonal for a sliver of liquid.
  static constexpr double kLeastTheta = 1e-3;
  /// The least gap, in cells, that the liquid must open from a wall in one step for the wall to
  /// open (or stay open): below it the "tension" is the pressure solve's noise.
  static constexpr double kLeastGap = 1e-3;
  /// The solves in which a closed wall may open; after them walls only close (the active set
  /// shrinks to one whose velocities all point away from the walls).
  static constexpr int kOpeningSweeps = 4;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sf
