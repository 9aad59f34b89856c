// Interpolation of MAC-grid fields at arbitrary points (Stam §3: "linear interpolation"; the
// monotone cubic of Fedkiw, Stam & Jensen 2001 and the unlimited 4-point cubic as options).
//
// A component staggered on axis a has samples at x = origin + i h along a and at cell centres
// x = origin + (i + 1/2) h along the other axes. For a point x, along each axis
//   t = (x - origin)/h - offset,  i0 = floor(t),  f = t - i0
// and the value is interpolated hierarchically, axis by axis, in the form v0 + f (v1 - v0): a
// constant field is reproduced exactly (bit for bit) and a linear one to rounding.
//
// Points are first made canonical: wrapped into [origin, origin + L) on periodic axes, clamped to
// the domain [origin, origin + L] on the others (a trace that leaves through a wall or an inflow
// face takes the boundary value, which the ghost reflection provides there).
//
// Finite data give finite values: no interpolant makes a NaN or an Inf of finite samples, however
// small (subnormal) or large (near the largest double, of either sign) they are, and the bounded
// ones (linear, monotone cubic) stay within their samples' range up to rounding. Each kernel
// evaluates its usual expression first; only where that overflowed (or, in the monotone cubic, a
// slope ratio did) does it take a slower path that cannot (the *_guarded functions below). The
// usual path costs a comparison or two more and gives the old bits wherever nothing overflowed or
// underflowed, and a NaN among the samples still comes out as NaN, for the health check.
//
// Bit-identity across rank counts: the weights depend only on the canonical point, and every
// rank holding the stencil holds the same values (owned values or exact copies in its halo), so
// whichever rank evaluates a point gets the same bits. A periodic stencil may be found in the
// local array under a shifted image (i0 +- n): the values there are exact copies.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <type_traits>

#include "grid.hpp"
#include "interpolation_kernels.hpp"
#include "lanes.hpp"

namespace sf {

/// How fields are sampled between their samples (Stam: linear; Fedkiw, Stam & Jensen: monotone
/// cubic; the unlimited 4-point cubic, third order in h, which the second-order time step needs
/// for second order in space at a fixed CFL number). Both cubics need halo >= 2.
enum class Interpolation { Linear, MonotoneCubic, Cubic };

/// Geometry of one axis as the interpolation needs it.
struct AxisInfo {
  double origin = 0.0;
  double spacing = 1.0;
  double length = 1.0;
  PetscInt cells = 1;
  bool periodic = true;
};

/// Wraps or clamps x onto the domain, axis by axis (see the file comment).
inline void canonical_point(const AxisInfo* axes, int dim, double x[3]) {
  for (int a = 0; a < dim; ++a) {
    const AxisInfo& ax = axes[a];
    if (ax.periodic) {
      if (x[a] >= ax.origin && x[a] < ax.origin + ax.length) continue;  // most points: no division
      double y = x[a] - ax.length * std::floor((x[a] - ax.origin) / ax.length);
      // Rounding can land a point just below origin + L exactly on it; that is origin. A point
      // so far away that the wrap keeps no digit of its place in the period (beyond about
      // L / DBL_EPSILON, or where the quotient overflows) can land anywhere: it is taken to
      // the origin too, so that the stencil's index stays in range. A NaN stays NaN.
      if (y >= ax.origin + ax.length || y < ax.origin) y = ax.origin;
      x[a] = y;
    } else {
      x[a] = std::clamp(x[a], ax.origin, ax.origin + ax.length);
    }
  }
}

/// canonical_point() for four points, where it needs no periodic wrap: the mask is false in the
/// lanes where one would (a point outside a periodic axis's period) and in NaN lanes, which the
/// caller passes through canonical_point() one by one. The clamp is std::clamp's comparisons, so
/// a point is moved to exactly the same bits.
inline LaneMask canonical_lanes(const AxisInfo* axes, int dim, Lanes x[3]) {
  LaneMask ok = {-1, -1, -1, -1};
  for (int a = 0; a < dim; ++a) {
    const AxisInfo& ax = axes[a];
    const Lanes lo = broadcast(ax.origin), hi = broadcast(ax.origin + ax.length);
    if (ax.periodic) {
      ok &= (x[a] >= lo) & (x[a] < hi);
    } else {
      x[a] = x[a] < lo ? lo : x[a];
      x[a] = hi < x[a] ? hi : x[a];
      ok &= x[a] == x[a];
    }
  }
  return ok;
}

/// Where a point falls in a field's sample lattice: the first index of the stencil and the
/// fraction along each axis.
struct Stencil {
  PetscInt first[3] = {0, 0, 0};
  double f[3] = {0.0, 0.0, 0.0};
};

/// Samples the components of one field from its local (ghosted) array.
class LocalSampler {
public:
  LocalSampler() = default;
  LocalSampler(const Grid& grid, const ConstArrayView& local, Interpolation interpolation)
      : view_(local), dim_(grid.dim()), cubic_(interpolation != Interpolation::Linear),
        limited_(interpolation == Interpolation::MonotoneCubic) {
    stride_[0] = local.dof;
    stride_[1] = local.dof * local.width[0];
    stride_[2] = stride_[1] * local.width[1];
    lanes_fit_ = static_cast<double>(stride_[2]) * static_cast<double>(local.width[2]) <
                 static_cast<double>(INT32_MAX);
    for (int a = 0; a < 3; ++a) {
      axes_[a] = {grid.origin(a), grid.spacing(a), grid.length(a), grid.cells(a),
                  grid.periodic(a)};
      inverse_spacing_[a] = 1.0 / grid.spacing(a);
      // The lattice indices i0 whose stencil (2 or 4 wide) lies in the local array as it is,
      // with no periodic image to look for: locate_axis answers those without its search.
      for (int cubic = 0; cubic < 2; ++cubic) {
        PetscInt lo = local.start[a] + cubic, hi = local.start[a] + local.width[a] - 2 - cubic;
        if (axes_[a].periodic) {
          lo = std::max<PetscInt>(lo, 0);
          hi = std::min<PetscInt>(hi, axes_[a].cells - 1);
        }
        direct_[a][cubic][0] = lo;
        direct_[a][cubic][1] = hi;
      }
    }
  }

