// The time loop: dt selection, the step, output on schedule, progress lines.
#include "simulation.hpp"

#include <algorithm>
#include <cmath>

#include "initial_conditions.hpp"

namespace sf {

PetscErrorCode Simulation::setup(MPI_Comm comm, const JobConfig& job) {
  PetscFunctionBeginUser;
  job_ = &job;
  PetscCall(grid_.setup(comm, job.grid, job.boundary));
  PetscCall(velocity_.setup_velocity(grid_));
  PetscCall(set_initial_velocity(job.velocity, velocity_));
  scalars_.resize(job.scalars.size());
  for (size_t s = 0; s < job.scalars.size(); ++s) {
    PetscCall(scalars_[s].setup_scalar(grid_, job.scalars[s].name));
    PetscCall(set_initial_scalar(job.scalars[s], scalars_[s]));
  }
  PetscCall(writer_.setup(grid_, job.output, job.name));

  const auto procs = grid_.process_grid();
  PetscCall(PetscPrintf(comm,
                        "stablefluids: job '%s' (%s), %dD grid %" PetscInt_FMT " x %" PetscInt_FMT
                        " x %" PetscInt_FMT " cells, halo %d, process grid %" PetscInt_FMT
                        " x %" PetscInt_FMT " x %" PetscInt_FMT "\n",
                        job.name.c_str(), job.source.c_str(), grid_.dim(), grid_.cells(0),
                        grid_.cells(1), grid_.cells(2), grid_.halo(), procs[0], procs[1],
                        procs[2]));
  PetscFunctionReturn(0);
}

double Simulation::next_output_time() const {
  const double interval = job_->output.interval;
  return interval > 0.0 ? static_cast<double>(frame_) * interval : HUGE_VAL;
}

Simulation::StepPlan Simulation::plan_step() const {
  const double target = std::min(next_output_time(), job_->time.end);
  const double dt = job_->time.dt;
  // A step that would stop just short of the target (within a millionth of dt) is stretched
  // onto it rather than leaving a sliver step behind.
  if (time_ + dt * (1.0 + 1e-6) >= target) return {target - time_, target, true};
  return {dt, time_ + dt, false};
}

PetscErrorCode Simulation::write_frame() {
  PetscFunctionBeginUser;
  PetscCall(velocity_.fill_ghosts());
  PetscCall(writer_.write(velocity_, scalars_, step_, time_));
  PetscCall(PetscPrintf(grid_.comm(), "  frame %d at t = %.6g -> %s\n",
                        writer_.frames_written() - 1, time_,
                        writer_.frame_path(writer_.frames_written() - 1).c_str()));
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::step(double dt) {
  PetscFunctionBeginUser;
  // Every stage reads ghost values, so the halo is refreshed before the step's work; the
  // numerical stages of DESIGN.md "Numerics" slot in after it.
  PetscCall(velocity_.fill_ghosts());
  for (Field& scalar : scalars_) PetscCall(scalar.fill_ghosts());
  time_ += dt;
  ++step_;
  PetscFunctionReturn(0);
}

PetscErrorCode Simulation::run() {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid_.comm();
  if (job_->output.initial_frame) PetscCall(write_frame());
  frame_ = 1;
  const double end = job_->time.end;
  while (time_ < end) {
    const StepPlan plan = plan_step();
    const double start = MPI_Wtime();
    PetscCall(step(plan.dt));
    // Land exactly on output and end times despite rounding in time_ + dt.
    if (plan.lands) time_ = plan.target;
    PetscCall(PetscPrintf(comm, "step %6" PetscInt_FMT "  t = %-12.6g dt = %-12.6g wall %.3f s\n",
                          step_, time_, plan.dt, MPI_Wtime() - start));
    if (time_ >= next_output_time()) {
      PetscCall(write_frame());
      ++frame_;
    }
  }
  PetscCall(PetscPrintf(comm, "stablefluids: reached t = %g after %" PetscInt_FMT
                              " steps; %d frames, index %s\n",
                        time_, step_, writer_.frames_written(), writer_.index_path().c_str()));
  PetscFunctionReturn(0);
}

}  // namespace sf
