// Tests for the job file parser (src/job/). parse_job is exercised with in-memory text, so
// most tests are independent of MPI; the load_job tests are collective on MPI_COMM_WORLD and check
// that every rank reaches the same verdict, at any rank count.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "job.hpp"
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

TEST(Config, NewSectionsGetDefaults) {
  const JobConfig job = sf::parse_job(kHead + "scalars: {dye: {}}\n", "a");
  EXPECT_EQ(job.time.cfl, 0.0);
  EXPECT_EQ(job.time.dt_min, 0.0);
  EXPECT_EQ(job.time.dt_max, 0.0);
  EXPECT_EQ(job.fluid.viscosity, 0.0);
  EXPECT_EQ(job.advection.scheme, sf::AdvectionScheme::SemiLagrangian);
  EXPECT_EQ(job.advection.interpolation, sf::Interpolation::Linear);
  EXPECT_EQ(job.forces.gravity, (std::array<double, 3>{0.0, 0.0, 0.0}));
  EXPECT_FALSE(job.forces.buoyancy.enabled);
  EXPECT_EQ(job.forces.buoyancy.density_scalar, "density");
  EXPECT_EQ(job.forces.buoyancy.temperature_scalar, "temperature");
  EXPECT_EQ(job.forces.buoyancy.up, (std::array<double, 3>{0.0, 1.0, 0.0}));
  EXPECT_EQ(job.forces.vorticity_confinement, 0.0);
  EXPECT_FALSE(job.forces.wind.enabled);
  EXPECT_FALSE(job.forces.wind.has_region);
  EXPECT_TRUE(job.forces.regions.empty());
  EXPECT_TRUE(job.obstacles.empty());
  EXPECT_EQ(job.pressure.rtol, 1e-8);
  EXPECT_EQ(job.pressure.atol, 1e-14);
  EXPECT_EQ(job.pressure.max_iterations, 500);
  EXPECT_EQ(job.diffusion.rtol, 1e-10);
  EXPECT_EQ(job.diffusion.atol, 1e-14);
  EXPECT_EQ(job.diffusion.max_iterations, 500);
  ASSERT_EQ(job.scalars.size(), 1u);
  EXPECT_EQ(job.scalars[0].diffusion, 0.0);
  EXPECT_EQ(job.scalars[0].dissipation, 0.0);
  EXPECT_TRUE(job.scalars[0].sources.empty());
  for (int side = 0; side < 2; ++side) {
    EXPECT_EQ(job.boundary[1][side].velocity, (std::array<double, 3>{0.0, 0.0, 0.0}));
  }

  // Sections and lists left empty keep their defaults; an empty buoyancy or wind map still
  // switches the force on (and then a wind needs its keys).
  const JobConfig empty = sf::parse_job(kHead + "fluid:\nadvection:\nobstacles:\npressure:\n"
                                                "diffusion:\nforces:\n  regions:\n  buoyancy:\n"
                                                "scalars:\n  s: {initial: , sources: }\n",
                                        "a");
  EXPECT_EQ(empty.fluid.viscosity, 0.0);
  EXPECT_TRUE(empty.obstacles.empty());
  EXPECT_EQ(empty.pressure.rtol, 1e-8);
  EXPECT_EQ(empty.diffusion.rtol, 1e-10);
  EXPECT_TRUE(empty.forces.regions.empty());
  EXPECT_TRUE(empty.forces.buoyancy.enabled);
  EXPECT_EQ(empty.forces.buoyancy.alpha, 0.0);
  EXPECT_EQ(empty.forces.buoyancy.beta, 0.0);
  EXPECT_TRUE(empty.scalars[0].initial.empty());
  EXPECT_TRUE(empty.scalars[0].sources.empty());
}

TEST(Config, EveryNewKeyParsesToExpectedValues) {
  const std::string text =
      "grid: {cells: [16, 16, 16], halo: 2}\n"
      "boundary:\n"
      "  x: free-slip\n"
      "  y:\n"
      "    lower: {type: no-slip, velocity: [0.5, 0, -0.25]}\n"
      "    upper: outflow\n"
      "  z:\n"
      "    upper: {type: no-slip}\n"
      "scalars:\n"
      "  density:\n"
      "    dissipation: 0.05\n"
      "    diffusion: 1e-4\n"
      "    initial:\n"
      "      - {shape: cylinder, center: [0.5, 0.5, 0.5], radius: 0.2, axis: x, value: 2}\n"
      "    sources:\n"
      "      - {shape: sphere, center: [0.5, 0.2, 0.5], radius: 0.1, value: 1.0,\n"
      "         velocity: [0, 0.5, 0]}\n"
      "      - {shape: box, lower: [0, 0, 0], upper: [0.1, 0.2, 0.3], mode: add, value: -2.5}\n"
      "  temperature:\n"
      "    sources:\n"
      "      - {shape: cylinder, center: [0.5, 0.2, 0.5], radius: 0.1, axis: y, mode: set,\n"
      "         value: 1}\n"
      "fluid: {viscosity: 0.001}\n"
      "advection: {scheme: maccormack, interpolation: monotone_cubic}\n"
      "forces:\n"
      "  gravity: [0, -9.81, 0]\n"
      "  buoyancy:\n"
      "    density: density\n"
      "    temperature: temperature\n"
      "    alpha: 0.05\n"
      "    beta: 1.5\n"
      "    ambient_temperature: -0.5\n"
      "    up: [0, 0, 2]\n"
      "  vorticity_confinement: 0.3\n"
      "  wind:\n"
      "    velocity: [1, 0, -1]\n"
      "    rate: 0.5\n"
      "    region: {shape: box, lower: [0, 0.5, 0], upper: [1, 1, 1]}\n"
      "  regions:\n"
      "    - {shape: sphere, center: [0.5, 0.5, 0.5], radius: 0.1, acceleration: [0, 5, 0]}\n"
      "    - {shape: cylinder, center: [0, 0, 0], radius: 0.3, acceleration: [1, 2, 3]}\n"
      "obstacles:\n"
      "  - {shape: sphere, center: [0.5, 0.9, 0.5], radius: 0.15}\n"
      "  - {shape: cylinder, center: [0.3, 0.5, 0.5], radius: 0.05, axis: y,\n"
      "     boundary: free-slip}\n"
      "  - {shape: box, lower: [0.8, 0, 0], upper: [1, 0.1, 1], boundary: no-slip}\n"
      "time: {cfl: 4.0, dt_min: 0.001, dt_max: 0.05, end: 1.0}\n"
      "pressure: {tolerance: 1e-6, absolute_tolerance: 0, max_iterations: 200}\n"
      "diffusion: {max_iterations: 50}\n";
  const JobConfig job = sf::parse_job(text, "jobs/every_key.yaml");
  using A = std::array<double, 3>;

  // A moving wall keeps every tangential component; a wall given as a map without velocity is
  // at rest.
  EXPECT_EQ(job.boundary[1][0].kind, BoundaryKind::NoSlip);
  EXPECT_EQ(job.boundary[1][0].velocity, (A{0.5, 0.0, -0.25}));
  EXPECT_EQ(job.boundary[1][1].kind, BoundaryKind::Outflow);
  EXPECT_EQ(job.boundary[2][1].kind, BoundaryKind::NoSlip);
  EXPECT_EQ(job.boundary[2][1].velocity, (A{0.0, 0.0, 0.0}));

  ASSERT_EQ(job.scalars.size(), 2u);
  const sf::ScalarConfig& density = job.scalars[0];
  EXPECT_EQ(density.dissipation, 0.05);
  EXPECT_EQ(density.diffusion, 1e-4);
  ASSERT_EQ(density.initial.size(), 1u);
  EXPECT_EQ(density.initial[0].region.shape, Region::Shape::Cylinder);
  EXPECT_EQ(density.initial[0].region.center, (A{0.5, 0.5, 0.5}));
  EXPECT_EQ(density.initial[0].region.radius, 0.2);
  EXPECT_EQ(density.initial[0].region.axis, 0);
  EXPECT_EQ(density.initial[0].value, 2.0);
  ASSERT_EQ(density.sources.size(), 2u);
  const sf::ScalarSource& emitter = density.sources[0];
  EXPECT_EQ(emitter.region.shape, Region::Shape::Sphere);
  EXPECT_EQ(emitter.region.center, (A{0.5, 0.2, 0.5}));
  EXPECT_EQ(emitter.region.radius, 0.1);
  EXPECT_EQ(emitter.mode, sf::ScalarSource::Mode::Set);
  EXPECT_EQ(emitter.value, 1.0);
  EXPECT_TRUE(emitter.has_velocity);
  EXPECT_EQ(emitter.velocity, (A{0.0, 0.5, 0.0}));
  const sf::ScalarSource& sink = density.sources[1];
  EXPECT_EQ(sink.region.shape, Region::Shape::Box);
  EXPECT_EQ(sink.region.lower, (A{0.0, 0.0, 0.0}));
  EXPECT_EQ(sink.region.upper, (A{0.1, 0.2, 0.3}));
  EXPECT_EQ(sink.mode, sf::ScalarSource::Mode::Add);
  EXPECT_EQ(sink.value, -2.5);
  EXPECT_FALSE(sink.has_velocity);
  EXPECT_EQ(sink.velocity, (A{0.0, 0.0, 0.0}));
  const sf::ScalarConfig& temperature = job.scalars[1];
  EXPECT_EQ(temperature.name, "temperature");
  EXPECT_EQ(temperature.dissipation, 0.0);
  ASSERT_EQ(temperature.sources.size(), 1u);
  EXPECT_EQ(temperature.sources[0].region.shape, Region::Shape::Cylinder);
  EXPECT_EQ(temperature.sources[0].region.axis, 1);
  EXPECT_EQ(temperature.sources[0].mode, sf::ScalarSource::Mode::Set);
  EXPECT_EQ(temperature.sources[0].value, 1.0);

  EXPECT_EQ(job.fluid.viscosity, 0.001);
  EXPECT_EQ(job.advection.scheme, sf::AdvectionScheme::MacCormack);
  EXPECT_EQ(job.advection.interpolation, sf::Interpolation::MonotoneCubic);

  EXPECT_EQ(job.forces.gravity, (A{0.0, -9.81, 0.0}));
  const sf::BuoyancyConfig& buoyancy = job.forces.buoyancy;
  EXPECT_TRUE(buoyancy.enabled);
  EXPECT_EQ(buoyancy.density_scalar, "density");
  EXPECT_EQ(buoyancy.temperature_scalar, "temperature");
  EXPECT_EQ(buoyancy.alpha, 0.05);
  EXPECT_EQ(buoyancy.beta, 1.5);
  EXPECT_EQ(buoyancy.ambient_temperature, -0.5);
  EXPECT_EQ(buoyancy.up, (A{0.0, 0.0, 1.0}));  // [0, 0, 2] normalised
  EXPECT_EQ(job.forces.vorticity_confinement, 0.3);
  const sf::WindConfig& wind = job.forces.wind;
  EXPECT_TRUE(wind.enabled);
  EXPECT_EQ(wind.velocity, (A{1.0, 0.0, -1.0}));
  EXPECT_EQ(wind.rate, 0.5);
  EXPECT_TRUE(wind.has_region);
  EXPECT_EQ(wind.region.shape, Region::Shape::Box);
  EXPECT_EQ(wind.region.lower, (A{0.0, 0.5, 0.0}));
  EXPECT_EQ(wind.region.upper, (A{1.0, 1.0, 1.0}));
  ASSERT_EQ(job.forces.regions.size(), 2u);
  EXPECT_EQ(job.forces.regions[0].region.shape, Region::Shape::Sphere);
  EXPECT_EQ(job.forces.regions[0].region.center, (A{0.5, 0.5, 0.5}));
  EXPECT_EQ(job.forces.regions[0].region.radius, 0.1);
  EXPECT_EQ(job.forces.regions[0].acceleration, (A{0.0, 5.0, 0.0}));
  EXPECT_EQ(job.forces.regions[1].region.shape, Region::Shape::Cylinder);
  EXPECT_EQ(job.forces.regions[1].region.axis, 2);  // the default
  EXPECT_EQ(job.forces.regions[1].region.radius, 0.3);
  EXPECT_EQ(job.forces.regions[1].acceleration, (A{1.0, 2.0, 3.0}));

  ASSERT_EQ(job.obstacles.size(), 3u);
  EXPECT_EQ(job.obstacles[0].region.shape, Region::Shape::Sphere);
  EXPECT_EQ(job.obstacles[0].region.center, (A{0.5, 0.9, 0.5}));
  EXPECT_EQ(job.obstacles[0].region.radius, 0.15);
  EXPECT_EQ(job.obstacles[0].boundary, BoundaryKind::NoSlip);
  EXPECT_EQ(job.obstacles[1].region.shape, Region::Shape::Cylinder);
  EXPECT_EQ(job.obstacles[1].region.center, (A{0.3, 0.5, 0.5}));
  EXPECT_EQ(job.obstacles[1].region.radius, 0.05);
  EXPECT_EQ(job.obstacles[1].region.axis, 1);
  EXPECT_EQ(job.obstacles[1].boundary, BoundaryKind::FreeSlip);
  EXPECT_EQ(job.obstacles[2].region.shape, Region::Shape::Box);
  EXPECT_EQ(job.obstacles[2].region.lower, (A{0.8, 0.0, 0.0}));
  EXPECT_EQ(job.obstacles[2].region.upper, (A{1.0, 0.1, 1.0}));
  EXPECT_EQ(job.obstacles[2].boundary, BoundaryKind::NoSlip);

  EXPECT_EQ(job.time.dt, 0.0);
  EXPECT_EQ(job.time.cfl, 4.0);
  EXPECT_EQ(job.time.dt_min, 0.001);
  EXPECT_EQ(job.time.dt_max, 0.05);
  EXPECT_EQ(job.time.end, 1.0);

  EXPECT_EQ(job.pressure.rtol, 1e-6);
  EXPECT_EQ(job.pressure.atol, 0.0);
  EXPECT_EQ(job.pressure.max_iterations, 200);
  EXPECT_EQ(job.diffusion.rtol, 1e-10);  // unchanged defaults beside a key that is given
  EXPECT_EQ(job.diffusion.atol, 1e-14);
  EXPECT_EQ(job.diffusion.max_iterations, 50);
}

