// The flow's measures after every step, as columns of the steps CSV (diagnostics.hpp): energy,
// enstrophy, dissipation, scalar totals, a liquid's volume, probes, wall fluxes and obstacle
// forces. First in modules.def, so that these columns come first.
#include "diagnostics.hpp"
#include "module.hpp"

namespace sf {
namespace {

class DiagnosticsModule final : public PhysicsModule {
public:
  const char* name() const override { return "diagnostics"; }
  // After every module's setup: a liquid's volume and its initial value are published then.
  PetscErrorCode connect(Flow& flow) override {
    return diagnostics_.setup(*flow.grid, *flow.solids, *flow.job, flow.liquid_volume,
                              flow.initial_liquid_volume);
  }
  void columns(const Flow&, std::vector<std::string>* columns) const override {
    columns->insert(columns->end(), diagnostics_.columns().begin(), diagnostics_.columns().end());
  }
  PetscErrorCode measure(const Flow& flow, std::vector<double>* values) override {
    PetscFunctionBeginUser;
    std::vector<double> measured;
    PetscCall(diagnostics_.measure(*flow.velocity, *flow.scalars, flow.pressure, &measured));
    values->insert(values->end(), measured.begin(), measured.end());
    PetscFunctionReturn(0);
  }

private:
  FlowDiagnostics diagnostics_;
};

}  // namespace

std::unique_ptr<PhysicsModule> make_diagnostics_module(const JobConfig&) {
  return std::make_unique<DiagnosticsModule>();
}

}  // namespace sf
