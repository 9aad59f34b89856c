// Stam's semi-Lagrangian pass, the building block of every advection scheme here (see
// semi_lagrangian.cpp for the method and its distribution), and the arrays one pass works on.
#pragma once

#include <vector>

#include "advection.hpp"
#include "departure_exchange.hpp"
#include "interpolation.hpp"

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
    carrier_ = carrier;
    velocity_ = &velocity;
    velocity_out_ = velocity_out;
    scalars_ = &scalars;
    scalars_out_ = scalars_out;
    ArrayView view;
    PetscCall(VecGetArrayRead(carrier, &carrier_data_));
    PetscCall(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(carrier_data_), &view));
    carrier_sampler_ = LocalSampler(grid, view, Interpolation::Linear);
    PetscCall(VecGetArrayRead(velocity.local(), &velocity_data_));
    PetscCall(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(velocity_data_), &view));
    velocity_sampler_ = LocalSampler(grid, view, scheme.interpolation());
    PetscCall(VecGetArray(velocity_out, &velocity_out_data_));
    pass.carrier = &carrier_sampler_;
    pass.velocity = &velocity_sampler_;
    PetscCall(grid.global_view(velocity.dm(), velocity_out_data_, &pass.velocity_out));
    scalar_data_.resize(scalars.size());
    scalar_out_data_.resize(scalars.size());
    pass.scalars.resize(scalars.size());
    pass.scalars_out.resize(scalars.size());
    for (size_t s = 0; s < scalars.size(); ++s) {
      PetscCall(VecGetArrayRead(scalars[s].local(), &scalar_data_[s]));
      PetscCall(grid.local_view(scalars[s].dm(), const_cast<PetscScalar*>(scalar_data_[s]), &view));
      pass.scalars[s] = LocalSampler(grid, view, scheme.interpolation());
      PetscCall(VecGetArray(scalars_out[s], &scalar_out_data_[s]));
      PetscCall(grid.global_view(scalars[s].dm(), scalar_out_data_[s], &pass.scalars_out[s]));
    }
    PetscFunctionReturn(0);
  }

  PetscErrorCode close() {
    PetscFunctionBeginUser;
    for (size_t s = 0; s < scalars_->size(); ++s) {
      PetscCall(VecRestoreArray(scalars_out_[s], &scalar_out_data_[s]));
      PetscCall(VecRestoreArrayRead((*scalars_)[s].local(), &scalar_data_[s]));
    }
    PetscCall(VecRestoreArray(velocity_out_, &velocity_out_data_));
    PetscCall(VecRestoreArrayRead(velocity_->local(), &velocity_data_));
    PetscCall(VecRestoreArrayRead(carrier_, &carrier_data_));
    PetscFunctionReturn(0);
  }

  TracePass pass;

private:
  Vec carrier_ = nullptr, velocity_out_ = nullptr;
  Field* velocity_ = nullptr;
  std::vector<Field>* scalars_ = nullptr;
  std::vector<Vec> scalars_out_;
  const PetscScalar *carrier_data_ = nullptr, *velocity_data_ = nullptr;
  PetscScalar* velocity_out_data_ = nullptr;
  std::vector<const PetscScalar*> scalar_data_;
  std::vector<PetscScalar*> scalar_out_data_;
  LocalSampler carrier_sampler_, velocity_sampler_;
};

/// The global vectors of `fields`, in order.
inline std::vector<Vec> globals_of(std::vector<Field>& fields) {
  std::vector<Vec> result;
  for (Field& f : fields) result.push_back(f.global());
  return result;
}

}  // namespace sf
