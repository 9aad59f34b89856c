// Tests for the job file parser (src/config.hpp). parse_job is exercised with in-memory text, so
// most tests are independent of MPI; the load_job tests are collective on MPI_COMM_WORLD and check
// that every rank reaches the same verdict, at any rank count.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "config.hpp"
#include "mpi_test_util.hpp"

namespace {

using sf::BoundaryKind;
using sf::InflowProfile;
using sf::JobConfig;
using sf::JobError;
using sf::Region;
using sf::VelocityInit;

// A minimal valid job: five lines, so text appended to it starts on line 6.
const std::string kHead =
    "grid:\n"            // line 1
    "  cells: [8, 8]\n"  // line 2
    "time:\n"            // line 3
    "  dt: 0.1\n"        // line 4
    "  end: 1.0\n";      // line 5

/// The JobError message for `text`, or a marker that no error was thrown.
std::string error_of(const std::string& text, const std::string& source = "job.yaml") {
  try {
    sf::parse_job(text, source);
  } catch (const JobError& e) {
    return e.what();
  }
  return "<no JobError thrown>";
}

::testing::AssertionResult Contains(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "message \"" << message << "\"\n  lacks \"" << part
                                       << "\"";
}

/// Parses `text` as "job.yaml" and checks that it fails with a message containing every part.
void expect_error(const std::string& text, std::initializer_list<std::string> parts) {
  const std::string message = error_of(text);
  for (const std::string& part : parts) EXPECT_TRUE(Contains(message, part)) << "job:\n" << text;
}

// ---------------------------------------------------------------------------------------------
// Valid jobs

TEST(Config, ToStringNamesEveryBoundaryKind) {
  EXPECT_STREQ(sf::to_string(BoundaryKind::Periodic), "periodic");
  EXPECT_STREQ(sf::to_string(BoundaryKind::NoSlip), "no-slip");
  EXPECT_STREQ(sf::to_string(BoundaryKind::FreeSlip), "free-slip");
  EXPECT_STREQ(sf::to_string(BoundaryKind::Inflow), "inflow");
  EXPECT_STREQ(sf::to_string(BoundaryKind::Outflow), "outflow");
}

TEST(Config, MinimalJobGetsDefaults) {
  const JobConfig job = sf::parse_job(kHead, "runs/my_job.yaml");
  EXPECT_EQ(job.source, "runs/my_job.yaml");
  EXPECT_EQ(job.text, kHead);
  EXPECT_EQ(job.name, "my_job");
  EXPECT_EQ(job.grid.dim, 2);
  EXPECT_EQ(job.grid.cells, (std::array<long, 3>{8, 8, 1}));
  EXPECT_EQ(job.grid.size, (std::array<double, 3>{1.0, 1.0, 1.0}));
  EXPECT_EQ(job.grid.origin, (std::array<double, 3>{0.0, 0.0, 0.0}));
  EXPECT_EQ(job.grid.halo, 3);
  for (int side = 0; side < 2; ++side) {
    EXPECT_EQ(job.boundary[0][side].kind, BoundaryKind::NoSlip);
    EXPECT_EQ(job.boundary[1][side].kind, BoundaryKind::NoSlip);
    EXPECT_EQ(job.boundary[2][side].kind, BoundaryKind::Periodic);
  }
  EXPECT_EQ(job.velocity.kind, VelocityInit::Kind::Zero);
  EXPECT_TRUE(job.scalars.empty());
  EXPECT_DOUBLE_EQ(job.time.dt, 0.1);
  EXPECT_DOUBLE_EQ(job.time.end, 1.0);
  EXPECT_EQ(job.output.directory, "output");
  EXPECT_EQ(job.output.interval, 0.0);
  EXPECT_TRUE(job.output.initial_frame);
  EXPECT_EQ(job.petsc_options, "");
}

TEST(Config, FullJobParsesToExpectedValues) {
  const std::string text =
      "# A job using every key.\n"
      "name: full_run-2.b\n"
      "grid:\n"
      "  cells: [64, 32]\n"
      "  size: [2.0, 1.0]\n"
      "  origin: [-1.0, 0.5]\n"
      "  halo: 2\n"
      "boundary:\n"
      "  x: periodic\n"
      "  y:\n"
      "    lower: free-slip\n"
      "    upper: {type: inflow, velocity: [0.5, -1.0], profile: parabolic,\n"
      "            scalars: {density: 1.5}}\n"
      "velocity:\n"
      "  initial: {type: vortex, center: [0.0, 1.0], radius: 0.2, strength: -2.5}\n"
      "scalars:\n"
      "  density:\n"
      "    background: 0.25\n"
      "    initial:\n"
      "      - {shape: sphere, center: [0.5, 0.75], radius: 0.1, value: 1.0}\n"
      "      - {shape: box, lower: [-0.5, 0.6], upper: [0.0, 0.9], value: 2e0}\n"
      "  temperature: {background: -1}\n"
      "  dye:\n"
      "time:\n"
      "  dt: 0.005\n"
      "  end: 2.0\n"
      "output:\n"
      "  directory: out/full\n"
      "  interval: 0.25\n"
      "  initial_frame: no\n"
      "petsc_options: \"-pressure_ksp_monitor -pressure_pc_type gamg\"\n";
  const JobConfig job = sf::parse_job(text, "jobs/full.yaml");

  EXPECT_EQ(job.source, "jobs/full.yaml");
  EXPECT_EQ(job.text, text);
  EXPECT_EQ(job.name, "full_run-2.b");

  EXPECT_EQ(job.grid.dim, 2);
  EXPECT_EQ(job.grid.cells, (std::array<long, 3>{64, 32, 1}));
  EXPECT_EQ(job.grid.size, (std::array<double, 3>{2.0, 1.0, 1.0}));
  EXPECT_EQ(job.grid.origin, (std::array<double, 3>{-1.0, 0.5, 0.0}));
  EXPECT_EQ(job.grid.halo, 2);

  EXPECT_EQ(job.boundary[0][0].kind, BoundaryKind::Periodic);
  EXPECT_EQ(job.boundary[0][1].kind, BoundaryKind::Periodic);
  EXPECT_EQ(job.boundary[1][0].kind, BoundaryKind::FreeSlip);
  const sf::FaceBoundary& inflow = job.boundary[1][1];
  EXPECT_EQ(inflow.kind, BoundaryKind::Inflow);
  EXPECT_EQ(inflow.velocity, (std::array<double, 3>{0.5, -1.0, 0.0}));
  EXPECT_EQ(inflow.profile, InflowProfile::Parabolic);
  ASSERT_EQ(inflow.scalar_values.size(), 1u);
  EXPECT_EQ(inflow.scalar_values.at("density"), 1.5);
  EXPECT_EQ(job.boundary[2][0].kind, BoundaryKind::Periodic);
  EXPECT_EQ(job.boundary[2][1].kind, BoundaryKind::Periodic);

  EXPECT_EQ(job.velocity.kind, VelocityInit::Kind::Vortex);
  EXPECT_EQ(job.velocity.center, (std::array<double, 3>{0.0, 1.0, 0.0}));
  EXPECT_EQ(job.velocity.radius, 0.2);
  EXPECT_EQ(job.velocity.strength, -2.5);

  ASSERT_EQ(job.scalars.size(), 3u);
  EXPECT_EQ(job.scalars[0].name, "density");
  EXPECT_EQ(job.scalars[0].background, 0.25);
  ASSERT_EQ(job.scalars[0].initial.size(), 2u);
  const sf::ScalarBlob& disc = job.scalars[0].initial[0];
  EXPECT_EQ(disc.region.shape, Region::Shape::Sphere);
  EXPECT_EQ(disc.region.center, (std::array<double, 3>{0.5, 0.75, 0.0}));
  EXPECT_EQ(disc.region.radius, 0.1);
  EXPECT_EQ(disc.value, 1.0);
  const sf::ScalarBlob& box = job.scalars[0].initial[1];
  EXPECT_EQ(box.region.shape, Region::Shape::Box);
  EXPECT_EQ(box.region.lower, (std::array<double, 3>{-0.5, 0.6, 0.0}));
  EXPECT_EQ(box.region.upper, (std::array<double, 3>{0.0, 0.9, 0.0}));
  EXPECT_EQ(box.value, 2.0);
  EXPECT_EQ(job.scalars[1].name, "temperature");
  EXPECT_EQ(job.scalars[1].background, -1.0);
  EXPECT_TRUE(job.scalars[1].initial.empty());
  EXPECT_EQ(job.scalars[2].name, "dye");
  EXPECT_EQ(job.scalars[2].background, 0.0);

  EXPECT_EQ(job.time.dt, 0.005);
  EXPECT_EQ(job.time.end, 2.0);
  EXPECT_EQ(job.output.directory, "out/full");
  EXPECT_EQ(job.output.interval, 0.25);
  EXPECT_FALSE(job.output.initial_frame);
  EXPECT_EQ(job.petsc_options, "-pressure_ksp_monitor -pressure_pc_type gamg");
}

TEST(Config, ThreeDimensionalJobWithInflowFace) {
  const JobConfig job = sf::parse_job(
      "grid: {cells: [16, 8, 4], size: [4, 2, 1], halo: 4}\n"
      "boundary:\n"
      "  x: {lower: {type: inflow, velocity: [2, 0, 0.5], scalars: {smoke: 1}}, upper: outflow}\n"
      "  z: free-slip\n"
      "scalars: {smoke: {}}\n"
      "velocity: {initial: {type: uniform, value: [1, 2, 3]}}\n"
      "time: {dt: 1, end: 1}\n",
      "plume.yml");
  EXPECT_EQ(job.name, "plume");
  EXPECT_EQ(job.grid.dim, 3);
  EXPECT_EQ(job.grid.cells, (std::array<long, 3>{16, 8, 4}));
  EXPECT_EQ(job.grid.size, (std::array<double, 3>{4.0, 2.0, 1.0}));
  EXPECT_EQ(job.grid.halo, 4);
  EXPECT_EQ(job.boundary[0][0].kind, BoundaryKind::Inflow);
  EXPECT_EQ(job.boundary[0][0].velocity, (std::array<double, 3>{2.0, 0.0, 0.5}));
  EXPECT_EQ(job.boundary[0][0].profile, InflowProfile::Uniform);
  EXPECT_EQ(job.boundary[0][0].scalar_values.at("smoke"), 1.0);
  EXPECT_EQ(job.boundary[0][1].kind, BoundaryKind::Outflow);
  EXPECT_EQ(job.boundary[1][0].kind, BoundaryKind::NoSlip);
  EXPECT_EQ(job.boundary[1][1].kind, BoundaryKind::NoSlip);
  EXPECT_EQ(job.boundary[2][0].kind, BoundaryKind::FreeSlip);
  EXPECT_EQ(job.boundary[2][1].kind, BoundaryKind::FreeSlip);
  EXPECT_EQ(job.velocity.kind, VelocityInit::Kind::Uniform);
  EXPECT_EQ(job.velocity.value, (std::array<double, 3>{1.0, 2.0, 3.0}));
  EXPECT_EQ(job.time.dt, 1.0);
  EXPECT_EQ(job.time.end, 1.0);
}

TEST(Config, VelocityTypesAndTheirDefaults) {
  const JobConfig tg = sf::parse_job(kHead + "velocity: {initial: {type: taylor_green}}\n", "a");
  EXPECT_EQ(tg.velocity.kind, VelocityInit::Kind::TaylorGreen);
  EXPECT_EQ(tg.velocity.strength, 1.0);
  const JobConfig tg2 =
      sf::parse_job(kHead + "velocity: {initial: {type: taylor_green, strength: 0.5}}\n", "a");
  EXPECT_EQ(tg2.velocity.strength, 0.5);
  const JobConfig zero = sf::parse_job(kHead + "velocity: {initial: {type: zero}}\n", "a");
  EXPECT_EQ(zero.velocity.kind, VelocityInit::Kind::Zero);
  // An optional section left empty keeps its defaults.
  const JobConfig empty = sf::parse_job(kHead + "velocity:\nboundary:\noutput:\n", "a");
  EXPECT_EQ(empty.velocity.kind, VelocityInit::Kind::Zero);
  EXPECT_EQ(empty.boundary[0][0].kind, BoundaryKind::NoSlip);
  EXPECT_EQ(empty.output.directory, "output");
}

TEST(Config, NumberSpellings) {
  const JobConfig job = sf::parse_job(
      "grid: {cells: [+8, 0008], origin: [-1e-3, +.5]}\ntime: {dt: 1E-2, end: 3}\n", "a");
  EXPECT_EQ(job.grid.cells, (std::array<long, 3>{8, 8, 1}));
  EXPECT_EQ(job.grid.origin, (std::array<double, 3>{-1e-3, 0.5, 0.0}));
  EXPECT_EQ(job.time.dt, 0.01);
  EXPECT_EQ(job.time.end, 3.0);
}

TEST(Config, DefaultNameIsTheFileStem) {
  EXPECT_EQ(sf::parse_job(kHead, "a/b/run.yml").name, "run");
  EXPECT_EQ(sf::parse_job(kHead, "a/b.c.YAML").name, "b.c");
  EXPECT_EQ(sf::parse_job(kHead, "noext").name, "noext");
  EXPECT_EQ(sf::parse_job(kHead, "my job.yaml").name, "my_job");
  EXPECT_EQ(sf::parse_job(kHead, "").name, "job");
  EXPECT_EQ(sf::parse_job(kHead, "dir/.yaml").name, "job");
}

TEST(Config, LargestGridBelowTheIndexLimitIsAccepted) {
  // 2 x 32768 x 32767 = 2147418112 < 2^31.
  const JobConfig job = sf::parse_job("grid: {cells: [32768, 32767]}\ntime: {dt: 1, end: 1}\n", "a");
  EXPECT_EQ(job.grid.cells[0], 32768);
}

// ---------------------------------------------------------------------------------------------
// Malformed jobs: each message must name the file, the line and the dotted key.

TEST(ConfigError, UnknownTopLevelKey) {
  expect_error(kHead + "gird: {}\n",
               {"job.yaml:6: gird: unknown key (expected one of: name, grid, boundary, velocity, "
                "scalars, time, output, petsc_options)"});
}

TEST(ConfigError, UnknownNestedKey) {
  expect_error("grid:\n  cells: [8, 8]\n  cels: 3\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:3: grid.cels: unknown key (expected one of: cells, size, origin, halo)"});
  expect_error(kHead + "scalars:\n  density:\n    initial:\n"
                       "      - {shape: sphere, center: [0, 0], radus: 1, value: 1}\n",
               {"job.yaml:9: scalars.density.initial[0].radus: unknown key"});
  // A key that exists for another type is unknown for this one.
  expect_error(kHead + "boundary:\n  y:\n    lower: {type: no-slip, velocity: [0, 1]}\n",
               {"job.yaml:8: boundary.y.lower.velocity: unknown key for type 'no-slip' "
                "(expected one of: type)"});
}

