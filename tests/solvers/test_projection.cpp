// Pressure projection: exact answers on small grids, at every rank count and with every
// candidate preconditioner.
//
// Exact recovery. For any cell field q, the velocity u* = dt G q (the discrete gradient on the
// free faces, zero on the prescribed ones, the Dirichlet ghost -q across an outflow face) has
// -div u* / dt = A q exactly, so the solve must return p = q (up to a constant when the level is
// free) to solver tolerance, and the projected velocity must vanish.
//
// Non-potential fields. For a rough u* the projected velocity must be divergence-free to the
// bound the solver tolerance implies, and every prescribed face must keep its value bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mpi_test_util.hpp"
#include "test_boundaries.hpp"
#include "krylov_projection.hpp"

namespace sf {
namespace {

using test::all;
using test::Boundaries;
using test::face;

enum class Case { Walls, Periodic, Outflow, Obstacle, Cut, Channel };

const char* case_name(Case c) {
  switch (c) {
    case Case::Walls: return "walls";
    case Case::Periodic: return "periodic";
    case Case::Outflow: return "outflow";
    case Case::Obstacle: return "obstacle";
    case Case::Cut: return "cut";
    case Case::Channel: return "channel";
  }
  return "?";
}

/// walls: no-slip all round; periodic: every axis; outflow: walls but an outflow face at x = L;
/// obstacle: walls with a sphere and a box inside; cut: the same obstacles cut (fractional face
/// areas); channel: inflow at x = 0 (velocity `inflow`
/// along x), outflow at x = L, a no-slip wall below and a free-slip wall above, periodic along z,
/// and a sphere in the stream.
Boundaries boundaries(Case c, double inflow) {
  Boundaries b;
  const BoundaryKind all = c == Case::Periodic ? BoundaryKind::Periodic : BoundaryKind::NoSlip;
  for (auto& axis : b) axis = {face(all), face(all)};
  if (c == Case::Outflow) b[0][1] = face(BoundaryKind::Outflow);
  if (c == Case::Channel) {
    b[0][0] = face(BoundaryKind::Inflow);
    b[0][0].velocity = {inflow, 0.0, 0.0};
    b[0][1] = face(BoundaryKind::Outflow);
    b[1][1] = face(BoundaryKind::FreeSlip);
    b[2] = {face(BoundaryKind::Periodic), face(BoundaryKind::Periodic)};
  }
  return b;
}

std::vector<ObstacleConfig> obstacles(Case c, int dim) {
  std::vector<ObstacleConfig> list;
  if (c != Case::Obstacle && c != Case::Cut && c != Case::Channel) return list;
  ObstacleConfig sphere;
  sphere.region.shape = Region::Shape::Sphere;
  sphere.region.center = {0.35, 0.45, dim == 3 ? 0.5 : 0.0};
  sphere.region.radius = 0.18;
  list.push_back(sphere);
  if (c == Case::Obstacle || c == Case::Cut) {
    // A free-slip box touching the wall at y = 0: the fluid above it still connects.
    ObstacleConfig box;
    box.boundary = BoundaryKind::FreeSlip;
    box.region.shape = Region::Shape::Box;
    box.region.lower = {0.7, -0.1, -0.1};
    box.region.upper = {0.85, 0.3, 1.1};
    list.push_back(box);
  }
  if (c == Case::Cut)
    for (ObstacleConfig& obstacle : list) obstacle.surface = ObstacleConfig::Surface::Cut;
  return list;
}

/// Sets PETSc options for the lifetime of the object (a candidate preconditioner).
class ScopedOptions {
public:
  explicit ScopedOptions(std::vector<std::pair<std::string, std::string>> options)
      : options_(std::move(options)) {
    for (const auto& [key, value] : options_)
      EXPECT_EQ(PetscOptionsSetValue(nullptr, key.c_str(), value.c_str()), 0);
  }
  ~ScopedOptions() {
    for (const auto& [key, value] : options_) (void)PetscOptionsClearValue(nullptr, key.c_str());
  }

private:
  std::vector<std::pair<std::string, std::string>> options_;
};

using Options = std::vector<std::pair<std::string, std::string>>;

/// The preconditioners solvers/README.md compares: the code default (matrix-free geometric
/// multigrid, PCMG with red-black Gauss-Seidel), the same levels smoothed by PETSc's damped
/// Jacobi (which reads the shells' diagonals), and the assembled alternatives.
std::vector<std::pair<std::string, Options>> preconditioners() {
  return {{"default", {}},
          {"mg-jacobi",
           {{"-pressure_pc_type", "mg"},
            {"-pressure_mg_levels_ksp_type", "richardson"},
            {"-pressure_mg_levels_ksp_richardson_scale", "0.6"},
            {"-pressure_mg_levels_pc_type", "jacobi"}}},
          {"gamg", {{"-pressure_pc_type", "gamg"}}},
          {"boomeramg", {{"-pressure_pc_type", "hypre"}, {"-pressure_pc_hypre_type", "boomeramg"}}},
          {"pfmg", {{"-pressure_pc_type", "pfmg"}}}};
}

/// Grid, mask and velocity of one case. Held by pointer: the mask and the field keep the
/// grid's address.
struct Problem {
  Grid grid;
  SolidMask solids;
  Field velocity;
};

std::unique_ptr<Problem> make_problem(int dim, std::array<long, 3> cells, Case c,
                                      double inflow = 1.0) {
  auto problem = std::make_unique<Problem>();
  GridConfig config;
  config.dim = dim;
  config.cells = cells;
  config.size = {1.0, 0.9, 1.1};
  config.halo = 1;
  EXPECT_EQ(problem->grid.setup(PETSC_COMM_WORLD, config, boundaries(c, inflow)), 0);
  EXPECT_EQ(problem->solids.setup(problem->grid, obstacles(c, dim)), 0);
  EXPECT_EQ(problem->velocity.setup_velocity(problem->grid), 0);
  return problem;
}

/// A smooth cell field with no symmetry the solver could exploit; on periodic axes it is
/// periodic so that the wrap is exercised with a smooth function.
double exact_pressure(const Grid& grid, PetscInt i, PetscInt j, PetscInt k) {
  double value = 1.0;
  const PetscInt index[3] = {i, j, k};
  for (int a = 0; a < grid.dim(); ++a) {
    const double x = (grid.cell_center(a, index[a]) - grid.origin(a)) / grid.length(a);
    value *= grid.periodic(a) ? std::sin(2.0 * M_PI * x + 0.3 * a) + 1.5
                              : std::cos(M_PI * x) + 0.25 * x * x;
  }
  return value;
}

/// The pressure of a cell as seen from a face: the cell's own value, or the Dirichlet ghost
/// -q(inside) beyond an outflow face.
double side_value(const Grid& grid, int c, PetscInt i, PetscInt j, PetscInt k, bool above) {
  const PetscInt index[3] = {i, j, k};
  const PetscInt n = grid.cells(c);
  const PetscInt cell[3] = {i - (!above && c == 0), j - (!above && c == 1),
                            k - (!above && c == 2)};
  if (!grid.periodic(c) && (cell[c] < 0 || cell[c] >= n)) {
    const PetscInt inside[3] = {i - (c == 0) * (index[c] == n), j - (c == 1) * (index[c] == n),
                                k - (c == 2) * (index[c] == n)};
    return -exact_pressure(grid, inside[0], inside[1], inside[2]);
  }
  const PetscInt wrapped[3] = {(cell[0] + grid.cells(0)) % grid.cells(0),
                               (cell[1] + grid.cells(1)) % grid.cells(1),
                               (cell[2] + grid.cells(2)) % grid.cells(2)};
  return exact_pressure(grid, wrapped[0], wrapped[1], wrapped[2]);
}

/// u* = dt G q on free faces, 0 on prescribed faces.
void set_potential_velocity(Problem& p, double dt) {
  const Grid& grid = p.grid;
  PetscScalar* data;
  ArrayView u;
  ASSERT_EQ(VecGetArray(p.velocity.global(), &data), 0);
  ASSERT_EQ(grid.global_view(p.velocity.dm(), data, &u), 0);
  for (int c = 0; c < grid.dim(); ++c) {
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (p.solids.fixed_face(c, i, j, k)) {
        u(i, j, k, c) = 0.0;
        return;
      }
      const double above = side_value(grid, c, i, j, k, true);
      const double below = side_value(grid, c, i, j, k, false);
      u(i, j, k, c) = dt * (above - below) / grid.spacing(c);
    });
  }
  ASSERT_EQ(VecRestoreArray(p.velocity.global(), &data), 0);
}

