// Fire (src/physics/fire.hpp) through whole steps of the solver. The reaction is exact where
// nothing moves: with the fluid at rest the advection and projection leave the scalars' bits
// alone, so after a step every cell holds exactly F - b, T + heat b, S + yield b with
// b = F (1 - exp(-k dt)) where T >= the ignition temperature, and nothing changes elsewhere;
// fuel plus soot over yield is kept, and a step of any length never leaves negative fuel. With
// expansion, the projection leaves div u = expansion b / dt in each cell (to its tolerance)
// and the gas that appears leaves through the outflow face: the flux out equals the volume made.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fire.hpp"
#include "mpi_test_util.hpp"
#include "projection.hpp"
#include "simulation.hpp"
#include "simulation_test_util.hpp"

namespace sf {
namespace {

constexpr double kRate = 2.0, kIgnition = 0.5, kHeat = 3.0, kYield = 0.5;

/// A box at rest with a block of fuel, partly inside a hot disc (sphere in 3D) that ignites it.
std::string fire_job(const std::string& name, int dim, double dt, double expansion) {
  const std::string cells = dim == 2 ? "[24, 20]" : "[12, 10, 8]";
  const std::string size = dim == 2 ? "[1.2, 1.0]" : "[1.2, 1.0, 0.8]";
  const std::string lower = dim == 2 ? "[0.2, 0.2]" : "[0.2, 0.2, 0.2]";
  const std::string upper = dim == 2 ? "[0.9, 0.6]" : "[0.9, 0.6, 0.6]";
  const std::string centre = dim == 2 ? "[0.4, 0.4]" : "[0.4, 0.4, 0.4]";
  std::string boundary = dim == 2 ? "{x: free-slip, y: {lower: free-slip, upper: outflow}}"
                                  : "{x: free-slip, y: {lower: free-slip, upper: outflow}, "
                                    "z: free-slip}";
  return "name: " + name + "\n"
         "grid: {cells: " + cells + ", size: " + size + "}\n"
         "boundary: " + boundary + "\n"
         "scalars:\n"
         "  fuel: {initial: [{shape: box, lower: " + lower + ", upper: " + upper +
         ", value: 0.8}]}\n"
         "  temperature: {initial: [{shape: sphere, center: " + centre +
         ", radius: 0.25, value: 1.0}]}\n"
         "  soot: {background: 0.125}\n"
         "fire: {burn_rate: " + std::to_string(kRate) + ", ignition_temperature: " +
         std::to_string(kIgnition) + ", heat: " + std::to_string(kHeat) +
         ", soot: soot, soot_yield: " + std::to_string(kYield) + ", expansion: " +
         std::to_string(expansion) + "}\n"
         "pressure: {tolerance: 1e-12}\n"
         "time: {dt: " + std::to_string(dt) + ", end: 1000000}\n"
         "output: {directory: test_fire_np" + std::to_string(test::comm_size()) +
         ", overwrite: true, initial_frame: false}\n";
}

/// The owned values of scalar `n`, in the order of the owned cells.
std::vector<double> values(Simulation& simulation, size_t n) {
  const Field& field = simulation.scalars()[n];
  const PetscScalar* data = nullptr;
  PetscInt size = 0;
  EXPECT_EQ(VecGetLocalSize(field.global(), &size), 0);
  EXPECT_EQ(VecGetArrayRead(field.global(), &data), 0);
  std::vector<double> copy(data, data + size);
  EXPECT_EQ(VecRestoreArrayRead(field.global(), &data), 0);
  return copy;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// What the fire makes of (fuel, temperature, soot) in one cell over a step of dt, and b.
struct Burnt {
  double fuel, temperature, soot, b;
};
Burnt burn(double fuel, double temperature, double soot, double dt) {
  if (!(temperature >= kIgnition && fuel > 0.0)) return {fuel, temperature, soot, 0.0};
  const double b = fuel * -std::expm1(-kRate * dt);
  return {fuel - b, temperature + kHeat * b, soot + kYield * b, b};
}

/// Fire::burn on the job's initial state, ten times over: every cell exactly as burn() says.
/// Then whole steps of the solver (at rest, so the fire is all that changes the scalars, up to
/// the advection's rounding): fuel plus soot over the yield is kept.
void check_exact_burning(int dim) {
  const double dt = 0.05;
  const JobConfig job = parse_job(fire_job("fire_exact", dim, dt, 0.0), "fire_exact.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  std::vector<double> fuel = values(simulation, 0), heat = values(simulation, 1),
                      soot = values(simulation, 2);
  Fire fire;
  ASSERT_EQ(fire.setup(simulation.grid(), simulation.solids(), job.fire, job.scalars), 0);
  long burning = 0, wrong = 0;
  for (int step = 0; step < 10; ++step) {
    ASSERT_EQ(fire.burn(simulation.scalars(), dt), 0);
    const std::vector<double> f = values(simulation, 0), t = values(simulation, 1),
                              s = values(simulation, 2);
    for (size_t c = 0; c < f.size(); ++c) {
      const Burnt want = burn(fuel[c], heat[c], soot[c], dt);
      if (step == 0 && want.b > 0.0) ++burning;
      if (!same_bits(f[c], want.fuel) || !same_bits(t[c], want.temperature) ||
          !same_bits(s[c], want.soot))
        ++wrong;
      fuel[c] = want.fuel;
      heat[c] = want.temperature;
      soot[c] = want.soot;
    }
  }
  EXPECT_EQ(test::global_sum(wrong), 0) << "cells whose fire differs from the exact reaction";
  EXPECT_GT(test::global_sum(burning), 0);

  Simulation stepped;
  ASSERT_EQ(stepped.setup(PETSC_COMM_WORLD, job), 0);
  const auto kept = [&]() {
    const std::vector<double> f = values(stepped, 0), s = values(stepped, 2);
    double total = 0.0;
    for (size_t c = 0; c < f.size(); ++c) total += f[c] + s[c] / kYield;
    return test::global_total(total);
  };
  const double before = kept();
  const std::vector<double> fuel0 = values(stepped, 0);
  ASSERT_EQ(test::run_steps(stepped, dt, 10), 0);
  EXPECT_NEAR(kept(), before, 1e-13 * before);
  // And it did burn: a tenth of a second at rate 2 leaves e^-1 of the fuel where it is hot.
  const std::vector<double> fuel10 = values(stepped, 0);
  double burnt = 0.0;
  for (size_t c = 0; c < fuel10.size(); ++c) burnt += fuel0[c] - fuel10[c];
  EXPECT_GT(test::global_total(burnt), 0.0);
}

TEST(Fire, BurnsFuelIntoHeatAndSootExactlyWhereHotEnough2D) { check_exact_burning(2); }
TEST(Fire, BurnsFuelIntoHeatAndSootExactlyWhereHotEnough3D) { check_exact_burning(3); }

// A step far longer than the burning time burns all the fuel where it is hot, exactly to 0.
TEST(Fire, AnyStepLeavesNoNegativeFuel) {
  const double dt = 1e3;
  const JobConfig job = parse_job(fire_job("fire_long", 2, dt, 0.0), "fire_long.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const std::vector<double> fuel = values(simulation, 0), heat = values(simulation, 1);
  Fire fire;
  ASSERT_EQ(fire.setup(simulation.grid(), simulation.solids(), job.fire, job.scalars), 0);
  ASSERT_EQ(fire.burn(simulation.scalars(), dt), 0);
  const std::vector<double> after = values(simulation, 0);
  long negative = 0, left = 0;
  for (size_t c = 0; c < after.size(); ++c) {
    if (after[c] < 0.0) ++negative;
    if (heat[c] >= kIgnition && after[c] != 0.0) ++left;
    if (heat[c] < kIgnition && after[c] != fuel[c]) ++left;
  }
  EXPECT_EQ(test::global_sum(negative), 0);
  EXPECT_EQ(test::global_sum(left), 0);
}

/// The divergence of the velocity in every owned cell, in the order of the owned cells.
std::vector<double> divergences(Simulation& simulation) {
  Field& velocity = simulation.velocity();
  const Grid& grid = simulation.grid();
  EXPECT_EQ(velocity.fill_ghosts(), 0);
  std::array<double, 3> inv_h{1.0, 1.0, 1.0};
  for (int a = 0; a < grid.dim(); ++a) inv_h[a] = 1.0 / grid.spacing(a);
  const PetscScalar* data;
  ArrayView u;
  EXPECT_EQ(VecGetArrayRead(velocity.local(), &data), 0);
  EXPECT_EQ(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(data), &u), 0);
  std::vector<double> div;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    div.push_back(cell_divergence(u, inv_h, grid.dim(), i, j, k));
  });
  EXPECT_EQ(VecRestoreArrayRead(velocity.local(), &data), 0);
  return div;
}

/// The volume flux out through the top (y upper, an outflow face), over the ranks.
double flux_out_of_top(Simulation& simulation) {
  const Field& velocity = simulation.velocity();
  const Grid& grid = simulation.grid();
  const IndexBox faces = grid.owned_faces(1);
  const PetscInt top = grid.cells(1);
  double area = 1.0;
  for (int a = 0; a < grid.dim(); ++a)
    if (a != 1) area *= grid.spacing(a);
  const PetscScalar* data;
  ArrayView u;
  EXPECT_EQ(VecGetArrayRead(velocity.global(), &data), 0);
  EXPECT_EQ(grid.global_view(velocity.dm(), const_cast<PetscScalar*>(data), &u), 0);
  double flux = 0.0;
  if (faces.hi[1] == top + 1)
    for_each_index(faces, [&](PetscInt i, PetscInt j, PetscInt k) {
      if (j == top) flux += u(i, j, k, 1) * area;
    });
  EXPECT_EQ(VecRestoreArrayRead(velocity.global(), &data), 0);
  return test::global_total(flux);
}

void check_expansion(int dim) {
  const double dt = 0.05, expansion = 0.4;
  const JobConfig job = parse_job(fire_job("fire_expands", dim, dt, expansion), "fire.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const std::vector<double> fuel = values(simulation, 0), heat = values(simulation, 1);
  double cell = 1.0;
  for (int a = 0; a < dim; ++a) cell *= simulation.grid().spacing(a);
  StepReport report;
  ASSERT_EQ(simulation.step(dt, &report), 0);
  // The step burns the state it starts with (the fluid is at rest until the projection).
  const std::vector<double> div = divergences(simulation);
  double made = 0.0, worst = 0.0, largest = 0.0;
  for (size_t c = 0; c < div.size(); ++c) {
    const double source = expansion * burn(fuel[c], heat[c], 0.0, dt).b / dt;
    made += source * cell;
    largest = std::max(largest, source);
    worst = std::max(worst, std::abs(div[c] - source));
  }
  made = test::global_total(made);
  largest = test::global_max(largest);
  ASSERT_GT(largest, 0.0);
  EXPECT_LT(test::global_max(worst), 1e-9 * largest);
  // What the projection reports is the same measure.
  EXPECT_LT(report.max_divergence, 1e-9 * largest);
  EXPECT_NEAR(flux_out_of_top(simulation), made, 1e-9 * made);
}

TEST(Fire, ExpandingGasIsTheDivergenceAndLeavesThroughTheOutflow2D) { check_expansion(2); }
TEST(Fire, ExpandingGasIsTheDivergenceAndLeavesThroughTheOutflow3D) { check_expansion(3); }

}  // namespace
}  // namespace sf
