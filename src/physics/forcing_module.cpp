// Sources and forces (Stam 1999, §3 "Adding forces"; Fedkiw, Stam & Jensen 2001 for buoyancy
// and vorticity confinement): each scalar's sources set or add their values in regions, then
// every force adds dt f to the free faces from the state on entry (forces.hpp), then the wind
// relaxes the velocity. What a user steers in while the run goes on (steering.hpp: Stam's
// "Interacting with Smoke and Fire") comes after the job's own sources and forces.
#include "forces.hpp"
#include "module.hpp"
#include "sources.hpp"
#include "steering.hpp"

namespace sf {
namespace {

class ForcingModule final : public PhysicsModule {
public:
  const char* name() const override { return "forcing"; }
  PetscErrorCode setup(Flow& flow) override {
    PetscFunctionBeginUser;
    PetscCall(forces_.setup(*flow.grid, flow.job->forces, *flow.solids, flow.job->scalars));
    steering_.setup(*flow.job);
    PetscFunctionReturn(0);
  }
  void attach(Flow& flow, StepPlan& plan) override {
    // Sources act as their time profiles say at the step's start time.
    plan.attach(Anchor::Sources, {"sources", Stage::Forces, [this, &flow](double dt) {
                                    return apply_all_sources(flow, dt);
                                  }});
    // The forces read the ghosts of the velocity and the scalars, which the base scheme
    // refreshed after every source, and not again between forces, so that none sees another's
    // increment.
    plan.attach(Anchor::Forces, {"forces", Stage::Forces, [this, &flow](double dt) {
                                   return forces_.apply(*flow.velocity, *flow.scalars, dt,
                                                        flow.time);
                                 }});
  }
  // Confinement reads the vorticity's magnitude across the halo.
  void exchanges(const Flow& flow, int* cell, int*) const override {
    if (flow.job->forces.vorticity_confinement > 0.0) ++*cell;
  }

private:
  PetscErrorCode apply_all_sources(Flow& flow, double dt) {
    PetscFunctionBeginUser;
    const JobConfig& job = *flow.job;
    std::vector<Field>& scalars = *flow.scalars;
    for (size_t s = 0; s < job.scalars.size(); ++s)
      PetscCall(apply_sources(job.scalars[s], scalars[s], *flow.velocity, *flow.solids, dt,
                              flow.time));
    if (!steering_.enabled()) PetscFunctionReturn(0);
    bool changed = false;
    PetscCall(steering_.poll(flow.grid->comm(), flow.step, &changed));
    if (changed) forces_.set_steered(steering_.steered().forces);
    for (size_t s = 0; s < job.scalars.size(); ++s)
      if (!steering_.sources()[s].sources.empty())
        PetscCall(apply_sources(steering_.sources()[s], scalars[s], *flow.velocity, *flow.solids,
                                dt, flow.time));
    PetscFunctionReturn(0);
  }

  Forces forces_;
  Steering steering_;
};

}  // namespace

std::unique_ptr<PhysicsModule> make_forcing_module(const JobConfig&) {
  return std::make_unique<ForcingModule>();
}

}  // namespace sf
