// Semi-Lagrangian advection: exact on constant fields, exact (to rounding) on linear ones, and the
// same bits on any rank count at large CFL numbers, where departure points leave the halo and are
// answered by their owner ranks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "advection.hpp"
#include "initial_conditions.hpp"
#include "interpolation.hpp"
#include "mpi_test_util.hpp"
#include "test_boundaries.hpp"

namespace sf {
namespace {

using test::all;
using test::Boundaries;
using test::face;

/// The fields of one advection test, on any communicator.
struct Flow {
  Grid grid;
  SolidMask solids;
  Field velocity;
  std::vector<Field> scalars;
  std::unique_ptr<Advection> advection;

  void build(MPI_Comm comm, const JobConfig& job) {
    ASSERT_EQ(grid.setup(comm, job.grid, job.boundary), 0);
    ASSERT_EQ(solids.setup(grid, job.obstacles), 0);
    ASSERT_EQ(velocity.setup_velocity(grid), 0);
    ASSERT_EQ(set_initial_velocity(job.velocity, velocity), 0);
    scalars.resize(job.scalars.size());
    for (size_t s = 0; s < scalars.size(); ++s) {
      ASSERT_EQ(scalars[s].setup_scalar(grid, job.scalars[s].name), 0);
      ASSERT_EQ(set_initial_scalar(job.scalars[s], scalars[s]), 0);
    }
    ASSERT_EQ(make_advection(grid, solids, job.advection, static_cast<int>(scalars.size()),
                             &advection),
              0);
  }

  PetscInt step(double dt) {
    EXPECT_EQ(velocity.fill_ghosts(), 0);
    for (Field& s : scalars) EXPECT_EQ(s.fill_ghosts(), 0);
    AdvectionStats stats;
    EXPECT_EQ(advection->advect(velocity, scalars, dt, &stats), 0);
    return stats.remote_points;
  }
};

/// Calls check(i, j, k, component, value) for every owned value of `field`.
template <typename Check>
void for_each_owned(Field& field, Check&& check) {
  const Grid& grid = field.grid();
  const PetscScalar* data;
  ArrayView v;
  ASSERT_EQ(VecGetArrayRead(field.global(), &data), 0);
  ASSERT_EQ(grid.global_view(field.dm(), const_cast<PetscScalar*>(data), &v), 0);
  for (int c = 0; c < field.components(); ++c) {
    const IndexBox box = field.stagger(c) >= 0 ? grid.owned_faces(c) : grid.owned_cells();
    for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) { check(i, j, k, c, v(i, j, k, c)); });
  }
  ASSERT_EQ(VecRestoreArrayRead(field.global(), &data), 0);
}

JobConfig base_job(int dim) {
  JobConfig job;
  job.grid.dim = dim;
  job.grid.cells = dim == 3 ? std::array<long, 3>{14, 12, 13} : std::array<long, 3>{26, 22, 1};
  job.grid.size = {1.0, 0.9, 1.1};
  job.grid.halo = 2;
  job.boundary = all(BoundaryKind::Periodic);
  return job;
}

ScalarConfig scalar(const std::string& name, double background) {
  ScalarConfig s;
  s.name = name;
  s.background = background;
  return s;
}

// A constant scalar in a uniform flow stays the same bits, and so does the uniform velocity,
// whatever the CFL number.
TEST(Advection, ConstantFieldsAreExact) {
  for (int dim : {2, 3}) {
    JobConfig job = base_job(dim);
    job.velocity.kind = VelocityInit::Kind::Uniform;
    job.velocity.value = {0.37, -0.21, 0.13};
    job.scalars.push_back(scalar("density", 2.5));
    Flow flow;
    flow.build(PETSC_COMM_WORLD, job);
    flow.step(5.3 * 1.0 / 26 / 0.37);
    long wrong = 0;
    for_each_owned(flow.scalars[0], [&](PetscInt, PetscInt, PetscInt, int, double v) {
      wrong += v != 2.5;
    });
    for_each_owned(flow.velocity, [&](PetscInt, PetscInt, PetscInt, int c, double v) {
      wrong += v != job.velocity.value[c];
    });
    EXPECT_EQ(test::global_sum(wrong), 0) << dim << "D";
  }
}