TEST(Config, TwoDimensionalLidAndCylinder) {
  const JobConfig job = sf::parse_job(
      "grid: {cells: [8, 8]}\n"
      "boundary:\n"
      "  y:\n"
      "    upper: {type: no-slip, velocity: [1.0, -0.0]}\n"
      "obstacles:\n"
      "  - {shape: cylinder, center: [0.3, 0.5], radius: 0.05}\n"
      "  - {shape: cylinder, center: [0.7, 0.5], radius: 0.05, axis: z, boundary: free-slip}\n"
      "forces:\n"
      "  gravity: [0, -9.81]\n"
      "  buoyancy: {temperature: heat, beta: 1, up: [3, 4]}\n"
      "  wind: {velocity: [2, 0], rate: 10}\n"
      "scalars: {heat: {}}\n"
      "time: {cfl: 0.5, dt_max: 0.5, end: 0.01}\n",
      "a");
  EXPECT_EQ(job.boundary[1][1].kind, BoundaryKind::NoSlip);
  EXPECT_EQ(job.boundary[1][1].velocity, (std::array<double, 3>{1.0, 0.0, 0.0}));
  EXPECT_EQ(job.boundary[1][0].velocity, (std::array<double, 3>{0.0, 0.0, 0.0}));
  ASSERT_EQ(job.obstacles.size(), 2u);
  EXPECT_EQ(job.obstacles[0].region.shape, Region::Shape::Cylinder);
  EXPECT_EQ(job.obstacles[0].region.center, (std::array<double, 3>{0.3, 0.5, 0.0}));
  EXPECT_EQ(job.obstacles[0].region.axis, 2);
  EXPECT_EQ(job.obstacles[1].region.axis, 2);
  EXPECT_EQ(job.obstacles[1].boundary, BoundaryKind::FreeSlip);
  EXPECT_EQ(job.forces.gravity, (std::array<double, 3>{0.0, -9.81, 0.0}));
  EXPECT_DOUBLE_EQ(job.forces.buoyancy.up[0], 0.6);
  EXPECT_DOUBLE_EQ(job.forces.buoyancy.up[1], 0.8);
  EXPECT_EQ(job.forces.buoyancy.up[2], 0.0);
  EXPECT_EQ(job.forces.buoyancy.temperature_scalar, "heat");
  // alpha is 0, so the undeclared default "density" is accepted and simply unused.
  EXPECT_EQ(job.forces.buoyancy.density_scalar, "density");
  EXPECT_TRUE(job.forces.wind.enabled);
  EXPECT_FALSE(job.forces.wind.has_region);
  EXPECT_EQ(job.forces.wind.velocity, (std::array<double, 3>{2.0, 0.0, 0.0}));
  EXPECT_EQ(job.forces.wind.rate, 10.0);
  // With cfl, end need not reach dt_max, and dt_min defaults to 0.
  EXPECT_EQ(job.time.cfl, 0.5);
  EXPECT_EQ(job.time.dt, 0.0);
  EXPECT_EQ(job.time.dt_min, 0.0);
  EXPECT_EQ(job.time.dt_max, 0.5);
  EXPECT_EQ(job.time.end, 0.01);
}

TEST(Config, BuoyancyUpIsNormalised) {
  const auto up_of = [](const std::string& grid, const std::string& up) {
    return sf::parse_job("grid: {cells: " + grid + "}\ntime: {dt: 1, end: 1}\n"
                         "forces: {buoyancy: {up: " + up + "}}\n", "a")
        .forces.buoyancy.up;
  };
  EXPECT_EQ(up_of("[8, 8]", "[0, 1]"), (std::array<double, 3>{0.0, 1.0, 0.0}));
  EXPECT_EQ(up_of("[8, 8]", "[-0.5, 0]"), (std::array<double, 3>{-1.0, 0.0, 0.0}));
  EXPECT_EQ(up_of("[4, 4, 4]", "[0, 0, -7]"), (std::array<double, 3>{0.0, 0.0, -1.0}));
  const std::array<double, 3> diagonal = up_of("[4, 4, 4]", "[1, 1, 1]");
  for (int a = 0; a < 3; ++a) EXPECT_DOUBLE_EQ(diagonal[a], 1.0 / std::sqrt(3.0));
  // Entries whose squares overflow or underflow a double still give a unit vector.
  const std::array<double, 3> huge = up_of("[8, 8]", "[3e200, 4e200]");
  EXPECT_DOUBLE_EQ(huge[0], 0.6);
  EXPECT_DOUBLE_EQ(huge[1], 0.8);
  const std::array<double, 3> tiny = up_of("[8, 8]", "[3e-200, -4e-200]");
  EXPECT_DOUBLE_EQ(tiny[0], 0.6);
  EXPECT_DOUBLE_EQ(tiny[1], -0.8);
}

