#include "forces.hpp"

#include "buoyancy.hpp"
#include "density_noise.hpp"
#include "force_regions.hpp"
#include "gravity.hpp"
#include "vec_array.hpp"
#include "vorticity_confinement.hpp"

namespace sf {

namespace {

/// The PETSc log event called `name` (class "Forces"), registered on first use; a second
/// simulation in the same process (tests) finds it registered (as StageTimers does its stages).
PetscErrorCode force_event(const char* name, PetscLogEvent* event) {
  PetscFunctionBeginUser;
  static PetscClassId forces_class = -1;
  if (forces_class < 0) PetscCall(PetscClassIdRegister("Forces", &forces_class));
  PetscCall(PetscLogEventGetId(name, event));
  if (*event < 0) PetscCall(PetscLogEventRegister(name, forces_class, event));
  PetscFunctionReturn(0);
}

}  // namespace

void FreeFaces::setup(const Grid& grid, const SolidMask& solids) {
  dim_ = grid.dim();
  version_ = solids.version();
  for (int c = 0; c < 3; ++c) {
    runs_[c].clear();
    plane_first_[c].clear();
  }
  for (int c = 0; c < dim_; ++c) {
    const IndexBox faces = grid.owned_faces(c);
    plane_lo_[c] = faces.lo[2];
    for (PetscInt k = faces.lo[2]; k < faces.hi[2]; ++k) {
      plane_first_[c].push_back(runs_[c].size());
      for (PetscInt j = faces.lo[1]; j < faces.hi[1]; ++j) {
        PetscInt i = faces.lo[0];
        while (i < faces.hi[0]) {
          while (i < faces.hi[0] && solids.fixed_face(c, i, j, k)) ++i;
          const PetscInt begin = i;
          while (i < faces.hi[0] && !solids.fixed_face(c, i, j, k)) ++i;
          if (i > begin) runs_[c].push_back({j, k, begin, i});
        }
      }
    }
    plane_first_[c].push_back(runs_[c].size());
  }
}

PetscErrorCode Forces::setup(const Grid& grid, const ForcesConfig& config, const SolidMask& solids,
                             const std::vector<ScalarConfig>& scalars) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  forces_.clear();
  wind_.reset();
  PetscCheck(config.vorticity_confinement >= 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "vorticity confinement epsilon must be >= 0, got %g", config.vorticity_confinement);
  PetscCheck(!config.wind.enabled || config.wind.rate >= 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "wind rate must be >= 0, got %g", config.wind.rate);

  const std::array<double, 3>& g = config.gravity;
  if (g[0] != 0.0 || g[1] != 0.0 || g[2] != 0.0) forces_.push_back(std::make_unique<Gravity>(g));
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
  if (config.noise.enabled && config.noise.amplitude > 0.0) {
    auto noise = std::make_unique<DensityNoise>();
    PetscCall(noise->setup(grid, config.noise, scalars));
    forces_.push_back(std::move(noise));
  }
  if (config.wind.enabled) wind_.emplace(grid, config.wind);
  events_.resize(forces_.size());
  for (size_t f = 0; f < forces_.size(); ++f)
    PetscCall(force_event(forces_[f]->event_name(), &events_[f]));
  PetscCall(force_event("SteeredForces", &steered_event_));
  faces_.setup(grid, solids);
  PetscFunctionReturn(0);
}

void Forces::set_steered(const std::vector<ForceRegion>& regions) {
  steered_.reset();
  if (!regions.empty()) steered_ = std::make_unique<ForceRegions>(*grid_, regions);
}

PetscErrorCode Forces::apply(Field& velocity, const std::vector<Field>& scalars, double dt,
                             double time) {
  PetscFunctionBeginUser;
  PetscCheck(grid_ != nullptr, PETSC_COMM_SELF, PETSC_ERR_ORDER,
             "Forces::apply called before Forces::setup");
  const Grid& grid = *grid_;
  PetscCheck(&velocity.grid() == grid_ && velocity.dm() == grid.face_dm(), grid.comm(),
             PETSC_ERR_ARG_WRONG, "Forces::apply: the velocity is not a face field of this grid");
  if (faces_.version() != solids_->version()) faces_.setup(grid, *solids_);
  if (!forces_.empty() || steered_) {
    // The forces write the global vector and read the local one, which stays as it was on entry
    // until the next fill_ghosts(): each force sees the state before any force acted.
    const ForceState state{velocity, scalars, faces_, dt, time};
    WriteArray u;
    PetscCall(u.get_global(velocity));
    for (size_t f = 0; f < forces_.size(); ++f) {
      PetscCall(PetscLogEventBegin(events_[f], 0, 0, 0, 0));
      PetscCall(forces_[f]->add_to(state, u));
      PetscCall(PetscLogEventEnd(events_[f], 0, 0, 0, 0));
    }
    if (steered_) {
      PetscCall(PetscLogEventBegin(steered_event_, 0, 0, 0, 0));
      PetscCall(steered_->add_to(state, u));
      PetscCall(PetscLogEventEnd(steered_event_, 0, 0, 0, 0));
    }
  }
  if (wind_) PetscCall(wind_->apply(velocity, faces_, dt));
  PetscFunctionReturn(0);
}

}  // namespace sf
