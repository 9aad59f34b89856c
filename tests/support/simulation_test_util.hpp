// Helpers for tests that drive a whole Simulation step by step.
#pragma once

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

}  // namespace sf::test