TEST(Config, HaloDependentOptionsAcceptedWithHaloTwo) {
  const std::string head = "grid: {cells: [8, 8], halo: 2}\ntime: {dt: 1, end: 1}\n";
  EXPECT_EQ(sf::parse_job(head + "advection: {interpolation: monotone_cubic}\n", "a")
                .advection.interpolation,
            sf::Interpolation::MonotoneCubic);
  EXPECT_EQ(sf::parse_job(head + "forces: {vorticity_confinement: 1}\n", "a")
                .forces.vorticity_confinement,
            1.0);
  // With halo 1, the options that do not need more are still accepted.
  const std::string thin = "grid: {cells: [8, 8], halo: 1}\ntime: {dt: 1, end: 1}\n";
  const JobConfig job = sf::parse_job(
      thin + "advection: {scheme: maccormack, interpolation: linear}\n"
             "forces: {vorticity_confinement: 0}\n",
      "a");
  EXPECT_EQ(job.advection.scheme, sf::AdvectionScheme::MacCormack);
  EXPECT_EQ(job.forces.vorticity_confinement, 0.0);
  EXPECT_EQ(sf::parse_job(thin + "advection: {scheme: bfecc}\n", "a").advection.scheme,
            sf::AdvectionScheme::BFECC);
}

TEST(Config, AdaptiveStepBounds) {
  const JobConfig job = sf::parse_job(
      "grid: {cells: [8, 8]}\ntime: {cfl: 1e3, dt_min: 0.05, dt_max: 0.05, end: 2}\n", "a");
  EXPECT_EQ(job.time.cfl, 1000.0);
  EXPECT_EQ(job.time.dt_min, 0.05);
  EXPECT_EQ(job.time.dt_max, 0.05);
}

// ---------------------------------------------------------------------------------------------
// Malformed jobs: each message must name the file, the line and the dotted key.

TEST(Config, CheckpointAndDebugDefaults) {
  const JobConfig job = sf::parse_job(kHead, "job.yaml");
  EXPECT_EQ(job.checkpoint.directory, "output");  // follows output.directory
  EXPECT_EQ(job.checkpoint.every_steps, 0);
  EXPECT_EQ(job.checkpoint.every_time, 0.0);
  EXPECT_EQ(job.checkpoint.every_wall_seconds, 0.0);
  EXPECT_EQ(job.checkpoint.keep, 2);
  EXPECT_FALSE(job.debug.dump_on_failure);

  // The default directory is the output directory, whichever that is; empty sections are allowed.
  const JobConfig moved =
      sf::parse_job(kHead + "output: {directory: runs/a}\ncheckpoint:\ndebug:\n", "job.yaml");
  EXPECT_EQ(moved.checkpoint.directory, "runs/a");
  EXPECT_EQ(moved.checkpoint.keep, 2);
  EXPECT_FALSE(moved.debug.dump_on_failure);
  const JobConfig partial = sf::parse_job(kHead + "checkpoint: {every_time: 0.25}\n", "job.yaml");
  EXPECT_EQ(partial.checkpoint.directory, "output");
  EXPECT_EQ(partial.checkpoint.every_time, 0.25);
}

TEST(Config, CheckpointAndDebugParse) {
  const JobConfig job = sf::parse_job(kHead +
                                          "output: {directory: frames}\n"
                                          "checkpoint:\n"
                                          "  directory: checkpoints\n"
                                          "  every_steps: 100\n"
                                          "  every_time: 0.5\n"
                                          "  every_wall_seconds: 600\n"
                                          "  keep: 3\n"
                                          "debug:\n"
                                          "  dump_on_failure: true\n",
                                      "job.yaml");
  EXPECT_EQ(job.output.directory, "frames");
  EXPECT_EQ(job.checkpoint.directory, "checkpoints");
  EXPECT_EQ(job.checkpoint.every_steps, 100);
  EXPECT_EQ(job.checkpoint.every_time, 0.5);
  EXPECT_EQ(job.checkpoint.every_wall_seconds, 600.0);
  EXPECT_EQ(job.checkpoint.keep, 3);
  EXPECT_TRUE(job.debug.dump_on_failure);

  // 0 switches a criterion off and is allowed everywhere; keep may be 1.
  const JobConfig off = sf::parse_job(
      kHead + "checkpoint: {every_steps: 0, every_time: 0, every_wall_seconds: 0, keep: 1}\n"
              "debug: {dump_on_failure: false}\n",
      "job.yaml");
  EXPECT_EQ(off.checkpoint.every_steps, 0);
  EXPECT_EQ(off.checkpoint.keep, 1);
  EXPECT_FALSE(off.debug.dump_on_failure);
}

TEST(ConfigError, CheckpointErrors) {
  expect_error(kHead + "checkpoint: 5\n", {"job.yaml:6: checkpoint: expected a map, got \"5\""});
  expect_error(kHead + "checkpoint:\n  every_step: 10\n",
               {"job.yaml:7: checkpoint.every_step: unknown key (expected one of: directory, "
                "every_steps, every_time, every_wall_seconds, keep)"});
  expect_error(kHead + "checkpoint:\n  directory: \"\"\n",
               {"job.yaml:7: checkpoint.directory: must not be empty"});
  expect_error(kHead + "checkpoint:\n  directory: [a]\n",
               {"job.yaml:7: checkpoint.directory: expected a string, got a list of 1 entry"});
  expect_error(kHead + "checkpoint:\n  every_steps: -1\n",
               {"job.yaml:7: checkpoint.every_steps: expected an integer >= 0, got \"-1\""});
  expect_error(kHead + "checkpoint:\n  every_steps: 2.5\n",
               {"job.yaml:7: checkpoint.every_steps: expected an integer >= 0, got \"2.5\""});
  expect_error(kHead + "checkpoint:\n  every_steps: 99999999999\n",
               {"job.yaml:7: checkpoint.every_steps: is out of range (at most 2147483647)"});
  expect_error(kHead + "checkpoint:\n  every_time: -0.5\n",
               {"job.yaml:7: checkpoint.every_time: must be >= 0, got \"-0.5\""});
  expect_error(kHead + "checkpoint:\n  every_time: .nan\n",
               {"job.yaml:7: checkpoint.every_time: must be finite"});
  expect_error(kHead + "checkpoint:\n  every_wall_seconds: -600\n",
               {"job.yaml:7: checkpoint.every_wall_seconds: must be >= 0, got \"-600\""});
  expect_error(kHead + "checkpoint:\n  every_wall_seconds: .inf\n",
               {"job.yaml:7: checkpoint.every_wall_seconds: must be finite"});
  expect_error(kHead + "checkpoint:\n  every_wall_seconds: soon\n",
               {"job.yaml:7: checkpoint.every_wall_seconds: expected a number, got \"soon\""});
  expect_error(kHead + "checkpoint:\n  keep: 0\n",
               {"job.yaml:7: checkpoint.keep: expected a positive integer, got \"0\""});
  expect_error(kHead + "checkpoint:\n  keep: two\n",
               {"job.yaml:7: checkpoint.keep: expected a positive integer, got \"two\""});
  expect_error(kHead + "checkpoint:\n  keep: 1\n  keep: 2\n",
               {"job.yaml:8: checkpoint.keep: duplicate key (first given on line 7)"});
}

TEST(Config, ProgressEvery) {
  EXPECT_EQ(sf::parse_job(kHead, "job.yaml").output.progress_every, 1);
  EXPECT_EQ(sf::parse_job(kHead + "output: {progress_every: 100}\n", "job.yaml").output.progress_every,
            100);
  expect_error(kHead + "output: {progress_every: 0}\n",
               {"job.yaml:6: output.progress_every: expected an integer from 1 to"});
  expect_error(kHead + "output: {progress_every: 2.5}\n",
               {"job.yaml:6: output.progress_every: expected an integer >= 1, got \"2.5\""});
}

TEST(ConfigError, DebugErrors) {
  expect_error(kHead + "debug: [true]\n", {"job.yaml:6: debug: expected a map, got a list"});
  expect_error(kHead + "debug:\n  dump_on_failure: sometimes\n",
               {"job.yaml:7: debug.dump_on_failure: expected true or false, got \"sometimes\""});
  expect_error(kHead + "debug:\n  dump: true\n",
               {"job.yaml:7: debug.dump: unknown key (expected one of: dump_on_failure)"});
}

TEST(ConfigError, UnknownTopLevelKey) {
  expect_error(kHead + "gird: {}\n",
               {"job.yaml:6: gird: unknown key (expected one of: name, grid, boundary, velocity, "
                "scalars, fluid, advection, forces, obstacles, time, pressure, diffusion, output, "
                "checkpoint, debug, catalyst, petsc_options)"});
}

