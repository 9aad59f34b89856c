// Rigid bodies that float in a liquid (floating_bodies.hpp; Foster & Metaxas 1996 §5, coupled
// implicitly as Batty, Bertails & Bridson 2007 couple rigid bodies to a pressure solve): each
// step a body moves over the step at the velocity it has, falls with gravity after the forces,
// takes the liquid's viscous drag after the velocity's diffusion, and gets its new velocity from
// the free-surface projection, which solves for it with the pressure (the projection finds the
// bodies in Flow::bodies).
#include <algorithm>
#include <cmath>

#include "floating_bodies.hpp"
#include "module.hpp"

namespace sf {
namespace {

class FloatingBodiesModule final : public PhysicsModule, public Exposes<FloatingBodies> {
public:
  FloatingBodies& exposed() override { return bodies_; }
  const char* name() const override { return "floating bodies"; }
  // Placed about their centres of mass, with their start velocities, before the velocity is
  // set: the faces they cover then hold their velocity.
  PetscErrorCode place(Flow& flow) override {
    PetscFunctionBeginUser;
    PetscCall(bodies_.setup(*flow.grid, *flow.solids, flow.job->forces.gravity));
    PetscCall(flow.solids->move_to(flow.time));
    PetscCall(bodies_.check_clear(true));
    flow.bodies = &bodies_;
    PetscFunctionReturn(0);
  }
  void attach(Flow& flow, StepPlan& plan) override {
    plan.attach(Anchor::StepStart, {"bodies move", Stage::Obstacles, [this](double dt) {
                                      bodies_.advance(dt);
                                      return PetscErrorCode(0);
                                    }});
    plan.attach(Anchor::ObstaclesMoved, {"bodies clear", Stage::Obstacles, [this](double) {
                                           return bodies_.check_clear(false);
                                         }});
    // The bodies fall too; the projection then lets the liquid push them.
    plan.attach(Anchor::Forces, {"bodies fall", Stage::Forces, [this, &flow](double dt) {
                                   bodies_.accelerate(dt);
                                   return flow.solids->hold_solid_faces(*flow.velocity);
                                 }});
    // They take the momentum the diffusion moved across their faces.
    if (flow.job->fluid.viscosity > 0.0)
      plan.attach(Anchor::VelocityDiffused, {"bodies drag", Stage::Diffuse, [this, &flow](
                                                                              double dt) {
                    PetscFunctionBeginUser;
                    PetscCall(bodies_.drag(*flow.velocity, flow.phi(), flow.job->fluid.viscosity,
                                           dt));
                    PetscCall(flow.solids->hold_solid_faces(*flow.velocity));
                    PetscFunctionReturn(0);
                  }});
  }
  // Where each is and how fast it goes, obstacle<n>_x/y(/z) and _vx/vy(/vz), then its turn: in
  // 2D its angle from the start and angular velocity, obstacle<n>_angle and _wz, in 3D its
  // angular velocity _wx/wy/wz.
  void columns(const Flow& flow, std::vector<std::string>* columns) const override {
    const int dim = flow.grid->dim();
    for (const FloatingBodies::Body& body : bodies_.bodies()) {
      const std::string prefix = "obstacle" + std::to_string(body.obstacle) + "_";
      for (const char* what : {"", "v"})
        for (int a = 0; a < dim; ++a) columns->push_back(prefix + what + "xyz"[a]);
      if (dim == 2) columns->push_back(prefix + "angle");
      for (int a = dim == 2 ? 2 : 0; a < 3; ++a) columns->push_back(prefix + "w" + "xyz"[a]);
    }
  }
  PetscErrorCode measure(const Flow& flow, std::vector<double>* values) override {
    const int dim = flow.grid->dim();
    for (const FloatingBodies::Body& body : bodies_.bodies()) {
      for (const std::array<double, 3>* what : {&body.pose.position, &body.pose.velocity})
        for (int a = 0; a < dim; ++a) values->push_back((*what)[a]);
      if (dim == 2) values->push_back(std::atan2(body.pose.rotation[3], body.pose.rotation[0]));
      for (int a = dim == 2 ? 2 : 0; a < 3; ++a) values->push_back(body.pose.omega[a]);
    }
    return 0;
  }
  PetscErrorCode save(ModuleRecords* records) override {
    records->bodies = bodies_.state();
    return 0;
  }
  PetscErrorCode restore(Flow&, const ModuleRecords& records) override {
    return bodies_.restore(records.bodies);
  }

private:
  FloatingBodies bodies_;
};

}  // namespace

std::unique_ptr<PhysicsModule> make_floating_bodies_module(const JobConfig& job) {
  const bool floating = std::any_of(job.obstacles.begin(), job.obstacles.end(),
                                    [](const ObstacleConfig& o) { return o.floating.enabled; });
  return floating ? std::make_unique<FloatingBodiesModule>() : nullptr;
}

}  // namespace sf
