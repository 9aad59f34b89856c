// Obstacles with a prescribed motion (ObstacleConfig::Motion, SolidMask::move_to, the "move
// obstacles" stage of moving_obstacles_module.cpp): a piston drives the fluid of a channel at its
// own speed, a body carried with a uniform flow round a periodic box leaves the flow exactly as it
// was, and the fluid beside a swinging paddle is divergence-free with the paddle's own normal
// velocity, at every rank count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "mpi_test_util.hpp"
#include "simulation.hpp"

namespace sf {
namespace {

std::string scratch_output() {
  return "output: {directory: test_moving_np" + std::to_string(test::comm_size()) +
         ", overwrite: true, initial_frame: false}\n";
}

double global_max(double local) {
  double result = 0.0;
  MPI_Allreduce(&local, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

/// The largest |u_c - expected(c, i, j, k)| over the owned faces of every component for which
/// `which(c, i, j, k)` holds.
template <typename Expected, typename Which>
double largest_departure(Simulation& simulation, const Expected& expected, const Which& which) {
  const Grid& grid = simulation.grid();
  const PetscScalar* data;
  ArrayView u;
  EXPECT_EQ(VecGetArrayRead(simulation.velocity().global(), &data), 0);
  EXPECT_EQ(grid.global_view(simulation.velocity().dm(), const_cast<PetscScalar*>(data), &u), 0);
  double worst = 0.0;
  for (int c = 0; c < grid.dim(); ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (which(c, i, j, k))
        worst = std::max(worst, std::abs(u(i, j, k, c) - expected(c, i, j, k)));
    });
  EXPECT_EQ(VecRestoreArrayRead(simulation.velocity().global(), &data), 0);
  return global_max(worst);
}

/// The number of cells, over all ranks, whose solid flag differs from inside(x, y, z) at their
/// centre: 0 when the mask is where the motion puts the body.
template <typename Inside>
long misplaced_cells(Simulation& simulation, const Inside& inside) {
  const Grid& grid = simulation.grid();
  long misplaced = 0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const bool in = inside(grid.cell_center(0, i), grid.cell_center(1, j), grid.cell_center(2, k));
    if (in != simulation.solids().solid(i, j, k)) ++misplaced;
  });
  return test::global_sum(misplaced);
}

/// The largest |s - expected| of scalar `index` over the owned cells for which `which(i, j, k)`
/// holds, over all ranks.
template <typename Which>
double largest_scalar_departure(Simulation& simulation, size_t index, double expected,
                                const Which& which) {
  const Grid& grid = simulation.grid();
  const Field& scalar = simulation.scalars()[index];
  const PetscScalar* data;
  ArrayView view;
  EXPECT_EQ(VecGetArrayRead(scalar.global(), &data), 0);
  EXPECT_EQ(grid.global_view(scalar.dm(), const_cast<PetscScalar*>(data), &view), 0);
  double worst = 0.0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (which(i, j, k)) worst = std::max(worst, std::abs(view(i, j, k) - expected));
  });
  EXPECT_EQ(VecRestoreArrayRead(scalar.global(), &data), 0);
  return global_max(worst);
}

/// True for the face of component c at (i, j, k) between a solid and a fluid cell: a body's
/// surface.
bool surface_face(const SolidMask& solids, int c, PetscInt i, PetscInt j, PetscInt k) {
  return solids.solid(i, j, k) != solids.solid(i - (c == 0), j - (c == 1), k - (c == 2));
}

/// Cells whose solid flag differs from the 2D square of half-side `half` centred at (cx, cy) and
/// turned by `angle`, over all ranks.
long misplaced_square(Simulation& simulation, double cx, double cy, double half, double angle) {
  return misplaced_cells(simulation, [&](double x, double y, double) {
    x -= cx;
    y -= cy;  // turned back by -angle about the centre:
    const double bx = std::cos(angle) * x + std::sin(angle) * y;
    const double by = -std::sin(angle) * x + std::cos(angle) * y;
    return std::abs(bx) <= half && std::abs(by) <= half;
  });
}

