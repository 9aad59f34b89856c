// Advection stage (DESIGN.md step 3). Strategies share one interface, so an alternative scheme is
// a new class rather than a flag inside a loop.
#pragma once

#include <memory>
#include <vector>

#include "departure_exchange.hpp"
#include "interpolation.hpp"
#include "job.hpp"
#include "solids.hpp"

namespace sf {

struct AdvectionStats {
  PetscInt remote_points = 0;  // sample points, over all ranks, whose trace needed another rank
};

class Advection {
public:
  virtual ~Advection() = default;
  /// Advects the velocity and every scalar through the velocity in velocity.local() (the old
  /// velocity; the caller has filled its ghosts, and those of every scalar). New values go to
  /// the global vectors; prescribed faces keep theirs. Collective.
  virtual PetscErrorCode advect(Field& velocity, std::vector<Field>& scalars, double dt,
                                AdvectionStats* stats) = 0;
};

/// Where one semi-Lagrangian pass reads and writes: the velocity that carries the trace, the
/// fields interpolated at departure points (local, ghosted), the arrays that receive the
/// results (global layout), and optionally the MacCormack bounds (min, max per sample).
struct TracePass {
  const LocalSampler* carrier = nullptr;     // linear velocity for the RK2 trace
  const LocalSampler* velocity = nullptr;    // velocity components to interpolate
  std::vector<LocalSampler> scalars;         // scalars to interpolate
  ArrayView velocity_out;                    // global view of the velocity results
  std::vector<ArrayView> scalars_out;        // global views of the scalar results
  std::vector<std::vector<double>>* bounds = nullptr;  // per location: 2 values per component
};

/// Stam's semi-Lagrangian step: q_new(x) = q_old(x - dt u(x - dt/2 u(x))) (RK2 midpoint trace),
/// with linear or monotone cubic interpolation of q_old.
class SemiLagrangian : public Advection {
public:
  /// `with_bounds`: passes may also return MacCormack's bounds (costs wider remote replies).
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, Interpolation interpolation,
                       int scalar_count, bool with_bounds = false);
  PetscErrorCode advect(Field& velocity, std::vector<Field>& scalars, double dt,
                        AdvectionStats* stats) override;

  /// One pass over every owned, unprescribed sample point of the velocity (and, when the pass
  /// has scalars, of the cell centres), with departure points anywhere. Adds to *remote the
  /// points (over all ranks) that needed another rank. Collective.
  PetscErrorCode trace(const TracePass& pass, double dt, PetscInt* remote);

  const Grid& grid() const { return *grid_; }
  const SolidMask& solids() const { return *solids_; }
  Interpolation interpolation() const { return interpolation_; }

private:
  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  Interpolation interpolation_ = Interpolation::Linear;
  int scalar_count_ = 0;
  DepartureExchange exchange_;
};

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

/// Builds the advection strategy the job asks for. Collective.
PetscErrorCode make_advection(const Grid& grid, const SolidMask& solids,
                              const AdvectionConfig& config, int scalar_count,
                              std::unique_ptr<Advection>* advection);

}  // namespace sf