TEST(ConfigError, DuplicateKey) {
  expect_error(kHead + "time: {dt: 1, end: 2}\n", {"job.yaml:6: time: duplicate key"});
  expect_error(kHead + "velocity:\n  initial: {type: zero, type: vortex}\n",
               {"job.yaml:7: velocity.initial.type: duplicate key"});
  expect_error(kHead + "scalars:\n  a: {}\n  a: {}\n", {"job.yaml:8: scalars.a: duplicate key"});
}

TEST(ConfigError, WrongNodeType) {
  expect_error("grid: {cells: [8, 8]}\ntime: 5\n", {"job.yaml:2: time: expected a map"});
  expect_error("grid:\n  cells: 8\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.cells: expected a list of 2 or 3 integers, got \"8\""});
  expect_error("grid: {cells: [8]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.cells: expected a list of 2 or 3 integers, got a list of 1 "
                "entry"});
  expect_error("grid: {cells: [8, 8, 8, 8]}\ntime: {dt: 1, end: 1}\n",
               {"grid.cells: expected a list of 2 or 3 integers"});
  expect_error("grid: {cells: [8, [8]]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.cells[1]: expected a positive integer, got a list"});
  expect_error(kHead + "output: {initial_frame: maybe}\n",
               {"job.yaml:6: output.initial_frame: expected true or false, got \"maybe\""});
  expect_error(kHead + "name: [a]\n", {"job.yaml:6: name: expected a string"});
  expect_error(kHead + "scalars:\n  dye: {initial: {shape: box}}\n",
               {"job.yaml:7: scalars.dye.initial: expected a list of blobs"});
  expect_error(kHead + "output:\n  interval:\n", {"job.yaml:7: output.interval: expected a number, "
                                                  "got nothing"});
}

