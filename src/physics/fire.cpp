#include "fire.hpp"

#include <cmath>

#include "vec_array.hpp"

namespace sf {

namespace {

int scalar_index(const std::vector<ScalarConfig>& scalars, const std::string& name) {
  for (size_t n = 0; n < scalars.size(); ++n)
    if (scalars[n].name == name) return static_cast<int>(n);
  return -1;
}

}  // namespace

PetscErrorCode Fire::setup(const Grid& grid, const SolidMask& solids, const FireConfig& config,
                           const std::vector<ScalarConfig>& scalars) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  config_ = config;
  source_.reset();
  if (!config.enabled) PetscFunctionReturn(0);
  fuel_ = scalar_index(scalars, config.fuel);
  temperature_ = scalar_index(scalars, config.temperature);
  soot_ = config.soot.empty() ? -1 : scalar_index(scalars, config.soot);
  PetscCheck(fuel_ >= 0 && temperature_ >= 0 && (config.soot.empty() || soot_ >= 0), grid.comm(),
             PETSC_ERR_ARG_WRONG,
             "fire: the fuel \"%s\", temperature \"%s\" and soot \"%s\" must be scalars of the job",
             config.fuel.c_str(), config.temperature.c_str(), config.soot.c_str());
  PetscCheck(config.burn_rate > 0.0 && config.heat >= 0.0 && config.soot_yield >= 0.0 &&
                 config.expansion >= 0.0,
             grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "fire needs burn_rate > 0 and heat, soot_yield, expansion >= 0");
  if (config.expansion > 0.0) PetscCall(DMCreateGlobalVector(grid.cell_dm(), source_.replace()));
  PetscFunctionReturn(0);
}

PetscErrorCode Fire::burn(std::vector<Field>& scalars, double dt, double* burnt) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  PetscCheck(config_.enabled, grid.comm(), PETSC_ERR_ORDER, "Fire::burn without a fire");
  PetscCheck(dt > 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE, "fire: time step %g <= 0", dt);
  // The fraction of the fuel a step burns, exactly: the same for every burning cell.
  const double fraction = -std::expm1(-config_.burn_rate * dt);
  const double ignition = config_.ignition_temperature;
  const double heat = config_.heat, yield = config_.soot_yield;
  const double growth = config_.expansion / dt;
  WriteArray f, t, s, d;
  PetscCall(f.get_global(scalars[static_cast<size_t>(fuel_)]));
  PetscCall(t.get_global(scalars[static_cast<size_t>(temperature_)]));
  if (soot_ >= 0) PetscCall(s.get_global(scalars[static_cast<size_t>(soot_)]));
  if (source_) PetscCall(d.get_global(grid.cell_dm(), source_));
  double local = 0.0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    double b = 0.0;
    // Negative fuel (overshoots of a higher-order advection) does not burn back into fuel.
    if (!solids_->solid(i, j, k) && t(i, j, k) >= ignition && f(i, j, k) > 0.0) {
      b = f(i, j, k) * fraction;
      f(i, j, k) -= b;
      t(i, j, k) += heat * b;
      if (s) s(i, j, k) += yield * b;
      local += b;
    }
    if (d) d(i, j, k) = growth * b;
  });
  if (burnt) {
    double cell = 1.0;
    for (int a = 0; a < grid.dim(); ++a) cell *= grid.spacing(a);
    local *= cell;
    PetscCallMPI(MPI_Allreduce(&local, burnt, 1, MPI_DOUBLE, MPI_SUM, grid.comm()));
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