// s = a + b x in a uniform flow entering through an inflow face that carries s's boundary value:
// the ghost reflection continues s linearly, so every departure point inside the domain gets the
// exact value a + b (x - dt U) (to rounding).
TEST(Advection, LinearFieldsAreExactUnderLinearInterpolation) {
  for (int dim : {2, 3}) {
    JobConfig job = base_job(dim);
    const double a = 0.75, b = -1.5, U = 0.4, V = 0.25;
    FaceBoundary in = face(BoundaryKind::Inflow);
    in.velocity = {U, V, 0.0};
    in.scalar_values["tracer"] = a;  // s at x = 0
    job.boundary[0] = {in, face(BoundaryKind::Outflow)};
    job.velocity.kind = VelocityInit::Kind::Uniform;
    job.velocity.value = {U, V, 0.0};
    job.scalars.push_back(scalar("tracer", 0.0));
    Flow flow;
    flow.build(PETSC_COMM_WORLD, job);
    // Set s = a + b x at cell centres.
    {
      PetscScalar* data;
      ArrayView s;
      ASSERT_EQ(VecGetArray(flow.scalars[0].global(), &data), 0);
      ASSERT_EQ(flow.grid.global_view(flow.scalars[0].dm(), data, &s), 0);
      for_each_index(flow.grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
        s(i, j, k) = a + b * flow.grid.cell_center(0, i);
      });
      ASSERT_EQ(VecRestoreArray(flow.scalars[0].global(), &data), 0);
    }
    const double dt = 3.5 * flow.grid.spacing(0) / U;  // CFL 3.5: traces leave a halo of 2
    flow.step(dt);
    long wrong = 0, checked = 0;
    for_each_owned(flow.scalars[0], [&](PetscInt i, PetscInt, PetscInt, int, double v) {
      const double xd = flow.grid.cell_center(0, i) - dt * U;
      if (xd < 0.0) return;  // entered through the inflow face: the boundary value, not a + b x
      ++checked;
      wrong += std::abs(v - (a + b * xd)) > 1e-13;
    });
    EXPECT_EQ(test::global_sum(wrong), 0) << dim << "D";
    EXPECT_GT(test::global_sum(checked), 0);
  }
}

/// Runs `steps` advection steps of `job` distributed over all ranks and on PETSC_COMM_SELF, and
/// counts owned values whose bits differ. Every rank builds the (tiny) serial copy itself, so
/// nothing is gathered.
void expect_identical_to_one_rank(const JobConfig& job, double cfl, int steps) {
  Flow world, self;
  world.build(PETSC_COMM_WORLD, job);
  self.build(PETSC_COMM_SELF, job);
  double umax = 0.0;
  ASSERT_EQ(VecNorm(self.velocity.global(), NORM_INFINITY, &umax), 0);
  const double dt = cfl * world.grid.spacing(0) / umax;
  PetscInt remote = 0;
  for (int n = 0; n < steps; ++n) {
    remote += world.step(dt);
    EXPECT_EQ(self.step(dt), 0) << "a single rank never needs a remote answer";
  }
  if (test::comm_size() > 1) {
    EXPECT_GT(remote, 0) << "the test must exercise remote points";
  }

  auto compare = [&](Field& distributed, Field& serial) {
    const PetscScalar* data;
    ArrayView reference;
    EXPECT_EQ(VecGetArrayRead(serial.global(), &data), 0);
    EXPECT_EQ(self.grid.global_view(serial.dm(), const_cast<PetscScalar*>(data), &reference), 0);
    long wrong = 0;
    std::string first;
    for_each_owned(distributed, [&](PetscInt i, PetscInt j, PetscInt k, int c, double v) {
      const double want = reference(i, j, k, c);
      if (std::memcmp(&v, &want, sizeof v) != 0 && wrong++ == 0) {
        std::ostringstream s;
        s << distributed.name() << "[" << c << "] at (" << i << "," << j << "," << k
          << "): " << v << " vs " << want << " on one rank";
        first = s.str();
      }
    });
    EXPECT_EQ(VecRestoreArrayRead(serial.global(), &data), 0);
    EXPECT_EQ(test::global_sum(wrong), 0) << first;
  };
  compare(world.velocity, self.velocity);
  for (size_t s = 0; s < world.scalars.size(); ++s) compare(world.scalars[s], self.scalars[s]);
}

JobConfig vortex_job(int dim) {
  JobConfig job = base_job(dim);
  job.velocity.kind = VelocityInit::Kind::Vortex;
  job.velocity.center = {0.45, 0.5, 0.55};
  job.velocity.radius = 0.2;
  job.velocity.strength = 1.0;
  ScalarConfig density = scalar("density", 0.0);
  ScalarBlob blob;
  blob.region.shape = Region::Shape::Sphere;
  blob.region.center = {0.5, 0.3, 0.5};
  blob.region.radius = 0.2;
  blob.value = 1.0;
  density.initial.push_back(blob);
  job.scalars.push_back(density);
  job.scalars.push_back(scalar("temperature", 0.5));
  return job;
}

