// The time loop. Simulation owns the grid, the fields and the output, and advances them one step
// at a time in the order of DESIGN.md "Numerics"; main.cpp only builds it from a job and runs it.
#pragma once

#include <vector>

#include "config.hpp"
#include "field.hpp"
#include "grid.hpp"
#include "hdf5_writer.hpp"

namespace sf {

class Simulation {
public:
  /// Builds the grid and fields from `job` and sets the initial state. Collective.
  PetscErrorCode setup(MPI_Comm comm, const JobConfig& job);

  /// Writes the initial frame (if asked), steps to the job's end time writing frames on the way,
  /// and prints one progress line per step on rank 0. Collective.
  PetscErrorCode run();

  /// Advances the state by one time step of length `dt`. Collective.
  PetscErrorCode step(double dt);

  double time() const { return time_; }
  PetscInt step_count() const { return step_; }
  const Grid& grid() const { return grid_; }
  Field& velocity() { return velocity_; }
  std::vector<Field>& scalars() { return scalars_; }

private:
  /// The next step's length: the job's dt, shortened to land exactly on the next output time
  /// and on the end time (`lands`: the step ends on `target`, which time_ is then set to).
  struct StepPlan {
    double dt;
    double target;
    bool lands;
  };
  StepPlan plan_step() const;
  double next_output_time() const;
  PetscErrorCode write_frame();

  const JobConfig* job_ = nullptr;
  Grid grid_;
  Field velocity_;
  std::vector<Field> scalars_;
  FrameWriter writer_;
  double time_ = 0.0;
  PetscInt step_ = 0;
  PetscInt frame_ = 0;  // index of the next output time, t = frame_ * interval
};

}  // namespace sf
