// Fire (fire.hpp; the burning gas of Nguyen, Fedkiw & Jensen 2002, as docs/design.md gives it):
// after the forces, the fuel where the gas is hot enough burns into heat and soot, and the gas it
// burns expands in this step's projection (a source of divergence).
#include "fire.hpp"
#include "module.hpp"

namespace sf {
namespace {

class FireModule final : public PhysicsModule {
public:
  const char* name() const override { return "fire"; }
  PetscErrorCode setup(Flow& flow) override {
    return fire_.setup(*flow.grid, *flow.solids, flow.job->fire, flow.job->scalars);
  }
  void attach(Flow& flow, StepPlan& plan) override {
    // It changes the scalars after the forces refreshed their ghosts: the advection refreshes
    // them again.
    plan.attach(Anchor::AfterForces, {"burn", Stage::Forces,
                                      [this, &flow](double dt) {
                                        return fire_.burn(*flow.scalars, dt);
                                      },
                                      true});
  }
  Vec divergence_source() const override { return fire_.divergence_source(); }

private:
  Fire fire_;
};

}  // namespace

std::unique_ptr<PhysicsModule> make_fire_module(const JobConfig& job) {
  return job.fire.enabled ? std::make_unique<FireModule>() : nullptr;
}

}  // namespace sf
