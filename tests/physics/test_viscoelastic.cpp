// Viscoelastic fluids (viscoelastic.hpp; Goktekin et al. 2004, Cline et al. §8), the module's
// stages on a grid (test::ModuleBench, no solvers): the strain rate is exact for a linear
// velocity, the yield pulls a strain beyond the yield point back by exactly the paper's step and
// leaves one below it alone, the force of a uniform strain is zero and that of a linear strain its
// constant divergence, with a liquid the strain lives in its cells, and the stage gives the same
// bits on any number of ranks and layouts. That a deformed blob of material springs back when it
// is elastic and keeps its new shape when it yields takes whole steps with the projection and the
// viscosity: tests/app/test_viscoelastic_steps.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "job.hpp"
#include "module_bench.hpp"
#include "mpi_test_util.hpp"
#include "vec_array.hpp"
#include "viscoelastic.hpp"
#include "viscoelastic_case.hpp"

namespace sf {
namespace {

using test::viscoelastic::box_job;

/// Sets every owned face of the velocity's global vector to u_c(x), and fills its ghosts.
PetscErrorCode set_velocity(Field& velocity,
                            const std::function<double(int c, const double x[3])>& u) {
  PetscFunctionBeginUser;
  const Grid& grid = velocity.grid();
  WriteArray view;
  PetscCall(view.get_global(velocity));
  for (int c = 0; c < grid.dim(); ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      double x[3];
      grid.face_center(c, i, j, k, x);
      view(i, j, k, c) = u(c, x);
    });
  PetscCall(view.restore());  // before the ghosts read the global vector
  PetscCall(velocity.fill_ghosts());
  PetscFunctionReturn(0);
}

/// Sets every owned cell of a scalar's global vector to s(x), and fills its ghosts.
PetscErrorCode set_scalar(Field& scalar, const std::function<double(const double x[3])>& s) {
  PetscFunctionBeginUser;
  const Grid& grid = scalar.grid();
  WriteArray view;
  PetscCall(view.get_global(scalar));
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const double x[3] = {grid.cell_center(0, i), grid.cell_center(1, j), grid.cell_center(2, k)};
    view(i, j, k) = s(x);
  });
  PetscCall(view.restore());  // before the ghosts read the global vector
  PetscCall(scalar.fill_ghosts());
  PetscFunctionReturn(0);
}

/// Calls f(i, j, k, value) for every owned value in `box` of a field's global vector (a scalar,
/// or the component `c` of the velocity).
template <typename F>
PetscErrorCode for_each_owned(const Field& field, int c, const IndexBox& box, F&& f) {
  PetscFunctionBeginUser;
  ReadArray view;
  PetscCall(view.get_global(field));
  for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) { f(i, j, k, view(i, j, k, c)); });
  PetscFunctionReturn(0);
}

/// True when cell (i, j, k) and all its neighbours one cell away lie inside the domain: where
/// the boundaries' ghost values (which continue a field evenly, not linearly) do not reach.
bool interior(const Grid& grid, PetscInt i, PetscInt j, PetscInt k) {
  const PetscInt at[3] = {i, j, k};
  for (int a = 0; a < grid.dim(); ++a)
    if (at[a] < 1 || at[a] > grid.cells(a) - 2) return false;
  return true;
}

