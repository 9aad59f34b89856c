// Interpolation and limiting never make a NaN or an Inf of finite data: every interpolant
// (linear in doubles and in lanes, monotone cubic, Lagrange cubic, the velocity averages, the
// sampler's tensor products) and every limiter (the level set's minmod and ENO correction, the
// MacCormack and BFECC corrections with Selle's fallback, the viscoelastic yield) is fed stencils
// of zeros, subnormal numbers, numbers near the largest double of both signs and mixtures of
// them. Each result must be finite, and the bounded methods must stay within their samples'
// range: the linear and monotone cubic interpolants between the samples they interpolate (the two
// middle ones of a cubic stencil), up to the rounding bound stated with each check.
//
// u = 2^-53 is the unit roundoff and eta = 2^-1074 the smallest subnormal: one IEEE operation
// errs by at most u times its result, or by eta/2 where the result is subnormal (Higham,
// "Accuracy and Stability of Numerical Algorithms", 2nd ed., SIAM 2002, sections 2.1 and 2.2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

#include "advection.hpp"
#include "field.hpp"
#include "grid.hpp"
#include "interpolation.hpp"
#include "lanes.hpp"
#include "limiters.hpp"
#include "mpi_test_util.hpp"
#include "solids.hpp"
#include "test_boundaries.hpp"

