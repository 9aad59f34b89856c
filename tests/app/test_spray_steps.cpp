// Spray and foam (spray.hpp) in whole steps through the Simulation, with the free-surface
// projection that moves the liquid they are shed from: a still pool sheds none, a breaking
// column sheds spray that lands as foam on the surface, and a run continued from a checkpoint
// goes on bit for bit, particles included, at every rank count. The spray module's own stage
// (flight, foam's lives, splitting): tests/physics/test_spray.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "interpolation.hpp"
#include "mpi_test_util.hpp"
#include "simulation.hpp"
#include "simulation_test_util.hpp"
#include "spray.hpp"
#include "spray_test_util.hpp"

namespace sf {
namespace {

test::Census count(const Simulation& simulation) { return test::count(*simulation.part<Spray>()); }

// A pool at rest sheds nothing: its surface does not move.
TEST(Spray, AStillPoolShedsNone) {
  const JobConfig job =
      parse_job(test::pool("still", 0.7, "threshold: 0.05, rate: 1000"), "still.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  ASSERT_EQ(test::run_steps(simulation, 0.05, 20), 0);
  const test::Census c = count(simulation);
  EXPECT_EQ(c.spray, 0);
  EXPECT_EQ(c.foam, 0);
}

/// The largest |phi(x)| / h over this rank's foam and the least phi(x) / h over its spray.
void surface_distances(Simulation& simulation, double* foam_off, double* spray_least) {
  const Grid& grid = simulation.grid();
  Field& phi = simulation.scalars().back();
  ASSERT_EQ(phi.fill_ghosts(), 0);
  ReadArray level;
  ASSERT_EQ(level.get_local(phi), 0);
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
}

// A column of water collapsing into a pool throws spray where its surface moves out faster than
// the threshold, and the spray lands as foam. After every step (migrations between ranks
// included) the stage's invariants hold: foam lies on the surface (within a fifth of a cell:
// measured 0.007 of a cell at most on 1 rank), spray in the air (phi > 0).
TEST(Spray, ACollapsingColumnShedsSprayThatLandsAsFoamOnTheSurface) {
  const JobConfig job = parse_job(
      test::pool("column", 0.3, "threshold: 0.5, rate: 200",
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
    return test::pool(name, 0.3, "threshold: 0.5, rate: 200, split_time: 0.2, foam_life: 1",
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
    const test::Census at_checkpoint = count(first);
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
