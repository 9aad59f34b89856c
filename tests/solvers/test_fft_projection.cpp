// The FFT projection and diffusion of a periodic box (solvers/fft_periodic.hpp): exact discrete
// answers, agreement with the Krylov solvers, and the same answer on every rank count.
//
// Exactness. The FFT solves divide by the symbol of the discrete MAC Laplacian, so (a) a
// projected random field is discretely divergence-free to rounding, a discrete gradient dt G q
// projects to zero with pressure q, and (c) a single Fourier mode of any component, on its own
// staggered location, is multiplied by exactly 1 / (1 + k dt lambda_h(m)).
//
// Agreement (b). The Krylov solvers stop at ||r||_2 <= rtol ||b||_2 (unpreconditioned residual,
// krylov_setup.cpp). For the projection the error of the mean-free pressure then satisfies
// ||dp||_2 <= ||r||_2 / lambda_min, lambda_min the smallest nonzero eigenvalue of -L, and the
// velocities differ by dt (dp(i) - dp(i - e_c)) / h_c, at most 2 dt ||dp||_2 / h_min. For the
// diffusion the smallest eigenvalue of I - k dt L is 1, so ||dq||_2 <= rtol ||q*||_2. The tests
// assert these bounds (plus rounding), with rtol set tight.
//
// Decomposition (d). A reference is computed on rank 0 alone (a grid on PETSC_COMM_SELF) and the
// results at every rank count and process layout are gathered there in natural order and compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "fft_diffusion.hpp"
#include "fft_projection.hpp"
#include "field_test_util.hpp"
#include "krylov_diffusion.hpp"
#include "krylov_projection.hpp"
#include "mpi_test_util.hpp"
#include "petsc_test_util.hpp"
#include "test_boundaries.hpp"

namespace sf {
namespace {

using test::all;
using test::Boundaries;
using test::max_abs;
using test::max_difference;
using test::owned_box;

struct Problem {
  Grid grid;
  SolidMask solids;
  Field scalar;
  Field velocity;
};

struct Case {
  int dim;
  std::array<long, 3> cells;
  std::array<double, 3> size;
};

/// Non-square, odd and even, not powers of two, anisotropic spacing.
std::vector<Case> cases() {
  return {{2, {24, 20, 1}, {1.0, 0.9, 1.0}},
          {2, {17, 32, 1}, {1.3, 1.0, 1.0}},
          {3, {24, 20, 18}, {1.0, 0.9, 1.1}},
          {3, {9, 16, 15}, {0.7, 1.0, 1.2}}};
}

std::string name(const Case& c) {
  std::string s = std::to_string(c.dim) + "D " + std::to_string(c.cells[0]);
  for (int a = 1; a < c.dim; ++a) s += "x" + std::to_string(c.cells[a]);
  return s;
}

std::unique_ptr<Problem> make_problem(MPI_Comm comm, const Case& c,
                                      std::array<PetscInt, 3> processes = {
                                          PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}) {
  auto problem = std::make_unique<Problem>();
  GridConfig config;
  config.dim = c.dim;
  config.cells = c.cells;
  config.size = c.size;
  config.halo = 1;
  EXPECT_EQ(problem->grid.setup(comm, config, all(BoundaryKind::Periodic), processes), 0);
  EXPECT_EQ(problem->solids.setup(problem->grid, {}), 0);
  EXPECT_EQ(problem->scalar.setup_scalar(problem->grid, "density"), 0);
  EXPECT_EQ(problem->velocity.setup_velocity(problem->grid), 0);
  return problem;
}

/// A deterministic rough value in [-1, 1] per global index and component, so that every rank
/// count sets the same field.
double noise(PetscInt i, PetscInt j, PetscInt k, int c) {
  unsigned long h = static_cast<unsigned long>(((c * 1031 + k) * 1031 + j) * 1031 + i + 7);
  h = (h ^ (h >> 13)) * 0x9E3779B97F4A7C15UL;
  h ^= h >> 29;
  return static_cast<double>(h % 200001UL) / 100000.0 - 1.0;
}

void set_noise(Field& field, int seed) {
  const Grid& grid = field.grid();
  PetscScalar* data;
  ArrayView u;
  ASSERT_EQ(VecGetArray(field.global(), &data), 0);
  ASSERT_EQ(grid.global_view(field.dm(), data, &u), 0);
  for (int c = 0; c < field.components(); ++c)
    for_each_index(owned_box(field, c), [&](PetscInt i, PetscInt j, PetscInt k) {
      u(i, j, k, c) = noise(i, j, k, c + 4 * seed);
    });
  ASSERT_EQ(VecRestoreArray(field.global(), &data), 0);
}

/// ||div u||_2 over the cells (fills the velocity's ghosts). Collective.
double divergence_norm(Field& velocity) {
  const Grid& grid = velocity.grid();
  EXPECT_EQ(velocity.fill_ghosts(), 0);
  std::array<double, 3> inv_h{1.0, 1.0, 1.0};
  for (int a = 0; a < grid.dim(); ++a) inv_h[a] = 1.0 / grid.spacing(a);
  const PetscScalar* data;
  ArrayView u;
  EXPECT_EQ(VecGetArrayRead(velocity.local(), &data), 0);
  EXPECT_EQ(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(data), &u), 0);
  double sum = 0.0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const double d = cell_divergence(u, inv_h, grid.dim(), i, j, k);
    sum += d * d;
  });
  EXPECT_EQ(VecRestoreArrayRead(velocity.local(), &data), 0);
  return std::sqrt(test::global_total(sum, grid.comm()));
}