TEST(ConfigError, NegativeCellCount) {
  expect_error("grid:\n  cells: [8, -4]\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.cells[1]: expected a positive integer, got \"-4\""});
  expect_error("grid:\n  cells: [0, 4]\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.cells[0]: expected a positive integer, got \"0\""});
}

TEST(ConfigError, NonIntegerCellCount) {
  expect_error("grid:\n  cells: [8, 2.5]\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.cells[1]: expected a positive integer, got \"2.5\""});
  expect_error("grid:\n  cells: [1e3, 8]\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.cells[0]: expected a positive integer, got \"1e3\""});
  expect_error("grid:\n  cells: [8, 8abc]\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.cells[1]: expected a positive integer, got \"8abc\""});
  expect_error("grid:\n  cells: [8, 2147483648]\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.cells[1]: is out of range", "2147483648"});
  expect_error("grid:\n  cells: [8, 99999999999999999999]\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.cells[1]: is out of range", "99999999999999999999"});
}

TEST(ConfigError, NanAndInfinityAreRejected) {
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: .nan\n  end: 1\n",
               {"job.yaml:3: time.dt: must be finite, got \".nan\""});
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  end: .inf\n",
               {"job.yaml:4: time.end: must be finite, got \".inf\""});
  expect_error("grid: {cells: [8, 8], origin: [-.Inf, 0]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.origin[0]: must be finite, got \"-.Inf\""});
  expect_error(kHead + "scalars: {s: {background: nan}}\n",
               {"job.yaml:6: scalars.s.background: must be finite, got \"nan\""});
  expect_error(kHead + "scalars: {s: {background: -infinity}}\n",
               {"scalars.s.background: must be finite"});
  expect_error(kHead + "scalars: {s: {background: 1e999}}\n",
               {"scalars.s.background: is out of the range of a double, got \"1e999\""});
  expect_error(kHead + "scalars: {s: {background: 1.0abc}}\n",
               {"job.yaml:6: scalars.s.background: expected a number, got \"1.0abc\""});
  expect_error(kHead + "scalars: {s: {background: 0x10}}\n",
               {"scalars.s.background: expected a number, got \"0x10\""});
}

