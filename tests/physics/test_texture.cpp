// Texture-coordinate advection (src/physics/texture.hpp), the module on a grid (test::ModuleBench,
// no solvers): the coordinates start at (x - origin) / size in every cell, are carried by the
// flow exactly as a linear field is (semi-Lagrangian with linear interpolation reproduces a linear
// field: in a uniform flow U the x coordinate at x is (x - U t - origin) / size away from the
// periodic seam), and each set is reset to its start by the module's end-of-step stage when its
// period comes round, set b half a period after a.
//
// The flow is uniform along x in a box periodic along x with free-slip walls along y, and the
// fluid has no viscosity: it is divergence-free and tangential to the walls, so the projection
// and the diffusion leave it as it is, and the bench's step without them is the whole step here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "job.hpp"
#include "module_bench.hpp"
#include "mpi_test_util.hpp"
#include "vec_array.hpp"

namespace sf {
namespace {

constexpr double kSpeed = 0.1, kDt = 0.05, kPeriod = 0.4;  // a reset every 4 steps, a or b

/// A periodic 2-D box of 2 x 1 (32 x 16 cells) in a uniform flow along x; scalar "smoke" first.
std::string texture_job(const std::string& name) {
  return "name: " + name + "\n"
         "grid: {cells: [32, 16], size: [2, 1], origin: [-0.5, 0.25]}\n"
         "boundary: {x: periodic, y: free-slip}\n"
         "velocity: {initial: {type: uniform, value: [" + std::to_string(kSpeed) + ", 0]}}\n"
         "scalars: {smoke: {}}\n"
         "texture: {period: " + std::to_string(kPeriod) + "}\n"
         "time: {dt: " + std::to_string(kDt) + ", end: 100}\n";
}

/// Takes `steps` steps of kDt without the solvers.
PetscErrorCode run_steps(test::ModuleBench& bench, int steps) {
  PetscFunctionBeginUser;
  for (int s = 0; s < steps; ++s) PetscCall(bench.step_without_solvers(kDt));
  PetscFunctionReturn(0);
}

/// The largest |s - want(x)| over the owned cells of scalar n whose centre satisfies `where`.
template <typename Want, typename Where>
double worst(test::ModuleBench& bench, size_t n, Want&& want, Where&& where) {
  const Grid& grid = bench.grid();
  ReadArray s;
  EXPECT_EQ(s.get_global(bench.scalars()[n]), 0);
  double local = 0.0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const double x[2] = {grid.cell_center(0, i), grid.cell_center(1, j)};
    if (where(x)) local = std::max(local, std::abs(s(i, j, k) - want(x)));
  });
  return test::global_max(local);
}

// Set a is scalar 1 (x) and 2 (y), set b 3 and 4, after the job's own smoke.
double start_x(const double* x) { return (x[0] + 0.5) / 2.0; }
double start_y(const double* x) { return (x[1] - 0.25) / 1.0; }
bool everywhere(const double*) { return true; }

TEST(Texture, CoordinatesStartWhereEachCellIs) {
  const JobConfig job = parse_job(texture_job("texture_start"), "texture.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  for (size_t set = 0; set < 2; ++set) {
    EXPECT_EQ(worst(bench, 1 + 2 * set, start_x, everywhere), 0.0);
    EXPECT_EQ(worst(bench, 2 + 2 * set, start_y, everywhere), 0.0);
  }
}

// Three steps (before any reset): both sets moved by U t along x, unchanged along y.
TEST(Texture, CoordinatesAreCarriedByTheFlow) {
  const JobConfig job = parse_job(texture_job("texture_carried"), "texture.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  ASSERT_EQ(run_steps(bench, 3), 0);
  const double shift = 3 * kDt * kSpeed;
  // The coordinate jumps from 1 to 0 across the periodic seam at x = -0.5 / 1.5, and each step
  // carries what the interpolation mixed there one cell further downstream: three steps reach
  // three cells.
  const auto inside = [](const double* x) { return x[0] > -0.5 + 0.25 && x[0] < 1.5 - 0.1; };
  const auto moved_x = [shift](const double* x) { return (x[0] - shift + 0.5) / 2.0; };
  for (size_t set = 0; set < 2; ++set) {
    EXPECT_LT(worst(bench, 1 + 2 * set, moved_x, inside), 1e-14);
    EXPECT_LT(worst(bench, 2 + 2 * set, start_y, everywhere), 1e-14);
  }
  // And the flow really moved them: the start is off by the shift over the size.
  EXPECT_GT(worst(bench, 1, start_x, inside), 0.9 * shift / 2.0);
}

// Set b is reset after step 4 (t = 0.2 = period / 2), set a after step 8 (t = 0.4): exactly to
// the start, while the other set is still carried.
TEST(Texture, EachSetIsResetWhenItsPeriodComesRound) {
  const JobConfig job = parse_job(texture_job("texture_reset"), "texture.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  const double moved = 0.9 * kDt * kSpeed / 2.0;  // what one step moves x, with a margin
  ASSERT_EQ(run_steps(bench, 4), 0);
  EXPECT_EQ(worst(bench, 3, start_x, everywhere), 0.0) << "set b after step 4";
  EXPECT_GT(worst(bench, 1, start_x, everywhere), 4 * moved) << "set a after step 4";
  ASSERT_EQ(run_steps(bench, 4), 0);
  EXPECT_EQ(worst(bench, 1, start_x, everywhere), 0.0) << "set a after step 8";
  EXPECT_GT(worst(bench, 3, start_x, everywhere), 4 * moved) << "set b after step 8";
  // Its weight is 0 when a set is reset, so the blend never jumps.
  EXPECT_EQ(texture_weight(0, 8 * kDt, kPeriod), 0.0);
  EXPECT_NEAR(texture_weight(1, 4 * kDt, kPeriod), 0.0, 1e-15);
}

}  // namespace
}  // namespace sf