/// 4 / h_a^2 sin^2(pi m / n_a): the part of axis a in the discrete Laplacian's symbol (negated).
double symbol_part(const Grid& grid, int a, long m) {
  const double s = std::sin(M_PI * static_cast<double>(m) / static_cast<double>(grid.cells(a)));
  return 4.0 / (grid.spacing(a) * grid.spacing(a)) * s * s;
}

/// The smallest nonzero eigenvalue of -L: one unit mode along the axis where it is lowest.
double lambda_min(const Grid& grid) {
  double result = symbol_part(grid, 0, 1);
  for (int a = 1; a < grid.dim(); ++a) result = std::min(result, symbol_part(grid, a, 1));
  return result;
}

// (a) A random periodic velocity, projected: max |div u| at rounding, relative to the size of
// the divergence a rough field of that magnitude has (max |u*| / h_min). The bound 1e-13 leaves
// a factor of about 100 over the double-precision epsilon for the sums of the transforms.
TEST(FftProjection, RandomFieldIsDivergenceFreeToRounding) {
  for (const Case& c : cases())
    for (const test::Layout& layout : test::layouts(c.dim)) {
      SCOPED_TRACE(name(c) + ", " + layout.name);
      auto p = make_problem(PETSC_COMM_WORLD, c, layout.processes);
      set_noise(p->velocity, 0);
      const double scale = max_abs(p->velocity.global()) / p->grid.min_spacing();
      FftProjection projection;
      ASSERT_EQ(projection.setup(p->grid, p->solids), 0);
      ProjectionStats stats;
      ASSERT_EQ(projection.project(p->velocity, 0.1, &stats), 0);
      EXPECT_EQ(stats.iterations, 0);
      EXPECT_LE(stats.max_divergence, 1e-13 * scale);
      // A projected field is a fixed point: a second projection changes it only by rounding.
      Vec before;
      ASSERT_EQ(VecDuplicate(p->velocity.global(), &before), 0);
      ASSERT_EQ(VecCopy(p->velocity.global(), before), 0);
      ASSERT_EQ(projection.project(p->velocity, 0.1, &stats), 0);
      EXPECT_LE(max_difference(before, p->velocity.global(), false),
                1e-13 * max_abs(before) + 1e-14 * scale * p->grid.min_spacing());
      ASSERT_EQ(VecDestroy(&before), 0);
    }
}

