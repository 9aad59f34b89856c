// A viscoelastic material (viscoelastic.hpp; Goktekin, Bargteil & O'Brien 2004): after the
// forces, the elastic strain, whose components are scalars of the run, gains dt times the strain
// rate and yields, and its divergence pushes back on the velocity. Its force is explicit: its
// elastic waves, at sqrt(k_em) for a density of 1, must not cross more than a cell a step.
#include <cmath>

#include "module.hpp"
#include "viscoelastic.hpp"

namespace sf {
namespace {

class ViscoelasticModule final : public PhysicsModule, public Exposes<Viscoelastic> {
public:
  Viscoelastic& exposed() override { return viscoelastic_; }
  const char* name() const override { return "viscoelastic"; }
  PetscErrorCode setup(Flow& flow) override {
    return viscoelastic_.setup(*flow.grid, *flow.solids, flow.job->viscoelastic,
                               flow.job->scalars, flow.job->liquid.enabled);
  }
  // From the velocity the forces read: they filled every ghost just before and no force writes
  // the local vectors. It leaves the strain's ghosts current for the advection that follows.
  void attach(Flow& flow, StepPlan& plan) override {
    plan.attach(Anchor::AfterForces, {"elastic", Stage::Forces, [this, &flow](double dt) {
                                        return viscoelastic_.apply(*flow.velocity, *flow.scalars,
                                                                   dt);
                                      }});
  }
  double stable_dt(const Flow& flow) const override {
    return flow.grid->min_spacing() / std::sqrt(flow.job->viscoelastic.elastic_modulus);
  }

private:
  Viscoelastic viscoelastic_;
};

}  // namespace

std::unique_ptr<PhysicsModule> make_viscoelastic_module(const JobConfig& job) {
  return job.viscoelastic.enabled ? std::make_unique<ViscoelasticModule>() : nullptr;
}

}  // namespace sf
