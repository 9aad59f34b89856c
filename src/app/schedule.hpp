// When the run writes and stops: the timetables of frames, checkpoints and in-situ analysis, and
// the scheduler's signals, asked at every step boundary. Simulation::run steps and then asks
// what is due; the Schedule answers from the job, the simulated time and step, and, for the
// wall clock and signals, from one agreement of all ranks, so every rank gets the same answer
// and acts on it together (no rank is ever left alone in a collective).
//
// Frames fall on the output times k * output.interval (k = 0 is the initial frame); the run
// shortens a step to land on the next one. Checkpoints follow checkpoint.every_steps, every_time
// and every_wall_seconds (rank 0's clock), a signal (signals.hpp), and the end of the run. In-situ
// analysis keeps its per-script timetable (InSitu::due); the schedule asks it. A restarted run
// resumes the timetable of the run that wrote its checkpoint: the same next frame index, and the
// next multiple of every_time after the checkpoint's time.
#pragma once

#include <mpi.h>
#include <petscsys.h>

#include "checkpoint.hpp"
#include "in_situ.hpp"
#include "job.hpp"

namespace sf {

/// Why a checkpoint is written at a step boundary, the first that holds in this order.
enum class CheckpointReason { None, Signal, WallClock, EverySteps, EveryTime, End };

/// The schedule's answer on checkpoints at a step boundary (the same on every rank).
struct CheckpointDue {
  CheckpointReason why = CheckpointReason::None;  // None: no checkpoint is due
  int signal = 0;  // the signal that arrived on some rank, or 0; the run then stops
};

class Schedule {
public:
  /// Starts the timetables at simulated time `time`: from the beginning of the job, or, with
  /// `resumed`, where the checkpoint it was read from left them. The wall clock between
  /// checkpoints counts from this call. Every rank calls it; it communicates nothing.
  void setup(MPI_Comm comm, const JobConfig& job, double time, const RunState* resumed,
             InSitu* in_situ);

  /// The simulated time of the next frame, HUGE_VAL when the job writes frames only at t = 0.
  double next_output_time() const;
  /// Index of the next output time, for the checkpoint (RunState::next_frame).
  PetscInt next_frame() const { return frame_; }

  /// At the start of a fresh run: whether the initial frame is written. Either way the next
  /// output time is then the first interval.
  bool initial_frame_due();
  /// After a step: whether the state at `time` is the next frame; when it is, the frame is
  /// taken off the timetable.
  bool frame_due(double time);
  /// Whether the in-situ analysis runs on this state (false without one). Collective.
  PetscErrorCode in_situ_due(PetscInt step, double time, bool* due);
  /// After a step and its output: whether a checkpoint is due and why, and the signal that
  /// stops the run, agreed by all ranks in one reduction (the signal of any rank counts; rank
  /// 0's clock decides the wall-clock criterion). Asked after the frame, so that a signal or a
  /// deadline that arrives while it is written counts at this boundary. Collective.
  PetscErrorCode checkpoint_due(PetscInt step, double time, CheckpointDue* due);
  /// At the end of the run: a checkpoint, so that the run can be continued to a later end time,
  /// when the job writes checkpoints and the last step has none yet.
  bool final_checkpoint_due(PetscInt step) const;
  /// Records a checkpoint written at `step` and `time`: the next time-based one falls after it
  /// and the wall clock starts again.
  void checkpoint_written(PetscInt step, double time);

private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  double interval_ = 0.0;  // output.interval
  bool initial_frame_ = true;
  CheckpointConfig checkpoints_;
  InSitu* in_situ_ = nullptr;  // not owned; null without in-situ analysis
  PetscInt frame_ = 0;  // index of the next output time, t = frame_ * interval
  double next_checkpoint_time_ = 0.0;  // simulated time of the next time-based checkpoint
  double last_checkpoint_wall_ = 0.0;  // MPI_Wtime of the last checkpoint (rank 0's clock)
  PetscInt last_checkpoint_step_ = -1;
};

}  // namespace sf
