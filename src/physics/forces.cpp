#include "forces.hpp"

#include "buoyancy.hpp"
#include "force_regions.hpp"
#include "gravity.hpp"
#include "vorticity_confinement.hpp"

namespace sf {

PetscErrorCode Forces::setup(const Grid& grid, const ForcesConfig& config, const SolidMask& solids,
                             const std::vector<ScalarConfig>& scalars) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  forces_.clear();
  wind_.reset();
  sum_.reset();
  PetscCheck(config.vorticity_confinement >= 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "vorticity confinement epsilon must be >= 0, got %g", config.vorticity_confinement);
  PetscCheck(!config.wind.enabled || config.wind.rate >= 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "wind rate must be >= 0, got %g", config.wind.rate);

  const std::array<double, 3>& g = config.gravity;
  if (g[0] != 0.0 || g[1] != 0.0 || g[2] != 0.0)
    forces_.push_back(std::make_unique<Gravity>(grid, g));
  if (config.buoyancy.enabled) {
    auto buoyancy = std::make_unique<Buoyancy>();
    PetscCall(buoyancy->setup(grid, config.buoyancy, scalars));
    if (buoyancy->acts()) forces_.push_back(std::move(buoyancy));
  }
  if (config.vorticity_confinement > 0.0) {
    auto confinement = std::make_unique<VorticityConfinement>();
    PetscCall(confinement->setup(grid, config.vorticity_confinement));
    forces_.push_back(std::move(confinement));
  }
  if (!config.regions.empty())
    forces_.push_back(std::make_unique<ForceRegions>(grid, config.regions));
  if (config.wind.enabled) wind_.emplace(grid, solids, config.wind);
  // One face vector for the sum, 8 bytes per face: the price of keeping the forces apart while
  // u += dt f still adds one sum, with the bits of the fused loop it replaced.
  if (!forces_.empty()) PetscCall(DMCreateGlobalVector(grid.face_dm(), sum_.replace()));
  PetscFunctionReturn(0);
}

PetscErrorCode Forces::apply(Field& velocity, const std::vector<Field>& scalars, double dt) {
  PetscFunctionBeginUser;
  PetscCheck(grid_ != nullptr, PETSC_COMM_SELF, PETSC_ERR_ORDER,
             "Forces::apply called before Forces::setup");
  const Grid& grid = *grid_;
  PetscCheck(&velocity.grid() == grid_ && velocity.dm() == grid.face_dm(), grid.comm(),
             PETSC_ERR_ARG_WRONG, "Forces::apply: the velocity is not a face field of this grid");
  if (!forces_.empty()) {
    const ForceState state{velocity, scalars, dt};
    PetscScalar* f_data;
    ArrayView f;
    PetscCall(VecSet(sum_, 0.0));
    PetscCall(VecGetArray(sum_, &f_data));
    PetscCall(grid.global_view(grid.face_dm(), f_data, &f));
    for (const auto& force : forces_) PetscCall(force->add_to(state, f));
    PetscScalar* u_data;
    ArrayView u;
    PetscCall(VecGetArray(velocity.global(), &u_data));
    PetscCall(grid.global_view(velocity.dm(), u_data, &u));
    for_each_free_face(grid, *solids_, [&](int c, PetscInt i, PetscInt j, PetscInt k) {
      // A zero force is no update: the face keeps its bits, a signed zero included.
      if (f(i, j, k, c) != 0.0) u(i, j, k, c) += dt * f(i, j, k, c);
    });
    PetscCall(VecRestoreArray(velocity.global(), &u_data));
    PetscCall(VecRestoreArray(sum_, &f_data));
  }
  if (wind_) PetscCall(wind_->apply(velocity, dt));
  PetscFunctionReturn(0);
}

}  // namespace sf