/// True if cell (i, j, k) has a free face, i.e. its pressure is an unknown of the solve.
bool coupled(const Problem& p, PetscInt i, PetscInt j, PetscInt k) {
  if (p.solids.solid(i, j, k)) return false;
  for (int c = 0; c < p.grid.dim(); ++c) {
    if (!p.solids.fixed_face(c, i, j, k)) return true;
    if (!p.solids.fixed_face(c, i + (c == 0), j + (c == 1), k + (c == 2))) return true;
  }
  return false;
}

double global_max(double local) {
  double result = 0.0;
  MPI_Allreduce(&local, &result, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  return result;
}

double global_sum_double(double local) {
  double result = 0.0;
  MPI_Allreduce(&local, &result, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
  return result;
}

double max_abs_velocity(const Problem& p) {
  PetscReal norm = 0.0;
  EXPECT_EQ(VecNorm(p.velocity.global(), NORM_INFINITY, &norm), 0);
  return norm;
}

struct RecoveryError {
  double pressure = 0.0;  // max over coupled cells of |p - q - mean(p - q)| / max |q|
  double velocity = 0.0;  // max |u| after / max |u*|
  double divergence = 0.0;
  PetscInt iterations = 0;
};

RecoveryError recover(int dim, std::array<long, 3> cells, Case c, const Options& options) {
  ScopedOptions scoped(options);
  // A prescribed inflow would add its flux to b; here every prescribed face carries 0.
  auto problem = make_problem(dim, cells, c, 0.0);
  Problem& p = *problem;
  const double dt = 0.05;
  SolverConfig config;
  config.rtol = 1e-12;
  config.atol = 1e-50;
  KrylovProjection projection;
  EXPECT_EQ(projection.setup(p.grid, p.solids, config), 0);
  set_potential_velocity(p, dt);
  const double u_before = max_abs_velocity(p);
  ProjectionStats stats;
  EXPECT_EQ(projection.project(p.velocity, dt, &stats), 0);

  // With a free level (no outflow face) p - q is a constant over the coupled cells; with an
  // outflow face the constant is 0 and subtracting the mean still gives the right error.
  const PetscScalar* data;
  ArrayView view;
  EXPECT_EQ(VecGetArrayRead(projection.pressure(), &data), 0);
  EXPECT_EQ(p.grid.global_view(p.grid.cell_dm(), const_cast<PetscScalar*>(data), &view), 0);
  double sum = 0.0, count = 0.0, q_max = 0.0;
  for_each_index(p.grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!coupled(p, i, j, k)) return;
    sum += view(i, j, k) - exact_pressure(p.grid, i, j, k);
    count += 1.0;
    q_max = std::max(q_max, std::abs(exact_pressure(p.grid, i, j, k)));
  });
  const double shift = global_sum_double(sum) / global_sum_double(count);
  const bool has_outflow = c == Case::Outflow || c == Case::Channel;
  double error = 0.0;
  for_each_index(p.grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!coupled(p, i, j, k)) return;
    const double offset = has_outflow ? 0.0 : shift;
    error = std::max(error, std::abs(view(i, j, k) - exact_pressure(p.grid, i, j, k) - offset));
  });
  EXPECT_EQ(VecRestoreArrayRead(projection.pressure(), &data), 0);

  RecoveryError result;
  result.pressure = global_max(error) / global_max(q_max);
  result.velocity = max_abs_velocity(p) / u_before;
  result.divergence = stats.max_divergence;
  result.iterations = stats.iterations;
  return result;
}

