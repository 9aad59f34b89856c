// A liquid's surface as a level set phi < 0 in the liquid (level_set.hpp; Osher & Sethian 1988,
// Foster & Fedkiw 2001), corrected by marker particles (particle_level_set.hpp; Enright, Fedkiw,
// Ferziger & Mitchell 2002), its velocity extended into the air (velocity_extension.hpp), the
// liquid's sources and sinks (liquid_sources.hpp) and the walls it leaves (wall_separation.hpp).
// phi is the scalar after the job's own: the advection carries it with them, frames and
// checkpoints keep it.
//
// With a liquid the step advects first (the liquid's base scheme): phi moves with the
// divergence-free velocity the last step left; this module then corrects and reinitialises it,
// adds the liquid's sources with the scalars', and after the projection (on the liquid, p = 0 on
// its surface) extends the velocity into the air for the next step's advection.
#include "level_set.hpp"

#include "height_field.hpp"
#include "liquid_sources.hpp"
#include "module.hpp"
#include "particle_level_set.hpp"
#include "velocity_extension.hpp"
#include "wall_separation.hpp"

namespace sf {
namespace {

class LevelSetModule final : public PhysicsModule, public Exposes<ParticleLevelSet> {
public:
  ParticleLevelSet& exposed() override { return particles_; }
  const char* name() const override { return "level set"; }
  PetscErrorCode setup(Flow& flow) override {
    PetscFunctionBeginUser;
    const JobConfig& job = *flow.job;
    const Grid& grid = *flow.grid;
    Field& velocity = *flow.velocity;
    // The walls' normal velocity is 0 at the start (fill_ghosts sets it) whatever the initial
    // field says; from then on the projection sets it where the liquid leaves a wall.
    PetscCall(velocity.fill_ghosts());
    velocity.let_liquid_leave_walls();
    // The union's distance is exact but inside overlapping regions: one reinitialisation makes
    // it a distance everywhere in the band before the first step (a restart replaces it).
    flow.scalars->emplace_back();
    Field& phi = flow.phi();
    PetscCall(phi.setup_level_set(grid, LiquidConfig::kLevelSetName));
    PetscCall(level_set_.setup(grid, *flow.solids, job.liquid));
    PetscCall(level_set_.initialise(phi));
    PetscCall(level_set_.reinitialise(phi, nullptr));
    if (job.liquid.surface == LiquidConfig::Surface::HeightField) {
      // The surface is a height field's (height_field.hpp): phi starts as its distance.
      HeightField heights;
      PetscCall(heights.setup(grid, *flow.solids));
      PetscCall(heights.initialise(phi));
    }
    PetscCall(level_set_.volume(phi, &flow.initial_liquid_volume));
    level_set_.separate_at_walls(velocity);
    PetscCall(particles_.setup(grid, *flow.solids, job.liquid));
    PetscCall(particles_.seed(phi, 0));
    // As far into the air as the level set is a distance.
    PetscCall(extension_.setup(grid, *flow.solids, job.liquid.band));
    PetscCall(extension_.extend(velocity, phi));
    flow.level_set = &level_set_;
    PetscFunctionReturn(0);
  }

