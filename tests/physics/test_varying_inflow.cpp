// Inflows that vary in time (FaceBoundary::keyframes and pulsation, Field::set_time): the
// inflows module on a bench (module_bench.hpp: the physics layer, no solver), whose "vary
// inflows" stage at the step's start puts on the inflow faces the inflow's velocity at the
// step's end time, for a ramp held after its last keyframe and for a pulsation, and changes no
// other face, at every rank count; and the job layer's refusals of inflows that would leave the
// domain or mix ways of varying. That the inflow then drives the whole channel is the
// projection's work: tests/app/test_varying_inflow_steps.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "inflow_test_util.hpp"
#include "job.hpp"
#include "module_bench.hpp"
#include "mpi_test_util.hpp"
#include "vec_array.hpp"

namespace sf {
namespace {

/// What the bench's velocity holds after the stages at the step's start: the largest departure
/// of the inflow faces (the normal faces of the lower x side) from (ux, 0), the largest
/// magnitude on every other owned face, and how many inflow faces there are, over all ranks.
struct InflowFaces {
  double inflow_departure = 0.0;
  double elsewhere = 0.0;
  long count = 0;
};

InflowFaces inflow_faces(const Field& velocity, double ux) {
  const Grid& grid = velocity.grid();
  ReadArray u;
  EXPECT_EQ(u.get_global(velocity), 0);
  InflowFaces local;
  for (int c = 0; c < grid.dim(); ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (c == 0 && i == 0) {
        local.inflow_departure = std::max(local.inflow_departure, std::abs(u(i, j, k, c) - ux));
        ++local.count;
      } else {
        local.elsewhere = std::max(local.elsewhere, std::abs(u(i, j, k, c)));
      }
    });
  return {test::global_max(local.inflow_departure), test::global_max(local.elsewhere),
          test::global_sum(local.count)};
}

// The fluid starts at rest; the stage sets only the boundary data, so every face but the
// inflow's stays 0 (no projection here carries the inflow into the channel). The inflow's value
// is its keyframes' linear interpolation at the step's end, exact but for the rounding of a few
// operations on values near 1 (1e-14 is some 50 units in the last place).
TEST(VaryingInflow, ARampSetsTheInflowFacesToItsSpeedAtTheStepsEndAndThenHolds) {
  // 0.5 at t = 0, 1.5 at t = 0.4, held after.
  const JobConfig job = parse_job(
      test::channel("ramp",
                    "keyframes: [{time: 0, velocity: [0.5, 0]}, {time: 0.4, velocity: [1.5, 0]}]"),
      "ramp.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  for (int s = 0; s < 12; ++s) {
    ASSERT_EQ(bench.run({Anchor::StepStart}, job.time.dt), 0);
    const double t = bench.flow().step_end(job.time.dt);
    const double expected = 0.5 + std::min(t, 0.4) / 0.4;
    const InflowFaces faces = inflow_faces(bench.velocity(), expected);
    EXPECT_EQ(faces.count, 8);  // one a cell across the channel
    EXPECT_LT(faces.inflow_departure, 1e-14) << "step " << s << " t " << t;
    EXPECT_EQ(faces.elsewhere, 0.0) << "step " << s << " t " << t;
    bench.finish_step(job.time.dt);
  }
}

// As the ramp: the pulsation's value at the step's end on the inflow faces, to rounding, and
// nothing on the others.
TEST(VaryingInflow, APulsationSetsTheInflowFacesInStepWithIt) {
  const JobConfig job = parse_job(
      test::channel("pulse", "velocity: [1, 0], pulsation: {amplitude: [0.4, 0], period: 0.5}"),
      "pulse.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  double lowest = 1.0, highest = 1.0;
  for (int s = 0; s < 10; ++s) {
    ASSERT_EQ(bench.run({Anchor::StepStart}, job.time.dt), 0);
    const double t = bench.flow().step_end(job.time.dt);
    const double expected = 1.0 + 0.4 * std::sin(2.0 * M_PI * t / 0.5);
    lowest = std::min(lowest, expected);
    highest = std::max(highest, expected);
    const InflowFaces faces = inflow_faces(bench.velocity(), expected);
    EXPECT_EQ(faces.count, 8);
    EXPECT_LT(faces.inflow_departure, 1e-14) << "step " << s;
    EXPECT_EQ(faces.elsewhere, 0.0) << "step " << s;
    bench.finish_step(job.time.dt);
  }
  EXPECT_LT(lowest, 0.7);  // the steps saw the swing both ways
  EXPECT_GT(highest, 1.3);
}

// A job-layer test (parse_job alone), kept beside the module's: the refusals of the inflows the
// module could not run.
TEST(VaryingInflow, IsRefusedWhereItWouldLeaveTheDomainOrMeetsAnotherWay) {
  const auto error_of = [](const std::string& inflow) -> std::string {
    try {
      (void)parse_job(test::channel("bad", inflow), "bad.yaml");
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
  const std::string bdf2 = test::channel("bdf2", "velocity: [1, 0], pulsation: {amplitude: "
                                                 "[0.1, 0], period: 1}");
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
