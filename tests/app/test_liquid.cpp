// A liquid under gravity with its free surface (free_surface_projection.hpp, velocity_extension.hpp
// and the liquid's step in schemes.cpp): a resting pool stays at rest with its volume, a
// standing wave oscillates at the period of linear theory, and a slab leaves the ceiling it
// hangs from, at every rank count; the whole runs of a dam break and of the spout at 1 and 4
// ranks (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <cmath>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "air_band_projection.hpp"
#include "diagnostics.hpp"
#include "mpi_test_util.hpp"
#include "level_set.hpp"
#include "volume_of_fluid.hpp"
#include "simulation.hpp"
#include "simulation_test_util.hpp"
#include "spray.hpp"

namespace sf {
namespace {

/// The jobs' output section: a directory of this rank count's own, no initial frame.
std::string scratch_output() {
  return "output: {directory: test_liquid_np" + std::to_string(test::comm_size()) +
         ", overwrite: true, initial_frame: false}\n";
}

/// The job of a unit box (square) with gravity g down y, a liquid given by `liquid_initial`
/// (a YAML list of regions), a probe at `probe`, run with fixed dt to `end`.
JobConfig liquid_job(int dim, long n, const std::string& liquid_initial, double dt, double end,
                     const std::string& probe) {
  const std::string cells = std::to_string(n);
  const std::string text =
      "name: liquid\n"
      "grid: {cells: [" + cells + ", " + cells + (dim == 3 ? ", " + cells : "") + "], size: [1, 1" +
      (dim == 3 ? ", 1" : "") + "]}\n"
      "forces: {gravity: [0, -9.81" + (dim == 3 ? ", 0" : "") + "]}\n"
      "advection: {interpolation: monotone_cubic}\n"
      "liquid: {interface: level_set, initial: " + liquid_initial + "}\n"
      "time: {dt: " + std::to_string(dt) + ", end: " + std::to_string(end) + "}\n"
      "diagnostics: {probes: {w: " + probe + "}}\n"
      + scratch_output();
  return parse_job(text, "liquid.yaml");
}

/// The steps of `job` (fixed dt), each step's diagnostics row in *rows; the columns' names in
/// *columns.
void run_steps(const JobConfig& job, std::vector<std::vector<double>>* rows,
               std::vector<std::string>* columns, double* max_velocity) {
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  FlowDiagnostics diagnostics;
  LevelSet level_set;
  ASSERT_EQ(level_set.setup(simulation.grid(), simulation.solids(), job.liquid), 0);
  double initial = 0.0;
  ASSERT_EQ(level_set.volume(simulation.scalars().back(), &initial), 0);
  const Field& phi = simulation.scalars().back();
  const auto volume = [&level_set, &phi](double* v) { return level_set.volume(phi, v); };
  ASSERT_EQ(diagnostics.setup(simulation.grid(), simulation.solids(), job, volume, initial), 0);
  *columns = diagnostics.columns();
  const int steps = static_cast<int>(std::lround(job.time.end / job.time.dt));
  *max_velocity = 0.0;
  for (int s = 0; s < steps; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    std::vector<double> row;
    ASSERT_EQ(diagnostics.measure(simulation.velocity(), simulation.scalars(),
                                  simulation.pressure(), &row),
              0);
    row.insert(row.begin(), simulation.time());
    rows->push_back(row);
    double u = 0.0;
    ASSERT_EQ(VecNorm(simulation.velocity().global(), NORM_INFINITY, &u), 0);
    *max_velocity = std::max(*max_velocity, u);
  }
}

size_t column_of(const std::vector<std::string>& columns, const std::string& name) {
  for (size_t c = 0; c < columns.size(); ++c)
    if (columns[c] == name) return c + 1;  // after the time
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// A pool whose flat surface lies inside a row of cells (y = 0.437) under gravity: the pressure
// is hydrostatic, linear in y, which the ghost-fluid surface (p = 0 at theta h) gives exactly,
// so the velocity stays 0 to the solver's tolerance and the volume to rounding.
TEST(FreeSurface, ARestingPoolStaysAtRest) {
  for (int dim : {2, 3}) {
    const std::string pool = dim == 2 ? "[{shape: box, lower: [-1, -1], upper: [2, 0.437]}]"
                                      : "[{shape: box, lower: [-1, -1, -1], upper: [2, 0.437, 2]}]";
    const JobConfig job = liquid_job(dim, dim == 2 ? 32 : 16, pool, 0.01, 0.2,
                                     dim == 2 ? "[0.5, 0.5]" : "[0.5, 0.5, 0.5]");
    std::vector<std::vector<double>> rows;
    std::vector<std::string> columns;
    double max_velocity = 0.0;
    run_steps(job, &rows, &columns, &max_velocity);
    ASSERT_EQ(rows.size(), 20u);
    EXPECT_LT(max_velocity, 1e-7) << dim << "D";
    const size_t change = column_of(columns, "liquid_volume_change");
    for (const auto& row : rows) EXPECT_LT(std::abs(row[change]), 1e-6) << dim << "D";
  }
}

// A standing wave in a tank 1 wide and 0.5 deep: the surface starts tilted by 0.02 (a huge sphere
// makes the plane), which is mostly the first mode, cos(pi x); a probe at x = 1/6, where the third
// mode has its node, reads the surface's height as -phi at y = 0.5. Linear theory:
// omega^2 = g k tanh(k h), k = pi, h = 0.5: period 1.1818. Measured on 32^2: 1.1857 (+0.33 %),
// volume change +0.008 % over 3 time units (without marker particles 1.1831 and +0.0006 %).
TEST(FreeSurface, AStandingWaveOscillatesAtTheLinearTheorysPeriod) {
  const JobConfig job =
      liquid_job(2, 32, "[{shape: sphere, center: [-1000, -49989.48899529785], radius: 50000}]",
                 0.01, 3.0, "[0.16666666666666666, 0.5]");
  std::vector<std::vector<double>> rows;
  std::vector<std::string> columns;
  double max_velocity = 0.0;
  run_steps(job, &rows, &columns, &max_velocity);
  const size_t height = column_of(columns, "probe_w_phi");
  // Upward crossings of the mean, interpolated in time.
  double mean = 0.0;
  for (const auto& row : rows) mean += row[height];
  mean /= static_cast<double>(rows.size());
  std::vector<double> crossings;
  for (size_t r = 1; r < rows.size(); ++r) {
    const double a = rows[r - 1][height] - mean, b = rows[r][height] - mean;
    if (a < 0.0 && b >= 0.0)
      crossings.push_back(rows[r - 1][0] + (rows[r][0] - rows[r - 1][0]) * a / (a - b));
  }
  ASSERT_GE(crossings.size(), 2u);
  const double period = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  const double theory = 2.0 * M_PI / std::sqrt(9.81 * M_PI * std::tanh(0.5 * M_PI));
  const size_t change = column_of(columns, "liquid_volume_change");
  if (test::comm_rank() == 0)
    std::printf("period %.4f against %.4f (%+.2f %%), volume change %+.4f %%\n", period, theory,
                100.0 * (period / theory - 1.0), rows.back()[change]);
  EXPECT_NEAR(period / theory, 1.0, 0.01);
  EXPECT_LT(std::abs(rows.back()[change]), 0.01);
}

/// phi along the line of cells that runs along `axis` through cell `through` (its index on
/// that axis is ignored), on every rank.
std::vector<double> line_of_phi(Simulation& simulation, int axis, std::array<PetscInt, 3> through) {
  const Grid& grid = simulation.grid();
  // The level set is the scalar named phi (a vof interface's fraction follows it).
  const Field* found = &simulation.scalars().back();
  for (const Field& field : simulation.scalars())
    if (field.name() == LiquidConfig::kLevelSetName) found = &field;
  const Field& phi = *found;
  std::vector<double> line(static_cast<size_t>(grid.cells(axis)), 0.0);
  const PetscScalar* data;
  ArrayView view;
  EXPECT_EQ(VecGetArrayRead(phi.global(), &data), 0);
  EXPECT_EQ(grid.global_view(phi.dm(), const_cast<PetscScalar*>(data), &view), 0);
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const PetscInt at[3] = {i, j, k};
    for (int b = 0; b < 3; ++b)
      if (b != axis && at[b] != through[b]) return;
    line[static_cast<size_t>(at[axis])] = view(i, j, k);
  });
  EXPECT_EQ(VecRestoreArrayRead(phi.global(), &data), 0);
  MPI_Allreduce(MPI_IN_PLACE, line.data(), static_cast<int>(line.size()), MPI_DOUBLE, MPI_SUM,
                grid.comm());
  return line;
}

/// Where phi changes sign along a column, interpolated linearly, from the bottom up.
std::vector<double> crossings_of(const std::vector<double>& column, double h) {
  std::vector<double> heights;
  for (size_t j = 1; j < column.size(); ++j)
    if ((column[j - 1] < 0.0) != (column[j] < 0.0))
      heights.push_back((static_cast<double>(j) - 0.5 + column[j - 1] / (column[j - 1] - column[j])) * h);
  return heights;
}

// A slab of liquid filling the top quarter of the box, touching the ceiling and both side walls,
// released under gravity. A wall cannot pull (wall_separation.hpp): the ceiling opens, the slab
// falls freely, the gap above it grows with it. Free fall after 0.2: the slab between 0.5538
// and 0.8038. Measured on 32^2 (h = 0.03125): 0.5651 and 0.8324, volume +6.0 % (+6.7 % without
// marker particles: the gap opens at the wall from a level set that held no surface there, a
// transient of a few steps that leaves the top 0.9 h behind); held
// to the ceiling, the slab stretched down with its top at 1. Every rank count agrees with one
// rank to 1e-3 h (measured 1.3e-4 h on 4): not to the bit, as the pressure is solved to a
// tolerance and a wall at the margin of opening may open a step apart; a ghost filled wrongly
// at a rank's edge would be off by a good part of h.
TEST(FreeSurface, ALiquidHangingFromTheCeilingFallsAway) {
  const JobConfig job = liquid_job(2, 32, "[{shape: box, lower: [-1, 0.75], upper: [2, 2]}]",
                                   0.005, 0.2, "[0.5, 0.5]");
  const double h = 1.0 / 32.0, fall = 0.5 * 9.81 * 0.2 * 0.2;
  std::vector<std::vector<double>> columns;
  // Every rank also runs the whole box alone, in a directory of its own (the run lock).
  JobConfig alone = job;
  alone.output.directory += "_rank" + std::to_string(test::comm_rank());
  alone.checkpoint.directory = alone.output.directory;
  for (const JobConfig* run : {&job, static_cast<const JobConfig*>(&alone)}) {
    Simulation simulation;
    ASSERT_EQ(simulation.setup(run == &job ? PETSC_COMM_WORLD : PETSC_COMM_SELF, *run), 0);
    for (int s = 0; s < 40; ++s) {
      StepReport report;
      ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    }
    // The column through x = 0.5.
    const auto middle = static_cast<PetscInt>(0.5 / simulation.grid().spacing(0));
    columns.push_back(line_of_phi(simulation, 1, {middle, 0, 0}));
  }
  const std::vector<double> surfaces = crossings_of(columns[0], h);
  ASSERT_EQ(surfaces.size(), 2u);
  if (test::comm_rank() == 0)
    std::printf("slab between %.4f and %.4f, free fall %.4f and %.4f\n", surfaces[0],
                surfaces[1], 0.75 - fall, 1.0 - fall);
  EXPECT_NEAR(surfaces[0], 0.75 - fall, 0.5 * h);
  EXPECT_NEAR(surfaces[1], 1.0 - fall, 1.0 * h);
  double differ = 0.0;
  for (size_t j = 0; j < columns[0].size(); ++j)
    differ = std::max(differ, std::abs(columns[0][j] - columns[1][j]));
  if (test::comm_rank() == 0) std::printf("largest difference from one rank %.3g h\n", differ / h);
  EXPECT_LT(differ, 1e-3 * h);
}

// The walls a liquid leaves are an active set the projection settles by solving again; in a
// splash it flickers (a wall opens on one solve and closes on the next). A 2D dam break over a
// block, 64 x 24 cells: the water strikes the block and the far wall and runs along the ceiling.
// Every projected velocity must be divergence-free in every liquid cell to the solver's
// tolerance (measured 3.8e-7 to 6.3e-7 / s on 1 to 4 ranks, against velocities of 6 over cells
// of 0.025: 250 / s). When the set was cut off after four solves and an open wall's velocity
// that pointed into the wall was set to 0, 36 of the 160 projections were cut off and the cell
// beside such a wall kept up to 17 / s (42 / s in dam_break_3d): liquid made from nothing. Since
// walls open only for a gap of kLeastGap and the reinitialisation's ENO correction is limited,
// one projection of the 160 needs the closing-only solves and that cut-off would no longer show
// here: the test holds the property, the closing-only phase keeps it true by construction.
TEST(FreeSurface, TheLiquidIsDivergenceFreeWhereItLeavesTheWalls) {
  const std::string text =
      "name: splash\n"
      "grid: {cells: [64, 24], size: [1.6, 0.6]}\n"
      "forces: {gravity: [0, -9.81]}\n"
      "advection: {interpolation: monotone_cubic}\n"
      "obstacles: [{shape: box, lower: [1.0, 0.0], upper: [1.15, 0.15], boundary: free-slip}]\n"
      "liquid: {interface: level_set,"
      " initial: [{shape: box, lower: [-1, -1], upper: [0.4, 0.5]}],\n"
      "         particles: {per_cell: 16}}\n"
      "time: {dt: 0.005, end: 0.8}\n"
      + scratch_output();
  const JobConfig job = parse_job(text, "splash.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  double worst = 0.0, fastest = 0.0;
  for (int s = 0; s < 160; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    worst = std::max(worst, report.max_divergence);
    double u = 0.0;
    ASSERT_EQ(VecNorm(simulation.velocity().global(), NORM_INFINITY, &u), 0);
    fastest = std::max(fastest, u);
  }
  if (test::comm_rank() == 0)
    std::printf("largest divergence in the liquid %.3g / s, fastest velocity %.3g\n", worst,
                fastest);
  EXPECT_GT(fastest, 2.0);  // it did splash
  EXPECT_LT(worst, 1e-4);
}

// Liquid entering through an inflow face (Foster & Metaxas' inflow): a channel 2 x 0.5 of
// 64 x 16 cells whose inflow face x = 0 carries liquid below y = 0.125 at speed 1 into an
// outflow face at x = 2, with and without gravity. At the face the stream keeps the depth the
// face gives it (measured 0.1249 in the first column at t = 1) and the liquid's volume grows at
// speed x depth, what crosses the face: measured -0.9 % with gravity, +0.5 % without, over
// t = 0.2 to 1 on 1 to 4 ranks, held to 3 %. With gravity the stream thins as it runs out along
// the floor (0.058 at x = 1). Without it the pressure is 0 but for the solver's noise, and
// before walls needed a least gap to open (FreeSurfaceProjection::kLeastGap) that noise opened
// the floor under the stream: -5.3 %. With the former zero-gradient ghosts at the face the
// stream climbed there (0.130) and the rate was +14 %.
TEST(FreeSurface, AnInflowFaceCarriesLiquidIntoTheChannel) {
  for (const double gravity : {-9.81, 0.0}) {
    const std::string text =
        "name: channel\n"
        "grid: {cells: [64, 16], size: [2.0, 0.5]}\n"
        "boundary:\n"
        "  x:\n"
        "    lower: {type: inflow, velocity: [1.0, 0.0],\n"
        "            liquid: [{shape: box, lower: [-1, -1], upper: [0, 0.125]}]}\n"
        "    upper: outflow\n"
        "  y: free-slip\n"
        "forces: {gravity: [0, " + std::to_string(gravity) + "]}\n"
        "advection: {interpolation: monotone_cubic}\n"
        "liquid: {interface: level_set,"
        " initial: [{shape: box, lower: [-1, -1], upper: [0.0625, 0.125]}]}\n"
        "time: {dt: 0.01, end: 1.0}\n"
        + scratch_output();
    const JobConfig job = parse_job(text, "channel.yaml");
    Simulation simulation;
    ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
    LevelSet measure;
    ASSERT_EQ(measure.setup(simulation.grid(), simulation.solids(), job.liquid), 0);
    const double h = simulation.grid().spacing(0), depth = 0.125, speed = 1.0;
    double early = 0.0, late = 0.0;
    for (int s = 1; s <= 100; ++s) {
      StepReport report;
      ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
      if (s == 20) {
        ASSERT_EQ(measure.volume(simulation.scalars().back(), &early), 0);
      }
    }
    ASSERT_EQ(measure.volume(simulation.scalars().back(), &late), 0);
    const std::vector<double> at_face = crossings_of(line_of_phi(simulation, 1, {0, 0, 0}), h);
    const std::vector<double> downstream =
        crossings_of(line_of_phi(simulation, 1, {32, 0, 0}), h);
    ASSERT_EQ(at_face.size(), 1u);
    ASSERT_EQ(downstream.size(), 1u);
    const double rate = (late - early) / 0.8;
    if (test::comm_rank() == 0)
      std::printf("gravity %g: depth %.5f at the face, %.4f at x = 1; volume rate %.4f against "
                  "%.4f\n",
                  gravity, at_face[0], downstream[0], rate, speed * depth);
    EXPECT_NEAR(at_face[0], depth, 0.05 * h) << gravity;
    // Under gravity it runs out along the floor, not a standing slab.
    if (gravity != 0.0) {
      EXPECT_LT(downstream[0], at_face[0] - h);
    }
    EXPECT_NEAR(rate, speed * depth, 0.03 * speed * depth) << gravity;
  }
}

// The collapse of a water column a wide and 2a high (n^2 = 2) on a dry floor, against Martin &
// Moyce (1952, Phil. Trans. R. Soc. A 244, their n^2 = 2 series as the common comparisons
// tabulate it): the front's position Z = x / a against T = t sqrt(2 g / a). a = 0.25 in a tank
// 1.5 x 0.75 of 144 x 72 cells, dt = 0.002, with the marker particles on. Simulations lead that
// experiment (its gate took time to open), so what is held is the front's speed, the
// least-squares slope dZ/dT over the points from T = 1.43 to 3.33, to 10 % of the experiment's
// (inviscid and free-slip, this model has none of the floor's friction that slowed the real
// front), and the lead, the mean of Z - Z_experiment over them, to between 0 and 0.5 (a gate
// delay of up to about T = 0.4); the liquid's volume stays within 1 % all the way. Measured on
// 1 and 4 ranks: slope 1.386 against 1.319 (+5.1 %), lead 0.293, volume within 0.18 %
// (docs/validation.md "Accuracy" has the table).
/// What a step of the vof interface may change the liquid's volume by, relative to `start`:
/// the c-term of a cell whose divergence is not 0, at most the projection's residual
/// (max_divergence) times dt in each liquid cell, and in each air cell the air band's
/// residual, at most AirBandProjection::kTolerance of a cell, once for its c-term and once for
/// what it may overfill (volume_of_fluid.hpp).
double vof_step_bound(const Grid& grid, double max_divergence, double dt, double start) {
  double cell = 1.0;
  for (int a = 0; a < grid.dim(); ++a) cell *= grid.spacing(a);
  const double cells = static_cast<double>(grid.total_cells());
  return (max_divergence * dt * start + 2.0 * AirBandProjection::kTolerance * cells * cell) /
         start;
}

/// The dam break of Martin & Moyce (1952) with the liquid's `interface`: the front's speed and
/// lead over the experiment, and the largest change of the volume (as the interface measures
/// it) relative to its start, until the front is near the far wall (T = 3.4).
void dam_break_front(const std::string& interface, double* speed_ratio, double* lead,
                     double* worst_volume, double* volume_bound) {
  const double a = 0.25, g = 9.81, scale = std::sqrt(2.0 * g / a);
  const double T_mm[] = {0.84, 1.19, 1.43, 1.63, 1.83, 1.98, 2.20,
                         2.32, 2.51, 2.65, 2.83, 2.98, 3.11, 3.33};
  const double Z_mm[] = {1.22, 1.44, 1.67, 1.89, 2.11, 2.33, 2.56,
                         2.78, 3.00, 3.22, 3.44, 3.67, 3.89, 4.11};
  const std::string text =
      "name: dam\n"
      "grid: {cells: [144, 72], size: [1.5, 0.75]}\n"
      "forces: {gravity: [0, -9.81]}\n"
      "advection: {interpolation: monotone_cubic}\n"
      "liquid: {initial: [{shape: box, lower: [-1, -1], upper: [0.25, 0.5]}], interface: " +
      interface + "}\n"
      "time: {dt: 0.002, end: 0.4}\n"
      + scratch_output();
  const JobConfig job = parse_job(text, "dam.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const bool vof = job.liquid.interface == LiquidConfig::Interface::Vof;
  LevelSet level_set;
  VolumeOfFluid fraction;
  ASSERT_EQ(level_set.setup(simulation.grid(), simulation.solids(), job.liquid), 0);
  ASSERT_EQ(fraction.setup(simulation.grid(), simulation.solids(), job.liquid), 0);
  const auto measure = [&](double* volume) {
    return vof ? fraction.volume(simulation.scalars().back(), volume)
               : level_set.volume(simulation.scalars().back(), volume);
  };
  double start = 0.0;
  ASSERT_EQ(measure(&start), 0);
  const double h = simulation.grid().spacing(0);
  std::vector<double> times = {0.0}, fronts = {1.0};
  *worst_volume = 0.0;
  *volume_bound = 0.0;
  while (times.back() < 3.4) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    *volume_bound += vof_step_bound(simulation.grid(), report.max_divergence, job.time.dt, start);
    const std::vector<double> row = line_of_phi(simulation, 0, {0, 0, 0});
    size_t last = 0;
    for (size_t i = 0; i < row.size(); ++i)
      if (row[i] < 0.0) last = i;
    ASSERT_LT(last + 1, row.size()) << "the front reached the far wall";
    const double x = (static_cast<double>(last) + 0.5 + row[last] / (row[last] - row[last + 1])) * h;
    times.push_back(simulation.time() * scale);
    fronts.push_back(x / a);
    double volume = 0.0;
    ASSERT_EQ(measure(&volume), 0);
    *worst_volume = std::max(*worst_volume, std::abs(volume / start - 1.0));
  }
  auto front_at = [&](double T) {
    size_t n = 1;
    while (times[n] < T) ++n;
    const double f = (T - times[n - 1]) / (times[n] - times[n - 1]);
    return fronts[n - 1] + f * (fronts[n] - fronts[n - 1]);
  };
  // Least squares over the points from T = 1.43 on: slope of the model's and the experiment's
  // fronts, and the model's mean lead.
  double sum_T = 0.0, sum_TT = 0.0, sum_Z = 0.0, sum_TZ = 0.0, sum_M = 0.0, sum_TM = 0.0;
  double count = 0.0;
  *lead = 0.0;
  for (size_t p = 0; p < std::size(T_mm); ++p) {
    const double Z = front_at(T_mm[p]);
    if (test::comm_rank() == 0)
      std::printf("T %.2f: Z %.3f, Martin & Moyce %.2f (%+.1f %%)\n", T_mm[p], Z, Z_mm[p],
                  100.0 * (Z / Z_mm[p] - 1.0));
    if (T_mm[p] < 1.43) continue;
    sum_T += T_mm[p];
    sum_TT += T_mm[p] * T_mm[p];
    sum_Z += Z;
    sum_TZ += T_mm[p] * Z;
    sum_M += Z_mm[p];
    sum_TM += T_mm[p] * Z_mm[p];
    *lead += Z - Z_mm[p];
    count += 1.0;
  }
  const double denominator = count * sum_TT - sum_T * sum_T;
  const double speed = (count * sum_TZ - sum_T * sum_Z) / denominator;
  const double speed_mm = (count * sum_TM - sum_T * sum_M) / denominator;
  *lead /= count;
  *speed_ratio = speed / speed_mm;
  if (test::comm_rank() == 0)
    std::printf("%s: front speed dZ/dT %.3f, Martin & Moyce %.3f (%+.1f %%), lead %.3f; volume "
                "within %.3g %%\n",
                interface.c_str(), speed, speed_mm, 100.0 * (speed / speed_mm - 1.0), *lead,
                100.0 * *worst_volume);
}

TEST(FreeSurface, ADamBreakFrontRunsAsMartinAndMoycesDid) {
  double speed_ratio = 0.0, lead = 0.0, worst_volume = 0.0, bound = 0.0;
  dam_break_front("level_set", &speed_ratio, &lead, &worst_volume, &bound);
  EXPECT_NEAR(speed_ratio, 1.0, 0.1);
  EXPECT_GT(lead, 0.0);
  EXPECT_LT(lead, 0.5);
  EXPECT_LT(worst_volume, 0.01);
}

// The same front with the volume fraction: as fast, and its volume changed by no more than the
// divergence the projection leaves.
TEST(FreeSurface, AVolumeOfFluidDamBreakRunsAsFastAndKeepsItsWater) {
  double speed_ratio = 0.0, lead = 0.0, worst_volume = 0.0, bound = 0.0;
  dam_break_front("vof", &speed_ratio, &lead, &worst_volume, &bound);
  EXPECT_NEAR(speed_ratio, 1.0, 0.1);
  EXPECT_GT(lead, 0.0);
  EXPECT_LT(lead, 0.5);
  EXPECT_LE(worst_volume, bound);
}

// Through the splash: the same dam break with the vof interface at 96 x 48 to t = 1.2, after the
// front has run up the far wall and come back down as a plunging wave that closes in air
// (dam_break_2d.yaml at 192 x 96 with the level set and its particles is 13.6 % off by t =
// 0.97). The volume stays within the bound each step's residuals give.
TEST(FreeSurface, AVolumeOfFluidDamBreakKeepsItsWaterThroughTheSplash) {
  const std::string text =
      "name: dam\n"
      "grid: {cells: [96, 48], size: [1.5, 0.75]}\n"
      "forces: {gravity: [0, -9.81]}\n"
      "advection: {interpolation: monotone_cubic}\n"
      "liquid: {initial: [{shape: box, lower: [-1, -1], upper: [0.25, 0.5]}], interface: vof}\n"
      "time: {dt: 0.002, end: 1.2}\n"
      + scratch_output();
  const JobConfig job = parse_job(text, "dam.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  VolumeOfFluid fraction;
  ASSERT_EQ(fraction.setup(simulation.grid(), simulation.solids(), job.liquid), 0);
  double start = 0.0, bound = 0.0, worst = 0.0;
  ASSERT_EQ(fraction.volume(simulation.scalars().back(), &start), 0);
  const int steps = static_cast<int>(std::lround(job.time.end / job.time.dt));
  for (int s = 0; s < steps; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    bound += vof_step_bound(simulation.grid(), report.max_divergence, job.time.dt, start);
    double volume = 0.0;
    ASSERT_EQ(fraction.volume(simulation.scalars().back(), &volume), 0);
    worst = std::max(worst, std::abs(volume / start - 1.0));
  }
  if (test::comm_rank() == 0)
    std::printf("volume within %.3g of its start (bound %.3g)\n", worst, bound);
  EXPECT_LE(worst, bound);
}

/// The steps of `text` (a vof job, fixed dt) with the largest change of the liquid's volume
/// relative to its start, as `measure` (the fraction's, or the fraction's and the spray's) gives
/// it, and the bound of the steps' residuals (vof_step_bound()). `each` sees each step.
void vof_volume_run(const JobConfig& job, double* worst, double* bound,
                    const std::function<PetscErrorCode(Simulation&, double*)>& measure,
                    const std::function<void(Simulation&, double volume, double start)>& each) {
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  double start = 0.0;
  ASSERT_EQ(measure(simulation, &start), 0);
  *worst = *bound = 0.0;
  const int steps = static_cast<int>(std::lround(job.time.end / job.time.dt));
  for (int s = 0; s < steps; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    *bound += vof_step_bound(simulation.grid(), report.max_divergence, job.time.dt, start);
    double volume = 0.0;
    ASSERT_EQ(measure(simulation, &volume), 0);
    *worst = std::max(*worst, std::abs(volume / start - 1.0));
    if (each) each(simulation, volume, start);
  }
}

// A paddle (a staircase box moving to and fro, 2 cells each way) in a tank with the vof
// interface: the cells it covers give their water to the fluid by its faces' velocity and the
// cells it uncovers take back what flows in (volume_of_fluid.hpp, "Bodies"), so the volume
// stays within the bound of the residuals over a whole period (with the mask's jumps deleting
// what they covered, paddle_3d.yaml lost 6.7 %). A restart goes on bit for bit.
TEST(FreeSurface, AVolumeOfFluidPaddleMovesTheWaterItMeetsAndDeletesNone) {
  const auto text = [](const std::string& name) {
    return "name: " + name + "\n"
           "grid: {cells: [48, 24], size: [1, 0.5]}\n"
           "forces: {gravity: [0, -9.81]}\n"
           "advection: {interpolation: monotone_cubic}\n"
           "obstacles: [{shape: box, lower: [0.2, -1], upper: [0.25, 0.4],"
           " motion: {amplitude: [0.04, 0], period: 0.5}}]\n"
           "liquid: {initial: [{shape: box, lower: [-1, -1], upper: [2, 0.3]}], interface: vof}\n"
           "time: {dt: 0.005, end: 0.5}\n"
           + scratch_output();
  };
  const JobConfig job = parse_job(text("paddle"), "paddle.yaml");
  VolumeOfFluid fraction;
  bool ready = false;
  const auto measure = [&](Simulation& simulation, double* volume) -> PetscErrorCode {
    PetscFunctionBeginUser;
    if (!ready) PetscCall(fraction.setup(simulation.grid(), simulation.solids(), job.liquid));
    ready = true;
    PetscCall(fraction.volume(simulation.scalars().back(), volume));
    PetscFunctionReturn(0);
  };
  double worst = 0.0, bound = 0.0;
  vof_volume_run(job, &worst, &bound, measure, nullptr);
  if (test::comm_rank() == 0)
    std::printf("volume within %.3g of its start (bound %.3g)\n", worst, bound);
  EXPECT_LE(worst, bound);
  // A run continued from a checkpoint mid-period goes on bit for bit (phi, the fraction and the
  // velocity).
  test::expect_restart_bit_for_bit(parse_job(text("paddle_straight"), "paddle_straight.yaml"),
                                   parse_job(text("paddle_restart"), "paddle_restart.yaml"),
                                   job.time.dt, 30, 20);
}

/// The steps CSV of a finished run: each row's numbers by column name.
std::vector<std::map<std::string, double>> read_steps(const std::string& path) {
  std::vector<std::map<std::string, double>> rows;
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> names;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    if (names.empty()) {
      names = cells;
      continue;
    }
    std::map<std::string, double> row;
    for (size_t c = 0; c < cells.size() && c < names.size(); ++c)
      row[names[c]] = std::strtod(cells[c].c_str(), nullptr);
    rows.push_back(row);
  }
  return rows;
}

// Spray with the vof interface keeps the books (spray.hpp, "Books"): a collapsing column sheds
// spray, whose volume leaves the fraction and comes back where it lands. The steps CSV's
// liquid_volume is the fraction's plus the spray's in flight; with what the fraction's
// advection clipped (fraction_clipped_volume, reported) added back, it stays within the bound
// of the steps' residuals (vof_step_bound()) at every step, while the spray in flight is far
// more than that bound. A restart with spray in flight goes on bit for bit.
TEST(FreeSurface, AVolumeOfFluidColumnKeepsItsWaterThroughItsSpray) {
  const auto text = [](const std::string& name) {
    return "name: " + name + "\n"
           "grid: {cells: [32, 32], size: [2, 2]}\n"
           "boundary: {x: free-slip, y: free-slip}\n"
           "forces: {gravity: [0, -1]}\n"
           "advection: {interpolation: monotone_cubic}\n"
           "liquid: {initial: [{shape: box, lower: [-1, -1], upper: [3, 0.3]},"
           " {shape: box, lower: [-1, -1], upper: [0.5, 1.4]}], interface: vof,"
           " spray: {threshold: 0.5, rate: 200}}\n"
           "time: {dt: 0.02, end: 1.2}\n"
           + scratch_output();
  };
  const JobConfig job = parse_job(text("column"), "column.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  ASSERT_EQ(simulation.run(), 0);
  MPI_Barrier(PETSC_COMM_WORLD);  // rank 0 has closed the steps CSV
  const auto rows = read_steps(job.output.directory + "/column_steps.csv");
  ASSERT_EQ(rows.size(), 60u);
  const double h = simulation.grid().spacing(0);
  const double start =
      rows[0].at("liquid_volume") / (1.0 + rows[0].at("liquid_volume_change") / 100.0);
  double clipped = 0.0, bound = 0.0, worst = 0.0, most_spray = 0.0;
  for (const auto& row : rows) {
    clipped += row.at("fraction_clipped_volume");
    bound += vof_step_bound(simulation.grid(), row.at("max_divergence"), job.time.dt, start);
    worst = std::max(worst, std::abs((row.at("liquid_volume") + clipped) / start - 1.0));
    most_spray = std::max(most_spray, row.at("spray_particles"));
  }
  // The least a particle holds: radius half the mean, a quarter of a cell.
  const double least_airborne = most_spray * M_PI * std::pow(0.5 * 0.25 * h, 2);
  if (test::comm_rank() == 0)
    std::printf("grid + spray + clipped within %.3g of its start (bound %.3g); clipped %.3g; "
                "%g spray particles at most, at least %.3g of the volume\n",
                worst, bound, clipped / start, most_spray, least_airborne / start);
  EXPECT_LE(worst, bound);
  EXPECT_GT(least_airborne / start, 100.0 * bound);
  // A run continued from a checkpoint with spray in flight (its liquid out of the fraction)
  // goes on bit for bit (phi, the fraction and the velocity).
  EXPECT_GT(rows[24].at("spray_particles"), 0.0);
  test::expect_restart_bit_for_bit(parse_job(text("column_straight"), "column_straight.yaml"),
                                   parse_job(text("column_restart"), "column_restart.yaml"),
                                   job.time.dt, 25, 10);
}

// The level set's opt-in volume controller (volume_control.hpp) against a steady leak: a disc
// carried across a periodic box at (1, 0.5) with linear interpolation loses its area steadily
// (27 % per unit time on 32^2 cells, 53 % by t = 2 without the controller). With the
// controller (response time T = 0.1) the integral term removes the offset a proportional
// controller alone would hold, L T / 2 = 1.3 %: from t = 1 (10 T) on what is left is the level
// set's own jitter from step to step, below a twentieth of that offset (measured 6.4e-5 on 1
// to 4 ranks), and a run continued from a checkpoint goes on bit for bit (the controller's
// integral is in the checkpoint).
TEST(FreeSurface, TheVolumeControllerHoldsALeakingLevelSetsVolume) {
  const auto text = [](const std::string& name, bool control) {
    return "name: " + name + "\n"
           "grid: {cells: [32, 32]}\n"
           "boundary: {x: periodic, y: periodic}\n"
           "velocity: {initial: {type: uniform, value: [1, 0.5]}}\n"
           "liquid: {interface: level_set,"
           " initial: [{shape: sphere, center: [0.5, 0.5], radius: 0.25}],"
           " particles: {per_cell: 0}" +
           std::string(control ? ", volume_control: {response_time: 0.1}" : "") + "}\n"
           "time: {dt: 0.01, end: 2}\n" + scratch_output();
  };
  const auto errors = [&](const std::string& name, bool control, double* settled, double* end) {
    const JobConfig job = parse_job(text(name, control), name + ".yaml");
    Simulation simulation;
    ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
    LevelSet level_set;
    ASSERT_EQ(level_set.setup(simulation.grid(), simulation.solids(), job.liquid), 0);
    double start = 0.0;
    ASSERT_EQ(level_set.volume(simulation.scalars().back(), &start), 0);
    *settled = 0.0;
    for (int s = 1; s <= 200; ++s) {
      ASSERT_EQ(test::run_steps(simulation, job.time.dt, 1), 0);
      double volume = 0.0;
      ASSERT_EQ(level_set.volume(simulation.scalars().back(), &volume), 0);
      *end = volume / start - 1.0;
      if (s >= 100) *settled = std::max(*settled, std::abs(*end));
    }
  };
  double free_settled = 0.0, free_end = 0.0, held_settled = 0.0, held_end = 0.0;
  errors("free", false, &free_settled, &free_end);
  errors("held", true, &held_settled, &held_end);
  const double leak = -free_end / 2.0, offset = leak * 0.1 / 2.0;
  if (test::comm_rank() == 0)
    std::printf("leak %.3g per unit time; held within %.3g from t = 1 (a proportional "
                "controller's offset %.3g)\n", leak, held_settled, offset);
  EXPECT_GT(leak, 0.1);
  EXPECT_LT(held_settled, offset / 20.0);

  // Restart: 40 steps straight against 20, a checkpoint, and 20 more.
  test::expect_restart_bit_for_bit(parse_job(text("held_straight", true), "held_straight.yaml"),
                                   parse_job(text("held_restart", true), "held_restart.yaml"),
                                   0.01, 20, 20);
}

// A spout 0.1 wide shooting liquid down at 1 from high in a box with a pool (liquid.sources
// with a velocity): the liquid's area grows at the rate its width and speed give, 0.1 per unit
// time (measured over t = 0.05 to 0.55 on 64^2: -1.6 %; the first steps fill the region and
// start the jet). A sink in the pool's corner holds its cells air at every step while the
// liquid flows into it.
TEST(FreeSurface, ASpoutAddsLiquidAtItsRateAndASinkTakesIt) {
  const std::string pool = "[{shape: box, lower: [-1, -1], upper: [2, 0.2]}]";
  std::string spout = pool +
                      ", sources: [{shape: box, lower: [0.45, 0.8], upper: [0.55, 0.9],"
                      " velocity: [0, -1]}]";
  JobConfig job = liquid_job(2, 64, spout, 0.0025, 0.55, "[0.5, 0.5]");
  std::vector<std::vector<double>> rows;
  std::vector<std::string> columns;
  double max_velocity = 0.0;
  run_steps(job, &rows, &columns, &max_velocity);
  const size_t volume = column_of(columns, "liquid_volume");
  auto at = [&](double t) {
    size_t r = 0;
    while (r + 1 < rows.size() && rows[r][0] < t - 1e-9) ++r;
    return rows[r][volume];
  };
  const double rate = (at(0.55) - at(0.05)) / 0.5;
  if (test::comm_rank() == 0) std::printf("spout: area grows at %.4f (width x speed: 0.1)\n", rate);
  EXPECT_NEAR(rate / 0.1, 1.0, 0.05);

  // The sink: a box round the lower right corner of the pool.
  const std::string sink = pool + ", sinks: [{shape: box, lower: [0.9, -0.1], upper: [1.1, 0.1]}]";
  job = liquid_job(2, 64, sink, 0.0025, 0.2, "[0.95, 0.05]");
  rows.clear();
  run_steps(job, &rows, &columns, &max_velocity);
  const size_t probe = column_of(columns, "probe_w_phi");
  double least = 1.0;
  for (const auto& row : rows) least = std::min(least, row[probe]);
  const size_t change = column_of(columns, "liquid_volume_change");
  if (test::comm_rank() == 0)
    std::printf("sink: phi in it at least %.4f, volume %+.2f %%\n", least, rows.back()[change]);
  EXPECT_GT(least, 0.0);  // the probe in the sink never sees liquid
  // The sink's own 0.01 of the 0.2 (5 %) and what flowed in: measured -18.4 % by t = 0.2.
  EXPECT_LT(rows.back()[change], -5.0);
}

// A piston (a moving obstacle, the tank's full height) pushes the water of a tank 1 x 1,
// 0.5 deep, at 0.2 for 1 time unit: the water it displaces must go up, not away. The volume is
// counted over the fluid cells of the moving mask, which gains a column of solid cells (1/48 x
// 0.5, 2.3 % of the water) each time the piston's face passes a column of centres, every 0.104,
// while its faces push the water at 0.2 all the time: the count is a sawtooth round the true
// volume, +-1.2 % (measured +1.40 / -1.42 %). Its mean over the last half (4.8 teeth) is the
// test: measured -0.016 % on 1, 2 and 4 ranks. The mean depth over the fluid's width rises from
// 0.5 to 0.63.
TEST(FreeSurface, APistonRaisesTheWaterItPushes) {
  const std::string text =
      "name: piston\n"
      "grid: {cells: [48, 48], size: [1, 1]}\n"
      "forces: {gravity: [0, -9.81]}\n"
      "advection: {interpolation: monotone_cubic}\n"
      "obstacles: [{shape: box, lower: [-1, -1], upper: [0.1, 2], boundary: free-slip,\n"
      "             motion: {velocity: [0.2, 0]}}]\n"
      "liquid: {interface: level_set, initial: [{shape: box, lower: [-1, -1], upper: [2, 0.5]}]}\n"
      "time: {dt: 0.01, end: 1}\n"
      "diagnostics: {probes: {w: [0.75, 0.5]}}\n"
      + scratch_output();
  const JobConfig job = parse_job(text, "piston.yaml");
  std::vector<std::vector<double>> rows;
  std::vector<std::string> columns;
  double max_velocity = 0.0;
  run_steps(job, &rows, &columns, &max_velocity);
  ASSERT_EQ(rows.size(), 100u);
  const size_t change = column_of(columns, "liquid_volume_change");
  const size_t volume = column_of(columns, "liquid_volume");
  double worst = 0.0, mean = 0.0;
  for (size_t r = 0; r < rows.size(); ++r) {
    worst = std::max(worst, std::abs(rows[r][change]));
    if (r >= 50) mean += rows[r][change] / 50.0;
  }
  // The piston covers the 14 columns whose centres lie below x = 0.3 at t = 1.
  const double depth = rows.back()[volume] / (1.0 - 14.0 / 48.0);
  if (test::comm_rank() == 0)
    std::printf("piston: volume count within %.3f %%, mean over the last half %+.3f %%, mean "
                "depth %.4f\n",
                worst, mean, depth);
  EXPECT_LT(worst, 1.5);              // one column's sawtooth, nothing more
  EXPECT_LT(std::abs(mean), 0.5);     // no water lost or made
  // And the water did rise: the probe at (0.75, 0.5), on the surface at the start, is under it
  // (measured phi = -0.104 there at t = 1, the surface 0.60 high and still swinging).
  const size_t probe = column_of(columns, "probe_w_phi");
  if (test::comm_rank() == 0)
    std::printf("piston: phi at the probe %.4f at t = 1\n", rows.back()[probe]);
  EXPECT_LT(rows.back()[probe], -0.08);
}

}  // namespace
}  // namespace sf