  void attach(Flow& flow, StepPlan& plan) override {
    // The advection opens the walls the liquid leaves to air before it refreshes the ghosts,
    // and traces phi across the halo with its ghosts complete (a distance beyond the band).
    plan.attach(Anchor::BeforeAdvection, {"open leaving walls", Stage::Advect, [&flow](double) {
                                            return hold_surfaces_at_leaving_walls(
                                                *flow.velocity, flow.phi(), *flow.solids);
                                          }});
    plan.attach(Anchor::AdvectionGhosts, {"phi ghosts, particles", Stage::Advect,
                                          [this, &flow](double dt) {
                                            PetscFunctionBeginUser;
                                            PetscCall(level_set_.complete_ghosts(flow.phi()));
                                            PetscCall(particles_.advect(*flow.velocity, dt));
                                            PetscFunctionReturn(0);
                                          }});
    // A height field keeps the surface itself (height_field_module.cpp).
    if (flow.job->liquid.surface != LiquidConfig::Surface::HeightField)
      plan.attach(Anchor::AfterAdvection, {"reinitialise", Stage::Surface, [this, &flow](double) {
                                             return correct(flow);
                                           }});
    plan.attach(Anchor::Sources, {"liquid sources", Stage::Forces, [this, &flow](double) {
                                    PetscFunctionBeginUser;
                                    PetscCall(apply_liquid_flows(
                                        flow.job->liquid, level_set_.band_width(), flow.time,
                                        flow.phi(), *flow.velocity, *flow.solids));
                                    PetscCall(particles_.respect_flows(flow.job->liquid,
                                                                       flow.time));
                                    PetscFunctionReturn(0);
                                  }});
    plan.attach(Anchor::AfterProjection, {"extend velocity", Stage::Surface, [this, &flow](double) {
                                            return extension_.extend(*flow.velocity, flow.phi());
                                          }});
  }

  // Per step: the reinitialisation's exchanges (one per iteration and one before them, on the
  // steps it runs), the projection's and the extension's; the extension's two face exchanges
  // per layer (velocity and marks). Marker particles add, per correction (two a step), phi's
  // ghosts and the two reverse scatters of phi+ and phi-, and phi's ghosts for their radii (the
  // migration moves particles, not cells). Obstacles add the extension of phi into them: one
  // exchange after the advection's, two before the first correction.
  void exchanges(const Flow& flow, int* cell, int* face) const override {
    *cell += level_set_.iterations() + 1 + 2 + (particles_.enabled() ? 2 * 3 + 1 : 0) +
             (flow.solids->any() ? 3 : 0);
    *face += 2 * extension_.layers();
  }

  PetscErrorCode save(ModuleRecords* records) override {
    PetscFunctionBeginUser;
    if (!records->want_particles || !particles_.enabled()) PetscFunctionReturn(0);
    records->particles.emplace();
    PetscCall(particles_.records(&*records->particles));
    PetscFunctionReturn(0);
  }
  void expect(ModuleRecords* records) const override {
    if (particles_.enabled()) records->particles.emplace();
  }
  PetscErrorCode restore(Flow&, const ModuleRecords& records) override {
    return records.particles ? particles_.restore(*records.particles) : PetscErrorCode(0);
  }

private:
  // Enright et al. 2002's order: correct phi by the escaped particles, reinitialise, correct
  // again, set the radii; reseed now and then.
  PetscErrorCode correct(Flow& flow) {
    PetscFunctionBeginUser;
    Field& phi = flow.phi();
    const PetscInt step = flow.step + 1;
    // The advection traced the obstacles' cells too: their phi is the fluid's extension again.
    if (flow.solids->any()) {
      PetscCall(phi.fill_ghosts());
      PetscCall(level_set_.extend_into_solids(phi));
    }
    PetscCall(particles_.correct(phi, nullptr));
    if (level_set_.reinitialises_after(step)) {
      PetscCall(level_set_.reinitialise(phi, nullptr));
      PetscCall(particles_.correct(phi, nullptr));
    }
    PetscCall(particles_.adjust_radii(phi));
    if (particles_.reseeds_after(step))
      PetscCall(particles_.reseed(phi, step / flow.job->liquid.particles.reseed_every));
    PetscFunctionReturn(0);
  }

  LevelSet level_set_;
  ParticleLevelSet particles_;   // marker particles correcting the level set
  VelocityExtension extension_;  // the liquid's velocity carried into the air
};

}  // namespace

std::unique_ptr<PhysicsModule> make_level_set_module(const JobConfig& job) {
  return job.liquid.enabled ? std::make_unique<LevelSetModule>() : nullptr;
}

}  // namespace sf
