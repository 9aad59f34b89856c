// Splitting the command line (see command_line.hpp for the rules).
#include "command_line.hpp"

// kKeyIndex: jobs/README.md's key index, copied in by cmake/KeyIndex.cmake.
#include "key_index.inc"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

namespace sf {
namespace {

bool is_option(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

bool has_job_suffix(const std::string& arg) {
  std::string lower = arg;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* suffix : {".yaml", ".yml"}) {
    const std::string s = suffix;
    if (lower.size() > s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0) {
      return true;
    }
  }
  return false;
}

/// PETSc options whose value is a YAML or options file, never the job.
bool takes_a_file(const std::string& option) {
  std::string name = option;
  if (name.rfind("--", 0) == 0) name.erase(0, 1);
  return name == "-options_file" || name == "-options_file_yaml";
}

/// The value of an option of ours: "--name=value" or "--name value" (advancing i).
/// Returns nullopt when `arg` is not the option `name`; sets *missing when it has no value.
std::optional<std::string> value_of(const std::string& name, int argc, const char* const* argv,
                                    int& i, bool* missing) {
  const std::string arg = argv[i];
  if (arg.rfind(name + "=", 0) == 0) return arg.substr(name.size() + 1);
  if (arg != name) return std::nullopt;
  if (i + 1 >= argc || is_option(argv[i + 1])) {
    *missing = true;
    return std::string();
  }
  return std::string(argv[++i]);
}

}  // namespace

CommandLine parse_command_line(int argc, const char* const* argv) {
  CommandLine line;
  line.petsc_arguments.emplace_back(argc > 0 ? argv[0] : "stablefluids");
  auto fail = [&line](const std::string& message) {
    if (line.error.empty()) line.error = message;
  };

  // First pass: our own options out, everything else kept in order with its position.
  struct Kept {
    std::string text;
    bool after_option;  // the previous kept argument is an option, so this may be its value
    bool file_value;    // the value of -options_file(_yaml)
  };
  std::vector<Kept> kept;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    bool missing = false;
    if (arg == "--help" || arg == "-h") {
      line.help = true;
    } else if (arg == "--version") {
      line.version = true;
    } else if (auto restart = value_of("--restart", argc, argv, i, &missing)) {
      if (missing || restart->empty()) fail("--restart needs a checkpoint file or 'latest'");
      line.restart = *restart;
    } else if (auto restart_single = value_of("-restart", argc, argv, i, &missing)) {
      // The spelling of earlier versions, when PETSc's parser read it.
      if (missing || restart_single->empty()) fail("--restart needs a checkpoint file or 'latest'");
      line.restart = *restart_single;
    } else if (auto set = value_of("--set", argc, argv, i, &missing)) {
      const std::size_t equals = set->find('=');
      if (missing || equals == std::string::npos || equals == 0) {
        fail("--set needs <key>=<value>, e.g. --set time.end=2 or --set grid.cells=[64,64]" +
             (missing ? std::string() : ", got '" + *set + "'"));
      } else {
        line.overrides.push_back({set->substr(0, equals), set->substr(equals + 1)});
      }
    } else {
      const bool after_option = !kept.empty() && is_option(kept.back().text);
      kept.push_back({arg, after_option, after_option && takes_a_file(kept.back().text)});
    }
  }

  // The job: the first argument named like a job file, else the first plain argument that
  // cannot be an option's value.
  std::optional<std::size_t> job;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const Kept& arg = kept[k];
    if (is_option(arg.text) || arg.file_value || arg.text.empty() || arg.text[0] == ':') continue;
    if (!has_job_suffix(arg.text)) continue;
    if (job) {
      fail("two job files given, '" + kept[*job].text + "' and '" + arg.text +
           "'; a run takes one");
      break;
    }
    job = k;
  }
  if (!job) {
    for (std::size_t k = 0; k < kept.size(); ++k) {
      if (!is_option(kept[k].text) && !kept[k].after_option && !kept[k].text.empty()) {
        job = k;
        break;
      }
    }
  }
  for (std::size_t k = 0; k < kept.size(); ++k) {
    if (job && k == *job) {
      line.job = kept[k].text;
    } else {
      line.petsc_arguments.push_back(kept[k].text);
    }
  }
  return line;
}

