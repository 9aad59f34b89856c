// The spray module on a bench (module_bench.hpp: the physics layer, no solver), with the level
// set module whose phi its particles land in: spray flies on the exact trajectories of gravity
// and drag from rank to rank, spray that lands on a still pool becomes foam that lives as long
// as its exponential law says, and splitting keeps the volume, at every rank count. What a
// liquid moved by whole steps sheds (none from a still pool, spray and foam from a collapsing
// column) and a restart: tests/app/test_spray_steps.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "job.hpp"
#include "module_bench.hpp"
#include "mpi_test_util.hpp"
#include "spray.hpp"
#include "spray_test_util.hpp"

namespace sf {
namespace {

/// Takes `steps` steps of dt from the projection on: the stages after it (the velocity extended
/// into the air, then spray's) and the end of the step. The pools of these tests are at rest,
/// and a whole step leaves them so (the projection's pressure balances gravity): the stages
/// before the projection, which the bench would run without it, are left out with it, and the
/// velocity stays 0. Collective.
PetscErrorCode steps_after_projection(test::ModuleBench& bench, double dt, int steps) {
  PetscFunctionBeginUser;
  for (int s = 0; s < steps; ++s) {
    PetscCall(bench.run({Anchor::AfterProjection, Anchor::EndOfStep}, dt));
    bench.finish_step(dt);
  }
  PetscFunctionReturn(0);
}

// Particles thrown from rank 0 fly over the other ranks' blocks on the exact solution of
// dv/dt = g - k v: a parabola without drag, and with k = 0.5 the exponential approach to the
// terminal velocity, to 1e-12 after 20 steps, whatever rank holds them at the end. One thrown
// up through the top of the box is gone; none is lost or doubled on the way.
TEST(Spray, FliesOnTheExactTrajectoryOfGravityAndDragFromRankToRank) {
  const double dt = 0.05, t = 20 * dt, g = -1.0;
  for (const double k : {0.0, 0.5}) {
    const JobConfig job = parse_job(
        test::pool("fly", 0.1, "threshold: 100, drag: " + std::to_string(k)), "fly.yaml");
    test::ModuleBench bench;
    ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
    Spray& spray = *bench.part<Spray>();
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
        ASSERT_EQ(spray.add_spray(x, v, 0.01, n), 0);
      }
    ASSERT_EQ(steps_after_projection(bench, dt, 20), 0);
    SprayRecords records;
    ASSERT_EQ(spray.records(&records), 0);
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
    const test::Census c = test::count(spray);
    EXPECT_EQ(c.spray, 16);
    EXPECT_EQ(c.foam, 0);
  }
}

// Spray dropped onto a still pool lands as foam whose lives are exponential with the mean
// foam_life (for the mean radius): after one mean life e^-1 of it is left, to the statistics of
// 2000 draws (4 sigma: 0.045), and after three, e^-3.
TEST(Spray, FoamLivesAsItsExponentialLawSays) {
  const double dt = 0.05, life = 1.0, radius = 0.01;
  const JobConfig job = parse_job(
      test::pool("foam", 0.5, "threshold: 100, radius: 0.01, foam_life: 1"), "foam.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  Spray& spray = *bench.part<Spray>();
  const int dropped = 2000;
  if (test::comm_rank() == 0)
    for (int n = 0; n < dropped; ++n) {
      const std::array<double, 3> x = {0.05 + 1.9 * (n + 0.5) / dropped, 0.52, 0.0};
      ASSERT_EQ(spray.add_spray(x, {0.0, -1.0, 0.0}, radius, n), 0);
    }
  ASSERT_EQ(steps_after_projection(bench, dt, 1), 0);  // every one lands in the first step
  const test::Census landed = test::count(spray);
  EXPECT_EQ(landed.foam, dropped);
  EXPECT_EQ(landed.spray, 0);
  ASSERT_EQ(steps_after_projection(bench, dt, static_cast<int>(std::lround(life / dt))), 0);
  EXPECT_NEAR(static_cast<double>(test::count(spray).foam) / dropped, std::exp(-1.0), 0.045);
  ASSERT_EQ(steps_after_projection(bench, dt, static_cast<int>(std::lround(2.0 * life / dt))),
            0);
  EXPECT_NEAR(static_cast<double>(test::count(spray).foam) / dropped, std::exp(-3.0), 0.02);
}

// A spray particle that splits becomes two of half its volume: the total volume of a cloud that
// splits on average every 0.1 stays what it was (to rounding) while the particles multiply.
TEST(Spray, SplittingKeepsTheVolume) {
  const JobConfig job =
      parse_job(test::pool("split", 0.1, "threshold: 100, split_time: 0.1"), "split.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  Spray& spray = *bench.part<Spray>();
  const double radius = 0.02;
  if (test::comm_rank() == 0) {
    for (int n = 0; n < 10; ++n)
      ASSERT_EQ(spray.add_spray({0.2 + 0.16 * n, 1.5, 0.0}, {0.0, 0.5, 0.0}, radius, n), 0);
  }
  ASSERT_EQ(steps_after_projection(bench, 0.05, 10), 0);
  SprayRecords records;
  ASSERT_EQ(spray.records(&records), 0);
  double volume = 0.0;
  for (const double r : records[kSprayRadius]) volume += r * r * r;
  EXPECT_NEAR(test::global_total(volume), 10 * radius * radius * radius,
              1e-12 * radius * radius * radius);
  EXPECT_GT(test::count(spray).spray, 40);  // 10 (2 - e^-0.5)^10 = 275 expected
}

}  // namespace
}  // namespace sf