TEST(ConfigError, UnknownNestedKey) {
  expect_error("grid:\n  cells: [8, 8]\n  cels: 3\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:3: grid.cels: unknown key (expected one of: cells, cells_per_rank, size, origin, halo)"});
  expect_error(kHead + "scalars:\n  density:\n    initial:\n"
                       "      - {shape: sphere, center: [0, 0], radus: 1, value: 1}\n",
               {"job.yaml:9: scalars.density.initial[0].radus: unknown key"});
  // A key that exists for another type is unknown for this one.
  expect_error(kHead + "boundary:\n  y:\n    lower: {type: free-slip, velocity: [1, 0]}\n",
               {"job.yaml:8: boundary.y.lower.velocity: unknown key for type 'free-slip' "
                "(expected one of: type)"});
  expect_error(kHead + "boundary:\n  x:\n    upper: {type: outflow, scalars: {}}\n",
               {"job.yaml:8: boundary.x.upper.scalars: unknown key for type 'outflow' "
                "(expected one of: type)"});
  // ... and so is a key that another shape takes.
  expect_error(kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], radius: 1}\n",
               {"job.yaml:7: obstacles[0].radius: unknown key for shape 'box' (expected one of: "
                "shape, lower, upper, boundary)"});
  expect_error(kHead + "obstacles:\n  - {shape: sphere, center: [0, 0], radius: 1, axis: z}\n",
               {"job.yaml:7: obstacles[0].axis: unknown key for shape 'sphere' (expected one of: "
                "shape, center, radius, boundary)"});
  expect_error(kHead + "forces: {gravty: [0, -1]}\n",
               {"job.yaml:6: forces.gravty: unknown key (expected one of: gravity, buoyancy, "
                "vorticity_confinement, wind, regions)"});
  expect_error(kHead + "forces:\n  buoyancy: {alpha: 0, gamma: 1}\n",
               {"job.yaml:7: forces.buoyancy.gamma: unknown key"});
  expect_error(kHead + "pressure: {rtol: 1e-6}\n",
               {"job.yaml:6: pressure.rtol: unknown key (expected one of: tolerance, "
                "absolute_tolerance, max_iterations)"});
  expect_error(kHead + "fluid: {nu: 0.1}\n",
               {"job.yaml:6: fluid.nu: unknown key (expected one of: viscosity)"});
  expect_error(kHead + "scalars:\n  s:\n    sources:\n"
                       "      - {shape: sphere, center: [0, 0], radius: 1, value: 1, rate: 2}\n",
               {"job.yaml:9: scalars.s.sources[0].rate: unknown key"});
}

TEST(ConfigError, DuplicateKey) {
  expect_error(kHead + "time: {dt: 1, end: 2}\n", {"job.yaml:6: time: duplicate key"});
  expect_error(kHead + "velocity:\n  initial: {type: zero, type: vortex}\n",
               {"job.yaml:7: velocity.initial.type: duplicate key"});
  expect_error(kHead + "scalars:\n  a: {}\n  a: {}\n", {"job.yaml:8: scalars.a: duplicate key"});
}

TEST(ConfigError, TheFirstErrorInAMapStopsParsing) {
  // An unknown key is reported where it stands, before a duplicate key further down.
  expect_error(kHead + "fluid:\n  viscosty: 1\n  viscosity: 1\n  viscosity: 2\n",
               {"job.yaml:7: fluid.viscosty: unknown key (expected one of: viscosity)"});
  expect_error(kHead + "fluid:\n  viscosity: 1\n  viscosity: 2\n  viscosty: 1\n",
               {"job.yaml:8: fluid.viscosity: duplicate key (first given on line 7)"});
  // Keys another shape takes are reported after the keys no shape takes.
  expect_error(kHead + "obstacles:\n  - {shape: box, radius: 1, lower: [0, 0], upper: [1, 1], "
                       "size: 2}\n",
               {"job.yaml:7: obstacles[0].size: unknown key (expected one of: shape, center, "
                "radius, axis, lower, upper, boundary)"});
}

TEST(ConfigError, ManyKeysTakeLinearTime) {
  // 100000 keys: a quadratic duplicate check took 10 s here. The error is all that is asserted;
  // the time is printed for the record.
  std::string keys;
  for (int i = 0; i < 100000; ++i) keys += "k" + std::to_string(100000 + i) + ": 1\n";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of(kHead + keys),
            "job.yaml:6: k100000: unknown key (expected one of: name, grid, boundary, velocity, "
            "scalars, fluid, advection, forces, obstacles, time, pressure, diffusion, output, "
            "checkpoint, debug, catalyst, petsc_options)");
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
  expect_error(kHead + scalars + "boundary:\n  x:\n    lower: {type: inflow, velocity: [1, 0], "
                                 "scalars: {smoke: 1}}\n",
               {"job.yaml:50009: boundary.x.lower.scalars.smoke: unknown scalar 'smoke' "
                "(declared scalars: s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, and 49990 more)"});
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
                "box, cylinder), got \"cone\""});
  expect_error(kHead + "velocity: {initial: {type: swirl}}\n",
               {"job.yaml:6: velocity.initial.type: unknown type (expected one of: zero, "
                "uniform, vortex, taylor_green), got \"swirl\""});
  expect_error(kHead + "scalars: {s: {initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}}\n",
               {"job.yaml:6: scalars.s.initial[0].value: missing required key"});
}

TEST(ConfigError, MissingRequiredKeys) {
  expect_error("grid:\n  cells: [8, 8]\ntime:\n  end: 1.0\n",
               {"job.yaml:4: time.dt: missing required key (give dt for a fixed step, or cfl and "
                "dt_max for an adaptive one)"});
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
  // The line of the node found instead of the map; an empty file has none, and line 1 is where
  // to look.
  const std::string expected = "job.yaml:1: expected a map of job settings at the top level, ";
  EXPECT_EQ(error_of(""), expected + "got nothing");
  EXPECT_EQ(error_of("# only a comment\n"), expected + "got nothing");
  EXPECT_EQ(error_of("- grid\n- time\n"), expected + "got a list of 2 entries");
  EXPECT_EQ(error_of("just words\n"), expected + "got \"just words\"");
  EXPECT_EQ(error_of("42"), expected + "got \"42\"");
  EXPECT_EQ(error_of("# a job\n\n[grid, time]\n"),
            "job.yaml:3: expected a map of job settings at the top level, got a list of 2 entries");
  EXPECT_EQ(error_of("\n\n  42\n"),
            "job.yaml:3: expected a map of job settings at the top level, got \"42\"");
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

// --- limits (jobs/README.md "Limits")

const std::string kTooLarge =
    " in magnitude (larger values overflow in the products a step forms, such as viscosity * dt "
    "/ h^2), got ";
const std::string kTooSmall =
    " (smaller values underflow, or overflow as reciprocals, in the products a step forms, such as "
    "viscosity * dt / h^2), got ";

TEST(ConfigLimits, EveryPhysicalValueIsAtMost1e30InMagnitude) {
  const std::string at_most = "must be at most 1e+30" + kTooLarge;
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
              "job.yaml:6: " + c.key + ": " + at_most + "\"" + c.got + "\"")
        << c.tail;
  }
  expect_error(kHead + "scalars: {s: {}}\nboundary: {x: {lower: {type: inflow, velocity: [1, 0], "
                       "scalars: {s: 1e31}}}}\n",
               {"job.yaml:7: boundary.x.lower.scalars.s: " + at_most + "\"1e31\""});
  expect_error("grid: {cells: [8, 8], origin: [-1e31, 0]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.origin[0]: " + at_most + "\"-1e31\""});
  expect_error("grid: {cells: [8, 8], size: [1e31, 1]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.size[0]: " + at_most + "\"1e31\""});
  expect_error("grid: {cells: [8, 8]}\ntime: {dt: 1, end: 1e31}\n",
               {"job.yaml:2: time.end: " + at_most + "\"1e31\""});
  expect_error("grid: {cells: [8, 8]}\ntime: {cfl: 1e31, dt_max: 1, end: 1}\n",
               {"job.yaml:2: time.cfl: " + at_most + "\"1e31\""});
  // The sign is checked before the size.
  expect_error(kHead + "fluid: {viscosity: -1e308}\n",
               {"job.yaml:6: fluid.viscosity: must be >= 0, got \"-1e308\""});

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
  const std::string at_least = "must be at least 1e-30" + kTooSmall;
  const std::string zero_or = "must be 0 or at least 1e-30" + kTooSmall;
  // 4.9e-324 is the smallest subnormal double.
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: 4.9e-324\n  end: 1e-320\n",
               {"job.yaml:3: time.dt: " + at_least + "\"4.9e-324\""});
  expect_error("grid: {cells: [8, 8], size: [1, 4.9e-324]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.size[1]: " + at_least + "\"4.9e-324\""});
  expect_error("grid: {cells: [8, 8]}\ntime: {dt: 1e-31, end: 1}\n",
               {"job.yaml:2: time.dt: " + at_least + "\"1e-31\""});
  expect_error("grid: {cells: [8, 8]}\ntime: {cfl: 1, dt_max: 1, end: 1e-31}\n",
               {"job.yaml:2: time.end: " + at_least + "\"1e-31\""});
  expect_error("grid: {cells: [8, 8]}\ntime: {cfl: 1e-31, dt_max: 1, end: 1}\n",
               {"job.yaml:2: time.cfl: " + at_least + "\"1e-31\""});
  expect_error("grid: {cells: [8, 8]}\ntime: {cfl: 1, dt_max: 2.2e-308, end: 1}\n",
               {"job.yaml:2: time.dt_max: " + at_least + "\"2.2e-308\""});
  expect_error("grid: {cells: [8, 8]}\ntime: {cfl: 1, dt_min: 1e-300, dt_max: 1, end: 1}\n",
               {"job.yaml:2: time.dt_min: " + zero_or + "\"1e-300\""});
  expect_error(kHead + "output: {interval: 1e-300}\n",
               {"job.yaml:6: output.interval: " + zero_or + "\"1e-300\""});
  expect_error(kHead + "checkpoint: {every_time: 1e-300}\n",
               {"job.yaml:6: checkpoint.every_time: " + zero_or + "\"1e-300\""});
  expect_error(kHead + "forces: {wind: {velocity: [1, 0], rate: 1e-31}}\n",
               {"job.yaml:6: forces.wind.rate: " + at_least + "\"1e-31\""});
  expect_error(kHead + "velocity: {initial: {type: vortex, center: [0, 0], radius: 1e-31, "
                       "strength: 1}}\n",
               {"job.yaml:6: velocity.initial.radius: " + at_least + "\"1e-31\""});
  expect_error(kHead + "obstacles: [{shape: sphere, center: [0, 0], radius: 5e-324}]\n",
               {"job.yaml:6: obstacles[0].radius: " + at_least + "\"5e-324\""});

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
  // 1 / 8 = 0.125 per cell, 1e-12 of 1e20 is 1e8.
  expect_error("grid: {cells: [8, 8], origin: [1e20, 0]}\ntime: {dt: 1, end: 1}\n",
               {"job.yaml:1: grid.origin[0]: the cells along x are 0.125 wide (size / cells), less "
                "than 1e-12 of the largest |coordinate| on that axis, 1e+20: a double could not "
                "tell positions within a cell apart"});
  expect_error("grid:\n  cells: [8, 8, 8]\n  size: [1, 1, 1]\n  origin: [0, 0, -2e11]\n"
               "time: {dt: 1, end: 1}\n",
               {"job.yaml:4: grid.origin[2]: the cells along z are 0.125 wide (size / cells), less "
                "than 1e-12 of the largest |coordinate| on that axis, 2e+11: a double could not "
                "tell positions within a cell apart"});
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
  // 1 / 1e-6 = 10^6 output times, and the initial frame: 000000 to 1000000.
  expect_error(kHead + "output:\n  interval: 1e-6\n",
               {"job.yaml:7: output.interval: time.end / output.interval gives 1000001 frames "
                "(with the initial one), more than the 1000000 that 6-digit frame numbers "
                "(<name>_NNNNNN.h5) allow, got \"1e-6\""});
  expect_error(kHead + "output:\n  interval: 1e-12\n  initial_frame: false\n",
               {"job.yaml:7: output.interval: time.end / output.interval gives 1e+12 frames, "
                "more than the 1000000 that 6-digit frame numbers (<name>_NNNNNN.h5) allow, got "
                "\"1e-12\""});
  // Without the initial frame, 10^6 output times are 000000 to 999999.
  EXPECT_EQ(sf::parse_job(kHead + "output: {interval: 1e-6, initial_frame: false}\n", "a")
                .output.interval,
            1e-6);
  EXPECT_EQ(sf::parse_job(kHead + "output: {interval: 1.000001e-6}\n", "a").output.interval,
            1.000001e-6);
}

