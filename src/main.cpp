// stablefluids <job.yaml> [PETSc options]
//
// Reads the job (every rank reaches the same verdict, so a bad job stops every rank with the same
// message and exit status 2), builds the Simulation and runs it. PETSc options from the command
// line override those the job carries (petsc_options:).
#include <petscsys.h>

#include <string>

#include "config.hpp"
#include "simulation.hpp"

static const char usage[] =
    "stablefluids: Stam's Stable Fluids on a distributed MAC grid.\n"
    "usage: mpiexec -n <ranks> stablefluids <job.yaml> [PETSc options]\n"
    "  the job file format is documented in jobs/README.md\n";

namespace {

/// The first argument that is not a PETSc option (nor an option's value) names the job.
std::string job_argument(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg[0] != '-') return arg;
    // Skip the value of a PETSc option written as "-option value".
    if (i + 1 < argc && argv[i + 1][0] != '-' && arg.size() > 1) ++i;
  }
  return {};
}

PetscErrorCode run(const sf::JobConfig& job, int* argc, char*** argv) {
  PetscFunctionBeginUser;
  if (!job.petsc_options.empty()) {
    PetscCall(PetscOptionsInsertString(nullptr, job.petsc_options.c_str()));
    // The command line wins over the job: insert it again on top.
    PetscCall(PetscOptionsInsert(nullptr, argc, argv, nullptr));
  }
  sf::Simulation simulation;
  PetscCall(simulation.setup(PETSC_COMM_WORLD, job));
  PetscCall(simulation.run());
  PetscFunctionReturn(0);
}

}  // namespace

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, nullptr, usage));
  int status = 0;
  // The job's name is the first plain argument; PETSc options may come before or after it, but
  // an option that takes a value must then be followed by it directly.
  const std::string path = job_argument(argc, argv);
  PetscBool help = PETSC_FALSE;
  PetscCall(PetscOptionsHasName(nullptr, nullptr, "-help", &help));
  if (path.empty()) {
    if (!help) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", usage));
      status = 2;
    }
  } else {
    try {
      const sf::JobConfig job = sf::load_job(PETSC_COMM_WORLD, path);
      if (run(job, &argc, &argv) != 0) status = 1;
    } catch (const sf::JobError& error) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stablefluids: error: %s\n", error.what()));
      status = 2;
    }
  }
  PetscCall(PetscFinalize());
  return status;
}
