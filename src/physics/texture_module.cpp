// Texture-coordinate advection (texture.hpp; Stam 1999 §4, Stam 2000): the coordinates are
// scalars the parser adds, so the advection, frames and checkpoints carry them; they start where
// each cell is, and at the end of a step each set whose period came round is reset.
#include "module.hpp"
#include "texture.hpp"

namespace sf {
namespace {

class TextureModule final : public PhysicsModule {
public:
  const char* name() const override { return "texture"; }
  // A restart reads the coordinates back over these.
  PetscErrorCode setup(Flow& flow) override {
    PetscFunctionBeginUser;
    PetscCall(texture_.setup(*flow.grid, *flow.job));
    PetscCall(texture_.reset_all(*flow.scalars));
    PetscFunctionReturn(0);
  }
  void attach(Flow& flow, StepPlan& plan) override {
    plan.attach(Anchor::EndOfStep, {"texture", std::nullopt, [this, &flow](double dt) {
                                      return texture_.reset_due(*flow.scalars, flow.time,
                                                                flow.step_end(dt));
                                    }});
  }

private:
  TextureCoordinates texture_;
};

}  // namespace

std::unique_ptr<PhysicsModule> make_texture_module(const JobConfig& job) {
  return job.texture.enabled ? std::make_unique<TextureModule>() : nullptr;
}

}  // namespace sf
