// Helpers for tests that drive a whole Simulation step by step.
#pragma once

#include <gtest/gtest.h>

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

/// A run continued from a checkpoint goes on bit for bit: `straight` (the job under another
/// name, so that the two runs' files are apart) takes before + after steps of dt; `job` takes
/// `before`, writes a checkpoint, and a new run of it resumed from that takes `after`. Every
/// scalar (a liquid's phi and, with the vof interface, its fraction) and the velocity must be
/// the same bits. Collective.
inline void expect_restart_bit_for_bit(const JobConfig& straight_job, const JobConfig& job,
                                       double dt, int before, int after) {
  Simulation straight;
  ASSERT_EQ(straight.setup(PETSC_COMM_WORLD, straight_job), 0);
  ASSERT_EQ(run_steps(straight, dt, before + after), 0);
  std::string path;
  {
    Simulation first;
    ASSERT_EQ(first.setup(PETSC_COMM_WORLD, job), 0);
    ASSERT_EQ(run_steps(first, dt, before), 0);
    ASSERT_EQ(first.write_checkpoint(&path), 0);
  }
  Simulation resumed;
  ASSERT_EQ(resumed.setup(PETSC_COMM_WORLD, job, path), 0);
  ASSERT_EQ(run_steps(resumed, dt, after), 0);
  ASSERT_EQ(straight.scalars().size(), resumed.scalars().size());
  for (size_t s = 0; s < straight.scalars().size(); ++s)
    EXPECT_EQ(global_sum(differs_bitwise(straight.scalars()[s].global(),
                                         resumed.scalars()[s].global())),
              0)
        << "scalar " << s;
  EXPECT_EQ(global_sum(differs_bitwise(straight.velocity().global(), resumed.velocity().global())),
            0);
}

}  // namespace sf::test
