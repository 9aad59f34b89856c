// Valid jobs through the job file parser (src/job/): every section, its defaults and the values
// it parses to, with parse_job on in-memory text. The jobs it refuses are the table in
// test_job_errors.cpp, the limits in test_job_limits.cpp, load_job in test_load_job.cpp.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "job.hpp"
#include "job_test_util.hpp"

namespace {

using sf::BoundaryKind;
using sf::InflowProfile;
using sf::JobConfig;
using sf::JobError;
using sf::Region;
using sf::VelocityInit;
using sf::test::error_of;
using sf::test::kHead;

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

// solver: fft on a periodic box; solver: krylov anywhere, with its stopping rule.
TEST(Config, SolverMethods) {
  const JobConfig fft = sf::parse_job(kHead + "boundary: {x: periodic, y: periodic}\n"
                                              "pressure: {solver: fft}\n"
                                              "diffusion: {solver: fft}\n",
                                      "a");
  EXPECT_EQ(fft.pressure.method, sf::SolverConfig::Method::Fft);
  EXPECT_EQ(fft.diffusion.method, sf::SolverConfig::Method::Fft);
  const JobConfig krylov =
      sf::parse_job(kHead + "pressure: {solver: krylov, tolerance: 1e-6}\n"
                            "boundary: {x: periodic, y: periodic}\n"
                            "diffusion: {solver: fft}\n",
                    "a");
  EXPECT_EQ(krylov.pressure.method, sf::SolverConfig::Method::Krylov);
  EXPECT_EQ(krylov.pressure.rtol, 1e-6);
  EXPECT_EQ(krylov.diffusion.method, sf::SolverConfig::Method::Fft);
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
  EXPECT_EQ(job.pressure.max_divergence, 0.0);
  EXPECT_EQ(job.diffusion.rtol, 1e-10);
  EXPECT_EQ(job.diffusion.atol, 1e-14);
  EXPECT_EQ(job.diffusion.max_iterations, 500);
  EXPECT_EQ(job.pressure.method, sf::SolverConfig::Method::Krylov);
  EXPECT_EQ(job.diffusion.method, sf::SolverConfig::Method::Krylov);
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
      "  - {shape: sphere, center: [0.5, 0.9, 0.5], radius: 0.15, scalars: {temperature: 2}}\n"
      "  - {shape: cylinder, center: [0.3, 0.5, 0.5], radius: 0.05, axis: y,\n"
      "     boundary: free-slip, fluxes: {density: 3e-4}}\n"
      "  - {shape: box, lower: [0.8, 0, 0], upper: [1, 0.1, 1], boundary: no-slip,\n"
      "     surface: cut}\n"
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
  EXPECT_EQ(job.obstacles[0].surface, sf::ObstacleConfig::Surface::Staircase);  // the default
  EXPECT_EQ(job.obstacles[2].surface, sf::ObstacleConfig::Surface::Cut);
  // Scalar conditions as on a wall: a value held, a flux stored as the gradient flux / kappa.
  EXPECT_EQ(job.obstacles[0].scalar_values, (std::map<std::string, double>{{"temperature", 2.0}}));
  EXPECT_TRUE(job.obstacles[0].scalar_gradients.empty());
  ASSERT_EQ(job.obstacles[1].scalar_gradients.count("density"), 1u);
  EXPECT_DOUBLE_EQ(job.obstacles[1].scalar_gradients.at("density"), 3.0);
  EXPECT_TRUE(job.obstacles[2].scalar_values.empty());

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

  // The divergence target replaces the relative rule and keeps the iteration limit.
  const JobConfig target = sf::parse_job(
      kHead + "pressure: {max_divergence: 1e-5, max_iterations: 80}\n", "target.yaml");
  EXPECT_EQ(target.pressure.max_divergence, 1e-5);
  EXPECT_EQ(target.pressure.max_iterations, 80);
  EXPECT_EQ(target.diffusion.max_divergence, 0.0);

  // Probes keep the job's order; a point on the domain's boundary is inside.
  const JobConfig probes = sf::parse_job(
      kHead + "diagnostics:\n  probes:\n    wake: [0.75, 0.5]\n    corner: [1, 0]\n",
      "probes.yaml");
  ASSERT_EQ(probes.diagnostics.probes.size(), 2u);
  EXPECT_EQ(probes.diagnostics.probes[0].name, "wake");
  EXPECT_EQ(probes.diagnostics.probes[0].point, (std::array<double, 3>{0.75, 0.5, 0.0}));
  EXPECT_EQ(probes.diagnostics.probes[1].name, "corner");
  EXPECT_TRUE(job.diagnostics.probes.empty());
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

TEST(Config, TimeSchemeDefaultsToStamAndAcceptsBdf2) {
  const std::string grid = "grid: {cells: [8, 8], halo: 2}\n";
  EXPECT_EQ(sf::parse_job(grid + "time: {dt: 1, end: 1}\n", "a").time.scheme,
            sf::TimeScheme::Stam);
  const sf::JobConfig job = sf::parse_job(
      grid + "time: {scheme: bdf2, dt: 1, end: 1}\nadvection: {interpolation: cubic}\n", "a");
  EXPECT_EQ(job.time.scheme, sf::TimeScheme::BDF2);
  EXPECT_EQ(job.advection.interpolation, sf::Interpolation::Cubic);
}

TEST(Config, LiquidSectionAndItsDefaults) {
  const std::string head = "grid: {cells: [8, 8]}\ntime: {dt: 1, end: 1}\n";
  EXPECT_FALSE(sf::parse_job(head, "a").liquid.enabled);
  const sf::JobConfig job = sf::parse_job(
      head + "liquid:\n  initial:\n    - {shape: box, lower: [0, 0], upper: [0.4, 0.6]}\n"
             "    - {shape: sphere, center: [0.7, 0.7], radius: 0.1}\n",
      "a");
  ASSERT_TRUE(job.liquid.enabled);
  ASSERT_EQ(job.liquid.initial.size(), 2u);
  EXPECT_EQ(job.liquid.initial[0].shape, Region::Shape::Box);
  EXPECT_EQ(job.liquid.initial[1].radius, 0.1);
  EXPECT_EQ(job.liquid.band, 5);
  EXPECT_EQ(job.liquid.reinitialise_every, 1);
  const sf::JobConfig tuned = sf::parse_job(
      head + "liquid: {interface: level_set,"
             " initial: [{shape: sphere, center: [0.5, 0.5], radius: 0.2}], band: 3,"
             " reinitialise_every: 4}\n",
      "a");
  EXPECT_EQ(tuned.liquid.band, 3);
  EXPECT_EQ(tuned.liquid.reinitialise_every, 4);
  // The interface: the volume fraction by default, which has no marker particles; the level
  // set when asked for; a height field has its own surface (no interface: LevelSet).
  EXPECT_EQ(job.liquid.interface, sf::LiquidConfig::Interface::Vof);
  EXPECT_EQ(job.liquid.particles.per_cell, 0);
  EXPECT_EQ(tuned.liquid.interface, sf::LiquidConfig::Interface::LevelSet);
  EXPECT_EQ(sf::parse_job(head + "forces: {gravity: [0, -1]}\n"
                                 "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}],"
                                 " surface: height_field}\n",
                          "a")
                .liquid.interface,
            sf::LiquidConfig::Interface::LevelSet);
  // Marker particles with the level set: on by default, 16 a cell in 2D and 3D, 3 cells either
  // side, reseeded every 20 steps; per_cell: 0 turns them off.
  EXPECT_EQ(tuned.liquid.particles.per_cell, 16);
  EXPECT_EQ(tuned.liquid.particles.band, 3);
  EXPECT_EQ(tuned.liquid.particles.reseed_every, 20);
  const std::string cube = "grid: {cells: [8, 8, 8]}\ntime: {dt: 1, end: 1}\n";
  EXPECT_EQ(sf::parse_job(cube + "liquid: {interface: level_set,"
                                 " initial: [{shape: sphere, center: [0.5, 0.5, 0.5],"
                                 " radius: 0.2}]}\n",
                          "a")
                .liquid.particles.per_cell,
            16);
  const sf::JobConfig particles = sf::parse_job(
      head + "liquid: {interface: level_set,"
             " initial: [{shape: sphere, center: [0.5, 0.5], radius: 0.2}],"
             " particles: {per_cell: 0, band: 2, reseed_every: 5}}\n",
      "a");
  EXPECT_EQ(particles.liquid.particles.per_cell, 0);
  EXPECT_EQ(particles.liquid.particles.band, 2);
  EXPECT_EQ(particles.liquid.particles.reseed_every, 5);
  // Sources (optionally with a velocity) and sinks, each with its time span.
  const sf::JobConfig flows = sf::parse_job(
      head + "liquid: {interface: level_set,"
             " initial: [{shape: sphere, center: [0.5, 0.5], radius: 0.2}],"
             " sources: [{shape: box, lower: [0, 0.8], upper: [0.1, 0.9], velocity: [1, 0],"
             " start: 0.5}],"
             " sinks: [{shape: sphere, center: [1, 0], radius: 0.1, end: 2}]}\n",
      "a");
  ASSERT_EQ(flows.liquid.sources.size(), 1u);
  ASSERT_EQ(flows.liquid.sinks.size(), 1u);
  EXPECT_TRUE(flows.liquid.sources[0].has_velocity);
  EXPECT_EQ(flows.liquid.sources[0].velocity[0], 1.0);
  EXPECT_EQ(flows.liquid.sources[0].start, 0.5);
  EXPECT_TRUE(std::isinf(flows.liquid.sources[0].end));
  EXPECT_EQ(flows.liquid.sinks[0].region.radius, 0.1);
  EXPECT_EQ(flows.liquid.sinks[0].start, 0.0);
  EXPECT_EQ(flows.liquid.sinks[0].end, 2.0);
  EXPECT_FALSE(flows.liquid.sinks[0].has_velocity);
  // An inflow face that carries liquid where its regions cross the face.
  const sf::JobConfig inflow = sf::parse_job(
      head + "boundary: {x: {lower: {type: inflow, velocity: [1, 0],"
             " liquid: [{shape: box, lower: [-1, -1], upper: [0, 0.25]}]}, upper: outflow}}\n"
             "liquid: {interface: level_set,"
             " initial: [{shape: sphere, center: [0.5, 0.5], radius: 0.2}]}\n",
      "a");
  ASSERT_EQ(inflow.boundary[0][0].liquid.size(), 1u);
  EXPECT_EQ(inflow.boundary[0][0].liquid[0].upper[1], 0.25);
  EXPECT_TRUE(inflow.boundary[0][1].liquid.empty());
}

// A restart compares the physics of the checkpoint's job with the new one's: where an inflow's
// liquid crosses the face is part of it.
TEST(Config, ARestartSeesAnInflowsLiquidChange) {
  auto job = [](const char* depth) {
    return sf::parse_job(std::string("grid: {cells: [8, 8]}\ntime: {dt: 1, end: 1}\n"
                                     "boundary: {x: {lower: {type: inflow, velocity: [1, 0],"
                                     " liquid: [{shape: box, lower: [-1, -1], upper: [0, ") +
                             depth + "]}]}, upper: outflow}}\n"
                                     "liquid: {interface: level_set,"
                                     " initial: [{shape: box, lower: [0, 0], upper: [1, "
                                     "0.2]}]}\n",
                         "a");
  };
  EXPECT_EQ(sf::physics_differences(job("0.25"), job("0.25")), "");
  const std::string differences = sf::physics_differences(job("0.25"), job("0.3"));
  EXPECT_NE(differences.find("boundary.x.lower: checkpoint has"), std::string::npos)
      << differences;
}

// fluid.viscosity as a law of a scalar (solvers/variable_viscosity.hpp): its points, log-linear
// in between and held beyond, and a restart that sees a change of the law.
TEST(Config, VariableViscosityLaw) {
  auto job = [](const char* hot) {
    return sf::parse_job(std::string("grid: {cells: [8, 8]}\ntime: {dt: 1, end: 1}\n"
                                     "scalars: {temperature: {}}\n"
                                     "fluid:\n  viscosity:\n    from: temperature\n"
                                     "    values: [[0, 1000], [1, 10], [2, ") +
                             hot + "]]\n    average: harmonic\n",
                         "a");
  };
  const JobConfig parsed = job("0.1");
  const sf::ViscosityLaw& law = parsed.fluid.variable;
  EXPECT_TRUE(law.enabled());
  EXPECT_EQ(law.scalar, "temperature");
  EXPECT_EQ(law.average, sf::ViscosityAverage::Harmonic);
  EXPECT_EQ(parsed.fluid.viscosity, 0.0);
  ASSERT_EQ(law.at.size(), 3u);
  EXPECT_NEAR(std::exp(law.log_viscosity(-5.0)), 1000.0, 1e-9);
  EXPECT_NEAR(std::exp(law.log_viscosity(0.5)), 100.0, 1e-9);  // the geometric mean
  EXPECT_NEAR(std::exp(law.log_viscosity(1.5)), 1.0, 1e-12);
  EXPECT_NEAR(std::exp(law.log_viscosity(9.0)), 0.1, 1e-14);
  EXPECT_TRUE(std::isnan(law.log_viscosity(std::nan(""))));
  // A constant viscosity is still a number, and no law.
  EXPECT_FALSE(sf::parse_job(kHead + "fluid: {viscosity: 0.5}\n", "a").fluid.variable.enabled());
  EXPECT_EQ(sf::physics_differences(job("0.1"), job("0.1")), "");
  const std::string differences = sf::physics_differences(job("0.1"), job("0.2"));
  EXPECT_NE(differences.find("fluid.viscosity: checkpoint has"), std::string::npos)
      << differences;
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
// Checkpoints, debug and progress.

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

// Its refusals are the ProgressEvery rows of the table in test_job_errors.cpp.
TEST(Config, ProgressEvery) {
  EXPECT_EQ(sf::parse_job(kHead, "job.yaml").output.progress_every, 1);
  EXPECT_EQ(sf::parse_job(kHead + "output: {progress_every: 100}\n", "job.yaml").output.progress_every,
            100);
}

TEST(Config, ScriptedSourcesForcesAndNoise) {
  using A = std::array<double, 3>;
  const JobConfig job = sf::parse_job(kHead +
                                          "scalars:\n"
                                          "  density:\n"
                                          "    sources:\n"
                                          "      - {shape: sphere, center: [0.5, 0.2], radius: 0.1,"
                                          " value: 1, start: 0.5, end: 3}\n"
                                          "forces:\n"
                                          "  regions:\n"
                                          "    - shape: sphere\n"
                                          "      center: [0.2, 0.5]\n"
                                          "      radius: 0.1\n"
                                          "      acceleration: [4, 0]\n"
                                          "      keyframes:\n"
                                          "        - {time: 0, factor: 0}\n"
                                          "        - {time: 1, factor: 1.5, offset: [0.25, -0.5]}\n"
                                          "  noise: {amplitude: 2, scale: 0.05, period: 0.5}\n",
                                      "job.yaml");
  const sf::ScalarSource& source = job.scalars[0].sources[0];
  EXPECT_EQ(source.when.start, 0.5);
  EXPECT_EQ(source.when.end, 3.0);
  EXPECT_TRUE(source.when.keyframes.empty());
  const sf::TimeProfile& when = job.forces.regions[0].when;
  EXPECT_EQ(when.start, 0.0);
  EXPECT_EQ(when.end, std::numeric_limits<double>::infinity());
  ASSERT_EQ(when.keyframes.size(), 2u);
  EXPECT_EQ(when.keyframes[0].factor, 0.0);
  EXPECT_EQ(when.keyframes[0].offset, (A{0.0, 0.0, 0.0}));
  EXPECT_EQ(when.keyframes[1].time, 1.0);
  EXPECT_EQ(when.keyframes[1].factor, 1.5);
  EXPECT_EQ(when.keyframes[1].offset, (A{0.25, -0.5, 0.0}));
  const sf::NoiseConfig& noise = job.forces.noise;
  EXPECT_TRUE(noise.enabled);
  EXPECT_EQ(noise.scalar, "density");
  EXPECT_EQ(noise.amplitude, 2.0);
  EXPECT_EQ(noise.scale, 0.05);
  EXPECT_EQ(noise.period, 0.5);
  EXPECT_EQ(noise.seed, 1u);
  // A restart sees a change of any of them.
  const JobConfig plain = sf::parse_job(kHead + "scalars:\n  density: {}\n", "job.yaml");
  const std::string differences = sf::physics_differences(plain, job);
  EXPECT_NE(differences.find("forces.noise"), std::string::npos) << differences;
  EXPECT_NE(differences.find("forces.regions"), std::string::npos) << differences;
  EXPECT_NE(differences.find("scalars.density.sources"), std::string::npos) << differences;
}

TEST(Config, FireAndTexture) {
  const JobConfig job = sf::parse_job(
      kHead +
          "boundary: {y: {lower: no-slip, upper: outflow}}\n"
          "scalars: {gas: {}, heat: {}, smoke: {}}\n"
          "fire: {fuel: gas, temperature: heat, soot: smoke, burn_rate: 4, ignition_temperature: "
          "0.3, heat: 2, soot_yield: 0.25, expansion: 0.5}\n"
          "texture: {period: 1.5}\n",
      "job.yaml");
  EXPECT_TRUE(job.fire.enabled);
  EXPECT_EQ(job.fire.fuel, "gas");
  EXPECT_EQ(job.fire.temperature, "heat");
  EXPECT_EQ(job.fire.soot, "smoke");
  EXPECT_EQ(job.fire.burn_rate, 4.0);
  EXPECT_EQ(job.fire.ignition_temperature, 0.3);
  EXPECT_EQ(job.fire.heat, 2.0);
  EXPECT_EQ(job.fire.soot_yield, 0.25);
  EXPECT_EQ(job.fire.expansion, 0.5);
  EXPECT_TRUE(job.texture.enabled);
  EXPECT_EQ(job.texture.period, 1.5);
  // The coordinates are scalars of the job, after the declared ones.
  ASSERT_EQ(job.scalars.size(), 7u);
  EXPECT_EQ(job.scalars[3].name, "texture_a_x");
  EXPECT_EQ(job.scalars[4].name, "texture_a_y");
  EXPECT_EQ(job.scalars[5].name, "texture_b_x");
  EXPECT_EQ(job.scalars[6].name, "texture_b_y");
  const JobConfig plain = sf::parse_job(
      kHead + "boundary: {y: {lower: no-slip, upper: outflow}}\n"
              "scalars: {gas: {}, heat: {}, smoke: {}}\n",
      "job.yaml");
  const std::string differences = sf::physics_differences(plain, job);
  EXPECT_NE(differences.find("fire"), std::string::npos) << differences;
  EXPECT_NE(differences.find("texture.period"), std::string::npos) << differences;
  // The two sets' weights add up to 1; each is 0 when its set is reset.
  for (double t : {0.0, 0.1, 0.75, 1.2, 1.5, 2.25, 7.0}) {
    EXPECT_DOUBLE_EQ(sf::texture_weight(0, t, 1.5) + sf::texture_weight(1, t, 1.5), 1.0);
  }
  EXPECT_EQ(sf::texture_weight(0, 3.0, 1.5), 0.0);
  EXPECT_EQ(sf::texture_weight(1, 2.25, 1.5), 0.0);
  EXPECT_EQ(sf::texture_weight(0, 2.25, 1.5), 1.0);
}

// What the solver keeps in a scalar it added is not for a steering file's sources.
TEST(ConfigError, SteeringCannotWriteTheTextureCoordinates) {
  const JobConfig job = sf::parse_job(kHead + "scalars: {smoke: {}}\ntexture: {period: 1}\n",
                                      "job.yaml");
  EXPECT_NO_THROW(sf::parse_steering(
      "sources: {smoke: [{shape: sphere, center: [0.5, 0.5], radius: 0.1, value: 1}]}\n",
      "now.yaml", job));
  try {
    sf::parse_steering(
        "sources: {texture_a_x: [{shape: sphere, center: [0.5, 0.5], radius: 0.1, value: 1}]}\n",
        "now.yaml", job);
    ADD_FAILURE() << "a steering source on texture_a_x was accepted";
  } catch (const JobError& error) {
    EXPECT_NE(std::string(error.what()).find("now.yaml:1: sources.texture_a_x: is kept by the "
                                             "solver"),
              std::string::npos)
        << error.what();
  }
}

TEST(ConfigError, BuoyancyWithZeroCoefficientIgnoresItsScalar) {
  const JobConfig job = sf::parse_job(
      kHead + "forces:\n  buoyancy: {density: soot, temperature: heat, alpha: 0, beta: 0.0}\n",
      "a");
  EXPECT_TRUE(job.forces.buoyancy.enabled);
  EXPECT_EQ(job.forces.buoyancy.density_scalar, "soot");
  EXPECT_EQ(job.forces.buoyancy.temperature_scalar, "heat");
}

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

// The catalyst section: defaults, paths relative to the job file, schedules. Its errors are the
// CatalystScripts rows of the table in test_job_errors.cpp.
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

TEST(ConfigCatalyst, AScriptWithTheDefaultScheduleIsAccepted) {
  const std::string source = std::string(STABLEFLUIDS_SOURCE_DIR) + "/jobs/job.yaml";
  EXPECT_EQ(error_of("grid: {cells: [8, 8, 8]}\ntime: {dt: 0.1, end: 1}\ncatalyst:\n"
                     "  scripts:\n    - {script: catalyst/live.py}\n",
                     source),
            "<no JobError thrown>");
}

}  // namespace