TEST(ConfigError, OtherOutOfRangeNumbers) {
  expect_error("grid: {cells: [8, 8], size: [1, 0]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.size[1]: must be > 0, got \"0\""});
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: -0.1\n  end: 1\n",
               {"job.yaml:3: time.dt: must be > 0, got \"-0.1\""});
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: 0.5\n  end: 0.25\n",
               {"job.yaml:4: time.end: must be at least time.dt = 0.5, got \"0.25\""});
  expect_error(kHead + "output:\n  interval: -1\n",
               {"job.yaml:7: output.interval: must be >= 0, got \"-1\""});
  expect_error(kHead + "velocity:\n  initial: {type: vortex, center: [0, 0], radius: 0, "
                       "strength: 1}\n",
               {"job.yaml:7: velocity.initial.radius: must be > 0, got \"0\""});
}

TEST(ConfigError, HaloOutOfRange) {
  expect_error("grid:\n  cells: [32, 32]\n  halo: 0\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:3: grid.halo: must be between 1 and 16, got \"0\""});
  expect_error("grid:\n  cells: [32, 32]\n  halo: 17\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:3: grid.halo: must be between 1 and 16, got \"17\""});
  expect_error("grid:\n  cells: [32, 32]\n  halo: 2.0\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:3: grid.halo: expected an integer, got \"2.0\""});
}

