// The time loop: dt selection, one step in Stam's order, output on schedule, diagnostics.
#include "simulation.hpp"

#include <algorithm>
#include <cmath>

#include "initial_conditions.hpp"

namespace sf {

PetscErrorCode Simulation::setup(MPI_Comm comm, const JobConfig& job) {
  PetscFunctionBeginUser;
  job_ = &job;
  PetscCall(timers_.setup());
  PetscCall(grid_.setup(comm, job.grid, job.boundary));
  PetscCall(solids_.setup(grid_, job.obstacles));
  PetscCall(velocity_.setup_velocity(grid_));
  PetscCall(set_initial_velocity(job.velocity, velocity_));
  scalars_.resize(job.scalars.size());
  for (size_t s = 0; s < job.scalars.size(); ++s) {
    PetscCall(scalars_[s].setup_scalar(grid_, job.scalars[s].name));
    PetscCall(set_initial_scalar(job.scalars[s], scalars_[s]));
  }
  PetscCall(forces_.setup(grid_, job.forces, solids_, job.scalars));
  PetscCall(make_advection(grid_, solids_, job.advection, static_cast<int>(scalars_.size()),
                           &advection_));
  PetscCall(diffusion_.setup(grid_, solids_, job.diffusion));
  auto projection = std::make_unique<KrylovProjection>();
  PetscCall(projection->setup(grid_, solids_, job.pressure));
  projection_ = std::move(projection);
  PetscCall(writer_.setup(grid_, job.output, job.name));
  PetscCall(log_.open(grid_, job.output.directory, job.name));

  const auto procs = grid_.process_grid();
  PetscCall(PetscPrintf(comm,
                        "stablefluids %s: job '%s' (%s), %dD grid %" PetscInt_FMT " x %" PetscInt_FMT
                        " x %" PetscInt_FMT " cells, halo %d, process grid %" PetscInt_FMT
                        " x %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT
                        " solid cells\n",
                        STABLEFLUIDS_VERSION, job.name.c_str(), job.source.c_str(), grid_.dim(),
                        grid_.cells(0), grid_.cells(1), grid_.cells(2), grid_.halo(), procs[0],
                        procs[1], procs[2], solids_.solid_cells()));
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::fill_all_ghosts() {
  PetscFunctionBeginUser;
  PetscCall(velocity_.fill_ghosts());
  for (Field& scalar : scalars_) PetscCall(scalar.fill_ghosts());
  PetscFunctionReturn(0);
}

// One step, DESIGN.md "Numerics": sources and forces, advection, diffusion, projection,
// dissipation. Each stage reads ghosts that the stage before it may have made stale, so the
// halo is refreshed where a stage needs it.
PetscErrorCode Simulation::step(double dt, StepReport* report) {
  PetscFunctionBeginUser;
  const JobConfig& job = *job_;

  PetscCall(timers_.begin(Stage::Forces));
  for (size_t s = 0; s < scalars_.size(); ++s)
    PetscCall(apply_sources(job.scalars[s], scalars_[s], velocity_, solids_, dt));
  PetscCall(fill_all_ghosts());
  PetscCall(forces_.apply(velocity_, scalars_, dt));
  PetscCall(timers_.end(Stage::Forces));

  PetscCall(timers_.begin(Stage::Advect));
  PetscCall(fill_all_ghosts());
  AdvectionStats advection;
  PetscCall(advection_->advect(velocity_, scalars_, dt, &advection));
  PetscCall(timers_.end(Stage::Advect));

  PetscCall(timers_.begin(Stage::Diffuse));
  PetscInt iterations = 0;
  report->diffusion_iterations = 0;
  PetscCall(diffusion_.diffuse(velocity_, job.fluid.viscosity, dt, &iterations));
  report->diffusion_iterations += iterations;
  for (size_t s = 0; s < scalars_.size(); ++s) {
    PetscCall(diffusion_.diffuse(scalars_[s], job.scalars[s].diffusion, dt, &iterations));
    report->diffusion_iterations += iterations;
  }
  PetscCall(timers_.end(Stage::Diffuse));

  PetscCall(timers_.begin(Stage::Project));
  ProjectionStats projection;
  PetscCall(projection_->project(velocity_, dt, &projection));
  PetscCall(timers_.end(Stage::Project));

  for (size_t s = 0; s < scalars_.size(); ++s)
    PetscCall(dissipate(scalars_[s], job.scalars[s].dissipation, dt));

  time_ += dt;
  ++step_;
  report->step = step_;
  report->dt = dt;
  report->remote_points = advection.remote_points;
  report->pressure_iterations = projection.iterations;
  report->max_divergence = projection.max_divergence;
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
    double h = grid_.spacing(0);
    for (int a = 1; a < grid_.dim(); ++a) h = std::min(h, grid_.spacing(a));
    *dt = *max_velocity > 0.0 ? time.cfl * h / *max_velocity : time.dt_max;
    *dt = std::clamp(*dt, time.dt_min, time.dt_max);
  }
  PetscFunctionReturn(0);
}

double Simulation::next_output_time() const {
  const double interval = job_->output.interval;
  return interval > 0.0 ? static_cast<double>(frame_) * interval : HUGE_VAL;
}

PetscErrorCode Simulation::write_frame() {
  PetscFunctionBeginUser;
  PetscCall(timers_.begin(Stage::Output));
  PetscCall(velocity_.fill_ghosts());
  PetscCall(writer_.write(velocity_, scalars_, projection_->pressure(), step_, time_));
  PetscCall(timers_.end(Stage::Output));
  PetscCall(PetscPrintf(grid_.comm(), "  frame %d at t = %.6g -> %s\n",
                        writer_.frames_written() - 1, time_,
                        writer_.frame_path(writer_.frames_written() - 1).c_str()));
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::run() {
  PetscFunctionBeginUser;
  const double start = MPI_Wtime();
  if (job_->output.initial_frame) PetscCall(write_frame());
  frame_ = 1;
  const double end = job_->time.end;
  double h = grid_.spacing(0);
  for (int a = 1; a < grid_.dim(); ++a) h = std::min(h, grid_.spacing(a));
  while (time_ < end) {
    const double step_start = MPI_Wtime();
    StepReport report;
    double dt;
    PetscCall(stable_dt(&dt, &report.max_velocity));
    // Shorten the step to land exactly on the next output time or the end; a step that would
    // stop just short of it (within a millionth of dt) is stretched onto it instead of leaving
    // a sliver step behind.
    const double target = std::min(next_output_time(), end);
    const bool lands = time_ + dt * (1.0 + 1e-6) >= target;
    if (lands) dt = target - time_;
    report.cfl = report.max_velocity * dt / h;
    PetscCall(step(dt, &report));
    if (lands) time_ = target;  // exactly, despite rounding in time_ + dt
    report.time = time_;
    report.wall_seconds = MPI_Wtime() - step_start;
    PetscCall(log_.record(report));
    if (time_ >= next_output_time()) {
      PetscCall(write_frame());
      ++frame_;
    }
  }
  PetscCall(log_.finish(timers_, step_, MPI_Wtime() - start));
  PetscCall(PetscPrintf(grid_.comm(), "stablefluids: reached t = %g after %" PetscInt_FMT
                                      " steps; %d frames, index %s\n",
                        time_, step_, writer_.frames_written(), writer_.index_path().c_str()));
  PetscFunctionReturn(0);
}

}  // namespace sf
