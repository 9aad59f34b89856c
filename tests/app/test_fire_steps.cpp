// Fire (src/physics/fire.hpp) in whole steps through the Simulation: with expansion, the
// projection leaves div u = expansion b / dt in each cell (to its tolerance) and the gas that
// appears leaves through the outflow face: the flux out equals the volume made. The burn stage
// itself (exact, conserving, never negative) is tested on a grid: tests/physics/test_fire.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "fire_case.hpp"
#include "mpi_test_util.hpp"
#include "projection.hpp"
#include "simulation.hpp"
#include "vec_array.hpp"

namespace sf {
namespace {

using namespace test::fire;

/// The divergence of the velocity in every owned cell, in the order of the owned cells.
std::vector<double> divergences(Simulation& simulation) {
  Field& velocity = simulation.velocity();
  const Grid& grid = simulation.grid();
  EXPECT_EQ(velocity.fill_ghosts(), 0);
  std::array<double, 3> inv_h{1.0, 1.0, 1.0};
  for (int a = 0; a < grid.dim(); ++a) inv_h[a] = 1.0 / grid.spacing(a);
  ReadArray u;
  EXPECT_EQ(u.get_local(velocity), 0);
  std::vector<double> div;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    div.push_back(cell_divergence(u, inv_h, grid.dim(), i, j, k));
  });
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
  ReadArray u;
  EXPECT_EQ(u.get_global(velocity), 0);
  double flux = 0.0;
  if (faces.hi[1] == top + 1)
    for_each_index(faces, [&](PetscInt i, PetscInt j, PetscInt k) {
      if (j == top) flux += u(i, j, k, 1) * area;
    });
  return test::global_total(flux);
}

void check_expansion(int dim) {
  const double dt = 0.05, expansion = 0.4;
  const JobConfig job = parse_job(fire_job("fire_expands", dim, dt, expansion), "fire.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const std::vector<double> fuel = values(simulation.scalars()[0]),
                            heat = values(simulation.scalars()[1]);
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
