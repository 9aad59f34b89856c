// The air's pressure on a liquid's surface (liquid.air_pressure, air_pressure.hpp, the
// free-surface projection's Dirichlet value): a uniform pressure over a closed tank raises the
// liquid's pressure by exactly that much and moves nothing; a patch pressing on part of the
// surface pushes the liquid down under it and up elsewhere, keeping its volume; a patch moves
// and acts only in its span of time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "air_pressure.hpp"
#include "mpi_test_util.hpp"
#include "simulation.hpp"

namespace sf {
namespace {

std::string tank(const std::string& name, const std::string& air) {
  return "name: " + name + "\n"
         "grid: {cells: [32, 16], size: [2, 1]}\n"
         "boundary: {x: no-slip, y: no-slip}\n"
         "forces: {gravity: [0, -1]}\n"
         "liquid:\n"
         "  initial: [{shape: box, lower: [-1, -1], upper: [3, 0.5]}]\n"
         "  interface: level_set\n"
         "  particles: {per_cell: 0}\n" + air +
         "pressure: {tolerance: 1e-12}\n"
         "time: {dt: 0.02, end: 1}\n"
         "output: {directory: air_np" + std::to_string(test::comm_size()) +
         ", overwrite: true, initial_frame: false}\n";
}

/// The owned values of a global vector of the cell layout, in order.
std::vector<double> owned_values(Vec v) {
  const PetscScalar* data;
  PetscInt n = 0;
  EXPECT_EQ(VecGetLocalSize(v, &n), 0);
  EXPECT_EQ(VecGetArrayRead(v, &data), 0);
  std::vector<double> values(data, data + n);
  EXPECT_EQ(VecRestoreArrayRead(v, &data), 0);
  return values;
}

double global_max(double local) {
  double all = 0.0;
  MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

TEST(AirPressure, AUniformPressureOverAClosedTankRaisesTheLiquidsPressureAndMovesNothing) {
  const JobConfig still = parse_job(tank("still", ""), "still.yaml");
  const JobConfig pressed = parse_job(
      tank("pressed", "  air_pressure: [{shape: box, lower: [-1, -1], upper: [3, 2], "
                      "pressure: 0.3}]\n"),
      "pressed.yaml");
  Simulation a, b;
  ASSERT_EQ(a.setup(PETSC_COMM_WORLD, still), 0);
  ASSERT_EQ(b.setup(PETSC_COMM_WORLD, pressed), 0);
  for (int s = 0; s < 5; ++s) {
    StepReport report;
    ASSERT_EQ(a.step(still.time.dt, &report), 0);
    ASSERT_EQ(b.step(pressed.time.dt, &report), 0);
  }
  // The liquid's cells: p is 0.3 higher; the air's rows stay 0 in both.
  const std::vector<double> pa = owned_values(a.pressure()), pb = owned_values(b.pressure());
  const std::vector<double> ua = owned_values(a.velocity().global()),
                            ub = owned_values(b.velocity().global());
  double worst_pressure = 0.0, worst_velocity = 0.0;
  long liquid = 0;
  for (size_t n = 0; n < pa.size(); ++n) {
    if (pa[n] == 0.0 && pb[n] == 0.0) continue;  // an air cell
    ++liquid;
    worst_pressure = std::max(worst_pressure, std::abs(pb[n] - pa[n] - 0.3));
  }
  for (size_t n = 0; n < ua.size(); ++n)
    worst_velocity = std::max(worst_velocity, std::abs(ub[n] - ua[n]));
  EXPECT_GT(test::global_sum(liquid), 200);
  EXPECT_LT(global_max(worst_pressure), 1e-9);
  EXPECT_LT(global_max(worst_velocity), 1e-9);
}

/// The liquid's area in the columns whose centres lie in [x0, x1), over all ranks: each cell
/// counts with its liquid fraction min(max(1/2 - phi / h, 0), 1), which moves smoothly with the
/// surface (a count of cells only changes as the surface crosses a row of centres).
double liquid_area(Simulation& simulation, double x0, double x1) {
  const Grid& grid = simulation.grid();
  const Field& phi = simulation.scalars().back();
  const PetscScalar* data;
  ArrayView level;
  EXPECT_EQ(VecGetArrayRead(phi.global(), &data), 0);
  EXPECT_EQ(grid.global_view(phi.dm(), const_cast<PetscScalar*>(data), &level), 0);
  const double h = grid.spacing(1), cell = grid.spacing(0) * grid.spacing(1);
  double area = 0.0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const double x = grid.cell_center(0, i);
    if (x >= x0 && x < x1) area += std::clamp(0.5 - level(i, j, k) / h, 0.0, 1.0) * cell;
  });
  EXPECT_EQ(VecRestoreArrayRead(phi.global(), &data), 0);
  double all = 0.0;
  MPI_Allreduce(&area, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

TEST(AirPressure, APatchPushesTheSurfaceDownUnderItAndUpBesideIt) {
  // 0.2 on the left quarter (g = 1: a head of 0.2 at equilibrium, 1.6 cells).
  const JobConfig job = parse_job(
      tank("patch", "  air_pressure: [{shape: box, lower: [-1, -1], upper: [0.5, 2], "
                    "pressure: 0.2}]\n"),
      "patch.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const double under = liquid_area(simulation, 0.0, 0.5);
  const double beside = liquid_area(simulation, 0.5, 1.0);
  const double all = liquid_area(simulation, 0.0, 2.0);
  for (int s = 0; s < 40; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
  }
  const double sunk = under - liquid_area(simulation, 0.0, 0.5);
  const double risen = liquid_area(simulation, 0.5, 1.0) - beside;
  // Measured at t = 0.8 (the same at 1 to 4 ranks): 0.0335 gone from under the patch, of the
  // 0.075 that equilibrium would move, 0.0285 of it risen beside it (the rest went further);
  // the total up by 0.64 %, the level set's own error over 40 steps. Without the air's
  // pressure nothing moves.
  EXPECT_GT(sunk, 0.02);
  EXPECT_GT(risen, 0.015);
  EXPECT_NEAR(liquid_area(simulation, 0.0, 2.0), all, 0.01 * all);
}

TEST(AirPressure, APatchMovesAtItsVelocityAndActsInItsSpanOfTime) {
  AirPressure patch;
  patch.region.shape = Region::Shape::Sphere;
  patch.region.center = {0.2, 0.5, 0.0};
  patch.region.radius = 0.1;
  patch.pressure = 2.0;
  patch.velocity = {1.0, 0.0, 0.0};
  patch.start = 0.5;
  patch.end = 1.0;
  const std::vector<AirPressure> air = {patch, patch};
  const double at_start[3] = {0.7, 0.5, 0.0}, behind[3] = {0.2, 0.5, 0.0};
  EXPECT_EQ(air_pressure(air, at_start, 0.5, 2), 4.0);  // carried to 0.7; the two add
  EXPECT_EQ(air_pressure(air, behind, 0.5, 2), 0.0);    // no longer where it started
  EXPECT_EQ(air_pressure(air, at_start, 0.49, 2), 0.0);  // not yet
  const double later[3] = {1.1, 0.5, 0.0};
  EXPECT_EQ(air_pressure(air, later, 0.9, 2), 4.0);
  EXPECT_EQ(air_pressure(air, later, 1.0, 2), 0.0);  // ended
}

}  // namespace
}  // namespace sf
