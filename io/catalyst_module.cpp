// The Catalyst module's entry points (catalyst_module.hpp); the only symbols it exports.
#include "catalyst_module.hpp"

#include "build_info.hpp"
#include "catalyst_adaptor.hpp"

#define SF_MODULE_EXPORT extern "C" __attribute__((visibility("default")))

SF_MODULE_EXPORT sf::CatalystModuleFingerprint stablefluids_catalyst_fingerprint() {
  return sf::this_build_fingerprint(sf::git_commit());
}

SF_MODULE_EXPORT PetscErrorCode stablefluids_catalyst_create(const sf::Grid* grid,
                                                             const sf::SolidMask* solids,
                                                             const sf::JobConfig* job,
                                                             double start_time, int restarted,
                                                             sf::InSitu** in_situ) {
  PetscFunctionBeginUser;
  *in_situ = nullptr;
  auto catalyst = std::make_unique<sf::CatalystAdaptor>();
  PetscCall(catalyst->setup(*grid, *solids, *job));
  catalyst->start_at(start_time, restarted != 0);
  *in_situ = catalyst.release();
  PetscFunctionReturn(0);
}
