// Scalar sources and dissipation (Stam 1999 §2.4): what the step adds to and takes from the
// scalars, as opposed to the forces on the velocity (forces.hpp).
#pragma once

#include "field.hpp"
#include "job.hpp"
#include "solids.hpp"

namespace sf {

/// Applies the sources of `config` to `scalar` (and, for sources with a velocity, to the free
/// faces of `velocity` inside the region) for a step of dt that begins at `time`: those active
/// then, scaled and moved by their time profile (ScalarSource::when). Works on global vectors.
/// Collective only through PETSc array access (no communication).
PetscErrorCode apply_sources(const ScalarConfig& config, Field& scalar, Field& velocity,
                             const SolidMask& solids, double dt, double time);

/// s /= 1 + dt a in every owned cell (Stam's dissipation; solid cells too, which nothing enters
/// or leaves, so their value never matters). Does nothing when a == 0.
PetscErrorCode dissipate(Field& scalar, double rate, double dt);

}  // namespace sf
