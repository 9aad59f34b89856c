// Inflows that vary in time (boundary: {type: inflow, velocity: {profile: ...}}) take their
// value at the end of the step, as moving obstacles do: the step's projection balances the flux
// they bring in then.
#include <algorithm>

#include "module.hpp"

namespace sf {
namespace {

class InflowsModule final : public PhysicsModule {
public:
  const char* name() const override { return "inflows"; }
  void attach(Flow& flow, StepPlan& plan) override {
    plan.attach(Anchor::StepStart, {"vary inflows", std::nullopt, [&flow](double dt) {
                                      PetscFunctionBeginUser;
                                      flow.velocity->set_time(flow.step_end(dt));
                                      PetscCall(flow.velocity->fill_ghosts());
                                      PetscFunctionReturn(0);
                                    }});
  }
};

}  // namespace

std::unique_ptr<PhysicsModule> make_inflows_module(const JobConfig& job) {
  const bool vary = std::any_of(job.boundary.begin(), job.boundary.end(),
                                [](const std::array<FaceBoundary, 2>& sides) {
                                  return sides[0].varies() || sides[1].varies();
                                });
  return vary ? std::make_unique<InflowsModule>() : nullptr;
}

}  // namespace sf
