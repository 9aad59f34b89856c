// Physics modules and the anchors of a step (Basilisk's events, Jet's solver hooks).
//
// A step is a base scheme (Stam's; the liquid's, which advects first; BDF2's) that runs its own
// stages (check, advect, diffuse, project, dissipate) and, between them, named anchors. A
// physics module (fire, the level set and its particles, texture, ...) is built from the job when
// the job names it, and attaches its stages to anchors; within an anchor, stages run in the
// order the modules are registered (modules.def). The base scheme never names a module, and a
// module never edits the scheme: a new physics is a new module file, its job section and one
// line in modules.def (ARCHITECTURE.md, "Where new physics goes", shows the texture module).
//
// Besides its stages a module says what it adds to the run: columns of the steps CSV, records a
// checkpoint or a frame keeps (marker particles, spray, the floating bodies' state), halo
// exchanges for the decomposition report, a source of divergence for the projection, a limit on
// a stable dt.
#pragma once

#include <petscsys.h>
#include <petscvec.h>

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "field.hpp"
#include "grid.hpp"
#include "job.hpp"
#include "particle_records.hpp"
#include "solids.hpp"

namespace sf {

class AirProjection;
class FloatingBodies;
class LevelSet;

/// The timed stages of a step, in the order of docs/design.md, "One step", plus output (frames,
/// checkpoints) and in-situ analysis (Catalyst); every stage of the step runs on one of these
/// clocks or none. Surface: a liquid's surface (reinitialisation, velocity extension, height
/// field, spray). Obstacles: moving obstacles going to their place at the step's end (the mask
/// rebuilt, their faces set, the cells they uncover filled).
enum class Stage { Forces, Advect, Diffuse, Project, Surface, Obstacles, Output, InSitu, Count };
const char* stage_name(Stage stage);

/// The places in a step where modules act, in the order Stam's step meets them. A base scheme
/// lists the anchors it has (StepPlan::scheme); the liquid's step and BDF2's meet some in
/// another order (their files say which).
enum class Anchor {
  StepStart,         // before anything: time-varying inflows, floating bodies' motion
  MoveObstacles,     // obstacles go where they are at the step's end
  ObstaclesMoved,    // after they did (checks of where they are)
  Sources,           // what sets or adds values in regions: scalar and liquid sources
  Forces,            // the forces on the faces (every ghost current on entry)
  AfterForces,       // what the forces' state drives: fire's burn, the elastic strain
  BeforeAdvection,   // in the advection's clock, before it refreshes the ghosts
  AdvectionGhosts,   // in the advection's clock, with the ghosts fresh, before it traces
  AfterAdvection,    // after the advection: values it must not have moved, the surface
  VelocityDiffused,  // between the velocity's diffusion and the scalars'
  AfterProjection,   // the divergence-free velocity: extension, surfaces, particles
  EndOfStep,         // after the scalars' dissipation
  Count
};
const char* anchor_name(Anchor anchor);

/// The state every module reads and changes, owned by the Simulation; set before any module is
/// built and alive as long as they are.
struct Flow {
  const JobConfig* job = nullptr;
  const Grid* grid = nullptr;
  SolidMask* solids = nullptr;
  Field* velocity = nullptr;
  /// The job's scalars in its order, then those modules add (a liquid's level set).
  std::vector<Field>* scalars = nullptr;
  /// How many scalars at the end of `scalars` their module moves itself (a liquid's volume
  /// fraction, in flux form): the base scheme's advection leaves those alone.
  size_t carried_scalars = 0;
  Vec pressure = nullptr;  // the projection's, once it exists
  double time = 0.0;       // at the start of the step being taken
  PetscInt step = 0;       // steps done
  /// During a step: its exact end time, if it lands on one (an output time).
  std::optional<double> lands_on;
  /// What modules publish for the base scheme and for each other.
  FloatingBodies* bodies = nullptr;  // the obstacles that float, with the projection's coupling
  const LevelSet* level_set = nullptr;
  /// The base scheme's projection of the air about a liquid's surface, for the volume-of-fluid
  /// interface (velocity_extension.hpp); null before the solvers exist and without one.
  AirProjection* air_projection = nullptr;
  /// A liquid's volume as its interface measures it, and its value at the start. Collective.
  std::function<PetscErrorCode(double* volume)> liquid_volume;
  /// The liquid in flight as spray, where the spray takes it from the volume fraction (null
  /// otherwise); liquid_volume counts it. Collective.
  std::function<PetscErrorCode(double* volume)> airborne_liquid;
  double initial_liquid_volume = 0.0;

