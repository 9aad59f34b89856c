// Error codes every layer raises and main() maps to exit statuses (errors.hpp).
#pragma once

#include <petscsys.h>

namespace sf {

/// The error code for a job that cannot run as given (a halo wider than a rank's slab, a
/// checkpoint that does not belong to the job): main() exits with kExitBadJob for it.
constexpr PetscErrorCode kErrorBadJob = PETSC_ERR_USER_INPUT;

}  // namespace sf
