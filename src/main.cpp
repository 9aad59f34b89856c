// stablefluids <job.yaml> [--restart <checkpoint.h5|latest>] [PETSc options]
//
// Reads the job (every rank reaches the same verdict, so a bad job stops every rank with the same
// message and exit status 2), builds the Simulation and runs it. PETSc options from the command
// line override those the job carries (petsc_options:).
//
// Exit status: 0 done; 1 the run failed (a PETSc error, NaN, a failed write; the message says
// which); 2 the job or the command line is malformed; 3 stopped by SIGTERM, SIGINT or SIGUSR1
// after writing a checkpoint (continue with --restart latest).
#include <petscsys.h>

#include <string>

#include "config.hpp"
#include "signals.hpp"
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

/// The value of --restart (or -restart), or "" without it; false if it has no value.
bool restart_argument(int argc, char** argv, std::string* value) {
  value->clear();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--restart" || arg == "-restart") {
      if (i + 1 >= argc || argv[i + 1][0] == '-') return false;
      *value = argv[i + 1];
    }
  }
  return true;
}

PetscErrorCode run(const sf::JobConfig& job, const std::string& restart, int* argc, char*** argv,
                   int* interrupted) {
  PetscFunctionBeginUser;
  if (!job.petsc_options.empty()) {
    PetscCall(PetscOptionsInsertString(nullptr, job.petsc_options.c_str()));
    // The command line wins over the job: insert it again on top.
    PetscCall(PetscOptionsInsert(nullptr, argc, argv, nullptr));
  }
  sf::Simulation simulation;
  PetscCall(simulation.setup(PETSC_COMM_WORLD, job, restart));
  PetscCall(simulation.run(interrupted));
  PetscFunctionReturn(0);
}

}  // namespace

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, nullptr, usage));
  int status = 0;
  // The job's name is the first plain argument; PETSc options may come before or after it, but
  // an option that takes a value must then be followed by it directly.
  const std::string path = job_argument(argc, argv);
  std::string restart;
  PetscBool help = PETSC_FALSE;
  PetscCall(PetscOptionsHasName(nullptr, nullptr, "-help", &help));
  if (!restart_argument(argc, argv, &restart)) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "stablefluids: error: --restart needs a checkpoint file or 'latest'\n"));
    status = 2;
  } else if (path.empty()) {
    if (!help) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", usage));
      status = 2;
    }
  } else {
    sf::install_signal_handlers();
    try {
      const sf::JobConfig job = sf::load_job(PETSC_COMM_WORLD, path);
      int interrupted = 0;
      if (run(job, restart, &argc, &argv, &interrupted) != 0) {
        status = 1;
      } else if (interrupted) {
        status = sf::kExitInterrupted;
      }
    } catch (const sf::JobError& error) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stablefluids: error: %s\n", error.what()));
      status = 2;
    }
  }
  PetscCall(PetscFinalize());
  return status;
}