  const AxisInfo* axes() const { return axes_; }
  bool cubic() const { return cubic_; }

  /// Finds the stencil of a component staggered on axis `stagger` (-1: cell-centred) around the
  /// canonical point x; false if no periodic image of it lies in the local array. Fields that
  /// share a DM share stencils, so one call serves all of them.
  bool locate(int stagger, const double x[3], Stencil* stencil) const {
    for (int a = 0; a < dim_; ++a) {
      const double t = (x[a] - axes_[a].origin) * inverse_spacing_[a] - (stagger == a ? 0.0 : 0.5);
      if (!locate_axis(a, t, cubic_, &stencil->first[a], &stencil->f[a])) return false;
    }
    return true;
  }

  /// The interpolated value of component c over a stencil from locate().
  double interpolate(int c, const Stencil& stencil) const {
    return cubic_ ? cubic(c, stencil.first, stencil.f) : linear(c, stencil.first, stencil.f);
  }

  /// Interpolates component c, staggered on axis `stagger` (-1: cell-centred), at the canonical
  /// point x. Returns false, leaving *value untouched, if the stencil is not in the local array.
  bool sample(int c, int stagger, const double x[3], double* value) const {
    Stencil stencil;
    if (!locate(stagger, x, &stencil)) return false;
    *value = interpolate(c, stencil);
    return true;
  }

  /// All dim velocity components at x (the field must be the face velocity). Each axis is
  /// located once for the face offset and once for the cell-centre offset, and every component
  /// picks its own combination: a third of the work of three separate samples.
  bool sample_velocity(const double x[3], double u[3]) const {
    PetscInt first[2][3] = {{0, 0, 0}, {0, 0, 0}};  // [0]: on faces of the axis, [1]: centres
    double f[2][3] = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    for (int a = 0; a < dim_; ++a) {
      const double t = (x[a] - axes_[a].origin) * inverse_spacing_[a];
      if (!locate_axis(a, t, cubic_, &first[0][a], &f[0][a])) return false;
      if (!locate_axis(a, t - 0.5, cubic_, &first[1][a], &f[1][a])) return false;
    }
    for (int c = 0; c < dim_; ++c) {
      Stencil stencil;
      for (int a = 0; a < dim_; ++a) {
        const int offset = a == c ? 0 : 1;
        stencil.first[a] = first[offset][a];
        stencil.f[a] = f[offset][a];
      }
      u[c] = interpolate(c, stencil);
    }
    return true;
  }

