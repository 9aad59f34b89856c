// Semi-Lagrangian BDF2 (bdf2_advection.hpp): two traces of the same trajectories, one over the
// last step and one over the last two, and their BDF2 combination.
#include "bdf2_advection.hpp"

#include "vec_array.hpp"

namespace sf {

PetscErrorCode Bdf2Advection::setup(const Grid& grid, const SolidMask& solids,
                                    Interpolation interpolation,
                                    const std::vector<Field>& scalars) {
  PetscFunctionBeginUser;
  PetscCall(pass_.setup(grid, solids, interpolation, static_cast<int>(scalars.size())));
  PetscCall(velocity_old_.setup_velocity(grid));
  scalars_old_.resize(scalars.size());
  for (size_t s = 0; s < scalars.size(); ++s)
    PetscCall(scalars_old_[s].setup_scalar(grid, scalars[s].name()));
  PetscFunctionReturn(0);
}

PetscErrorCode Bdf2Advection::resume(double dt) {
  PetscFunctionBeginUser;
  dt_old_ = dt;
  if (dt > 0.0) {
    PetscCall(velocity_old_.fill_ghosts());
    for (Field& s : scalars_old_) PetscCall(s.fill_ghosts());
  }
  PetscFunctionReturn(0);
}

PetscErrorCode Bdf2Advection::remember(Field& velocity, std::vector<Field>& scalars) {
  PetscFunctionBeginUser;
  // The ghosted copies too: they are what the next step interpolates, and their ghosts are
  // those of this step's fields, filled for this step's advection.
  PetscCall(VecCopy(velocity.global(), velocity_old_.global()));
  PetscCall(VecCopy(velocity.local(), velocity_old_.local()));
  for (size_t s = 0; s < scalars.size(); ++s) {
    PetscCall(VecCopy(scalars[s].global(), scalars_old_[s].global()));
    PetscCall(VecCopy(scalars[s].local(), scalars_old_[s].local()));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode Bdf2Advection::combine(Field& velocity, std::vector<Field>& scalars,
                                      Vec velocity_back, const std::vector<Vec>& scalars_back,
                                      double a, double b) {
  PetscFunctionBeginUser;
  const Grid& grid = pass_.grid();
  ReadArray back;
  WriteArray q;
  PetscCall(q.get_global(velocity));
  PetscCall(back.get_global(velocity.dm(), velocity_back));
  for (int c = 0; c < grid.dim(); ++c) {
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      // Prescribed faces were not traced: they keep the boundary's value, and a + b = 1 holds
      // only to rounding.
      if (pass_.solids().fixed_face(c, i, j, k)) return;
      q(i, j, k, c) = a * q(i, j, k, c) + b * back(i, j, k, c);
    });
  }
  PetscCall(back.restore());
  PetscCall(q.restore());
  // Every cell centre is traced.
  for (size_t s = 0; s < scalars.size(); ++s)
    PetscCall(VecAXPBY(scalars[s].global(), b, a, scalars_back[s]));
  PetscFunctionReturn(0);
}

PetscErrorCode Bdf2Advection::advect(Field& velocity, std::vector<Field>& scalars, double dt,
                                     AdvectionStats* stats, double* implicit_dt) {
  PetscFunctionBeginUser;
  const Grid& grid = pass_.grid();
  stats->remote_points = 0;
  if (dt_old_ <= 0.0 || dt > kMaxStepRatio * dt_old_) {
    // BDF1: Stam's pass, carried by u^n.
    PetscCall(remember(velocity, scalars));
    PetscCall(pass_.advect(velocity, scalars, dt, stats));
    dt_old_ = dt;
    *implicit_dt = dt;
    PetscFunctionReturn(0);
  }

  // Working vectors from the DMs' pools, which the projection and the exchanges share, so
  // they cost memory only while no other stage holds theirs.
  BorrowedVec carrier, velocity_back;
  std::vector<BorrowedVec> borrowed(scalars.size());
  std::vector<Vec> scalars_back;
  PetscCall(carrier.get_local(grid.face_dm()));
  PetscCall(velocity_back.get_global(grid.face_dm()));
  for (BorrowedVec& v : borrowed) {
    PetscCall(v.get_global(grid.cell_dm()));
    scalars_back.push_back(v);
  }
  // The carrier at time t^n + lean dt_prev: u^n + lean (u^n - u^{n-1}), ghosts included (the
  // boundary values are affine in the field, and the weights sum to one).
  auto set_carrier = [&](double lean) -> PetscErrorCode {
    PetscFunctionBeginUser;
    PetscCall(VecWAXPY(carrier, -1.0, velocity_old_.local(), velocity.local()));
    PetscCall(VecAYPX(carrier, lean, velocity.local()));
    PetscFunctionReturn(0);
  };

  // q~^{n-1}: over [t^{n-1}, t^{n+1}], carried by u at its middle, t^n + (dt - dt_prev)/2.
  PetscCall(set_carrier(0.5 * (dt - dt_old_) / dt_old_));
  PassArrays two_steps;
  PetscCall(two_steps.open(pass_, carrier, velocity_old_, velocity_back, scalars_old_,
                           scalars_back));
  PetscCall(pass_.trace(two_steps.pass, dt + dt_old_, &stats->remote_points));
  PetscCall(two_steps.close());

  // q~^n: over [t^n, t^{n+1}], carried by u at t^n + dt/2; then u^n becomes the step before.
  PetscCall(set_carrier(0.5 * dt / dt_old_));
  PetscCall(remember(velocity, scalars));
  PassArrays one_step;
  PetscCall(one_step.open(pass_, carrier, velocity, velocity.global(), scalars,
                          globals_of(scalars, scalars.size())));
  PetscCall(pass_.trace(one_step.pass, dt, &stats->remote_points));
  PetscCall(one_step.close());

  const double w = dt / dt_old_;
  PetscCall(combine(velocity, scalars, velocity_back, scalars_back,
                    (1.0 + w) * (1.0 + w) / (1.0 + 2.0 * w), -w * w / (1.0 + 2.0 * w)));
  // Back to the pools in the order they had them before.
  for (BorrowedVec& v : borrowed) PetscCall(v.give_back());
  PetscCall(velocity_back.give_back());
  PetscCall(carrier.give_back());
  dt_old_ = dt;
  *implicit_dt = dt * (1.0 + w) / (1.0 + 2.0 * w);
  PetscFunctionReturn(0);
}

}  // namespace sf
