// Floating bodies (floating_bodies.hpp; the free-surface projection's coupling): Archimedes at
// rest to the solver's tolerance, a released raft bobbing about the depth Archimedes gives, a
// disc heavier than the liquid falling with the added mass of potential flow, the same run
// continued from a checkpoint bit for bit, and a body that reaches a wall stopping the run, at
// every rank count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "error_codes.hpp"
#include "mpi_test_util.hpp"
#include "simulation.hpp"
#include "floating_bodies.hpp"
#include "simulation_test_util.hpp"

namespace sf {
namespace {

std::string output(const std::string& name) {
  return "output: {directory: test_floating_" + name + "_np" +
         std::to_string(test::comm_size()) + ", overwrite: true, initial_frame: false}\n";
}

/// A 2-D tank of 2 x 1.5 (h = 1/32 at 64 x 48) filled to `level`, with g = 1 down.
std::string tank(const std::string& name, const std::string& cells, double level,
                 const std::string& obstacle, double dt) {
  return "name: " + name + "\n"
         "grid: {cells: [" + cells + "], size: [2, 1.5]}\n"
         "boundary: {x: no-slip, y: no-slip}\n"
         "forces: {gravity: [0, -1]}\n"
         "liquid:\n"
         "  initial: [{shape: box, lower: [-1, -1], upper: [3, " + std::to_string(level) + "]}]\n"
         "  interface: level_set\n"
         "  particles: {per_cell: 0}\n"
         "obstacles: [" + obstacle + "]\n"
         "pressure: {tolerance: 1e-12}\n"
         "time: {dt: " + std::to_string(dt) + ", end: 100}\n" + output(name);
}

/// A raft 0.5 wide and 0.25 high (16 x 8 cells), its bottom at `bottom`, of `density`.
std::string raft(double bottom, double density) {
  return "{shape: box, lower: [0.75, " + std::to_string(bottom) + "], upper: [1.25, " +
         std::to_string(bottom + 0.25) + "], floating: {density: " + std::to_string(density) +
         "}}";
}

/// The largest |u| over the owned faces.
double largest_velocity(Simulation& simulation) {
  PetscReal norm = 0.0;
  EXPECT_EQ(VecNorm(simulation.velocity().global(), NORM_INFINITY, &norm), 0);
  return norm;
}

const SolidMask::Pose& pose(const Simulation& simulation) {
  return simulation.part<FloatingBodies>()->bodies().front().pose;
}

double speed(const SolidMask::Pose& p) {
  return std::max({std::abs(p.velocity[0]), std::abs(p.velocity[1]), std::abs(p.velocity[2]),
                   std::abs(p.omega[0]), std::abs(p.omega[1]), std::abs(p.omega[2])});
}

// A raft of half the liquid's density placed with half its height under the surface is in
// equilibrium: the coupled solve leaves it and the liquid at rest to the solver's tolerance
// (measured: |u| and |V| below 2e-13 after 30 steps, at 1 to 4 ranks). The half cell of liquid
// between its bottom and the pressure's sample is carried with it (floating_bodies.hpp):
// without it the raft would rise until half a cell less of it were under water. One 10 %
// heavier in the same place sinks.
TEST(FloatingBodies, ABoxOfHalfTheLiquidsDensityRestsWithHalfItsHeightUnderTheSurface) {
  const double dt = 0.01;
  const JobConfig at_rest = parse_job(tank("rest", "64, 48", 0.75, raft(0.625, 0.5), dt),
                                      "rest.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, at_rest), 0);
  const SolidMask::Pose start = pose(simulation);
  EXPECT_DOUBLE_EQ(start.position[1], 0.75);
  EXPECT_DOUBLE_EQ(simulation.part<FloatingBodies>()->bodies().front().mass, 0.5 * 0.5 * 0.25);
  ASSERT_EQ(test::run_steps(simulation, dt, 30), 0);
  EXPECT_LT(speed(pose(simulation)), 1e-10);
  EXPECT_LT(std::abs(pose(simulation).position[1] - start.position[1]), 1e-10);
  EXPECT_LT(std::abs(pose(simulation).position[0] - start.position[0]), 1e-10);
  EXPECT_LT(test::global_max(largest_velocity(simulation)), 1e-10);

  const JobConfig heavier = parse_job(tank("heavier", "64, 48", 0.75, raft(0.625, 0.55), dt),
                                      "heavier.yaml");
  Simulation sinking;
  ASSERT_EQ(sinking.setup(PETSC_COMM_WORLD, heavier), 0);
  ASSERT_EQ(test::run_steps(sinking, dt, 30), 0);
  EXPECT_LT(pose(sinking).velocity[1], -0.004);  // measured -0.0084
}

// The same in 3-D for a sphere of the liquid's own density under the surface: it stays put.
TEST(FloatingBodies, ANeutrallyBuoyantSphereStaysPut) {
  const double dt = 0.02;
  const auto job = [&](const std::string& name, double density) {
    return "name: " + name + "\n"
           "grid: {cells: [20, 24, 20], size: [1, 1.2, 1]}\n"
           "boundary: {x: no-slip, y: no-slip, z: free-slip}\n"
           "forces: {gravity: [0, -1, 0]}\n"
           "liquid:\n"
           "  initial: [{shape: box, lower: [-1, -1, -1], upper: [2, 0.9, 2]}]\n"
           "  interface: level_set\n"
           "  particles: {per_cell: 0}\n"
           "obstacles: [{shape: sphere, center: [0.45, 0.5, 0.5], radius: 0.2, "
           "floating: {density: " + std::to_string(density) + "}}]\n"
           "pressure: {tolerance: 1e-12}\n"
           "time: {dt: " + std::to_string(dt) + ", end: 100}\n" + output(name);
  };
  const JobConfig neutral = parse_job(job("neutral", 1.0), "neutral.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, neutral), 0);
  const SolidMask::Pose start = pose(simulation);
  ASSERT_EQ(test::run_steps(simulation, dt, 10), 0);
  EXPECT_LT(speed(pose(simulation)), 1e-10);
  for (int a = 0; a < 3; ++a)
    EXPECT_LT(std::abs(pose(simulation).position[a] - start.position[a]), 1e-10);
  EXPECT_LT(test::global_max(largest_velocity(simulation)), 1e-10);

  const JobConfig denser = parse_job(job("denser", 1.1), "denser.yaml");
  Simulation sinking;
  ASSERT_EQ(sinking.setup(PETSC_COMM_WORLD, denser), 0);
  ASSERT_EQ(test::run_steps(sinking, dt, 10), 0);
  EXPECT_LT(pose(sinking).velocity[1], -0.005);
}

// Released with a quarter of its height under water, the raft of half the liquid's density
// bobs about the depth Archimedes gives: with the liquid it displaces at rest (1.46875 of it in
// a tank 2 wide) its centre is at 0.765625 then. The centre of the swing, from the first three
// extremes as (y0 + 2 y1 + y2) / 4, which cancels the damping to first order, measured 0.76583
// (0.0067 cells off; the level set's volume changed by under 0.6 % meanwhile), at 1 to 4 ranks.
// The added mass of the liquid, 1.5 times the raft's own, would make an explicit coupling
// unstable; the coupled solve bobs with a period of 3.5.
TEST(FloatingBodies, AReleasedRaftBobsAboutTheDepthArchimedesGives) {
  const double dt = 0.01, h = 1.0 / 32.0;
  const JobConfig job = parse_job(tank("bob", "64, 48", 0.75, raft(0.6875, 0.5), dt), "bob.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  std::vector<double> extremes = {pose(simulation).position[1]};
  double last = extremes.front(), direction = -1.0;
  for (int s = 0; s < 420 && extremes.size() < 3; ++s) {
    ASSERT_EQ(test::run_steps(simulation, dt, 1), 0);
    const double y = pose(simulation).position[1];
    if ((y - last) * direction < 0.0) {  // turned
      extremes.push_back(last);
      direction = -direction;
    }
    last = y;
  }
  ASSERT_EQ(extremes.size(), 3u);
  const double centre = (extremes[0] + 2.0 * extremes[1] + extremes[2]) / 4.0;
  EXPECT_NEAR(centre, 0.765625, 0.1 * h);
  EXPECT_LT(extremes[1], 0.765625 - 1.0 * h);  // it swings through, a cell and more
  EXPECT_LT(std::abs(pose(simulation).position[0] - 1.0), 0.5 * h);  // and stays in the middle
}

// A disc twice as dense as the liquid, released from rest under the surface, falls at first with
// a = g (rho - 1) / (rho + C_a), C_a = 1 the added mass of a circle in potential flow: g / 3.
// Measured after one step: 0.3053 at 64 x 48 (a radius of 3.2 cells), 0.3152 at 128 x 96,
// 0.3221 at 256 x 192, at 1 to 4 ranks; the wall below and the surface above, 0.4 away, change
// it by less than the staircase does. Without the liquid's part of the mass (an explicit
// pressure force) it would be g / 2.
TEST(FloatingBodies, ADenseDiscFallsWithTheAddedMassOfPotentialFlow) {
  const double dt = 0.001, exact = 1.0 / 3.0;
  double error[2] = {0.0, 0.0};
  const char* cells[2] = {"64, 48", "128, 96"};
  for (int n = 0; n < 2; ++n) {
    const JobConfig job = parse_job(
        tank("disc", cells[n], 1.0,
             "{shape: sphere, center: [1, 0.5], radius: 0.1, floating: {density: 2}}", dt),
        "disc.yaml");
    Simulation simulation;
    ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
    ASSERT_EQ(test::run_steps(simulation, dt, 1), 0);
    error[n] = std::abs(-pose(simulation).velocity[1] / dt - exact);
  }
  EXPECT_LT(error[1], 0.06 * exact);
  EXPECT_LT(error[1], 0.7 * error[0]);
}

/// The angular momentum about (cx, cy) of the liquid on the free faces (per unit density and
/// depth), over all ranks.
double liquid_angular_momentum(Simulation& simulation, double cx, double cy) {
  const Grid& grid = simulation.grid();
  const PetscScalar* data;
  ArrayView u;
  EXPECT_EQ(VecGetArrayRead(simulation.velocity().global(), &data), 0);
  EXPECT_EQ(grid.global_view(simulation.velocity().dm(), const_cast<PetscScalar*>(data), &u), 0);
  const double cell = grid.spacing(0) * grid.spacing(1);
  double momentum = 0.0;
  for (int c = 0; c < 2; ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (simulation.solids().fixed_face(c, i, j, k)) return;
      const double x = c == 0 ? grid.origin(0) + i * grid.spacing(0) : grid.cell_center(0, i);
      const double y = c == 1 ? grid.origin(1) + j * grid.spacing(1) : grid.cell_center(1, j);
      momentum += cell * (c == 0 ? -(y - cy) * u(i, j, k, 0) : (x - cx) * u(i, j, k, 1));
    });
  EXPECT_EQ(VecRestoreArrayRead(simulation.velocity().global(), &data), 0);
  return test::global_total(momentum);
}

/// The moment of inertia about z of the half cells of liquid a floating body carries (one per
/// face between it and a liquid cell: floating_bodies.hpp), about (cx, cy), over all ranks.
double shell_inertia(Simulation& simulation, double cx, double cy) {
  const Grid& grid = simulation.grid();
  const SolidMask& solids = simulation.solids();
  const double half_cell = 0.5 * grid.spacing(0) * grid.spacing(1);
  double inertia = 0.0;
  for (int c = 0; c < 2; ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      const PetscInt at[3] = {i, j, k};
      if (at[c] == 0 || at[c] == grid.cells(c)) return;
      const bool upper = solids.solid(i, j, k);
      const bool lower = solids.solid(i - (c == 0), j - (c == 1), k);
      if (upper == lower) return;  // not between the body and the liquid
      const double x = c == 0 ? grid.origin(0) + i * grid.spacing(0) : grid.cell_center(0, i);
      const double y = c == 1 ? grid.origin(1) + j * grid.spacing(1) : grid.cell_center(1, j);
      const double arm = c == 0 ? -(y - cy) : x - cx;  // (r x e_c) . e_z
      inertia += half_cell * arm * arm;
    });
  return test::global_total(inertia);
}

/// A disc of `density` spinning at 2 in a closed box full of a liquid of `viscosity` (no
/// gravity), after 20 steps of 0.01: its spin over the start's, the angular momentum the liquid
/// on the free faces gained and what the disc, with the half cells of liquid it carries, lost.
struct SpinDown {
  double spin = 0.0, gained = 0.0, lost = 0.0;
};

SpinDown spin_down(double density, double viscosity, bool* monotone) {
  const JobConfig job = parse_job(
      "name: spin\n"
      "grid: {cells: [64, 64], size: [1, 1]}\n"
      "boundary: {x: no-slip, y: no-slip}\n"
      "fluid: {viscosity: " + std::to_string(viscosity) + "}\n"
      "liquid: {interface: level_set, initial: [{shape: box, lower: [-1, -1], upper: [2, 2]}],"
      " particles: {per_cell: 0}}\n"
      "obstacles: [{shape: sphere, center: [0.5, 0.5], radius: 0.2,"
      " floating: {density: " + std::to_string(density) + ", angular_velocity: 2}}]\n"
      "pressure: {tolerance: 1e-12}\n"
      "time: {dt: 0.01, end: 100}\n" + output("spin"),
      "spin.yaml");
  Simulation simulation;
  SpinDown result;
  EXPECT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const FloatingBodies::Body& body = simulation.part<FloatingBodies>()->bodies().front();
  const double inertia = body.inertia[8], cx = body.pose.position[0], cy = body.pose.position[1];
  const double spin0 = body.pose.omega[2];
  double last = spin0;
  *monotone = true;
  for (int s = 0; s < 20; ++s) {
    EXPECT_EQ(test::run_steps(simulation, 0.01, 1), 0);
    const double spin = simulation.part<FloatingBodies>()->bodies().front().pose.omega[2];
    *monotone = *monotone && spin <= last && spin > 0.0;
    last = spin;
  }
  result.spin = last / spin0;
  result.lost = (inertia + shell_inertia(simulation, cx, cy)) * (spin0 - last);
  result.gained = liquid_angular_momentum(simulation, cx, cy);
  return result;
}

// A disc spinning in a viscous liquid slows down and sets the liquid turning: the diffusion
// moves angular momentum across the disc's no-slip faces and the disc is pulled towards the
// liquid beside it (drag()). Measured (64^2, 20 steps of 0.01, viscosity 0.01, the disc as dense
// as the liquid): the disc keeps 41 % of its spin (a Rayleigh layer estimate says about half),
// and the liquid on the free faces gains 1.038 times what the disc, with the half cells of
// liquid it carries, loses, the same at 1 to 4 ranks (the diffusion is the Laplacian of each
// component, whose balance of angular momentum has a term, mu times the integral of u x n over
// the surface, that no flux across the faces carries; and the disc follows the liquid's
// velocity after the diffusion, not the one the diffusion saw). Without the drag the disc lost
// 5.5 % of its spin (the pressure on its staircase) while the liquid gained 19 times that.
TEST(FloatingBodies, ASpinningDiscGivesTheViscousLiquidTheAngularMomentumItLoses) {
  bool monotone = false;
  const SpinDown down = spin_down(1.0, 0.01, &monotone);
  EXPECT_TRUE(monotone);
  EXPECT_LT(down.spin, 0.98);
  EXPECT_NEAR(down.gained / down.lost, 1.0, 0.05)
      << "lost " << down.lost << " gained " << down.gained << " spin " << down.spin;
}

// The drag is implicit in the body's velocity: a disc twenty times lighter than the liquid, or
// in a liquid twenty times thicker, slows down step by step and never turns backwards (an
// explicit pull by the liquid's shear overshot and grew: spin 6 and 2.5e5 times the start's).
TEST(FloatingBodies, ALightDiscOrAThickLiquidSlowsTheSpinWithoutOvershoot) {
  for (const auto& [density, viscosity] : {std::pair{0.05, 0.01}, std::pair{0.5, 0.2}}) {
    bool monotone = false;
    const SpinDown down = spin_down(density, viscosity, &monotone);
    EXPECT_TRUE(monotone) << "density " << density << " viscosity " << viscosity;
    EXPECT_LT(down.spin, 0.5) << "density " << density << " viscosity " << viscosity;
  }
}

// A run continued from a checkpoint goes on bit for bit: the bodies' places, rotations and
// velocities are in the checkpoint (the liquid's fields too), and nothing else is needed.
TEST(FloatingBodies, ARestartContinuesBitForBit) {
  const double dt = 0.01;
  // The straight run has a name (and directories) of its own: two runs of one name may not
  // share them at once.
  const auto text = [](const std::string& name) {
    return tank(name, "48, 36", 0.75,
                "{shape: box, lower: [0.7, 0.62], upper: [1.2, 0.95], "
                "floating: {density: 0.6, angular_velocity: 0.3, velocity: [0.05, 0]}}",
                0.01);
  };
  const JobConfig job = parse_job(text("floating_restart"), "floating_restart.yaml");
  const JobConfig other = parse_job(text("floating_straight"), "floating_straight.yaml");
  Simulation straight;
  ASSERT_EQ(straight.setup(PETSC_COMM_WORLD, other), 0);
  ASSERT_EQ(test::run_steps(straight, dt, 20), 0);
  std::string path;
  {
    Simulation first;
    ASSERT_EQ(first.setup(PETSC_COMM_WORLD, job), 0);
    ASSERT_EQ(test::run_steps(first, dt, 10), 0);
    ASSERT_EQ(first.write_checkpoint(&path), 0);
  }
  Simulation resumed;
  ASSERT_EQ(resumed.setup(PETSC_COMM_WORLD, job, path), 0);
  ASSERT_EQ(test::run_steps(resumed, dt, 10), 0);
  const std::vector<double> a = straight.part<FloatingBodies>()->state(),
                            b = resumed.part<FloatingBodies>()->state();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0);
  EXPECT_NE(a[1], pose(straight).start[1]);  // it moved (a[1]: the centre's y)
  // The liquid's fields, owned values bit for bit.
  EXPECT_EQ(test::global_sum(test::differs_bitwise(straight.velocity().global(),
                                                   resumed.velocity().global())),
            0);
  EXPECT_EQ(test::global_sum(test::differs_bitwise(straight.scalars().back().global(),
                                                   resumed.scalars().back().global())),
            0);
}

// A heavy body sinking onto a block on the floor stops the run there, naming both (contact is
// not modelled, and a body let into another obstacle would lose its faces there).
TEST(FloatingBodies, ABodyThatReachesAnotherObstacleStopsTheRun) {
  const double dt = 0.02;
  const JobConfig job = parse_job(
      tank("to_block", "32, 24", 0.75,
           "{shape: box, lower: [0.5, -1], upper: [1.5, 0.25]}, "
           "{shape: sphere, center: [1, 0.5], radius: 0.12, floating: {density: 3}}",
           dt),
      "to_block.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  std::string message;
  const PetscErrorCode status = test::run_until_failure(simulation, dt, 200, &message);
  EXPECT_EQ(status, PETSC_ERR_SUP);  // a run-time failure: exit status 1
  EXPECT_NE(message.find("floating obstacle 1 reached obstacle 0"), std::string::npos) << message;
}

// A heavy body sinks to the floor, which it cannot touch (contact is not modelled): the run
// stops with the body and the wall named instead of letting it into the wall.
TEST(FloatingBodies, ABodyThatReachesAWallStopsTheRun) {
  const double dt = 0.02;
  const JobConfig job = parse_job(
      tank("to_floor", "32, 24", 0.75,
           "{shape: sphere, center: [1, 0.3], radius: 0.12, floating: {density: 3}}", dt),
      "to_floor.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  std::string message;
  const PetscErrorCode status = test::run_until_failure(simulation, dt, 200, &message);
  EXPECT_EQ(status, PETSC_ERR_SUP);  // a run-time failure: exit status 1
  EXPECT_NE(message.find("floating obstacle 0 reached the y lower side"), std::string::npos)
      << message;
  EXPECT_LT(pose(simulation).position[1], 0.3 - 0.12);
}

// A body the job itself places next to the floor cannot run as given: refused at set-up, before
// the first step, with the job's status (2) rather than the run-time failure of a body that
// sinks there.
TEST(FloatingBodies, ABodyPlacedAgainstAWallIsTheJobsError) {
  const double dt = 0.02;
  const JobConfig job = parse_job(
      tank("on_floor", "32, 24", 0.75,
           "{shape: sphere, center: [1, 0.1], radius: 0.12, floating: {density: 3}}", dt),
      "on_floor.yaml");
  Simulation simulation;
  std::string message;
  const PetscErrorCode status = test::catching_errors(
      [&] { return simulation.setup(PETSC_COMM_WORLD, job); }, &message);
  EXPECT_EQ(status, kErrorBadJob);
  EXPECT_NE(message.find("floating obstacle 0 starts next to the y lower side"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace sf