TEST(Advection, SameBitsOnAnyRankCountPeriodicCfl6) {
  for (int dim : {2, 3}) expect_identical_to_one_rank(vortex_job(dim), 6.0, 2);
}

TEST(Advection, SameBitsOnAnyRankCountWallsInflowOutflowObstacleCfl8) {
  for (int dim : {2, 3}) {
    JobConfig job = vortex_job(dim);
    FaceBoundary in = face(BoundaryKind::Inflow);
    in.velocity = {0.5, 0.1, 0.0};
    in.profile = InflowProfile::Parabolic;
    in.scalar_values["density"] = 0.25;
    job.boundary[0] = {in, face(BoundaryKind::Outflow)};
    job.boundary[1] = {face(BoundaryKind::NoSlip), face(BoundaryKind::FreeSlip)};
    ObstacleConfig obstacle;
    obstacle.region.shape = Region::Shape::Sphere;
    obstacle.region.center = {0.7, 0.6, 0.5};
    obstacle.region.radius = 0.12;
    job.obstacles.push_back(obstacle);
    expect_identical_to_one_rank(job, 8.0, 2);
  }
}

TEST(Advection, SameBitsOnAnyRankCountMonotoneCubicAndCubic) {
  for (int dim : {2, 3}) {
    JobConfig job = vortex_job(dim);
    job.advection.interpolation = dim == 2 ? Interpolation::MonotoneCubic : Interpolation::Cubic;
    expect_identical_to_one_rank(job, 5.0, 1);
    job.advection.interpolation = dim == 2 ? Interpolation::Cubic : Interpolation::MonotoneCubic;
    expect_identical_to_one_rank(job, 5.0, 1);
  }
}

// The unlimited cubic is the Lagrange interpolant through four samples: exact (to rounding) for
// every cubic polynomial, bit for bit for a constant, and it overshoots where the limited one may
// not (which is why it is not the default).
TEST(Interpolation, LagrangeCubicIsExactForCubicsAndConstantsBitForBit) {
  const auto p = [](double x) { return 0.3 - 1.7 * x + 0.9 * x * x - 0.45 * x * x * x; };
  for (double f : {0.0, 0.125, 0.3, 0.5, 0.77, 1.0}) {
    EXPECT_NEAR(lagrange_cubic(p(-1.0), p(0.0), p(1.0), p(2.0), f), p(f), 1e-14) << f;
    EXPECT_EQ(lagrange_cubic(0.1, 0.1, 0.1, 0.1, f), 0.1) << f;
  }
  // A step just beyond the interval: the cubic dips below the flat data, the limited one not.
  EXPECT_LT(lagrange_cubic(0.0, 0.0, 0.0, 1.0, 0.5), 0.0);
  EXPECT_EQ(monotone_cubic(0.0, 0.0, 0.0, 1.0, 0.5), 0.0);
}

TEST(Advection, SameBitsOnAnyRankCountMacCormackAndBfecc) {
  for (int dim : {2, 3}) {
    JobConfig job = vortex_job(dim);
    job.advection.scheme = dim == 2 ? AdvectionScheme::MacCormack : AdvectionScheme::BFECC;
    FaceBoundary in = face(BoundaryKind::Inflow);
    in.velocity = {0.5, 0.1, 0.0};
    job.boundary[0] = {in, face(BoundaryKind::Outflow)};
    expect_identical_to_one_rank(job, 6.0, 2);
  }
}

// Selle et al.'s limiter: the corrected value never leaves the range of the old values around
// the departure point, so a 0/1 field stays within [0, 1].
TEST(Advection, MacCormackAndBfeccCreateNoNewExtrema) {
  for (AdvectionScheme scheme : {AdvectionScheme::MacCormack, AdvectionScheme::BFECC}) {
    JobConfig job = vortex_job(2);
    job.advection.scheme = scheme;
    Flow flow;
    flow.build(PETSC_COMM_WORLD, job);
    for (int n = 0; n < 3; ++n) flow.step(0.05);
    long outside = 0;
    for_each_owned(flow.scalars[0], [&](PetscInt, PetscInt, PetscInt, int, double v) {
      outside += v < 0.0 || v > 1.0;
    });
    EXPECT_EQ(test::global_sum(outside), 0);
  }
}