PetscErrorCode warn_unused_options(MPI_Comm comm) {
  PetscFunctionBeginUser;
  PetscBool explicit_request = PETSC_FALSE;
  PetscCall(PetscOptionsHasName(nullptr, nullptr, "-options_left", &explicit_request));
  if (explicit_request) PetscFunctionReturn(0);
  // Read by PetscFinalize (PETSc 3.18, src/sys/objects/pinit.c and PetscLogViewFromOptions),
  // after this report: looking them up here marks them used.
  for (const char* name : {"-log_view", "-log_view_memory", "-log_view_gpu_time", "-log_all",
                           "-log", "-log_mpe", "-log_trace", "-log_exclude", "-memory_view",
                           "-malloc_dump", "-malloc_view", "-malloc_view_threshold", "-malloc_debug",
                           "-malloc_test", "-objects_dump", "-options_view", "-get_total_flops",
                           "-citations", "-mpidump", "-no_signal_handler", "-nox", "-nox_warning",
                           "-x_virtual", "-saw_options", "-mpi_linear_solver_server"}) {
    PetscBool set = PETSC_FALSE;
    PetscCall(PetscOptionsHasName(nullptr, nullptr, name, &set));
  }
  PetscInt count = 0;
  char** names = nullptr;
  char** values = nullptr;
  PetscCall(PetscOptionsLeftGet(nullptr, &count, &names, &values));
  if (count > 0) {
    std::string list;
    for (PetscInt i = 0; i < count; ++i) {
      list += std::string(i ? ", " : "") + "-" + names[i];
      if (values[i]) list += std::string(" ") + values[i];
    }
    PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                           "stablefluids: warning: %s PETSc option%s no solver read (mistyped, or "
                           "for a solver this job does not use): %s\n",
                           count == 1 ? "one" : std::to_string(count).c_str(),
                           count == 1 ? "" : "s", list.c_str()));
  }
  PetscCall(PetscOptionsLeftRestore(nullptr, &count, &names, &values));
  // Newer PETSc reports unused options by default at PetscFinalize: once is enough.
  PetscCall(PetscOptionsSetValue(nullptr, "-options_left", "false"));
  PetscFunctionReturn(0);
}

const char* command_line_help() {
  static const std::string help = std::string(
      "stablefluids: Stam's Stable Fluids on a distributed MAC grid.\n"
      "\n"
      "usage: mpiexec -n <ranks> stablefluids <job.yaml> [options] [PETSc options]\n"
      "       stablefluids --help | --version\n"
      "\n"
      "options:\n"
      "  --restart <checkpoint.h5|latest>  continue a run from a checkpoint; 'latest' takes the\n"
      "                                    newest one in the job's checkpoint directory that\n"
      "                                    verifies, skipping damaged ones\n"
      "  --set <key>=<value>               override a job key, checked exactly like the file,\n"
      "                                    e.g. --set grid.cells=[64,128,64] --set time.end=2\n"
      "                                    (value in YAML; keys nest with '.'; repeatable)\n"
      "  --help, -h                        this text\n"
      "  --version                         versions of stablefluids and its libraries\n"
      "  -help                             PETSc's help: every solver option the job reads\n"
      "                                    (give the job file too, e.g. job.yaml -help)\n"
      "\n"
      "The job file may stand anywhere among the options. PETSc options (e.g. -log_view,\n"
      "-pressure_ksp_monitor, -pressure_pc_type gamg, -diffusion_ksp_rtol 1e-8) override the\n"
      "job's petsc_options; an option no solver read is listed in a warning at the end.\n"
      "\n"
      "job file (YAML; full reference with defaults and limits: jobs/README.md; first jobs:\n"
      "docs/tutorial.md):\n"
      "  name          prefix of every output file (default: the file's name)\n"
      "  grid          cells (or cells_per_rank), size, origin, halo               [required]\n"
      "  boundary      per axis or face: no-slip, free-slip, outflow, periodic, inflow\n"
      "  velocity      initial velocity: zero, uniform, vortex, taylor_green\n"
      "  scalars       named scalars (density, temperature, ...): initial blobs, sources,\n"
      "                diffusion, dissipation, boundary values\n"
      "  fluid         viscosity: a number, or one that follows a scalar (melting)\n"
      "  advection     scheme (semi_lagrangian, maccormack, bfecc), interpolation\n"
      "  forces        gravity, buoyancy, vorticity confinement, wind, noise, force regions\n"
      "  obstacles     solid regions (box, sphere, cylinder, a mesh file); moving, floating\n"
      "  liquid        a liquid with a free surface: initial regions, interface (vof,\n"
      "                level_set), surface (height_field), particles, spray, sources, sinks\n"
      "  viscoelastic  an elastic strain carried by a material scalar (jelly)\n"
      "  fire          a fuel that burns into heat and soot\n"
      "  texture       texture coordinates carried by the flow\n"
      "  time          dt or cfl with dt_max, end, scheme                          [required]\n"
      "  pressure      the projection's solver, krylov (prefix pressure_) or fft on a\n"
      "                periodic box, and the Krylov stopping rule\n"
      "  diffusion     the same for the implicit diffusion solves (prefix diffusion_)\n"
      "  output        directory, interval, initial_frame, overwrite, progress_every\n"
      "  checkpoint    directory, every_steps, every_time, every_wall_seconds, keep\n"
      "  debug         dump_on_failure\n"
      "  catalyst      ParaView Catalyst scripts for in-situ images, extracts and Live\n"
      "  diagnostics   point probes and the reference for force coefficients\n"
      "  petsc_options PETSc options carried by the job\n"
      "  steering      a file of changes read while the run goes\n"
      "\n"
      "exit status, the same on every rank: 0 done; 1 the run failed (NaN/Inf, a solver that\n"
      "diverged, a failed write or read, a floating body that reached a wall, an error of PETSc\n"
      "or of a library, a CPU without the instructions of this build); 2 the job, the command\n"
      "line or the rank count cannot be run (found before the first step); 3 stopped by\n"
      "SIGTERM, SIGINT or SIGUSR1 after writing a checkpoint (continue with --restart latest).\n"
      "\n"
      "every key of a job file, map by map (jobs/README.md, \"Key index\"; lists as [], names\n"
      "you choose as <name>):\n") + kKeyIndex;
  return help.c_str();
}

}  // namespace sf