// (a) u* = dt G q: the projection returns the pressure q (mean-free) and a velocity of zero.
TEST(FftProjection, GradientFieldRecoversItsPressure) {
  const double dt = 0.05;
  for (const Case& c : cases()) {
    SCOPED_TRACE(name(c));
    auto p = make_problem(PETSC_COMM_WORLD, c);
    set_noise(p->scalar, 1);
    const Grid& grid = p->grid;
    // q = p->scalar; u* = dt G q on every face, wrapping.
    ASSERT_EQ(p->scalar.fill_ghosts(), 0);
    {
      const PetscScalar* q_data;
      PetscScalar* u_data;
      ArrayView q, u;
      ASSERT_EQ(VecGetArrayRead(p->scalar.local(), &q_data), 0);
      ASSERT_EQ(grid.local_view(grid.cell_dm(), const_cast<PetscScalar*>(q_data), &q), 0);
      ASSERT_EQ(VecGetArray(p->velocity.global(), &u_data), 0);
      ASSERT_EQ(grid.global_view(grid.face_dm(), u_data, &u), 0);
      for (int a = 0; a < grid.dim(); ++a)
        for_each_index(grid.owned_faces(a), [&](PetscInt i, PetscInt j, PetscInt k) {
          u(i, j, k, a) =
              dt * (q(i, j, k) - q(i - (a == 0), j - (a == 1), k - (a == 2))) / grid.spacing(a);
        });
      ASSERT_EQ(VecRestoreArray(p->velocity.global(), &u_data), 0);
      ASSERT_EQ(VecRestoreArrayRead(p->scalar.local(), &q_data), 0);
    }
    const double u_scale = max_abs(p->velocity.global());
    FftProjection projection;
    ASSERT_EQ(projection.setup(grid, p->solids), 0);
    ASSERT_EQ(projection.project(p->velocity, dt, nullptr), 0);
    EXPECT_LE(max_abs(p->velocity.global()), 1e-13 * u_scale);
    // The low modes of q come back through a division by lambda_min, which amplifies the
    // rounding of the right-hand side by up to lambda_max / lambda_min (about n^2 / pi^2).
    EXPECT_LE(max_difference(projection.pressure(), p->scalar.global(), true), 1e-12);
  }
}

// (b) FFT and Krylov projections of the same field agree to the Krylov solve's tolerance.
TEST(FftProjection, AgreesWithKrylovProjection) {
  const double dt = 0.1;
  SolverConfig tight;
  tight.rtol = 1e-12;
  tight.atol = 0.0;
  tight.max_iterations = 2000;
  for (const Case& c : cases()) {
    SCOPED_TRACE(name(c));
    auto fft = make_problem(PETSC_COMM_WORLD, c);
    auto krylov = make_problem(PETSC_COMM_WORLD, c);
    set_noise(fft->velocity, 2);
    set_noise(krylov->velocity, 2);
    const double b_norm = divergence_norm(fft->velocity) / dt;
    FftProjection fft_projection;
    KrylovProjection krylov_projection;
    ASSERT_EQ(fft_projection.setup(fft->grid, fft->solids), 0);
    ASSERT_EQ(krylov_projection.setup(krylov->grid, krylov->solids, tight), 0);
    ProjectionStats stats;
    ASSERT_EQ(fft_projection.project(fft->velocity, dt, nullptr), 0);
    ASSERT_EQ(krylov_projection.project(krylov->velocity, dt, &stats), 0);
    EXPECT_GT(stats.iterations, 0);
    const double dp = tight.rtol * b_norm / lambda_min(fft->grid);
    const double rounding = 1e-13 * max_abs(fft_projection.pressure());
    EXPECT_LE(max_difference(fft_projection.pressure(), krylov_projection.pressure(), true),
              dp + rounding);
    const double du = 2.0 * dt * dp / fft->grid.min_spacing();
    EXPECT_LE(max_difference(fft->velocity.global(), krylov->velocity.global(), false),
              du + 1e-13 * max_abs(krylov->velocity.global()));
  }
}

// The incremental form: subtract dt G p^n, then project the increment; the result is the plain
// projection of u* and the pressure the same p (both to rounding).
TEST(FftProjection, IncrementalProjectionMatchesPlainOne) {
  const double dt = 0.1;
  const Case c = cases()[2];
  auto plain = make_problem(PETSC_COMM_WORLD, c);
  auto incremental = make_problem(PETSC_COMM_WORLD, c);
  FftProjection a, b;
  ASSERT_EQ(a.setup(plain->grid, plain->solids), 0);
  ASSERT_EQ(b.setup(incremental->grid, incremental->solids), 0);
  // p^n from one projection of another field.
  set_noise(incremental->velocity, 3);
  ASSERT_EQ(b.project(incremental->velocity, dt, nullptr), 0);
  set_noise(plain->velocity, 4);
  set_noise(incremental->velocity, 4);
  ASSERT_EQ(a.project(plain->velocity, dt, nullptr), 0);
  ASSERT_EQ(b.subtract_pressure_gradient(incremental->velocity, dt), 0);
  ProjectionStats stats;
  ASSERT_EQ(b.project_increment(incremental->velocity, dt, &stats), 0);
  const double scale = max_abs(plain->velocity.global());
  EXPECT_LE(max_difference(plain->velocity.global(), incremental->velocity.global(), false),
            1e-13 * scale + 1e-13);
  EXPECT_LE(max_difference(a.pressure(), b.pressure(), true), 1e-12 * max_abs(a.pressure()));
}