  /// All dim velocity components (the field must be the face velocity) at a point of the sample
  /// lattice itself: the face of component `stagger` at (i, j, k), or the cell centre (i, j, k)
  /// for stagger = -1. The component stored there is read as it is; the others are the mean of
  /// the 2 (centre) or 4 (face) faces around the point, which is what interpolation gives there
  /// in exact arithmetic, for a fraction of its work. Those faces are always in the local array
  /// of an owned point (halo >= 1).
  void velocity_at_sample(int stagger, PetscInt i, PetscInt j, PetscInt k, double u[3]) const {
    velocity_at_sample_from(stagger, i, j, k, u,
                            [](const PetscScalar* p, PetscInt at) { return p[at]; });
    bool finite = true;
    for (int d = 0; d < dim_; ++d) finite &= is_finite(u[d]);
    if (__builtin_expect(!finite, 0)) velocity_at_sample_guarded(stagger, i, j, k, u);
  }

  // Four points at once (lanes.hpp), for the row path of the trace: linear stencils that lie in
  // the array as they are (locate()'s direct case). Each evaluates the same expressions as its
  // one-point counterpart, so lanes and points agree bit for bit, but without its check for an
  // overflow: a lane whose value is not finite the caller sends to the point path, which then
  // gives the finite value (the row path stays as fast as it was; such lanes need samples near
  // the largest double).

  /// False if this array is too large for 32-bit lane offsets (then only points are used).
  bool lanes_fit() const { return lanes_fit_; }

  /// velocity_at_sample() at (i + l, j, k) in lane l.
  void velocity_at_sample_lanes(int stagger, PetscInt i, PetscInt j, PetscInt k, Lanes u[3]) const {
    const LaneIndex next = {0, static_cast<std::int32_t>(view_.dof),
                            static_cast<std::int32_t>(2 * view_.dof),
                            static_cast<std::int32_t>(3 * view_.dof)};
    velocity_at_sample_from(stagger, i, j, k, u, [&](const PetscScalar* p, PetscInt at) {
      return gather(p + at, next);
    });
  }

  /// locate() of linear stencils in lanes: for every lane of `ok` that stays true, the offset of
  /// the stencil's first value in the array (a whole number) and the fractions. Lanes whose
  /// stencil is not directly in the array turn false in `ok`; false lanes get offset 0, so a
  /// stencil read from them stays inside the array.
  void locate_lanes(int stagger, const Lanes x[3], LaneMask* ok, Lanes* first, Lanes f[3]) const {
    Lanes index[3] = {broadcast(0.0), broadcast(0.0), broadcast(0.0)};
    f[2] = broadcast(0.0);  // unused in 2D
    for (int a = 0; a < dim_; ++a) {
      const Lanes t = (x[a] - axes_[a].origin) * inverse_spacing_[a] - (stagger == a ? 0.0 : 0.5);
      locate_axis_lanes(a, t, ok, &index[a], &f[a]);
    }
    *first = offset_lanes(index, *ok);
  }

  /// sample_velocity() in lanes, for the lanes true in `ok` (turned false where a stencil is not
  /// directly in the array).
  void sample_velocity_lanes(const Lanes x[3], LaneMask* ok, Lanes u[3]) const {
    Lanes index[2][3], f[2][3];  // [0]: on faces of the axis, [1]: centres
    for (int a = 0; a < 3; ++a) index[0][a] = index[1][a] = f[0][a] = f[1][a] = broadcast(0.0);
    for (int a = 0; a < dim_; ++a) {
      const Lanes t = (x[a] - axes_[a].origin) * inverse_spacing_[a];
      locate_axis_lanes(a, t, ok, &index[0][a], &f[0][a]);
      locate_axis_lanes(a, t - 0.5, ok, &index[1][a], &f[1][a]);
    }
    for (int c = 0; c < dim_; ++c) {
      Lanes component_index[3], component_f[3];
      for (int a = 0; a < 3; ++a) {
        const int offset = a == c ? 0 : 1;
        component_index[a] = index[offset][a];
        component_f[a] = f[offset][a];
      }
      u[c] = linear_lanes(c, offset_lanes(component_index, *ok), component_f);
    }
  }

  /// interpolate() of component c over stencils from locate_lanes().
  Lanes linear_lanes(int c, Lanes first, const Lanes f[3]) const {
    const LaneIndex at = to_index(first);
    const PetscScalar* p = view_.data + c;
    return trilinear_unchecked<Lanes>(dim_, f, stride_,
                                      [&](PetscInt o) { return gather(p + o, at); });
  }

