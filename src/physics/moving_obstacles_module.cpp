// Moving obstacles (Foster & Fedkiw 2001, "Practical animation of liquids", §6): each step the
// obstacles go where they are at the step's end before the forces (first in the step; after
// the advection in a liquid's step, schemes.cpp), so that the step's projection holds the
// fluid to their new surface and speed; their faces take the body's velocity and the cells they
// uncover the fluid's scalars (solids.hpp). The advection traces a moving body's cells with its
// velocity and mixes the fluid's values into those it holds a scalar at: they are set again
// after it. A scalar its module carries itself (a liquid's volume fraction) is left to it.
#include <algorithm>
#include <vector>

#include "module.hpp"

namespace sf {
namespace {

// The scalars the base scheme's advection moves; those their module carries itself (a liquid's
// volume fraction) keep their own books of what a body covers and uncovers.
std::vector<Field*> advected_scalars(const Flow& flow) {
  std::vector<Field*> advected;
  for (size_t n = 0; n + flow.carried_scalars < flow.scalars->size(); ++n)
    advected.push_back(&(*flow.scalars)[n]);
  return advected;
}

class MovingObstaclesModule final : public PhysicsModule {
public:
  const char* name() const override { return "moving obstacles"; }
  void attach(Flow& flow, StepPlan& plan) override {
    plan.attach(Anchor::MoveObstacles, {"move obstacles", Stage::Obstacles, [&flow](double dt) {
                                          PetscFunctionBeginUser;
                                          SolidMask& solids = *flow.solids;
                                          const int before = solids.version();
                                          PetscCall(solids.move_to(flow.step_end(dt)));
                                          PetscCall(solids.hold_solid_faces(*flow.velocity));
                                          // version() is the same on every rank: no cell
                                          // changed anywhere, nothing to fill.
                                          if (solids.version() != before)
                                            for (Field* scalar : advected_scalars(flow))
                                              PetscCall(solids.fill_uncovered(*scalar));
                                          PetscFunctionReturn(0);
                                        }});
    plan.attach(Anchor::AfterAdvection,
                {"hold obstacle values", Stage::Obstacles, [&flow](double) {
                   PetscFunctionBeginUser;
                   for (Field* scalar : advected_scalars(flow))
                     PetscCall(flow.solids->hold_scalar_values(*scalar));
                   PetscFunctionReturn(0);
                 }});
  }
  // The mask's exchange, and each scalar's before its uncovered cells are filled (in the steps
  // in which a cell changes).
  void exchanges(const Flow& flow, int* cell, int*) const override {
    *cell += 1 + static_cast<int>(flow.scalars->size() - flow.carried_scalars);
  }
  // A restart's mask follows its time (the floating bodies restored their poses first).
  PetscErrorCode resumed(Flow& flow) override { return flow.solids->move_to(flow.time); }
};

}  // namespace

std::unique_ptr<PhysicsModule> make_moving_obstacles_module(const JobConfig& job) {
  const bool moving = std::any_of(job.obstacles.begin(), job.obstacles.end(),
                                  [](const ObstacleConfig& o) { return o.moves(); });
  return moving ? std::make_unique<MovingObstaclesModule>() : nullptr;
}

}  // namespace sf
