// The timed stages of a step and their clocks: wall-clock seconds per stage, bracketed by PETSc
// log stages of the same names so that -log_view shows the same split with PETSc's own counters.
#pragma once

#include <petscsys.h>

#include <array>
#include <vector>

#include "module.hpp"  // the Stage enum
#include "run_log.hpp"

namespace sf {

/// Wall-clock time per stage, bracketed by PETSc log stages of the same names so that
/// -log_view shows the same split with PETSc's own counters.
class StageTimers {
public:
  PetscErrorCode setup();
  PetscErrorCode begin(Stage stage);
  PetscErrorCode end(Stage stage);
  double seconds(Stage stage) const { return seconds_[static_cast<int>(stage)]; }
  /// Every stage with its name and seconds, in order, for the run log.
  std::vector<StageTime> times() const;

private:
  std::array<PetscLogStage, static_cast<int>(Stage::Count)> ids_{};
  std::array<double, static_cast<int>(Stage::Count)> seconds_{};
  std::array<double, static_cast<int>(Stage::Count)> started_{};
};

}  // namespace sf