namespace sf {
namespace {

using test::all;
using test::Boundaries;
using test::face;

constexpr long double kU = 0x1p-53L;
constexpr long double kEta = 0x1p-1074L;

/// The numbers the stencils are made of: zeros, the smallest subnormal and other subnormals,
/// the smallest normal, ordinary values, and values near the largest double, with both signs.
std::vector<double> hard_values() {
  const double tiny = std::numeric_limits<double>::denorm_min();
  std::vector<double> positive = {tiny,    3 * tiny, 1e-320,  2e-320, 1e-310, DBL_MIN,
                                  1e-300,  1e-3,     0.5,     1.0,    3.0,    1e300,
                                  DBL_MAX / 3, DBL_MAX / 2, std::nextafter(DBL_MAX, 0.0), DBL_MAX};
  std::vector<double> values = {0.0, -0.0};
  for (double v : positive) {
    values.push_back(v);
    values.push_back(-v);
  }
  return values;
}

/// Fractions: the ends of [0, 1) and a few inside, the smallest above 0 and the largest below 1.
const double kFractions[] = {0.0, 0x1p-60, 0.25, 0.5, 0.7, 1.0 - 0x1p-53};

bool finite(double x) { return std::isfinite(x); }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

long double magnitude(double x) { return std::fabs(static_cast<long double>(x)); }

// The monotone cubic and the Lagrange cubic on every stencil of four hard values.

/// The bound for monotone_cubic(v0, v1, v2, v3, f) beyond [min(v1, v2), max(v1, v2)]: the
/// computed value is v1 + f (d1 + f (c2 + f c3)) with limited slopes |d1|, |d2| <= 3 |v2 - v1|,
/// c2 = 3 delta - 2 d1 - d2 and c3 = d1 + d2 - 2 delta, so its terms add up in magnitude to at
/// most |v1| + 23 |v2 - v1|. Every term has passed through at most 16 roundings (the secant,
/// a slope, its limiting factor and product, a coefficient, Horner's steps and the final sum),
/// so the computed value differs from the exact cubic of slopes on the circle by at most
/// gamma_16 (|v1| + 23 |v2 - v1|) < 32 u (...) (Higham, section 5.1), plus eta/2 for each
/// rounding that falls below the normal range; that exact cubic lies between v1 and v2
/// (Fritsch & Carlson 1980).
long double monotone_bound(double v1, double v2) {
  const long double delta = std::fabs(static_cast<long double>(v2) - v1);
  return 32 * kU * (magnitude(v1) + 23 * delta) + 16 * kEta;
}

/// The bound for |lagrange_cubic(v0, v1, v2, v3, f)| with f in [0, 1]: the sum of the moduli of
/// the four Lagrange weights on the middle interval is at most 5/4 (at f = 1/2: 1/16 + 9/16 +
/// 9/16 + 1/16), so the exact cubic is at most 5/4 of the largest sample; its Newton form has
/// terms of at most |v1| + |d1| + |d2| + 2 |d3| <= 8 max|v|, each through at most 16 roundings.
/// Beyond the largest double the value is held at it.
long double lagrange_bound(const double v[4]) {
  long double largest = 0.0L;
  for (int n = 0; n < 4; ++n) largest = std::max(largest, magnitude(v[n]));
  return std::min(1.25L * largest + 32 * kU * 8 * largest + 16 * kEta,
                  static_cast<long double>(DBL_MAX));
}

TEST(FiniteInterpolation, TheSubnormalSecantOfTheFalseNanIsFiniteAndBounded) {
  // A dye decaying towards 1e-320 beside 1e-3: the slope ratio 5e-4 / 1e-320 overflows, and
  // 0 * inf once made the NaN that stopped a valid run.
  const double value = monotone_cubic(0.0, 1e-320, 2e-320, 1e-3, 0.5);
  EXPECT_TRUE(finite(value)) << value;
  EXPECT_GE(value, 1e-320);
  EXPECT_LE(value, 2e-320);
}

TEST(FiniteInterpolation, CubicsOfHardStencilsAreFiniteAndMonotoneOnesBounded) {
  const std::vector<double> values = hard_values();
  long stencils = 0, failures = 0;
  long double worst = 0.0L;  // the largest excursion beyond [v1, v2], relative to its bound
  for (double v0 : values)
    for (double v1 : values)
      for (double v2 : values)
        for (double v3 : values)
          for (double f : kFractions) {
            ++stencils;
            const double v[4] = {v0, v1, v2, v3};
            const double limited = monotone_cubic(v0, v1, v2, v3, f);
            const double lagrange = lagrange_cubic(v0, v1, v2, v3, f);
            const long double lo = std::min(v1, v2), hi = std::max(v1, v2);
            const long double beyond = std::max(lo - limited, limited - hi);
            const bool ok = finite(limited) && beyond <= monotone_bound(v1, v2) &&
                            finite(lagrange) && magnitude(lagrange) <= lagrange_bound(v);
            if (finite(limited)) worst = std::max(worst, beyond / monotone_bound(v1, v2));
            if (!ok && ++failures <= 10) {
              ADD_FAILURE() << "stencil " << v0 << ", " << v1 << ", " << v2 << ", " << v3
                            << " at f = " << f << ": monotone " << limited << ", Lagrange "
                            << lagrange;
            }
          }
  EXPECT_EQ(failures, 0) << "of " << stencils << " stencils";
  EXPECT_EQ(stencils, static_cast<long>(std::pow(values.size(), 4)) * 6);
  std::printf("monotone cubic: worst excursion %.3Lg of its bound over %ld stencils\n", worst,
              stencils);
}

// Linear interpolation, in doubles and in lanes, on random stencils of hard values.

/// The bound for a bilinear or trilinear value beyond its samples' range: each of the dim levels
/// of v0 + t (v1 - v0) rounds three times, erring by at most 5 u max|v| (the difference, the
/// product and the sum, the first two carried through t <= 1), and the convex combination of the
/// levels does not amplify the errors before it, so at most 15 u max|v| in 3D (Higham, 2.2),
/// plus eta/2 per rounding below the normal range.
long double linear_bound(const double* v, int count) {
  long double largest = 0.0L;
  for (int n = 0; n < count; ++n) largest = std::max(largest, magnitude(v[n]));
  return 16 * kU * largest + 16 * kEta;
}

TEST(FiniteInterpolation, LinearOfHardStencilsIsFiniteBoundedAndTheSameInLanes) {
  const std::vector<double> values = hard_values();
  std::mt19937_64 random(2718);
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  std::uniform_int_distribution<int> pick_fraction(0, std::size(kFractions));
  std::uniform_real_distribution<double> any_fraction(0.0, 1.0);
  long checked = 0, failures = 0, differ = 0, guarded_lanes = 0;
  for (int dim : {2, 3}) {
    const int count = dim == 2 ? 4 : 8;
    const PetscInt stride[3] = {1, 2, 4};
    for (int group = 0; group < 100000; ++group) {
      double v[kLanes][8];
      double f[kLanes][3];
      for (int l = 0; l < kLanes; ++l) {
        for (int n = 0; n < count; ++n) v[l][n] = values[pick(random)];
        for (int a = 0; a < 3; ++a) {
          const int which = pick_fraction(random);
          f[l][a] = which < static_cast<int>(std::size(kFractions)) ? kFractions[which]
                                                                     : any_fraction(random);
        }
      }
      Lanes lane_f[3];
      for (int a = 0; a < 3; ++a) lane_f[a] = Lanes{f[0][a], f[1][a], f[2][a], f[3][a]};
      const Lanes lanes = trilinear<Lanes>(dim, lane_f, stride, [&](PetscInt o) {
        return Lanes{v[0][o], v[1][o], v[2][o], v[3][o]};
      });
      for (int l = 0; l < kLanes; ++l) {
        ++checked;
        const double value =
            trilinear<double>(dim, f[l], stride, [&](PetscInt o) { return v[l][o]; });
        differ += !same_bits(value, lanes[l]);
        const double lo = *std::min_element(v[l], v[l] + count);
        const double hi = *std::max_element(v[l], v[l] + count);
        const long double beyond =
            std::max(static_cast<long double>(lo) - value, value - static_cast<long double>(hi));
        if (!finite(value) || beyond > linear_bound(v[l], count)) {
          if (++failures <= 10) {
            ADD_FAILURE() << dim << "D stencil from " << lo << " to " << hi << " at f = ("
                          << f[l][0] << ", " << f[l][1] << ", " << f[l][2] << "): " << value;
          }
        }
        guarded_lanes += hi - lo > DBL_MAX;
      }
    }
  }
  EXPECT_EQ(failures, 0) << "of " << checked;
  EXPECT_EQ(differ, 0) << "lanes whose bits differ from the point's, of " << checked;
  // Not vacuous: many stencils span more than the largest double, where the usual expression
  // overflows and the guarded one answers.
  EXPECT_GT(guarded_lanes, checked / 20) << "of " << checked;
}

// The sampler on a grid filled with hard values: every interpolation, the velocity at the
// samples, the lanes against the points (where a lane's value is finite; the others are the
// point path's to give).

/// Fills the whole local array of `field`, ghosts included, with hard values.
void fill_hard(Field& field, std::mt19937_64& random) {
  const std::vector<double> values = hard_values();
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  PetscScalar* data;
  PetscInt size;
  ASSERT_EQ(VecGetLocalSize(field.local(), &size), 0);
  ASSERT_EQ(VecGetArray(field.local(), &data), 0);
  for (PetscInt n = 0; n < size; ++n) data[n] = values[pick(random)];
  ASSERT_EQ(VecRestoreArray(field.local(), &data), 0);
}

void check_sampler(int dim) {
  GridConfig config;
  config.dim = dim;
  config.cells = {9, 8, dim == 3 ? 7 : 1};
  config.size = {0.9, 0.8, 0.7};
  config.halo = 2;
  Boundaries boundaries = all(BoundaryKind::Periodic);
  boundaries[1] = {face(BoundaryKind::NoSlip), face(BoundaryKind::Outflow)};
  Grid grid;
  ASSERT_EQ(grid.setup(PETSC_COMM_WORLD, config, boundaries), 0);
  Field velocity;
  ASSERT_EQ(velocity.setup_velocity(grid), 0);
  std::mt19937_64 random(31 + static_cast<unsigned>(test::comm_rank()));
  fill_hard(velocity, random);
  const PetscScalar* data;
  ArrayView view;
  ASSERT_EQ(VecGetArrayRead(velocity.local(), &data), 0);
  ASSERT_EQ(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(data), &view), 0);

