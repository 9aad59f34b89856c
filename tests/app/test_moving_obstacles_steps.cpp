// Obstacles with a prescribed motion (ObstacleConfig::Motion, SolidMask::move_to, the "move
// obstacles" stage of moving_obstacles_module.cpp) in whole steps through the Simulation, with
// the projection that holds the fluid to the bodies' surfaces: a piston drives the fluid of a
// channel at its own speed, a body carried with a uniform flow round a periodic box leaves the
// flow exactly as it was, the fluid beside a swinging paddle is divergence-free with the
// paddle's own normal velocity, and the fluid beside a turning or keyframed body is
// divergence-free, at every rank count. Where the module's own stages put a body and what its
// faces carry: tests/physics/test_moving_obstacles.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "moving_obstacle_test_util.hpp"
#include "mpi_test_util.hpp"
#include "simulation.hpp"

namespace sf {
namespace {

std::string scratch_output() {
  return "output: {directory: test_moving_np" + std::to_string(test::comm_size()) +
         ", overwrite: true, initial_frame: false}\n";
}

/// The largest face velocity in magnitude, over all ranks.
double fastest_velocity(Simulation& simulation) {
  double u = 0.0;
  EXPECT_EQ(VecNorm(simulation.velocity().global(), NORM_INFINITY, &u), 0);
  return u;
}

// A piston filling a channel's cross-section moves along it at 0.5 with open (outflow) ends:
// mass conservation leaves the fluid on both sides one speed, the piston's, which the projection
// must give from its solid faces alone (the fluid starts at rest). The mask must be where the
// motion puts the piston: the cells whose centres lie in [1.0, 1.3] + 0.5 t.
TEST(MovingObstacle, APistonDrivesTheChannelAtItsSpeed) {
  for (int dim : {2, 3}) {
    const std::string text =
        std::string("name: piston\n") +
        (dim == 2 ? "grid: {cells: [64, 16], size: [4, 1]}\n"
                    "boundary: {x: outflow, y: free-slip}\n"
                    "obstacles: [{shape: box, lower: [1.0, -1], upper: [1.3, 2],"
                    " boundary: free-slip, motion: {velocity: [0.5, 0]}}]\n"
                  : "grid: {cells: [32, 8, 8], size: [4, 1, 1]}\n"
                    "boundary: {x: outflow, y: free-slip, z: free-slip}\n"
                    "obstacles: [{shape: box, lower: [1.0, -1, -1], upper: [1.3, 2, 2],"
                    " boundary: free-slip, motion: {velocity: [0.5, 0, 0]}}]\n") +
        "time: {dt: 0.05, end: 1}\n" + scratch_output();
    const JobConfig job = parse_job(text, "piston.yaml");
    Simulation simulation;
    ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
    const Grid& grid = simulation.grid();
    for (int s = 0; s < 20; ++s) {
      StepReport report;
      ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
      const double t = simulation.time();
      EXPECT_EQ(test::misplaced_cells(grid, simulation.solids(),
                                      [t](double x, double, double) {
                                        return x >= 1.0 + 0.5 * t && x <= 1.3 + 0.5 * t;
                                      }),
                0)
          << dim << "D, t = " << t;
      EXPECT_GT(simulation.solids().solid_cells(), 0) << dim << "D, t = " << t;
      // Every face: along the channel 0.5 (solid faces are held at it, free ones get it from
      // the projection), across it 0.
      const double along = test::largest_departure(
          simulation.velocity(),
          [](int c, PetscInt, PetscInt, PetscInt) { return c == 0 ? 0.5 : 0.0; },
          [&](int c, PetscInt i, PetscInt j, PetscInt k) {
            const PetscInt at[3] = {i, j, k};
            return c == 0 || (at[c] > 0 && at[c] < grid.cells(c));  // not a wall face
          });
      EXPECT_LT(along, 1e-6) << dim << "D, step " << s;
    }
  }
}

// A disc carried at (0.3, 0.2) by a flow of that same uniform velocity round a periodic box: the
// body and the fluid move together, so nothing may change (Galilean invariance): the velocity
// stays uniform on every face, solid or not, and a uniform dye stays 1 in the fluid, the cells
// the disc uncovers included (the solid holds 1 too, so this checks that the fill takes the
// fluid's value, not that a fill happens; the mutation that zeroes it fails). The disc starts
// across the periodic face x = 1 and crosses both periodic faces in the 4 time units: after
// every step its cells are exactly those within its radius of its centre, (0.95, 0.5) +
// (0.3, 0.2) t, taken to the nearest image.
TEST(MovingObstacle, ABodyCarriedWithTheFlowLeavesItUndisturbed) {
  const std::string text =
      "name: carried\n"
      "grid: {cells: [32, 32], size: [1, 1]}\n"
      "boundary: {x: periodic, y: periodic}\n"
      "velocity: {initial: {type: uniform, value: [0.3, 0.2]}}\n"
      "scalars: {dye: {initial: [{shape: box, lower: [-1, -1], upper: [2, 2], value: 1}]}}\n"
      "obstacles: [{shape: sphere, center: [0.95, 0.5], radius: 0.15,"
      " motion: {velocity: [0.3, 0.2]}}]\n"
      "time: {dt: 0.1, end: 4}\n" + scratch_output();
  const JobConfig job = parse_job(text, "carried.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const SolidMask& solids = simulation.solids();
  long uncovered = 0;
  for (int s = 0; s < 40; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    uncovered += static_cast<long>(solids.uncovered().size());
    const double departure = test::largest_departure(
        simulation.velocity(),
        [](int c, PetscInt, PetscInt, PetscInt) { return c == 0 ? 0.3 : 0.2; },
        [](int, PetscInt, PetscInt, PetscInt) { return true; });
    ASSERT_LT(departure, 1e-12) << "step " << s;
    const double t = simulation.time();
    const double centre[2] = {0.95 + 0.3 * t, 0.5 + 0.2 * t};
    EXPECT_EQ(test::misplaced_cells(simulation.grid(), solids,
                                    [&](double x, double y, double) {
                                      double d[2] = {x - centre[0], y - centre[1]};
                                      for (double& e : d) e -= std::round(e);  // nearest image
                                      return d[0] * d[0] + d[1] * d[1] <= 0.15 * 0.15;
                                    }),
              0)
        << "step " << s;
  }
  EXPECT_GT(test::global_sum(uncovered), 100);  // the disc did uncover cells
  // The dye: 1 in every fluid cell.
  EXPECT_LT(test::largest_scalar_departure(
                simulation.scalars()[0], 1.0,
                [&](PetscInt i, PetscInt j, PetscInt k) { return !solids.solid(i, j, k); }),
            1e-12);
}

// A paddle standing on the floor of a closed tank swings to and fro, d(t) = 0.1 sin(2 pi t):
// after every projection the fluid is divergence-free in every cell, those beside the paddle
// included, and every face of the paddle carries its velocity 0.1 (2 pi) cos(2 pi t) along x and
// none across, so the fluid's normal velocity at the solid is the solid's (Cline et al. eq. 16).
TEST(MovingObstacle, TheFluidBesideASwingingPaddleMovesWithIt) {
  const std::string text =
      "name: paddle\n"
      "grid: {cells: [48, 32], size: [1.5, 1]}\n"
      "boundary: {x: free-slip, y: free-slip}\n"
      "obstacles: [{shape: box, lower: [0.3, -1], upper: [0.4, 0.6], boundary: free-slip,"
      " motion: {amplitude: [0.1, 0], period: 1}}]\n"
      "time: {dt: 0.02, end: 1}\n" + scratch_output();
  const JobConfig job = parse_job(text, "paddle.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const SolidMask& solids = simulation.solids();
  double fastest = 0.0;
  for (int s = 0; s < 50; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    EXPECT_LT(report.max_divergence, 1e-6) << "step " << s;
    const double speed = 0.1 * 2.0 * M_PI * std::cos(2.0 * M_PI * simulation.time());
    const double at_solid = test::largest_departure(
        simulation.velocity(),
        [speed](int c, PetscInt, PetscInt, PetscInt) { return c == 0 ? speed : 0.0; },
        [&](int c, PetscInt i, PetscInt j, PetscInt k) {
          return test::surface_face(solids, c, i, j, k);
        });
    EXPECT_LT(at_solid, 1e-12) << "step " << s;
    fastest = std::max(fastest, fastest_velocity(simulation));
  }
  EXPECT_GT(fastest, 0.5);  // the paddle drove the fluid
}

// The turning square (turning_square_job): after every step the fluid is divergence-free beside
// it, and the projection leaves every face of its surface at the velocity of the body's point at
// the face's centre, omega x r = (-(y - 0.5), x - 0.5), so that the fluid's normal velocity at
// the solid is the solid's. Where the square is, what the module's stage puts on its faces and
// the dye it holds: the bench's ATurningSquareIsWhereItsAngleSaysAndMovesItsFaces
// (tests/physics/test_moving_obstacles.cpp).
TEST(MovingObstacle, TheFluidBesideATurningSquareIsDivergenceFreeAndStirred) {
  const JobConfig job = parse_job(test::turning_square_job(scratch_output()), "turning.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  double fastest = 0.0;
  for (int s = 0; s < 25; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    EXPECT_LT(report.max_divergence, 1e-6) << "step " << s;
    EXPECT_LT(test::surface_departure(simulation.velocity(), simulation.solids(), 0.0, 0.0, 1.0,
                                      0.5, 0.5),
              1e-12)
        << "step " << s;
    fastest = std::max(fastest, fastest_velocity(simulation));
  }
  EXPECT_GT(fastest, 0.1);  // the square stirred the fluid
}

TEST(MovingObstacle, TheFluidBesideAKeyframedBodyIsDivergenceFree) {
  // The keyframed square (keyframed_square_job): steps of 1/32 land exactly on the keyframes'
  // times (binary fractions), where the body's velocity jumps; the fluid beside it is
  // divergence-free after every step, those included. Where the path puts the body and the
  // velocity of its faces: the bench's AKeyframedBodyFollowsItsPathAndAnglesAndMovesItsFaces.
  const JobConfig job = parse_job(test::keyframed_square_job(scratch_output()),
                                   "keyframed.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  int on_keyframes = 0;
  for (int s = 0; s < 12; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    EXPECT_LT(report.max_divergence, 1e-6) << "step " << s;
    const double t = simulation.time();
    on_keyframes += t == 0.125 || t == 0.25;
  }
  EXPECT_EQ(on_keyframes, 2);  // the steps did end on both keyframes
}

}  // namespace
}  // namespace sf
