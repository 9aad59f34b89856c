// The implicit variable-viscosity solve u - dt div(nu (grad u + grad u^T)) = u*
// (solvers/variable_viscosity.hpp): plane Couette and Poiseuille flow through a viscosity jump
// against their exact profiles, stability far beyond the explicit limit, agreement with the
// component-wise diffusion where the two operators coincide, and agreement across rank counts
// and process layouts. A whole step that takes its viscosity from a job's scalar is in
// tests/app/test_solver_steps.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "field_test_util.hpp"
#include "krylov_diffusion.hpp"
#include "mpi_test_util.hpp"
#include "test_boundaries.hpp"
#include "variable_viscosity.hpp"
#include "viscosity_jump_channel.hpp"

namespace sf {
namespace {

using test::all;
using test::Boundaries;
using test::channel;
using test::couette;
using test::face;
using test::kHeight;
using test::kJump;
using test::kNuAbove;
using test::kNuBelow;
using test::poiseuille;
using test::two_viscosities;
using test::max_error;
using test::owned_box;
using test::set_field;

struct Problem {
  Grid grid;
  SolidMask solids;
  Field scalar;  // "wax": the viscosity follows it
  Field velocity;
};

std::unique_ptr<Problem> make_problem(int dim, std::array<long, 3> cells,
                                      std::array<double, 3> size, const Boundaries& boundaries,
                                      const std::vector<ObstacleConfig>& obstacles = {},
                                      MPI_Comm comm = PETSC_COMM_WORLD,
                                      std::array<PetscInt, 3> processes = {
                                          PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}) {
  auto problem = std::make_unique<Problem>();
  GridConfig config;
  config.dim = dim;
  config.cells = cells;
  config.size = size;
  config.halo = 1;
  EXPECT_EQ(problem->grid.setup(comm, config, boundaries, processes), 0);
  EXPECT_EQ(problem->solids.setup(problem->grid, obstacles), 0);
  EXPECT_EQ(problem->scalar.setup_scalar(problem->grid, "wax"), 0);
  EXPECT_EQ(problem->velocity.setup_velocity(problem->grid), 0);
  return problem;
}

SolverConfig tight() {
  SolverConfig config;
  config.rtol = 1e-12;
  config.atol = 1e-50;
  config.max_iterations = 1000;
  return config;
}

/// sum over every owned face of u^2 (the kinetic energy times 2 / cell volume).
double energy(const Field& velocity) {
  double sum = 0.0;
  PetscScalar dot = 0.0;
  EXPECT_EQ(VecDot(velocity.global(), velocity.global(), &dot), 0);
  sum = PetscRealPart(dot);
  return sum;
}

/// A reproducible number in [-1/2, 1/2) from a global index, the same on every rank count.
double noise(PetscInt i, PetscInt j, PetscInt k, int c) {
  const double v = std::sin(12.9898 * i + 78.233 * j + 37.719 * k + 4.581 * c) * 43758.5453;
  return v - std::floor(v) - 0.5;
}

/// Sets every owned sample of `field` (global indices) from f(c, i, j, k).
template <typename F>
void set_by_index(Field& field, F&& f) {
  const Grid& grid = field.grid();
  PetscScalar* data;
  ArrayView u;
  ASSERT_EQ(VecGetArray(field.global(), &data), 0);
  ASSERT_EQ(grid.global_view(field.dm(), data, &u), 0);
  for (int c = 0; c < field.components(); ++c)
    for_each_index(owned_box(field, c),
                   [&](PetscInt i, PetscInt j, PetscInt k) { u(i, j, k, c) = f(c, i, j, k); });
  ASSERT_EQ(VecRestoreArray(field.global(), &data), 0);
}

/// Adds dt g to the x component of the free faces (the forces stage's body force).
void push_along_x(Problem& p, double g_dt) {
  PetscScalar* data;
  ArrayView u;
  ASSERT_EQ(VecGetArray(p.velocity.global(), &data), 0);
  ASSERT_EQ(p.grid.global_view(p.velocity.dm(), data, &u), 0);
  for_each_index(p.grid.owned_faces(0), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!p.solids.fixed_face(0, i, j, k)) u(i, j, k, 0) += g_dt;
  });
  ASSERT_EQ(VecRestoreArray(p.velocity.global(), &data), 0);
}

