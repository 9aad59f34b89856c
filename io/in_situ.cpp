#include "in_situ.hpp"

#ifdef STABLEFLUIDS_HAVE_CATALYST
#include "catalyst_adaptor.hpp"
#endif

namespace sf {

PetscErrorCode make_in_situ(const Grid& grid, const SolidMask& solids, const JobConfig& job,
                            double start_time, bool restarted, std::unique_ptr<InSitu>* in_situ) {
  PetscFunctionBeginUser;
  in_situ->reset();
  if (job.catalyst.scripts.empty()) PetscFunctionReturn(0);
#ifdef STABLEFLUIDS_HAVE_CATALYST
  auto catalyst = std::make_unique<CatalystAdaptor>();
  PetscCall(catalyst->setup(grid, solids, job));
  catalyst->start_at(start_time, restarted);
  *in_situ = std::move(catalyst);
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
