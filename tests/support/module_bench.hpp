// A bench for physics modules: the job's modules on a grid, without a Simulation, so that a
// module's tests link the physics layer and no solver, writer or run loop.
//
// The bench sets up what Simulation::setup does before the base scheme's solvers, through the
// same set_up_flow (module.hpp): the grid, the solids, the velocity and the job's scalars at
// their initial values, and the modules the job names (place, setup), then connects and attaches
// them in registration order. A test then runs the stages at
// the anchors it wants, and the base scheme's advection (a physics-layer part) where a module's
// state must be carried by the flow. Diffusion and the projection are the solvers' and are not
// here: a property that needs them is a whole step's, tested in tests/app.
#pragma once

#include <petscsys.h>

#include <initializer_list>
#include <memory>
#include <vector>

#include "advection.hpp"
#include "module.hpp"

namespace sf::test {

class ModuleBench {
public:
  ModuleBench() = default;
  ModuleBench(const ModuleBench&) = delete;
  ModuleBench& operator=(const ModuleBench&) = delete;

  /// The grid, solids, fields and modules of `job` (which must outlive the bench). Collective.
  PetscErrorCode setup(MPI_Comm comm, const JobConfig& job) {
    PetscFunctionBeginUser;
    PetscCall(set_up_flow(comm, job, &grid_, &solids_, &velocity_, &scalars_, &flow_, &modules_));
    for (const std::unique_ptr<PhysicsModule>& module : modules_) {
      PetscCall(module->connect(flow_));
      module->attach(flow_, plan_);
    }
    PetscFunctionReturn(0);
  }

  /// The modules' stages at each of `anchors` in turn, over dt. Collective.
  PetscErrorCode run(std::initializer_list<Anchor> anchors, double dt) {
    PetscFunctionBeginUser;
    const auto untimed = [](std::optional<Stage>, bool) -> PetscErrorCode { return 0; };
    for (Anchor anchor : anchors) PetscCall(plan_.run(anchor, dt, untimed));
    PetscFunctionReturn(0);
  }

  /// The base scheme's advection of the velocity and every scalar over dt (the job's method)
  /// between its anchors, as Stam's and the liquid's step run it: before advection, every ghost
  /// refreshed, advection ghosts, the trace, after advection. Collective.
  PetscErrorCode advect(double dt) {
    PetscFunctionBeginUser;
    if (!advection_)
      PetscCall(make_advection(grid_, solids_, flow_.job->advection,
                               static_cast<int>(scalars_.size() - flow_.carried_scalars),
                               &advection_));
    PetscCall(run({Anchor::BeforeAdvection}, dt));
    PetscCall(flow_.fill_all_ghosts());
    PetscCall(run({Anchor::AdvectionGhosts}, dt));
    AdvectionStats stats;
    PetscCall(advection_->advect(velocity_, scalars_, dt, &stats));
    PetscCall(run({Anchor::AfterAdvection}, dt));
    PetscFunctionReturn(0);
  }

  /// The sources and forces between their anchors, with every ghost refreshed before the forces,
  /// as the base schemes run them. Collective.
  PetscErrorCode force(double dt) {
    PetscFunctionBeginUser;
    PetscCall(run({Anchor::Sources}, dt));
    PetscCall(flow_.fill_all_ghosts());
    PetscCall(run({Anchor::Forces, Anchor::AfterForces}, dt));
    PetscFunctionReturn(0);
  }

  /// A step of Stam's scheme, or the liquid's (which advects first) when the job has a liquid,
  /// without the solvers' stages: no diffusion and no projection, so the step is exact only for
  /// a flow that those leave as it is (a uniform flow in a periodic box, a fluid at rest, no
  /// viscosity), or for a module whose stages do not read the velocity. The scalars' dissipation
  /// is left out with them. Collective.
  PetscErrorCode step_without_solvers(double dt) {
    PetscFunctionBeginUser;
    PetscCall(run({Anchor::StepStart, Anchor::MoveObstacles, Anchor::ObstaclesMoved}, dt));
    if (flow_.job->liquid.enabled) {
      PetscCall(advect(dt));
      PetscCall(force(dt));
    } else {
      PetscCall(force(dt));
      PetscCall(advect(dt));
    }
    PetscCall(run({Anchor::VelocityDiffused, Anchor::AfterProjection, Anchor::EndOfStep}, dt));
    finish_step(dt);
    PetscFunctionReturn(0);
  }

  /// Ends a step of dt: the time and the step count move on, as the Simulation's do.
  void finish_step(double dt) {
    flow_.time += dt;
    ++flow_.step;
  }

  /// The part of type T of a module of the job (module.hpp, Exposes), or null.
  template <typename T>
  T* part() const {
    return exposed_part<T>(modules_);
  }

  const Grid& grid() const { return grid_; }
  SolidMask& solids() { return solids_; }
  Field& velocity() { return velocity_; }
  std::vector<Field>& scalars() { return scalars_; }
  Flow& flow() { return flow_; }
  const StepPlan& plan() const { return plan_; }

private:
  Grid grid_;
  SolidMask solids_;
  Field velocity_;
  std::vector<Field> scalars_;
  Flow flow_;
  std::vector<std::unique_ptr<PhysicsModule>> modules_;
  StepPlan plan_;
  std::unique_ptr<Advection> advection_;
};

}  // namespace sf::test
