// Failure handling for the whole process (see errors.hpp for the discipline).
#include "errors.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "collective_file.hpp"
#include "signals.hpp"

namespace sf {

namespace {

/// A duplicate of PETSC_COMM_WORLD used only by settle_failure(), so that its reduction can never
/// be matched with a collective that another rank is still blocked in.
MPI_Comm failure_comm = MPI_COMM_NULL;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

/// PETSc calls this for the error itself (PETSC_ERROR_INITIAL) and again in every function the
/// code passes through on its way up (PETSC_ERROR_REPEAT); only the first prints.
PetscErrorCode handle_error(MPI_Comm comm, int line, const char* function, const char* file,
                            PetscErrorCode code, PetscErrorType type, const char* message,
                            void*) {
  if (type != PETSC_ERROR_INITIAL) return code;
  const char* text = message;
  if (text == nullptr || *text == '\0') {
    // PETSc raises some errors (out of memory, say) with no message of their own.
    if (PetscErrorMessage(code, &text, nullptr) != 0 || text == nullptr) text = "unknown error";
  }
  int size = 1, rank = 0;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
  }
  if (size > 1) {
    // Rule 1: every rank of `comm` is here with the same message; one of them says it.
    if (rank == 0) std::fprintf(stderr, "stablefluids: error: %s\n", text);
  } else if (world_size() > 1) {
    std::fprintf(stderr, "stablefluids: error on rank %d: %s (%s() at %s:%d)\n", world_rank(),
                 text, function ? function : "?", file ? file : "?", line);
  } else {
    std::fprintf(stderr, "stablefluids: error: %s (%s() at %s:%d)\n", text,
                 function ? function : "?", file ? file : "?", line);
  }
  std::fflush(stderr);
  return code;
}

}  // namespace

bool cpu_supported() {
#if defined(__x86_64__) && defined(__AVX2__)
  // Built for x86-64-v3 (STABLEFLUIDS_ARCH): on a CPU without it the first AVX2 instruction
  // would end the process with SIGILL and no word of why.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi2");
#else
  return true;
#endif
}

PetscErrorCode agree_on_cpu(MPI_Comm comm, bool supported) {
  PetscFunctionBeginUser;
  // Rule 1: the ranks count those without the instructions, and all of them raise the same
  // error, which rank 0 alone prints, rather than every rank its own copy of it.
  int lacking = supported ? 0 : 1, ranks = 1;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &lacking, 1, MPI_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Comm_size(comm, &ranks));
  PetscCheck(lacking == 0, comm, PETSC_ERR_SUP_SYS,
             "the CPU of %d of the %d ranks lacks AVX2, FMA or BMI2, which this build requires; "
             "rebuild with -DSTABLEFLUIDS_ARCH= (empty) for the compiler's default target",
             lacking, ranks);
  PetscFunctionReturn(0);
}

PetscErrorCode prepare_process() {
  install_signal_handlers();
  // Before MPI starts: hwloc's GL component would connect to X displays :0 to :9 (looking for
  // GPUs) while MPI_Init builds the topology, and Xlib ends the process ("XIO: fatal IO error")
  // when one of those servers goes away meanwhile, e.g. the virtual display of another run on
  // the node. The solver needs no GPU topology. A value the user set is kept.
  setenv("HWLOC_COMPONENTS", "-gl", 0);
  choose_mpi_io();
  // Allowed before PetscInitialize: the option is in the database when PETSc decides.
  return PetscOptionsSetValue(nullptr, "-no_signal_handler", nullptr);
}

PetscErrorCode install_error_handling() {
  PetscFunctionBeginUser;
  PetscBool other = PETSC_FALSE;
  for (const char* option : {"-on_error_abort", "-on_error_attach_debugger"}) {
    PetscBool given = PETSC_FALSE;
    PetscCall(PetscOptionsHasName(nullptr, nullptr, option, &given));
    other = other || given ? PETSC_TRUE : PETSC_FALSE;
  }
  if (!other) PetscCall(PetscPushErrorHandler(handle_error, nullptr));
  if (failure_comm == MPI_COMM_NULL) PetscCallMPI(MPI_Comm_dup(PETSC_COMM_WORLD, &failure_comm));
  PetscFunctionReturn(0);
}

int settle_failure(PetscErrorCode code, bool bad_job) {
  const int local = bad_job || code == kErrorBadJob ? kExitBadJob : kExitFailed;
  if (world_size() == 1 || failure_comm == MPI_COMM_NULL) return local;
  int global = local;
  MPI_Request request;
  if (MPI_Iallreduce(&local, &global, 1, MPI_INT, MPI_MAX, failure_comm, &request) !=
      MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, local);
  const double start = MPI_Wtime();
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return global;
    if (MPI_Wtime() - start > kFailureAgreementSeconds) {
      std::fprintf(stderr,
                   "stablefluids: rank %d failed, but the other ranks did not stop within %.0f s "
                   "(they may be waiting for it in a collective); aborting the job\n",
                   world_rank(), kFailureAgreementSeconds);
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, local);
    }
    const timespec pause = {0, 200000};  // 0.2 ms: agreed failures meet within microseconds
    nanosleep(&pause, nullptr);
  }
}

void report_local_error(const char* message) {
  if (world_size() > 1)
    std::fprintf(stderr, "stablefluids: error on rank %d: %s\n", world_rank(), message);
  else
    std::fprintf(stderr, "stablefluids: error: %s\n", message);
  std::fflush(stderr);
}

}  // namespace sf