void set_jump(Problem& p) {
  set_field(p.scalar, [](int, double, double y, double) { return y < kJump ? 0.0 : 1.0; });
}

// Implicit steps of dt = 1000 H^2 / nu1 reach the steady state: each divides the distance to it
// by at least 1 + dt lambda_min, about 1e4.
constexpr double kLongStep = 1000.0;
constexpr int kStepsToSteady = 6;

// With the harmonic mean on the edges at the jump, the discrete flux through it is exact for
// piecewise-linear profiles, and the no-slip ghost is exact for linear ones: the Couette profile
// is reproduced to the solver's tolerance, in 2D and 3D, with the wall moving along x and z.
TEST(VariableViscosityCouette, HarmonicJumpIsExact) {
  for (int dim : {2, 3}) {
    const std::array<double, 3> wall{1.0, 0.0, dim == 3 ? -0.5 : 0.0};
    const std::array<long, 3> cells = dim == 2 ? std::array<long, 3>{4, 16, 1}
                                               : std::array<long, 3>{4, 16, 3};
    auto problem = make_problem(dim, cells, {0.5, kHeight, 0.5}, channel(dim, wall));
    Problem& p = *problem;
    set_jump(p);
    VariableViscosity viscosity;
    ASSERT_EQ(viscosity.setup(p.grid, p.solids, tight(),
                              two_viscosities(kNuBelow, kNuAbove, ViscosityAverage::Harmonic)),
              0);
    PetscInt iterations = 0, first = 0;
    for (int step = 0; step < kStepsToSteady; ++step) {
      ASSERT_EQ(viscosity.diffuse(p.velocity, p.scalar, kLongStep, &iterations), 0);
      if (step == 0) first = iterations;
    }
    EXPECT_GT(first, 0);
    EXPECT_EQ(viscosity.min_viscosity(), kNuBelow);
    EXPECT_NEAR(viscosity.max_viscosity(), kNuAbove, 1e-13);
    const double error = max_error(p.velocity, [&](int c, double, double y, double) {
      return c == 1 ? 0.0 : couette(wall[c], y);
    });
    EXPECT_LT(error, 1e-9) << dim << "D";
  }
}

// The geometric mean (Carlson et al.) smears the jump's flux over the edge: the Couette profile
// is then first-order accurate, its error halving with h.
TEST(VariableViscosityCouette, GeometricJumpConvergesAtFirstOrder) {
  std::vector<double> errors;
  for (long n : {16L, 32L}) {
    auto problem = make_problem(2, {4, n, 1}, {0.5, kHeight, 1.0}, channel(2, {1.0, 0.0, 0.0}));
    Problem& p = *problem;
    set_jump(p);
    VariableViscosity viscosity;
    ASSERT_EQ(viscosity.setup(p.grid, p.solids, tight(),
                              two_viscosities(kNuBelow, kNuAbove, ViscosityAverage::Geometric)),
              0);
    for (int step = 0; step < kStepsToSteady; ++step)
      ASSERT_EQ(viscosity.diffuse(p.velocity, p.scalar, kLongStep, nullptr), 0);
    errors.push_back(max_error(p.velocity, [&](int c, double, double y, double) {
      return c == 1 ? 0.0 : couette(1.0, y);
    }));
  }
  const double order = std::log2(errors[0] / errors[1]);
  EXPECT_LT(errors[1], 0.02) << "errors " << errors[0] << " " << errors[1];
  EXPECT_GT(order, 0.9) << "errors " << errors[0] << " " << errors[1];
}

