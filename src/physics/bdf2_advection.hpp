// The advection half of the second-order time step (time.scheme: bdf2): semi-Lagrangian BDF2
// (Xiu & Karniadakis 2001, "A semi-Lagrangian high-order method for Navier-Stokes equations",
// J. Comput. Phys. 172; their eq. (2.6) with the second-order stiffly stable coefficients).
#pragma once

#include <vector>

#include "semi_lagrangian.hpp"

namespace sf {

/// BDF2 along the characteristics. With q~^n the old field at the departure point of a trace
/// over dt, and q~^{n-1} the field of the step before at the departure point of a trace over
/// dt + dt_prev (both on the same trajectory through the arrival point x at t^{n+1}),
///
///   (1 + 2w)/(1 + w) q^{n+1} - (1 + w) q~^n + w^2/(1 + w) q~^{n-1} = dt (rest at t^{n+1}),
///   w = dt / dt_prev,
///
/// the variable-step BDF2; with w = 1 it is (3 q^{n+1} - 4 q~^n + q~^{n-1}) / (2 dt). advect()
/// leaves q* = [(1 + w)^2 q~^n - w^2 q~^{n-1}] / (1 + 2w) in the fields and says which step the
/// implicit stages then take, dt (1 + w)/(1 + 2w) (2 dt/3 at a constant step): diffusion,
/// projection, forces and dissipation with that step complete the BDF2 step.
///
/// Second order needs the trajectories to third order locally: both traces use the RK2 midpoint
/// rule with the velocity at the middle of their interval, extrapolated linearly from u^{n-1}
/// and u^n (over dt: u^n + dt/(2 dt_prev) (u^n - u^{n-1}); over dt + dt_prev the middle is t^n at
/// a constant step, so u^n itself). The first step is one BDF1 step (Stam's semi-Lagrangian
/// pass), and so is a step more than kMaxStepRatio times the one before: variable-step BDF2 is
/// zero-stable only for w < 1 + sqrt(2) (Grigorieff 1983), and w jumps after a step shortened to
/// land on an output time. Such restarts come once per output interval, not once per step, so
/// they do not lower the order as dt is refined.
///
/// Cost: two passes per step, and the fields of the step before (velocity and scalars, global
/// and ghosted) kept from step to step.
class Bdf2Advection {
public:
  /// The largest w = dt / dt_prev a BDF2 step takes; beyond it the step is BDF1.
  static constexpr double kMaxStepRatio = 2.0;

  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, Interpolation interpolation,
                       const std::vector<Field>& scalars);

  /// Replaces the fields by q* (above), through the velocity in velocity.local() (ghosts
  /// filled, as those of every scalar); *implicit_dt is the step the implicit stages take.
  /// Prescribed faces keep their values. Collective.
  PetscErrorCode advect(Field& velocity, std::vector<Field>& scalars, double dt,
                        AdvectionStats* stats, double* implicit_dt);

  /// The state of the step before, which a checkpoint keeps so that a restart continues bit
  /// for bit: the fields at t^{n-1} and dt_prev (0 when there is no step before).
  Field& previous_velocity() { return velocity_old_; }
  std::vector<Field>& previous_scalars() { return scalars_old_; }
  double previous_dt() const { return dt_old_; }
  /// After a restart: the step before is the checkpoint's, whose fields the caller has read
  /// into previous_velocity() and previous_scalars() (globals) when dt > 0. Collective.
  PetscErrorCode resume(double dt);

private:
  /// Keeps the fields as they are now as the step before of the next step.
  PetscErrorCode remember(Field& velocity, std::vector<Field>& scalars);
  /// q = a q + b back on every owned, unprescribed sample.
  PetscErrorCode combine(Field& velocity, std::vector<Field>& scalars, Vec velocity_back,
                         const std::vector<Vec>& scalars_back, double a, double b);

  SemiLagrangian pass_;
  Field velocity_old_;
  std::vector<Field> scalars_old_;
  double dt_old_ = 0.0;  // the step before's dt; 0 before the first step
};

}  // namespace sf
