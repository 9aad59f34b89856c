// The matrix-free pressure operator and its multigrid levels (solvers/poisson_multigrid.hpp),
// against their definitions, on small grids at every rank count:
//   - the finest shell is the operator of krylov_projection.cpp's rules, assembled here
//     independently from the solid mask (compared on random vectors, which any differing entry
//     would show);
//   - every coarse level is half the Galerkin product (1/2) P^T A P of the level above it, with
//     P the interpolation shell (exact where no cell is decoupled: no obstacle);
//   - the restriction is the transpose of the interpolation, also where ranks own odd ranges
//     (3 ranks: the transfers then exchange);
//   - one application of the V-cycle is a symmetric operator, so it may precondition CG.
#include <gtest/gtest.h>

#include <petscksp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "krylov_setup.hpp"
#include "poisson_multigrid.hpp"
#include "test_boundaries.hpp"

namespace sf {
namespace {

using test::face;

struct Case {
  const char* name;
  int dim;
  std::array<long, 3> cells;
  BoundaryKind sides;          // every face but the outflow one
  bool outflow;                // the upper x face is an outflow face
  bool obstacle;               // a sphere and a box inside
  bool cut = false;            // the obstacles cut: fractional face weights on every level
};

const std::vector<Case>& cases() {
  static const std::vector<Case> list = {
      {"walls_2d", 2, {64, 64, 1}, BoundaryKind::NoSlip, false, false},
      {"periodic_2d", 2, {64, 128, 1}, BoundaryKind::Periodic, false, false},
      {"outflow_2d", 2, {64, 64, 1}, BoundaryKind::FreeSlip, true, false},
      {"obstacle_2d", 2, {64, 32, 1}, BoundaryKind::NoSlip, true, true},
      {"walls_3d", 3, {16, 16, 32}, BoundaryKind::NoSlip, false, false},
      {"periodic_3d", 3, {16, 32, 16}, BoundaryKind::Periodic, false, false},
      {"outflow_3d", 3, {32, 16, 16}, BoundaryKind::FreeSlip, true, false},
      {"obstacle_3d", 3, {16, 16, 16}, BoundaryKind::NoSlip, true, true},
      {"cut_2d", 2, {64, 32, 1}, BoundaryKind::NoSlip, true, true, true},
      {"cut_3d", 3, {16, 16, 16}, BoundaryKind::NoSlip, true, true, true},
      // Levels of 26 and 14 cells split over 2 ranks per axis give ranges of 13 and 7: the
      // coarser levels are not nested, on two axes at once (4 ranks), so transfers and the
      // set-up of coarse faces read edge ghosts.
      {"outflow_2d_odd", 2, {52, 52, 1}, BoundaryKind::FreeSlip, true, false},
      {"outflow_3d_odd", 3, {28, 28, 8}, BoundaryKind::FreeSlip, true, false},
  };
  return list;
}

struct Problem {
  Grid grid;
  SolidMask solids;
  OwnedDM dm;
  PoissonMultigrid multigrid;
};

std::unique_ptr<Problem> make_problem(const Case& c) {
  auto p = std::make_unique<Problem>();
  GridConfig config;
  config.dim = c.dim;
  config.cells = c.cells;
  config.size = {1.0, 0.8, 1.3};
  config.halo = 1;
  test::Boundaries b = test::all(c.sides);
  if (c.outflow) b[0][1] = face(BoundaryKind::Outflow);
  EXPECT_EQ(p->grid.setup(PETSC_COMM_WORLD, config, b), 0);
  std::vector<ObstacleConfig> obstacles;
  if (c.obstacle) {
    ObstacleConfig sphere;
    sphere.region.shape = Region::Shape::Sphere;
    sphere.region.center = {0.4, 0.35, c.dim == 3 ? 0.6 : 0.0};
    sphere.region.radius = 0.2;
    obstacles.push_back(sphere);
    ObstacleConfig box;
    box.region.shape = Region::Shape::Box;
    box.region.lower = {0.75, -0.1, -0.1};
    box.region.upper = {0.8, 0.5, 1.5};
    obstacles.push_back(box);
    if (c.cut)
      for (ObstacleConfig& obstacle : obstacles) obstacle.surface = ObstacleConfig::Surface::Cut;
  }
  EXPECT_EQ(p->solids.setup(p->grid, obstacles), 0);
  EXPECT_EQ(create_sample_dm(p->grid, -1, false, p->dm.replace(), DM_BOUNDARY_GHOSTED), 0);
  EXPECT_EQ(p->multigrid.setup(p->grid, p->solids, p->dm), 0);
  EXPECT_EQ(p->multigrid.update(), 0);
  return p;
}

/// The operator by its definition (krylov_projection.cpp): per free face F/h^2 on the diagonal
/// and -F/h^2 to the neighbour (F the face's open fraction), 2F/h^2 on the diagonal for an
/// outflow face, and d p = 0 with
/// d = sum 2/h^2 for a cell that no free face couples.
PetscErrorCode reference_operator(const Problem& p, Mat* A) {
  PetscFunctionBeginUser;
  const Grid& g = p.grid;
  PetscCall(DMSetMatType(p.dm, MATAIJ));
  PetscCall(DMCreateMatrix(p.dm, A));
  double decoupled = 0.0;
  for (int a = 0; a < g.dim(); ++a) decoupled += 2.0 / (g.spacing(a) * g.spacing(a));
  PetscErrorCode status = 0;
  for_each_index(g.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (status) return;
    MatStencil row{k, j, i, 0}, cols[7];
    PetscScalar values[7];
    PetscInt count = 1;
    cols[0] = row;
    values[0] = 0.0;
    bool coupled = false;
    for (int a = 0; a < g.dim(); ++a)
      for (int side = 0; side < 2; ++side) {
        std::array<PetscInt, 3> f{i, j, k};
        f[a] += side;
        if (p.solids.fixed_face(a, f[0], f[1], f[2])) continue;
        coupled = true;
        const double w =
            p.solids.face_fraction(a, f[0], f[1], f[2]) / (g.spacing(a) * g.spacing(a));
        if (!g.periodic(a) && (f[a] == 0 || f[a] == g.cells(a))) {
          values[0] += 2.0 * w;
          continue;
        }
        std::array<PetscInt, 3> n{i, j, k};
        n[a] += side == 0 ? -1 : 1;
        values[0] += w;
        cols[count] = MatStencil{n[2], n[1], n[0], 0};
        values[count++] = -w;
      }
    if (!coupled || p.solids.solid(i, j, k)) {
      count = 1;
      values[0] = decoupled;
    }
    status = MatSetValuesStencil(*A, 1, &row, count, cols, values, ADD_VALUES);
  });
  PetscCall(status);
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/// A random vector, the same on every rank count for a given seed (set from the global index).
void randomise(Vec v, unsigned seed) {
  PetscInt lo, hi;
  EXPECT_EQ(VecGetOwnershipRange(v, &lo, &hi), 0);
  PetscScalar* data;
  EXPECT_EQ(VecGetArray(v, &data), 0);
  for (PetscInt n = lo; n < hi; ++n) {
    std::mt19937 engine(seed * 7919u + static_cast<unsigned>(n));
    data[n - lo] = std::uniform_real_distribution<double>(-1.0, 1.0)(engine);
  }
  EXPECT_EQ(VecRestoreArray(v, &data), 0);
}

/// max over a few random vectors v of ||apply_a(v) - apply_b(v)||_inf / ||apply_b(v)||_inf: two
/// operators that differ in any entry differ on a random vector.
template <typename A, typename B>
double relative_difference(Vec like, A&& apply_a, B&& apply_b) {
  double worst = 0.0;
  for (unsigned seed = 10; seed < 14; ++seed) {
    OwnedVec v, a, b;
    EXPECT_EQ(VecDuplicate(like, v.replace()), 0);
    randomise(v, seed);
    apply_a(v.get(), a.replace());
    apply_b(v.get(), b.replace());
    PetscReal scale = 0.0, diff = 0.0;
    EXPECT_EQ(VecNorm(b, NORM_INFINITY, &scale), 0);
    EXPECT_EQ(VecAXPY(a, -1.0, b), 0);
    EXPECT_EQ(VecNorm(a, NORM_INFINITY, &diff), 0);
    worst = std::max(worst, static_cast<double>(diff / scale));
  }
  return worst;
}

/// y = A x into a new vector.
void multiply(Mat A, Vec x, Vec* y) {
  EXPECT_EQ(MatCreateVecs(A, nullptr, y), 0);
  EXPECT_EQ(MatMult(A, x, *y), 0);
}

class PoissonMultigridTest : public ::testing::TestWithParam<Case> {};

TEST_P(PoissonMultigridTest, FinestShellIsTheOperatorOfTheRules) {
  auto p = make_problem(GetParam());
  OwnedMat reference;
  ASSERT_EQ(reference_operator(*p, reference.replace()), 0);
  OwnedVec like;
  ASSERT_EQ(MatCreateVecs(reference, like.replace(), nullptr), 0);
  auto by_reference = [&](Vec x, Vec* y) { multiply(reference, x, y); };
  EXPECT_LE(relative_difference(
                like, [&](Vec x, Vec* y) { multiply(p->multigrid.fine_operator(), x, y); },
                by_reference),
            1e-14);
  // The smoothers' copy of the finest operator is the same operator.
  const int finest = p->multigrid.levels() - 1;
  EXPECT_LE(relative_difference(
                like,
                [&](Vec x, Vec* y) { multiply(p->multigrid.level_operator(finest), x, y); },
                by_reference),
            1e-14);
  // So is its diagonal (Jacobi or Chebyshev smoothers read it: -pressure_mg_levels_pc_type).
  OwnedVec shell_diagonal, reference_diagonal;
  ASSERT_EQ(VecDuplicate(like, shell_diagonal.replace()), 0);
  ASSERT_EQ(VecDuplicate(like, reference_diagonal.replace()), 0);
  ASSERT_EQ(MatGetDiagonal(p->multigrid.fine_operator(), shell_diagonal), 0);
  ASSERT_EQ(MatGetDiagonal(reference, reference_diagonal), 0);
  PetscReal scale = 0.0, diff = 0.0;
  ASSERT_EQ(VecNorm(reference_diagonal, NORM_INFINITY, &scale), 0);
  ASSERT_EQ(VecAXPY(shell_diagonal, -1.0, reference_diagonal), 0);
  ASSERT_EQ(VecNorm(shell_diagonal, NORM_INFINITY, &diff), 0);
  EXPECT_LE(diff, 1e-14 * scale);
}

// Solid cells are decoupled rows d p = 0, which the coarse levels leave out of their faces (a
// solid coarse cell gets its own decoupled row), so the identity is checked without obstacles.
class GalerkinTest : public ::testing::TestWithParam<Case> {};

TEST_P(GalerkinTest, CoarseLevelsAreHalfTheGalerkinProduct) {
  auto p = make_problem(GetParam());
  ASSERT_GE(p->multigrid.levels(), 3) << "the case must be coarsened at least twice";
  for (int level = p->multigrid.levels() - 1; level > 0; --level) {
    Mat fine = p->multigrid.level_operator(level);
    Mat coarse = p->multigrid.level_operator(level - 1);
    Mat P = p->multigrid.interpolation(level);
    OwnedVec like;
    ASSERT_EQ(MatCreateVecs(coarse, like.replace(), nullptr), 0);
    auto galerkin = [&](Vec x, Vec* y) {
      OwnedVec Px, APx;
      multiply(P, x, Px.replace());
      multiply(fine, Px, APx.replace());
      EXPECT_EQ(MatCreateVecs(P, y, nullptr), 0);
      EXPECT_EQ(MatMultTranspose(P, APx, *y), 0);
      EXPECT_EQ(VecScale(*y, 0.5), 0);
    };
    EXPECT_LE(relative_difference(like, [&](Vec x, Vec* y) { multiply(coarse, x, y); },
                                  galerkin),
              1e-14)
        << "level " << level;
  }
}

TEST_P(PoissonMultigridTest, RestrictionIsTheTransposeOfInterpolation) {
  auto p = make_problem(GetParam());
  for (int level = p->multigrid.levels() - 1; level > 0; --level) {
    Mat P = p->multigrid.interpolation(level);
    OwnedVec coarse, fine, Pc, Rf;
    ASSERT_EQ(MatCreateVecs(P, coarse.replace(), fine.replace()), 0);
    ASSERT_EQ(VecDuplicate(fine, Pc.replace()), 0);
    ASSERT_EQ(VecDuplicate(coarse, Rf.replace()), 0);
    randomise(coarse, 1);
    randomise(fine, 2);
    ASSERT_EQ(MatMult(P, coarse, Pc), 0);
    ASSERT_EQ(MatMultTranspose(P, fine, Rf), 0);
    PetscScalar left = 0.0, right = 0.0;
    ASSERT_EQ(VecDot(Pc, fine, &left), 0);
    ASSERT_EQ(VecDot(coarse, Rf, &right), 0);
    EXPECT_NEAR(left, right, 1e-12 * std::abs(left)) << "level " << level;
    // Interpolation of a constant is that constant; restriction sums 2^dim cells (away from
    // solid cells, which both skip).
    if (GetParam().obstacle) continue;
    ASSERT_EQ(VecSet(coarse, 1.0), 0);
    ASSERT_EQ(MatMult(P, coarse, Pc), 0);
    PetscReal low = 0.0, high = 0.0;
    ASSERT_EQ(VecMin(Pc, nullptr, &low), 0);
    ASSERT_EQ(VecMax(Pc, nullptr, &high), 0);
    EXPECT_EQ(low, 1.0);
    EXPECT_EQ(high, 1.0);
    ASSERT_EQ(VecSet(fine, 1.0), 0);
    ASSERT_EQ(MatMultTranspose(P, fine, Rf), 0);
    ASSERT_EQ(VecMin(Rf, nullptr, &low), 0);
    ASSERT_EQ(VecMax(Rf, nullptr, &high), 0);
    EXPECT_EQ(low, GetParam().dim == 3 ? 8.0 : 4.0);
    EXPECT_EQ(high, low);
  }
}

TEST_P(PoissonMultigridTest, VCycleIsSymmetric) {
  auto p = make_problem(GetParam());
  OwnedKSP ksp;
  ASSERT_EQ(KSPCreate(PETSC_COMM_WORLD, ksp.replace()), 0);
  ASSERT_EQ(KSPSetOperators(ksp, p->multigrid.fine_operator(), p->multigrid.fine_operator()), 0);
  PC pc;
  ASSERT_EQ(KSPGetPC(ksp, &pc), 0);
  ASSERT_EQ(p->multigrid.configure(pc), 0);
  ASSERT_EQ(KSPSetUp(ksp), 0);
  OwnedVec x, y, Mx, My;
  ASSERT_EQ(MatCreateVecs(p->multigrid.fine_operator(), x.replace(), y.replace()), 0);
  ASSERT_EQ(VecDuplicate(x, Mx.replace()), 0);
  ASSERT_EQ(VecDuplicate(x, My.replace()), 0);
  randomise(x, 3);
  randomise(y, 4);
  if (!GetParam().outflow) {
    // The operator is singular (closed box): CG only ever hands the preconditioner vectors
    // without a constant part, and only on those is the coarse solve's shifted pivot silent.
    PetscScalar mean = 0.0;
    PetscInt n = 0;
    for (Vec v : {x.get(), y.get()}) {
      ASSERT_EQ(VecSum(v, &mean), 0);
      ASSERT_EQ(VecGetSize(v, &n), 0);
      ASSERT_EQ(VecShift(v, -mean / static_cast<double>(n)), 0);
    }
  }
  ASSERT_EQ(PCApply(pc, x, Mx), 0);
  ASSERT_EQ(PCApply(pc, y, My), 0);
  PetscScalar left = 0.0, right = 0.0;
  PetscReal norm_Mx = 0.0, norm_y = 0.0;
  ASSERT_EQ(VecDot(Mx, y, &left), 0);
  ASSERT_EQ(VecDot(x, My, &right), 0);
  ASSERT_EQ(VecNorm(Mx, NORM_2, &norm_Mx), 0);
  ASSERT_EQ(VecNorm(y, NORM_2, &norm_y), 0);
  EXPECT_NEAR(left, right, 1e-12 * norm_Mx * norm_y);
  // Positive: the preconditioned direction of x points along x.
  PetscScalar xMx = 0.0;
  ASSERT_EQ(VecDot(x, Mx, &xMx), 0);
  EXPECT_GT(xMx, 0.0);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }

std::vector<Case> cases_without_obstacles() {
  std::vector<Case> list;
  for (const Case& c : cases())
    if (!c.obstacle) list.push_back(c);
  return list;
}

INSTANTIATE_TEST_SUITE_P(Cases, PoissonMultigridTest, ::testing::ValuesIn(cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Cases, GalerkinTest, ::testing::ValuesIn(cases_without_obstacles()),
                         case_name);

}  // namespace
}  // namespace sf
