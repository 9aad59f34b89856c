// Initial state from the job: analytic velocity fields sampled exactly at face centres, and
// scalars set region by region at cell centres. Sampling (rather than averaging) keeps every
// value a pure function of its global index, so the state is identical on any rank count.
#pragma once

#include <vector>

#include "field.hpp"
#include "job.hpp"
#include "solids.hpp"

namespace sf {

/// Sets the owned face velocities from `init`. Tangential slots of the face DM's extra upper
/// layer are left at 0 (they are not faces of the domain).
PetscErrorCode set_initial_velocity(const VelocityInit& init, Field& velocity);

/// Sets the owned cells of `scalar` to the background, then to each blob's value inside it.
PetscErrorCode set_initial_scalar(const ScalarConfig& config, Field& scalar);

/// The run's fields at time `time`: the velocity and the job's scalars (in its order) set up on
/// `grid` with their initial values, the solids' faces and cells held. Room is kept for one more
/// scalar, which a module may add (a liquid's level set) without moving these. Collective.
PetscErrorCode set_up_initial_fields(const JobConfig& job, const Grid& grid,
                                     const SolidMask& solids, double time, Field* velocity,
                                     std::vector<Field>* scalars);

}  // namespace sf
