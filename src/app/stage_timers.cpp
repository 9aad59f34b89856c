// Stage clocks (see stage_timers.hpp).
#include "stage_timers.hpp"

#include <mpi.h>

namespace sf {

PetscErrorCode StageTimers::setup() {
  PetscFunctionBeginUser;
  // Stages are registered once per process; a second simulation in the same process (tests,
  // or a driver running several jobs) reuses them.
  for (int s = 0; s < static_cast<int>(Stage::Count); ++s) {
    const char* name = stage_name(static_cast<Stage>(s));
    PetscCall(PetscLogStageGetId(name, &ids_[s]));
    if (ids_[s] < 0) PetscCall(PetscLogStageRegister(name, &ids_[s]));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode StageTimers::begin(Stage stage) {
  PetscFunctionBeginUser;
  PetscCall(PetscLogStagePush(ids_[static_cast<int>(stage)]));
  started_[static_cast<int>(stage)] = MPI_Wtime();
  PetscFunctionReturn(0);
}

PetscErrorCode StageTimers::end(Stage stage) {
  PetscFunctionBeginUser;
  seconds_[static_cast<int>(stage)] += MPI_Wtime() - started_[static_cast<int>(stage)];
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(0);
}

std::vector<StageTime> StageTimers::times() const {
  std::vector<StageTime> stages;
  for (int s = 0; s < static_cast<int>(Stage::Count); ++s)
    stages.push_back({stage_name(static_cast<Stage>(s)), seconds_[s]});
  return stages;
}

}  // namespace sf