  /// linear_lanes(), and in *lo and *hi the smallest and largest of the values it interpolates:
  /// bounds() of the same points (MacCormack's range).
  Lanes linear_lanes(int c, Lanes first, const Lanes f[3], Lanes* lo, Lanes* hi) const {
    const LaneIndex at = to_index(first);
    const PetscScalar* p = view_.data + c;
    Lanes low = broadcast(HUGE_VAL), high = broadcast(-HUGE_VAL);
    const Lanes value = trilinear_unchecked<Lanes>(dim_, f, stride_, [&](PetscInt o) {
      const Lanes v = gather(p + o, at);
      low = v < low ? v : low;
      high = v > high ? v : high;
      return v;
    });
    *lo = low;
    *hi = high;
    return value;
  }

  /// The smallest and largest of the 2^dim samples surrounding x (the cell of the sample
  /// lattice that contains x): the range MacCormack's limiter keeps a result in.
  bool bounds(int c, int stagger, const double x[3], double* lo, double* hi) const {
    PetscInt first[3] = {0, 0, 0};
    for (int a = 0; a < dim_; ++a) {
      const double t = (x[a] - axes_[a].origin) * inverse_spacing_[a] - (stagger == a ? 0.0 : 0.5);
      double f;
      if (!locate_axis(a, t, false, &first[a], &f)) return false;
    }
    double low = HUGE_VAL, high = -HUGE_VAL;
    const PetscInt kz = dim_ == 3 ? 2 : 1;
    for (PetscInt dk = 0; dk < kz; ++dk)
      for (PetscInt dj = 0; dj < 2; ++dj)
        for (PetscInt di = 0; di < 2; ++di) {
          const double v = view_(first[0] + di, first[1] + dj, first[2] + dk, c);
          low = std::min(low, v);
          high = std::max(high, v);
        }
    *lo = low;
    *hi = high;
    return true;
  }

private:
  /// velocity_at_sample() with load(p, o) reading p[o] (one point or four lanes), unchecked:
  /// component d is the face itself, or the mean of the 2 or 4 faces around the point, whose sum
  /// overflows for samples near the largest double. `weights_first` applies the weights to the
  /// samples before the sum, which cannot overflow and, above the subnormal range, gives the bits
  /// the weighted sum would (the weights are powers of 2).
  template <typename Real, typename Load>
  void velocity_at_sample_from(int stagger, PetscInt i, PetscInt j, PetscInt k, Real u[3],
                               const Load& load, bool weights_first = false) const {
    for (int d = 0; d < dim_; ++d) {
      const PetscScalar* p = view_.data + view_.offset(i, j, k, d);
      const PetscInt along = stride_[d];
      if (stagger < 0) {
        u[d] = weights_first ? 0.5 * load(p, 0) + 0.5 * load(p, along)
                             : 0.5 * (load(p, 0) + load(p, along));
      } else if (d == stagger) {
        u[d] = load(p, 0);
      } else {
        const PetscInt across = stride_[stagger];
        u[d] = weights_first ? (0.25 * load(p, 0) + 0.25 * load(p, along)) +
                                   (0.25 * load(p, -across) + 0.25 * load(p, along - across))
                             : 0.25 * ((load(p, 0) + load(p, along)) +
                                       (load(p, -across) + load(p, along - across)));
      }
    }
  }

  /// velocity_at_sample_from() of one point with the weights first, in the components where the
  /// usual sum was not finite.
  [[gnu::cold, gnu::noinline]] void velocity_at_sample_guarded(int stagger, PetscInt i,
                                                               PetscInt j, PetscInt k,
                                                               double u[3]) const {
    double again[3] = {0.0, 0.0, 0.0};
    velocity_at_sample_from(stagger, i, j, k, again,
                            [](const PetscScalar* p, PetscInt at) { return p[at]; }, true);
    for (int d = 0; d < dim_; ++d) u[d] = finite_or(u[d], again[d]);
  }

  /// locate_axis() in lanes, linear stencils, direct case only: the stencil's first index
  /// relative to the array's start, and the fraction; lanes outside the direct range turn false.
  void locate_axis_lanes(int a, Lanes t, LaneMask* ok, Lanes* index, Lanes* f) const {
    const Lanes floor_t = lane_floor(t);
    *f = t - floor_t;
    *ok &= (floor_t >= static_cast<double>(direct_[a][0][0])) &
           (floor_t <= static_cast<double>(direct_[a][0][1]));
    *index = floor_t - static_cast<double>(view_.start[a]);
  }

