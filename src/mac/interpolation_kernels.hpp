// The one-dimensional and trilinear kernels of the interpolation (interpolation.hpp): linear,
// the monotone cubic of Fedkiw, Stam & Jensen 2001 (Fritsch & Carlson 1980) and the unlimited
// 4-point Lagrange cubic, for doubles and for Lanes alike, so that both give the same bits. Each
// evaluates its usual expression first and takes a guarded path that cannot overflow only where
// that did (interpolation.hpp, "Finite data give finite values").
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <type_traits>

#include <petscsys.h>

#include "lanes.hpp"

namespace sf {

/// True where x is finite (neither NaN nor infinite), for doubles and lane by lane; written as
/// comparisons so that both evaluate the same test. all_finite: in every lane.
inline bool is_finite(double x) { return x >= -DBL_MAX && x <= DBL_MAX; }
inline LaneMask finite_lanes(Lanes x) { return (x >= -DBL_MAX) & (x <= DBL_MAX); }
inline bool all_finite(double x) { return is_finite(x); }
inline bool all_finite(Lanes x) { return lane_bits(finite_lanes(x)) == (1 << kLanes) - 1; }
/// `value` where it is finite, else `fallback`, lane by lane.
inline double finite_or(double value, double fallback) {
  return is_finite(value) ? value : fallback;
}
inline Lanes finite_or(Lanes value, Lanes fallback) {
  return finite_lanes(value) ? value : fallback;
}

/// v0 + t (v1 - v0) for t in [0, 1] where that overflowed: v1 - v0 overflows only for samples
/// of opposite signs, where (1 - t) v0 + t v1 cannot (its terms have opposite signs and are no
/// larger than the samples) and lies between them; for samples of one sign near the largest
/// double it may round past it, which the clamp to the samples' range takes back. One template
/// for doubles and Lanes (`a < b ? a : b` selects lane by lane), so both give the same bits.
template <typename Real>
inline Real lerp_guarded(Real v0, Real v1, Real t) {
  const Real lo = v0 < v1 ? v0 : v1, hi = v0 < v1 ? v1 : v0;
  Real value = (1.0 - t) * v0 + t * v1;
  value = value < lo ? lo : value;
  return value > hi ? hi : value;
}

/// The 2^dim values load(o) at offsets o = 0, sx, sy, ... (strides) combined axis by axis with
/// `lerp`.
template <typename Real, typename Load, typename Lerp>
inline Real trilinear_with(int dim, const Real f[3], const PetscInt stride[3], const Load& load,
                           const Lerp& lerp) {
  const PetscInt sx = stride[0], sy = stride[1], sz = stride[2];
  auto row = [&](PetscInt at) { return lerp(load(at), load(at + sx), f[0]); };
  const Real plane0 = lerp(row(0), row(sy), f[1]);
  if (dim == 2) return plane0;
  const Real plane1 = lerp(row(sz), row(sz + sy), f[1]);
  return lerp(plane0, plane1, f[2]);
}

/// Linear interpolation over the 2^dim values load(o) at offsets o = 0, sx, sy, ... (strides):
/// axis by axis in the form v0 + f (v1 - v0), so a constant field is reproduced exactly. One
/// template for doubles and Lanes, so that both evaluate the same expression. Unchecked: an
/// intermediate that overflows makes the result infinite or NaN (no later step can make it
/// finite again), and trilinear() then takes trilinear_guarded() instead; the row path in lanes
/// uses it as it is and sends such lanes to the point path (LocalSampler's *_lanes functions).
template <typename Real, typename Load>
inline Real trilinear_unchecked(int dim, const Real f[3], const PetscInt stride[3],
                                const Load& load) {
  auto lerp = [](Real v0, Real v1, Real t) { return v0 + t * (v1 - v0); };
  return trilinear_with<Real>(dim, f, stride, load, lerp);
}

/// trilinear_unchecked() with lerp_guarded(): finite for finite samples, and within their range.
template <typename Real, typename Load>
[[gnu::cold, gnu::noinline]] Real trilinear_guarded(int dim, const Real f[3],
                                                    const PetscInt stride[3], const Load& load) {
  return trilinear_with<Real>(dim, f, stride, load, lerp_guarded<Real>);
}

/// Linear interpolation, finite for finite samples: trilinear_unchecked(), and
/// trilinear_guarded() in the lanes where that is not finite.
template <typename Real, typename Load>
inline Real trilinear(int dim, const Real f[3], const PetscInt stride[3], const Load& load) {
  const Real value = trilinear_unchecked<Real>(dim, f, stride, load);
  if (__builtin_expect(all_finite(value), 1)) return value;
  return finite_or(value, trilinear_guarded<Real>(dim, f, stride, load));
}

/// monotone_cubic() without overflow, for the samples where its usual expression overflowed.
/// Samples within a factor 16 of the largest double are first scaled by 1/16 (exact), which
/// leaves every difference and coefficient below it, and the result scaled back; the slopes
/// are put on the circle from their ratio to the larger of them (at most 1), not to the secant;
/// the result is clamped to [v1, v2], which it lies in but for rounding. A NaN sample gives NaN.
[[gnu::cold, gnu::noinline]] inline double monotone_cubic_guarded(double v0, double v1,
                                                                   double v2, double v3,
                                                                   double f) {
  if (!(is_finite(v0) && is_finite(v1) && is_finite(v2) && is_finite(v3)))
    return v0 + v1 + v2 + v3 + f;  // infinite or NaN, as the samples are
  const double largest =
      std::max(std::max(std::abs(v0), std::abs(v1)), std::max(std::abs(v2), std::abs(v3)));
  const double scale = largest > DBL_MAX / 16.0 ? 16.0 : 1.0;
  const double w0 = v0 / scale, w1 = v1 / scale, w2 = v2 / scale, w3 = v3 / scale;
  const double delta = w2 - w1;
  if (delta == 0.0) return v1;
  double d1 = 0.5 * (w2 - w0), d2 = 0.5 * (w3 - w1);
  if (delta > 0.0 ? d1 < 0.0 : d1 > 0.0) d1 = 0.0;
  if (delta > 0.0 ? d2 < 0.0 : d2 > 0.0) d2 = 0.0;
  // alpha^2 + beta^2 > 9 is steep * |(d1, d2) / steep| > 3 |delta| with steep the larger slope.
  const double steep = std::max(std::abs(d1), std::abs(d2));
  if (steep > 0.0) {
    const double a1 = d1 / steep, a2 = d2 / steep;  // in [-1, 1]: no overflow
    const double norm = std::sqrt(a1 * a1 + a2 * a2);  // in [1, sqrt 2]
    if (steep * norm > 3.0 * std::abs(delta)) {
      d1 = 3.0 * std::abs(delta) * a1 / norm;
      d2 = 3.0 * std::abs(delta) * a2 / norm;
    }
  }
  const double value =
      w1 + f * (d1 + f * ((3.0 * delta - 2.0 * d1 - d2) + f * (d1 + d2 - 2.0 * delta)));
  return std::clamp(value * scale, std::min(v1, v2), std::max(v1, v2));
}

/// lagrange_cubic() without overflow: the samples scaled by 1/16 (exact; every difference and
/// term then stays below the largest double), the result scaled back, and where the cubic itself
/// goes beyond the largest double (its overshoot is up to a quarter of the samples' range) held
/// there. A NaN sample gives NaN.
[[gnu::cold, gnu::noinline]] inline double lagrange_cubic_guarded(double v0, double v1,
                                                                   double v2, double v3,
                                                                   double f) {
  if (!(is_finite(v0) && is_finite(v1) && is_finite(v2) && is_finite(v3)))
    return v0 + v1 + v2 + v3 + f;  // infinite or NaN, as the samples are
  constexpr double kScale = 16.0;
  const double w0 = v0 / kScale, w1 = v1 / kScale, w2 = v2 / kScale, w3 = v3 / kScale;
  const double d1 = w2 - w1;
  const double d2 = 0.5 * ((w2 - w1) - (w1 - w0));
  const double d3 = ((w3 - w0) - 3.0 * (w2 - w1)) / 6.0;
  const double value = (w1 + f * (d1 + (f - 1.0) * (d2 + (f + 1.0) * d3))) * kScale;
  return std::clamp(value, -DBL_MAX, DBL_MAX);
}

/// One-dimensional monotone cubic Hermite through v1 (f = 0) and v2 (f = 1), with v0 and v3
/// beyond. Slopes are central differences, limited as Fritsch & Carlson (1980) prescribe: zero
/// where they disagree in sign with the secant (the condition Fedkiw et al. 2001 state) and
/// scaled onto the circle alpha^2 + beta^2 <= 9, without which the sign test alone still lets
/// the cubic overshoot. The result then always lies between v1 and v2.
///
/// The signs are compared, not multiplied: the product of two subnormal numbers is zero and
/// would let a slope of the wrong sign through. The ratios alpha, beta overflow where the secant
/// is far smaller than a slope (a subnormal secant beside a normal slope: 0 * inf would make a
/// NaN of them), and the differences where the samples are near the largest double with mixed
/// signs; in both cases, and only then, monotone_cubic_guarded() gives the value instead.
inline double monotone_cubic(double v0, double v1, double v2, double v3, double f) {
  const double delta = v2 - v1;
  if (delta == 0.0) return v1;
  double d1 = 0.5 * (v2 - v0), d2 = 0.5 * (v3 - v1);
  if (delta > 0.0 ? d1 < 0.0 : d1 > 0.0) d1 = 0.0;
  if (delta > 0.0 ? d2 < 0.0 : d2 > 0.0) d2 = 0.0;
  const double alpha = d1 / delta, beta = d2 / delta;
  const double radius2 = alpha * alpha + beta * beta;
  bool overflowed = false;  // radius2, so tau below is 0 and the slopes 0 or NaN
  if (radius2 > 9.0) {
    overflowed = !(radius2 <= DBL_MAX);
    const double tau = 3.0 / std::sqrt(radius2);
    d1 = tau * alpha * delta;
    d2 = tau * beta * delta;
  }
  const double value =
      v1 + f * (d1 + f * ((3.0 * delta - 2.0 * d1 - d2) + f * (d1 + d2 - 2.0 * delta)));
  if (__builtin_expect(is_finite(value) & !overflowed, 1)) return value;
  return monotone_cubic_guarded(v0, v1, v2, v3, f);
}

/// One-dimensional cubic through v0, v1, v2, v3 at f = -1, 0, 1, 2 (Lagrange, unlimited), at f
/// between v1 and v2. Interpolation error O(h^4) where the field is smooth, so a semi-Lagrangian
/// step at a fixed CFL number errs by O(h^3) per unit time; it may overshoot at sharp fronts.
/// Written in Newton's form about v1, from differences only, so that a constant is reproduced
/// bit for bit as the other interpolants do. Where the differences overflow (samples near the
/// largest double), lagrange_cubic_guarded() gives the value.
inline double lagrange_cubic(double v0, double v1, double v2, double v3, double f) {
  const double d1 = v2 - v1;
  const double d2 = 0.5 * ((v2 - v1) - (v1 - v0));
  const double d3 = ((v3 - v0) - 3.0 * (v2 - v1)) / 6.0;
  const double value = v1 + f * (d1 + (f - 1.0) * (d2 + (f + 1.0) * d3));
  if (__builtin_expect(is_finite(value), 1)) return value;
  return lagrange_cubic_guarded(v0, v1, v2, v3, f);
}

}  // namespace sf