// Monotone cubic interpolation creates no new extrema: a step of 0/1 stays within [0, 1].
TEST(Advection, MonotoneCubicStaysWithinTheData) {
  JobConfig job = vortex_job(2);
  job.advection.interpolation = Interpolation::MonotoneCubic;
  Flow flow;
  flow.build(PETSC_COMM_WORLD, job);
  for (int n = 0; n < 3; ++n) flow.step(0.05);
  long outside = 0;
  for_each_owned(flow.scalars[0], [&](PetscInt, PetscInt, PetscInt, int, double v) {
    outside += v < 0.0 || v > 1.0;
  });
  EXPECT_EQ(test::global_sum(outside), 0);
}

// A Gaussian carried once around a periodic domain by a uniform flow in a few large steps comes
// back close to where it started; the error falls as the grid is refined (linear interpolation is
// first order in h at a fixed CFL number, so refinement must reduce it).
/// Max error of a Gaussian carried once around a periodic domain by a uniform flow in `steps`
/// steps (never a whole number of cells per step), on n cells.
double translation_error(long n, AdvectionScheme scheme, int steps = 8) {
  JobConfig job;
  job.grid.dim = 2;
  job.grid.cells = {n, 8, 1};
  job.grid.size = {1.0, 0.25, 1.0};
  job.grid.halo = 2;
  job.boundary = all(BoundaryKind::Periodic);
  job.advection.scheme = scheme;
  job.velocity.kind = VelocityInit::Kind::Uniform;
  job.velocity.value = {1.0, 0.0, 0.0};
  job.scalars.push_back(scalar("tracer", 0.0));
  Flow flow;
  flow.build(PETSC_COMM_WORLD, job);
  auto gaussian = [](double x) { return std::exp(-std::pow((x - 0.5) / 0.1, 2)); };
  PetscScalar* data;
  ArrayView s;
  EXPECT_EQ(VecGetArray(flow.scalars[0].global(), &data), 0);
  EXPECT_EQ(flow.grid.global_view(flow.scalars[0].dm(), data, &s), 0);
  for_each_index(flow.grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    s(i, j, k) = gaussian(flow.grid.cell_center(0, i));
  });
  EXPECT_EQ(VecRestoreArray(flow.scalars[0].global(), &data), 0);
  const double dt = 1.0 / steps + 0.25 / static_cast<double>(n);
  for (int step = 0; step < steps; ++step) flow.step(dt);
  const double shift = steps * dt;
  double local_error = 0.0;
  for_each_owned(flow.scalars[0], [&](PetscInt i, PetscInt, PetscInt, int, double v) {
    double x = flow.grid.cell_center(0, i) - shift;
    x -= std::floor(x);
    local_error = std::max(local_error, std::abs(v - gaussian(x)));
  });
  double error = 0.0;
  MPI_Allreduce(&local_error, &error, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  return error;
}

