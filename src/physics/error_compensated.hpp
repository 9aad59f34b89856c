// Error-compensated advection: MacCormack and BFECC built from semi-Lagrangian passes, with
// Selle et al.'s (2008) limiter.
#pragma once

#include <vector>

#include "semi_lagrangian.hpp"

namespace sf {

/// Error-compensated advection with Selle et al.'s (2008) limiter. With A(q, dt) one
/// semi-Lagrangian pass and q~ = A(A(q, dt), -dt) the round trip, whose difference from q is
/// twice the error of one pass:
///   MacCormack:  q_new = A(q, dt) + (q - q~)/2                (two passes)
///   BFECC:       q_new = A(q + (q - q~)/2, dt)                (three passes)
/// MacCormack adds the error estimate at the arrival point, which is right only while features
/// move less than about a cell per step; BFECC corrects the field before the final pass, so the
/// correction travels with it at any CFL number. Either falls back to A(q, dt) wherever the
/// result leaves the range of the old values around the departure point, so no new extrema
/// appear.
class ErrorCompensated : public Advection {
public:
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, Interpolation interpolation,
                       int scalar_count, AdvectionScheme scheme);
  PetscErrorCode advect(Field& velocity, std::vector<Field>& scalars, double dt,
                        AdvectionStats* stats) override;

private:
  /// Applies `update(i, j, k, c, q_new, q_old, q_work, range)` to every unprescribed owned
  /// sample of the velocity and the scalars, with the arrays of the global, old and work
  /// vectors. Not collective.
  template <typename Update>
  PetscErrorCode for_each_sample(Field& velocity, std::vector<Field>& scalars, Update&& update);

  AdvectionScheme scheme_ = AdvectionScheme::MacCormack;
  SemiLagrangian pass_;
  OwnedVec carrier_;        // the old velocity with ghosts, which carries every pass
  OwnedVec velocity_old_;   // q of the velocity
  OwnedVec velocity_work_;  // q~, then (BFECC) A(q, dt) for the fallback
  std::vector<OwnedVec> scalars_old_, scalars_work_;
  std::vector<std::vector<double>> bounds_;
};

}  // namespace sf
