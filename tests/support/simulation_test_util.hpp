// Helpers for tests that drive a whole Simulation step by step.
#pragma once

#include <string>

#include "petsc_test_util.hpp"
#include "simulation.hpp"

namespace sf::test {

/// Takes `steps` steps of dt. Collective.
inline PetscErrorCode run_steps(Simulation& simulation, double dt, int steps) {
  PetscFunctionBeginUser;
  for (int s = 0; s < steps; ++s) {
    StepReport report;
    PetscCall(simulation.step(dt, &report));
  }
  PetscFunctionReturn(0);
}

/// Takes up to `steps` steps of dt, stopping at the first that fails; returns its error code
/// (0 if none failed) and the first error's message in *message.
inline PetscErrorCode run_until_failure(Simulation& simulation, double dt, int steps,
                                        std::string* message) {
  return catching_errors(
      [&]() -> PetscErrorCode {
        PetscErrorCode code = 0;
        for (int s = 0; s < steps && !code; ++s) code = run_steps(simulation, dt, 1);
        return code;
      },
      message);
}

}  // namespace sf::test
