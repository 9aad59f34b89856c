// Error codes every layer raises and main() maps to exit statuses (errors.hpp).
#pragma once

#include <petscsys.h>

namespace sf {

/// The error code for a job that cannot run as given, found before the first step (a halo wider
/// than a rank's slab, a checkpoint that does not belong to the job, another run holding the
/// output directory): main() exits with kExitBadJob for it, and for no other code.
///
/// It is the project's own, outside PETSc's range: PETSc's codes lie between
/// PETSC_ERR_MIN_VALUE and PETSC_ERR_MAX_VALUE (petscerror.h) and applications may use those
/// above. An error PETSc raises itself, whatever its code (PETSC_ERR_USER_INPUT included), is
/// then never taken for the job's fault. Problems found during the run (a floating body that
/// reaches a wall, say) are not the job's fault in this sense either and use PETSc's codes.
constexpr PetscErrorCode kErrorBadJob = PETSC_ERR_MAX_VALUE + 1;

}  // namespace sf