TEST(ConfigLimits, StepsFitTheirEightDigitNumbers) {
  const std::string allow =
      ", more than the 99999999 that 8-digit step numbers in checkpoint names "
      "(<name>_checkpoint_NNNNNNNN.h5) allow, got ";
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: 1e-9\n  end: 1\n",
               {"job.yaml:3: time.dt: time.end / time.dt gives 1e+09 steps" + allow + "\"1e-9\""});
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: 1e-8\n  end: 1\n",
               {"job.yaml:3: time.dt: time.end / time.dt gives 1e+08 steps" + allow + "\"1e-8\""});
  // A step cut short to land on an output time may add one more per output time.
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: 1e-8\n  end: 0.99999999\n"
               "output: {interval: 0.1}\n",
               {"job.yaml:3: time.dt: time.end / time.dt gives 99999999 steps and up to 9 more cut "
                "short at output times" + allow + "\"1e-8\""});
  // An adaptive step is at most dt_max, so it takes at least end / dt_max steps.
  expect_error("grid: {cells: [8, 8]}\ntime:\n  cfl: 1\n  dt_max: 1e-9\n  end: 1\n",
               {"job.yaml:4: time.dt_max: time.end / time.dt_max gives at least 1e+09 steps" +
                allow + "\"1e-9\""});
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
  // 255 bytes less "_failed_step" + 10 digits + "_000000.h5.tmp".
  const std::string longest(219, 'n');
  EXPECT_EQ(sf::parse_job(kHead + "name: " + longest + "\n", "job.yaml").name, longest);
  expect_error(kHead + "name: " + longest + "x\n",
               {"job.yaml:6: name: is 220 characters long, more than 219: the longest file name a "
                "run derives from it, <name>_failed_step<step>_000000.h5.tmp, must fit in 255 "
                "bytes"});
  // A run name taken from the file's name is checked too, at the top of the job.
  const std::string source = "dir/" + std::string(230, 'j') + ".yaml";
  EXPECT_EQ(error_of(kHead, source),
            source + ":1: name: the run name taken from the job file's name (no name is given) is "
                     "230 characters long, more than 219: the longest file name a run derives "
                     "from it, <name>_failed_step<step>_000000.h5.tmp, must fit in 255 bytes");
  EXPECT_EQ(sf::parse_job(kHead, "dir/" + std::string(219, 'j') + ".yaml").name.size(), 219u);
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

// --- time

TEST(ConfigError, DtAndCflTogether) {
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  cfl: 1\n  dt_max: 1\n  end: 1\n",
               {"job.yaml:4: time.cfl: give either dt (a fixed step) or cfl (an adaptive step), "
                "not both (time.dt is given on line 3)"});
}

TEST(ConfigError, NeitherDtNorCfl) {
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt_max: 0.1\n  end: 1\n",
               {"job.yaml:3: time.dt: missing required key (give dt for a fixed step, or cfl "
                "and dt_max for an adaptive one)"});
}

TEST(ConfigError, CflWithoutDtMax) {
  expect_error("grid: {cells: [8, 8]}\ntime:\n  cfl: 2\n  end: 1\n",
               {"job.yaml:3: time.dt_max: missing required key (an adaptive step, time.cfl, "
                "needs dt_max"});
}

TEST(ConfigError, DtMinAboveDtMax) {
  expect_error("grid: {cells: [8, 8]}\ntime:\n  cfl: 2\n  dt_min: 0.1\n  dt_max: 0.05\n"
               "  end: 1\n",
               {"job.yaml:4: time.dt_min: must be at most time.dt_max = 0.05, got \"0.1\""});
}

TEST(ConfigError, StepBoundsWithFixedDt) {
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  dt_min: 0.01\n  end: 1\n",
               {"job.yaml:4: time.dt_min: is only used with an adaptive step (time.cfl), not "
                "with a fixed time.dt"});
  expect_error("grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  dt_max: 0.2\n  end: 1\n",
               {"job.yaml:4: time.dt_max: is only used with an adaptive step"});
}

TEST(ConfigError, AdaptiveStepOutOfRange) {
  expect_error("grid: {cells: [8, 8]}\ntime:\n  cfl: 0\n  dt_max: 1\n  end: 1\n",
               {"job.yaml:3: time.cfl: must be > 0, got \"0\""});
  expect_error("grid: {cells: [8, 8]}\ntime:\n  cfl: .inf\n  dt_max: 1\n  end: 1\n",
               {"job.yaml:3: time.cfl: must be finite, got \".inf\""});
  expect_error("grid: {cells: [8, 8]}\ntime:\n  cfl: 1\n  dt_max: 0\n  end: 1\n",
               {"job.yaml:4: time.dt_max: must be > 0, got \"0\""});
  expect_error("grid: {cells: [8, 8]}\ntime:\n  cfl: 1\n  dt_min: -1\n  dt_max: 1\n  end: 1\n",
               {"job.yaml:4: time.dt_min: must be >= 0, got \"-1\""});
  expect_error("grid: {cells: [8, 8]}\ntime:\n  cfl: 1\n  dt_max: 1\n  end: 0\n",
               {"job.yaml:5: time.end: must be > 0, got \"0\""});
  expect_error("grid: {cells: [8, 8]}\ntime:\n  cfl: 1\n  dt_max: 1\n",
               {"job.yaml:3: time.end: missing required key"});
}

// --- fluid and advection

TEST(ConfigError, NegativeViscosity) {
  expect_error(kHead + "fluid:\n  viscosity: -0.001\n",
               {"job.yaml:7: fluid.viscosity: must be >= 0, got \"-0.001\""});
}

TEST(ConfigError, UnknownAdvectionSchemeOrInterpolation) {
  expect_error(kHead + "advection:\n  scheme: maccormak\n",
               {"job.yaml:7: advection.scheme: unknown scheme (expected one of: semi_lagrangian, "
                "maccormack, bfecc), got \"maccormak\""});
  expect_error(kHead + "advection:\n  interpolation: cubic\n",
               {"job.yaml:7: advection.interpolation: unknown interpolation (expected one of: "
                "linear, monotone_cubic), got \"cubic\""});
}

TEST(ConfigError, MonotoneCubicNeedsHaloTwo) {
  expect_error("grid: {cells: [8, 8], halo: 1}\ntime: {dt: 1, end: 1}\n"
               "advection:\n  interpolation: monotone_cubic\n",
               {"job.yaml:4: advection.interpolation: monotone_cubic needs grid.halo >= 2, but "
                "grid.halo is 1"});
}

