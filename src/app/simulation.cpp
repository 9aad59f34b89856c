// The run: set-up of the grid, the fields, the job's physics modules and the base scheme's
// solvers, and the time loop: dt selection, the step of schemes.cpp, the state's checks, and
// output when the schedule says it is due (schedule.hpp; simulation_output.cpp writes it).
#include "simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "build_info.hpp"
#include "change_watch.hpp"
#include "health.hpp"
#include "signals.hpp"

namespace sf {

PetscErrorCode Simulation::setup(MPI_Comm comm, const JobConfig& job, const std::string& restart) {
  PetscFunctionBeginUser;
  job_ = &job;
  MemoryMarks memory;
  memory.at_start = resident_bytes();
  PetscCall(timers_.setup());
  PetscCall(set_up_flow(comm, job, &grid_, &solids_, &velocity_, &scalars_, &flow_, &modules_));
  PetscCall(setup_solvers());
  flow_.pressure = projection_->pressure();
  for (const std::unique_ptr<PhysicsModule>& module : modules_) {
    PetscCall(module->connect(flow_));
    if (Vec source = module->divergence_source())
      PetscCall(projection_->set_divergence_source(source));
    module->attach(flow_, plan_);
  }
  PetscCall(writer_.setup(grid_, solids_, job, job.name));
  PetscCall(checkpointer_.setup(grid_, job));
  PetscCall(build_step());
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
  PetscCall(open_log(memory));
  // Last of the set-up that takes time (ParaView's start in open_log): the wall clock between
  // checkpoints starts here.
  schedule_.setup(comm, job, flow_.time, restarted_ ? &resumed : nullptr, in_situ_.get());
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::setup_solvers() {
  PetscFunctionBeginUser;
  const JobConfig& job = *job_;
  if (job.time.scheme == TimeScheme::BDF2) {
    bdf2_ = std::make_unique<Bdf2Advection>();
    PetscCall(bdf2_->setup(grid_, solids_, job.advection.interpolation, scalars_));
  } else {
    // The scalars a module carries itself (a liquid's volume fraction) come last.
    const int advected = static_cast<int>(scalars_.size() - flow_.carried_scalars);
    PetscCall(make_advection(grid_, solids_, job.advection, advected, &advection_));
  }
  PetscCall(make_diffusion(grid_, solids_, job.diffusion, &diffusion_));
  PetscCall(
      make_velocity_diffusion(grid_, solids_, job, diffusion_.get(), &velocity_diffusion_));
  // A liquid's projection is the free-surface one, on its level set (the scalar after the job's
  // own), coupled to the floating bodies; a height field's surface keeps its volume itself.
  PetscCall(make_projection(grid_, solids_, job.pressure, &projection_,
                            job.liquid.enabled ? &flow_.phi() : nullptr, job.liquid.air_pressure,
                            flow_.bodies,
                            job.liquid.surface != LiquidConfig::Surface::HeightField));
  if (job.liquid.enabled && job.liquid.interface == LiquidConfig::Interface::Vof) {
    air_projection_ = std::make_unique<AirBandProjection>();
    PetscCall(air_projection_->setup(grid_, solids_));
    flow_.air_projection = air_projection_.get();
  }
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::open_log(MemoryMarks memory) {
  PetscFunctionBeginUser;
  const JobConfig& job = *job_;
  const MPI_Comm comm = grid_.comm();
  std::vector<std::string> columns;
  for (const std::unique_ptr<PhysicsModule>& module : modules_) module->columns(flow_, &columns);
  if (job.time.steady_tolerance > 0.0) columns.push_back("change_rate");
  // In situ first: it may still refuse the job (a script that renders, on a node without a
  // display: exit status 2), and a refused job must leave no steps CSV behind, which would keep
  // the next run out of the directory as an earlier run's output.
  const double before_in_situ = resident_bytes();
  PetscCall(make_in_situ(grid_, solids_, job, flow_.time, restarted_, &in_situ_));
  if (in_situ_) memory.in_situ = std::max(0.0, resident_bytes() - before_in_situ);
  PetscCall(log_.open(grid_, job.output.directory, job.name,
                      RunSpan{flow_.step, flow_.time, job.time.end, job.output.progress_every},
                      restarted_, columns));
  // The steps CSV stays open all run: a second record lock, and a file that must stay in place.
  lock_.watch(log_.steps_path(), log_.steps_descriptor());
  log_.set_memory_marks(memory);
  // ParaView and its Python may have replaced the handlers while they started: ours again, so
  // that SIGINT and SIGTERM still checkpoint and stop cleanly.
  if (in_situ_) install_signal_handlers();
  // Per step: the velocity is exchanged before the forces, before advection, and twice in the
  // projection (its right-hand side and its divergence check); every scalar once, after the
  // sources and before the forces (advection reads those ghosts too). The second-order step
  // exchanges the scalars twice (before advection and before the forces, which come after it)
  // and the old pressure once for its gradient. The modules add theirs.
  Decomposition decomposition;
  PetscCall(grid_.describe(&decomposition));
  const bool bdf2 = job.time.scheme == TimeScheme::BDF2;
  int cell_exchanges = static_cast<int>(scalars_.size()) * (bdf2 ? 2 : 1) + (bdf2 ? 1 : 0);
  int face_exchanges = 4;
  for (const std::unique_ptr<PhysicsModule>& module : modules_)
    module->exchanges(flow_, &cell_exchanges, &face_exchanges);
  PetscCall(log_.report_decomposition(decomposition, face_exchanges, cell_exchanges));

  const auto procs = grid_.process_grid();
  PetscCall(PetscPrintf(comm,
                        "stablefluids %s: job '%s' (%s), %dD grid %" PetscInt_FMT " x %" PetscInt_FMT
                        " x %" PetscInt_FMT " cells, halo %d, process grid %" PetscInt_FMT
                        " x %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT
                        " solid cells\n",
                        STABLEFLUIDS_VERSION, job.name.c_str(), job.source.c_str(), grid_.dim(),
                        grid_.cells(0), grid_.cells(1), grid_.cells(2), grid_.halo(), procs[0],
                        procs[1], procs[2], solids_.solid_cells()));
  // A level set carried by linear interpolation loses volume fast (24 % of a disc carried once
  // round a box: jobs/README.md, "liquid"). Warned, not refused: a quick look at a liquid, or a
  // study of the interpolation itself, may want it. The default interface, vof, moves its
  // volume in flux form, which the interpolation does not touch, so it is not warned.
  if (job.liquid.enabled && job.liquid.surface == LiquidConfig::Surface::LevelSet &&
      job.liquid.interface == LiquidConfig::Interface::LevelSet &&
      job.advection.interpolation == Interpolation::Linear)
    PetscCall(PetscPrintf(comm,
                          "stablefluids: warning: the liquid's level set (liquid.interface: "
                          "level_set) is advected with linear interpolation, which loses its "
                          "volume quickly; set advection.interpolation: monotone_cubic, or use "
                          "liquid.interface: vof, which keeps the volume\n"));
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

PetscErrorCode Simulation::stable_dt(double* dt, double* max_velocity) const {
  PetscFunctionBeginUser;
  const TimeConfig& time = job_->time;
  // Face values are the velocity components themselves, and the face DM's unused slots hold 0,
  // so the infinity norm is max_c max |u_c|.
  PetscCall(VecNorm(velocity_.global(), NORM_INFINITY, max_velocity));
  if (time.cfl <= 0.0) {
    *dt = time.dt;
  } else {
    *dt = *max_velocity > 0.0 ? time.cfl * grid_.min_spacing() / *max_velocity : time.dt_max;
    // A module's explicit part (an elastic material's waves) may allow less, whatever the
    // flow's speed.
    for (const std::unique_ptr<PhysicsModule>& module : modules_)
      *dt = std::min(*dt, module->stable_dt(flow_));
    *dt = std::clamp(*dt, time.dt_min, time.dt_max);
  }
  PetscFunctionReturn(0);
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
  if (flow_.time + *dt * (1.0 + 1e-6) >= target) {
    *dt = target - flow_.time;
    *lands_on = target;
  } else if (job_->time.scheme == TimeScheme::BDF2 && target - flow_.time < 2.0 * *dt) {
    // Two equal steps onto the output time rather than a full one and a short remainder: the
    // second-order step keeps its accuracy only while each step is less than twice the one
    // before (bdf2_advection.hpp), and the step after a short remainder would not be.
    *dt = 0.5 * (target - flow_.time);
  }
  // Both are decided from reductions and the job, so every rank stops here together.
  PetscCheck(flow_.time + *dt > flow_.time, grid_.comm(), PETSC_ERR_FP,
             "the time step dt = %g no longer advances t = %.17g (max |u| = %g; dt_min is %g): "
             "the run cannot reach time.end. The run stops here; the newest checkpoint is "
             "untouched.",
             *dt, flow_.time, report->max_velocity, job_->time.dt_min);
  PetscCheck(flow_.step < kMaxSteps, grid_.comm(), PETSC_ERR_SUP,
             "the run reached step %" PetscInt_FMT ", the most that checkpoint names hold "
             "(8 digits), before time.end = %g (t = %g); raise time.dt_min or time.cfl",
             flow_.step, end, flow_.time);
  report->cfl = report->max_velocity * *dt / grid_.min_spacing();
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
    PetscCall(writer.write(velocity_, scalars_, projection_->pressure(), flow_.step, flow_.time));
    dump = " The failing state is in " + writer.frame_path(0) + ".";
  }
  // find_bad_value is collective and every rank found the same value: raised on all ranks.
  SETERRQ(grid_.comm(), PETSC_ERR_FP,
          "%s %s %" PetscInt_FMT " (t = %g)%s. The run stops here; the newest checkpoint is "
          "untouched.%s",
          describe(bad, grid_.dim()).c_str(), when, step, flow_.time, why.c_str(), dump.c_str());
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
  while (flow_.time < job_->time.end && !steady) {
    const double step_start = MPI_Wtime();
    StepReport report;
    double dt;
    std::optional<double> lands_on;
    PetscCall(choose_dt(&dt, &lands_on, &report));
    ChangeWatch watch;
    if (steady_tolerance > 0.0) PetscCall(watch.begin(velocity_, scalars_));
    PetscCall(step(dt, &report, lands_on));  // ends exactly on lands_on, if given
    PetscCall(check_state("after step", flow_.step, 0.0));
    for (const std::unique_ptr<PhysicsModule>& module : modules_)
      PetscCall(module->measure(flow_, &report.diagnostics));
    if (steady_tolerance > 0.0) {
      double change = 0.0;
      PetscCall(watch.end(velocity_, scalars_, &change));
      report.diagnostics.push_back(change / dt);
      steady = change / dt <= steady_tolerance;
    }
    report.time = flow_.time;
    report.wall_seconds = MPI_Wtime() - step_start;
    int signal = 0;
    PetscCall(write_what_is_due(&report, &signal));
    PetscCall(log_.record(report));
    if (signal) {
      PetscMPIInt ranks = 1;
      PetscCallMPI(MPI_Comm_size(grid_.comm(), &ranks));
      PetscCall(PetscPrintf(grid_.comm(),
                            "stablefluids: %s received; stopped after step %" PetscInt_FMT
                            " at t = %.9g. Continue with:\n  %s\n",
                            signal_name(signal), flow_.step, flow_.time,
                            continue_this_run(ranks, job_->source).c_str()));
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
                          flow_.time, flow_.step, steady_tolerance));
    // The steady state is the run's result: a frame of it, unless one was just written.
    const std::vector<double>& written = writer_.frame_times();
    if (written.empty() || written.back() != flow_.time) PetscCall(write_frame());
  }
  if (schedule_.final_checkpoint_due(flow_.step)) {
    std::string path;
    PetscCall(write_checkpoint(&path));  // so the run can be continued to a later end time
  }
  PetscCall(finish(start, steady ? "steady" : "end", first_frame));
  // Formatted here, not by PetscPrintf: PETSc appends a '.' to a %g that prints as an integer
  // ("t = 2."), which reads like a typo in the line a user checks first.
  char end_time[32];
  std::snprintf(end_time, sizeof end_time, "%g", flow_.time);
  PetscCall(PetscPrintf(grid_.comm(), "stablefluids: reached t = %s after %" PetscInt_FMT
                                      " steps; %d frames, index %s\n",
                        end_time, flow_.step, writer_.frames_written(), writer_.index_path().c_str()));
  PetscFunctionReturn(0);
}

}  // namespace sf