struct RecoveryCase {
  int dim;
  Case boundary;
  std::string pc;
};

// gtest prints parameters in failure messages; these make them readable.
void PrintTo(Case c, std::ostream* os) { *os << case_name(c); }
void PrintTo(const RecoveryCase& c, std::ostream* os) {
  *os << c.dim << "D " << case_name(c.boundary) << " " << c.pc;
}

class ExactRecovery : public ::testing::TestWithParam<RecoveryCase> {};

// With rtol 1e-12 the algebraic error of p is below cond(A) * 1e-12 ~ 1e-9 on these grids; the
// bounds leave room for the preconditioners' different residual histories.
TEST_P(ExactRecovery, ReturnsTheDiscretePotential) {
  const RecoveryCase param = GetParam();
  Options options;
  for (const auto& [name, opts] : preconditioners())
    if (name == param.pc) options = opts;
  // Sizes with few factors of two: PCMG gets two levels in 3D and three in 2D.
  const std::array<long, 3> cells =
      param.dim == 2 ? std::array<long, 3>{24, 20, 1} : std::array<long, 3>{12, 10, 14};
  const RecoveryError e = recover(param.dim, cells, param.boundary, options);
  EXPECT_LT(e.pressure, 1e-8) << "pressure error";
  EXPECT_LT(e.velocity, 1e-8) << "velocity left after projecting a gradient";
  EXPECT_LT(e.divergence, 1e-8) << "max |div u|";
  EXPECT_GT(e.iterations, 0);
}