TEST(ConfigError, HaloLargerThanCells) {
  expect_error("grid:\n  cells: [8, 4]\n  halo: 5\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:3: grid.halo: halo 5 exceeds the smallest cell count 4"});
  expect_error("grid:\n  cells: [8, 2, 8]\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.halo: halo 3 (the default) exceeds the smallest cell count 2"});
}

TEST(ConfigError, PeriodicOnOneSideOnly) {
  expect_error(kHead + "boundary:\n  x:\n    lower: periodic\n    upper: no-slip\n",
               {"job.yaml:8: boundary.x: periodic must be on both sides (lower is periodic, upper "
                "is no-slip)"});
  expect_error(kHead + "boundary:\n  y: {upper: periodic}\n",
               {"job.yaml:7: boundary.y: periodic must be on both sides"});
}

TEST(ConfigError, UnknownBoundaryType) {
  expect_error(kHead + "boundary:\n  x: noslip\n",
               {"job.yaml:7: boundary.x: unknown boundary type (expected one of: periodic, "
                "no-slip, free-slip, inflow, outflow), got \"noslip\""});
}

TEST(ConfigError, PlainInflowNeedsAMap) {
  expect_error(kHead + "boundary:\n  x: inflow\n", {"job.yaml:7: boundary.x: inflow needs a map"});
  expect_error(kHead + "boundary:\n  x:\n    lower: inflow\n",
               {"job.yaml:8: boundary.x.lower: inflow needs a map"});
  expect_error(kHead + "boundary:\n  x:\n    lower: {type: inflow}\n",
               {"job.yaml:8: boundary.x.lower.velocity: missing required key"});
}

