// The velocity's implicit viscous step (Stam §2.2 step 3), whichever viscosity the job gives:
// a constant nu diffuses each component on its own (diffusion.hpp), and a viscosity that follows
// one of the job's scalars (fluid.viscosity: {from: <scalar>, ...}; Carlson et al. 2002) couples
// all components in one solve (variable_viscosity.hpp). The base scheme calls diffuse() and
// never asks which.
#pragma once

#include <memory>
#include <vector>

#include "diffusion.hpp"
#include "job.hpp"
#include "solids.hpp"

namespace sf {

class VelocityDiffusion {
public:
  virtual ~VelocityDiffusion() = default;
  /// Diffuses the velocity over dt in place (its global vector), reading the viscosity from the
  /// job or from `scalars` (the job's, in its order); `iterations` receives the solver's total.
  /// Collective.
  virtual PetscErrorCode diffuse(Field& velocity, std::vector<Field>& scalars, double dt,
                                 PetscInt* iterations) = 0;
};

/// The velocity's diffusion for the job: with a constant viscosity, `diffusion` (the scalars'
/// strategy, which must outlive the result) at fluid.viscosity; with a viscosity law, the coupled
/// variable-viscosity solve on the scalar the law names. Collective.
PetscErrorCode make_velocity_diffusion(const Grid& grid, const SolidMask& solids,
                                       const JobConfig& job, Diffusion* diffusion,
                                       std::unique_ptr<VelocityDiffusion>* result);

}  // namespace sf
