// The time loop: dt selection, one step in Stam's order, output when the schedule says it is due
// (schedule.hpp), diagnostics.
#include "simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "health.hpp"
#include "initial_conditions.hpp"
#include "liquid_sources.hpp"
#include "signals.hpp"
#include "wall_separation.hpp"

namespace sf {

PetscErrorCode Simulation::setup(MPI_Comm comm, const JobConfig& job, const std::string& restart) {
  PetscFunctionBeginUser;
  job_ = &job;
  MemoryMarks memory;
  memory.at_start = resident_bytes();
  PetscCall(timers_.setup());
  PetscCall(grid_.setup(comm, job.grid, job.boundary, job.grid.processes));
  PetscCall(solids_.setup(grid_, job.obstacles));
  PetscCall(bodies_.setup(grid_, solids_, job.forces.gravity));
  if (bodies_.any()) {
    // Placed about their centres of mass, with their start velocities.
    PetscCall(solids_.move_to(time_));
    PetscCall(bodies_.check_clear(true));
  }
  PetscCall(velocity_.setup_velocity(grid_));
  velocity_.set_time(time_);  // inflows that vary in time (a restart sets its own time)
  PetscCall(set_initial_velocity(job.velocity, velocity_));
  PetscCall(solids_.hold_solid_faces(velocity_));
  if (job.liquid.enabled) {
    // The walls' normal velocity is 0 at the start (fill_ghosts sets it) whatever the initial
    // field says; from then on the projection sets it where the liquid leaves a wall.
    PetscCall(velocity_.fill_ghosts());
    velocity_.let_liquid_leave_walls();
  }
  scalars_.resize(job.scalars.size());
  for (size_t s = 0; s < job.scalars.size(); ++s) {
    PetscCall(scalars_[s].setup_scalar(grid_, job.scalars[s].name));
    PetscCall(set_initial_scalar(job.scalars[s], scalars_[s]));
    PetscCall(solids_.hold_scalar_values(scalars_[s]));
  }
  // Texture coordinates start where each cell is (a restart reads them back instead).
  PetscCall(texture_.setup(grid_, job));
  PetscCall(texture_.reset_all(scalars_));
  double initial_volume = 0.0;
  if (job.liquid.enabled) {
    // The union's distance is exact but inside overlapping regions: one reinitialisation makes
    // it a distance everywhere in the band before the first step (a restart replaces it).
    scalars_.emplace_back();
    Field& phi = scalars_.back();
    PetscCall(phi.setup_level_set(grid_, LiquidConfig::kLevelSetName));
    PetscCall(level_set_.setup(grid_, solids_, job.liquid));
    PetscCall(level_set_.initialise(phi));
    PetscCall(level_set_.reinitialise(phi, nullptr));
    if (job.liquid.surface == LiquidConfig::Surface::HeightField) {
      PetscCall(height_field_.setup(grid_, solids_));
      PetscCall(height_field_.initialise(phi));
    }
    PetscCall(level_set_.volume(phi, &initial_volume));
    level_set_.separate_at_walls(velocity_);
    PetscCall(particles_.setup(grid_, solids_, job.liquid));
    PetscCall(particles_.seed(phi, 0));
    // As far into the air as the level set is a distance.
    PetscCall(extension_.setup(grid_, solids_, job.liquid.band));
    PetscCall(extension_.extend(velocity_, phi));
    PetscCall(spray_.setup(grid_, solids_, job.liquid, job.forces.gravity));
  }
  PetscCall(forces_.setup(grid_, job.forces, solids_, job.scalars));
  PetscCall(viscoelastic_.setup(grid_, solids_, job.viscoelastic, job.scalars,
                                job.liquid.enabled));
  steering_.setup(job);
  if (job.time.scheme == TimeScheme::BDF2) {
    bdf2_ = std::make_unique<Bdf2Advection>();
    PetscCall(bdf2_->setup(grid_, solids_, job.advection.interpolation, scalars_));
  } else {
    PetscCall(make_advection(grid_, solids_, job.advection, static_cast<int>(scalars_.size()),
                             &advection_));
  }
  PetscCall(make_diffusion(grid_, solids_, job.diffusion, &diffusion_));
  if (job.fluid.variable.enabled()) {
    variable_viscosity_ = std::make_unique<VariableViscosity>();
    // The parser checked that the scalar is declared.
    const auto named = std::find_if(job.scalars.begin(), job.scalars.end(),
                                    [&](const ScalarConfig& s) {
                                      return s.name == job.fluid.variable.scalar;
                                    });
    PetscCheck(named != job.scalars.end(), comm, PETSC_ERR_ARG_WRONG,
               "the viscosity follows \"%s\", which is not a scalar of the job",
               job.fluid.variable.scalar.c_str());
    viscosity_scalar_ = static_cast<size_t>(named - job.scalars.begin());
    PetscCall(variable_viscosity_->setup(grid_, solids_, job.diffusion, job.fluid.variable));
  }
  PetscCall(make_projection(grid_, solids_, job.pressure, &projection_,
                            job.liquid.enabled ? &scalars_.back() : nullptr,
                            job.liquid.air_pressure, &bodies_,
                            job.liquid.surface != LiquidConfig::Surface::HeightField));
  PetscCall(fire_.setup(grid_, solids_, job.fire, job.scalars));
  if (fire_.divergence_source())
    PetscCall(projection_->set_divergence_source(fire_.divergence_source()));
  PetscCall(writer_.setup(grid_, solids_, job, job.name));
  PetscCall(checkpointer_.setup(grid_, job));
  PetscCall(diagnostics_.setup(grid_, solids_, job, &level_set_, initial_volume));
  build_step();
  // Before anything is written: no other run of this name may be using the directories, and a
  // new run must not mix its files with an earlier one's.
  const std::vector<std::string> directories = {job.output.directory,
                                                checkpointer_.directory()};
  PetscCall(lock_.acquire(comm, directories, job.name, job.source));
  RunState resumed;
  if (restart.empty())
    PetscCall(clear_earlier_output(comm, directories, job.name, job.output.overwrite));
  else
    PetscCall(resume(restart, &resumed));
  std::vector<std::string> columns = diagnostics_.columns();
  // Floating bodies: where each is and how fast it goes, obstacle<n>_x/y(/z) and _vx/vy(/vz),
  // then its turn: in 2D its angle from the start and angular velocity, obstacle<n>_angle and
  // _wz, in 3D its angular velocity _wx/wy/wz.
  for (const FloatingBodies::Body& body : bodies_.bodies()) {
    const std::string prefix = "obstacle" + std::to_string(body.obstacle) + "_";
    for (const char* what : {"", "v"})
      for (int a = 0; a < grid_.dim(); ++a) columns.push_back(prefix + what + "xyz"[a]);
    if (grid_.dim() == 2) columns.push_back(prefix + "angle");
    for (int a = grid_.dim() == 2 ? 2 : 0; a < 3; ++a)
      columns.push_back(prefix + "w" + "xyz"[a]);
  }
  if (spray_.enabled()) {
    columns.push_back("spray_particles");
    columns.push_back("foam_particles");
  }
  if (job.time.steady_tolerance > 0.0) columns.push_back("change_rate");
  PetscCall(log_.open(grid_, job.output.directory, job.name,
                      RunSpan{step_, time_, job.time.end, job.output.progress_every},
                      restarted_, columns));
  // The steps CSV stays open all run: a second record lock, and a file that must stay in place.
  lock_.watch(log_.steps_path(), log_.steps_descriptor());
  const double before_in_situ = resident_bytes();
  PetscCall(make_in_situ(grid_, solids_, job, time_, restarted_, &in_situ_));
  if (in_situ_) memory.in_situ = std::max(0.0, resident_bytes() - before_in_situ);
  log_.set_memory_marks(memory);
  // ParaView and its Python may have replaced the handlers while they started: ours again, so
  // that SIGINT and SIGTERM still checkpoint and stop cleanly.
  if (in_situ_) install_signal_handlers();
  // Per step: the velocity is exchanged before the forces, before advection, and twice in the
  // projection (its right-hand side and its divergence check); every scalar once, after the
  // sources and before the forces (advection reads those ghosts too); the vorticity magnitude
  // once when confinement is on. The second-order step exchanges the scalars twice (before
  // advection and before the forces, which come after it) and the old pressure once for its
  // gradient.
  Decomposition decomposition;
  PetscCall(grid_.describe(&decomposition));
  // A liquid adds its level set's exchanges: the reinitialisation's (one per iteration and one
  // before them, on the steps it runs), the projection's and the extension's; and the
  // extension's two face exchanges per layer (velocity and marks). Marker particles add, per
  // correction (two a step), phi's ghosts and the two reverse scatters of phi+ and phi-, and
  // phi's ghosts for their radii (the migration moves particles, not cells). Obstacles add the
  // extension of phi into them: one exchange after the advection's, two before the first
  // correction.
  const bool bdf2 = job.time.scheme == TimeScheme::BDF2;
  int cell_exchanges = static_cast<int>(scalars_.size()) * (bdf2 ? 2 : 1) + (bdf2 ? 1 : 0) +
                       (job.forces.vorticity_confinement > 0.0 ? 1 : 0);
  int face_exchanges = 4;
  if (job.liquid.enabled) {
    cell_exchanges += level_set_.iterations() + 1 + 2 + (particles_.enabled() ? 2 * 3 + 1 : 0) +
                      (solids_.any() ? 3 : 0);
    face_exchanges += 2 * extension_.layers();
  }
  // Moving obstacles: the mask's exchange, and each scalar's before its uncovered cells are
  // filled (in the steps in which a cell changes).
  if (solids_.moving()) cell_exchanges += 1 + static_cast<int>(scalars_.size());
  PetscCall(log_.report_decomposition(decomposition, face_exchanges, cell_exchanges));
  // Last of the set-up that takes time (ParaView's start above): the wall clock between
  // checkpoints starts here.
  schedule_.setup(comm, job, time_, restarted_ ? &resumed : nullptr, in_situ_.get());

  const auto procs = grid_.process_grid();
  PetscCall(PetscPrintf(comm,
                        "stablefluids %s: job '%s' (%s), %dD grid %" PetscInt_FMT " x %" PetscInt_FMT
                        " x %" PetscInt_FMT " cells, halo %d, process grid %" PetscInt_FMT
                        " x %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT
                        " solid cells\n",
                        STABLEFLUIDS_VERSION, job.name.c_str(), job.source.c_str(), grid_.dim(),
                        grid_.cells(0), grid_.cells(1), grid_.cells(2), grid_.halo(), procs[0],
                        procs[1], procs[2], solids_.solid_cells()));
  // What was read from each mesh file, so that a wrong scale or placement shows at once.
  for (size_t n = 0; n < job.obstacles.size(); ++n) {
    const Region& region = job.obstacles[n].region;
    if (region.shape != Region::Shape::Mesh || !region.mesh) continue;
    const TriangleMesh& mesh = *region.mesh;
    char volume[64] = "volume unknown (its triangles disagree on which side is out)";
    if (mesh.consistently_oriented()) std::snprintf(volume, sizeof volume, "volume %.6g", mesh.volume());
    PetscCall(PetscPrintf(comm,
                          "  obstacle %zu: mesh '%s', %zu triangles, %s, from (%.4g, %.4g, "
                          "%.4g) to (%.4g, %.4g, %.4g)\n",
                          n, job.obstacles[n].mesh_file.path.c_str(), mesh.triangle_count(),
                          volume, mesh.lower()[0], mesh.lower()[1], mesh.lower()[2],
                          mesh.upper()[0], mesh.upper()[1], mesh.upper()[2]));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::resume(const std::string& restart, RunState* state) {
  PetscFunctionBeginUser;
  std::string path = restart;
  StepHistory history, *with_history = nullptr;
  if (bdf2_) {
    history.velocity = &bdf2_->previous_velocity();
    history.scalars = &bdf2_->previous_scalars();
    with_history = &history;
  }
  ParticleRecords particles;
  ParticleRecords* with_particles = particles_.enabled() ? &particles : nullptr;
  SprayRecords spray;
  SprayRecords* with_spray = spray_.enabled() ? &spray : nullptr;
  if (restart == "latest")
    PetscCall(checkpointer_.read_latest(velocity_, scalars_, projection_->pressure(), state,
                                        &path, nullptr, with_history, with_particles,
                                        with_spray));
  else
    PetscCall(checkpointer_.read(path, velocity_, scalars_, projection_->pressure(), state,
                                 with_history, with_particles, with_spray));
  if (bdf2_) PetscCall(bdf2_->resume(history.dt));
  if (with_particles) PetscCall(particles_.restore(particles));
  if (with_spray) PetscCall(spray_.restore(spray));
  time_ = state->time;
  step_ = state->step;
  // The checkpoint's velocity holds the moving obstacles' faces; the mask follows the time, and
  // so do inflows that vary.
  if (bodies_.any()) PetscCall(bodies_.restore(state->bodies));
  if (solids_.moving()) PetscCall(solids_.move_to(time_));
  velocity_.set_time(time_);
  projection_->set_last_dt(state->last_dt);
  PetscCall(writer_.resume(state->frame_times, scalars_, true));
  restarted_ = true;
  PetscCall(PetscPrintf(grid_.comm(), "stablefluids: restarting from %s at step %" PetscInt_FMT
                                      ", t = %.17g\n",
                        path.c_str(), step_, time_));
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::fill_all_ghosts() {
  PetscFunctionBeginUser;
  PetscCall(velocity_.fill_ghosts());
  for (Field& scalar : scalars_) PetscCall(scalar.fill_ghosts());
  PetscFunctionReturn(0);
}

// One step (docs/design.md, "One step") as an ordered list of stages (Basilisk's events are the
// model): each updates the state over dt and reads ghosts that the stage before it may have made
// stale, so the halo is refreshed where a stage needs it. Stam's step (time.scheme: stam):
//   1. forces     scalar sources, then gravity, buoyancy, vorticity confinement and force
//                 regions, each adding dt f to the faces from the state on entry, then the
//                 wind's relaxation
//   2. check      stop on NaN/Inf before advection traces departure points to nowhere
//   3. advect     semi-Lagrangian transport of the velocity and every scalar (or MacCormack/BFECC)
//   4. diffuse    implicit viscosity and scalar diffusion
//   5. project    pressure projection: the velocity becomes divergence-free
//   6. dissipate  s /= 1 + dt a for every scalar
// The second-order step (time.scheme: bdf2, bdf2_advection.hpp) advects first, from the state
// the last step left, and every later stage is BDF2's implicit part, over the step advect()
// returns (2 dt/3 at a constant step):
//   1. check, 2. advect (semi-Lagrangian BDF2), 3. diffuse the scalars, 4. dissipate,
//   5. forces, 6. subtract dt grad p^n, 7. diffuse the velocity, 8. project the pressure
//   increment.
// The forces are then evaluated from the scalars at t^{n+1} and the advected velocity: second
// order for forces of the scalars (buoyancy) and constant ones, first order in time for forces
// that depend on the velocity (confinement, wind).
// With a liquid (Stam's step only) the step advects first, from the divergence-free velocity the
// last step left (the level set with the scalars), then reinitialises the level set (every
// liquid.reinitialise_every steps), applies the forces, diffuses, projects on the liquid (p = 0
// on its surface) and extends the liquid's velocity into the air: 1. check, 2. advect,
// 3. reinitialise, 4. forces, 5. diffuse, 6. project, 7. extend velocity, 8. dissipate.
// Moving obstacles (Stam's step, with or without a liquid) add "move obstacles" first: they go
// where they are at the step's end, their faces take the body's velocity and the cells they
// uncover the fluid's scalars (solids.hpp); and "hold obstacle values" after the advection, which
// moved their own cells' held values. Floating bodies (floating_bodies.hpp) move in "move
// obstacles" with the velocity they have, fall in "forces", take the liquid's drag after
// "diffuse" and get their new velocity from "project". A height field (height_field.hpp) keeps
// the level set through the advection and skips "reinitialise"; "height field" moves it after
// "extend velocity". Spray and foam (spray.hpp) move in "spray", after that.
// Fire (fire.hpp) adds "burn" after "forces": the fuel there burns into heat and soot, and the
// gas it burns expands in this step's projection. A viscoelastic material (viscoelastic.hpp)
// builds up, yields and pushes back with its strain in "elastic", after them (timed in the
// forces clock). Texture coordinates (texture.hpp) are scalars the advection carries; "texture"
// at the end resets the sets whose time has come.
void Simulation::build_step() {
  const JobConfig& job = *job_;
  using Run = std::function<PetscErrorCode(double dt, StepReport* report)>;
  const Run forces = [this, &job](double dt, StepReport*) {
    PetscFunctionBeginUser;
    for (size_t s = 0; s < job.scalars.size(); ++s)
      PetscCall(apply_sources(job.scalars[s], scalars_[s], velocity_, solids_, dt, time_));
    // What a user steers in (steering.hpp) comes after the job's own.
    if (steering_.enabled()) {
      bool changed = false;
      PetscCall(steering_.poll(grid_.comm(), step_, &changed));
      if (changed) forces_.set_steered(steering_.steered().forces);
      for (size_t s = 0; s < job.scalars.size(); ++s)
        if (!steering_.sources()[s].sources.empty())
          PetscCall(apply_sources(steering_.sources()[s], scalars_[s], velocity_, solids_, dt,
                                  time_));
    }
    if (job.liquid.enabled) {
      PetscCall(apply_liquid_flows(job.liquid, level_set_.band_width(), time_,
                                   scalars_[job.scalars.size()], velocity_, solids_));
      PetscCall(particles_.respect_flows(job.liquid, time_));
    }
    PetscCall(fill_all_ghosts());
    PetscCall(forces_.apply(velocity_, scalars_, dt, time_));
    if (bodies_.any()) {
      // The floating bodies fall too; the projection then lets the liquid push them.
      bodies_.accelerate(dt);
      PetscCall(solids_.hold_solid_faces(velocity_));
    }
    PetscFunctionReturn(0);
  };
  // Goktekin et al.'s strain update and elastic force (viscoelastic.hpp), from the velocity the
  // forces read: the forces stage filled every ghost just before them and no force writes the
  // local vectors. It leaves the strain's ghosts current for the advection that follows.
  const Run elastic = [this](double dt, StepReport*) {
    return viscoelastic_.apply(velocity_, scalars_, dt);
  };
  const Run diffuse_velocity = [this, &job](double dt, StepReport* report) {
    PetscFunctionBeginUser;
    PetscInt iterations = 0;
    if (variable_viscosity_) {
      // The viscosity varies with a scalar: one coupled solve for all components (Carlson et al.
      // 2002). The parser refuses floating bodies with it, so the drag below never runs.
      PetscCall(variable_viscosity_->diffuse(velocity_, scalars_[viscosity_scalar_], dt,
                                             &iterations));
    } else {
      PetscCall(diffusion_->diffuse(velocity_, job.fluid.viscosity, dt, &iterations));
    }
    if (bodies_.any() && job.fluid.viscosity > 0.0) {
      // The floating bodies take the momentum the diffusion moved across their faces.
      PetscCall(bodies_.drag(velocity_, scalars_[job.scalars.size()], job.fluid.viscosity, dt));
      PetscCall(solids_.hold_solid_faces(velocity_));
    }
    report->diffusion_iterations += iterations;
    PetscFunctionReturn(0);
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
  const Run diffuse = [diffuse_velocity, diffuse_scalars](double dt, StepReport* report) {
    PetscFunctionBeginUser;
    report->diffusion_iterations = 0;
    PetscCall(diffuse_velocity(dt, report));
    PetscCall(diffuse_scalars(dt, report));
    PetscFunctionReturn(0);
  };
  const Run burn = [this](double dt, StepReport*) { return fire_.burn(scalars_, dt); };
  // Texture coordinates due for a reset get it once the step has moved them (texture.hpp).
  const Run reset_textures = [this](double dt, StepReport*) {
    return texture_.reset_due(scalars_, time_, step_end(dt));
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
  // Enright et al. 2002's order: correct phi by the escaped particles, reinitialise, correct
  // again, set the radii; reseed now and then.
  const Run reinitialise = [this, &job](double, StepReport*) {
    PetscFunctionBeginUser;
    Field& phi = scalars_[job.scalars.size()];
    const PetscInt step = step_ + 1;
    // The advection traced the obstacles' cells too: their phi is the fluid's extension again.
    if (solids_.any()) {
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
      PetscCall(particles_.reseed(phi, step / job.liquid.particles.reseed_every));
    PetscFunctionReturn(0);
  };
  const Run extend = [this, &job](double, StepReport*) {
    return extension_.extend(velocity_, scalars_[job.scalars.size()]);
  };
  // A height field moves its surface with the step's final velocity (height_field.hpp); its
  // level set is the state the advection must leave as it was.
  const Run move_surface = [this, &job](double dt, StepReport*) {
    return height_field_.advance(velocity_, scalars_[job.scalars.size()], dt);
  };
  const auto keeping_surface = [this, &job](Run advect) -> Run {
    return [this, &job, advect](double dt, StepReport* report) {
      PetscFunctionBeginUser;
      const Field& phi = scalars_[job.scalars.size()];
      Vec kept;
      PetscCall(DMGetGlobalVector(phi.dm(), &kept));
      PetscCall(VecCopy(phi.global(), kept));
      PetscCall(advect(dt, report));
      PetscCall(VecCopy(kept, phi.global()));
      PetscCall(DMRestoreGlobalVector(phi.dm(), &kept));
      PetscFunctionReturn(0);
    };
  };
  const bool height_field = job.liquid.surface == LiquidConfig::Surface::HeightField;
  // Spray and foam fly and ride on the step's final velocity (spray.hpp).
  const Run spray = [this, &job](double dt, StepReport*) {
    return spray_.advance(velocity_, scalars_[job.scalars.size()], dt, step_ + 1);
  };
  // Moving obstacles go where they are at the end of the step first, so that the step's
  // projection holds the fluid to their new surface and speed (Foster & Fedkiw 2001).
  const Run move_obstacles = [this](double dt, StepReport*) {
    PetscFunctionBeginUser;
    const int before = solids_.version();
    // Floating bodies move over the step at the velocity they have (floating_bodies.hpp).
    bodies_.advance(dt);
    PetscCall(solids_.move_to(step_end(dt)));
    PetscCall(bodies_.check_clear(false));
    PetscCall(solids_.hold_solid_faces(velocity_));
    // No cell changed on any rank (version() is the same on all): nothing to fill.
    if (solids_.version() != before)
      for (Field& scalar : scalars_) PetscCall(solids_.fill_uncovered(scalar));
    PetscFunctionReturn(0);
  };
  // The advection traces a moving body's cells with its velocity and mixes the fluid's values
  // into those it holds a scalar at: they are set again after it.
  const Run hold_obstacle_values = [this](double, StepReport*) {
    PetscFunctionBeginUser;
    for (Field& scalar : scalars_) PetscCall(solids_.hold_scalar_values(scalar));
    PetscFunctionReturn(0);
  };
  const Run check_before_advection = [this](double dt, StepReport*) {
    return check_state("before the advection of step", step_ + 1, dt);
  };
  // Stam's advection; `all_ghosts`: every field's ghosts are refreshed first, not only the
  // velocity's.
  // A liquid's advection also opens the walls it leaves to air (wall_separation.hpp).
  const auto stam_advect = [this, &job](bool all_ghosts) -> Run {
    return [this, &job, all_ghosts](double dt, StepReport* report) {
      PetscFunctionBeginUser;
      if (job.liquid.enabled)
        PetscCall(hold_surfaces_at_leaving_walls(velocity_, scalars_[job.scalars.size()],
                                                 solids_));
      if (all_ghosts)
        PetscCall(fill_all_ghosts());
      else
        PetscCall(velocity_.fill_ghosts());
      if (job.liquid.enabled) {
        PetscCall(level_set_.complete_ghosts(scalars_[job.scalars.size()]));
        PetscCall(particles_.advect(velocity_, dt));
      }
      AdvectionStats advection;
      PetscCall(advection_->advect(velocity_, scalars_, dt, &advection));
      report->remote_points = advection.remote_points;
      PetscFunctionReturn(0);
    };
  };
  // Inflows that vary in time take their value at the end of the step, as the obstacles do:
  // the step's projection balances the flux they bring in then.
  const Run vary_inflows = [this](double dt, StepReport*) {
    PetscFunctionBeginUser;
    velocity_.set_time(step_end(dt));
    PetscCall(velocity_.fill_ghosts());
    PetscFunctionReturn(0);
  };
  const bool inflows_vary = std::any_of(
      job.boundary.begin(), job.boundary.end(), [](const std::array<FaceBoundary, 2>& sides) {
        return sides[0].varies() || sides[1].varies();
      });
  stages_.clear();
  if (inflows_vary) stages_.push_back({"vary inflows", std::nullopt, vary_inflows});
  if (job.time.scheme == TimeScheme::Stam && job.liquid.enabled) {
    // A liquid's surface must move with the divergence-free velocity the last step left: the
    // velocity after this step's forces (gravity, before its projection) would carry the whole
    // surface down by g dt^2 a step. So the liquid's step advects first (Foster & Fedkiw 2001),
    // then applies the forces, projects on the liquid and extends its velocity into the air.
    if (solids_.moving()) stages_.push_back({"move obstacles", Stage::Obstacles, move_obstacles});
    stages_.push_back({"check", std::nullopt, check_before_advection});
    if (height_field)
      stages_.push_back({"advect", Stage::Advect, keeping_surface(stam_advect(true))});
    else
      stages_.push_back({"advect", Stage::Advect, stam_advect(true)});
    if (solids_.moving())
      stages_.push_back({"hold obstacle values", Stage::Obstacles, hold_obstacle_values});
    if (!height_field) stages_.push_back({"reinitialise", Stage::Surface, reinitialise});
    stages_.push_back({"forces", Stage::Forces, forces});
    if (viscoelastic_.enabled()) stages_.push_back({"elastic", Stage::Forces, elastic});
    stages_.push_back({"diffuse", Stage::Diffuse, diffuse});
    stages_.push_back({"project", Stage::Project, project});
    stages_.push_back({"extend velocity", Stage::Surface, extend});
    if (height_field) stages_.push_back({"height field", Stage::Surface, move_surface});
    if (spray_.enabled()) stages_.push_back({"spray", Stage::Surface, spray});
    stages_.push_back({"dissipate", std::nullopt, dissipate_scalars});
    if (texture_.enabled()) stages_.push_back({"texture", std::nullopt, reset_textures});
    return;
  }
  if (job.time.scheme == TimeScheme::Stam) {
    if (solids_.moving()) stages_.push_back({"move obstacles", Stage::Obstacles, move_obstacles});
    stages_.push_back({"forces", Stage::Forces, forces});
    if (fire_.enabled()) stages_.push_back({"burn", Stage::Forces, burn});
    if (viscoelastic_.enabled()) stages_.push_back({"elastic", Stage::Forces, elastic});
    // A force or source large enough to overflow makes the velocity infinite here, and
    // advection would then trace departure points to nowhere; stop with the field and the cell
    // instead. One read of the state, small beside advection, which reads each value many times.
    stages_.push_back({"check", std::nullopt, [this](double dt, StepReport*) {
                         return check_state("after the sources and forces of step", step_ + 1,
                                            dt);
                       }});
    // The forces changed the velocity only: the scalars' ghosts are those the forces stage
    // exchanged after the sources, still current (the elastic stage refreshes the strain's
    // after changing it), unless a fire burnt them since.
    stages_.push_back({"advect", Stage::Advect, stam_advect(fire_.enabled())});
    if (solids_.moving())
      stages_.push_back({"hold obstacle values", Stage::Obstacles, hold_obstacle_values});
    stages_.push_back({"diffuse", Stage::Diffuse, diffuse});
    stages_.push_back({"project", Stage::Project, project});
    stages_.push_back({"dissipate", std::nullopt, dissipate_scalars});
    if (texture_.enabled()) stages_.push_back({"texture", std::nullopt, reset_textures});
    return;
  }
  // BDF2: the stages after advection take implicit_dt_, whatever the step's dt.
  const auto implicit = [this](Run run) -> Run {
    return [this, run](double, StepReport* report) { return run(implicit_dt_, report); };
  };
  stages_.push_back({"check", std::nullopt, check_before_advection});
  stages_.push_back({"advect", Stage::Advect, [this](double dt, StepReport* report) {
                       PetscFunctionBeginUser;
                       PetscCall(fill_all_ghosts());
                       AdvectionStats advection;
                       PetscCall(bdf2_->advect(velocity_, scalars_, dt, &advection, &implicit_dt_));
                       report->remote_points = advection.remote_points;
                       PetscFunctionReturn(0);
                     }});
  // The scalars need no velocity of t^{n+1}: their implicit part (diffusion, dissipation) comes
  // first, so that the forces read them at t^{n+1}, as BDF2 evaluates the rest of the equation.
  // Read from the advected scalars instead, buoyancy lagged the temperature by its diffusion over
  // the step, an O(dt) error that stays in the steady state: the heated cavity's u_max at Ra = 1e5
  // on 64^2 was 34.32, 34.58, 34.72 at dt = 0.05, 0.025, 0.0125 (differences halving with dt).
  stages_.push_back({"diffuse scalars", Stage::Diffuse, implicit([diffuse_scalars](
                                                                   double dt, StepReport* report) {
                       report->diffusion_iterations = 0;
                       return diffuse_scalars(dt, report);
                     })});
  stages_.push_back({"dissipate", std::nullopt, implicit(dissipate_scalars)});
  stages_.push_back({"forces", Stage::Forces, implicit(forces)});
  if (fire_.enabled()) stages_.push_back({"burn", Stage::Forces, implicit(burn)});
  stages_.push_back({"pressure gradient", Stage::Project, implicit([this](double dt, StepReport*) {
                       return projection_->subtract_pressure_gradient(velocity_, dt);
                     })});
  stages_.push_back({"diffuse", Stage::Diffuse, implicit(diffuse_velocity)});
  stages_.push_back({"project", Stage::Project, implicit(project)});
  if (texture_.enabled()) stages_.push_back({"texture", std::nullopt, reset_textures});
}

PetscErrorCode Simulation::step(double dt, StepReport* report, std::optional<double> lands_on) {
  PetscFunctionBeginUser;
  step_end_ = lands_on;
  for (const StepStage& stage : stages_) {
    if (stage.clock) PetscCall(timers_.begin(*stage.clock));
    PetscCall(stage.run(dt, report));
    if (stage.clock) PetscCall(timers_.end(*stage.clock));
  }
  time_ = step_end(dt);
  step_end_.reset();
  ++step_;
  report->step = step_;
  report->dt = dt;
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::stable_dt(double* dt, double* max_velocity) const {
  PetscFunctionBeginUser;
  const TimeConfig& time = job_->time;
  // Face values are the velocity components themselves, and the face DM's unused slots hold 0,
  // so the infinity norm is max_c max |u_c|.
  PetscCall(VecNorm(velocity_.global(), NORM_INFINITY, max_velocity));
  if (time.cfl <= 0.0) {
    *dt = time.dt;
  } else {
    *dt = *max_velocity > 0.0 ? time.cfl * min_spacing() / *max_velocity : time.dt_max;
    // A viscoelastic material's force is explicit: its elastic waves, at sqrt(k_em) for a
    // density of 1, must not cross more than a cell a step, whatever the flow's speed.
    if (job_->viscoelastic.enabled)
      *dt = std::min(*dt, min_spacing() / std::sqrt(job_->viscoelastic.elastic_modulus));
    *dt = std::clamp(*dt, time.dt_min, time.dt_max);
  }
  PetscFunctionReturn(0);
}

double Simulation::min_spacing() const {
  double h = grid_.spacing(0);
  for (int a = 1; a < grid_.dim(); ++a) h = std::min(h, grid_.spacing(a));
  return h;
}

PetscErrorCode Simulation::choose_dt(double* dt, std::optional<double>* lands_on,
                                     StepReport* report) {
  PetscFunctionBeginUser;
  const double end = job_->time.end;
  PetscCall(stable_dt(dt, &report->max_velocity));
  // Shorten the step to land exactly on the next output time or the end; a step that would
  // stop just short of it (within a millionth of dt) is stretched onto it instead of leaving
  // a sliver step behind.
  const double target = std::min(schedule_.next_output_time(), end);
  lands_on->reset();
  if (time_ + *dt * (1.0 + 1e-6) >= target) {
    *dt = target - time_;
    *lands_on = target;
  } else if (job_->time.scheme == TimeScheme::BDF2 && target - time_ < 2.0 * *dt) {
    // Two equal steps onto the output time rather than a full one and a short remainder: the
    // second-order step keeps its accuracy only while each step is less than twice the one
    // before (bdf2_advection.hpp), and the step after a short remainder would not be.
    *dt = 0.5 * (target - time_);
  }
  // Both are decided from reductions and the job, so every rank stops here together.
  PetscCheck(time_ + *dt > time_, grid_.comm(), PETSC_ERR_FP,
             "the time step dt = %g no longer advances t = %.17g (max |u| = %g; dt_min is %g): "
             "the run cannot reach time.end. The run stops here; the newest checkpoint is "
             "untouched.",
             *dt, time_, report->max_velocity, job_->time.dt_min);
  PetscCheck(step_ < kMaxSteps, grid_.comm(), PETSC_ERR_SUP,
             "the run reached step %" PetscInt_FMT ", the most that checkpoint names hold "
             "(8 digits), before time.end = %g (t = %g); raise time.dt_min or time.cfl",
             step_, end, time_);
  report->cfl = report->max_velocity * *dt / min_spacing();
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::write_frame() {
  PetscFunctionBeginUser;
  PetscCall(timers_.begin(Stage::Output));
  PetscCall(velocity_.fill_ghosts());
  ParticleRecords particles;
  PetscCall(particles_.records(&particles));
  PetscCall(writer_.write(velocity_, scalars_, projection_->pressure(), step_, time_,
                          particles_.enabled() ? &particles : nullptr));
  PetscCall(timers_.end(Stage::Output));
  PetscCall(PetscPrintf(grid_.comm(), "  frame %d at t = %.6g -> %s\n",
                        writer_.frames_written() - 1, time_,
                        writer_.frame_path(writer_.frames_written() - 1).c_str()));
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::run_in_situ(double* seconds) {
  PetscFunctionBeginUser;
  *seconds = 0.0;
  bool due = false;
  PetscCall(schedule_.in_situ_due(step_, time_, &due));
  if (!due) PetscFunctionReturn(0);
  const double start = MPI_Wtime();
  PetscCall(timers_.begin(Stage::InSitu));
  PetscCall(fill_all_ghosts());
  InSituState state;
  state.velocity = &velocity_;
  state.scalars = &scalars_;
  state.pressure = projection_->pressure();
  SprayRecords spray;
  if (spray_.enabled()) {
    PetscCall(spray_.records(&spray));
    state.spray = &spray;
  }
  state.step = step_;
  state.time = time_;
  PetscCall(in_situ_->execute(state));
  PetscCall(timers_.end(Stage::InSitu));
  *seconds = MPI_Wtime() - start;
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::check_state(const char* when, PetscInt step, double dt) {
  PetscFunctionBeginUser;
  std::vector<const Field*> fields = {&velocity_};
  for (const Field& s : scalars_) fields.push_back(&s);
  bool found = false;
  BadValue bad;
  PetscCall(find_bad_value(grid_, fields, projection_->pressure(), &found, &bad));
  std::string why;
  if (!found && dt > 0.0) {
    // A finite velocity can still have blown up: one that carries a departure point more than
    // kMaxDepartureDomains domain lengths in one step is no flow, and positions that far out
    // lose the digits that place them in a cell.
    double extent = 0.0;
    for (int a = 0; a < grid_.dim(); ++a) extent = std::max(extent, job_->grid.size[a]);
    PetscCall(find_bad_value(grid_, {&velocity_}, nullptr, &found, &bad,
                             kMaxDepartureDomains * extent / dt));
    if (found) {
      char text[200];
      std::snprintf(text, sizeof text,
                    ": with dt = %g it would move a departure point more than %g domain lengths "
                    "in one step, so the flow has blown up",
                    dt, kMaxDepartureDomains);
      why = text;
    }
  }
  if (!found) PetscFunctionReturn(0);
  std::string dump;
  if (job_->debug.dump_on_failure) {
    // The failing state, in the frame layout, under a name no frame or checkpoint uses.
    FrameWriter writer;
    PetscCall(writer.setup(grid_, solids_, *job_, job_->name + "_failed_step" + std::to_string(step)));
    PetscCall(velocity_.fill_ghosts());
    PetscCall(writer.write(velocity_, scalars_, projection_->pressure(), step_, time_));
    dump = " The failing state is in " + writer.frame_path(0) + ".";
  }
  // find_bad_value is collective and every rank found the same value: raised on all ranks.
  SETERRQ(grid_.comm(), PETSC_ERR_FP,
          "%s %s %" PetscInt_FMT " (t = %g)%s. The run stops here; the newest checkpoint is "
          "untouched.%s",
          describe(bad, grid_.dim()).c_str(), when, step, time_, why.c_str(), dump.c_str());
}

PetscErrorCode Simulation::write_checkpoint(std::string* path) {
  PetscFunctionBeginUser;
  RunState state;
  state.time = time_;
  state.step = step_;
  state.last_dt = projection_->last_dt();
  state.next_frame = schedule_.next_frame();
  state.frame_times = writer_.frame_times();
  state.bodies = bodies_.state();
  PetscCall(timers_.begin(Stage::Output));
  StepHistory history;
  if (bdf2_) {
    history.velocity = &bdf2_->previous_velocity();
    history.scalars = &bdf2_->previous_scalars();
    history.dt = bdf2_->previous_dt();
  }
  ParticleRecords particles;
  PetscCall(particles_.records(&particles));
  SprayRecords spray;
  PetscCall(spray_.records(&spray));
  PetscCall(checkpointer_.write(velocity_, scalars_, projection_->pressure(), state, path,
                                &history, particles_.enabled() ? &particles : nullptr,
                                spray_.enabled() ? &spray : nullptr));
  PetscCall(timers_.end(Stage::Output));
  schedule_.checkpoint_written(step_, time_);
  PetscCall(PetscPrintf(grid_.comm(), "  checkpoint at step %" PetscInt_FMT " -> %s\n", step_,
                        path->c_str()));
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::write_what_is_due(StepReport* report, int* signal) {
  PetscFunctionBeginUser;
  // Before anything is written at this boundary: the directories are still this run's.
  PetscCall(lock_.check(grid_.comm()));
  PetscCall(run_in_situ(&report->insitu_seconds));
  // The frame and checkpoint this step owes, timed for the progress line: a step's honest
  // cost includes them.
  const double output_start = MPI_Wtime();
  if (schedule_.frame_due(time_)) PetscCall(write_frame());
  CheckpointDue checkpoint;
  PetscCall(schedule_.checkpoint_due(step_, time_, &checkpoint));
  std::string path;
  if (checkpoint.why != CheckpointReason::None) PetscCall(write_checkpoint(&path));
  report->output_seconds = MPI_Wtime() - output_start;
  *signal = checkpoint.signal;
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::finish(double start, const char* reason, int first_frame) {
  PetscFunctionBeginUser;
  if (in_situ_) PetscCall(in_situ_->finalize());
  PetscCall(log_.finish(timers_.times(), step_, MPI_Wtime() - start, reason));
  // A run ends well only if what it announces is there: the frames it wrote, their index and
  // its logs, and its directories still its own. A run stopped by a signal (first_frame < 0) is
  // to be continued: only its lock, logs and index are checked, so that frames moved away
  // meanwhile (archived, say) do not keep a requeued job from continuing. A run that writes no
  // frames (output.interval 0 without an initial frame, as scaling studies run) has no index.
  std::vector<std::string> written = {log_.timings_path()};
  if (writer_.frames_written() > 0) written.push_back(writer_.index_path());
  for (int frame = std::max(first_frame, 0); first_frame >= 0 && frame < writer_.frames_written();
       ++frame)
    written.push_back(writer_.frame_path(frame));
  PetscCall(lock_.check(grid_.comm(), written));
  PetscFunctionReturn(0);
}

// The time loop: choose dt, step, check the state, and do what the schedule says is due.
PetscErrorCode Simulation::ChangeWatch::begin(const Field& velocity,
                                              const std::vector<Field>& scalars) {
  PetscFunctionBeginUser;
  // Pooled copies: borrowed for the step, as the stages borrow theirs.
  copies_.resize(1 + scalars.size());
  dms_.resize(copies_.size());
  for (size_t q = 0; q < copies_.size(); ++q) {
    const Field& field = q == 0 ? velocity : scalars[q - 1];
    dms_[q] = field.dm();
    PetscCall(DMGetGlobalVector(dms_[q], &copies_[q]));
    PetscCall(VecCopy(field.global(), copies_[q]));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::ChangeWatch::end(const Field& velocity,
                                            const std::vector<Field>& scalars, double* change) {
  PetscFunctionBeginUser;
  *change = 0.0;
  for (size_t q = 0; q < copies_.size(); ++q) {
    const Field& field = q == 0 ? velocity : scalars[q - 1];
    PetscReal largest = 0.0;
    PetscCall(VecAYPX(copies_[q], -1.0, field.global()));
    PetscCall(VecNorm(copies_[q], NORM_INFINITY, &largest));
    *change = std::max(*change, static_cast<double>(largest));
    PetscCall(DMRestoreGlobalVector(dms_[q], &copies_[q]));
  }
  copies_.clear();
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::run(int* interrupted) {
  PetscFunctionBeginUser;
  if (interrupted) *interrupted = 0;
  const double start = MPI_Wtime();
  const int first_frame = writer_.frames_written();  // frames of an earlier segment come before
  if (!restarted_) {
    if (schedule_.initial_frame_due()) PetscCall(write_frame());
    double seconds;
    PetscCall(run_in_situ(&seconds));
  }
  const double steady_tolerance = job_->time.steady_tolerance;
  bool steady = false;
  while (time_ < job_->time.end && !steady) {
    const double step_start = MPI_Wtime();
    StepReport report;
    double dt;
    std::optional<double> lands_on;
    PetscCall(choose_dt(&dt, &lands_on, &report));
    ChangeWatch watch;
    if (steady_tolerance > 0.0) PetscCall(watch.begin(velocity_, scalars_));
    PetscCall(step(dt, &report, lands_on));  // ends exactly on lands_on, if given
    PetscCall(check_state("after step", step_, 0.0));
    PetscCall(diagnostics_.measure(velocity_, scalars_, projection_->pressure(),
                                   &report.diagnostics));
    for (const FloatingBodies::Body& body : bodies_.bodies()) {
      for (const std::array<double, 3>* what : {&body.pose.position, &body.pose.velocity})
        for (int a = 0; a < grid_.dim(); ++a) report.diagnostics.push_back((*what)[a]);
      if (grid_.dim() == 2)
        report.diagnostics.push_back(std::atan2(body.pose.rotation[3], body.pose.rotation[0]));
      for (int a = grid_.dim() == 2 ? 2 : 0; a < 3; ++a)
        report.diagnostics.push_back(body.pose.omega[a]);
    }
    if (spray_.enabled()) {
      PetscInt spray = 0, foam = 0;
      PetscCall(spray_.census(&spray, &foam));
      report.diagnostics.push_back(static_cast<double>(spray));
      report.diagnostics.push_back(static_cast<double>(foam));
    }
    if (steady_tolerance > 0.0) {
      double change = 0.0;
      PetscCall(watch.end(velocity_, scalars_, &change));
      report.diagnostics.push_back(change / dt);
      steady = change / dt <= steady_tolerance;
    }
    report.time = time_;
    report.wall_seconds = MPI_Wtime() - step_start;
    int signal = 0;
    PetscCall(write_what_is_due(&report, &signal));
    PetscCall(log_.record(report));
    if (signal) {
      PetscCall(PetscPrintf(grid_.comm(),
                            "stablefluids: %s received; stopped after step %" PetscInt_FMT
                            " at t = %.9g. Continue with: stablefluids %s --restart latest\n",
                            signal_name(signal), step_, time_, job_->source.c_str()));
      if (interrupted) *interrupted = signal;
      PetscCall(finish(start, signal_name(signal), -1));
      PetscFunctionReturn(0);
    }
  }
  if (steady) {
    PetscCall(PetscPrintf(grid_.comm(),
                          "stablefluids: steady at t = %.9g after step %" PetscInt_FMT
                          ": the largest change per unit time is at most time.steady.tolerance "
                          "= %g\n",
                          time_, step_, steady_tolerance));
    // The steady state is the run's result: a frame of it, unless one was just written.
    const std::vector<double>& written = writer_.frame_times();
    if (written.empty() || written.back() != time_) PetscCall(write_frame());
  }
  if (schedule_.final_checkpoint_due(step_)) {
    std::string path;
    PetscCall(write_checkpoint(&path));  // so the run can be continued to a later end time
  }
  PetscCall(finish(start, steady ? "steady" : "end", first_frame));
  // Formatted here, not by PetscPrintf: PETSc appends a '.' to a %g that prints as an integer
  // ("t = 2."), which reads like a typo in the line a user checks first.
  char end_time[32];
  std::snprintf(end_time, sizeof end_time, "%g", time_);
  PetscCall(PetscPrintf(grid_.comm(), "stablefluids: reached t = %s after %" PetscInt_FMT
                                      " steps; %d frames, index %s\n",
                        end_time, step_, writer_.frames_written(), writer_.index_path().c_str()));
  PetscFunctionReturn(0);
}

}  // namespace sf