// Linear interpolation at a fixed step count is O(h^2) per step: refinement must reduce the
// error. The error-compensated schemes must beat the plain one on the same grid: BFECC at a large
// CFL number (8 steps, CFL ~ 8), MacCormack where its correction is meant to work (CFL < 1).
TEST(Advection, TranslationErrorFallsWithRefinementAndCompensationHelps) {
  const double e32 = translation_error(32, AdvectionScheme::SemiLagrangian);
  const double e64 = translation_error(64, AdvectionScheme::SemiLagrangian);
  const double e128 = translation_error(128, AdvectionScheme::SemiLagrangian);
  EXPECT_LT(e64, e32);
  EXPECT_LT(e128, e64);
  EXPECT_LT(e128, 0.05);
  const double b64 = translation_error(64, AdvectionScheme::BFECC);
  EXPECT_LT(b64, 0.5 * e64) << "BFECC " << b64 << " vs semi-Lagrangian " << e64;
  const double small_steps = translation_error(64, AdvectionScheme::SemiLagrangian, 100);
  const double maccormack = translation_error(64, AdvectionScheme::MacCormack, 100);
  EXPECT_LT(maccormack, 0.5 * small_steps)
      << "MacCormack " << maccormack << " vs semi-Lagrangian " << small_steps;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

/// Fills the whole local array of `field`, ghosts included, with random values in [-1, 1].
void randomise_local(Field& field, std::mt19937_64& random) {
  PetscScalar* data;
  PetscInt size;
  ASSERT_EQ(VecGetLocalSize(field.local(), &size), 0);
  ASSERT_EQ(VecGetArray(field.local(), &data), 0);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (PetscInt n = 0; n < size; ++n) data[n] = value(random);
  ASSERT_EQ(VecRestoreArray(field.local(), &data), 0);
}

/// The row path of the trace evaluates four points at once (lanes.hpp); lane by lane it must give
/// the bits of the point-by-point functions, which answer remote queries and the points the lanes
/// leave out, or the results would depend on how the grid is split. Random data, random points in
/// and beyond the domain (periodic x and z, walls on y), and some NaN points.
void check_lanes_match_points(int dim) {
  GridConfig config;
  config.dim = dim;
  config.cells = {13, 11, dim == 3 ? 9 : 1};
  config.origin = {-0.25, 0.5, 0.125};
  config.size = {1.3, 1.1, 0.9};
  config.halo = 2;
  Boundaries boundaries = all(BoundaryKind::Periodic);
  boundaries[1] = {face(BoundaryKind::NoSlip), face(BoundaryKind::Outflow)};
  Grid grid;
  ASSERT_EQ(grid.setup(PETSC_COMM_WORLD, config, boundaries), 0);
  Field velocity, scalar;
  ASSERT_EQ(velocity.setup_velocity(grid), 0);
  ASSERT_EQ(scalar.setup_scalar(grid, "dye"), 0);
  std::mt19937_64 random(1234 + static_cast<unsigned>(test::comm_rank()));
  randomise_local(velocity, random);
  randomise_local(scalar, random);

  const PetscScalar *u_data, *s_data;
  ArrayView u_view, s_view;
  ASSERT_EQ(VecGetArrayRead(velocity.local(), &u_data), 0);
  ASSERT_EQ(VecGetArrayRead(scalar.local(), &s_data), 0);
  ASSERT_EQ(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(u_data), &u_view), 0);
  ASSERT_EQ(grid.local_view(scalar.dm(), const_cast<PetscScalar*>(s_data), &s_view), 0);
  const LocalSampler u_sampler(grid, u_view, Interpolation::Linear);
  const LocalSampler s_sampler(grid, s_view, Interpolation::Linear);
  ASSERT_TRUE(u_sampler.lanes_fit() && s_sampler.lanes_fit());
  const AxisInfo* axes = u_sampler.axes();

  long lanes = 0, velocity_lanes = 0, located_lanes = 0, differ = 0;
  std::uniform_real_distribution<double> fraction(-0.3, 1.3), inside(0.05, 0.95);
  for (int group = 0; group < 5000; ++group) {
    double points[kLanes][3] = {};
    Lanes x[3] = {broadcast(0.0), broadcast(0.0), broadcast(0.0)};
    // Even groups anywhere in and around the domain; odd ones in and around this rank's local
    // array, where most points have their stencils.
    for (int l = 0; l < kLanes; ++l)
      for (int a = 0; a < dim; ++a) {
        const double h = grid.spacing(a);
        const double lo = group % 2 ? axes[a].origin + h * u_view.start[a] : axes[a].origin;
        const double length = group % 2 ? h * (u_view.width[a] - 1) : axes[a].length;
        points[l][a] = lo + length * (group % 2 ? inside(random) : fraction(random));
        if (group % 97 == 0 && l == 1) points[l][a] = std::nan("");
        x[a][l] = points[l][a];
      }
    const LaneMask canonical = canonical_lanes(axes, dim, x);
    for (int l = 0; l < kLanes; ++l) canonical_point(axes, dim, points[l]);
    Lanes u[3];
    LaneMask velocity_ok = canonical;
    u_sampler.sample_velocity_lanes(x, &velocity_ok, u);
    for (int l = 0; l < kLanes; ++l) {
      lanes += 1;
      if (group % 97 == 0 && l == 1) {
        EXPECT_FALSE(canonical[l]) << "a NaN point went in lanes";
      }
      if (!canonical[l]) continue;
      for (int a = 0; a < dim; ++a) differ += !same_bits(x[a][l], points[l][a]);
      if (!velocity_ok[l]) continue;
      velocity_lanes += 1;
      double point_u[3];
      ASSERT_TRUE(u_sampler.sample_velocity(points[l], point_u));
      for (int c = 0; c < dim; ++c) differ += !same_bits(u[c][l], point_u[c]);
    }
    // Every sample lattice: the scalar's cell centres and each component's faces.
    for (int stagger = -1; stagger < dim; ++stagger) {
      const LocalSampler& sampler = stagger < 0 ? s_sampler : u_sampler;
      const int c = stagger < 0 ? 0 : stagger;
      LaneMask ok = canonical;
      Lanes first, f[3], low, high;
      sampler.locate_lanes(stagger, x, &ok, &first, f);
      const Lanes value = sampler.linear_lanes(c, first, f);
      const Lanes bounded = sampler.linear_lanes(c, first, f, &low, &high);
      for (int l = 0; l < kLanes; ++l) {
        if (!ok[l]) continue;
        located_lanes += 1;
        double point_value, point_low, point_high;
        ASSERT_TRUE(sampler.sample(c, stagger, points[l], &point_value));
        ASSERT_TRUE(sampler.bounds(c, stagger, points[l], &point_low, &point_high));
        differ += !same_bits(value[l], point_value) + !same_bits(bounded[l], point_value);
        differ += low[l] != point_low || high[l] != point_high;
      }
    }
  }
  // The velocity at the sample points themselves, four neighbours along x at a time.
  long rows = 0;
  for (int stagger = -1; stagger < dim; ++stagger) {
    const IndexBox box = stagger < 0 ? grid.owned_cells() : grid.owned_faces(stagger);
    for (PetscInt k = box.lo[2]; k < box.hi[2]; ++k)
      for (PetscInt j = box.lo[1]; j < box.hi[1]; ++j)
        for (PetscInt i = box.lo[0]; i + kLanes <= box.hi[0]; i += kLanes) {
          Lanes u[3];
          u_sampler.velocity_at_sample_lanes(stagger, i, j, k, u);
          for (int l = 0; l < kLanes; ++l) {
            double point_u[3];
            u_sampler.velocity_at_sample(stagger, i + l, j, k, point_u);
            for (int c = 0; c < dim; ++c) differ += !same_bits(u[c][l], point_u[c]);
          }
          rows += 1;
        }
  }
  ASSERT_EQ(VecRestoreArrayRead(scalar.local(), &s_data), 0);
  ASSERT_EQ(VecRestoreArrayRead(velocity.local(), &u_data), 0);
  EXPECT_EQ(differ, 0);
  // Not vacuous: most in-domain points are evaluated in lanes (the rest are outside the periodic
  // period, NaN, or near the local array's edge), and rows were compared on every rank.
  EXPECT_GT(velocity_lanes, lanes / 4) << velocity_lanes << " of " << lanes;
  EXPECT_GT(located_lanes, lanes / 2) << located_lanes << " of " << (dim + 1) * lanes;
  EXPECT_GT(rows, 0);
}

