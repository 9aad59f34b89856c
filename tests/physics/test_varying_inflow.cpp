// Inflows that vary in time (FaceBoundary::keyframes and pulsation, Field::set_time, the "vary
// inflows" stage): in a channel with walls that let the fluid slide, incompressibility makes
// the whole channel move at the inflow's speed of the moment, so every face across it must carry
// exactly the inflow's velocity at the step's end time, for a ramp held after its last keyframe
// and for a pulsation. Inflows that would leave the domain, or mix ways of varying, are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "field_test_util.hpp"
#include "mpi_test_util.hpp"
#include "simulation.hpp"

namespace sf {
namespace {

std::string channel(const std::string& name, const std::string& inflow) {
  return "name: " + name + "\n"
         "grid: {cells: [32, 8], size: [4, 1]}\n"
         "boundary:\n"
         "  x: {lower: {type: inflow, " + inflow + "}, upper: outflow}\n"
         "  y: free-slip\n"
         "time: {dt: 0.05, end: 1}\n"
         "output: {directory: inflow_np" + std::to_string(test::comm_size()) +
         ", overwrite: true, initial_frame: false}\n";
}

TEST(VaryingInflow, ARampDrivesTheWholeChannelAtItsSpeedOfTheMomentAndThenHolds) {
  // 0.5 at t = 0, 1.5 at t = 0.4, held after.
  const JobConfig job = parse_job(
      channel("ramp", "keyframes: [{time: 0, velocity: [0.5, 0]}, {time: 0.4, velocity: [1.5, 0]}]"),
      "ramp.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  for (int s = 0; s < 12; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    const double t = simulation.time();
    const double expected = 0.5 + std::min(t, 0.4) / 0.4;
    EXPECT_LT(test::uniform_flow_departure(simulation.velocity(), expected), 1e-7) << "step " << s << " t " << t;
  }
}

TEST(VaryingInflow, APulsationDrivesTheChannelInStepWithIt) {
  const JobConfig job = parse_job(
      channel("pulse", "velocity: [1, 0], pulsation: {amplitude: [0.4, 0], period: 0.5}"),
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

TEST(VaryingInflow, IsRefusedWhereItWouldLeaveTheDomainOrMeetsAnotherWay) {
  const auto error_of = [](const std::string& inflow) -> std::string {
    try {
      (void)parse_job(channel("bad", inflow), "bad.yaml");
    } catch (const JobError& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_NE(error_of("keyframes: [{time: 0, velocity: [1, 0]}, {time: 1, velocity: [-1, 0]}]")
                .find("bad.yaml:4: boundary.x.lower.keyframes[1].velocity: inflow velocity must "
                      "point into the domain at all times"),
            std::string::npos);
  EXPECT_NE(error_of("velocity: [1, 0], pulsation: {amplitude: [1.5, 0], period: 1}")
                .find("boundary.x.lower.velocity: inflow velocity must point into the domain at "
                      "all times (the x component on the lower side must be > 0, got 1 with a "
                      "pulsation of +-1.5)"),
            std::string::npos);
  EXPECT_NE(error_of("velocity: [1, 0], keyframes: [{time: 0, velocity: [1, 0]}, "
                     "{time: 1, velocity: [2, 0]}]")
                .find("boundary.x.lower.keyframes: give either velocity"),
            std::string::npos);
  EXPECT_NE(error_of("keyframes: [{time: 1, velocity: [1, 0]}, {time: 1, velocity: [2, 0]}]")
                .find("boundary.x.lower.keyframes[1].time: must be later"),
            std::string::npos);
  const std::string bdf2 = channel("bdf2", "velocity: [1, 0], pulsation: {amplitude: [0.1, 0], "
                                           "period: 1}");
  std::string message;
  try {
    std::string text = bdf2;
    text.replace(text.find("time: {"), 7, "time: {scheme: bdf2, ");
    (void)parse_job(text, "bdf2.yaml");
  } catch (const JobError& error) {
    message = error.what();
  }
  EXPECT_NE(message.find("boundary.x.lower.pulsation: an inflow that varies in time runs with "
                         "Stam's step only"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace sf
