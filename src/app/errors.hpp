// How a run fails: one message, the same documented exit status on every rank, and no rank left
// waiting in a collective.
//
// PETSc's default (traceback) handler assumes that an error raised on a communicator of several
// ranks is raised by all of them, prints it from rank 0, and makes every other rank sleep 10 s
// and exit with status 0 — so a batch system saw ranks "succeed" after a NaN stop or a failed
// write. stablefluids replaces it with one discipline:
//
// 1. Agree, then raise. An error is raised on a communicator of several ranks (SETERRQ or
//    PetscCheck with `comm`) only where every rank of it raises the same error at the same
//    point: after the reduction or broadcast that decided it (hdf5_util.hpp's agree(),
//    find_bad_value's MINLOC, a Krylov converged reason, the job text every rank parsed).
//    The handler prints such an error once, from rank 0 of that communicator, as one line
//    "stablefluids: error: <message>", and every rank returns the code up the stack.
// 2. An error raised on PETSC_COMM_SELF (or on any one-rank communicator) concerns this rank
//    alone; the handler prints it with the rank number and where it was raised.
// 3. main() ends every failure through settle_failure(): the failed rank confirms, in a
//    non-blocking reduction bounded in time, that all ranks failed. Under rule 1 they all did,
//    at once, and each exits with the documented status. If some rank is still running (an error
//    of rule 2 on one rank, or a bug), no collective can reach it any more; the failed rank then
//    aborts the whole job with MPI_Abort rather than leave it hanging.
//
// Exit statuses (docs/running.md "What stops a run"): 0 done; 1 the run failed (anything found once
// the steps are under way, any error PETSc, MPI or HDF5 raise themselves, an exception, a CPU
// without the build's instructions); 2 the job, the command line or the rank count cannot be run,
// found before the first step and raised with the project's own code kErrorBadJob
// (error_codes.hpp), the only code that maps to 2; 3 stopped by a signal after writing a
// checkpoint. A rank that the others leave waiting aborts the job (rule 3): mpiexec then exits with
// that rank's status, or with its own where the launcher replaces it.
#pragma once

#include <petscsys.h>

#include "error_codes.hpp"

namespace sf {

constexpr int kExitDone = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadJob = 2;
constexpr int kExitInterrupted = 3;


/// Seconds a failed rank waits for the others to fail too before it aborts the job (rule 3).
/// Agreed failures meet at once; the wait only matters when a rank failed alone.
constexpr double kFailureAgreementSeconds = 5.0;

/// Whether this CPU has the instructions the build was compiled for (STABLEFLUIDS_ARCH, x86-64-v3
/// by default: AVX2, FMA and BMI2); always true for a build for the compiler's default target.
/// main() asks first, and on a CPU without them runs none of its own code before the ranks have
/// agreed to stop (agree_on_cpu).
bool cpu_supported();

/// Collective: raises PETSC_ERR_SUP_SYS on every rank of `comm`, naming how many ranks lack the
/// instructions, if any rank's `supported` is false; printed once, by rank 0 (rule 1).
PetscErrorCode agree_on_cpu(MPI_Comm comm, bool supported);

/// Before PetscInitialize: installs the scheduler-signal handlers (signals.hpp) and tells PETSc
/// not to install its own, whose SIGTERM handler aborts the job and whose removal in
/// PetscFinalize would reset SIGTERM to its default (a rank still finishing when mpiexec
/// terminates the others after the first exit would then die with status 143).
PetscErrorCode prepare_process();

/// After PetscInitialize: makes the handler of rules 1 and 2 PETSc's error handler, unless the
/// user asked for another with -on_error_abort or -on_error_attach_debugger, and creates the
/// private communicator of rule 3. Collective on PETSC_COMM_WORLD.
PetscErrorCode install_error_handling();

/// Rule 3: the exit status for a failure with error code `code` on this rank (kExitBadJob for
/// kErrorBadJob alone, kExitFailed for every other code, PETSc's PETSC_ERR_USER_INPUT included:
/// PETSc cannot say whether its input came from the job), once every rank has failed, the
/// largest status of all ranks; or, when the other ranks do not
/// fail within kFailureAgreementSeconds, aborts the job. `code` 0 with `bad_job` set is a
/// JobError (an exception, not a PETSc error).
int settle_failure(PetscErrorCode code, bool bad_job = false);

/// Prints `message` for an error of this rank alone (an exception that is not a PETSc error),
/// in the format of rule 2.
void report_local_error(const char* message);

}  // namespace sf