TEST(ConfigError, InflowMustPointIntoTheDomain) {
  expect_error(kHead + "boundary:\n  y:\n    upper: {type: inflow, velocity: [0.0, 1.0]}\n",
               {"job.yaml:8: boundary.y.upper.velocity: inflow velocity must point into the "
                "domain"});
  // A purely tangential velocity would blow fluid along a wall, not into the domain.
  expect_error(kHead + "boundary:\n  x:\n    lower: {type: inflow, velocity: [0, 1]}\n",
               {"job.yaml:8: boundary.x.lower.velocity: inflow velocity must point into the "
                "domain"});
  expect_error(kHead + "boundary:\n  x:\n    lower: {type: inflow, velocity: [-1, 0]}\n",
               {"boundary.x.lower.velocity: inflow velocity must point into the domain"});
}

TEST(ConfigError, InflowWithUnknownScalar) {
  expect_error(kHead + "scalars: {density: {}}\nboundary:\n  y:\n"
                       "    upper: {type: inflow, velocity: [0, -1], scalars: {smoke: 1}}\n",
               {"job.yaml:9: boundary.y.upper.scalars.smoke: unknown scalar 'smoke' (declared "
                "scalars: density)"});
  expect_error(kHead + "boundary:\n  y:\n"
                       "    upper: {type: inflow, velocity: [0, -1], scalars: {smoke: 1}}\n",
               {"boundary.y.upper.scalars.smoke: unknown scalar 'smoke' (no scalars are "
                "declared)"});
}

TEST(ConfigError, InflowWithUnknownProfile) {
  expect_error(kHead + "boundary:\n  y:\n"
                       "    upper: {type: inflow, velocity: [0, -1], profile: cubic}\n",
               {"job.yaml:8: boundary.y.upper.profile: unknown profile (expected one of: "
                "uniform, parabolic), got \"cubic\""});
}

TEST(ConfigError, ZBoundaryIn2D) {
  expect_error(kHead + "boundary:\n  x: periodic\n  z: periodic\n",
               {"job.yaml:8: boundary.z: the grid is 2-D"});
}