  /// view_.offset() of the stencils' first values from their indices relative to the array's
  /// start (exact: whole numbers far below 2^53); 0 in the lanes false in ok.
  Lanes offset_lanes(const Lanes index[3], LaneMask ok) const {
    const Lanes offset =
        ((index[2] * static_cast<double>(view_.width[1]) + index[1]) *
             static_cast<double>(view_.width[0]) +
         index[0]) *
        static_cast<double>(view_.dof);
    return ok ? offset : broadcast(0.0);
  }

  bool fits(int a, PetscInt lo, int width) const {
    return lo >= view_.start[a] && lo + width <= view_.start[a] + view_.width[a];
  }

  /// First index of the (4-wide if `cubic`, else 2-wide) stencil along axis a for lattice
  /// coordinate t, and the fraction; false if no periodic image of it lies in the local array.
  bool locate_axis(int a, double t, bool cubic, PetscInt* first, double* f) const {
    const AxisInfo& ax = axes_[a];
    const double floor_t = std::floor(t);
    *f = t - floor_t;
    PetscInt i0 = static_cast<PetscInt>(floor_t);
    // Most points: the stencil is in the array as it is (the search below would find the same).
    if (i0 >= direct_[a][cubic][0] && i0 <= direct_[a][cubic][1]) {
      *first = i0 - (cubic ? 1 : 0);
      return true;
    }
    // A canonical point has t in [-0.5, n], so one wrap at most brings i0 into [0, n).
    if (ax.periodic) {
      if (i0 < 0) i0 += ax.cells;
      if (i0 >= ax.cells) i0 -= ax.cells;
    }
    const int width = cubic ? 4 : 2;
    PetscInt lo = i0 - (cubic ? 1 : 0);
    if (!fits(a, lo, width)) {
      if (!ax.periodic) return false;
      if (fits(a, lo - ax.cells, width)) {
        lo -= ax.cells;
      } else if (fits(a, lo + ax.cells, width)) {
        lo += ax.cells;
      } else {
        return false;
      }
    }
    *first = lo;
    return true;
  }

  /// The stencil's first value of component c: the others are at multiples of stride_.
  const PetscScalar* corner(int c, const PetscInt first[3]) const {
    return view_.data + view_.offset(first[0], first[1], first[2], c);
  }

  double linear(int c, const PetscInt first[3], const double f[3]) const {
    const PetscScalar* p = corner(c, first);
    return trilinear<double>(dim_, f, stride_, [p](PetscInt o) { return p[o]; });
  }

  double cubic(int c, const PetscInt first[3], const double f[3]) const {
    // Chosen once per sample, not through a pointer per row: both kernels inline.
    return limited_ ? tensor_cubic<monotone_cubic>(c, first, f)
                    : tensor_cubic<lagrange_cubic>(c, first, f);
  }

  /// The 4^dim stencil reduced axis by axis with the 1D cubic `kernel`.
  template <double (*kernel)(double, double, double, double, double)>
  double tensor_cubic(int c, const PetscInt first[3], const double f[3]) const {
    const PetscScalar* p = corner(c, first);
    const PetscInt sx = stride_[0], sy = stride_[1], sz = stride_[2];
    auto row = [&](PetscInt at) {
      return kernel(p[at], p[at + sx], p[at + 2 * sx], p[at + 3 * sx], f[0]);
    };
    auto plane = [&](PetscInt at) {
      return kernel(row(at), row(at + sy), row(at + 2 * sy), row(at + 3 * sy), f[1]);
    };
    if (dim_ == 2) return plane(0);
    return kernel(plane(0), plane(sz), plane(2 * sz), plane(3 * sz), f[2]);
  }


  ConstArrayView view_;
  PetscInt stride_[3] = {1, 1, 1};  // distance in the array between neighbours along x, y, z
  PetscInt direct_[3][2][2] = {};   // [axis][cubic]: lowest and highest i0 found directly
  AxisInfo axes_[3];
  double inverse_spacing_[3] = {1.0, 1.0, 1.0};
  int dim_ = 3;
  bool cubic_ = false;    // a 4-point stencil per axis
  bool limited_ = false;  // monotone (Fritsch-Carlson) rather than Lagrange
  bool lanes_fit_ = false;
};

}  // namespace sf