// Poiseuille flow through the jump, driven by a body force: the steady profile against the
// exact piecewise quadratic at two resolutions. With the harmonic mean the jump adds no error at
// all: what is left is the no-slip ghost's own error for a quadratic, g h^2 / (8 nu1) next to
// the lower wall, second order. The geometric mean's error at the jump is first order (its
// asymptotic rate is reached at finer grids: 0.6, 0.84, 0.92 from 16 to 128 cells).
TEST(VariableViscosityPoiseuille, ConvergesToThePiecewiseQuadratic) {
  const double g = 8.0;
  for (auto average : {ViscosityAverage::Harmonic, ViscosityAverage::Geometric}) {
    const bool harmonic = average == ViscosityAverage::Harmonic;
    const std::string which = harmonic ? "harmonic" : "geometric";
    std::vector<double> errors, spacings;
    for (long n : harmonic ? std::vector<long>{16, 32} : std::vector<long>{64, 128}) {
      auto problem = make_problem(2, {4, n, 1}, {0.5, kHeight, 1.0}, channel(2));
      Problem& p = *problem;
      set_jump(p);
      VariableViscosity viscosity;
      ASSERT_EQ(viscosity.setup(p.grid, p.solids, tight(),
                                two_viscosities(kNuBelow, kNuAbove, average)),
                0);
      for (int step = 0; step < kStepsToSteady; ++step) {
        push_along_x(p, g * kLongStep);
        ASSERT_EQ(viscosity.diffuse(p.velocity, p.scalar, kLongStep, nullptr), 0);
      }
      errors.push_back(max_error(p.velocity, [&](int c, double, double y, double) {
        return c == 1 ? 0.0 : poiseuille(g, y);
      }));
      spacings.push_back(p.grid.spacing(1));
    }
    const double order = std::log2(errors[0] / errors[1]);
    if (harmonic) {
      for (size_t r = 0; r < errors.size(); ++r) {
        const double wall_error = g * spacings[r] * spacings[r] / (8.0 * kNuBelow);
        EXPECT_NEAR(errors[r], wall_error, 1e-6 * wall_error) << which << " h " << spacings[r];
      }
    } else {
      EXPECT_LT(errors[1], 0.01 * poiseuille(g, kJump)) << which << " errors " << errors[1];
    }
    EXPECT_GT(order, harmonic ? 1.99 : 0.9)
        << which << " errors " << errors[0] << " " << errors[1];
  }
}

// dt = 1e6 times the explicit limit h^2 / (2 dim nu_max), with nu varying randomly over three
// decades from cell to cell and a random velocity among no-slip and free-slip walls and a
// free-slip obstacle: every step's energy is at most the last one's (A = I + dt K with K
// symmetric positive semi-definite: |u| cannot grow), nothing is NaN, and the solve converges.
TEST(VariableViscosityStability, MillionTimesTheExplicitLimit) {
  for (int dim : {2, 3}) {
    Boundaries b = all(BoundaryKind::NoSlip);
    b[0][1] = face(BoundaryKind::FreeSlip);
    b[1][1] = face(BoundaryKind::FreeSlip);
    ObstacleConfig block;
    block.region.lower = {0.3, 0.3, 0.3};
    block.region.upper = {0.55, 0.5, 0.6};
    block.boundary = BoundaryKind::FreeSlip;
    const std::array<long, 3> cells = dim == 2 ? std::array<long, 3>{20, 16, 1}
                                               : std::array<long, 3>{10, 8, 6};
    auto problem = make_problem(dim, cells, {1.0, 1.0, 1.0}, b, {block});
    Problem& p = *problem;
    const double nu_low = 1e-3, nu_high = 1.0;
    set_by_index(p.scalar, [](int, PetscInt i, PetscInt j, PetscInt k) {
      return noise(i, j, k, 7) + 0.5;
    });
    set_by_index(p.velocity, [](int c, PetscInt i, PetscInt j, PetscInt k) {
      return noise(i, j, k, c);
    });
    ASSERT_EQ(p.solids.hold_solid_faces(p.velocity), 0);
    ASSERT_EQ(p.velocity.fill_ghosts(), 0);
    VariableViscosity viscosity;
    SolverConfig config;  // the job's default stopping rule for diffusion
    config.rtol = 1e-10;
    config.atol = 1e-14;
    ASSERT_EQ(viscosity.setup(p.grid, p.solids, config,
                              two_viscosities(nu_low, nu_high, ViscosityAverage::Geometric)),
              0);
    double h = p.grid.spacing(0);
    for (int a = 1; a < dim; ++a) h = std::min(h, p.grid.spacing(a));
    const double explicit_limit = h * h / (2.0 * dim * nu_high);
    const double dt = 1e6 * explicit_limit;
    double before = energy(p.velocity);
    const double initial = before;
    for (int step = 0; step < 5; ++step) {
      // A scalar that moves: nu changes every step and the matrix is refilled.
      set_by_index(p.scalar, [step](int, PetscInt i, PetscInt j, PetscInt k) {
        return noise(i + step, j, k, 7) + 0.5;
      });
      PetscInt iterations = 0;
      ASSERT_EQ(viscosity.diffuse(p.velocity, p.scalar, dt, &iterations), 0);
      EXPECT_LT(iterations, 200) << dim << "D step " << step;
      PetscBool symmetric = PETSC_FALSE;
      PetscReal largest = 0.0;  // entries reach nu dt / h^2: rounding is relative to them
      ASSERT_EQ(MatNorm(viscosity.matrix(), NORM_MAX, &largest), 0);
      ASSERT_EQ(MatIsSymmetric(viscosity.matrix(), 1e-14 * largest, &symmetric), 0);
      EXPECT_TRUE(symmetric) << dim << "D step " << step;
      const double after = energy(p.velocity);
      EXPECT_TRUE(std::isfinite(after));
      EXPECT_LE(after, before) << dim << "D step " << step;
      before = after;
    }
    EXPECT_LT(before, initial) << dim << "D";
    EXPECT_GE(viscosity.min_viscosity(), nu_low);
    EXPECT_LE(viscosity.max_viscosity(), nu_high);
  }
}

