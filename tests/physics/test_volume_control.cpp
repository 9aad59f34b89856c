// The volume controller's arithmetic (volume_control.hpp), on its own model of the liquid: a
// volume that changes at dV/dt = -c V - L V_0 (the controller's divergence and a leak L), taken
// in steps of dt = T / 25. The closed loop is x'' + k_p x' + k_i x = 0 with both roots at -1 / T,
// so: a start 10 % low comes back as x_0 (1 - t / T) e^{-t / T}, crossing the target once and
// overshooting it by at most e^{-2} |x_0| (at t = 2 T), a steady leak leaves no offset (the
// integral term; a proportional controller alone would hold x = -L / k_p), and the state a
// checkpoint keeps continues the run bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "volume_control.hpp"

namespace sf {
namespace {

constexpr double kResponse = 0.5, kDt = kResponse / 25.0;

/// Steps `steps` of the model from volume *v (V_0 = 1) with leak rate `leak`; the largest x.
double run(VolumeController& controller, double* v, double leak, int steps) {
  double largest = -1e300;
  for (int s = 0; s < steps; ++s) {
    const double divergence = controller.update(*v, 1.0, kDt);
    *v += kDt * (divergence * *v - leak);
    largest = std::max(largest, *v - 1.0);
  }
  return largest;
}

TEST(VolumeControl, GainsAreTheCriticallyDampedPair) {
  const VolumeController controller(kResponse);
  EXPECT_DOUBLE_EQ(controller.proportional_gain(), 2.0 / kResponse);
  EXPECT_DOUBLE_EQ(controller.integral_gain(), 1.0 / (kResponse * kResponse));
}

TEST(VolumeControl, ALowStartComesBackWithOneSmallOvershoot) {
  VolumeController controller(kResponse);
  double v = 0.9;
  // Over 20 T the error decays as (1 - t / T) e^{-t / T}: below 1e-6 of the start by then.
  const double largest = run(controller, &v, 0.0, 20 * 25);
  // The overshoot, e^{-2} of the start in continuous time; the steps of T / 25 change it to
  // first order in dt / T (4 %), allowed 10 %.
  EXPECT_GT(largest, 0.0);
  EXPECT_LT(largest, 1.1 * std::exp(-2.0) * 0.1);
  EXPECT_LT(std::abs(v - 1.0), 1e-6 * 0.1);
}

TEST(VolumeControl, ASteadyLeakLeavesNoOffset) {
  const double leak = 0.05;  // 5 % of the volume per unit time
  VolumeController controller(kResponse);
  double v = 1.0;
  run(controller, &v, leak, 40 * 25);
  EXPECT_LT(std::abs(v - 1.0), 1e-6 * leak * kResponse);
  // A proportional controller's offset, -L / k_p, for scale: the integral term removes it.
  EXPECT_GT(leak / controller.proportional_gain(), 1e3 * std::abs(v - 1.0));
}

TEST(VolumeControl, ItsStateContinuesARunBitForBit) {
  VolumeController straight(kResponse), first(kResponse);
  double a = 0.95, b = 0.95;
  run(straight, &a, 0.02, 30);
  run(first, &b, 0.02, 10);
  VolumeController resumed(kResponse);
  ASSERT_TRUE(resumed.restore(first.state()));
  run(resumed, &b, 0.02, 20);
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0);
  EXPECT_FALSE(resumed.restore({}));
  EXPECT_FALSE(resumed.restore({1.0, 2.0}));
}

}  // namespace
}  // namespace sf
