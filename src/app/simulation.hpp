// The time loop. Simulation owns the grid, the fields, the stages and the output, and advances
// them one step at a time in the order of docs/design.md, "One step"; main.cpp only builds it
// from a job and runs it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "advection.hpp"
#include "air_band_projection.hpp"
#include "bdf2_advection.hpp"
#include "checkpoint.hpp"
#include "diffusion.hpp"
#include "field.hpp"
#include "frame_writer.hpp"
#include "grid.hpp"
#include "in_situ.hpp"
#include "job.hpp"
#include "module.hpp"
#include "projection.hpp"
#include "run_lock.hpp"
#include "run_log.hpp"
#include "schedule.hpp"
#include "solids.hpp"
#include "stage_timers.hpp"
#include "velocity_diffusion.hpp"

namespace sf {

class Simulation {
public:
  Simulation() = default;
  // The step's stages hold `this` and the modules hold `flow_`: a Simulation stays where it was
  // built.
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Builds the grid, fields, modules and stages from `job` and sets the initial state, or, with
  /// a `restart` path (or "latest"), the state of that checkpoint. Collective.
  PetscErrorCode setup(MPI_Comm comm, const JobConfig& job, const std::string& restart = "");

  /// Writes the initial frame (if asked and not restarting), steps to the job's end time (or,
  /// with time.steady, until the flow is steady, then writes its frame) writing frames,
  /// checkpoints and in-situ output when the schedule says they are due, prints one
  /// progress line per step on rank 0 and the timing table at the end. A scheduler signal stops
  /// it at the next step boundary with a checkpoint (*interrupted becomes the signal).
  /// Collective.
  PetscErrorCode run(int* interrupted = nullptr);

  /// Writes a checkpoint of the current state. Collective.
  PetscErrorCode write_checkpoint(std::string* path);

  /// Advances the state by one step of length dt (the base scheme's stages and the modules' at
  /// its anchors) and fills in what the step did. `lands_on`, if given, is the time the step
  /// ends at exactly (an output time choose_dt() shortened it to), which time + dt may miss by
  /// rounding. Collective.
  PetscErrorCode step(double dt, StepReport* report, std::optional<double> lands_on = {});

  /// The step the job asks for now: fixed, or CFL-adaptive from the current velocity. Collective.
  PetscErrorCode stable_dt(double* dt, double* max_velocity) const;

  double time() const { return flow_.time; }
  /// The time the step being taken ends at: what moving obstacles, varying inflows and the
  /// air's pressure are evaluated at.
  double step_end(double dt) const { return flow_.step_end(dt); }
  PetscInt step_count() const { return flow_.step; }
  const Grid& grid() const { return grid_; }
  const SolidMask& solids() const { return solids_; }
  Field& velocity() { return velocity_; }
  std::vector<Field>& scalars() { return scalars_; }
  Vec pressure() const { return projection_->pressure(); }
  /// The part of type T of a module of the run (module.hpp, Exposes), or null when the job has
  /// no such module: tests drive a module's parts on their own.
  template <typename T>
  T* part() const {
    return exposed_part<T>(modules_);
  }

private:
  /// Reads the checkpoint `restart` names (a path or "latest") into the fields, the time and the
  /// step, and says so; `state` keeps the rest, from which the schedule resumes. Collective.
  PetscErrorCode resume(const std::string& restart, RunState* state);
  /// Sets up the base scheme's solvers: advection, diffusion, the projection. Collective.
  PetscErrorCode setup_solvers();
  /// The steps CSV, the decomposition report and the start-up lines. Collective.
  PetscErrorCode open_log(MemoryMarks memory);

