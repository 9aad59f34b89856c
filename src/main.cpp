// stablefluids <job.yaml> [--restart <checkpoint.h5|latest>] [PETSc options]
//
// Reads the job (every rank reaches the same verdict, so a bad job stops every rank with the same
// message and exit status 2), builds the Simulation and runs it. PETSc options from the command
// line override those the job carries (petsc_options:).
//
// Exit status, the same on every rank (errors.hpp): 0 done; 1 the run failed (a NaN, a solver
// that diverged, a failed write or read; the message says which); 2 the job, the command line or
// the rank count cannot be run; 3 stopped by SIGTERM, SIGINT or SIGUSR1 after writing a
// checkpoint (continue with --restart latest).
#include <petscsys.h>

#include <exception>
#include <memory>
#include <string>

#include "config.hpp"
#include "errors.hpp"
#include "simulation.hpp"

static const char usage[] =
    "stablefluids: Stam's Stable Fluids on a distributed MAC grid.\n"
    "usage: mpiexec -n <ranks> stablefluids <job.yaml> [--restart <checkpoint.h5|latest>]\n"
    "       [PETSc options]\n"
    "  the job file format is documented in jobs/README.md\n";

namespace {

/// The first argument that is not an option (nor an option's value) names the job.
std::string job_argument(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg[0] != '-') return arg;
    // Skip the value of an option written as "-option value".
    if (i + 1 < argc && argv[i + 1][0] != '-' && arg.size() > 1) ++i;
  }
  return {};
}

/// The value of --restart (or -restart), read through PETSc's options database so that PETSc
/// counts the option as used; "" without it. *given is set when the option is there, with or
/// without a value.
PetscErrorCode restart_argument(std::string* value, bool* given) {
  PetscFunctionBeginUser;
  value->clear();
  *given = false;
  for (const char* name : {"--restart", "-restart"}) {
    char buffer[PETSC_MAX_PATH_LEN] = "";
    PetscBool set = PETSC_FALSE;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, name, buffer, sizeof buffer, &set));
    if (set) {
      *given = true;
      *value = buffer;
    }
  }
  PetscFunctionReturn(0);
}

/// Builds the simulation from the job and runs it. Returns the exit status; a failure of any
/// kind ends in sf::settle_failure() while the simulation still exists, so that no rank tears
/// down its solvers while another may still be using them in a collective.
int run_job(const std::string& path, const std::string& restart, int* argc, char*** argv) {
  std::unique_ptr<sf::JobConfig> job;
  std::unique_ptr<sf::Simulation> simulation;
  PetscErrorCode code = 0;
  int interrupted = 0;
  try {
    job = std::make_unique<sf::JobConfig>(sf::load_job(PETSC_COMM_WORLD, path));
  } catch (const sf::JobError& error) {
    // Every rank parsed the same text and threw the same error: rank 0 says it.
    (void)PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "stablefluids: error: %s\n", error.what());
    return sf::settle_failure(0, true);
  }
  try {
    if (!job->petsc_options.empty()) {
      code = PetscOptionsInsertString(nullptr, job->petsc_options.c_str());
      // The command line wins over the job: insert it again on top.
      if (!code) code = PetscOptionsInsert(nullptr, argc, argv, nullptr);
    }
    if (!code) {
      simulation = std::make_unique<sf::Simulation>();
      code = simulation->setup(PETSC_COMM_WORLD, *job, restart);
    }
    if (!code) code = simulation->run(&interrupted);
  } catch (const std::exception& error) {
    // Not a PETSc error, and nothing says the other ranks threw too.
    sf::report_local_error(error.what());
    code = PETSC_ERR_LIB;
  }
  if (code) return sf::settle_failure(code);
  return interrupted ? sf::kExitInterrupted : sf::kExitDone;
}

}  // namespace

int main(int argc, char** argv) {
  if (sf::prepare_process() != 0) return sf::kExitFailed;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, usage));
  PetscCall(sf::install_error_handling());
  int status = sf::kExitDone;
  // The job's name is the first plain argument; PETSc options may come before or after it, but
  // an option that takes a value must then be followed by it directly.
  const std::string path = job_argument(argc, argv);
  std::string restart;
  bool restart_given = false;
  PetscBool help = PETSC_FALSE;
  PetscCall(PetscOptionsHasName(nullptr, nullptr, "-help", &help));
  PetscCall(restart_argument(&restart, &restart_given));
  if (restart_given && restart.empty()) {
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR,
                           "stablefluids: error: --restart needs a checkpoint file or 'latest'\n"));
    status = sf::kExitBadJob;
  } else if (path.empty()) {
    if (!help) {
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "%s", usage));
      status = sf::kExitBadJob;
    }
  } else {
    status = run_job(path, restart, &argc, &argv);
  }
  PetscCall(PetscFinalize());
  return status;
}
