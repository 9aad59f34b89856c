// Fire (src/physics/fire.hpp), the module's burn stage on a grid (test::ModuleBench, no solvers).
// The reaction is exact where nothing moves: with the fluid at rest, after the stage every cell
// holds exactly F - b, T + heat b, S + yield b with b = F (1 - exp(-k dt)) where T >= the ignition
// temperature, and nothing changes elsewhere; through steps fuel plus soot over yield is kept, and
// a step of any length never leaves negative fuel. The expansion of the burnt gas is the
// projection's, in whole steps: tests/app/test_fire_steps.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "fire_case.hpp"
#include "job.hpp"
#include "module_bench.hpp"
#include "mpi_test_util.hpp"

namespace sf {
namespace {

using namespace test::fire;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// The module's burn stage (after the forces) on the job's initial state, ten times over: every
/// cell exactly as burn() says. Then steps without the solvers: at rest and without expansion the
/// fluid is divergence-free and has no viscosity, so the projection and the diffusion would leave
/// it as it is, and the fire is all that changes the scalars, up to the advection's rounding:
/// fuel plus soot over the yield is kept.
void check_exact_burning(int dim) {
  const double dt = 0.05;
  const JobConfig job = parse_job(fire_job("fire_exact", dim, dt, 0.0), "fire_exact.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  const std::vector<Field>& scalars = bench.scalars();
  std::vector<double> fuel = values(scalars[0]), heat = values(scalars[1]),
                      soot = values(scalars[2]);
  long burning = 0, wrong = 0;
  for (int step = 0; step < 10; ++step) {
    ASSERT_EQ(bench.run({Anchor::AfterForces}, dt), 0);
    const std::vector<double> f = values(scalars[0]), t = values(scalars[1]),
                              s = values(scalars[2]);
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

  test::ModuleBench stepped;
  ASSERT_EQ(stepped.setup(PETSC_COMM_WORLD, job), 0);
  const auto kept = [&]() {
    const std::vector<double> f = values(stepped.scalars()[0]), s = values(stepped.scalars()[2]);
    double total = 0.0;
    for (size_t c = 0; c < f.size(); ++c) total += f[c] + s[c] / kYield;
    return test::global_total(total);
  };
  const double before = kept();
  const std::vector<double> fuel0 = values(stepped.scalars()[0]);
  for (int step = 0; step < 10; ++step) ASSERT_EQ(stepped.step_without_solvers(dt), 0);
  EXPECT_NEAR(kept(), before, 1e-13 * before);
  // And it did burn: a tenth of a second at rate 2 leaves e^-1 of the fuel where it is hot.
  const std::vector<double> fuel10 = values(stepped.scalars()[0]);
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
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  const std::vector<double> fuel = values(bench.scalars()[0]), heat = values(bench.scalars()[1]);
  ASSERT_EQ(bench.run({Anchor::AfterForces}, dt), 0);
  const std::vector<double> after = values(bench.scalars()[0]);
  long negative = 0, left = 0;
  for (size_t c = 0; c < after.size(); ++c) {
    if (after[c] < 0.0) ++negative;
    if (heat[c] >= kIgnition && after[c] != 0.0) ++left;
    if (heat[c] < kIgnition && after[c] != fuel[c]) ++left;
  }
  EXPECT_EQ(test::global_sum(negative), 0);
  EXPECT_EQ(test::global_sum(left), 0);
}

}  // namespace
}  // namespace sf
