// Stam's semi-Lagrangian pass, the building block of every advection scheme here (see
// semi_lagrangian.cpp for the method and its distribution), and the arrays one pass works on.
#pragma once

#include <vector>

#include "advection.hpp"
#include "departure_exchange.hpp"
#include "interpolation.hpp"
#include "vec_array.hpp"

namespace sf {

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

/// Read access to the local (ghosted) arrays of the velocity and scalars, and write access to
/// their global arrays, for the duration of one pass.
class PassArrays {
public:
  PetscErrorCode open(const SemiLagrangian& scheme, Vec carrier, Field& velocity, Vec velocity_out,
                      std::vector<Field>& scalars, const std::vector<Vec>& scalars_out) {
    PetscFunctionBeginUser;
    const Grid& grid = scheme.grid();
    PetscCall(carrier_.get_local(velocity.dm(), carrier));
    carrier_sampler_ = LocalSampler(grid, carrier_, Interpolation::Linear);
    PetscCall(velocity_.get_local(velocity));
    velocity_sampler_ = LocalSampler(grid, velocity_, scheme.interpolation());
    PetscCall(velocity_out_.get_global(velocity.dm(), velocity_out));
    pass.carrier = &carrier_sampler_;
    pass.velocity = &velocity_sampler_;
    pass.velocity_out = velocity_out_.view();
    // The scalars written are those of scalars_out, the first of `scalars` (those after them
    // are carried by their modules; Advection::advect).
    const size_t count = scalars_out.size();
    scalars_.resize(count);
    scalars_out_.resize(count);
    pass.scalars.resize(count);
    pass.scalars_out.resize(count);
    for (size_t s = 0; s < count; ++s) {
      PetscCall(scalars_[s].get_local(scalars[s]));
      pass.scalars[s] = LocalSampler(grid, scalars_[s], scheme.interpolation());
      PetscCall(scalars_out_[s].get_global(scalars[s].dm(), scalars_out[s]));
      pass.scalars_out[s] = scalars_out_[s].view();
    }
    PetscFunctionReturn(0);
  }

  /// Gives every array back, before the fields are used again.
  PetscErrorCode close() {
    PetscFunctionBeginUser;
    for (size_t s = 0; s < scalars_.size(); ++s) {
      PetscCall(scalars_out_[s].restore());
      PetscCall(scalars_[s].restore());
    }
    PetscCall(velocity_out_.restore());
    PetscCall(velocity_.restore());
    PetscCall(carrier_.restore());
    PetscFunctionReturn(0);
  }

  TracePass pass;

private:
  ReadArray carrier_, velocity_;
  WriteArray velocity_out_;
  std::vector<ReadArray> scalars_;
  std::vector<WriteArray> scalars_out_;
  LocalSampler carrier_sampler_, velocity_sampler_;
};

/// The global vectors of the first `count` of `fields`, in order.
inline std::vector<Vec> globals_of(std::vector<Field>& fields, size_t count) {
  std::vector<Vec> result;
  for (size_t n = 0; n < count; ++n) result.push_back(fields[n].global());
  return result;
}

}  // namespace sf
