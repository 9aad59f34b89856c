#include "build_info.hpp"

#include <hdf5.h>
#include <mpi.h>
#include <petscsys.h>

#include <cstdlib>
#include <ctime>
#include <vector>

namespace sf {

namespace {

std::string& recorded_command_line() {
  static std::string line = "(not recorded)";
  return line;
}

std::vector<std::string>& recorded_arguments() {
  static std::vector<std::string> arguments;
  return arguments;
}

/// `arg` as a POSIX shell reads it back: unchanged when it is made of safe characters only,
/// otherwise in single quotes.
std::string shell_quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_-+=.,/:@%^") == std::string::npos)
    return arg;
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

void record_command_line(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + shell_quoted(argv[i]);
  recorded_command_line() = line;
  recorded_arguments().assign(argv, argv + argc);
}

std::string launcher_prefix(int ranks) {
  const std::string n = std::to_string(ranks);
  // Open MPI's mpiexec sets OMPI_COMM_WORLD_SIZE, MPICH's and Intel MPI's PMI_SIZE; srun sets
  // SLURM_STEP_ID (an mpiexec inside a Slurm allocation sets both, and was the launcher).
  if (std::getenv("SLURM_STEP_ID") && !std::getenv("OMPI_COMM_WORLD_SIZE") &&
      !std::getenv("PMI_SIZE"))
    return "srun -n " + n;
  if (ranks > 1 || std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE"))
    return "mpiexec -n " + n;
  return "";
}

std::string continue_command(const std::string& launcher,
                             const std::vector<std::string>& arguments) {
  std::string command = launcher;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& arg = arguments[i];
    if (i > 0) {  // argv[0] is the program, whatever its name
      const bool restart = arg == "--restart" || arg == "-restart";
      if (restart) {
        if (i + 1 < arguments.size() && arguments[i + 1].rfind('-', 0) != 0) ++i;  // its value
        continue;
      }
      if (arg.rfind("--restart=", 0) == 0 || arg.rfind("-restart=", 0) == 0) continue;
    }
    command += (command.empty() ? "" : " ") + shell_quoted(arg);
  }
  return command + " --restart latest";
}

std::string continue_this_run(int ranks, const std::string& job) {
  std::vector<std::string> arguments = recorded_arguments();
  if (arguments.empty()) arguments = {"stablefluids", job};
  // A script that started the run may have given it what the bare program lacks, a virtual X
  // display for a job that renders: the command then goes through the script again. jobs/run
  // names itself with its rank count (launcher and program in one); jobs/slurm/with_display,
  // which srun starts in front of each rank, names itself to go between the two.
  if (const char* run_script = std::getenv("STABLEFLUIDS_CONTINUE_WITH"); run_script && *run_script)
    return continue_command(run_script, {arguments.begin() + 1, arguments.end()});
  std::string launcher = launcher_prefix(ranks);
  if (const char* wrapper = std::getenv("STABLEFLUIDS_RANK_WRAPPER"); wrapper && *wrapper)
    launcher += (launcher.empty() ? "" : " ") + shell_quoted(wrapper);
  return continue_command(launcher, arguments);
}

PetscErrorCode current_provenance(MPI_Comm comm, Provenance* provenance) {
  PetscFunctionBeginUser;
  PetscMPIInt rank, size;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  // Rank 0 composes the strings, joined by NULs, and every rank takes its copy.
  std::string packed;
  if (rank == 0) {
    char written[32] = "";
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    if (gmtime_r(&now, &utc)) std::strftime(written, sizeof written, "%Y-%m-%dT%H:%M:%SZ", &utc);
    char* options = nullptr;
    PetscCall(PetscOptionsGetAll(nullptr, &options));
    std::string option_text = options ? options : "";
    PetscCall(PetscFree(options));
    while (!option_text.empty() && option_text.back() == ' ') option_text.pop_back();
    std::string libraries = library_versions();
    while (!libraries.empty() && libraries.back() == '\n') libraries.pop_back();
    for (std::size_t at = libraries.find('\n'); at != std::string::npos; at = libraries.find('\n'))
      libraries.replace(at, 1, "; ");
    for (const std::string& part : {program_version(), std::string(git_commit()),
                                    std::string(written), recorded_command_line(), option_text,
                                    libraries})
      packed += part + '\0';
  }
  int length = static_cast<int>(packed.size());
  PetscCallMPI(MPI_Bcast(&length, 1, MPI_INT, 0, comm));
  packed.resize(static_cast<std::size_t>(length));
  PetscCallMPI(MPI_Bcast(packed.data(), length, MPI_CHAR, 0, comm));
  std::vector<std::string> parts;
  for (std::size_t begin = 0; begin < packed.size();) {
    const std::size_t end = packed.find('\0', begin);
    parts.push_back(packed.substr(begin, end - begin));
    begin = end + 1;
  }
  PetscCheck(parts.size() == 6, comm, PETSC_ERR_PLIB, "provenance: %zu parts instead of 6",
             parts.size());
  provenance->program = parts[0];
  provenance->commit = parts[1];
  provenance->written = parts[2];
  provenance->command_line = parts[3];
  provenance->petsc_options = parts[4];
  provenance->libraries = parts[5];
  provenance->ranks = size;
  PetscFunctionReturn(0);
}

std::string program_version() {
  return std::string("stablefluids ") + STABLEFLUIDS_VERSION + " (commit " + git_commit() + ")";
}

std::string library_versions() {
  std::string text;
  int major = 0, minor = 0, subminor = 0, release = 0;
  if (PetscGetVersionNumber(&major, &minor, &subminor, &release) == 0) {
    text += "PETSc " + std::to_string(major) + "." + std::to_string(minor) + "." +
            std::to_string(subminor) + (release ? "" : " (development)") + "\n";
  }
  unsigned h5_major = 0, h5_minor = 0, h5_release = 0;
  if (H5get_libversion(&h5_major, &h5_minor, &h5_release) >= 0) {
    text += "HDF5 " + std::to_string(h5_major) + "." + std::to_string(h5_minor) + "." +
            std::to_string(h5_release);
#ifdef H5_HAVE_PARALLEL
    text += " (parallel, MPI-IO)";
#endif
    text += "\n";
  }
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  if (MPI_Get_library_version(mpi, &length) == MPI_SUCCESS) {
    // Open MPI's string runs on with package and build details after the first comma.
    std::string first(mpi, static_cast<std::size_t>(length));
    first = first.substr(0, first.find_first_of(",\n"));
    text += "MPI: " + first + "\n";
  }
  text += std::string("yaml-cpp ") + STABLEFLUIDS_YAML_CPP_VERSION + "\n";
  text += std::string("Open Asset Import ") + STABLEFLUIDS_ASSIMP_VERSION + " (mesh obstacles)\n";
#ifdef STABLEFLUIDS_HAVE_CATALYST
  text += std::string("ParaView Catalyst ") + STABLEFLUIDS_PARAVIEW_VERSION +
          " (module libstablefluids_catalyst.so, loaded for jobs with catalyst.scripts)\n";
#else
  text += "ParaView Catalyst: not built in (STABLEFLUIDS_CATALYST=OFF or ParaView not found)\n";
#endif
  return text;
}

}  // namespace sf
