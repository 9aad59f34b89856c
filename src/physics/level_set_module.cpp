// A liquid's surface as a level set phi < 0 in the liquid (level_set.hpp; Osher & Sethian 1988,
// Foster & Fedkiw 2001), corrected by marker particles (particle_level_set.hpp; Enright, Fedkiw,
// Ferziger & Mitchell 2002), its velocity extended into the air (velocity_extension.hpp), the
// liquid's sources and sinks (liquid_sources.hpp) and the walls it leaves (wall_separation.hpp).
// phi is the scalar after the job's own: the advection carries it with them, frames and
// checkpoints keep it.
//
// With liquid.interface: vof the liquid is its volume fraction f (volume_of_fluid.hpp), the
// scalar after phi, which this module moves itself in flux form (the base scheme's advection
// leaves it alone: Flow::carried_scalars) with the velocity the advection reads, before the
// trace; after the advection phi is rebuilt from f (its side f's, the distance to f's planes
// beside the surface, reinitialised) instead of corrected by particles. The liquid's volume is
// f's.
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
#include "volume_of_fluid.hpp"
#include "wall_separation.hpp"

namespace sf {
namespace {

class LevelSetModule final : public PhysicsModule, public Exposes<ParticleLevelSet> {
public:
  ParticleLevelSet& exposed() override { return particles_; }
  const char* name() const override { return "level set"; }
  PetscErrorCode setup(Flow& flow) override {
    PetscFunctionBeginUser;
    vof_enabled_ = flow.job->liquid.interface == LiquidConfig::Interface::Vof;
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
    level_set_.separate_at_walls(velocity);
    if (vof_enabled_) {
      flow.scalars->emplace_back();  // phi's reference above is stale from here on
      Field& fraction = flow.scalars->back();
      PetscCall(fraction.setup_level_set(grid, LiquidConfig::kFractionName));
      flow.carried_scalars = 1;
      PetscCall(vof_.setup(grid, *flow.solids, job.liquid));
      PetscCall(vof_.initialise(fraction));
      PetscCall(rebuild_level_set(flow));
      flow.liquid_volume = [this, &flow](double* volume) {
        PetscFunctionBeginUser;
        PetscCall(vof_.volume(this->fraction(flow), volume));
        double airborne = 0.0;
        if (flow.airborne_liquid) PetscCall(flow.airborne_liquid(&airborne));
        *volume += airborne;
        PetscFunctionReturn(0);
      };
    } else {
      flow.liquid_volume = [this, &flow](double* volume) {
        return level_set_.volume(flow.phi(), volume);
      };
    }
    PetscCall(flow.liquid_volume(&flow.initial_liquid_volume));
    PetscCall(particles_.setup(grid, *flow.solids, job.liquid));
    PetscCall(particles_.seed(flow.phi(), 0));
    // As far into the air as the level set is a distance.
    PetscCall(extension_.setup(grid, *flow.solids, job.liquid.band));
    PetscCall(extend_velocity(flow, 0.0));
    flow.level_set = &level_set_;
    PetscFunctionReturn(0);
  }

  // The vof interface's first step moves the fraction with the initial velocity: its air is
  // projected as every step's is (a restart replaces the velocity by the checkpoint's, which
  // was).
  PetscErrorCode connect(Flow& flow) override {
    PetscFunctionBeginUser;
    if (!vof_enabled_) PetscFunctionReturn(0);
    PetscCheck(flow.air_projection, flow.grid->comm(), PETSC_ERR_PLIB,
               "the vof interface needs the air band's projection");
    const TimeConfig& time = flow.job->time;
    PetscCall(extend_velocity(flow, time.dt > 0.0 ? time.dt : time.dt_max));
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
    if (vof_enabled_) {
      // The fraction moves with the velocity the trace reads, before the trace replaces it.
      plan.attach(Anchor::AdvectionGhosts, {"liquid fraction", Stage::Surface,
                                            [this, &flow](double dt) {
                                              return vof_.advect(fraction(flow), *flow.velocity,
                                                                 &flow.phi(), dt, flow.step,
                                                                 &fraction_stats_);
                                            }});
      plan.attach(Anchor::AfterAdvection, {"level set from fraction", Stage::Surface,
                                           [this, &flow](double) {
                                             return rebuild_level_set(flow);
                                           }});
    } else if (flow.job->liquid.surface != LiquidConfig::Surface::HeightField) {
      // A height field keeps the surface itself (height_field_module.cpp).
      plan.attach(Anchor::AfterAdvection, {"reinitialise", Stage::Surface, [this, &flow](double) {
                                             return correct(flow);
                                           }});
    }
    plan.attach(Anchor::Sources, {"liquid sources", Stage::Forces, [this, &flow](double) {
                                    PetscFunctionBeginUser;
                                    PetscCall(apply_liquid_flows(
                                        flow.job->liquid, level_set_.band_width(), flow.time,
                                        flow.phi(), *flow.velocity, *flow.solids));
                                    PetscCall(particles_.respect_flows(flow.job->liquid,
                                                                       flow.time));
                                    PetscFunctionReturn(0);
                                  }});
    plan.attach(Anchor::AfterProjection, {"extend velocity", Stage::Surface,
                                          [this, &flow](double dt) {
                                            return extend_velocity(flow, dt);
                                          }});
  }