  /// One stage of the base scheme: its name, the clock it runs on (none for the cheap ones and
  /// for an anchor, whose modules' stages run on their own clocks) and what it does over dt.
  struct SchemeStage {
    const char* name;
    std::optional<Stage> clock;
    std::function<PetscErrorCode(double dt, StepReport* report)> run;
  };
  /// Builds the step (schemes.cpp): the job's base scheme with the modules' stages at its
  /// anchors. Collective (a module at an anchor the scheme lacks stops the run).
  PetscErrorCode build_step();
  /// The dt of the next step: stable_dt, made to land exactly on the schedule's next output
  /// time or the end when it reaches them (*lands_on is then that time), and the
  /// step's max |u| and CFL number in `report`. Stops the run when dt no longer advances the
  /// time or the step count runs out. Collective.
  PetscErrorCode choose_dt(double* dt, std::optional<double>* lands_on, StepReport* report);
  /// What the modules keep besides the fields (module.hpp), those parts the caller wants.
  PetscErrorCode module_records(ModuleRecords* records);
  PetscErrorCode write_frame();
  /// Hands the state to the in-situ analysis if the schedule says it is due now; `seconds` is
  /// the time it took (0 when nothing was due). Collective.
  PetscErrorCode run_in_situ(double* seconds);
  /// After a step: first the output lock's check (OutputLock::check: the run stops if its lock
  /// file or steps CSV was removed or replaced), then the in-situ analysis, the frame and the
  /// checkpoint the schedule says are due,
  /// each asked just before it is done (so a deadline or a signal during the frame counts at
  /// this boundary); their times go into `report`, and *signal is the signal that stops the run,
  /// or 0. Collective.
  PetscErrorCode write_what_is_due(StepReport* report, int* signal);
  /// Ends the run: the in-situ pipelines, the run log (`reason`: "end" or the signal) and the
  /// timing table, for a run that started at MPI_Wtime `start`; then fails the run if a file it
  /// wrote (frames from `first_frame` on, none when it is negative, the index, the logs) or its
  /// lock is gone. Collective.
  PetscErrorCode finish(double start, const char* reason, int first_frame);
  /// Stops the run with a message naming the field, the cell and when ("<when> <step>") if any
  /// value of the velocity, a scalar or the pressure is NaN or Inf, or, with dt > 0, a velocity
  /// would carry a departure point more than kMaxDepartureDomains domain lengths in a step of
  /// dt; writes the failing state to a debug file first if the job asks for it. Collective.
  PetscErrorCode check_state(const char* when, PetscInt step, double dt);

  /// A velocity that moves a departure point further than this many domain lengths in one step
  /// has blown up (see check_state).
  static constexpr double kMaxDepartureDomains = 1e6;

  const JobConfig* job_ = nullptr;
  // First, so it is released last: the run owns its output directories until everything in
  // them is written.
  OutputLock lock_;
  Grid grid_;
  SolidMask solids_;
  Field velocity_;
  // The job's scalars in its order, then those modules add (a liquid's level set), which the
  // advection carries, frames show and checkpoints keep with them.
  std::vector<Field> scalars_;
  // What the modules share: the fields above, the time and step, what modules publish.
  Flow flow_;
  std::vector<std::unique_ptr<PhysicsModule>> modules_;  // the job's, in modules.def's order
  StepPlan plan_;                                        // their stages, by anchor
  std::unique_ptr<Advection> advection_;  // time.scheme: stam
  std::unique_ptr<Bdf2Advection> bdf2_;   // time.scheme: bdf2
  double implicit_dt_ = 0.0;              // bdf2: the step of the stages after advection
  std::unique_ptr<Diffusion> diffusion_;                   // the scalars' (and a constant nu's)
  std::unique_ptr<VelocityDiffusion> velocity_diffusion_;  // the velocity's viscous step
  std::unique_ptr<Projection> projection_;
  std::unique_ptr<AirBandProjection> air_projection_;  // the vof interface's air about its surface
  FrameWriter writer_;
  Checkpointer checkpointer_;
  RunLog log_;
  StageTimers timers_;
  std::vector<SchemeStage> stages_;  // the step, in order (build_step)
  bool restarted_ = false;
  Schedule schedule_;  // when frames, checkpoints and in-situ output are due; signals
  // Last: ParaView lets go of the fields and the communicator before anything else goes.
  std::unique_ptr<InSitu> in_situ_;
};

}  // namespace sf