  /// The time the step of length dt ends at: what moving obstacles, inflows and the air's
  /// pressure are evaluated at.
  double step_end(double dt) const { return lands_on ? *lands_on : time + dt; }
  /// A liquid's level set: the scalar after the job's own (with `liquid:`).
  Field& phi() const { return (*scalars)[job->scalars.size()]; }
  /// The vof interface's volume fraction, the scalar after phi; null with another interface.
  Field* liquid_fraction() const {
    const size_t at = job->scalars.size() + 1;  // there once the liquid's module set it up
    return job->liquid.enabled && job->liquid.interface == LiquidConfig::Interface::Vof &&
                   scalars->size() > at
               ? &(*scalars)[at]
               : nullptr;
  }
  /// Refreshes the ghosts of the velocity and every scalar. Collective.
  PetscErrorCode fill_all_ghosts() const;
};

/// What a checkpoint or a frame keeps of the modules besides the fields; the caller says which
/// parts it wants, the modules that own them fill them.
struct ModuleRecords {
  bool want_particles = true;  // frames and checkpoints
  bool want_spray = true;      // checkpoints and in-situ output
  std::optional<ParticleRecords> particles;  // the level set's marker particles
  std::optional<SprayRecords> spray;         // spray and foam
  std::vector<double> bodies;                // the floating bodies' state
  std::vector<double> volume_control;        // a liquid's volume controller's state
};

/// One stage of a step: its name (for messages and docs/design.md's list), the clock it runs on
/// (none for the cheap ones) and what it does over dt.
struct StepStage {
  const char* name = "";
  std::optional<Stage> clock;
  std::function<PetscErrorCode(double dt)> run;
  /// It changes scalars after the forces refreshed their ghosts and leaves them stale: Stam's
  /// advection then refreshes every field's ghosts, not only the velocity's.
  bool stales_scalars = false;
};

/// The stages the modules attached, by anchor, in registration order.
class StepPlan {
public:
  void attach(Anchor anchor, StepStage stage);
  const std::vector<StepStage>& at(Anchor anchor) const {
    return stages_[static_cast<int>(anchor)];
  }
  /// Runs the stages at `anchor` over dt, each on its clock (`timed` starts and stops one).
  PetscErrorCode run(Anchor anchor, double dt,
                     const std::function<PetscErrorCode(std::optional<Stage>, bool)>& timed)
      const;
  /// Whether a stage at any of `anchors` leaves the scalars' ghosts stale.
  bool stales_scalars(std::initializer_list<Anchor> anchors) const;
  /// Fails, naming the stage and the anchor, if a module attached to an anchor that the base
  /// scheme `scheme` (its name) does not have: the job combines features the compatibility table
  /// should have refused. Collective (every rank holds the same plan).
  PetscErrorCode check_scheme(MPI_Comm comm, const char* scheme,
                              std::initializer_list<Anchor> anchors) const;

private:
  std::vector<StepStage> stages_[static_cast<int>(Anchor::Count)];
};

/// A physics module. Every hook has a default that does nothing; a module overrides those it
/// needs. The Simulation calls them in registration order, on every rank (collective unless
/// said otherwise).
class PhysicsModule {
public:
  virtual ~PhysicsModule() = default;
  virtual const char* name() const = 0;

  /// Before the fields exist: geometry the initial state depends on (floating bodies placed).
  virtual PetscErrorCode place(Flow&) { return 0; }
  /// With the velocity and the job's scalars at their initial values: the module's own state;
  /// it may add cell fields to flow.scalars (a liquid's level set) and publish in `flow`.
  virtual PetscErrorCode setup(Flow&) { return 0; }
  /// After every module's setup and the base scheme's solvers: what reads other modules.
  virtual PetscErrorCode connect(Flow&) { return 0; }
  /// Its stages, at their anchors.
  virtual void attach(Flow&, StepPlan&) {}

  /// Columns it adds to the steps CSV, and their values after a step (appended in order).
  virtual void columns(const Flow&, std::vector<std::string>*) const {}
  virtual PetscErrorCode measure(const Flow&, std::vector<double>*) { return 0; }
  /// Halo exchanges it adds per step, for the decomposition report.
  virtual void exchanges(const Flow&, int* /*cell*/, int* /*face*/) const {}
  /// The largest dt its explicit parts allow (a CFL-adaptive run takes the least of them).
  virtual double stable_dt(const Flow&) const { return std::numeric_limits<double>::infinity(); }
  /// A cell vector of divergence the projection must make (fire's expansion), or null.
  virtual Vec divergence_source() const { return nullptr; }

  /// Fills the parts of `records` it owns and the caller wants.
  virtual PetscErrorCode save(ModuleRecords*) { return 0; }
  /// Says which parts a checkpoint must hold for it (sets them to empty records).
  virtual void expect(ModuleRecords*) const {}
  /// Takes its state back from a checkpoint's records, then, once every module did,
  /// `resumed` sets what follows from the restart's time.
  virtual PetscErrorCode restore(Flow&, const ModuleRecords&) { return 0; }
  virtual PetscErrorCode resumed(Flow&) { return 0; }
};

/// A part of a module that tests and tools reach by its type (Simulation::part<T>()): a module
/// that holds a T and derives from Exposes<T> hands it out.
template <typename T>
class Exposes {
public:
  virtual ~Exposes() = default;
  virtual T& exposed() = 0;
};

/// The part of type T that one of `modules` exposes (Exposes<T>), or null when none does.
template <typename T>
T* exposed_part(const std::vector<std::unique_ptr<PhysicsModule>>& modules) {
  for (const std::unique_ptr<PhysicsModule>& module : modules)
    if (auto* exposes = dynamic_cast<Exposes<T>*>(module.get())) return &exposes->exposed();
  return nullptr;
}

/// The modules the job names, in registration order (modules.def). Local.
std::vector<std::unique_ptr<PhysicsModule>> make_modules(const JobConfig& job);

/// The run's state up to its solvers, as the Simulation (and the tests' module bench) build it:
/// the grid and the solids of `job`, `flow` wired to them and to `velocity` and `scalars`, the
/// job's modules built and placed, the fields at their initial values (at flow->time), then each
/// module set up. Connecting and attaching the modules is the caller's, after its solvers.
/// Collective.
PetscErrorCode set_up_flow(MPI_Comm comm, const JobConfig& job, Grid* grid, SolidMask* solids,
                           Field* velocity, std::vector<Field>* scalars, Flow* flow,
                           std::vector<std::unique_ptr<PhysicsModule>>* modules);

}  // namespace sf
