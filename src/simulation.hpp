// The time loop. Simulation owns the grid, the fields, the stages and the output, and advances
// them one step at a time in the order of DESIGN.md "Numerics"; main.cpp only builds it from a
// job and runs it.
#pragma once

#include <memory>
#include <vector>

#include "advect.hpp"
#include "config.hpp"
#include "diffusion.hpp"
#include "field.hpp"
#include "forces.hpp"
#include "grid.hpp"
#include "hdf5_writer.hpp"
#include "obstacles.hpp"
#include "projection.hpp"
#include "run_log.hpp"

namespace sf {

class Simulation {
public:
  /// Builds the grid, fields and stages from `job` and sets the initial state. Collective.
  PetscErrorCode setup(MPI_Comm comm, const JobConfig& job);

  /// Writes the initial frame (if asked), steps to the job's end time writing frames on the way,
  /// prints one progress line per step on rank 0 and the timing table at the end. Collective.
  PetscErrorCode run();

  /// Advances the state by one step of length dt (Stam's four steps plus sources and
  /// dissipation) and fills in what the step did. Collective.
  PetscErrorCode step(double dt, StepReport* report);

  /// The step the job asks for now: fixed, or CFL-adaptive from the current velocity. Collective.
  PetscErrorCode stable_dt(double* dt, double* max_velocity) const;

  double time() const { return time_; }
  PetscInt step_count() const { return step_; }
  const Grid& grid() const { return grid_; }
  Field& velocity() { return velocity_; }
  std::vector<Field>& scalars() { return scalars_; }
  Vec pressure() const { return projection_->pressure(); }

private:
  double next_output_time() const;
  PetscErrorCode fill_all_ghosts();
  PetscErrorCode write_frame();

  const JobConfig* job_ = nullptr;
  Grid grid_;
  SolidMask solids_;
  Field velocity_;
  std::vector<Field> scalars_;
  Forces forces_;
  std::unique_ptr<Advection> advection_;
  Diffusion diffusion_;
  std::unique_ptr<Projection> projection_;
  FrameWriter writer_;
  RunLog log_;
  StageTimers timers_;
  double time_ = 0.0;
  PetscInt step_ = 0;
  PetscInt frame_ = 0;  // index of the next output time, t = frame_ * interval
};

}  // namespace sf