TEST(ConfigError, VectorOfWrongLength) {
  expect_error("grid: {cells: [8, 8], size: [1, 1, 1]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.size: expected a list of 2 numbers, got a list of 3 entries"});
  expect_error("grid: {cells: [8, 8, 8], origin: [0, 0]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.origin: expected a list of 3 numbers, got a list of 2 entries"});
  expect_error(kHead + "velocity:\n  initial: {type: vortex, center: [0.5], radius: 1, "
                       "strength: 1}\n",
               {"job.yaml:7: velocity.initial.center: expected a list of 2 numbers"});
  expect_error(kHead + "boundary:\n  y:\n    upper: {type: inflow, velocity: [0, -1, 0]}\n",
               {"job.yaml:8: boundary.y.upper.velocity: expected a list of 2 numbers"});
  expect_error(kHead + "scalars:\n  s:\n    initial:\n"
                       "      - {shape: box, lower: [0, 0], upper: 1, value: 1}\n",
               {"job.yaml:9: scalars.s.initial[0].upper: expected a list of 2 numbers, got "
                "\"1\""});
}

TEST(ConfigError, BoxWithLowerNotBelowUpper) {
  expect_error(kHead + "scalars:\n  density:\n    initial:\n"
                       "      - {shape: sphere, center: [0, 0], radius: 1, value: 1}\n"
                       "      - {shape: box, lower: [0.1, 0.3], upper: [0.2, 0.3], value: 1}\n",
               {"job.yaml:10: scalars.density.initial[1].upper[1]: must be greater than "
                "lower[1] = 0.3, got \"0.3\""});
}

TEST(ConfigError, UnknownShapeAndVelocityType) {
  expect_error(kHead + "scalars: {s: {initial: [{shape: cone, value: 1}]}}\n",
               {"job.yaml:6: scalars.s.initial[0].shape: unknown shape (expected one of: sphere, "
                "box), got \"cone\""});
  expect_error(kHead + "velocity: {initial: {type: swirl}}\n",
               {"job.yaml:6: velocity.initial.type: unknown type (expected one of: zero, "
                "uniform, vortex, taylor_green), got \"swirl\""});
  expect_error(kHead + "scalars: {s: {initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}}\n",
               {"job.yaml:6: scalars.s.initial[0].value: missing required key"});
}

TEST(ConfigError, MissingRequiredKeys) {
  expect_error("grid:\n  cells: [8, 8]\ntime:\n  end: 1.0\n",
               {"job.yaml:4: time.dt: missing required key"});
  expect_error("name: x\ngrid:\n  cells: [8, 8]\n", {"job.yaml:1: time: missing required key"});
  expect_error("time: {dt: 1, end: 1}\n", {"job.yaml:1: grid: missing required key"});
  expect_error("grid: {size: [1, 1]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.cells: missing required key"});
}

TEST(ConfigError, YamlSyntaxError) {
  expect_error("grid:\n  cells: [8, 8\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:", ": YAML syntax error: end of sequence flow not found"});
  expect_error("grid:\n  cells: [8, 8]\n bad: 1\n",
               {"job.yaml:3: YAML syntax error: end of map not found"});
}

TEST(ConfigError, EmptyOrNonMapText) {
  const std::string expected = "job.yaml: expected a map of job settings at the top level";
  EXPECT_EQ(error_of(""), expected);
  EXPECT_EQ(error_of("# only a comment\n"), expected);
  EXPECT_EQ(error_of("- grid\n- time\n"), expected);
  EXPECT_EQ(error_of("just words\n"), expected);
}

TEST(ConfigError, SecondYamlDocument) {
  expect_error(kHead + "---\nname: other\n", {"job.yaml:7: expected a single YAML document"});
}

TEST(ConfigError, TotalCellsOverflow) {
  // 3 x 1024 x 1024 x 683 = 2148532224 >= 2^31.
  expect_error("grid:\n  cells: [1024, 1024, 683]\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.cells: 1024 x 1024 x 683 cells times 3 velocity components is "
                "2148532224 unknowns"});
  expect_error("grid:\n  cells: [46341, 46341]\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:2: grid.cells:", "4294976562 unknowns"});
  // Beyond 64 bits the count is only printed approximately, but it must still be rejected.
  expect_error("grid: {cells: [2000000000, 2000000000, 2000000000]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.cells: 2000000000 x 2000000000 x 2000000000 cells", "2.4e+28"});
}

TEST(ConfigError, BadScalarName) {
  expect_error(kHead + "scalars:\n  2fast: {}\n",
               {"job.yaml:7: scalars.2fast: invalid scalar name '2fast'"});
  expect_error(kHead + "scalars:\n  my-dye: {}\n", {"scalars.my-dye: invalid scalar name"});
}