// (c) One Fourier mode, on cell centres and on each component's faces, decays by exactly
// 1 / (1 + k dt lambda_h(m)).
TEST(FftDiffusion, FourierModeDecaysByTheDiscreteFactor) {
  const double nu = 0.03, dt = 0.2;
  for (const Case& c : cases()) {
    SCOPED_TRACE(name(c));
    auto p = make_problem(PETSC_COMM_WORLD, c);
    const Grid& grid = p->grid;
    const std::array<long, 3> m{2, 3, 1};
    double lambda = 0.0;
    for (int a = 0; a < grid.dim(); ++a) lambda += symbol_part(grid, a, m[a]);
    const double factor = 1.0 / (1.0 + nu * dt * lambda);
    auto mode = [&](int component, double x, double y, double z) {
      double phase = 0.3 * component + 2.0 * M_PI * (m[0] * x / grid.length(0) +
                                                     m[1] * y / grid.length(1));
      if (grid.dim() == 3) phase += 2.0 * M_PI * m[2] * z / grid.length(2);
      return std::cos(phase);
    };
    test::set_field(p->scalar, mode);
    test::set_field(p->velocity, mode);
    FftDiffusion diffusion;
    ASSERT_EQ(diffusion.setup(grid, p->solids), 0);
    PetscInt iterations = -1;
    ASSERT_EQ(diffusion.diffuse(p->scalar, nu, dt, &iterations), 0);
    EXPECT_EQ(iterations, 0);
    ASSERT_EQ(diffusion.diffuse(p->velocity, nu, dt, &iterations), 0);
    for (Field* field : {&p->scalar, &p->velocity}) {
      const PetscScalar* data;
      ArrayView u;
      ASSERT_EQ(VecGetArrayRead(field->global(), &data), 0);
      ASSERT_EQ(grid.global_view(field->dm(), const_cast<PetscScalar*>(data), &u), 0);
      double error = 0.0;
      for (int comp = 0; comp < field->components(); ++comp) {
        const int s = field->stagger(comp);
        for_each_index(owned_box(*field, comp), [&](PetscInt i, PetscInt j, PetscInt k) {
          const double expected =
              factor * mode(comp, grid.sample_position(0, i, s), grid.sample_position(1, j, s),
                            grid.sample_position(2, k, s));
          error = std::max(error, std::abs(u(i, j, k, comp) - expected));
        });
      }
      ASSERT_EQ(VecRestoreArrayRead(field->global(), &data), 0);
      EXPECT_LE(test::global_max(error), 1e-14) << field->name();
    }
  }
}

// (c) FFT and Krylov diffusion of the same rough fields agree to the Krylov tolerance.
TEST(FftDiffusion, AgreesWithKrylovDiffusion) {
  const double nu = 0.01, dt = 0.5;
  SolverConfig tight{1e-13, 0.0, 2000};
  for (const Case& c : cases()) {
    SCOPED_TRACE(name(c));
    auto fft = make_problem(PETSC_COMM_WORLD, c);
    auto krylov = make_problem(PETSC_COMM_WORLD, c);
    FftDiffusion fft_diffusion;
    KrylovDiffusion krylov_diffusion;
    ASSERT_EQ(fft_diffusion.setup(fft->grid, fft->solids), 0);
    ASSERT_EQ(krylov_diffusion.setup(krylov->grid, krylov->solids, tight), 0);
    for (int which = 0; which < 2; ++which) {
      Field& a = which == 0 ? fft->scalar : fft->velocity;
      Field& b = which == 0 ? krylov->scalar : krylov->velocity;
      set_noise(a, 5);
      set_noise(b, 5);
      PetscReal norm = 0.0;
      ASSERT_EQ(VecNorm(a.global(), NORM_2, &norm), 0);
      PetscInt iterations = 0;
      ASSERT_EQ(fft_diffusion.diffuse(a, nu, dt, nullptr), 0);
      ASSERT_EQ(krylov_diffusion.diffuse(b, nu, dt, &iterations), 0);
      EXPECT_GT(iterations, 0);
      // Per component ||dq||_2 <= rtol ||q*_c||_2 <= rtol ||q*||_2.
      EXPECT_LE(max_difference(a.global(), b.global(), false),
                tight.rtol * static_cast<double>(norm) + 1e-14)
          << a.name();
    }
  }
}

