// The channel of the variable-viscosity tests: 0 < y < H between no-slip walls, periodic along
// x (and z), a viscosity nu1 below y0 and nu2 above it (a jump on a cell face), and the exact
// plane Couette and Poiseuille profiles through the jump. Shared by the solve's tests
// (tests/solvers) and the whole step's (tests/app).
#pragma once

#include <array>
#include <cmath>

#include "job.hpp"
#include "test_boundaries.hpp"

namespace sf::test {

constexpr double kHeight = 1.0, kJump = 0.375, kNuBelow = 1.0, kNuAbove = 10.0;

/// nu = nu_low where wax = 0, nu_high where wax = 1, log-linear in between.
inline ViscosityLaw two_viscosities(double nu_low, double nu_high, ViscosityAverage average) {
  ViscosityLaw law;
  law.scalar = "wax";
  law.at = {0.0, 1.0};
  law.log_nu = {std::log(nu_low), std::log(nu_high)};
  law.average = average;
  return law;
}

/// Plane Couette flow through the jump, the upper wall moving at U: the shear stress tau is the
/// same across the channel and the velocity continuous at y0, so the profile is linear in each
/// layer, u = tau y / nu1 below and U - tau (H - y) / nu2 above, tau = U / (y0/nu1 +
/// (H - y0)/nu2).
inline double couette(double wall, double y) {
  const double tau = wall / (kJump / kNuBelow + (kHeight - kJump) / kNuAbove);
  return y < kJump ? tau * y / kNuBelow : wall - tau * (kHeight - y) / kNuAbove;
}

/// Plane Poiseuille flow through the jump under a body force g along x: tau = nu du/dy =
/// -g y + C, u(0) = u(H) = 0 and u continuous at y0 fix C; the profile is quadratic in each
/// layer and its kink at y0 keeps nu du/dy continuous.
inline double poiseuille(double g, double y) {
  const double c = (g * kJump * kJump / (2.0 * kNuBelow) -
                    g * (kJump * kJump - kHeight * kHeight) / (2.0 * kNuAbove)) /
                   (kJump / kNuBelow - (kJump - kHeight) / kNuAbove);
  if (y < kJump) return (-g * y * y / 2.0 + c * y) / kNuBelow;
  return (-g * (y * y - kHeight * kHeight) / 2.0 + c * (y - kHeight)) / kNuAbove;
}

inline Boundaries channel(int dim, std::array<double, 3> wall_velocity = {0.0, 0.0, 0.0}) {
  Boundaries b = all(BoundaryKind::Periodic);
  b[1][0] = face(BoundaryKind::NoSlip);
  b[1][1] = face(BoundaryKind::NoSlip);
  b[1][1].velocity = wall_velocity;
  (void)dim;
  return b;
}

}  // namespace sf::test
