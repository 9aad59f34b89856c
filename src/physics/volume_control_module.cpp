// The opt-in volume controller of a level-set liquid (volume_control.hpp; Kim et al. 2007):
// before each projection it measures the liquid's volume and hands the projection the
// divergence that brings it back to the initial one (PhysicsModule::divergence_source). The
// steps CSV gets that divergence, volume_control_divergence; checkpoints keep the controller's
// integral.
#include "module.hpp"
#include "petsc_handle.hpp"
#include "volume_control.hpp"

namespace sf {
namespace {

/// liquid.volume_control.response_time, or 25 steps of the job's step.
double response_time(const JobConfig& job) {
  const LiquidConfig::VolumeControl& control = job.liquid.volume_control;
  if (control.response_time > 0.0) return control.response_time;
  return 25.0 * (job.time.dt > 0.0 ? job.time.dt : job.time.dt_max);
}

class VolumeControlModule final : public PhysicsModule {
public:
  explicit VolumeControlModule(const JobConfig& job) : controller_(response_time(job)) {}
  const char* name() const override { return "volume control"; }
  PetscErrorCode setup(Flow& flow) override {
    PetscFunctionBeginUser;
    PetscCall(DMCreateGlobalVector(flow.grid->cell_dm(), source_.replace()));
    PetscCall(VecSet(source_, 0.0));
    PetscFunctionReturn(0);
  }
  Vec divergence_source() const override { return source_; }
  void attach(Flow& flow, StepPlan& plan) override {
    // After the velocity's diffusion, before the projection, on the volume the step's
    // advection left.
    plan.attach(Anchor::VelocityDiffused, {"volume control", std::nullopt,
                                           [this, &flow](double dt) {
                                             PetscFunctionBeginUser;
                                             double volume = 0.0;
                                             PetscCall(flow.liquid_volume(&volume));
                                             divergence_ = controller_.update(
                                                 volume, flow.initial_liquid_volume, dt);
                                             PetscCall(VecSet(source_, divergence_));
                                             PetscFunctionReturn(0);
                                           }});
  }
  void columns(const Flow&, std::vector<std::string>* columns) const override {
    columns->push_back("volume_control_divergence");
  }
  PetscErrorCode measure(const Flow&, std::vector<double>* values) override {
    values->push_back(divergence_);
    return 0;
  }
  PetscErrorCode save(ModuleRecords* records) override {
    records->volume_control = controller_.state();
    return 0;
  }
  PetscErrorCode restore(Flow& flow, const ModuleRecords& records) override {
    PetscFunctionBeginUser;
    PetscCheck(controller_.restore(records.volume_control), flow.grid->comm(),
               PETSC_ERR_FILE_UNEXPECTED,
               "the checkpoint has no volume controller's state (dataset volume_control), which "
               "this job's liquid.volume_control needs: it was written by a run without one");
    PetscFunctionReturn(0);
  }

private:
  VolumeController controller_;
  OwnedVec source_;
  double divergence_ = 0.0;  // the last step's -c
};

}  // namespace

std::unique_ptr<PhysicsModule> make_volume_control_module(const JobConfig& job) {
  return job.liquid.enabled && job.liquid.volume_control.enabled
             ? std::make_unique<VolumeControlModule>(job)
             : nullptr;
}

}  // namespace sf
