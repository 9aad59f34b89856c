// The air band's projection (solvers/air_band_projection.hpp): a pool with a bubble in it and a
// drop above it, in a tank whose top is open, under a velocity of arbitrary divergence. The
// band's air that reaches the edge ends divergence-free to the solve's absolute tolerance, the
// liquid's faces keep their bits, the bubble is found as a pocket of exactly its cells, keeps its
// net flux and concentrates it in its core, and becomes liquid when filled.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "air_band_projection.hpp"
#include "divergence.hpp"
#include "field_test_util.hpp"
#include "job.hpp"
#include "mpi_test_util.hpp"
#include "test_boundaries.hpp"
#include "vec_array.hpp"
#include "velocity_extension.hpp"

namespace sf {
namespace {

constexpr int kBand = 5;
constexpr double kDt = 0.01;

struct Pool {
  Grid grid;
  SolidMask solids;
  Field velocity, before, phi;
  VelocityExtension extension;
  AirBandProjection band;
};

// The pool (y < 0.5) with a bubble of radius 0.09 at (0.5, 0.25, 0.5) and a drop of radius 0.08
// at (0.3, 0.8, 0.5): phi < 0 in the liquid.
constexpr double kBubble[3] = {0.5, 0.25, 0.5};
constexpr double kBubbleRadius = 0.09;

double distance(const double* x, const double* c, int dim) {
  double d2 = 0.0;
  for (int a = 0; a < dim; ++a) d2 += (x[a] - c[a]) * (x[a] - c[a]);
  return std::sqrt(d2);
}

double pool_level(const double* x, int dim) {
  const double drop[3] = {0.3, 0.8, 0.5};
  const double pool = std::max(x[1] - 0.5, kBubbleRadius - distance(x, kBubble, dim));
  return std::min(pool, distance(x, drop, dim) - 0.08);
}

bool in_bubble(const double* x, int dim) { return distance(x, kBubble, dim) < kBubbleRadius; }

// A face velocity of arbitrary divergence, the same on any rank count.
double arbitrary(int c, PetscInt i, PetscInt j, PetscInt k) {
  return std::sin(12.9898 * static_cast<double>(i) + 78.233 * static_cast<double>(j) +
                  37.719 * static_cast<double>(k) + 1.7 * c);
}

std::unique_ptr<Pool> make_pool(int dim, long n) {
  auto p = std::make_unique<Pool>();
  GridConfig config;
  config.dim = dim;
  config.cells = {n, n, dim == 3 ? n : 1};
  config.size = {1.0, 1.0, 1.0};
  config.halo = 2;
  test::Boundaries sides = test::all(BoundaryKind::FreeSlip);
  sides[1][1] = test::face(BoundaryKind::Outflow);  // the open top
  EXPECT_EQ(p->grid.setup(PETSC_COMM_WORLD, config, sides), 0);
  EXPECT_EQ(p->solids.setup(p->grid, {}), 0);
  EXPECT_EQ(p->velocity.setup_velocity(p->grid), 0);
  EXPECT_EQ(p->before.setup_velocity(p->grid), 0);
  EXPECT_EQ(p->phi.setup_level_set(p->grid, LiquidConfig::kLevelSetName), 0);
  EXPECT_EQ(p->extension.setup(p->grid, p->solids, kBand), 0);
  EXPECT_EQ(p->band.setup(p->grid, p->solids), 0);
  const Grid& grid = p->grid;
  {
    WriteArray level;
    EXPECT_EQ(level.get_global(p->phi), 0);
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      const PetscInt at[3] = {i, j, k};
      double x[3] = {0.5, 0.5, 0.5};
      for (int a = 0; a < dim; ++a) x[a] = grid.cell_center(a, at[a]);
      level(i, j, k) = pool_level(x, dim);
    });
  }
  {
    WriteArray u;
    EXPECT_EQ(u.get_global(p->velocity), 0);
    for (int c = 0; c < dim; ++c)
      for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
        u(i, j, k, c) = p->solids.fixed_face(c, i, j, k) ? 0.0 : arbitrary(c, i, j, k);
      });
  }
  EXPECT_EQ(VecCopy(p->velocity.global(), p->before.global()), 0);
  EXPECT_EQ(p->extension.mark_air_layers(p->phi, nullptr), 0);
  return p;
}

// Per owned cell: its divergence times dt, its layer, whether its centre is in the bubble.
template <typename F>
void for_each_cell(Pool& p, Field& velocity, F&& f) {
  const Grid& grid = p.grid;
  const int dim = grid.dim();
  ASSERT_EQ(velocity.fill_ghosts(), 0);
  std::array<double, 3> inv_h{1.0, 1.0, 1.0};
  for (int a = 0; a < dim; ++a) inv_h[a] = 1.0 / grid.spacing(a);
  ReadArray u, layer;
  ASSERT_EQ(u.get_local(velocity), 0);
  ASSERT_EQ(layer.get_local(grid.cell_dm(), p.extension.air_layers()), 0);
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const PetscInt at[3] = {i, j, k};
    double x[3] = {0.5, 0.5, 0.5};
    for (int a = 0; a < dim; ++a) x[a] = grid.cell_center(a, at[a]);
    f(cell_divergence(u, inv_h, dim, i, j, k) * kDt, layer(i, j, k), in_bubble(x, dim));
  });
}

