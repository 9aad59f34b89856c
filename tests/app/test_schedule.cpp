// The Schedule (src/app/schedule.hpp): which frames, checkpoints and signals are due at a step
// boundary. Exact answers from the job's settings; at several ranks, the answer of a collective
// question is the same on every rank even when only one rank has the reason for it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <csignal>

#include "schedule.hpp"
#include "signals.hpp"

namespace {

using sf::CheckpointDue;
using sf::CheckpointReason;

sf::JobConfig job_with_output(double interval, bool initial_frame = true) {
  sf::JobConfig job;
  job.output.interval = interval;
  job.output.initial_frame = initial_frame;
  return job;
}

CheckpointReason reason_at(sf::Schedule& schedule, PetscInt step, double time) {
  CheckpointDue due;
  EXPECT_EQ(schedule.checkpoint_due(step, time, &due), 0);
  EXPECT_EQ(due.signal, 0);
  return due.why;
}

TEST(Schedule, FramesFallOnMultiplesOfTheInterval) {
  sf::Schedule schedule;
  schedule.setup(MPI_COMM_WORLD, job_with_output(0.1), 0.0, nullptr, nullptr);
  EXPECT_TRUE(schedule.initial_frame_due());
  EXPECT_EQ(schedule.next_output_time(), 0.1);
  EXPECT_FALSE(schedule.frame_due(0.05));
  EXPECT_TRUE(schedule.frame_due(0.1));
  EXPECT_EQ(schedule.next_frame(), 2);
  for (int k = 2; k <= 5; ++k) EXPECT_TRUE(schedule.frame_due(k * 0.1));
  // 6 * 0.1 is 0.6000000000000001: the step that lands on 0.6 still reaches it.
  ASSERT_GT(schedule.next_output_time(), 0.6);
  EXPECT_TRUE(schedule.frame_due(0.6));
  // ... but not a time short of the next output time by more than a billionth of the interval.
  EXPECT_FALSE(schedule.frame_due(0.7 - 1e-8));
  EXPECT_TRUE(schedule.frame_due(0.7 - 1e-11));
}

TEST(Schedule, WithoutAnInitialFrameOrAnIntervalNothingIsDue) {
  sf::Schedule schedule;
  schedule.setup(MPI_COMM_WORLD, job_with_output(0.25, false), 0.0, nullptr, nullptr);
  EXPECT_FALSE(schedule.initial_frame_due());
  EXPECT_EQ(schedule.next_output_time(), 0.25);

  schedule.setup(MPI_COMM_WORLD, job_with_output(0.0), 0.0, nullptr, nullptr);
  EXPECT_TRUE(schedule.initial_frame_due());
  EXPECT_EQ(schedule.next_output_time(), HUGE_VAL);
  EXPECT_FALSE(schedule.frame_due(1e300));
}

TEST(Schedule, ARestartContinuesTheTimetableOfTheRunThatWroteIt) {
  sf::RunState resumed;
  resumed.time = 0.7;
  resumed.next_frame = 8;
  resumed.output_interval = 0.1;
  sf::Schedule schedule;
  schedule.setup(MPI_COMM_WORLD, job_with_output(0.1), resumed.time, &resumed, nullptr);
  EXPECT_EQ(schedule.next_frame(), 8);

  // A new interval counts output times afresh: the first multiple after the restart time...
  schedule.setup(MPI_COMM_WORLD, job_with_output(0.25), 0.7, &resumed, nullptr);
  EXPECT_EQ(schedule.next_frame(), 3);
  EXPECT_EQ(schedule.next_output_time(), 0.75);
  // ... strictly after it: the frame at the restart time was written by the first run.
  schedule.setup(MPI_COMM_WORLD, job_with_output(0.25), 0.75, &resumed, nullptr);
  EXPECT_EQ(schedule.next_frame(), 4);
}

TEST(Schedule, CheckpointsFollowStepsAndTimeAndTheEndOfTheRun) {
  sf::JobConfig job = job_with_output(0.1);
  sf::Schedule schedule;
  schedule.setup(MPI_COMM_WORLD, job, 0.0, nullptr, nullptr);
  EXPECT_EQ(reason_at(schedule, 3, 0.3), CheckpointReason::None);
  EXPECT_FALSE(schedule.final_checkpoint_due(3));  // the job writes no checkpoints

  job.checkpoint.every_steps = 3;
  job.checkpoint.every_time = 0.5;
  schedule.setup(MPI_COMM_WORLD, job, 0.0, nullptr, nullptr);
  EXPECT_EQ(reason_at(schedule, 2, 0.2), CheckpointReason::None);
  EXPECT_EQ(reason_at(schedule, 3, 0.3), CheckpointReason::EverySteps);
  EXPECT_EQ(reason_at(schedule, 4, 0.5), CheckpointReason::EveryTime);
  schedule.checkpoint_written(4, 0.5);
  EXPECT_EQ(reason_at(schedule, 5, 0.9), CheckpointReason::None);
  EXPECT_EQ(reason_at(schedule, 7, 1.0), CheckpointReason::EveryTime);
  EXPECT_FALSE(schedule.final_checkpoint_due(4));  // the last step has its checkpoint
  EXPECT_TRUE(schedule.final_checkpoint_due(7));

  // A restart at t = 1.2 takes the next multiple of every_time after it.
  schedule.setup(MPI_COMM_WORLD, job, 1.2, nullptr, nullptr);
  EXPECT_EQ(reason_at(schedule, 13, 1.4), CheckpointReason::None);
  EXPECT_EQ(reason_at(schedule, 14, 1.5), CheckpointReason::EveryTime);
}

// Last in this file: the signal stays recorded for the rest of the process.
TEST(Schedule, ASignalOnOneRankStopsEveryRankAtTheSameBoundary) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sf::JobConfig job = job_with_output(0.1);
  job.checkpoint.every_steps = 1000;
  sf::Schedule schedule;
  schedule.setup(MPI_COMM_WORLD, job, 0.0, nullptr, nullptr);
  sf::install_signal_handlers();
  if (rank == size - 1) {
    ASSERT_EQ(std::raise(SIGUSR1), 0);
  }
  CheckpointDue due;
  ASSERT_EQ(schedule.checkpoint_due(5, 0.5, &due), 0);
  EXPECT_EQ(due.why, CheckpointReason::Signal);
  EXPECT_EQ(due.signal, SIGUSR1);
}

}  // namespace
