// The base schemes of one step (docs/design.md, "One step"), each a fixed list of its own stages
// and of anchors where the job's physics modules act (module.hpp; Basilisk's events are the
// model). Each stage updates the state over dt and reads ghosts that the stage before it may
// have made stale, so the halo is refreshed where a stage needs it.
//
// Stam's step (time.scheme: stam; Stam 1999, "Stable Fluids"):
//   step start, move obstacles, obstacles moved, sources, [ghosts], forces, after forces,
//   [check]  stop on NaN/Inf before advection traces departure points to nowhere,
//   before advection, [ghosts], advection ghosts,
//   [advect] semi-Lagrangian transport of the velocity and every scalar (or MacCormack/BFECC),
//   after advection,
//   [diffuse velocity], velocity diffused, [diffuse scalars]  implicit viscosity and diffusion,
//   [project]   pressure projection: the velocity becomes divergence-free,
//   after projection,
//   [dissipate] s /= 1 + dt a for every scalar,
//   end of step.
// The liquid's step (liquid:, Stam's otherwise; Foster & Fedkiw 2001) advects first: a liquid's
// surface must move with the divergence-free velocity the last step left; the velocity after
// this step's forces (gravity, before its projection) would carry the whole surface down by
// g dt^2 a step. Its projection is the free-surface one (p = 0 on the surface):
//   step start, move obstacles, obstacles moved, [check], before advection, [ghosts],
//   advection ghosts, [advect], after advection, sources, [ghosts], forces, after forces,
//   [diffuse velocity], velocity diffused, [diffuse scalars], [project], after projection,
//   [dissipate], end of step.
// The second-order step (time.scheme: bdf2, bdf2_advection.hpp) advects first, from the state the
// last step left, and every later stage is BDF2's implicit part, over the step advect() returns
// (2 dt/3 at a constant step):
//   step start, [check], [advect], [diffuse scalars], [dissipate], sources, [ghosts], forces,
//   [pressure gradient] subtract dt grad p^n, [diffuse velocity], [project] the pressure
//   increment.
// The scalars need no velocity of t^{n+1}: their implicit part comes first, so that the forces
// read them at t^{n+1}, as BDF2 evaluates the rest of the equation. Read from the advected
// scalars instead, buoyancy lagged the temperature by its diffusion over the step, an O(dt) error
// that stays in the steady state: the heated cavity's u_max at Ra = 1e5 on 64^2 was 34.32,
// 34.58, 34.72 at dt = 0.05, 0.025, 0.0125 (differences halving with dt). The forces are then
// second order for forces of the scalars (buoyancy) and constant ones, first order in time for
// forces that depend on the velocity (confinement, wind).
#include "simulation.hpp"

#include "sources.hpp"  // dissipate

