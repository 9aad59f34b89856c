// The step plan and the registry of physics modules (see module.hpp).
#include "module.hpp"

#include "initial_conditions.hpp"

namespace sf {

const char* stage_name(Stage stage) {
  static const char* names[] = {"forces", "advect",    "diffuse", "project",
                                "surface", "obstacles", "output",  "insitu"};
  return names[static_cast<int>(stage)];
}

const char* anchor_name(Anchor anchor) {
  static const char* names[] = {"step start",       "move obstacles", "obstacles moved",
                                "sources",          "forces",         "after forces",
                                "before advection", "advection ghosts", "after advection",
                                "velocity diffused", "after projection", "end of step"};
  return names[static_cast<int>(anchor)];
}

PetscErrorCode Flow::fill_all_ghosts() const {
  PetscFunctionBeginUser;
  PetscCall(velocity->fill_ghosts());
  for (Field& scalar : *scalars) PetscCall(scalar.fill_ghosts());
  PetscFunctionReturn(0);
}

void StepPlan::attach(Anchor anchor, StepStage stage) {
  stages_[static_cast<int>(anchor)].push_back(std::move(stage));
}

PetscErrorCode StepPlan::run(
    Anchor anchor, double dt,
    const std::function<PetscErrorCode(std::optional<Stage>, bool)>& timed) const {
  PetscFunctionBeginUser;
  for (const StepStage& stage : at(anchor)) {
    PetscCall(timed(stage.clock, true));
    PetscCall(stage.run(dt));
    PetscCall(timed(stage.clock, false));
  }
  PetscFunctionReturn(0);
}

bool StepPlan::stales_scalars(std::initializer_list<Anchor> anchors) const {
  for (Anchor anchor : anchors)
    for (const StepStage& stage : at(anchor))
      if (stage.stales_scalars) return true;
  return false;
}

PetscErrorCode StepPlan::check_scheme(MPI_Comm comm, const char* scheme,
                                      std::initializer_list<Anchor> anchors) const {
  PetscFunctionBeginUser;
  for (int a = 0; a < static_cast<int>(Anchor::Count); ++a) {
    const Anchor anchor = static_cast<Anchor>(a);
    if (stages_[a].empty() ||
        std::find(anchors.begin(), anchors.end(), anchor) != anchors.end())
      continue;
    SETERRQ(comm, PETSC_ERR_SUP,
            "the stage \"%s\" acts at \"%s\", which the %s step does not have: the job combines "
            "features that do not work together",
            stages_[a].front().name, anchor_name(anchor), scheme);
  }
  PetscFunctionReturn(0);
}

// Each module's file defines its factory, which returns null when the job does not name it.
#define SF_MODULE(name) std::unique_ptr<PhysicsModule> make_##name##_module(const JobConfig& job);
#include "modules.def"
#undef SF_MODULE

std::vector<std::unique_ptr<PhysicsModule>> make_modules(const JobConfig& job) {
  std::vector<std::unique_ptr<PhysicsModule>> modules;
#define SF_MODULE(name) \
  if (auto module = make_##name##_module(job)) modules.push_back(std::move(module));
#include "modules.def"
#undef SF_MODULE
  return modules;
}

PetscErrorCode set_up_flow(MPI_Comm comm, const JobConfig& job, Grid* grid, SolidMask* solids,
                           Field* velocity, std::vector<Field>* scalars, Flow* flow,
                           std::vector<std::unique_ptr<PhysicsModule>>* modules) {
  PetscFunctionBeginUser;
  PetscCall(grid->setup(comm, job.grid, job.boundary, job.grid.processes));
  PetscCall(solids->setup(*grid, job.obstacles));
  flow->job = &job;
  flow->grid = grid;
  flow->solids = solids;
  flow->velocity = velocity;
  flow->scalars = scalars;
  *modules = make_modules(job);
  for (const std::unique_ptr<PhysicsModule>& module : *modules) PetscCall(module->place(*flow));
  PetscCall(set_up_initial_fields(job, *grid, *solids, flow->time, velocity, scalars));
  for (const std::unique_ptr<PhysicsModule>& module : *modules) PetscCall(module->setup(*flow));
  PetscFunctionReturn(0);
}

}  // namespace sf