  // Per step: the reinitialisation's exchanges (one per iteration and one before them, on the
  // steps it runs), the projection's and the extension's; the extension's two face exchanges
  // per layer (velocity and marks). Marker particles add, per correction (two a step), phi's
  // ghosts and the two reverse scatters of phi+ and phi-, and phi's ghosts for their radii (the
  // migration moves particles, not cells). Obstacles add the extension of phi into them: one
  // exchange after the advection's, two before the first correction. The vof interface adds
  // the fraction's halo per sweep (dim per sub-step; one sub-step counted), one before its
  // planes are imposed on phi; the air's layers twice (for the bubbles after the advection and
  // for the air band's projection), each phi's ghosts, one per layer and one more; the floods
  // of the bubbles and of the band (two each counted: most steps need no more); and the band's
  // projection's velocity and solution (its solver's exchanges, one per iteration, are not
  // counted, as the pressure solve's are not).
  void exchanges(const Flow& flow, int* cell, int* face) const override {
    *cell += level_set_.iterations() + 1 + 2 + (particles_.enabled() ? 2 * 3 + 1 : 0) +
             (flow.solids->any() ? 3 : 0);
    *face += 2 * extension_.layers();
    if (vof_enabled_) {
      *cell += flow.grid->dim() + 1 + 2 * (extension_.layers() + 2) + 2 * 2 + 1;
      *face += 1;
    }
  }

  // With the vof interface: the sub-steps of the step's advection of the fraction and the
  // volume it clipped to keep f in [0, 1] (summed over the run by whoever reads the CSV, so
  // that a restart's rows follow on from the run's).
  void columns(const Flow&, std::vector<std::string>* columns) const override {
    if (!vof_enabled_) return;
    columns->push_back("fraction_substeps");
    columns->push_back("fraction_clipped_volume");
    columns->push_back("air_band_iterations");
    columns->push_back("bubble_cells");
  }
  PetscErrorCode measure(const Flow&, std::vector<double>* values) override {
    if (!vof_enabled_) return 0;
    values->push_back(fraction_stats_.substeps);
    values->push_back(fraction_stats_.clipped);
    values->push_back(static_cast<double>(air_band_stats_.iterations));
    values->push_back(static_cast<double>(filled_pockets_));
    return 0;
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

  // The vof interface's fraction: the scalar after phi.
  static Field& fraction(const Flow& flow) { return *flow.liquid_fraction(); }

  // phi from f: f's side everywhere, the distance to f's planes beside the surface, then a
  // distance again across the band (volume_of_fluid.hpp).
  PetscErrorCode rebuild_level_set(Flow& flow) {
    PetscFunctionBeginUser;
    Field& phi = flow.phi();
    PetscCall(vof_.impose_surface(fraction(flow), phi));
    PetscCall(level_set_.reinitialise(phi, nullptr, [this](PetscInt i, PetscInt j, PetscInt k) {
      return vof_.surface_distance(i, j, k);
    }));
    PetscCall(vof_.keep_sides(fraction(flow), phi));
    if (flow.air_projection) {
      PetscCall(extension_.mark_air_layers(phi, &fraction(flow)));
      PetscCall(flow.air_projection->fill_pockets(phi, extension_.air_layers(),
                                                  extension_.layers(), &filled_pockets_));
    }
    PetscFunctionReturn(0);
  }

  // The liquid's velocity into the air; for the fraction's fluxes, divergence-free there too
  // (once the solvers exist: set-up extends, connect() projects), `dt` the step it will move
  // the liquid by.
  PetscErrorCode extend_velocity(Flow& flow, double dt) {
    PetscFunctionBeginUser;
    PetscCall(extension_.extend(*flow.velocity, flow.phi()));
    if (vof_enabled_ && flow.air_projection) {
      PetscCall(extension_.mark_air_layers(flow.phi(), &fraction(flow)));
      PetscCall(extension_.close_walls_beside_air(*flow.velocity));
      PetscCall(flow.air_projection->project(*flow.velocity, extension_.air_layers(),
                                             extension_.layers(), dt, &air_band_stats_));
    }
    PetscFunctionReturn(0);
  }

  bool vof_enabled_ = false;
  VolumeOfFluid vof_;
  FractionStats fraction_stats_;
  AirBandStats air_band_stats_;
  PetscInt filled_pockets_ = 0;
  LevelSet level_set_;
  ParticleLevelSet particles_;   // marker particles correcting the level set
  VelocityExtension extension_;  // the liquid's velocity carried into the air
};

}  // namespace

std::unique_ptr<PhysicsModule> make_level_set_module(const JobConfig& job) {
  return job.liquid.enabled ? std::make_unique<LevelSetModule>() : nullptr;
}

}  // namespace sf