TEST(ConfigError, BadRunName) {
  expect_error(kHead + "name: a/b\n", {"job.yaml:6: name: must be a non-empty name", "\"a/b\""});
  expect_error(kHead + "name: \"\"\n", {"job.yaml:6: name: must be a non-empty name"});
}

TEST(ConfigError, SourceAppearsVerbatim) {
  const std::string message = error_of(kHead + "gird: 1\n", "some/dir/plume 3d.yaml");
  EXPECT_TRUE(Contains(message, "some/dir/plume 3d.yaml:6: gird: unknown key"));
}

// ---------------------------------------------------------------------------------------------
// load_job: collective on MPI_COMM_WORLD. Assertions that could return early are avoided around
// collectives, so that one failing rank cannot leave the others waiting.

/// Rank 0's copy of `text`, on every rank.
std::string from_rank0(std::string text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return text;
}

/// True on every rank if `flag` holds on every rank.
bool on_all_ranks(bool flag) { return sf::test::global_sum(flag ? 0 : 1) == 0; }

/// The JobError message load_job throws on this rank, or a marker if it throws none.
std::string load_error(const std::string& path) {
  try {
    sf::load_job(MPI_COMM_WORLD, path);
  } catch (const JobError& e) {
    return e.what();
  }
  return "<no JobError thrown>";
}

/// A job file written by rank 0 into the temporary directory and removed again by rank 0 once
/// every rank is done with it. Its path is the same on every rank.
class TempJobFile {
public:
  explicit TempJobFile(const std::string& text) {
    static int counter = 0;
    std::string path;
    if (sf::test::comm_rank() == 0) {
      path = (std::filesystem::temp_directory_path() /
              ("sf_test_config_" + std::to_string(::getpid()) + "_" + std::to_string(counter) +
               ".yaml"))
                 .string();
      std::ofstream out(path, std::ios::binary);
      out << text;
    }
    ++counter;
    path_ = from_rank0(path);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~TempJobFile() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (sf::test::comm_rank() == 0) std::remove(path_.c_str());
  }
  TempJobFile(const TempJobFile&) = delete;
  TempJobFile& operator=(const TempJobFile&) = delete;

  const std::string& path() const { return path_; }

private:
  std::string path_;
};

TEST(LoadJob, MissingFileFailsOnEveryRank) {
  const std::string path = "/nonexistent-sf-test-dir/missing.yaml";
  const std::string message = load_error(path);
  EXPECT_EQ(message, "cannot read job file '" + path + "': No such file or directory");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

TEST(LoadJob, DirectoryFailsOnEveryRank) {
  const std::string path = from_rank0(std::filesystem::temp_directory_path().string());
  const std::string message = load_error(path);
  EXPECT_TRUE(Contains(message, "cannot read job file '" + path + "': "));
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

TEST(LoadJob, ValidFileParsesOnEveryRank) {
  const std::string text = kHead + "scalars: {density: {background: 0.5}}\n";
  const TempJobFile file(text);
  bool ok = false;
  try {
    const JobConfig job = sf::load_job(MPI_COMM_WORLD, file.path());
    EXPECT_EQ(job.source, file.path());
    EXPECT_EQ(job.text, text);
    EXPECT_EQ(job.name, std::filesystem::path(file.path()).stem().string());
    EXPECT_EQ(job.grid.cells, (std::array<long, 3>{8, 8, 1}));
    EXPECT_EQ(job.time.dt, 0.1);
    EXPECT_EQ(job.scalars.size(), 1u);
    ok = true;
  } catch (const JobError& e) {
    ADD_FAILURE() << e.what();
  }
  EXPECT_TRUE(on_all_ranks(ok));
}

TEST(LoadJob, MalformedFileFailsIdenticallyOnEveryRank) {
  const TempJobFile file(kHead + "output: {interval: -2}\n");
  const std::string message = load_error(file.path());
  EXPECT_EQ(message, file.path() + ":6: output.interval: must be >= 0, got \"-2\"");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

}  // namespace
