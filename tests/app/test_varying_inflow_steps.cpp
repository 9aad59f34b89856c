// Inflows that vary in time (FaceBoundary::keyframes and pulsation, Field::set_time, the "vary
// inflows" stage) in whole steps through the Simulation: in a channel with walls that let the
// fluid slide, incompressibility (the projection) makes the whole channel move at the inflow's
// speed of the moment, so every face across it must carry exactly the inflow's velocity at the
// step's end time, for a ramp held after its last keyframe and for a pulsation. The stage's own
// work on the inflow faces, and the refusals: tests/physics/test_varying_inflow.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "field_test_util.hpp"
#include "inflow_test_util.hpp"
#include "simulation.hpp"

namespace sf {
namespace {

TEST(VaryingInflow, ARampDrivesTheWholeChannelAtItsSpeedOfTheMomentAndThenHolds) {
  // 0.5 at t = 0, 1.5 at t = 0.4, held after.
  const JobConfig job = parse_job(
      test::channel("ramp",
                    "keyframes: [{time: 0, velocity: [0.5, 0]}, {time: 0.4, velocity: [1.5, 0]}]"),
      "ramp.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  for (int s = 0; s < 12; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    const double t = simulation.time();
    const double expected = 0.5 + std::min(t, 0.4) / 0.4;
    EXPECT_LT(test::uniform_flow_departure(simulation.velocity(), expected), 1e-7)
        << "step " << s << " t " << t;
  }
}

TEST(VaryingInflow, APulsationDrivesTheChannelInStepWithIt) {
  const JobConfig job = parse_job(
      test::channel("pulse", "velocity: [1, 0], pulsation: {amplitude: [0.4, 0], period: 0.5}"),
      "pulse.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  double lowest = 1.0, highest = 1.0;
  for (int s = 0; s < 10; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    const double expected = 1.0 + 0.4 * std::sin(2.0 * M_PI * simulation.time() / 0.5);
    lowest = std::min(lowest, expected);
    highest = std::max(highest, expected);
    EXPECT_LT(test::uniform_flow_departure(simulation.velocity(), expected), 1e-7) << "step " << s;
  }
  EXPECT_LT(lowest, 0.7);  // the steps saw the swing both ways
  EXPECT_GT(highest, 1.3);
}

}  // namespace
}  // namespace sf
