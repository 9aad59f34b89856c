// The limits of a job (jobs/README.md "Limits"): the values at their edges are accepted, and
// every numeric key refuses a magnitude over 1e30 with the same message; the reader's own bounds
// (many keys, aliases, nesting) hold without exhausting time or stack. The jobs just past each
// edge are rows of the table in test_job_errors.cpp, under the name of the test they check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "job.hpp"
#include "job_test_util.hpp"
#include "mpi_test_util.hpp"

namespace {

using sf::JobConfig;
using sf::JobError;
using sf::test::Contains;
using sf::test::error_of;
using sf::test::kAtMost;
using sf::test::kHead;
using sf::test::kLongestName;

TEST(ConfigLimits, EveryPhysicalValueIsAtMost1e30InMagnitude) {
  // Every kind of numeric key, each through the one reader they share.
  struct Case {
    std::string tail, key, got;
  };
  const std::vector<Case> cases = {
      {"fluid: {viscosity: 1e308}\n", "fluid.viscosity", "1e308"},
      {"velocity: {initial: {type: vortex, center: [0, 0], radius: 1, strength: 1e308}}\n",
       "velocity.initial.strength", "1e308"},
      {"velocity: {initial: {type: taylor_green, strength: -1e31}}\n",
       "velocity.initial.strength", "-1e31"},
      {"velocity: {initial: {type: uniform, value: [0, 1e31]}}\n", "velocity.initial.value[1]",
       "1e31"},
      {"scalars: {s: {background: 1e31}}\n", "scalars.s.background", "1e31"},
      {"scalars: {s: {diffusion: 1e308}}\n", "scalars.s.diffusion", "1e308"},
      {"scalars: {s: {dissipation: 1e308}}\n", "scalars.s.dissipation", "1e308"},
      {"scalars: {s: {initial: [{shape: sphere, center: [0, 0], radius: 1, value: 1e31}]}}\n",
       "scalars.s.initial[0].value", "1e31"},
      {"scalars: {s: {sources: [{shape: box, lower: [-1e31, 0], upper: [1, 1], value: 1}]}}\n",
       "scalars.s.sources[0].lower[0]", "-1e31"},
      {"scalars: {s: {sources: [{shape: sphere, center: [0, 0], radius: 1e31, value: 1}]}}\n",
       "scalars.s.sources[0].radius", "1e31"},
      {"scalars: {s: {sources: [{shape: sphere, center: [0, 0], radius: 1, value: 1, "
       "velocity: [1e31, 0]}]}}\n",
       "scalars.s.sources[0].velocity[0]", "1e31"},
      {"forces: {gravity: [0, -1e308]}\n", "forces.gravity[1]", "-1e308"},
      {"forces: {buoyancy: {alpha: 0, beta: 0, ambient_temperature: 1e31}}\n",
       "forces.buoyancy.ambient_temperature", "1e31"},
      {"forces: {vorticity_confinement: 1e308}\n", "forces.vorticity_confinement", "1e308"},
      {"forces: {wind: {velocity: [1, 0], rate: 1e308}}\n", "forces.wind.rate", "1e308"},
      {"forces: {regions: [{shape: sphere, center: [0, 0], radius: 1, "
       "acceleration: [1e31, 0]}]}\n",
       "forces.regions[0].acceleration[0]", "1e31"},
      {"boundary: {x: {lower: {type: inflow, velocity: [1e308, 0]}}}\n",
       "boundary.x.lower.velocity[0]", "1e308"},
      {"boundary: {y: {upper: {type: no-slip, velocity: [1e308, 0]}}}\n",
       "boundary.y.upper.velocity[0]", "1e308"},
      {"obstacles: [{shape: cylinder, center: [1e31, 0], radius: 1}]\n", "obstacles[0].center[0]",
       "1e31"},
      {"pressure: {absolute_tolerance: 1e31}\n", "pressure.absolute_tolerance", "1e31"},
      {"checkpoint: {every_time: 1e31}\n", "checkpoint.every_time", "1e31"},
      {"checkpoint: {every_wall_seconds: 1e31}\n", "checkpoint.every_wall_seconds", "1e31"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(error_of(kHead + c.tail),
              "job.yaml:6: " + c.key + ": " + kAtMost + "\"" + c.got + "\"")
        << c.tail;
  }

  // 1e30 itself is allowed, and so is any direction for `up`, whose length is divided out.
  const JobConfig job = sf::parse_job(
      "grid: {cells: [8, 8], size: [1e30, 1e30], origin: [-1e30, 0]}\n"
      "time: {dt: 1e30, end: 1e30}\n"
      "fluid: {viscosity: 1e30}\n"
      "forces: {gravity: [-1e30, 1e30], buoyancy: {up: [3e200, 4e200]}}\n",
      "job.yaml");
  EXPECT_EQ(job.fluid.viscosity, 1e30);
  EXPECT_EQ(job.grid.origin[0], -1e30);
  EXPECT_EQ(job.forces.gravity[0], -1e30);
  EXPECT_DOUBLE_EQ(job.forces.buoyancy.up[1], 0.8);
}

TEST(ConfigLimits, LengthsStepsTimesAndRatesAreAtLeast1e30th) {

  // 1e-30 itself is allowed, and 0 where 0 switches something off.
  const JobConfig job = sf::parse_job(
      "grid: {cells: [8, 8], size: [1e-30, 1e-30]}\ntime: {cfl: 1e-30, dt_min: 0, dt_max: 1e-30, "
      "end: 1e-30}\noutput: {interval: 0}\ncheckpoint: {every_time: 0}\n",
      "job.yaml");
  EXPECT_EQ(job.grid.size[0], 1e-30);
  EXPECT_EQ(job.time.dt_max, 1e-30);
  EXPECT_EQ(job.time.dt_min, 0.0);
  EXPECT_EQ(job.output.interval, 0.0);
  // A coefficient may be as small as it likes: it only ever multiplies.
  EXPECT_EQ(sf::parse_job(kHead + "fluid: {viscosity: 4.9e-324}\n", "a").fluid.viscosity,
            4.9e-324);
}

TEST(ConfigLimits, CellsMustBeResolvableAtTheirCoordinates) {
  // At 1e11 they still are: 0.125 >= 1e-12 * (1e11 + 1).
  EXPECT_EQ(sf::parse_job("grid: {cells: [8, 8], origin: [1e11, 0]}\ntime: {dt: 1, end: 1}\n", "a")
                .grid.origin[0],
            1e11);
  // With weak scaling the cells shrink as ranks are added, so the check is repeated then.
  JobConfig weak = sf::parse_job(
      "grid: {cells_per_rank: [8, 8], origin: [1e11, 0]}\ntime: {dt: 1, end: 1}\n", "weak.yaml");
  try {
    sf::resolve_ranks(weak, 4);
    ADD_FAILURE() << "16 cells along x at 1e11 were accepted";
  } catch (const JobError& e) {
    EXPECT_STREQ(e.what(), "weak.yaml:1: grid.origin[0]: on 4 ranks, the cells along x are 0.0625 "
                           "wide (size / cells), less than 1e-12 of the largest |coordinate| on "
                           "that axis, 100000000001: a double could not tell positions within a "
                           "cell apart");
  }
}

TEST(ConfigLimits, FramesFitTheirSixDigitNumbers) {
  // Without the initial frame, 10^6 output times are 000000 to 999999.
  EXPECT_EQ(sf::parse_job(kHead + "output: {interval: 1e-6, initial_frame: false}\n", "a")
                .output.interval,
            1e-6);
  EXPECT_EQ(sf::parse_job(kHead + "output: {interval: 1.000001e-6}\n", "a").output.interval,
            1.000001e-6);
}

TEST(ConfigLimits, StepsFitTheirEightDigitNumbers) {
  // 99999999 steps fit.
  EXPECT_EQ(sf::parse_job("grid: {cells: [8, 8]}\ntime: {dt: 1e-8, end: 0.99999999}\n", "a")
                .time.dt,
            1e-8);
  EXPECT_EQ(sf::parse_job("grid: {cells: [8, 8]}\ntime: {cfl: 1, dt_max: 1e-8, end: 0.99999999}\n",
                          "a")
                .time.dt_max,
            1e-8);
}

TEST(ConfigLimits, NameLeavesRoomForTheFileNamesDerivedFromIt) {
  EXPECT_EQ(sf::parse_job(kHead + "name: " + kLongestName + "\n", "job.yaml").name, kLongestName);
  // A run name taken from the file's name is checked too, at the top of the job.
  const std::string source = "dir/" + std::string(230, 'j') + ".yaml";
  EXPECT_EQ(error_of(kHead, source),
            source + ":1: name: the run name taken from the job file's name (no name is given) is "
                     "230 characters long, more than 219: the longest file name a run derives "
                     "from it, <name>_failed_step<step>_000000.h5.tmp, must fit in 255 bytes");
  EXPECT_EQ(sf::parse_job(kHead, "dir/" + std::string(219, 'j') + ".yaml").name.size(), 219u);
}

// --- the reader's own bounds

TEST(ConfigError, ManyKeysTakeLinearTime) {
  // 100000 keys: a quadratic duplicate check took 10 s here. The error is all that is asserted;
  // the time is printed for the record.
  std::string keys;
  for (int i = 0; i < 100000; ++i) keys += "k" + std::to_string(100000 + i) + ": 1\n";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of(kHead + keys),
            "job.yaml:6: k100000: unknown key (expected one of: name, grid, boundary, velocity, "
            "scalars, fluid, advection, forces, obstacles, liquid, viscoelastic, fire, texture, "
            "time, pressure, diffusion, output, checkpoint, debug, catalyst, diagnostics, "
            "petsc_options, steering)");
  // Valid keys, each read: 50000 scalars, and an inflow face naming every one of them.
  std::string scalars = "scalars:\n", carried;
  for (int i = 0; i < 50000; ++i) {
    scalars += "  s" + std::to_string(i) + ":\n";
    carried += (i > 0 ? ", s" : "s") + std::to_string(i) + ": 1";
  }
  const JobConfig job = sf::parse_job(
      kHead + scalars + "boundary:\n  x:\n    lower: {type: inflow, velocity: [1, 0], scalars: {" +
          carried + "}}\n",
      "job.yaml");
  EXPECT_EQ(job.scalars.size(), 50000u);
  EXPECT_EQ(job.boundary[0][0].scalar_values.size(), 50000u);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (sf::test::comm_rank() == 0) {
    std::printf("100000 unknown keys, then 50000 scalars named on a face: %.3f s\n", seconds);
  }
  // An unknown scalar's message lists only the first few that are declared.
  EXPECT_TRUE(Contains(error_of(kHead + scalars + "boundary:\n  x:\n    lower: {type: inflow, "
                                                  "velocity: [1, 0], scalars: {smoke: 1}}\n"),
                       "job.yaml:50009: boundary.x.lower.scalars.smoke: unknown scalar 'smoke' "
                       "(declared scalars: s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, and 49990 "
                       "more)"));
}

TEST(ConfigError, AliasesCannotExpandTheJobWithoutBound) {
  // 300 blobs named once and repeated by alias for 4000 scalars would be 1.2 million blobs,
  // several times the entries a 1 MiB file can hold; parsing stops at the budget.
  std::string text = kHead + "scalars:\n  s0:\n    initial: &blobs\n";
  for (int i = 0; i < 300; ++i) {
    text += "      - {shape: sphere, center: [0, 0], radius: 1, value: 1}\n";
  }
  for (int i = 1; i < 4000; ++i) text += "  s" + std::to_string(i) + ": {initial: *blobs}\n";
  EXPECT_THAT(error_of(text),
              ::testing::MatchesRegex("job\\.yaml:[0-9]+: scalars\\.s[0-9]+\\.initial\\[[0-9]+\\]"
                                      "[.a-z]*: YAML aliases \\(\\*name\\) expand the job beyond "
                                      "1048576 map entries and list items, more than a job file of "
                                      "at most 1048576 bytes holds without them"));
  // An alias used a few times is fine.
  const JobConfig job = sf::parse_job(
      kHead + "scalars:\n  a: {initial: &b [{shape: box, lower: [0, 0], upper: [1, 1], "
              "value: 1}]}\n  c: {initial: *b}\n",
      "job.yaml");
  EXPECT_EQ(job.scalars[1].initial.size(), 1u);
}

TEST(ConfigError, DeepNestingIsRefusedWithoutExhaustingTheStack) {
  // yaml-cpp recurses once per level; 100000 levels would overflow the stack without its guard.
  const std::string deep = "grid: {cells: " + std::string(100000, '[') + std::string(100000, ']') +
                           "}\ntime: {dt: 1, end: 1}\n";
  EXPECT_EQ(error_of(deep), "job.yaml:1: YAML nesting too deep: yaml-cpp reads lists and maps "
                            "nested at most 499 levels deep (a job needs fewer than 10)");
  std::string block;
  for (int level = 0; level < 600; ++level) block += std::string(level, ' ') + "a:\n";
  EXPECT_EQ(error_of(block), "job.yaml:499: YAML nesting too deep: yaml-cpp reads lists and maps "
                             "nested at most 499 levels deep (a job needs fewer than 10)");
}

}  // namespace
