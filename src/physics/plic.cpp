// The plane's volume and its inverse in the unit cell (see plic.hpp for the formulas).
#include "plic.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace sf::plic {
namespace {

// Components of the unit normal below this are taken as 0: the formulas divide by products of
// up to three components, which underflow to 0 for such components (a nearly empty cell's
// Youngs gradient of (4e-249, 3e-171, 2e-43) gave 0 / 0 in floating_boxes_3d), and a
// component this small changes no volume by a bit.
constexpr double kNegligible = 1e-50;

// m made non-negative (mirroring the axes where it is negative), scaled to sum 1 (components
// below kNegligible then 0) and sorted ascending; alpha in the same units. False when m is 0
// on every axis.
struct Unit {
  double m[3] = {0.0, 0.0, 0.0};
  double sum = 0.0;    // sum |m_a|: alpha = a sum + shift
  double shift = 0.0;  // sum of the negative m_a
};

bool normalise(const double m[3], int dim, Unit* unit) {
  for (int a = 0; a < dim; ++a) {
    unit->m[a] = std::abs(m[a]);
    unit->sum += unit->m[a];
    if (m[a] < 0.0) unit->shift += m[a];
  }
  if (!(unit->sum > 0.0)) return false;
  for (int a = 0; a < dim; ++a) {
    unit->m[a] /= unit->sum;
    if (unit->m[a] < kNegligible) unit->m[a] = 0.0;
  }
  double* n = unit->m;
  if (n[0] > n[1]) std::swap(n[0], n[1]);
  if (dim == 3) {
    if (n[1] > n[2]) std::swap(n[1], n[2]);
    if (n[0] > n[1]) std::swap(n[0], n[1]);
  }
  return true;
}

// The volume for 0 <= alpha <= 1/2, m sorted ascending with sum 1.
double lower_volume(const double m[3], double a, int dim) {
  if (a <= 0.0) return 0.0;
  if (dim == 2) {
    if (a < m[0]) return a * a / (2.0 * m[0] * m[1]);
    return (a - 0.5 * m[0]) / m[1];
  }
  const double m1 = m[0], m2 = m[1], m3 = m[2];
  if (a < m1) return a * a * a / (6.0 * m1 * m2 * m3);
  if (a >= m1 + m2) return (a - 0.5 * (m1 + m2)) / m3;
  double v = (3.0 * a * a - 3.0 * a * m1 + m1 * m1) / (6.0 * m2 * m3);
  const double p = a - m2, q = a - m3;
  double cubes = 0.0;
  if (p > 0.0) cubes += p * p * p;
  if (q > 0.0) cubes += q * q * q;
  if (cubes > 0.0) v -= cubes / (6.0 * m1 * m2 * m3);
  return v;
}

double unit_volume(const double m[3], double a, int dim) {
  if (a <= 0.0) return 0.0;
  if (a >= 1.0) return 1.0;
  if (a > 0.5) return 1.0 - lower_volume(m, 1.0 - a, dim);
  return lower_volume(m, a, dim);
}

// The alpha of fraction f <= 1/2, m sorted ascending with sum 1.
double lower_alpha(const double m[3], double f, int dim) {
  if (f <= 0.0) return 0.0;
  if (dim == 2) {
    if (f < m[0] / (2.0 * m[1])) return std::sqrt(2.0 * m[0] * m[1] * f);
    return f * m[1] + 0.5 * m[0];
  }
  const double m1 = m[0], m2 = m[1], m3 = m[2];
  if (f < m1 * m1 / (6.0 * m2 * m3)) return std::cbrt(6.0 * m1 * m2 * m3 * f);
  if (f < (3.0 * m2 * m2 - 3.0 * m1 * m2 + m1 * m1) / (6.0 * m2 * m3))
    return 0.5 * m1 + std::sqrt(std::max(0.0, 2.0 * m2 * m3 * f - m1 * m1 / 12.0));
  double hi = 0.5;
  if (m3 >= m1 + m2) {
    if (f >= (m1 + m2) / (2.0 * m3)) return m3 * f + 0.5 * (m1 + m2);
    hi = m1 + m2;
  }
  // The cubic branch, alpha in [m2, hi]: Newton, kept inside the bracket by bisection.
  double lo = m2;
  double a = 0.5 * (lo + hi);
  for (int n = 0; n < 100; ++n) {
    const double r = lower_volume(m, a, 3) - f;
    if (r == 0.0) break;
    (r > 0.0 ? hi : lo) = a;
    const double p = std::max(a - m2, 0.0), q = std::max(a - m3, 0.0);
    const double slope = (2.0 * a - m1) / (2.0 * m2 * m3) - (p * p + q * q) / (2.0 * m1 * m2 * m3);
    double next = slope > 0.0 ? a - r / slope : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    const bool done = std::abs(next - a) <= 1e-15 || hi - lo <= 1e-15;
    a = next;
    if (done) break;
  }
  return a;
}

}  // namespace

double volume(const double m[3], double alpha, int dim) {
  Unit unit;
  if (!normalise(m, dim, &unit)) return alpha >= 0.0 ? 1.0 : 0.0;
  return unit_volume(unit.m, (alpha - unit.shift) / unit.sum, dim);
}

double plane_constant(const double m[3], double fraction, int dim) {
  Unit unit;
  if (!normalise(m, dim, &unit)) return 0.0;
  const double f = std::clamp(fraction, 0.0, 1.0);
  const double a = f > 0.5 ? 1.0 - lower_alpha(unit.m, 1.0 - f, dim) : lower_alpha(unit.m, f, dim);
  return a * unit.sum + unit.shift;
}

double slab_volume(const double m[3], double alpha, int axis, double lo, double width, int dim) {
  if (!(width > 0.0)) return 0.0;
  double scaled[3] = {m[0], m[1], m[2]};
  scaled[axis] *= width;
  return width * volume(scaled, alpha - m[axis] * lo, dim);
}

}  // namespace sf::plic
