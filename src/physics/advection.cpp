// The advection strategies the job can choose (advection.scheme).
#include "advection.hpp"

#include "error_compensated.hpp"
#include "semi_lagrangian.hpp"

namespace sf {

PetscErrorCode make_advection(const Grid& grid, const SolidMask& solids,
                              const AdvectionConfig& config, int scalar_count,
                              std::unique_ptr<Advection>* advection) {
  PetscFunctionBeginUser;
  if (config.scheme != AdvectionScheme::SemiLagrangian) {
    auto compensated = std::make_unique<ErrorCompensated>();
    PetscCall(compensated->setup(grid, solids, config.interpolation, scalar_count, config.scheme));
    *advection = std::move(compensated);
  } else {
    auto semi_lagrangian = std::make_unique<SemiLagrangian>();
    PetscCall(semi_lagrangian->setup(grid, solids, config.interpolation, scalar_count));
    *advection = std::move(semi_lagrangian);
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