/// The global vector of `dm` in natural order, gathered on rank 0 (empty elsewhere). Collective.
std::vector<double> gather_natural(DM dm, Vec global) {
  Vec natural, all;
  VecScatter to_zero;
  EXPECT_EQ(DMDACreateNaturalVector(dm, &natural), 0);
  EXPECT_EQ(DMDAGlobalToNaturalBegin(dm, global, INSERT_VALUES, natural), 0);
  EXPECT_EQ(DMDAGlobalToNaturalEnd(dm, global, INSERT_VALUES, natural), 0);
  EXPECT_EQ(VecScatterCreateToZero(natural, &to_zero, &all), 0);
  EXPECT_EQ(VecScatterBegin(to_zero, natural, all, INSERT_VALUES, SCATTER_FORWARD), 0);
  EXPECT_EQ(VecScatterEnd(to_zero, natural, all, INSERT_VALUES, SCATTER_FORWARD), 0);
  PetscInt n = 0;
  const PetscScalar* data;
  EXPECT_EQ(VecGetLocalSize(all, &n), 0);
  EXPECT_EQ(VecGetArrayRead(all, &data), 0);
  std::vector<double> result(data, data + n);
  EXPECT_EQ(VecRestoreArrayRead(all, &data), 0);
  EXPECT_EQ(VecScatterDestroy(&to_zero), 0);
  EXPECT_EQ(VecDestroy(&all), 0);
  EXPECT_EQ(VecDestroy(&natural), 0);
  return result;
}

/// The projected velocity and pressure, and the diffused scalar and velocity, of the noise
/// fields on `comm`, gathered on rank 0 of PETSC_COMM_WORLD in natural order.
std::vector<std::vector<double>> solve_all(MPI_Comm comm, const Case& c,
                                           std::array<PetscInt, 3> processes) {
  std::vector<std::vector<double>> results;
  auto p = make_problem(comm, c, processes);
  const Grid& grid = p->grid;
  FftProjection projection;
  FftDiffusion diffusion;
  EXPECT_EQ(projection.setup(grid, p->solids), 0);
  EXPECT_EQ(diffusion.setup(grid, p->solids), 0);
  set_noise(p->velocity, 6);
  set_noise(p->scalar, 7);
  EXPECT_EQ(projection.project(p->velocity, 0.1, nullptr), 0);
  results.push_back(gather_natural(grid.face_dm(), p->velocity.global()));
  results.push_back(gather_natural(grid.cell_dm(), projection.pressure()));
  EXPECT_EQ(diffusion.diffuse(p->velocity, 0.02, 0.3, nullptr), 0);
  EXPECT_EQ(diffusion.diffuse(p->scalar, 0.05, 0.3, nullptr), 0);
  results.push_back(gather_natural(grid.face_dm(), p->velocity.global()));
  results.push_back(gather_natural(grid.cell_dm(), p->scalar.global()));
  return results;
}

