// The moving-obstacles module on a bench (module_bench.hpp: the physics layer, no solver): its
// "move obstacles" stage puts a turning or keyframed body where its motion has it at the step's
// end, with the velocity of the body's point on every face of its surface, and its "hold
// obstacle values" stage keeps the scalar a body holds through the advection, at every rank
// count. What the projection makes of the fluid beside a moving body (a piston driving a
// channel, a body carried with the flow, a swinging paddle) is a whole step's:
// tests/app/test_moving_obstacles_steps.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "job.hpp"
#include "module_bench.hpp"
#include "moving_obstacle_test_util.hpp"

namespace sf {
namespace {

// A square of side 0.3 turning at 1 radian per unit time about its centre (0.5, 0.5) in a closed
// box: after every step its cells are those whose centres, turned back by the angle t about the
// centre, fall in the square, every face of its surface carries the velocity of the body's
// point at the face's centre, omega x r = (-(y - 0.5), x - 0.5), and the dye it holds at 2 stays
// 2 in all its cells. The steps are the bench's, without diffusion and projection: the advection
// traces the body's cells with its velocity and mixes the fluid's dye into them, so the values
// must be held again after it (the dye does not diffuse, as the diffusion solve would hold them
// too and hide a missing hold), and the advection leaves the solid faces to the stage.
TEST(MovingObstacle, ATurningSquareIsWhereItsAngleSaysAndMovesItsFaces) {
  const JobConfig job = parse_job(test::turning_square_job(), "turning.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  const SolidMask& solids = bench.solids();
  for (int s = 0; s < 25; ++s) {
    ASSERT_EQ(bench.step_without_solvers(job.time.dt), 0);
    const double t = bench.flow().time;
    EXPECT_EQ(test::misplaced_square(bench.grid(), solids, 0.5, 0.5, 0.15, t), 0) << "step " << s;
    EXPECT_LT(test::surface_departure(bench.velocity(), solids, 0.0, 0.0, 1.0, 0.5, 0.5), 1e-12)
        << "step " << s;
    EXPECT_EQ(test::largest_scalar_departure(
                  bench.scalars()[0], 2.0,
                  [&](PetscInt i, PetscInt j, PetscInt k) { return solids.solid(i, j, k); }),
              0.0)
        << "step " << s;
  }
}

TEST(MovingObstacle, AKeyframedBodyFollowsItsPathAndAnglesAndMovesItsFaces) {
  // A square slides right, then turns by 0.8 while it rises, then stays: the keyframes at
  // t = 0, 0.125 and 0.25, linear in between, held after. Steps of 1/32 land exactly on the
  // keyframes' times (binary fractions), where the faces must carry the stretch the step moved
  // along, the one that ends there. The steps are the bench's, without diffusion and projection,
  // which leave the solid faces alone.
  const JobConfig job = parse_job(test::keyframed_square_job(), "keyframed.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  const SolidMask& solids = bench.solids();
  int on_keyframes = 0;
  for (int s = 0; s < 12; ++s) {
    ASSERT_EQ(bench.step_without_solvers(job.time.dt), 0);
    // Where the path puts the square's centre (0.3, 0.45) and its angle, and their rates: those
    // of the stretch (t0, t1] the step ends in, none once the path has ended.
    const double t = bench.flow().time;
    on_keyframes += t == 0.125 || t == 0.25;
    const bool sliding = t <= 0.125, rising = !sliding && t <= 0.25;
    const double cx = 0.3 + 0.2 * std::min(t / 0.125, 1.0);
    const double cy = 0.45 + 0.1 * std::clamp((t - 0.125) / 0.125, 0.0, 1.0);
    const double angle = 0.8 * std::clamp((t - 0.125) / 0.125, 0.0, 1.0);
    const double vx = sliding ? 1.6 : 0.0, vy = rising ? 0.8 : 0.0, omega = rising ? 6.4 : 0.0;
    EXPECT_EQ(test::misplaced_square(bench.grid(), solids, cx, cy, 0.1, angle), 0)
        << "step " << s << " t " << t;
    EXPECT_LT(test::surface_departure(bench.velocity(), solids, vx, vy, omega, cx, cy), 1e-12)
        << "step " << s << " t " << t;
  }
  EXPECT_EQ(on_keyframes, 2);  // the steps did end on both keyframes
}

}  // namespace
}  // namespace sf