  long points = 0, failures = 0, differ = 0;
  std::uniform_real_distribution<double> inside(0.0, 1.0);
  for (Interpolation interpolation :
       {Interpolation::Linear, Interpolation::MonotoneCubic, Interpolation::Cubic}) {
    const LocalSampler sampler(grid, view, interpolation);
    const AxisInfo* axes = sampler.axes();
    for (int group = 0; group < 3000; ++group) {
      double x[kLanes][3] = {};
      Lanes lane_x[3] = {broadcast(0.0), broadcast(0.0), broadcast(0.0)};
      for (int l = 0; l < kLanes; ++l)
        for (int a = 0; a < dim; ++a) {
          // In and around this rank's local array, where the stencils are.
          const double h = grid.spacing(a);
          x[l][a] = axes[a].origin + h * (view.start[a] + (view.width[a] - 1) * inside(random));
          lane_x[a][l] = x[l][a];
        }
      const LaneMask canonical = canonical_lanes(axes, dim, lane_x);
      for (int l = 0; l < kLanes; ++l) canonical_point(axes, dim, x[l]);
      LaneMask ok = canonical;
      Lanes lane_u[3];
      if (interpolation == Interpolation::Linear)
        sampler.sample_velocity_lanes(lane_x, &ok, lane_u);
      for (int l = 0; l < kLanes; ++l) {
        double u[3];
        if (!sampler.sample_velocity(x[l], u)) continue;
        for (int c = 0; c < dim; ++c) {
          ++points;
          double lo = 0.0, hi = 0.0;
          ASSERT_TRUE(sampler.bounds(c, c, x[l], &lo, &hi));
          // Each level of a tensor product keeps within the range of its middle values, which
          // for the last level are the cell's samples, each level adding its own rounding: dim
          // times the one-dimensional bound of the monotone cubic (|v1| + 23 |v2 - v1| is at
          // most 47 times the largest of the cell's samples), which also covers the linear one.
          const long double largest = std::max(magnitude(lo), magnitude(hi));
          const long double bound = dim * (32 * kU * 48 * largest + 16 * kEta);
          const long double beyond =
              std::max(static_cast<long double>(lo) - u[c], u[c] - static_cast<long double>(hi));
          const bool bounded = interpolation != Interpolation::Cubic;
          if (!finite(u[c]) || (bounded && beyond > bound)) {
            if (++failures <= 10) {
              ADD_FAILURE() << dim << "D, interpolation " << static_cast<int>(interpolation)
                            << ", component " << c << ": " << u[c] << " for samples from " << lo
                            << " to " << hi;
            }
          }
          // The lanes do not check for overflow: where a lane's value is finite it is the
          // point's, bit for bit; the others the row path sends to the point path.
          if (interpolation == Interpolation::Linear && canonical[l] && ok[l] &&
              finite(lane_u[c][l]))
            differ += !same_bits(lane_u[c][l], u[c]);
        }
      }
    }
  }
  // The velocity at the sample points themselves: the means of 2 or 4 faces, in doubles and in
  // lanes, between the faces' values.
  long rows = 0;
  const LocalSampler sampler(grid, view, Interpolation::Linear);
  for (int stagger = -1; stagger < dim; ++stagger) {
    const IndexBox box = stagger < 0 ? grid.owned_cells() : grid.owned_faces(stagger);
    for (PetscInt k = box.lo[2]; k < box.hi[2]; ++k)
      for (PetscInt j = box.lo[1]; j < box.hi[1]; ++j)
        for (PetscInt i = box.lo[0]; i + kLanes <= box.hi[0]; i += kLanes) {
          Lanes lane_u[3];
          sampler.velocity_at_sample_lanes(stagger, i, j, k, lane_u);
          ++rows;
          for (int l = 0; l < kLanes; ++l) {
            double u[3];
            sampler.velocity_at_sample(stagger, i + l, j, k, u);
            for (int c = 0; c < dim; ++c) {
              if (finite(lane_u[c][l])) differ += !same_bits(lane_u[c][l], u[c]);
              if (!finite(u[c]) && ++failures <= 10)
                ADD_FAILURE() << "velocity at sample " << i + l << ", " << j << ", " << k
                              << ", stagger " << stagger << ": " << u[c];
            }
          }
        }
  }
  ASSERT_EQ(VecRestoreArrayRead(velocity.local(), &data), 0);
  EXPECT_EQ(failures, 0) << "of " << points;
  EXPECT_EQ(differ, 0);
  EXPECT_GT(points, 1000);
  EXPECT_GT(rows, 0);
}

TEST(FiniteInterpolation, SamplerOfHardFields2D) { check_sampler(2); }
TEST(FiniteInterpolation, SamplerOfHardFields3D) { check_sampler(3); }

// Advection end to end on fields of hard values (velocity and two scalars, ghosts filled as the
// step fills them): semi-Lagrangian, MacCormack and BFECC with each interpolation, through the
// row path in lanes, the point path and the departure exchange between ranks. Every value it
// writes is finite.

/// Sets every owned value of `field` to a hard value and fills its ghosts.
void set_hard(Field& field, std::mt19937_64& random) {
  const std::vector<double> values = hard_values();
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  PetscScalar* data;
  PetscInt size;
  ASSERT_EQ(VecGetLocalSize(field.global(), &size), 0);
  ASSERT_EQ(VecGetArray(field.global(), &data), 0);
  for (PetscInt n = 0; n < size; ++n) data[n] = values[pick(random)];
  ASSERT_EQ(VecRestoreArray(field.global(), &data), 0);
  ASSERT_EQ(field.fill_ghosts(), 0);
}

/// The owned values of `field` that are not finite.
long non_finite(Field& field) {
  const PetscScalar* data;
  PetscInt size;
  EXPECT_EQ(VecGetLocalSize(field.global(), &size), 0);
  EXPECT_EQ(VecGetArrayRead(field.global(), &data), 0);
  long count = 0;
  for (PetscInt n = 0; n < size; ++n) count += !std::isfinite(data[n]);
  EXPECT_EQ(VecRestoreArrayRead(field.global(), &data), 0);
  return count;
}

void check_advection(int dim) {
  GridConfig config;
  config.dim = dim;
  config.cells = {12, 10, dim == 3 ? 8 : 1};
  config.size = {1.2, 1.0, 0.8};
  config.halo = 2;
  Boundaries boundaries = all(BoundaryKind::Periodic);
  boundaries[1] = {face(BoundaryKind::NoSlip), face(BoundaryKind::FreeSlip)};
  Grid grid;
  ASSERT_EQ(grid.setup(PETSC_COMM_WORLD, config, boundaries), 0);
  SolidMask solids;
  ASSERT_EQ(solids.setup(grid, {}), 0);
  long cases = 0, bad = 0;
  for (AdvectionScheme scheme :
       {AdvectionScheme::SemiLagrangian, AdvectionScheme::MacCormack, AdvectionScheme::BFECC})
    for (Interpolation interpolation :
         {Interpolation::Linear, Interpolation::MonotoneCubic, Interpolation::Cubic}) {
      AdvectionConfig advection_config;
      advection_config.scheme = scheme;
      advection_config.interpolation = interpolation;
      std::unique_ptr<Advection> advection;
      ASSERT_EQ(make_advection(grid, solids, advection_config, 2, &advection), 0);
      Field velocity;
      std::vector<Field> scalars(2);
      ASSERT_EQ(velocity.setup_velocity(grid), 0);
      ASSERT_EQ(scalars[0].setup_scalar(grid, "dye"), 0);
      ASSERT_EQ(scalars[1].setup_scalar(grid, "heat"), 0);
      std::mt19937_64 random(7 + static_cast<unsigned>(cases + 100 * test::comm_rank()));
      set_hard(velocity, random);
      for (Field& s : scalars) set_hard(s, random);
      AdvectionStats stats;
      ASSERT_EQ(advection->advect(velocity, scalars, 0.01, &stats), 0);
      long here = non_finite(velocity);
      for (Field& s : scalars) here += non_finite(s);
      bad += test::global_sum(here);
      EXPECT_EQ(test::global_sum(here), 0)
          << dim << "D, scheme " << static_cast<int>(scheme) << ", interpolation "
          << static_cast<int>(interpolation);
      ++cases;
    }
  EXPECT_EQ(cases, 9);
  EXPECT_EQ(bad, 0);
}

TEST(FiniteInterpolation, AdvectionOfHardFields2D) { check_advection(2); }
TEST(FiniteInterpolation, AdvectionOfHardFields3D) { check_advection(3); }

// The limiters.

TEST(FiniteLimiters, HardValuesGiveFiniteLimitedResults) {
  const std::vector<double> values = hard_values();
  long checked = 0, failures = 0;
  auto expect = [&](bool ok, const char* what, double a, double b, double c, double result) {
    ++checked;
    if (!ok && ++failures <= 10)
      ADD_FAILURE() << what << "(" << a << ", " << b << ", " << c << ") = " << result;
  };
  for (double a : values)
    for (double b : values) {
      // minmod: the one nearer zero if the signs agree, else 0 (subnormal products underflowed
      // to 0 and hid a shared sign; huge ones overflowed).
      const double m = minmod(a, b);
      const bool same_sign = (a > 0 && b > 0) || (a < 0 && b < 0);
      expect(same_sign ? (m == a || m == b) && std::fabs(m) <= std::fabs(a) &&
                             std::fabs(m) <= std::fabs(b)
                       : m == 0.0,
             "minmod", a, b, 0.0, m);
      // The ENO correction: the difference, or the corrected one, finite.
      const double eno = eno_limited(a, b);
      expect(finite(eno) && (eno == a || std::fabs(b) <= std::fabs(a)), "eno_limited", a, b, 0.0,
             eno);
      // The viscoelastic yield keeps a factor in [1 - yield_step, 1], whatever |E|^2 is.
      const double norm2 = a * a + b * b;  // may overflow, as in the stage itself
      const double keep = yield_kept(norm2, 0.5, 0.25);
      expect(finite(keep) && keep >= 0.75 && keep <= 1.0, "yield_kept", a, b, 0.0, keep);
      for (double c : values) {
        // MacCormack, limited to the range [min, max] of the three: the corrected value or the
        // forward one, finite. BFECC's start: finite.
        const double lo = std::min({a, b, c}), hi = std::max({a, b, c});
        const double mac = within_range_or(maccormack_corrected(a, b, c), a, lo, hi);
        expect(finite(mac) && mac >= lo && mac <= hi, "maccormack", a, b, c, mac);
        const double start = bfecc_start(b, c);
        expect(finite(start), "bfecc_start", b, c, 0.0, start);
        const double bfecc = within_range_or(start, a, lo, hi);
        expect(finite(bfecc) && bfecc >= lo && bfecc <= hi, "bfecc", a, b, c, bfecc);
      }
    }
  EXPECT_EQ(failures, 0) << "of " << checked;
  // A NaN is passed on to the health check, not limited away.
  EXPECT_TRUE(std::isnan(within_range_or(std::nan(""), 1.0, 0.0, 2.0)));
}

}  // namespace
}  // namespace sf