namespace sf {

PetscErrorCode Simulation::build_step() {
  PetscFunctionBeginUser;
  const JobConfig& job = *job_;
  using Run = std::function<PetscErrorCode(double dt, StepReport* report)>;
  const auto timed = [this](std::optional<Stage> clock, bool begin) -> PetscErrorCode {
    if (!clock) return 0;
    return begin ? timers_.begin(*clock) : timers_.end(*clock);
  };
  // The modules' stages at `anchor`, each on its own clock; BDF2's implicit part runs them over
  // its implicit step.
  const auto anchor = [this, timed](Anchor at, bool implicit = false) -> SchemeStage {
    return {anchor_name(at), std::nullopt, [this, at, timed, implicit](double dt, StepReport*) {
              return plan_.run(at, implicit ? implicit_dt_ : dt, timed);
            }};
  };
  const auto check = [this](const char* when) -> Run {
    return [this, when](double dt, StepReport*) {
      return check_state(when, flow_.step + 1, dt);
    };
  };
  const Run all_ghosts = [this](double, StepReport*) { return flow_.fill_all_ghosts(); };
  const Run advect = [this](double dt, StepReport* report) {
    PetscFunctionBeginUser;
    AdvectionStats advection;
    PetscCall(advection_->advect(velocity_, scalars_, dt, &advection));
    report->remote_points = advection.remote_points;
    PetscFunctionReturn(0);
  };
  const Run diffuse_velocity = [this](double dt, StepReport* report) {
    PetscFunctionBeginUser;
    PetscInt iterations = 0;
    PetscCall(velocity_diffusion_->diffuse(velocity_, scalars_, dt, &iterations));
    report->diffusion_iterations += iterations;
    PetscFunctionReturn(0);
  };
  // Stam's and the liquid's diffusion counts the iterations of both solves from 0; BDF2's
  // counts from its scalars' solve, which comes first.
  const Run first_diffuse_velocity = [diffuse_velocity](double dt, StepReport* report) {
    report->diffusion_iterations = 0;
    return diffuse_velocity(dt, report);
  };
  const Run diffuse_scalars = [this, &job](double dt, StepReport* report) {
    PetscFunctionBeginUser;
    PetscInt iterations = 0;
    for (size_t s = 0; s < job.scalars.size(); ++s) {
      PetscCall(diffusion_->diffuse(scalars_[s], job.scalars[s].diffusion, dt, &iterations));
      report->diffusion_iterations += iterations;
    }
    PetscFunctionReturn(0);
  };
  const bool incremental = job.time.scheme == TimeScheme::BDF2;
  const Run project = [this, incremental](double dt, StepReport* report) {
    PetscFunctionBeginUser;
    ProjectionStats projection;
    projection_->set_time(step_end(dt));
    if (incremental)
      PetscCall(projection_->project_increment(velocity_, dt, &projection));
    else
      PetscCall(projection_->project(velocity_, dt, &projection));
    report->pressure_iterations = projection.iterations;
    report->max_divergence = projection.max_divergence;
    PetscFunctionReturn(0);
  };
  const Run dissipate_scalars = [this, &job](double dt, StepReport*) {
    PetscFunctionBeginUser;
    for (size_t s = 0; s < job.scalars.size(); ++s)
      PetscCall(dissipate(scalars_[s], job.scalars[s].dissipation, dt));
    PetscFunctionReturn(0);
  };

  stages_.clear();
  if (job.time.scheme == TimeScheme::Stam) {
    const bool liquid = job.liquid.enabled;
    const std::initializer_list<Anchor> anchors = {
        Anchor::StepStart,      Anchor::MoveObstacles,   Anchor::ObstaclesMoved,
        Anchor::Sources,        Anchor::Forces,          Anchor::AfterForces,
        Anchor::BeforeAdvection, Anchor::AdvectionGhosts, Anchor::AfterAdvection,
        Anchor::VelocityDiffused, Anchor::AfterProjection, Anchor::EndOfStep};
    PetscCall(plan_.check_scheme(grid_.comm(), liquid ? "liquid's" : "Stam", anchors));
    const std::vector<SchemeStage> forces = {
        anchor(Anchor::Sources),
        {"ghosts", Stage::Forces, all_ghosts},  // the forces read every field's halo
        anchor(Anchor::Forces), anchor(Anchor::AfterForces)};
    // The forces refreshed every ghost and changed only the velocity: the scalars' ghosts are
    // still current unless a stage after them left them stale (fire's burn). The liquid's step
    // advects before its forces, and refreshes them all.
    const bool stale = liquid || plan_.stales_scalars({Anchor::AfterForces});
    const std::vector<SchemeStage> advection = {
        anchor(Anchor::BeforeAdvection),
        {"ghosts", Stage::Advect,
         [this, stale](double, StepReport*) {
           return stale ? flow_.fill_all_ghosts() : velocity_.fill_ghosts();
         }},
        anchor(Anchor::AdvectionGhosts), {"advect", Stage::Advect, advect},
        anchor(Anchor::AfterAdvection)};
    const std::vector<SchemeStage> move = {anchor(Anchor::MoveObstacles),
                                           anchor(Anchor::ObstaclesMoved)};
    stages_ = {anchor(Anchor::StepStart)};
    if (liquid) {
      // The liquid advects first, with the velocity the last projection made divergence-free
      // for the bodies where they were: the volume fraction's flux form keeps the water only
      // with a divergence-free velocity, and bodies that went first would change the faces
      // they cover or leave. They move before the forces and the projection, which hold the
      // fluid to where they are at the step's end.
      stages_.push_back({"check", std::nullopt, check("before the advection of step")});
      stages_.insert(stages_.end(), advection.begin(), advection.end());
      stages_.insert(stages_.end(), move.begin(), move.end());
      stages_.insert(stages_.end(), forces.begin(), forces.end());
    } else {
      stages_.insert(stages_.end(), move.begin(), move.end());
      stages_.insert(stages_.end(), forces.begin(), forces.end());
      // A force or source large enough to overflow makes the velocity infinite here, and
      // advection would then trace departure points to nowhere; stop with the field and the
      // cell instead. One read of the state, small beside advection, which reads each value
      // many times.
      stages_.push_back({"check", std::nullopt, check("after the sources and forces of step")});
      stages_.insert(stages_.end(), advection.begin(), advection.end());
    }
    stages_.insert(stages_.end(), {{"diffuse velocity", Stage::Diffuse, first_diffuse_velocity},
                                   anchor(Anchor::VelocityDiffused),
                                   {"diffuse scalars", Stage::Diffuse, diffuse_scalars},
                                   {"project", Stage::Project, project},
                                   anchor(Anchor::AfterProjection),
                                   {"dissipate", std::nullopt, dissipate_scalars},
                                   anchor(Anchor::EndOfStep)});
    PetscFunctionReturn(0);
  }
  // BDF2: the stages after advection take implicit_dt_, whatever the step's dt.
  PetscCall(plan_.check_scheme(grid_.comm(), "BDF2",
                               {Anchor::StepStart, Anchor::Sources, Anchor::Forces}));
  const auto implicit = [this](Run run) -> Run {
    return [this, run](double, StepReport* report) { return run(implicit_dt_, report); };
  };
  stages_ = {anchor(Anchor::StepStart),
             {"check", std::nullopt, check("before the advection of step")},
             {"advect", Stage::Advect,
              [this](double dt, StepReport* report) {
                PetscFunctionBeginUser;
                PetscCall(flow_.fill_all_ghosts());
                AdvectionStats advection;
                PetscCall(bdf2_->advect(velocity_, scalars_, dt, &advection, &implicit_dt_));
                report->remote_points = advection.remote_points;
                PetscFunctionReturn(0);
              }},
             {"diffuse scalars", Stage::Diffuse,
              implicit([diffuse_scalars](double dt, StepReport* report) {
                report->diffusion_iterations = 0;
                return diffuse_scalars(dt, report);
              })},
             {"dissipate", std::nullopt, implicit(dissipate_scalars)},
             anchor(Anchor::Sources, true),
             {"ghosts", Stage::Forces, all_ghosts},
             anchor(Anchor::Forces, true),
             {"pressure gradient", Stage::Project, implicit([this](double dt, StepReport*) {
                return projection_->subtract_pressure_gradient(velocity_, dt);
              })},
             {"diffuse velocity", Stage::Diffuse, implicit(diffuse_velocity)},
             {"project", Stage::Project, implicit(project)}};
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::step(double dt, StepReport* report, std::optional<double> lands_on) {
  PetscFunctionBeginUser;
  flow_.lands_on = lands_on;
  for (const SchemeStage& stage : stages_) {
    if (stage.clock) PetscCall(timers_.begin(*stage.clock));
    PetscCall(stage.run(dt, report));
    if (stage.clock) PetscCall(timers_.end(*stage.clock));
  }
  flow_.time = step_end(dt);
  flow_.lands_on.reset();
  ++flow_.step;
  report->step = flow_.step;
  report->dt = dt;
  PetscFunctionReturn(0);
}

}  // namespace sf
