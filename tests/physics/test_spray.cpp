// Spray and foam (spray.hpp): spray flies on the exact trajectories of gravity and drag from
// rank to rank, a still pool sheds none, a breaking column sheds spray that lands as foam on
// the surface, foam lives as long as its exponential law says, and splitting keeps the volume,
// at every rank count.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "interpolation.hpp"
#include "mpi_test_util.hpp"
#include "simulation.hpp"
#include "spray.hpp"
#include "simulation_test_util.hpp"

namespace sf {
namespace {

/// A 2-D box of 2 x 2 (32 x 32 cells) with a pool `depth` deep, g = 1 down, and `spray` (the
/// keys of liquid.spray).
std::string pool(const std::string& name, double depth, const std::string& spray,
                 const std::string& more = "") {
  return "name: " + name + "\n"
         "grid: {cells: [32, 32], size: [2, 2]}\n"
         "boundary: {x: free-slip, y: free-slip}\n"
         "forces: {gravity: [0, -1]}\n"
         "liquid:\n"
         "  initial: [{shape: box, lower: [-1, -1], upper: [3, " + std::to_string(depth) + "]}" +
         more + "]\n"
         "  particles: {per_cell: 0}\n"
         "  spray: {" + spray + "}\n"
         "time: {dt: 0.05, end: 100}\n"
         "output: {directory: test_spray_np" + std::to_string(test::comm_size()) +
         ", overwrite: true, initial_frame: false}\n";
}

struct Census {
  PetscInt spray = 0, foam = 0;
};

Census count(const Simulation& simulation) {
  Census c;
  EXPECT_EQ(simulation.part<Spray>()->census(&c.spray, &c.foam), 0);
  return c;
}

// Particles thrown from rank 0 fly over the other ranks' blocks on the exact solution of
// dv/dt = g - k v: a parabola without drag, and with k = 0.5 the exponential approach to the
// terminal velocity, to 1e-12 after 20 steps, whatever rank holds them at the end. One thrown
// up through the top of the box is gone; none is lost or doubled on the way.
TEST(Spray, FliesOnTheExactTrajectoryOfGravityAndDragFromRankToRank) {
  const double dt = 0.05, t = 20 * dt, g = -1.0;
  for (const double k : {0.0, 0.5}) {
    const JobConfig job = parse_job(
        pool("fly", 0.1, "threshold: 100, drag: " + std::to_string(k)), "fly.yaml");
    Simulation simulation;
    ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
    // Eight from the left half going right and up, eight from the right going left; number 16
    // straight up, fast enough to leave through the top.
    const auto start = [](int n, std::array<double, 3>* x, std::array<double, 3>* v) {
      const bool left = n < 8;
      *x = {left ? 0.3 + 0.05 * n : 1.7 - 0.05 * (n - 8), 1.0 + 0.04 * (n % 8), 0.0};
      *v = {left ? 0.8 : -0.8, 0.3 + 0.05 * (n % 8), 0.0};
      if (n == 16) *v = {0.0, 3.0, 0.0};
    };
    if (test::comm_rank() == 0)
      for (int n = 0; n < 17; ++n) {
        std::array<double, 3> x, v;
        start(n, &x, &v);
        ASSERT_EQ(simulation.part<Spray>()->add_spray(x, v, 0.01, n), 0);
      }
    ASSERT_EQ(test::run_steps(simulation, dt, 20), 0);
    SprayRecords records;
    ASSERT_EQ(simulation.part<Spray>()->records(&records), 0);
    double worst = 0.0;
    for (size_t p = 0; p < records.size(); ++p) {
      std::array<double, 3> x, v;
      start(static_cast<int>(records[kSprayId][p]), &x, &v);
      const double gravity[2] = {0.0, g};
      for (int a = 0; a < 2; ++a) {
        double position = 0.0, velocity = 0.0;
        if (k == 0.0) {
          position = x[a] + v[a] * t + 0.5 * gravity[a] * t * t;
          velocity = v[a] + gravity[a] * t;
        } else {
          const double terminal = gravity[a] / k;
          position = x[a] + terminal * t + (v[a] - terminal) * (1.0 - std::exp(-k * t)) / k;
          velocity = terminal + (v[a] - terminal) * std::exp(-k * t);
        }
        worst = std::max({worst, std::abs(records[kSprayPosition][3 * p + a] - position),
                          std::abs(records[kSprayVelocity][3 * p + a] - velocity)});
      }
      EXPECT_NE(records[kSprayId][p], 16.0);
    }
    EXPECT_LT(test::global_max(worst), 1e-12) << "drag " << k;
    const Census c = count(simulation);
    EXPECT_EQ(c.spray, 16);
    EXPECT_EQ(c.foam, 0);
  }
}

// A pool at rest sheds nothing: its surface does not move.
TEST(Spray, AStillPoolShedsNone) {
  const JobConfig job = parse_job(pool("still", 0.7, "threshold: 0.05, rate: 1000"), "still.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  ASSERT_EQ(test::run_steps(simulation, 0.05, 20), 0);
  const Census c = count(simulation);
  EXPECT_EQ(c.spray, 0);
  EXPECT_EQ(c.foam, 0);
}

/// The largest |phi(x)| / h over this rank's foam and the least phi(x) / h over its spray.
void surface_distances(Simulation& simulation, double* foam_off, double* spray_least) {
  const Grid& grid = simulation.grid();
  Field& phi = simulation.scalars().back();
  ASSERT_EQ(phi.fill_ghosts(), 0);
  const PetscScalar* data;
  ArrayView level;
  ASSERT_EQ(VecGetArrayRead(phi.local(), &data), 0);
  ASSERT_EQ(grid.local_view(phi.dm(), const_cast<PetscScalar*>(data), &level), 0);
  const LocalSampler sampler(grid, level, Interpolation::Linear);
  SprayRecords records;
  ASSERT_EQ(simulation.part<Spray>()->records(&records), 0);
  *foam_off = 0.0;
  *spray_least = 1e300;
  const double h = grid.spacing(0);
  for (size_t p = 0; p < records.size(); ++p) {
    double value = 0.0;
    ASSERT_TRUE(sampler.sample(0, -1, &records[kSprayPosition][3 * p], &value));
    if (records[kSprayKind][p] == 1.0)
      *foam_off = std::max(*foam_off, std::abs(value) / h);
    else
      *spray_least = std::min(*spray_least, value / h);
  }
  ASSERT_EQ(VecRestoreArrayRead(phi.local(), &data), 0);
}

// A column of water collapsing into a pool throws spray where its surface moves out faster than
// the threshold, and the spray lands as foam. After every step (migrations between ranks
// included) the stage's invariants hold: foam lies on the surface (within a fifth of a cell:
// measured 0.007 of a cell at most on 1 rank), spray in the air (phi > 0).
TEST(Spray, ACollapsingColumnShedsSprayThatLandsAsFoamOnTheSurface) {
  const JobConfig job = parse_job(
      pool("column", 0.3, "threshold: 0.5, rate: 200",
           ", {shape: box, lower: [-1, -1], upper: [0.5, 1.4]}"),
      "column.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  PetscInt most_spray = 0;
  double foam_off = 0.0, spray_least = 1e300;
  for (int s = 0; s < 60; ++s) {
    ASSERT_EQ(test::run_steps(simulation, 0.02, 1), 0);
    most_spray = std::max(most_spray, count(simulation).spray);
    double off = 0.0, least = 0.0;
    surface_distances(simulation, &off, &least);
    foam_off = std::max(foam_off, off);
    spray_least = std::min(spray_least, least);
  }
  EXPECT_GT(most_spray, 50);
  EXPECT_GT(count(simulation).foam, 50);
  EXPECT_LT(test::global_max(foam_off), 0.2);
  EXPECT_GT(-test::global_max(-spray_least), 0.0);
}

// Spray dropped onto a still pool lands as foam whose lives are exponential with the mean
// foam_life (for the mean radius): after one mean life e^-1 of it is left, to the statistics of
// 2000 draws (4 sigma: 0.045), and after three, e^-3.
TEST(Spray, FoamLivesAsItsExponentialLawSays) {
  const double dt = 0.05, life = 1.0, radius = 0.01;
  const JobConfig job = parse_job(
      pool("foam", 0.5, "threshold: 100, radius: 0.01, foam_life: 1"), "foam.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const int dropped = 2000;
  if (test::comm_rank() == 0)
    for (int n = 0; n < dropped; ++n) {
      const std::array<double, 3> x = {0.05 + 1.9 * (n + 0.5) / dropped, 0.52, 0.0};
      ASSERT_EQ(simulation.part<Spray>()->add_spray(x, {0.0, -1.0, 0.0}, radius, n), 0);
    }
  ASSERT_EQ(test::run_steps(simulation, dt, 1), 0);  // every one lands in the first step
  const Census landed = count(simulation);
  EXPECT_EQ(landed.foam, dropped);
  EXPECT_EQ(landed.spray, 0);
  ASSERT_EQ(test::run_steps(simulation, dt, static_cast<int>(std::lround(life / dt))), 0);
  EXPECT_NEAR(static_cast<double>(count(simulation).foam) / dropped, std::exp(-1.0), 0.045);
  ASSERT_EQ(test::run_steps(simulation, dt, static_cast<int>(std::lround(2.0 * life / dt))), 0);
  EXPECT_NEAR(static_cast<double>(count(simulation).foam) / dropped, std::exp(-3.0), 0.02);
}

// A spray particle that splits becomes two of half its volume: the total volume of a cloud that
// splits on average every 0.1 stays what it was (to rounding) while the particles multiply.
TEST(Spray, SplittingKeepsTheVolume) {
  const JobConfig job =
      parse_job(pool("split", 0.1, "threshold: 100, split_time: 0.1"), "split.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const double radius = 0.02;
  if (test::comm_rank() == 0) {
    for (int n = 0; n < 10; ++n)
      ASSERT_EQ(simulation.part<Spray>()->add_spray({0.2 + 0.16 * n, 1.5, 0.0}, {0.0, 0.5, 0.0},
                                                    radius, n),
                0);
  }
  ASSERT_EQ(test::run_steps(simulation, 0.05, 10), 0);
  SprayRecords records;
  ASSERT_EQ(simulation.part<Spray>()->records(&records), 0);
  double volume = 0.0;
  for (const double r : records[kSprayRadius]) volume += r * r * r;
  EXPECT_NEAR(test::global_total(volume), 10 * radius * radius * radius,
              1e-12 * radius * radius * radius);
  EXPECT_GT(count(simulation).spray, 40);  // 10 (2 - e^-0.5)^10 = 275 expected
}

/// This rank's particles as rows (x y z vx vy vz radius life kind id: a checkpoint's), sorted by
/// id.
std::vector<std::array<double, 10>> sorted_rows(Simulation& simulation) {
  SprayRecords records;
  EXPECT_EQ(simulation.part<Spray>()->records(&records), 0);
  EXPECT_EQ(records.table().row_width(), 10u);
  const std::vector<double> values = records.rows();
  std::vector<std::array<double, 10>> rows(records.size());
  for (size_t p = 0; p < records.size(); ++p)
    std::copy(&values[10 * p], &values[10 * p] + 10, rows[p].begin());
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a[9] < b[9]; });
  return rows;
}

// The spray and foam are in the checkpoint: a run continued from one goes on bit for bit, its
// particles (every field of every one) and the liquid's fields. The checkpoint is taken once the
// collapsing column has shed spray and some has landed.
TEST(Spray, ARestartContinuesBitForBit) {
  const auto text = [](const std::string& name) {
    return pool(name, 0.3, "threshold: 0.5, rate: 200, split_time: 0.2, foam_life: 1",
                ", {shape: box, lower: [-1, -1], upper: [0.5, 1.4]}");
  };
  const JobConfig job = parse_job(text("spray_restart"), "spray_restart.yaml");
  const JobConfig other = parse_job(text("spray_straight"), "spray_straight.yaml");
  Simulation straight;
  ASSERT_EQ(straight.setup(PETSC_COMM_WORLD, other), 0);
  ASSERT_EQ(test::run_steps(straight, 0.02, 48), 0);
  std::string path;
  {
    Simulation first;
    ASSERT_EQ(first.setup(PETSC_COMM_WORLD, job), 0);
    ASSERT_EQ(test::run_steps(first, 0.02, 40), 0);
    const Census at_checkpoint = count(first);
    EXPECT_GT(at_checkpoint.spray, 10);
    EXPECT_GT(at_checkpoint.foam, 10);
    ASSERT_EQ(first.write_checkpoint(&path), 0);
  }
  Simulation resumed;
  ASSERT_EQ(resumed.setup(PETSC_COMM_WORLD, job, path), 0);
  ASSERT_EQ(test::run_steps(resumed, 0.02, 8), 0);
  const auto a = sorted_rows(straight), b = sorted_rows(resumed);
  long differ = a.size() != b.size() ? 1 : 0;
  for (size_t p = 0; p < a.size() && !differ; ++p)
    differ = std::memcmp(a[p].data(), b[p].data(), sizeof(a[p])) != 0;
  EXPECT_EQ(test::global_sum(differ), 0);
  EXPECT_EQ(count(resumed).spray, count(straight).spray);
  EXPECT_EQ(count(resumed).foam, count(straight).foam);
  EXPECT_EQ(test::global_sum(test::differs_bitwise(straight.scalars().back().global(),
                                                   resumed.scalars().back().global())),
            0);
}

}  // namespace
}  // namespace sf
