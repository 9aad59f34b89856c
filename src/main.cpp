// stablefluids <job.yaml> [--restart <checkpoint.h5|latest>] [--set <key>=<value>]...
//              [PETSc options]      (stablefluids --help; the rules in command_line.hpp)
//
// Reads the job (every rank reaches the same verdict, so a bad job stops every rank with the same
// message and exit status 2), builds the Simulation and runs it. PETSc options from the command
// line override those the job carries (petsc_options:).
//
// Exit status, the same on every rank (errors.hpp): 0 done; 1 the run failed (a NaN, a solver
// that diverged, a failed write or read, a floating body that reached a wall, any error PETSc
// raises itself; the message says which); 2 the job, the command line or the rank count cannot
// be run, found before the first step; 3 stopped by SIGTERM, SIGINT or SIGUSR1 after writing a
// checkpoint (continue with --restart latest).
#include <petscsys.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "build_info.hpp"
#include "command_line.hpp"
#include "job.hpp"
#include "errors.hpp"
#include "simulation.hpp"

namespace {

/// Builds the simulation from the job and runs it. Returns the exit status; a failure of any
/// kind ends in sf::settle_failure() while the simulation still exists, so that no rank tears
/// down its solvers while another may still be using them in a collective.
int run_job(const sf::CommandLine& line, int* argc, char*** argv) {
  std::unique_ptr<sf::JobConfig> job;
  std::unique_ptr<sf::Simulation> simulation;
  PetscErrorCode code = 0;
  int interrupted = 0;
  try {
    job = std::make_unique<sf::JobConfig>(
        sf::load_job(PETSC_COMM_WORLD, line.job, line.overrides));
  } catch (const sf::JobError& error) {
    // Every rank parsed the same text and threw the same error: rank 0 says it.
    (void)PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "stablefluids: error: %s\n", error.what());
    return sf::settle_failure(0, true);
  }
  bool set_up = false;
  try {
    if (!job->petsc_options.empty()) {
      code = PetscOptionsInsertString(nullptr, job->petsc_options.c_str());
      // The command line wins over the job: insert it again on top.
      if (!code) code = PetscOptionsInsert(nullptr, argc, argv, nullptr);
    }
    if (!code) {
      simulation = std::make_unique<sf::Simulation>();
      code = simulation->setup(PETSC_COMM_WORLD, *job, line.restart);
      set_up = !code;
    }
    if (!code) code = simulation->run(&interrupted);
  } catch (const std::exception& error) {
    // Not a PETSc error, and nothing says the other ranks threw too.
    sf::report_local_error(error.what());
    code = PETSC_ERR_LIB;
  }
  if (code) return sf::settle_failure(code);
  // Only a run whose solvers were all set up has read every option it will read.
  if (set_up) (void)sf::warn_unused_options(PETSC_COMM_WORLD);
  return interrupted ? sf::kExitInterrupted : sf::kExitDone;
}

/// What main() does between PetscInitialize and PetscFinalize; the exit status in *status. A
/// PETSc call that fails here (a print, say) returns its code, which main() settles as a failure.
PetscErrorCode dispatch(const sf::CommandLine& line, bool cpu_supported, int* argc, char*** argv,
                        int* status) {
  PetscFunctionBeginUser;
  *status = sf::kExitDone;
  PetscBool petsc_help = PETSC_FALSE;
  PetscCall(PetscOptionsHasName(nullptr, nullptr, "-help", &petsc_help));
  if (const PetscErrorCode code = sf::agree_on_cpu(PETSC_COMM_WORLD, cpu_supported)) {
    *status = sf::settle_failure(code);
  } else if (!line.error.empty()) {
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR,
                           "stablefluids: error: %s (stablefluids --help lists the options)\n",
                           line.error.c_str()));
    *status = sf::kExitBadJob;
  } else if (line.help) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", sf::command_line_help()));
  } else if (line.version) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n%s", sf::program_version().c_str(),
                          sf::library_versions().c_str()));
  } else if (line.job.empty()) {
    // PETSc's -help has printed the usage already.
    if (!petsc_help) {
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR,
                             "stablefluids: error: no job file given\n"
                             "usage: mpiexec -n <ranks> stablefluids <job.yaml> "
                             "[--restart <checkpoint.h5|latest>] [--set <key>=<value>]... "
                             "[PETSc options]\n(stablefluids --help says more)\n"));
      *status = sf::kExitBadJob;
    }
  } else {
    *status = run_job(line, argc, argv);
  }
  PetscFunctionReturn(0);
}

}  // namespace

// Every way out of main() gives one of the documented statuses (errors.hpp), never a PETSc error
// code: PETSc's own failures, in its start-up or its finalisation included, exit 1.
int main(int argc, char** argv) {
  if (sf::prepare_process() != 0) return sf::kExitFailed;
  // On a CPU without the instructions this build was compiled for, as little of our own code as
  // can be runs before every rank has started and they agree to stop: PETSc gets the arguments
  // as they are (it skips what is not an option), and our own are not read.
  const bool cpu_supported = sf::cpu_supported();
  std::vector<char*> petsc_argv;
  sf::CommandLine line;
  if (cpu_supported) {
    sf::record_command_line(argc, argv);
    // Our own arguments (the job, --restart, --set, --help, --version) are taken out first:
    // PETSc would read a job file after an option as that option's value.
    line = sf::parse_command_line(argc, argv);
    for (const std::string& arg : line.petsc_arguments)
      petsc_argv.push_back(const_cast<char*>(arg.c_str()));
  } else {
    petsc_argv.assign(argv, argv + argc);
  }
  petsc_argv.push_back(nullptr);
  int petsc_argc = static_cast<int>(petsc_argv.size()) - 1;
  char** petsc_args = petsc_argv.data();
  // PETSc prints why it could not start (an -options_file that does not open, say); every rank
  // reads the same options, so every rank gets here.
  if (PetscInitialize(&petsc_argc, &petsc_args, nullptr, sf::command_line_help()) != 0)
    return sf::kExitFailed;
  int status = sf::kExitDone;
  PetscErrorCode code = sf::install_error_handling();
  if (!code) code = dispatch(line, cpu_supported, &petsc_argc, &petsc_args, &status);
  if (code) status = sf::settle_failure(code);
  if (PetscFinalize() != 0 && status == sf::kExitDone) status = sf::kExitFailed;
  return status;
}
