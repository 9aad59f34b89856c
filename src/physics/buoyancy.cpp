#include "buoyancy.hpp"

#include <algorithm>

namespace sf {

namespace {

/// Index of the buoyancy scalar called `name` in `scalars`, or -1 when the term is dropped (empty
/// name). A name that matches no scalar is an error unless its coefficient is zero.
PetscErrorCode resolve_scalar(MPI_Comm comm, const std::vector<ScalarConfig>& scalars,
                              const std::string& name, double coefficient, const char* role,
                              const char* coefficient_name, int* index) {
  PetscFunctionBeginUser;
  *index = -1;
  if (name.empty()) PetscFunctionReturn(0);
  for (size_t n = 0; n < scalars.size(); ++n)
    if (scalars[n].name == name) *index = static_cast<int>(n);
  PetscCheck(*index >= 0 || coefficient == 0.0, comm, PETSC_ERR_ARG_WRONG,
             "buoyancy: the %s scalar \"%s\" is not one of the job's scalars, but %s = %g is not "
             "zero",
             role, name.c_str(), coefficient_name, coefficient);
  PetscFunctionReturn(0);
}

/// Read access to the ghosted local vector of one scalar, or nothing when index < 0.
class ScalarRead {
public:
  PetscErrorCode open(const Grid& grid, const std::vector<Field>& scalars, int index) {
    PetscFunctionBeginUser;
    if (index < 0) PetscFunctionReturn(0);
    field_ = &scalars[static_cast<size_t>(index)];
    PetscCall(VecGetArrayRead(field_->local(), &data_));
    PetscCall(grid.local_view(field_->dm(), const_cast<PetscScalar*>(data_), &view_));
    PetscFunctionReturn(0);
  }
  PetscErrorCode close() {
    PetscFunctionBeginUser;
    if (data_) PetscCall(VecRestoreArrayRead(field_->local(), &data_));
    data_ = nullptr;
    PetscFunctionReturn(0);
  }
  bool present() const { return data_ != nullptr; }
  double operator()(PetscInt i, PetscInt j, PetscInt k) const { return view_(i, j, k); }

private:
  const Field* field_ = nullptr;
  const PetscScalar* data_ = nullptr;
  ArrayView view_;
};

}  // namespace

PetscErrorCode Buoyancy::setup(const Grid& grid, const BuoyancyConfig& config,
                               const std::vector<ScalarConfig>& scalars) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  config_ = config;
  PetscCall(resolve_scalar(grid.comm(), scalars, config.density_scalar, config.alpha, "density",
                           "alpha", &density_index_));
  PetscCall(resolve_scalar(grid.comm(), scalars, config.temperature_scalar, config.beta,
                           "temperature", "beta", &temperature_index_));
  PetscFunctionReturn(0);
}

PetscErrorCode Buoyancy::add_to(const ForceState& state, const ArrayView& u) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  PetscCheck(std::max(density_index_, temperature_index_) <
                 static_cast<int>(state.scalars.size()),
             grid.comm(), PETSC_ERR_ARG_SIZ,
             "buoyancy: %d scalars given, but it reads scalar %d",
             static_cast<int>(state.scalars.size()), std::max(density_index_, temperature_index_));
  // The ghosted vectors: a face's lower cell may belong to the rank below.
  ScalarRead density, temperature;
  PetscCall(density.open(grid, state.scalars, density_index_));
  PetscCall(temperature.open(grid, state.scalars, temperature_index_));
  const double alpha = config_.alpha, beta = config_.beta;
  const double ambient = config_.ambient_temperature;
  auto buoyancy_at = [&](PetscInt i, PetscInt j, PetscInt k) {
    double b = 0.0;
    if (density.present()) b -= alpha * density(i, j, k);
    if (temperature.present()) b += beta * (temperature(i, j, k) - ambient);
    return b;
  };
  state.faces.for_each([&](int c, PetscInt i, PetscInt j, PetscInt k) {
    const PetscInt di = c == 0, dj = c == 1, dk = c == 2;
    accelerate(u(i, j, k, c), state.dt,
               0.5 * (buoyancy_at(i - di, j - dj, k - dk) + buoyancy_at(i, j, k)) * config_.up[c]);
  });
  PetscCall(temperature.close());
  PetscCall(density.close());
  PetscFunctionReturn(0);
}

}  // namespace sf