// --- forces

TEST(ConfigError, VorticityConfinementNeedsHaloTwo) {
  expect_error("grid: {cells: [8, 8], halo: 1}\ntime: {dt: 1, end: 1}\n"
               "forces:\n  vorticity_confinement: 0.5\n",
               {"job.yaml:4: forces.vorticity_confinement: vorticity confinement needs "
                "grid.halo >= 2, but grid.halo is 1"});
  expect_error(kHead + "forces: {vorticity_confinement: -1}\n",
               {"job.yaml:6: forces.vorticity_confinement: must be >= 0, got \"-1\""});
}

TEST(ConfigError, BuoyancyNamesUndeclaredScalar) {
  // A name the job gives is reported where it is given...
  expect_error(kHead + "scalars: {smoke: {}}\nforces:\n  buoyancy:\n    density: soot\n"
                       "    alpha: 0.1\n",
               {"job.yaml:9: forces.buoyancy.density: unknown scalar 'soot' (declared scalars: "
                "smoke); it is needed because forces.buoyancy.alpha is not 0"});
  // ... and a default name at the coefficient that makes it needed.
  expect_error(kHead + "forces:\n  buoyancy:\n    beta: 2\n",
               {"job.yaml:8: forces.buoyancy.beta: is not 0, so it needs the scalar "
                "'temperature' (the default of forces.buoyancy.temperature), which is not "
                "declared (no scalars are declared); declare it under scalars, or name another "
                "scalar with forces.buoyancy.temperature"});
  expect_error(kHead + "scalars: {temperature: {}}\nforces:\n  buoyancy:\n    alpha: -1\n",
               {"job.yaml:9: forces.buoyancy.alpha: is not 0, so it needs the scalar 'density'",
                "declared scalars: temperature"});
}

TEST(ConfigError, BuoyancyWithZeroCoefficientIgnoresItsScalar) {
  const JobConfig job = sf::parse_job(
      kHead + "forces:\n  buoyancy: {density: soot, temperature: heat, alpha: 0, beta: 0.0}\n",
      "a");
  EXPECT_TRUE(job.forces.buoyancy.enabled);
  EXPECT_EQ(job.forces.buoyancy.density_scalar, "soot");
  EXPECT_EQ(job.forces.buoyancy.temperature_scalar, "heat");
}

TEST(ConfigError, BuoyancyBadValues) {
  expect_error(kHead + "forces:\n  buoyancy:\n    up: [0, 0]\n",
               {"job.yaml:8: forces.buoyancy.up: must not be the zero vector"});
  expect_error(kHead + "forces:\n  buoyancy:\n    up: [0, 0, 1]\n",
               {"job.yaml:8: forces.buoyancy.up: expected a list of 2 numbers"});
  expect_error(kHead + "forces:\n  buoyancy:\n    beta: .nan\n",
               {"job.yaml:8: forces.buoyancy.beta: must be finite"});
  expect_error(kHead + "forces:\n  buoyancy:\n    density: [a]\n",
               {"job.yaml:8: forces.buoyancy.density: expected a string"});
  expect_error(kHead + "forces:\n  buoyancy: 1\n", {"job.yaml:7: forces.buoyancy: expected a map"});
}

TEST(ConfigError, WindNeedsAPositiveRate) {
  expect_error(kHead + "forces:\n  wind:\n    velocity: [1, 0]\n",
               {"job.yaml:8: forces.wind.rate: missing required key"});
  expect_error(kHead + "forces:\n  wind:\n    velocity: [1, 0]\n    rate: 0\n",
               {"job.yaml:9: forces.wind.rate: must be > 0, got \"0\""});
  expect_error(kHead + "forces:\n  wind:\n    velocity: [1, 0]\n    rate: -2\n",
               {"job.yaml:9: forces.wind.rate: must be > 0, got \"-2\""});
  expect_error(kHead + "forces:\n  wind:\n    rate: 1\n",
               {"job.yaml:8: forces.wind.velocity: missing required key"});
  expect_error(kHead + "forces:\n  wind:\n",
               {"job.yaml:7: forces.wind.velocity: missing required key"});
  expect_error(kHead + "forces:\n  wind:\n    velocity: [1, 0]\n    rate: 1\n"
                       "    region: {shape: sphere, center: [0, 0]}\n",
               {"job.yaml:10: forces.wind.region.radius: missing required key"});
}

TEST(ConfigError, ForceRegionWithoutAcceleration) {
  expect_error(kHead + "forces:\n  regions:\n    - {shape: sphere, center: [0, 0], radius: 1}\n",
               {"job.yaml:8: forces.regions[0].acceleration: missing required key"});
  expect_error(kHead + "forces:\n  regions:\n"
                       "    - {shape: sphere, center: [0, 0], radius: 1, acceleration: [1]}\n",
               {"job.yaml:8: forces.regions[0].acceleration: expected a list of 2 numbers"});
  expect_error(kHead + "forces:\n  regions: {shape: sphere}\n",
               {"job.yaml:7: forces.regions: expected a list of force regions, got a map"});
  expect_error(kHead + "forces:\n  gravity: [0, -9.81, 0]\n",
               {"job.yaml:7: forces.gravity: expected a list of 2 numbers"});
}

// --- obstacles and regions

TEST(ConfigError, ObstacleWithUnknownBoundary) {
  expect_error(kHead + "obstacles:\n  - {shape: sphere, center: [0, 0], radius: 1, "
                       "boundary: outflow}\n",
               {"job.yaml:7: obstacles[0].boundary: unknown obstacle boundary (expected one of: "
                "no-slip, free-slip), got \"outflow\""});
  expect_error(kHead + "obstacles: {shape: sphere}\n",
               {"job.yaml:6: obstacles: expected a list of obstacles, got a map"});
}

TEST(ConfigError, CylinderAxis) {
  expect_error(kHead + "obstacles:\n  - {shape: cylinder, center: [0.5, 0.5], radius: 0.1, "
                       "axis: x}\n",
               {"job.yaml:7: obstacles[0].axis: a cylinder in a 2-D job must run along z (it is "
                "then a disc), got \"x\""});
  expect_error("grid: {cells: [4, 4, 4]}\ntime: {dt: 1, end: 1}\nobstacles:\n"
               "  - {shape: cylinder, center: [0.5, 0.5, 0.5], radius: 0.1, axis: w}\n",
               {"job.yaml:4: obstacles[0].axis: unknown axis (expected one of: x, y, z), got "
                "\"w\""});
  expect_error(kHead + "obstacles:\n  - {shape: cylinder, center: [0.5, 0.5], radius: 0}\n",
               {"job.yaml:7: obstacles[0].radius: must be > 0, got \"0\""});
  expect_error(kHead + "obstacles:\n  - {shape: cylinder, radius: 1}\n",
               {"job.yaml:7: obstacles[0].center: missing required key"});
}

TEST(ConfigError, RegionsShareTheirChecks) {
  expect_error(kHead + "obstacles:\n  - {shape: box, lower: [0, 0.5], upper: [1, 0.5]}\n",
               {"job.yaml:7: obstacles[0].upper[1]: must be greater than lower[1] = 0.5"});
  expect_error(kHead + "obstacles:\n  - {center: [0, 0], radius: 1}\n",
               {"job.yaml:7: obstacles[0].shape: missing required key"});
  expect_error(kHead + "forces:\n  regions:\n    - {shape: cone, acceleration: [0, 1]}\n",
               {"job.yaml:8: forces.regions[0].shape: unknown shape (expected one of: sphere, "
                "box, cylinder), got \"cone\""});
  expect_error(kHead + "obstacles:\n  - {shape: sphere, center: [0, 0], radius: 1, value: 1}\n",
               {"job.yaml:7: obstacles[0].value: unknown key (expected one of: shape, center, "
                "radius, axis, lower, upper, boundary)"});
}

// --- scalars

TEST(ConfigError, SourceWithBadMode) {
  expect_error(kHead + "scalars:\n  s:\n    sources:\n"
                       "      - {shape: sphere, center: [0, 0], radius: 1, mode: multiply, "
                       "value: 1}\n",
               {"job.yaml:9: scalars.s.sources[0].mode: unknown mode (expected one of: set, "
                "add), got \"multiply\""});
}

TEST(ConfigError, SourceBadValues) {
  expect_error(kHead + "scalars:\n  s:\n    sources:\n"
                       "      - {shape: sphere, center: [0, 0], radius: 1}\n",
               {"job.yaml:9: scalars.s.sources[0].value: missing required key"});
  expect_error(kHead + "scalars:\n  s:\n    sources:\n"
                       "      - {shape: sphere, center: [0, 0], radius: 1, value: .inf}\n",
               {"job.yaml:9: scalars.s.sources[0].value: must be finite"});
  expect_error(kHead + "scalars:\n  s:\n    sources:\n"
                       "      - {shape: sphere, center: [0, 0], radius: 1, value: 1, "
                       "velocity: [0, 1, 0]}\n",
               {"job.yaml:9: scalars.s.sources[0].velocity: expected a list of 2 numbers"});
  expect_error(kHead + "scalars:\n  s:\n    sources: 1\n",
               {"job.yaml:8: scalars.s.sources: expected a list of sources, got \"1\""});
}

