// The in-situ factory. Catalyst lives in a module loaded only for jobs that name scripts
// (catalyst_module.hpp): the solver itself links no ParaView library.
#include "in_situ.hpp"

#ifdef STABLEFLUIDS_HAVE_CATALYST
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "build_info.hpp"
#include "catalyst_module.hpp"
#endif

namespace sf {

#ifdef STABLEFLUIDS_HAVE_CATALYST
namespace {

/// Where the module is looked for: STABLEFLUIDS_CATALYST_MODULE alone when it is set; otherwise
/// beside the running executable (the build directory, or wherever the two were copied together),
/// then where this build put it (for the test programs, which live one directory down).
std::vector<std::string> module_candidates() {
  if (const char* path = std::getenv("STABLEFLUIDS_CATALYST_MODULE"); path && *path)
    return {path};
  std::vector<std::string> candidates;
  char exe[PATH_MAX] = "";
  const ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (length > 0) {
    const std::string path(exe, static_cast<size_t>(length));
    candidates.push_back(path.substr(0, path.rfind('/') + 1) + kCatalystModuleFile);
  }
  candidates.push_back(STABLEFLUIDS_CATALYST_MODULE_BUILD_PATH);
  return candidates;
}

/// Opens the module on this rank: the create function, or "" and the reason in *why.
CatalystCreateFunction open_module(std::string* why) {
  std::string tried;
  for (const std::string& path : module_candidates()) {
    // RTLD_GLOBAL: ParaView's Python extension modules, imported later by the interpreter the
    // module embeds, do not link libpython and expect its symbols in the global namespace.
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!module) {
      tried += (tried.empty() ? "" : "; ") + std::string(dlerror());
      continue;
    }
    // Kept open for the life of the process: ParaView does not support being unloaded.
    auto fingerprint = reinterpret_cast<CatalystFingerprintFunction>(
        dlsym(module, kCatalystFingerprintSymbol));
    auto create = reinterpret_cast<CatalystCreateFunction>(dlsym(module, kCatalystCreateSymbol));
    if (!fingerprint || !create) {
      *why = path + " is not a stablefluids Catalyst module (no " + kCatalystCreateSymbol + ")";
      return nullptr;
    }
    const CatalystModuleFingerprint theirs = fingerprint();
    const CatalystModuleFingerprint ours = this_build_fingerprint(git_commit());
    if (std::string(theirs.commit) != ours.commit || theirs.grid != ours.grid ||
        theirs.solids != ours.solids || theirs.field != ours.field || theirs.job != ours.job) {
      *why = path + " was built from commit " + theirs.commit + ", this stablefluids from " +
             ours.commit + "; rebuild both together";
      return nullptr;
    }
    return create;
  }
  *why = "cannot load " + std::string(kCatalystModuleFile) + ": " + tried +
         " (set STABLEFLUIDS_CATALYST_MODULE to its path)";
  return nullptr;
}

/// Every rank opens the module; if any rank cannot, every rank stops with the reason of the
/// lowest such rank, so none is left waiting in ParaView's collective start-up. Collective.
PetscErrorCode load_module(MPI_Comm comm, const JobConfig& job, CatalystCreateFunction* create) {
  PetscFunctionBeginUser;
  std::string why;
  *create = open_module(&why);
  PetscMPIInt rank = 0, size = 1;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  const PetscMPIInt mine = *create ? size : rank;
  PetscMPIInt failing = size;
  PetscCallMPI(MPI_Allreduce(&mine, &failing, 1, MPI_INT, MPI_MIN, comm));
  if (failing == size) PetscFunctionReturn(0);
  int length = static_cast<int>(why.size());
  PetscCallMPI(MPI_Bcast(&length, 1, MPI_INT, failing, comm));
  why.resize(static_cast<size_t>(length));
  PetscCallMPI(MPI_Bcast(why.data(), length, MPI_CHAR, failing, comm));
  SETERRQ(comm, PETSC_ERR_LIB, "%s:%d: catalyst.scripts: the Catalyst adaptor cannot be used: %s",
          job.source.c_str(), job.catalyst.scripts.front().line, why.c_str());
}

}  // namespace
#endif

PetscErrorCode make_in_situ(const Grid& grid, const SolidMask& solids, const JobConfig& job,
                            double start_time, bool restarted, std::unique_ptr<InSitu>* in_situ) {
  PetscFunctionBeginUser;
  in_situ->reset();
  if (job.catalyst.scripts.empty()) PetscFunctionReturn(0);
#ifdef STABLEFLUIDS_HAVE_CATALYST
  CatalystCreateFunction create = nullptr;
  PetscCall(load_module(grid.comm(), job, &create));
  InSitu* made = nullptr;
  const PetscErrorCode status = create(&grid, &solids, &job, start_time, restarted ? 1 : 0, &made);
  in_situ->reset(made);
  PetscCall(status);
#else
  (void)solids;
  (void)start_time;
  (void)restarted;
  SETERRQ(grid.comm(), PETSC_ERR_SUP,
          "%s:%d: catalyst.scripts: this stablefluids was built without ParaView Catalyst; "
          "install ParaView 5.11 (paraview-dev, python3-paraview) and configure with "
          "-DSTABLEFLUIDS_CATALYST=ON, as jobs/run and tests/run do",
          job.source.c_str(), job.catalyst.scripts.front().line);
#endif
  PetscFunctionReturn(0);
}

}  // namespace sf