TEST(Advection, LanesGiveTheBitsOfPoints2D) { check_lanes_match_points(2); }
TEST(Advection, LanesGiveTheBitsOfPoints3D) { check_lanes_match_points(3); }

// A velocity that is not finite sends departure points nowhere, and no owner can answer them.
// The run never gets here (the state is checked before advection), so this is the consistency
// check of the exchange itself: the ranks agree on it in one reduction, and every rank returns
// the same error, whichever rank holds the bad value; none is left waiting in a collective.
TEST(Advection, LostDeparturePointsAreAnErrorOnEveryRank) {
  JobConfig job = base_job(2);
  job.scalars.push_back(scalar("dye", 1.0));
  Flow flow;
  flow.build(PETSC_COMM_WORLD, job);
  const Grid& grid = flow.grid;
  PetscScalar* data;
  ArrayView u;
  ASSERT_EQ(VecGetArray(flow.velocity.global(), &data), 0);
  ASSERT_EQ(grid.global_view(flow.velocity.dm(), data, &u), 0);
  const IndexBox box = grid.owned_faces(0);
  // On the last rank only, so the others learn of it from the reduction.
  if (test::comm_rank() == test::comm_size() - 1)
    u(box.lo[0], box.lo[1], box.lo[2], 0) = std::numeric_limits<double>::infinity();
  ASSERT_EQ(VecRestoreArray(flow.velocity.global(), &data), 0);
  EXPECT_EQ(flow.velocity.fill_ghosts(), 0);
  EXPECT_EQ(flow.scalars[0].fill_ghosts(), 0);
  AdvectionStats stats;
  PetscCallVoid(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  const PetscErrorCode code = flow.advection->advect(flow.velocity, flow.scalars, 0.01, &stats);
  PetscCallVoid(PetscPopErrorHandler());
  EXPECT_EQ(code, PETSC_ERR_PLIB);
  EXPECT_EQ(test::global_sum(code == PETSC_ERR_PLIB ? 1 : 0), test::comm_size());
}

}  // namespace
}  // namespace sf