// (1) u = A x: E grows by dt D, D = (A + A^T)/2, in every cell away from the walls, step after
// step (two steps: 2 dt D), to rounding (the differences of A x over h are exact up to it).
void check_strain_rate(int dim) {
  const std::array<std::array<double, 3>, 3> A = {
      {{0.7, -1.3, 0.4}, {2.1, -0.2, -0.9}, {0.5, 1.7, -0.5}}};
  const JobConfig job =
      parse_job(box_job("rate" + std::to_string(dim), dim, 12, "elastic_modulus: 1", "", 1.0),
                "rate.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  ASSERT_EQ(set_velocity(bench.velocity(),
                         [&](int c, const double x[3]) {
                           double u = 0.0;
                           for (int d = 0; d < dim; ++d) u += A[c][d] * x[d];
                           return u;
                         }),
            0);
  const double dt = 0.01;
  Viscoelastic& elastic = *bench.part<Viscoelastic>();
  for (int steps = 1; steps <= 2; ++steps) {
    ASSERT_EQ(elastic.update_strain(bench.velocity(), bench.scalars(), dt), 0);
    long wrong = 0;
    double worst = 0.0;
    for (int a = 0; a < dim; ++a)
      for (int b = a; b < dim; ++b) {
        const double expected = steps * dt * 0.5 * (A[a][b] + A[b][a]);
        const Field& e = bench.scalars()[static_cast<size_t>(elastic.strain_index(a, b))];
        ASSERT_EQ(for_each_owned(e, 0, bench.grid().owned_cells(),
                                 [&](PetscInt i, PetscInt j, PetscInt k, double value) {
                                   if (!interior(bench.grid(), i, j, k)) return;
                                   worst = std::max(worst, std::abs(value - expected));
                                   if (std::abs(value - expected) > 1e-14) ++wrong;
                                 }),
                  0);
      }
    EXPECT_EQ(test::global_sum(wrong), 0) << "after " << steps << " steps, worst error "
                                          << test::global_max(worst);
  }
}

TEST(Viscoelastic, StrainGrowsByDtTimesTheStrainRateOfALinearVelocity2D) { check_strain_rate(2); }
TEST(Viscoelastic, StrainGrowsByDtTimesTheStrainRateOfALinearVelocity3D) { check_strain_rate(3); }

// With a liquid and no `material`, the liquid is the material: its cells (phi < 0) gain dt D,
// the air's keep E = 0 exactly, whatever the velocity there. The level set comes after the
// strain among the run's scalars.
TEST(Viscoelastic, WithALiquidTheStrainLivesInTheLiquidCells) {
  const std::array<std::array<double, 3>, 3> A = {{{0.7, -1.3, 0}, {2.1, -0.2, 0}, {0, 0, 0}}};
  const JobConfig job = parse_job(
      "name: liquid\n"
      "grid: {cells: [12, 12]}\n"
      "boundary: {x: free-slip, y: free-slip}\n"
      "advection: {interpolation: monotone_cubic}\n"
      "liquid: {interface: level_set, initial: [{shape: box, lower: [-1, -1], upper: [2, 0.5]}],"
      " particles: {per_cell: 0}}\n"
      "viscoelastic: {elastic_modulus: 1}\n"
      "time: {dt: 0.01, end: 1}\n"
      "output: {directory: test_viscoelastic_liquid, overwrite: true, initial_frame: false}\n",
      "liquid.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  Viscoelastic& elastic = *bench.part<Viscoelastic>();
  ASSERT_EQ(bench.scalars().size(), 4u);  // strain_xx, strain_yy, strain_xy, phi
  EXPECT_EQ(bench.scalars()[static_cast<size_t>(elastic.strain_index(0, 1))].name(),
            "strain_xy");
  EXPECT_EQ(bench.scalars().back().name(), LiquidConfig::kLevelSetName);
  ASSERT_EQ(set_velocity(bench.velocity(),
                         [&](int c, const double x[3]) { return A[c][0] * x[0] + A[c][1] * x[1]; }),
            0);
  const double dt = 0.01;
  ASSERT_EQ(elastic.update_strain(bench.velocity(), bench.scalars(), dt), 0);
  const Grid& grid = bench.grid();
  std::vector<double> phi;
  ASSERT_EQ(for_each_owned(bench.scalars().back(), 0, grid.owned_cells(),
                           [&](PetscInt, PetscInt, PetscInt, double value) {
                             phi.push_back(value);
                           }),
            0);
  long wrong = 0, liquid = 0, air = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = a; b < 2; ++b) {
      const double expected = dt * 0.5 * (A[a][b] + A[b][a]);
      size_t cell = 0;
      ASSERT_EQ(for_each_owned(bench.scalars()[static_cast<size_t>(elastic.strain_index(a, b))],
                               0, grid.owned_cells(),
                               [&](PetscInt i, PetscInt j, PetscInt k, double value) {
                                 if (phi[cell++] >= 0.0) {
                                   ++air;
                                   if (value != 0.0) ++wrong;
                                 } else if (interior(grid, i, j, k)) {
                                   ++liquid;
                                   if (std::abs(value - expected) > 1e-14) ++wrong;
                                 }
                               }),
                0);
    }
  EXPECT_EQ(test::global_sum(wrong), 0);
  // Both kinds of cell were there to check: 12 x 6 of each, the liquid's 10 x 5 inner ones.
  EXPECT_EQ(test::global_sum(air), 3 * 72);
  EXPECT_EQ(test::global_sum(liquid), 3 * 50);
}