std::vector<RecoveryCase> recovery_cases() {
  std::vector<RecoveryCase> cases;
  for (int dim : {2, 3})
    for (Case c : {Case::Walls, Case::Periodic, Case::Outflow, Case::Obstacle, Case::Cut,
                   Case::Channel})
      for (const auto& [name, options] : preconditioners()) cases.push_back({dim, c, name});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(
    Projection, ExactRecovery, ::testing::ValuesIn(recovery_cases()),
    [](const ::testing::TestParamInfo<RecoveryCase>& info) {
      std::string name = std::to_string(info.param.dim) + "d_" + case_name(info.param.boundary) +
                         "_" + info.param.pc;
      for (char& ch : name)
        if (ch == '-') ch = '_';
      return name;
    });

/// A deterministic rough value in [-1, 1].
double noise(PetscInt i, PetscInt j, PetscInt k, int c) {
  unsigned long h = static_cast<unsigned long>(((c * 131 + k) * 131 + j) * 131 + i) + 7;
  h = (h ^ (h >> 13)) * 0x9E3779B97F4A7C15UL;
  h ^= h >> 29;
  return static_cast<double>(h % 2001UL) / 1000.0 - 1.0;
}

/// u* = a sum of sines of the global face position plus the uniform stream of the channel,
/// with a little noise; prescribed domain faces hold what their boundary condition gives them
/// (fill_ghosts sets the Dirichlet faces). Solid faces are 0 (a static obstacle) in a closed
/// domain, whose net boundary flux must vanish; with an outflow face they keep an arbitrary
/// nonzero value, which the projection must not touch.
void set_rough_velocity(Problem& p, bool open) {
  const Grid& grid = p.grid;
  PetscScalar* data;
  ArrayView u;
  ASSERT_EQ(VecGetArray(p.velocity.global(), &data), 0);
  ASSERT_EQ(grid.global_view(p.velocity.dm(), data, &u), 0);
  for (int c = 0; c < grid.dim(); ++c) {
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      const double x = grid.sample_position(0, i, c), y = grid.sample_position(1, j, c),
                   z = grid.sample_position(2, k, c);
      u(i, j, k, c) = (c == 0 ? 1.0 : 0.0) + 0.7 * std::sin(2.0 * M_PI * (x + 2.0 * y) + c) +
                      0.4 * std::sin(M_PI * (3.0 * z - y + 0.5 * c)) * std::cos(5.0 * x) +
                      0.1 * noise(i, j, k, c);
      if (!open && p.solids.any() && p.solids.solid_face(c, i, j, k)) u(i, j, k, c) = 0.0;
    });
  }
  ASSERT_EQ(VecRestoreArray(p.velocity.global(), &data), 0);
  ASSERT_EQ(p.velocity.fill_ghosts(), 0);
}

/// Copies of the prescribed faces' values, in the owned-face loop order.
std::vector<double> prescribed_values(const Problem& p) {
  std::vector<double> values;
  const PetscScalar* data;
  ArrayView u;
  EXPECT_EQ(VecGetArrayRead(p.velocity.global(), &data), 0);
  EXPECT_EQ(p.grid.global_view(p.velocity.dm(), const_cast<PetscScalar*>(data), &u), 0);
  for (int c = 0; c < p.grid.dim(); ++c)
    for_each_index(p.grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (p.solids.fixed_face(c, i, j, k)) values.push_back(u(i, j, k, c));
    });
  EXPECT_EQ(VecRestoreArrayRead(p.velocity.global(), &data), 0);
  return values;
}

long count_changed(const std::vector<double>& before, const std::vector<double>& after) {
  long changed = before.size() == after.size() ? 0 : 1;
  for (size_t n = 0; n < std::min(before.size(), after.size()); ++n)
    if (before[n] != after[n]) ++changed;
  return changed;
}

class RoughField : public ::testing::TestWithParam<std::tuple<int, Case>> {};

