// The timetables of frames, checkpoints and in-situ analysis, and the signals, at step
// boundaries (schedule.hpp).
#include "schedule.hpp"

#include <cmath>

#include "signals.hpp"

namespace sf {

namespace {

/// The first multiple of `every` after `time`, HUGE_VAL when `every` is not positive.
double next_multiple(double time, double every) {
  return every > 0.0 ? (std::floor(time / every) + 1.0) * every : HUGE_VAL;
}

}  // namespace

void Schedule::setup(MPI_Comm comm, const JobConfig& job, double time, const RunState* resumed,
                     InSitu* in_situ) {
  comm_ = comm;
  interval_ = job.output.interval;
  initial_frame_ = job.output.initial_frame;
  checkpoints_ = job.checkpoint;
  in_situ_ = in_situ;
  frame_ = 0;
  if (resumed) {
    frame_ = resumed->next_frame;
    // A new output interval (allowed on restart) counts output times afresh from now.
    if (interval_ != resumed->output_interval && interval_ > 0.0) {
      frame_ = static_cast<PetscInt>(std::floor(time / interval_));
      while (static_cast<double>(frame_) * interval_ <= time) ++frame_;
    }
  }
  next_checkpoint_time_ = next_multiple(time, checkpoints_.every_time);
  last_checkpoint_wall_ = MPI_Wtime();
  last_checkpoint_step_ = -1;
}

double Schedule::next_output_time() const {
  return interval_ > 0.0 ? static_cast<double>(frame_) * interval_ : HUGE_VAL;
}

bool Schedule::initial_frame_due() {
  frame_ = 1;
  return initial_frame_;
}

bool Schedule::frame_due(double time) {
  // k * interval is computed, not accumulated, but still rounds (6 * 0.1 > 0.6): an output
  // time within a billionth of the interval counts as reached.
  if (time < next_output_time() - 1e-9 * interval_) return false;
  ++frame_;
  return true;
}

PetscErrorCode Schedule::in_situ_due(PetscInt step, double time, bool* due) {
  PetscFunctionBeginUser;
  *due = false;
  if (in_situ_) PetscCall(in_situ_->due(step, time, due));
  PetscFunctionReturn(0);
}

PetscErrorCode Schedule::checkpoint_due(PetscInt step, double time, CheckpointDue* due) {
  PetscFunctionBeginUser;
  // Rank 0's clock decides the wall-clock criterion, and the signal of any rank counts: one
  // reduction gives every rank the same answer.
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm_, &rank));
  const bool wall = rank == 0 && checkpoints_.every_wall_seconds > 0.0 &&
                    MPI_Wtime() - last_checkpoint_wall_ >= checkpoints_.every_wall_seconds;
  int local[2] = {pending_signal(), wall ? 1 : 0}, global[2] = {0, 0};
  PetscCallMPI(MPI_Allreduce(local, global, 2, MPI_INT, MPI_MAX, comm_));
  due->signal = global[0];
  // Each criterion below holds only when the job sets it (every_time unset leaves the next
  // checkpoint time at HUGE_VAL), so a job without checkpoints writes one only on a signal.
  if (global[0] != 0)
    due->why = CheckpointReason::Signal;
  else if (global[1] != 0)
    due->why = CheckpointReason::WallClock;
  else if (checkpoints_.every_steps > 0 && step % checkpoints_.every_steps == 0)
    due->why = CheckpointReason::EverySteps;
  else if (time >= next_checkpoint_time_)
    due->why = CheckpointReason::EveryTime;
  else
    due->why = CheckpointReason::None;
  PetscFunctionReturn(0);
}

bool Schedule::final_checkpoint_due(PetscInt step) const {
  const bool checkpointing = checkpoints_.every_steps > 0 || checkpoints_.every_time > 0.0 ||
                             checkpoints_.every_wall_seconds > 0.0;
  return checkpointing && last_checkpoint_step_ != step;
}

void Schedule::checkpoint_written(PetscInt step, double time) {
  if (checkpoints_.every_time > 0.0)
    next_checkpoint_time_ = next_multiple(time, checkpoints_.every_time);
  last_checkpoint_wall_ = MPI_Wtime();
  last_checkpoint_step_ = step;
}

}  // namespace sf
