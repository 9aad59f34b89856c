#include "buoyancy.hpp"

#include <algorithm>

#include "vec_array.hpp"

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
  PetscErrorCode open(const std::vector<Field>& scalars, int index) {
    PetscFunctionBeginUser;
    if (index >= 0) PetscCall(array_.get_local(scalars[static_cast<size_t>(index)]));
    PetscFunctionReturn(0);
  }
  bool present() const { return static_cast<bool>(array_); }
  /// The value of cell (i, j, k); its neighbours are at multiples of stride().
  const PetscScalar* at(PetscInt i, PetscInt j, PetscInt k) const {
    return array_.data + array_.offset(i, j, k);
  }
  PetscInt stride(int axis) const {
    return axis == 0 ? 1 : axis == 1 ? array_.width[0] : array_.width[0] * array_.width[1];
  }

private:
  ReadArray array_;
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
  PetscCall(density.open(state.scalars, density_index_));
  PetscCall(temperature.open(state.scalars, temperature_index_));
  const double alpha = config_.alpha, beta = config_.beta;
  const double ambient = config_.ambient_temperature;
  // b of the cell `at` cells from the ones d and t point to (either may be absent).
  auto buoyancy_at = [&](const PetscScalar* d, const PetscScalar* t, PetscInt at) {
    double b = 0.0;
    if (d) b -= alpha * d[at];
    if (t) b += beta * (t[at] - ambient);
    return b;
  };
  for (int c = 0; c < grid.dim(); ++c) {
    const double up = config_.up[c];
    if (up == 0.0) continue;  // f_c = 0, which accelerate() would not add anyway
    // A face (i, j, k) of component c lies between cells idx - e_c and idx.
    const PetscInt below = density.present() ? density.stride(c) : temperature.stride(c);
    state.faces.for_each_run(c, [&](PetscInt j, PetscInt k, PetscInt begin, PetscInt end) {
      const PetscScalar* d = density.present() ? density.at(begin, j, k) : nullptr;
      const PetscScalar* t = temperature.present() ? temperature.at(begin, j, k) : nullptr;
      PetscScalar* face = &u(begin, j, k, c);
      for (PetscInt n = 0; n < end - begin; ++n)
        accelerate(face[n * u.dof], state.dt,
                   0.5 * (buoyancy_at(d, t, n - below) + buoyancy_at(d, t, n)) * up);
    });
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