// After the solve, div u = -dt (b - A p) cell by cell, so
//   max |div u| <= dt ||b - A p||_2 <= rtol dt ||b||_2 = rtol ||div u*||_2
// (the KSP tests the unpreconditioned residual against rtol ||b||); the gradient update adds
// round-off of a few ulps of |u| / h per face. The bound below is that sum.
TEST_P(RoughField, BecomesDivergenceFreeAndKeepsPrescribedFaces) {
  const auto [dim, c] = GetParam();
  const std::array<long, 3> cells =
      dim == 2 ? std::array<long, 3>{40, 36, 1} : std::array<long, 3>{16, 14, 12};
  auto problem = make_problem(dim, cells, c);
  Problem& p = *problem;
  SolverConfig config;  // the job default, rtol 1e-8
  KrylovProjection projection;
  ASSERT_EQ(projection.setup(p.grid, p.solids, config), 0);
  set_rough_velocity(p, c == Case::Channel);
  const std::vector<double> before = prescribed_values(p);

  // ||div u*||_2 over the fluid cells, and max |u*|, for the bound.
  double div_before = 0.0;
  ASSERT_EQ(max_divergence(p.velocity, p.solids, &div_before), 0);
  double cells_fluid = static_cast<double>(p.grid.total_cells() - p.solids.solid_cells());
  const double div_norm_bound = div_before * std::sqrt(cells_fluid);
  double h_min = p.grid.spacing(0);
  for (int a = 0; a < dim; ++a) h_min = std::min(h_min, p.grid.spacing(a));
  const double u_max = max_abs_velocity(p);

  ProjectionStats stats;
  ASSERT_EQ(projection.project(p.velocity, 0.02, &stats), 0);
  const double bound = config.rtol * div_norm_bound + 64.0 * 2.2e-16 * u_max / h_min;
  EXPECT_GT(div_before, 1.0) << "the test field must be far from divergence-free";
  EXPECT_LT(stats.max_divergence, bound) << "div before " << div_before;
  EXPECT_GT(stats.iterations, 0);
  EXPECT_LT(stats.iterations, 60);
  const long changed = test::global_sum(count_changed(before, prescribed_values(p)));
  EXPECT_EQ(changed, 0) << "prescribed faces changed by the projection";
}

INSTANTIATE_TEST_SUITE_P(Projection, RoughField,
                         ::testing::Combine(::testing::Values(2, 3),
                                            ::testing::Values(Case::Walls, Case::Periodic,
                                                              Case::Obstacle, Case::Cut,
                                                              Case::Channel)),
                         [](const ::testing::TestParamInfo<std::tuple<int, Case>>& info) {
                           return std::to_string(std::get<0>(info.param)) + "d_" +
                                  case_name(std::get<1>(info.param));
                         });

// A second projection of the projected field has nothing left to do; re-projecting the same u*
// starts from its own solution. Both must cost at most one iteration.
TEST(ProjectionWarmStart, SecondProjectionIsFree) {
  for (int dim : {2, 3}) {
    for (Case c : {Case::Walls, Case::Channel}) {
      const std::array<long, 3> cells =
          dim == 2 ? std::array<long, 3>{32, 28, 1} : std::array<long, 3>{12, 12, 10};
      auto problem = make_problem(dim, cells, c);
      Problem& p = *problem;
      KrylovProjection projection;
      ASSERT_EQ(projection.setup(p.grid, p.solids, SolverConfig{}), 0);
      set_rough_velocity(p, c == Case::Channel);
      OwnedVec saved;
      ASSERT_EQ(VecDuplicate(p.velocity.global(), saved.replace()), 0);
      ASSERT_EQ(VecCopy(p.velocity.global(), saved), 0);

      ProjectionStats first, same, again;
      ASSERT_EQ(projection.project(p.velocity, 0.02, &first), 0);
      // The same u* once more: the previous pressure is its solution.
      ASSERT_EQ(VecCopy(saved, p.velocity.global()), 0);
      ASSERT_EQ(projection.project(p.velocity, 0.02, &same), 0);
      // The projected field once more: already divergence-free, so nothing may change.
      ASSERT_EQ(VecCopy(p.velocity.global(), saved), 0);
      ASSERT_EQ(projection.project(p.velocity, 0.02, &again), 0);
      PetscBool unchanged = PETSC_FALSE;
      ASSERT_EQ(VecEqual(saved, p.velocity.global(), &unchanged), 0);
      EXPECT_GT(first.iterations, 1) << dim << "d " << case_name(c);
      EXPECT_LE(same.iterations, 1) << dim << "d " << case_name(c);
      EXPECT_LE(again.iterations, 1) << dim << "d " << case_name(c);
      EXPECT_LE(again.max_divergence, same.max_divergence * (1.0 + 1e-12));
      EXPECT_TRUE(unchanged) << "re-projecting a projected field changed it";
    }
  }
}