// (d) Every rank count and layout gives the bits of one rank. The redistribution is copies only
// (PETSc's scatter with INSERT_VALUES), the divergence, gradient and symbol are computed per
// cell and per mode in a fixed order, and FFTW_ESTIMATE plans deterministically from the sizes.
// FFTW does not promise that the plans for different process counts round alike, though: with
// one process the MPI interface hands the whole transform to the serial planner, with several it
// transforms the slabs' planes, transposes and then transforms along the first axis, and the
// 1D transforms it picks per axis may differ with the local sizes. So the sums of a mode may be
// taken in another order and bit identity is not guaranteed by FFTW. On the grids here the plans
// agree and the test asserts bit identity; if a future FFTW changes its choices, this test is
// where it shows, and the honest bound to fall back to is ~1e-15 relative (one transform pair).
TEST(FftSolvers, SameBitsOnEveryRankCount) {
  for (const Case& c : cases()) {
    std::vector<std::vector<double>> reference;
    if (test::comm_rank() == 0) reference = solve_all(PETSC_COMM_SELF, c, {1, 1, 1});
    for (const test::Layout& layout : test::layouts(c.dim)) {
      SCOPED_TRACE(name(c) + ", " + layout.name);
      const auto results = solve_all(PETSC_COMM_WORLD, c, layout.processes);
      if (test::comm_rank() != 0) continue;
      ASSERT_EQ(results.size(), reference.size());
      const char* what[] = {"projected velocity", "pressure", "diffused velocity",
                            "diffused scalar"};
      for (size_t n = 0; n < results.size(); ++n) {
        ASSERT_EQ(results[n].size(), reference[n].size()) << what[n];
        size_t differ = 0;
        double largest = 0.0;
        for (size_t e = 0; e < results[n].size(); ++e)
          if (results[n][e] != reference[n][e]) {
            ++differ;
            largest = std::max(largest, std::abs(results[n][e] - reference[n][e]));
          }
        EXPECT_EQ(differ, 0u) << what[n] << ": largest difference " << largest;
      }
    }
  }
}

// The factories give the FFT strategies for method Fft, and refuse a box that is not periodic
// on every axis (the job reader refuses it first, naming the key; this is the guard behind it).
TEST(FftSolvers, FactoriesChooseThemAndRefuseWalls) {
  SolverConfig fft;
  fft.method = SolverConfig::Method::Fft;
  auto periodic = make_problem(PETSC_COMM_WORLD, cases()[2]);
  std::unique_ptr<Projection> projection;
  std::unique_ptr<Diffusion> diffusion;
  ASSERT_EQ(make_projection(periodic->grid, periodic->solids, fft, &projection), 0);
  ASSERT_EQ(make_diffusion(periodic->grid, periodic->solids, fft, &diffusion), 0);
  EXPECT_NE(dynamic_cast<FftProjection*>(projection.get()), nullptr);
  EXPECT_NE(dynamic_cast<FftDiffusion*>(diffusion.get()), nullptr);

  GridConfig config;
  config.dim = 2;
  config.cells = {12, 10, 1};
  config.halo = 1;
  Boundaries b = all(BoundaryKind::Periodic);
  b[1] = {test::face(BoundaryKind::NoSlip), test::face(BoundaryKind::NoSlip)};
  Grid walled;
  SolidMask solids;
  ASSERT_EQ(walled.setup(PETSC_COMM_WORLD, config, b), 0);
  ASSERT_EQ(solids.setup(walled, {}), 0);
  std::string message;
  std::unique_ptr<Projection> refused;
  EXPECT_NE(test::catching_errors(
                [&]() { return make_projection(walled, solids, fft, &refused); }, &message),
            0);
  EXPECT_NE(message.find("periodic on every axis"), std::string::npos) << message;
}

// A NaN in the velocity would spread through the transform to every cell; the projection and
// the diffusion stop instead with PETSC_ERR_FP naming the face it came from, on every rank.
TEST(FftSolvers, NonFiniteVelocityStopsTheProjection) {
  auto p = make_problem(PETSC_COMM_WORLD, cases()[2]);
  set_noise(p->velocity, 8);
  if (test::comm_rank() == test::comm_size() - 1) {
    PetscScalar* data;
    ASSERT_EQ(VecGetArray(p->velocity.global(), &data), 0);
    data[1] = std::nan("");
    ASSERT_EQ(VecRestoreArray(p->velocity.global(), &data), 0);
  }
  FftProjection projection;
  ASSERT_EQ(projection.setup(p->grid, p->solids), 0);
  std::string message;
  EXPECT_EQ(test::catching_errors([&]() { return projection.project(p->velocity, 0.1, nullptr); },
                                  &message),
            PETSC_ERR_FP);
  EXPECT_NE(message.find("NaN in velocity"), std::string::npos) << message;
  FftDiffusion diffusion;
  ASSERT_EQ(diffusion.setup(p->grid, p->solids), 0);
  message.clear();
  EXPECT_EQ(test::catching_errors(
                [&]() { return diffusion.diffuse(p->velocity, 0.1, 0.1, nullptr); }, &message),
            PETSC_ERR_FP);
  EXPECT_NE(message.find("NaN in velocity"), std::string::npos) << message;
}

}  // namespace
}  // namespace sf