TEST(ConfigError, NegativeScalarDiffusionOrDissipation) {
  expect_error(kHead + "scalars:\n  s:\n    diffusion: -1e-3\n",
               {"job.yaml:8: scalars.s.diffusion: must be >= 0, got \"-1e-3\""});
  expect_error(kHead + "scalars:\n  s:\n    dissipation: -0.5\n",
               {"job.yaml:8: scalars.s.dissipation: must be >= 0, got \"-0.5\""});
}

// --- solvers

TEST(ConfigError, SolverToleranceOutOfRange) {
  expect_error(kHead + "pressure:\n  tolerance: 1\n",
               {"job.yaml:7: pressure.tolerance: must be > 0 and < 1, got \"1\""});
  expect_error(kHead + "pressure:\n  tolerance: 0\n",
               {"job.yaml:7: pressure.tolerance: must be > 0 and < 1, got \"0\""});
  expect_error(kHead + "diffusion:\n  tolerance: 2.5\n",
               {"job.yaml:7: diffusion.tolerance: must be > 0 and < 1, got \"2.5\""});
  expect_error(kHead + "diffusion:\n  absolute_tolerance: -1e-20\n",
               {"job.yaml:7: diffusion.absolute_tolerance: must be >= 0, got \"-1e-20\""});
}

TEST(ConfigError, SolverMaxIterations) {
  expect_error(kHead + "pressure:\n  max_iterations: 0\n",
               {"job.yaml:7: pressure.max_iterations: expected a positive integer, got \"0\""});
  expect_error(kHead + "diffusion:\n  max_iterations: 2.5\n",
               {"job.yaml:7: diffusion.max_iterations: expected a positive integer, got "
                "\"2.5\""});
  expect_error(kHead + "pressure:\n  max_iterations: 3000000000\n",
               {"job.yaml:7: pressure.max_iterations: is out of range (at most 2147483647), got "
                "\"3000000000\""});
}

// --- walls

TEST(ConfigError, WallVelocityWithNormalComponent) {
  expect_error(kHead + "boundary:\n  y:\n    upper: {type: no-slip, velocity: [1, 0.5]}\n",
               {"job.yaml:8: boundary.y.upper.velocity: a wall's velocity must be tangential "
                "(its y component, normal to the wall, must be 0, got 0.5)"});
  expect_error("grid: {cells: [4, 4, 4]}\ntime: {dt: 1, end: 1}\nboundary:\n"
               "  x: {lower: {type: no-slip, velocity: [-2, 1, 1]}}\n",
               {"job.yaml:4: boundary.x.lower.velocity: a wall's velocity must be tangential "
                "(its x component"});
  expect_error(kHead + "boundary:\n  y:\n    upper: {type: no-slip, velocity: [1, 0, 0]}\n",
               {"job.yaml:8: boundary.y.upper.velocity: expected a list of 2 numbers"});
}