// pressure.max_divergence: the solve stops at the first iterate whose velocity is within the
// target in every fluid cell. So the projected field meets it (up to the round-off of the
// gradient update, as above), the iterate before does not, a looser target never takes more
// iterations, and re-projecting the result is free.
TEST(ProjectionDivergenceTarget, StopsAtTheFirstIterateWithinTheTarget) {
  for (int dim : {2, 3}) {
    for (Case c : {Case::Obstacle, Case::Channel}) {
      const std::array<long, 3> cells =
          dim == 2 ? std::array<long, 3>{40, 36, 1} : std::array<long, 3>{16, 14, 12};
      auto problem = make_problem(dim, cells, c);
      Problem& p = *problem;
      set_rough_velocity(p, c == Case::Channel);
      OwnedVec saved;
      ASSERT_EQ(VecDuplicate(p.velocity.global(), saved.replace()), 0);
      ASSERT_EQ(VecCopy(p.velocity.global(), saved), 0);
      double div_before = 0.0;
      ASSERT_EQ(max_divergence(p.velocity, p.solids, &div_before), 0);
      double h_min = p.grid.spacing(0);
      for (int a = 0; a < dim; ++a) h_min = std::min(h_min, p.grid.spacing(a));
      const double round_off = 64.0 * 2.2e-16 * max_abs_velocity(p) / h_min;
      const std::string what = std::to_string(dim) + "d " + case_name(c);

      PetscInt previous_iterations = 0;
      for (double fraction : {1e-2, 1e-4, 1e-7}) {
        SolverConfig config;
        config.max_divergence = fraction * div_before;
        ProjectionStats stats;
        {
          KrylovProjection projection;
          ASSERT_EQ(projection.setup(p.grid, p.solids, config), 0);
          ASSERT_EQ(VecCopy(saved, p.velocity.global()), 0);
          ASSERT_EQ(projection.project(p.velocity, 0.02, &stats), 0) << what;
          EXPECT_LE(stats.max_divergence, config.max_divergence + round_off)
              << what << ", target " << fraction << " of " << div_before;
          EXPECT_GE(stats.iterations, previous_iterations) << what << ", target " << fraction;
          previous_iterations = stats.iterations;

          ProjectionStats again;
          ASSERT_EQ(projection.project(p.velocity, 0.02, &again), 0);
          EXPECT_EQ(again.iterations, 0) << what << ": the projected field is within the target";
        }
        ASSERT_GT(stats.iterations, 0) << what;
        if (stats.iterations < 2) continue;
        // The same solve stopped one iteration earlier (PETSc's "skip" test runs exactly
        // max_it iterations and calls that converged) leaves a velocity above the target.
        const ScopedOptions earlier(
            {{"-pressure_ksp_convergence_test", "skip"},
             {"-pressure_ksp_max_it", std::to_string(stats.iterations - 1)}});
        KrylovProjection shorter;
        ASSERT_EQ(shorter.setup(p.grid, p.solids, SolverConfig{}), 0);
        ASSERT_EQ(VecCopy(saved, p.velocity.global()), 0);
        ProjectionStats early;
        ASSERT_EQ(shorter.project(p.velocity, 0.02, &early), 0);
        EXPECT_EQ(early.iterations, stats.iterations - 1);
        EXPECT_GT(early.max_divergence, config.max_divergence) << what << ", target " << fraction;
      }
    }
  }
}

// Cell counts that cannot be halved at all still work with PCMG (one level: an AMG coarse solve
// in 2D, where the grid is too large for LU, a direct solve in 3D) and with every other
// candidate.
TEST(ProjectionOddSizes, EveryPreconditionerConverges) {
  for (const auto& [name, options] : preconditioners()) {
    const RecoveryError e2 = recover(2, {67, 65, 1}, Case::Obstacle, options);
    EXPECT_LT(e2.pressure, 1e-8) << name;
    const RecoveryError e3 = recover(3, {9, 11, 7}, Case::Outflow, options);
    EXPECT_LT(e3.pressure, 1e-8) << name;
  }
}

}  // namespace
}  // namespace sf
