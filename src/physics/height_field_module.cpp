// A liquid surface kept as a height field (height_field.hpp; Foster & Metaxas 1996, §4.3): the
// level set is its distance, which the advection must leave as it was, and which moves, after
// the velocity is extended into the air, with the step's final velocity. The level set module
// then does not reinitialise it.
#include "height_field.hpp"
#include "module.hpp"

namespace sf {
namespace {

class HeightFieldModule final : public PhysicsModule {
public:
  const char* name() const override { return "height field"; }
  PetscErrorCode setup(Flow& flow) override { return heights_.setup(*flow.grid, *flow.solids); }
  void attach(Flow& flow, StepPlan& plan) override {
    // Nothing before the advection changes phi but the advection's own preparation: kept from
    // the step's start, set back after it.
    plan.attach(Anchor::StepStart, {"keep surface", Stage::Surface, [this, &flow](double) {
                                      PetscFunctionBeginUser;
                                      const Field& phi = flow.phi();
                                      PetscCall(DMGetGlobalVector(phi.dm(), &kept_));
                                      PetscCall(VecCopy(phi.global(), kept_));
                                      PetscFunctionReturn(0);
                                    }});
    plan.attach(Anchor::AfterAdvection, {"restore surface", Stage::Surface, [this, &flow](double) {
                                           PetscFunctionBeginUser;
                                           const Field& phi = flow.phi();
                                           PetscCall(VecCopy(kept_, phi.global()));
                                           PetscCall(DMRestoreGlobalVector(phi.dm(), &kept_));
                                           PetscFunctionReturn(0);
                                         }});
    plan.attach(Anchor::AfterProjection, {"height field", Stage::Surface, [this, &flow](double dt) {
                                            return heights_.advance(*flow.velocity, flow.phi(),
                                                                    dt);
                                          }});
  }

private:
  HeightField heights_;
  Vec kept_ = nullptr;  // phi from the step's start to the end of its advection
};

}  // namespace

std::unique_ptr<PhysicsModule> make_height_field_module(const JobConfig& job) {
  return job.liquid.enabled && job.liquid.surface == LiquidConfig::Surface::HeightField
             ? std::make_unique<HeightFieldModule>()
             : nullptr;
}

}  // namespace sf