TEST(ConfigError, InflowKeysOnAWall) {
  expect_error(kHead + "boundary:\n  y:\n    upper: {type: no-slip, velocity: [1, 0], "
                       "profile: parabolic}\n",
               {"job.yaml:8: boundary.y.upper.profile: unknown key for type 'no-slip' (expected "
                "one of: type, velocity)"});
  expect_error(kHead + "scalars: {s: {}}\nboundary:\n  y:\n    upper: {type: no-slip, "
                       "scalars: {s: 1}}\n",
               {"job.yaml:9: boundary.y.upper.scalars: unknown key for type 'no-slip'"});
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
  EXPECT_EQ(message, "cannot read job file '" + path + "': it is a directory, not a regular file");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

// A device never ends and a FIFO may block forever; both are refused before a byte is read. (A
// hang here is caught by the test's timeout.)
TEST(LoadJob, DeviceFailsOnEveryRankWithoutReadingIt) {
  const std::string message = load_error("/dev/zero");
  EXPECT_EQ(message, "cannot read job file '/dev/zero': it is a character device, not a regular "
                     "file");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

TEST(LoadJob, FifoFailsOnEveryRankWithoutWaitingForAWriter) {
  std::string path;
  if (sf::test::comm_rank() == 0) {
    path = (std::filesystem::temp_directory_path() /
            ("sf_test_config_fifo_" + std::to_string(::getpid())))
               .string();
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
  }
  path = from_rank0(path);
  const std::string message = load_error(path);
  EXPECT_EQ(message, "cannot read job file '" + path + "': it is a FIFO, not a regular file");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
  MPI_Barrier(MPI_COMM_WORLD);
  if (sf::test::comm_rank() == 0) std::remove(path.c_str());
}

TEST(LoadJob, FileOverOneMebibyteFailsOnEveryRank) {
  const TempJobFile file(kHead + std::string((1 << 20) + 1 - kHead.size(), '#'));
  const std::string message = load_error(file.path());
  EXPECT_EQ(message, "cannot read job file '" + file.path() + "': it is 1048577 bytes, more than "
                     "the 1048576 bytes (1 MiB) a job file may have");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

TEST(LoadJob, FileOfOneMebibyteOfUnknownKeysStopsAtTheFirst) {
  // Exactly at the limit, so it is read: 87381 keys of 12 bytes, and a comment to fill up.
  std::string text;
  while (text.size() + 12 <= (1u << 20)) {
    text += "k" + std::to_string(1000000 + text.size() / 12) + ": 1\n";
  }
  text.resize((1u << 20) - 1, '#');
  text += '\n';
  const TempJobFile file(text);
  const auto start = std::chrono::steady_clock::now();
  const std::string message = load_error(file.path());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(message, file.path() + ":1: k1000000: unknown key (expected one of: name, grid, "
                     "boundary, velocity, scalars, fluid, advection, forces, obstacles, time, "
                     "pressure, diffusion, output, checkpoint, debug, catalyst, petsc_options)");
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
  if (sf::test::comm_rank() == 0) {
    std::printf("a 1 MiB job of unknown keys was refused in %.3f s\n", seconds);
  }
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

/// Sets an environment variable on this rank for the lifetime of the object.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(LoadJob, GridTooLargeForMemoryFailsIdenticallyOnEveryRank) {
  // 64^3 cells at ~700 bytes each is about 0.18 GB; the test hook says only 1 MB is available.
  const TempJobFile file("grid:\n  cells: [64, 64, 64]\ntime: {dt: 0.1, end: 1.0}\n");
  std::string message;
  {
    const ScopedEnv hook("STABLEFLUIDS_MEMORY_AVAILABLE_BYTES", "1000000");
    message = load_error(file.path());
  }
  EXPECT_TRUE(Contains(message, file.path() + ":2: grid.cells: the grid needs about 0.184 GB "
                                              "(262144 cells at ~700 bytes per cell)"));
  EXPECT_TRUE(Contains(message, "have only 0.001 GB available; use more nodes or a smaller grid"));
  EXPECT_TRUE(Contains(message, "the ranks on node "));
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));

  // A 2D grid is estimated at 3/4 of the 3D cost per cell.
  const TempJobFile file2d("time: {dt: 0.1, end: 1.0}\ngrid: {cells: [1000, 1000]}\n");
  {
    const ScopedEnv hook("STABLEFLUIDS_MEMORY_AVAILABLE_BYTES", "1000000");
    message = load_error(file2d.path());
  }
  EXPECT_TRUE(Contains(message, file2d.path() + ":2: grid.cells: the grid needs about 0.525 GB "
                                                "(1000000 cells at ~525 bytes per cell)"));
  EXPECT_TRUE(on_all_ranks(message == from_rank0(message)));
}

TEST(LoadJob, GridThatFitsInMemoryIsAccepted) {
  const TempJobFile file("grid:\n  cells: [64, 64, 64]\ntime: {dt: 0.1, end: 1.0}\n");
  // Exactly enough for the ranks of one node is still enough: 262144 cells * 700 bytes.
  std::string with_hook, without_hook;
  {
    const ScopedEnv hook("STABLEFLUIDS_MEMORY_AVAILABLE_BYTES", "183500800");
    with_hook = load_error(file.path());
  }
  // Without the hook, the machine's own MemAvailable is used; a small job fits on any machine.
  const TempJobFile small(kHead);
  without_hook = load_error(small.path());
  EXPECT_EQ(with_hook, "<no JobError thrown>");
  EXPECT_EQ(without_hook, "<no JobError thrown>");
  EXPECT_TRUE(on_all_ranks(with_hook == "<no JobError thrown>" &&
                           without_hook == "<no JobError thrown>"));
}

// ---------------------------------------------------------------------------------------------
// The job files shipped in the source tree are documentation and regression cases: every one must
// parse, and so must the complete example in jobs/README.md.

/// The source tree: $STABLEFLUIDS_SOURCE_DIR if set, else the build's STABLEFLUIDS_SOURCE_DIR
/// definition, else empty (and the tests below fail rather than silently check nothing).
std::string source_dir() {
  if (const char* env = std::getenv("STABLEFLUIDS_SOURCE_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
#ifdef STABLEFLUIDS_SOURCE_DIR
  return STABLEFLUIDS_SOURCE_DIR;
#else
  return "";
#endif
}

/// The text of `path`, or nullopt if it cannot be read.
std::optional<std::string> slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const char* const kNoSourceDir =
    "the source directory is unknown: set STABLEFLUIDS_SOURCE_DIR in the environment, or build "
    "with target_compile_definitions(test_config PRIVATE STABLEFLUIDS_SOURCE_DIR=\"...\")";

TEST(JobFiles, EveryExampleJobParses) {
  const std::string root = source_dir();
  ASSERT_FALSE(root.empty()) << kNoSourceDir;
  const std::filesystem::path jobs = std::filesystem::path(root) / "jobs";
  ASSERT_TRUE(std::filesystem::is_directory(jobs)) << jobs << " is not a directory";

  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(jobs)) {
    const std::string extension = entry.path().extension().string();
    if (entry.is_regular_file() && (extension == ".yaml" || extension == ".yml")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const auto text = slurp(jobs / name);
    ASSERT_TRUE(text.has_value()) << "cannot read " << (jobs / name);
    try {
      // Named by its full path, as jobs/run names it: scripts are found beside the job.
      const JobConfig job = sf::parse_job(*text, (jobs / name).string());
      EXPECT_EQ(job.name, std::filesystem::path(name).stem().string())
          << "an example job's run name should match its file name";
    } catch (const JobError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  // The examples the documentation refers to must all be there.
  for (const char* expected :
       {"cavity_2d.yaml", "cylinder_2d.yaml", "plume_3d.yaml", "taylor_green_2d.yaml",
        "taylor_green_3d.yaml", "vortex_2d.yaml", "vortex_3d.yaml"}) {
    EXPECT_TRUE(std::find(names.begin(), names.end(), expected) != names.end())
        << "jobs/" << expected << " is missing";
  }
}

TEST(JobFiles, ReadmeCompleteExampleParses) {
  const std::string root = source_dir();
  ASSERT_FALSE(root.empty()) << kNoSourceDir;
  const auto readme = slurp(std::filesystem::path(root) / "jobs" / "README.md");
  ASSERT_TRUE(readme.has_value()) << "cannot read jobs/README.md";
  const std::size_t heading = readme->find("\n## A complete example");
  ASSERT_NE(heading, std::string::npos) << "jobs/README.md has no \"## A complete example\"";
  const std::string fence = "```yaml\n";
  const std::size_t begin = readme->find(fence, heading);
  ASSERT_NE(begin, std::string::npos);
  const std::size_t end = readme->find("\n```", begin + fence.size());
  ASSERT_NE(end, std::string::npos);
  const std::string text = readme->substr(begin + fence.size(), end + 1 - begin - fence.size());
  try {
    const JobConfig job = sf::parse_job(text, "jobs/README.md (complete example)");
    // The example is meant to show every section.
    EXPECT_TRUE(job.forces.buoyancy.enabled);
    EXPECT_TRUE(job.forces.wind.enabled);
    EXPECT_FALSE(job.forces.regions.empty());
    EXPECT_FALSE(job.obstacles.empty());
    EXPECT_GT(job.time.cfl, 0.0);
    EXPECT_GT(job.fluid.viscosity, 0.0);
  } catch (const JobError& e) {
    ADD_FAILURE() << e.what();
  }
}

}  // namespace

// Weak scaling: grid.cells_per_rank is multiplied by MPI's balanced process grid, which is then
// fixed so that every rank owns exactly the block the job names.
TEST(Config, CellsPerRankScalesWithTheRankCount) {
  const std::string text =
      "grid: {cells_per_rank: [16, 12, 10], halo: 2}\ntime: {dt: 0.1, end: 1}\n";
  JobConfig job = sf::parse_job(text, "weak.yaml");
  EXPECT_TRUE(job.grid.cells_per_rank);
  EXPECT_EQ(job.grid.dim, 3);
  for (int ranks : {1, 2, 4, 6, 8}) {
    JobConfig resolved = job;
    sf::resolve_ranks(resolved, ranks);
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(ranks, 3, dims);
    long product = 1;
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(resolved.grid.processes[a], dims[a]) << ranks << " ranks, axis " << a;
      EXPECT_EQ(resolved.grid.cells[a], job.grid.cells[a] * dims[a]) << ranks << " ranks";
      product *= resolved.grid.processes[a];
    }
    EXPECT_EQ(product, ranks);
  }
  // A job with the whole grid is left alone.
  JobConfig whole = sf::parse_job("grid: {cells: [8, 8]}\ntime: {dt: 0.1, end: 1}\n", "a.yaml");
  sf::resolve_ranks(whole, 4);
  EXPECT_EQ(whole.grid.cells[0], 8);
  EXPECT_EQ(whole.grid.processes[0], PETSC_DECIDE);
}

TEST(ConfigError, CellsAndCellsPerRankTogether) {
  expect_error("grid: {cells: [8, 8], cells_per_rank: [4, 4]}\ntime: {dt: 0.1, end: 1}\n",
               {"job.yaml:1: grid.cells_per_rank: give either cells or cells_per_rank, not both"});
}

TEST(ConfigError, CellsPerRankBeyondTheIndexRangeOnManyRanks) {
  JobConfig job = sf::parse_job(
      "grid: {cells_per_rank: [1024, 1024, 512]}\ntime: {dt: 0.1, end: 1}\n", "big.yaml");
  try {
    sf::resolve_ranks(job, 8);
    ADD_FAILURE() << "8 ranks of 1024 x 1024 x 512 cells must exceed 32-bit indices";
  } catch (const sf::JobError& error) {
    EXPECT_NE(std::string(error.what()).find("big.yaml:1: grid.cells_per_rank: 1024 x 1024 x "
                                             "512 cells per rank on 8 ranks"),
              std::string::npos)
        << error.what();
  }
}

// The catalyst section: defaults, paths relative to the job file, schedules, and its errors.
TEST(ConfigCatalyst, ScriptsResolveBesideTheJobAndKeepTheirSchedules) {
  const std::filesystem::path jobs = std::filesystem::path(STABLEFLUIDS_SOURCE_DIR) / "jobs";
  const std::string source = (jobs / "some_job.yaml").string();
  const JobConfig job = sf::parse_job(
      "grid: {cells: [8, 8, 8]}\ntime: {dt: 0.1, end: 1}\noutput: {directory: out}\n"
      "catalyst:\n  scripts:\n"
      "    - {script: catalyst/slice_png.py, every_time: 0.25, args: [--field, density]}\n"
      "    - script: catalyst/extract_pvti.py\n"
      "    - {script: catalyst/live.py, every_wall_seconds: 2.5}\n",
      source);
  EXPECT_EQ(job.catalyst.directory, "out/catalyst");
  ASSERT_EQ(job.catalyst.scripts.size(), 3u);
  EXPECT_EQ(job.catalyst.scripts[0].path, (jobs / "catalyst/slice_png.py").string());
  EXPECT_EQ(job.catalyst.scripts[0].every_time, 0.25);
  EXPECT_EQ(job.catalyst.scripts[0].args, (std::vector<std::string>{"--field", "density"}));
  EXPECT_EQ(job.catalyst.scripts[0].line, 6);
  EXPECT_EQ(job.catalyst.scripts[1].every_steps, 1);
  EXPECT_EQ(job.catalyst.scripts[1].every_time, 0.0);
  EXPECT_EQ(job.catalyst.scripts[1].every_wall_seconds, 0.0);
  EXPECT_EQ(job.catalyst.scripts[2].every_wall_seconds, 2.5);
  EXPECT_EQ(job.catalyst.scripts[2].every_steps, 1);
}

TEST(ConfigCatalyst, ErrorsNameTheKeyAndLine) {
  const std::string source = std::string(STABLEFLUIDS_SOURCE_DIR) + "/jobs/job.yaml";
  const std::string head = "grid: {cells: [8, 8, 8]}\ntime: {dt: 0.1, end: 1}\ncatalyst:\n";
  const auto message = [&](const std::string& tail) -> std::string {
    try {
      sf::parse_job(head + tail, source);
    } catch (const JobError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_THAT(message("  scripts:\n    - {script: catalyst/nope.py}\n"),
              ::testing::HasSubstr("job.yaml:5: catalyst.scripts[0].script: cannot read Catalyst "
                                   "script"));
  EXPECT_THAT(message("  scripts:\n    - {script: catalyst/live.py, every_steps: 2, "
                      "every_time: 1}\n"),
              ::testing::HasSubstr("give either every_steps or every_time, not both"));
  EXPECT_THAT(message("  scripts:\n    - {script: catalyst/live.py, every_steps: 0}\n"),
              ::testing::HasSubstr("every_steps: expected a positive integer"));
  EXPECT_THAT(message("  scripts:\n    - {script: catalyst/live.py, every_wall_seconds: 0}\n"),
              ::testing::HasSubstr("job.yaml:5: catalyst.scripts[0].every_wall_seconds: must be"));
  EXPECT_THAT(message("  scripts:\n    - {script: catalyst/live.py, args: [[1]]}\n"),
              ::testing::HasSubstr("args[0]: expected a string"));
  EXPECT_THAT(message("  scripts:\n    - {script: catalyst/live.py, how_often: 2}\n"),
              ::testing::HasSubstr("how_often: unknown key"));
  EXPECT_EQ(message("  scripts:\n    - {script: catalyst/live.py}\n"), "(accepted)");
  try {
    sf::parse_job("grid: {cells: [8, 8, 8], halo: 1}\ntime: {dt: 0.1, end: 1}\n"
                  "catalyst:\n  scripts:\n    - {script: catalyst/live.py}\n",
                  source);
    ADD_FAILURE() << "a halo of 1 was accepted with Catalyst scripts";
  } catch (const JobError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("job.yaml:4: catalyst: Catalyst output needs "
                                               "grid.halo >= 2"));
  }
}