// For constant nu and a divergence-free velocity on a periodic box, div(nu grad u^T) =
// nu grad(div u) = 0 and the operator is the component-wise Laplacian, whose solution stays
// divergence-free: both solves give the same velocity. u comes from a stream function at the
// nodes, so it is divergence-free to rounding on the MAC grid.
TEST(VariableViscosityConstant, AgreesWithTheComponentwiseDiffusion) {
  auto problem = make_problem(2, {24, 20, 1}, {1.0, 0.8, 1.0}, all(BoundaryKind::Periodic));
  Problem& p = *problem;
  const double lx = p.grid.length(0), ly = p.grid.length(1);
  const auto psi = [&](double x, double y) {
    return std::sin(2.0 * M_PI * x / lx) * std::sin(2.0 * M_PI * y / ly) +
           0.3 * std::cos(4.0 * M_PI * x / lx + 2.0 * M_PI * y / ly);
  };
  const double hx = p.grid.spacing(0), hy = p.grid.spacing(1);
  const auto stream_velocity = [&](int c, PetscInt i, PetscInt j, PetscInt) {
    const double x = p.grid.face_position(0, i), y = p.grid.face_position(1, j);
    return c == 0 ? (psi(x, y + hy) - psi(x, y)) / hy : -(psi(x + hx, y) - psi(x, y)) / hx;
  };
  set_field(p.scalar, [](int, double, double, double) { return 0.0; });
  set_by_index(p.velocity, stream_velocity);
  Field reference;
  ASSERT_EQ(reference.setup_velocity(p.grid), 0);
  set_by_index(reference, stream_velocity);
  const double nu = 0.02, dt = 0.5;
  ViscosityLaw law;
  law.scalar = "wax";
  law.at = {0.0};
  law.log_nu = {std::log(nu)};
  VariableViscosity coupled;
  ASSERT_EQ(coupled.setup(p.grid, p.solids, tight(), law), 0);
  ASSERT_EQ(coupled.diffuse(p.velocity, p.scalar, dt, nullptr), 0);
  KrylovDiffusion componentwise;
  ASSERT_EQ(componentwise.setup(p.grid, p.solids, tight()), 0);
  ASSERT_EQ(componentwise.diffuse(reference, nu, dt, nullptr), 0);
  PetscReal difference = 0.0, size = 0.0;
  ASSERT_EQ(VecAXPY(reference.global(), -1.0, p.velocity.global()), 0);
  ASSERT_EQ(VecNorm(reference.global(), NORM_INFINITY, &difference), 0);
  ASSERT_EQ(VecNorm(p.velocity.global(), NORM_INFINITY, &size), 0);
  EXPECT_GT(size, 0.1);
  EXPECT_LT(difference, 1e-10 * size);
}

