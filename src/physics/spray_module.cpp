// Spray and foam (spray.hpp; Foster & Metaxas 1996, §4.3): ballistic particles shed where the
// liquid's surface moves outward fast, foam where they land; they fly and ride on the step's
// final velocity, after it is extended into the air. With the vof interface the spray's volume
// comes from the fraction and goes back to it when it lands. The steps CSV counts them; checkpoints and
// in-situ output carry them.
#include "module.hpp"
#include "spray.hpp"

namespace sf {
namespace {

class SprayModule final : public PhysicsModule, public Exposes<Spray> {
public:
  Spray& exposed() override { return spray_; }
  const char* name() const override { return "spray"; }
  PetscErrorCode setup(Flow& flow) override {
    PetscFunctionBeginUser;
    PetscCall(
        spray_.setup(*flow.grid, *flow.solids, flow.job->liquid, flow.job->forces.gravity));
    // With a volume fraction the spray is the liquid's own: the liquid's volume counts it.
    if (flow.job->liquid.interface == LiquidConfig::Interface::Vof)
      flow.airborne_liquid = [this](double* volume) { return spray_.airborne(volume); };
    PetscFunctionReturn(0);
  }
  void attach(Flow& flow, StepPlan& plan) override {
    plan.attach(Anchor::AfterProjection, {"spray", Stage::Surface, [this, &flow](double dt) {
                                            return spray_.advance(*flow.velocity, flow.phi(),
                                                                  flow.liquid_fraction(), dt,
                                                                  flow.step + 1);
                                          }});
  }
  void columns(const Flow&, std::vector<std::string>* columns) const override {
    columns->push_back("spray_particles");
    columns->push_back("foam_particles");
  }
  PetscErrorCode measure(const Flow&, std::vector<double>* values) override {
    PetscFunctionBeginUser;
    PetscInt spray = 0, foam = 0;
    PetscCall(spray_.census(&spray, &foam));
    values->push_back(static_cast<double>(spray));
    values->push_back(static_cast<double>(foam));
    PetscFunctionReturn(0);
  }
  PetscErrorCode save(ModuleRecords* records) override {
    PetscFunctionBeginUser;
    if (!records->want_spray) PetscFunctionReturn(0);
    records->spray.emplace();
    PetscCall(spray_.records(&*records->spray));
    PetscFunctionReturn(0);
  }
  void expect(ModuleRecords* records) const override { records->spray.emplace(); }
  PetscErrorCode restore(Flow&, const ModuleRecords& records) override {
    return records.spray ? spray_.restore(*records.spray) : PetscErrorCode(0);
  }

private:
  Spray spray_;
};

}  // namespace

std::unique_ptr<PhysicsModule> make_spray_module(const JobConfig& job) {
  return job.liquid.enabled && job.liquid.spray.enabled ? std::make_unique<SprayModule>()
                                                        : nullptr;
}

}  // namespace sf