// (2) The yield, in 2D with the velocity at rest (D = 0): E_xx = 0.3, E_yy = -0.1, E_xy = 0.2
// has |E| = sqrt(0.3^2 + 0.1^2 + 2 * 0.2^2) = sqrt(0.18) > k_yp = 0.2 and becomes
// E (1 - dt k_yr (|E| - k_yp) / |E|); one with |E| < k_yp keeps its bits; outside the material
// E is set to 0 (E_xy on an edge with a cell outside it about). dt k_yr = 0.5 (< 1: the paper's step, unclamped). A step with dt k_yr = 2 lands
// a strain beyond the yield point on the yield surface, |E| = k_yp, not through zero.
TEST(Viscoelastic, YieldPullsStrainBeyondTheYieldPointBackByThePapersStep) {
  const double yield_point = 0.2, yield_rate = 50.0;
  const JobConfig job = parse_job(
      box_job("yield", 2, 32, "elastic_modulus: 1, yield_point: 0.2, yield_rate: 50"),
      "yield.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  ASSERT_EQ(set_velocity(bench.velocity(), [](int, const double*) { return 0.0; }), 0);
  Viscoelastic& elastic = *bench.part<Viscoelastic>();
  std::vector<Field>& scalars = bench.scalars();
  Field& xx = scalars[static_cast<size_t>(elastic.strain_index(0, 0))];
  Field& yy = scalars[static_cast<size_t>(elastic.strain_index(1, 1))];
  Field& xy = scalars[static_cast<size_t>(elastic.strain_index(0, 1))];
  // Above the yield point left of x = 0.5, below it right of it; the disc is the material.
  const auto left = [](const double x[3]) { return x[0] < 0.5; };
  const double big[3] = {0.3, -0.1, 0.2}, small[3] = {0.1, -0.05, 0.08};
  for (const double dt : {0.01, 0.04}) {
    ASSERT_EQ(set_scalar(xx, [&](const double x[3]) { return left(x) ? big[0] : small[0]; }), 0);
    ASSERT_EQ(set_scalar(yy, [&](const double x[3]) { return left(x) ? big[1] : small[1]; }), 0);
    ASSERT_EQ(set_scalar(xy, [&](const double x[3]) { return left(x) ? big[2] : small[2]; }), 0);
    ASSERT_EQ(elastic.update_strain(bench.velocity(), scalars, dt), 0);
    const double norm = std::sqrt(big[0] * big[0] + big[1] * big[1] + 2.0 * big[2] * big[2]);
    const double keep = 1.0 - std::min(1.0, dt * yield_rate) * (norm - yield_point) / norm;
    if (dt * yield_rate > 1.0) {
      EXPECT_NEAR(keep * norm, yield_point, 1e-15);
    }
    const Field& material = scalars[0];
    std::vector<double> inside;
    ASSERT_EQ(for_each_owned(material, 0, bench.grid().owned_cells(),
                             [&](PetscInt, PetscInt, PetscInt, double m) { inside.push_back(m); }),
              0);
    // |E| at a place reads the entries stored elsewhere as the means of the nearest (E_xy on
    // the edges, the diagonal at the centres): checked where all of them lie on one side of
    // x = 0.5 and well inside the disc (radius 0.25 about the box's centre), so that they
    // assemble the tensor set there.
    const Grid& grid = bench.grid();
    const double h = grid.spacing(0);
    const auto one_side = [&](PetscInt i, PetscInt j) {
      const double x[2] = {grid.cell_center(0, i), grid.cell_center(1, j)};
      const bool side = left(x);
      for (PetscInt di = -1; di <= 1; ++di) {
        const double xi[2] = {grid.cell_center(0, i + di), x[1]};
        if (left(xi) != side) return false;
      }
      return std::hypot(x[0] - 0.5, x[1] - 0.5) < 0.25 - 2.0 * h;
    };
    long wrong = 0, checked = 0;
    const Field* fields[3] = {&xx, &yy, &xy};
    for (int n = 0; n < 3; ++n) {
      size_t cell = 0;
      ASSERT_EQ(for_each_owned(*fields[n], 0, grid.owned_cells(),
                               [&](PetscInt i, PetscInt j, PetscInt, double value) {
                                 const bool material_cell = inside[cell++] >= 0.5;
                                 const double x = grid.cell_center(0, i);
                                 if (!material_cell) {
                                   wrong += value != 0.0;
                                   return;
                                 }
                                 if (!one_side(i, j)) return;
                                 ++checked;
                                 wrong += value != (x < 0.5 ? keep * big[n] : small[n]);
                               }),
                0);
    }
    EXPECT_EQ(test::global_sum(wrong), 0) << "dt " << dt;
    // Both sides were there to check: 264 places of the three entries (88 each), 3 x 2 x 30
    // at least.
    EXPECT_GE(test::global_sum(checked), 3 * 2 * 30) << "dt " << dt;
  }
}

// (3) The force k_em div E: none at all for a uniform strain (every face keeps its bits, the
// walls' faces included: the ghosts continue a uniform E evenly), and for a linear strain its
// constant divergence, (div E)_a = sum_b dE_ab/dx_b, on every face away from the walls.
void check_force(int dim) {
  const double modulus = 3.0, dt = 0.01;
  const JobConfig job = parse_job(
      box_job("force" + std::to_string(dim), dim, 10, "elastic_modulus: 3", "", 1.0),
      "force.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  Viscoelastic& elastic = *bench.part<Viscoelastic>();
  std::vector<Field>& scalars = bench.scalars();
  const Grid& grid = bench.grid();
  // dE_ab/dx_d = G[a][b][d] (symmetric in a, b), and a constant part.
  double G[3][3][3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      for (int d = 0; d < 3; ++d) G[a][b][d] = 0.1 * (1 + a + b) - 0.37 * d + 0.05 * a * b * d;
  for (const bool uniform : {true, false}) {
    SCOPED_TRACE(uniform ? "uniform strain" : "linear strain");
    ASSERT_EQ(set_velocity(bench.velocity(), [](int, const double*) { return 0.0; }), 0);
    for (int a = 0; a < dim; ++a)
      for (int b = a; b < dim; ++b)
        ASSERT_EQ(set_scalar(scalars[static_cast<size_t>(elastic.strain_index(a, b))],
                             [&](const double x[3]) {
                               double e = 0.2 + 0.1 * a - 0.3 * b;
                               if (!uniform)
                                 for (int d = 0; d < dim; ++d) e += G[a][b][d] * x[d];
                               return e;
                             }),
                  0);
    ASSERT_EQ(elastic.add_force(scalars, bench.velocity(), dt), 0);
    long wrong = 0;
    double worst = 0.0;
    for (int a = 0; a < dim; ++a) {
      double divergence = 0.0;
      for (int b = 0; b < dim; ++b) divergence += G[a][b][b];
      const double expected = uniform ? 0.0 : dt * modulus * divergence;
      ASSERT_EQ(for_each_owned(bench.velocity(), a, grid.owned_faces(a),
                               [&](PetscInt i, PetscInt j, PetscInt k, double u) {
                                 if (uniform) {
                                   if (u != 0.0) ++wrong;
                                   return;
                                 }
                                 // Both cells of the face away from the walls.
                                 PetscInt lower[3] = {i, j, k};
                                 lower[a] -= 1;
                                 if (!interior(grid, i, j, k) ||
                                     !interior(grid, lower[0], lower[1], lower[2]))
                                   return;
                                 worst = std::max(worst, std::abs(u - expected));
                                 if (std::abs(u - expected) > 1e-14) ++wrong;
                               }),
                0);
    }
    EXPECT_EQ(test::global_sum(wrong), 0) << "worst error " << test::global_max(worst);
  }
}

TEST(Viscoelastic, ForceIsZeroForUniformStrainAndTheDivergenceOfALinearOne2D) { check_force(2); }
TEST(Viscoelastic, ForceIsZeroForUniformStrainAndTheDivergenceOfALinearOne3D) { check_force(3); }

// (3b) The grid-scale shear, u_x = eps (-1)^j (alternating from one row of cells to the next),
// v = 0, material everywhere, E = 0: the strain on the edges (Goktekin et al.'s places) sees
// it, E_xy = dt eps (-1)^j / h, and pushes back on it by the force's compact difference, so one
// stage takes u_x to eps (-1)^j (1 - 2 k_em dt^2 / h^2) on the faces away from the walls. A
// strain at the cell centres, with centred differences across the rows, is blind to it: its
// D_xy averages two rows of one sign against two of the other, and u_x keeps its bits.
TEST(Viscoelastic, TheEdgeStrainPushesBackOnTheGridScaleShear) {
  const long n = 16;
  const JobConfig job =
      parse_job(box_job("zigzag", 2, n, "elastic_modulus: 3", "", 1.0), "zigzag.yaml");
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  const Grid& grid = bench.grid();
  const double h = grid.spacing(1), eps = 0.01, dt = 0.002, modulus = 3.0;
  const auto sign = [&](PetscInt j) { return j % 2 == 0 ? 1.0 : -1.0; };
  ASSERT_EQ(set_velocity(bench.velocity(),
                         [&](int c, const double x[3]) {
                           const auto j = static_cast<PetscInt>(std::floor(x[1] / h));
                           return c == 0 ? eps * sign(j) : 0.0;
                         }),
            0);
  Viscoelastic& elastic = *bench.part<Viscoelastic>();
  ASSERT_EQ(elastic.apply(bench.velocity(), bench.scalars(), dt), 0);
  const double kept = 1.0 - 2.0 * modulus * dt * dt / (h * h);
  long wrong = 0, checked = 0;
  double worst = 0.0;
  ASSERT_EQ(for_each_owned(bench.velocity(), 0, grid.owned_faces(0),
                           [&](PetscInt i, PetscInt j, PetscInt, double u) {
                             // Away from the walls: the rows either side exist, and the
                             // cells' E_xx (zero in the interior) feels no wall.
                             if (j < 1 || j > n - 2 || i < 2 || i > n - 2) return;
                             ++checked;
                             const double expected = eps * sign(j) * kept;
                             worst = std::max(worst, std::abs(u - expected));
                             wrong += std::abs(u - expected) > 1e-15;
                           }),
            0);
  EXPECT_EQ(test::global_sum(wrong), 0) << "worst error " << test::global_max(worst);
  EXPECT_EQ(test::global_sum(checked), (n - 3) * (n - 2));
}

// (4) The stage is local but for the material's and the strain's halo exchanges: from the same state (a smooth
// velocity, a smooth strain, the disc of material) it gives the same bits of velocity and strain
// on any number of ranks and process layouts as on one rank alone (a reference on
// PETSC_COMM_SELF, as test_forces' check_invariance does).
/// 0 if the owned values of component c of `field` equal, bit for bit, those of `reference` (a
/// one-rank copy of the same grid) at the same indices; else how many differ.
long count_differences(const Field& field, const Field& reference, int c, const IndexBox& box) {
  ReadArray view, reference_view;
  if (view.get_global(field) || reference_view.get_global(reference)) return 1;
  long wrong = 0;
  for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
    const double a = view(i, j, k, c), b = reference_view(i, j, k, c);
    if (std::memcmp(&a, &b, sizeof a) != 0) ++wrong;
  });
  return wrong;
}

/// The state of the invariance check, then the stage over dt.
PetscErrorCode prepare_and_apply(test::ModuleBench& bench, int dim) {
  PetscFunctionBeginUser;
  Viscoelastic& elastic = *bench.part<Viscoelastic>();
  PetscCall(set_velocity(bench.velocity(), [](int c, const double x[3]) {
    return std::sin(3.0 * x[0] + c) * std::cos(2.0 * x[1] - c) + 0.3 * std::sin(5.0 * x[2]);
  }));
  for (int a = 0; a < dim; ++a)
    for (int b = a; b < dim; ++b)
      PetscCall(set_scalar(bench.scalars()[static_cast<size_t>(elastic.strain_index(a, b))],
                           [&](const double x[3]) {
                             return 0.1 * std::cos(4.0 * x[0] + a) * std::sin(3.0 * x[1] + b) +
                                    0.05 * x[2];
                           }));
  PetscCall(elastic.apply(bench.velocity(), bench.scalars(), 0.01));
  PetscFunctionReturn(0);
}

void check_invariance(int dim) {
  const std::string ve = "elastic_modulus: 2, yield_point: 0.05, yield_rate: 20";
  const JobConfig reference_job =
      parse_job(box_job("same" + std::to_string(dim), dim, 12, ve), "same.yaml");
  test::ModuleBench reference;
  ASSERT_EQ(reference.setup(PETSC_COMM_SELF, reference_job), 0);
  ASSERT_EQ(prepare_and_apply(reference, dim), 0);
  const PetscInt size = test::comm_size();
  std::vector<std::pair<const char*, std::array<PetscInt, 3>>> layouts = {
      {"default", {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}},
      {"slabs along x", {size, 1, 1}},
      {"slabs along y", {1, size, 1}}};
  if (dim == 3) layouts.push_back({"slabs along z", {1, 1, size}});
  for (const auto& [name, processes] : layouts) {
    SCOPED_TRACE(name);
    JobConfig job = parse_job(box_job("same" + std::to_string(dim), dim, 12, ve), "same.yaml");
    job.grid.processes = processes;
    test::ModuleBench bench;
    ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
    ASSERT_EQ(prepare_and_apply(bench, dim), 0);
    long wrong = 0;
    for (int c = 0; c < dim; ++c)
      wrong += count_differences(bench.velocity(), reference.velocity(), c,
                                 bench.grid().owned_faces(c));
    for (size_t n = 0; n < bench.scalars().size(); ++n)
      wrong += count_differences(bench.scalars()[n], reference.scalars()[n], 0,
                                 bench.grid().owned_cells());
    EXPECT_EQ(test::global_sum(wrong), 0);
  }
}

TEST(Viscoelastic, StageGivesIdenticalBitsOnAnyRankCount2D) { check_invariance(2); }
TEST(Viscoelastic, StageGivesIdenticalBitsOnAnyRankCount3D) { check_invariance(3); }

}  // namespace
}  // namespace sf
