// The limiters of the physics stages, each a function of a few numbers, kept together so that one
// test (tests/mac/test_finite_interpolation.cpp) can feed them what the interpolants get: the
// level set's ENO correction (level_set.cpp), the error-compensated advection's correction and
// Selle et al.'s (2008) fallback (error_compensated.cpp), and the viscoelastic yield
// (viscoelastic.cpp).
//
// Like the interpolants (interpolation.hpp), none makes a NaN or an Inf of finite numbers,
// subnormal or near the largest double: a sign is found by comparison, never from a product that
// underflows to zero or overflows; a half-difference is the difference of the halves, which
// cannot overflow and, above the subnormal range, has the same bits.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace sf {

/// The one of a and b nearer zero if they have the same sign, else 0 (of two equal magnitudes,
/// either: they are the same number).
inline double minmod(double a, double b) {
  if (a > 0.0 && b > 0.0) return std::min(a, b);
  if (a < 0.0 && b < 0.0) return std::max(a, b);
  return 0.0;
}

/// A one-sided difference with its ENO correction, unless the correction is larger than the
/// difference itself: then the data is not smooth on the scale of a cell (phi0 kinked, or a
/// value held at the band's edge next to one well inside it, or an obstacle's mirror making a
/// valley of a slope) and the correction, meant as a second-order term, would dominate. There
/// the first-order difference stands: Godunov's scheme on it never takes phi across zero away
/// from the surface, where the correction did (a cell above dam_break_3d's block with band 8
/// went from 2.8 h to -0.3 h in 9 iterations, and liquid appeared in the air). The sum, at most
/// twice the difference, is held within the doubles rather than overflow.
inline double eno_limited(double difference, double correction) {
  if (!(std::abs(correction) <= std::abs(difference))) return difference;
  return std::clamp(difference + correction, -DBL_MAX, DBL_MAX);
}

/// Selle et al.'s limiter: `value` if it lies in [lo, hi] (the range of the samples around the
/// departure point), else `fallback` (the first-order semi-Lagrangian value). A NaN value is
/// passed on, for the health check to report.
inline double within_range_or(double value, double fallback, double lo, double hi) {
  return value < lo || value > hi ? fallback : value;
}

/// MacCormack's corrected value q^ + (q - q~)/2 from the forward value q^, the old value q and
/// the value q~ traced back from q^; an overflow gives an infinite value, which the limiter then
/// replaces by q^ (it lies outside every range).
inline double maccormack_corrected(double forward, double old, double back) {
  return forward + (0.5 * old - 0.5 * back);
}

/// BFECC's corrected start q + (q - q~)/2, the field the final pass advects: held within the
/// doubles, since it is interpolated and an infinite sample there would make NaN of its
/// neighbours' values (an overshoot that large is limited away at the end in any case).
inline double bfecc_start(double old, double back) {
  return std::clamp(old + (0.5 * old - 0.5 * back), -DBL_MAX, DBL_MAX);
}

/// The factor the viscoelastic strain E is multiplied by in one step of plastic yield: with
/// |E|^2 = norm2, 1 - yield_step (|E| - yield_point) / |E| beyond the yield point, else 1. A
/// strain so large that |E|^2 overflows is far beyond the yield point, where the fraction
/// (|E| - yield_point) / |E| is 1 to rounding: it is taken as 1, not inf / inf.
inline double yield_kept(double norm2, double yield_point, double yield_step) {
  const double norm = std::sqrt(norm2);
  if (!(norm > yield_point)) return 1.0;
  if (!(norm <= DBL_MAX)) return 1.0 - yield_step;
  return 1.0 - yield_step * (norm - yield_point) / norm;
}

}  // namespace sf