TEST(AirBandProjection, MakesTheBandDivergenceFreeAndKeepsTheLiquidsFaces) {
  for (int dim : {2, 3}) {
    const long n = dim == 2 ? 32 : 24;
    auto p = make_pool(dim, n);
    long bubble_cells = 0;
    double bubble_flux_before = 0.0, deepest = 0.0;
    for_each_cell(*p, p->velocity, [&](double div_dt, double layer, bool bubble) {
      if (!bubble) return;
      ++bubble_cells;
      bubble_flux_before += div_dt;
      deepest = std::max(deepest, layer);
    });
    bubble_cells = test::global_sum(bubble_cells);
    deepest = test::global_max(deepest);
    ASSERT_GT(bubble_cells, 0);
    ASSERT_GE(deepest, 2.0) << "the bubble must have a core and cells outside it";

    AirBandStats stats;
    ASSERT_EQ(p->band.project(p->velocity, p->extension.air_layers(), kBand, kDt, &stats), 0);
    EXPECT_EQ(stats.pocket_cells, bubble_cells) << dim << "D";
    EXPECT_GT(stats.iterations, 0);
    EXPECT_LE(stats.residual, AirBandProjection::kTolerance);

    // Every band cell outside the bubble's core: |div| dt within the solve's tolerance (each
    // cell's residual is at most the residual's norm). The bubble keeps its net flux.
    double worst = 0.0, bubble_flux_after = 0.0;
    long band_cells = 0;
    for_each_cell(*p, p->velocity, [&](double div_dt, double layer, bool bubble) {
      if (bubble) bubble_flux_after += div_dt;
      if (layer < 1.0 || layer > kBand || (bubble && layer == deepest)) return;
      ++band_cells;
      worst = std::max(worst, std::abs(div_dt));
    });
    EXPECT_GT(test::global_sum(band_cells), bubble_cells);
    EXPECT_LE(test::global_max(worst), AirBandProjection::kTolerance) << dim << "D";
    bubble_flux_before = test::global_total(bubble_flux_before);
    bubble_flux_after = test::global_total(bubble_flux_after);
    EXPECT_NEAR(bubble_flux_after, bubble_flux_before, 1e-12 * static_cast<double>(bubble_cells))
        << dim << "D";

    // The faces of liquid cells, walls and faces beyond the band: the same bits.
    ReadArray now, then, layer;
    ASSERT_EQ(now.get_global(p->velocity), 0);
    ASSERT_EQ(then.get_global(p->before), 0);
    ASSERT_EQ(layer.get_local(p->grid.cell_dm(), p->extension.air_layers()), 0);
    long changed = 0, changed_elsewhere = 0;
    for (int c = 0; c < dim; ++c)
      for_each_index(p->grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
        const double a = now(i, j, k, c), b = then(i, j, k, c);
        const bool same = std::memcmp(&a, &b, sizeof a) == 0;
        changed += !same;
        const PetscInt at[3] = {i, j, k};
        const bool lower_inside = at[c] > 0, upper_inside = at[c] < p->grid.cells(c);
        const double lower = lower_inside ? layer(i - (c == 0), j - (c == 1), k - (c == 2)) : 1e9;
        const double upper = upper_inside ? layer(i, j, k) : 1e9;
        const bool liquid = lower == 0.0 || upper == 0.0;
        const bool band = (lower >= 1.0 && lower <= kBand) || (upper >= 1.0 && upper <= kBand);
        if (p->solids.fixed_face(c, i, j, k) || liquid || !band) changed_elsewhere += !same;
      });
    EXPECT_GT(test::global_sum(changed), 0);
    EXPECT_EQ(test::global_sum(changed_elsewhere), 0) << dim << "D";
  }
}

// Filling the pockets makes exactly the bubble's cells liquid.
TEST(AirBandProjection, FillsTheBubbleAndNothingElse) {
  for (int dim : {2, 3}) {
    const long n = dim == 2 ? 32 : 24;
    auto p = make_pool(dim, n);
    long bubble_cells = 0;
    for_each_cell(*p, p->velocity, [&](double, double, bool bubble) { bubble_cells += bubble; });
    bubble_cells = test::global_sum(bubble_cells);
    PetscInt filled = 0;
    ASSERT_EQ(p->band.fill_pockets(p->phi, p->extension.air_layers(), kBand, &filled), 0);
    EXPECT_EQ(filled, bubble_cells) << dim << "D";
    const Grid& grid = p->grid;
    ReadArray level;
    ASSERT_EQ(level.get_global(p->phi), 0);
    long wrong = 0;
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      const PetscInt at[3] = {i, j, k};
      double x[3] = {0.5, 0.5, 0.5};
      for (int a = 0; a < dim; ++a) x[a] = grid.cell_center(a, at[a]);
      const bool liquid_now = level(i, j, k) < 0.0;
      const bool liquid_before = pool_level(x, dim) < 0.0;
      wrong += liquid_now != (liquid_before || in_bubble(x, dim));
    });
    EXPECT_EQ(test::global_sum(wrong), 0) << dim << "D";
  }
}

}  // namespace
}  // namespace sf