// Every boundary kind and an obstacle at once, nu random over two decades: the solution on every
// process layout of this rank count agrees with the one each rank computes alone
// (PETSC_COMM_SELF) to the solver's tolerance. Not bit for bit: algebraic multigrid builds
// another hierarchy on another partition, so the iterates differ at rounding level and the
// solves stop at different iterations.
TEST(VariableViscosityRanks, AgreesWithOneRank) {
  for (int dim : {2, 3}) {
    Boundaries b = all(BoundaryKind::Periodic);
    b[0][0] = face(BoundaryKind::Inflow);
    b[0][0].velocity = {1.0, 0.5, -0.25};
    b[0][1] = face(BoundaryKind::Outflow);
    b[1][0] = face(BoundaryKind::NoSlip);
    b[1][0].velocity = {0.75, 0.0, 0.5};
    b[1][1] = face(BoundaryKind::FreeSlip);
    ObstacleConfig block;
    block.region.lower = {0.4, 0.2, 0.0};
    block.region.upper = {0.6, 0.45, 0.5};
    const std::array<long, 3> cells = dim == 2 ? std::array<long, 3>{18, 14, 1}
                                               : std::array<long, 3>{9, 8, 5};
    const std::array<double, 3> size{1.2, 1.0, 1.0};
    const auto scalar = [](int, PetscInt i, PetscInt j, PetscInt k) {
      return noise(i, j, k, 5) + 0.5;
    };
    const auto velocity = [](int c, PetscInt i, PetscInt j, PetscInt k) {
      return noise(i, j, k, c);
    };
    const ViscosityLaw law = two_viscosities(0.01, 1.0, ViscosityAverage::Geometric);
    const double dt = 0.3;
    auto alone = make_problem(dim, cells, size, b, {block}, PETSC_COMM_SELF);
    set_by_index(alone->scalar, scalar);
    set_by_index(alone->velocity, velocity);
    ASSERT_EQ(alone->solids.hold_solid_faces(alone->velocity), 0);
    VariableViscosity serial;
    ASSERT_EQ(serial.setup(alone->grid, alone->solids, tight(), law), 0);
    ASSERT_EQ(serial.diffuse(alone->velocity, alone->scalar, dt, nullptr), 0);
    const PetscScalar* reference_data;
    ArrayView reference;
    ASSERT_EQ(VecGetArrayRead(alone->velocity.global(), &reference_data), 0);
    ASSERT_EQ(alone->grid.global_view(alone->velocity.dm(),
                                      const_cast<PetscScalar*>(reference_data), &reference),
              0);
    PetscReal scale = 0.0;
    ASSERT_EQ(VecNorm(alone->velocity.global(), NORM_INFINITY, &scale), 0);
    for (const test::Layout& layout : test::layouts(dim)) {
      auto shared = make_problem(dim, cells, size, b, {block}, PETSC_COMM_WORLD,
                                 layout.processes);
      set_by_index(shared->scalar, scalar);
      set_by_index(shared->velocity, velocity);
      ASSERT_EQ(shared->solids.hold_solid_faces(shared->velocity), 0);
      VariableViscosity parallel;
      ASSERT_EQ(parallel.setup(shared->grid, shared->solids, tight(), law), 0);
      ASSERT_EQ(parallel.diffuse(shared->velocity, shared->scalar, dt, nullptr), 0);
      // CG needs a symmetric matrix: every boundary kind's folding must keep it so.
      PetscBool symmetric = PETSC_FALSE;
      PetscReal largest = 0.0;
      ASSERT_EQ(MatNorm(parallel.matrix(), NORM_MAX, &largest), 0);
      ASSERT_EQ(MatIsSymmetric(parallel.matrix(), 1e-14 * largest, &symmetric), 0);
      EXPECT_TRUE(symmetric) << dim << "D, " << layout.name;
      const double difference = max_error(
          shared->velocity, [&](int c, double x, double y, double z) {
            // Back from the sample's position to its index, which both grids share.
            const int s = c;
            const double at[3] = {x, y, z};
            PetscInt index[3] = {0, 0, 0};
            for (int a = 0; a < dim; ++a) {
              const double h = shared->grid.spacing(a);
              index[a] = static_cast<PetscInt>(std::lround(a == s ? at[a] / h : at[a] / h - 0.5));
            }
            return reference(index[0], index[1], index[2], c);
          });
      EXPECT_LT(difference, 1e-9 * scale) << dim << "D, " << layout.name;
    }
    ASSERT_EQ(VecRestoreArrayRead(alone->velocity.global(), &reference_data), 0);
  }
}

}  // namespace
}  // namespace sf