/// The largest departure, over a 2D body's surface faces, from the velocity of a rigid body
/// moving at (vx, vy) and turning at omega about (cx, cy).
double surface_departure(Simulation& simulation, double vx, double vy, double omega, double cx,
                         double cy) {
  const Grid& grid = simulation.grid();
  const SolidMask& solids = simulation.solids();
  return largest_departure(
      simulation,
      [&](int c, PetscInt i, PetscInt j, PetscInt) {
        const double x = c == 0 ? grid.face_position(0, i) : grid.cell_center(0, i);
        const double y = c == 1 ? grid.face_position(1, j) : grid.cell_center(1, j);
        return c == 0 ? vx - omega * (y - cy) : vy + omega * (x - cx);
      },
      [&](int c, PetscInt i, PetscInt j, PetscInt k) { return surface_face(solids, c, i, j, k); });
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
      EXPECT_EQ(misplaced_cells(simulation,
                                [t](double x, double, double) {
                                  return x >= 1.0 + 0.5 * t && x <= 1.3 + 0.5 * t;
                                }),
                0)
          << dim << "D, t = " << t;
      EXPECT_GT(simulation.solids().solid_cells(), 0) << dim << "D, t = " << t;
      // Every face: along the channel 0.5 (solid faces are held at it, free ones get it from
      // the projection), across it 0.
      const double along = largest_departure(
          simulation, [](int c, PetscInt, PetscInt, PetscInt) { return c == 0 ? 0.5 : 0.0; },
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
    const double departure = largest_departure(
        simulation, [](int c, PetscInt, PetscInt, PetscInt) { return c == 0 ? 0.3 : 0.2; },
        [](int, PetscInt, PetscInt, PetscInt) { return true; });
    ASSERT_LT(departure, 1e-12) << "step " << s;
    const double t = simulation.time();
    const double centre[2] = {0.95 + 0.3 * t, 0.5 + 0.2 * t};
    EXPECT_EQ(misplaced_cells(simulation,
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
  EXPECT_LT(largest_scalar_departure(
                simulation, 0, 1.0,
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
    const double at_solid = largest_departure(
        simulation, [speed](int c, PetscInt, PetscInt, PetscInt) { return c == 0 ? speed : 0.0; },
        [&](int c, PetscInt i, PetscInt j, PetscInt k) {
          return surface_face(solids, c, i, j, k);
        });
    EXPECT_LT(at_solid, 1e-12) << "step " << s;
    fastest = std::max(fastest, fastest_velocity(simulation));
  }
  EXPECT_GT(fastest, 0.5);  // the paddle drove the fluid
}

// A square of side 0.3 turning at 1 radian per unit time about its centre (0.5, 0.5) in a closed
// box: after every step its cells are those whose centres, turned back by the angle t about the
// centre, fall in the square, every face of its surface carries the velocity of the body's
// point at the face's centre, omega x r = (-(y - 0.5), x - 0.5), the fluid is divergence-free
// beside it, and the dye it holds at 2 stays 2 in all its cells.
TEST(MovingObstacle, ATurningSquareIsWhereItsAngleSaysAndMovesItsFaces) {
  const std::string text =
      "name: turning\n"
      "grid: {cells: [48, 48], size: [1, 1]}\n"
      "boundary: {x: free-slip, y: free-slip}\n"
      "scalars: {dye: {diffusion: 0}}\n"
      "obstacles: [{shape: box, lower: [0.35, 0.35], upper: [0.65, 0.65], scalars: {dye: 2},"
      " motion: {angular_velocity: 1}}]\n"
      "time: {dt: 0.02, end: 0.5}\n" + scratch_output();
  const JobConfig job = parse_job(text, "turning.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const SolidMask& solids = simulation.solids();
  double fastest = 0.0;
  for (int s = 0; s < 25; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    EXPECT_LT(report.max_divergence, 1e-6) << "step " << s;
    EXPECT_EQ(misplaced_square(simulation, 0.5, 0.5, 0.15, simulation.time()), 0) << "step " << s;
    EXPECT_LT(surface_departure(simulation, 0.0, 0.0, 1.0, 0.5, 0.5), 1e-12) << "step " << s;
    // The dye the square holds: 2 in every one of its cells, though the advection traces them
    // with the body's velocity (the values are held again after it; the dye does not diffuse,
    // as the diffusion solve would hold them too and hide a missing hold).
    EXPECT_EQ(largest_scalar_departure(
                  simulation, 0, 2.0,
                  [&](PetscInt i, PetscInt j, PetscInt k) { return solids.solid(i, j, k); }),
              0.0)
        << "step " << s;
    fastest = std::max(fastest, fastest_velocity(simulation));
  }
  EXPECT_GT(fastest, 0.1);  // the square stirred the fluid
}

TEST(MovingObstacle, AKeyframedBodyFollowsItsPathAndAnglesAndMovesItsFaces) {
  // A square slides right, then turns by 0.8 while it rises, then stays: the keyframes at
  // t = 0, 0.125 and 0.25, linear in between, held after. Steps of 1/32 land exactly on the
  // keyframes' times (binary fractions), where the faces must carry the stretch the step moved
  // along, the one that ends there.
  const std::string text =
      "name: keyframed\n"
      "grid: {cells: [48, 48], size: [1, 1]}\n"
      "boundary: {x: free-slip, y: free-slip}\n"
      "obstacles: [{shape: box, lower: [0.2, 0.35], upper: [0.4, 0.55], motion: {keyframes: [\n"
      "  {time: 0, position: [0, 0]}, {time: 0.125, position: [0.2, 0]},\n"
      "  {time: 0.25, position: [0.2, 0.1], angle: 0.8}]}}]\n"
      "time: {dt: 0.03125, end: 0.5}\n" + scratch_output();
  const JobConfig job = parse_job(text, "keyframed.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  int on_keyframes = 0;
  for (int s = 0; s < 12; ++s) {
    StepReport report;
    ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
    EXPECT_LT(report.max_divergence, 1e-6) << "step " << s;
    // Where the path puts the square's centre (0.3, 0.45) and its angle, and their rates: those
    // of the stretch (t0, t1] the step ends in, none once the path has ended.
    const double t = simulation.time();
    on_keyframes += t == 0.125 || t == 0.25;
    const bool sliding = t <= 0.125, rising = !sliding && t <= 0.25;
    const double cx = 0.3 + 0.2 * std::min(t / 0.125, 1.0);
    const double cy = 0.45 + 0.1 * std::clamp((t - 0.125) / 0.125, 0.0, 1.0);
    const double angle = 0.8 * std::clamp((t - 0.125) / 0.125, 0.0, 1.0);
    const double vx = sliding ? 1.6 : 0.0, vy = rising ? 0.8 : 0.0, omega = rising ? 6.4 : 0.0;
    EXPECT_EQ(misplaced_square(simulation, cx, cy, 0.1, angle), 0) << "step " << s << " t " << t;
    EXPECT_LT(surface_departure(simulation, vx, vy, omega, cx, cy), 1e-12)
        << "step " << s << " t " << t;
  }
  EXPECT_EQ(on_keyframes, 2);  // the steps did end on both keyframes
}

}  // namespace
}  // namespace sf
