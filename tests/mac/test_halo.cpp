// Halo exchange and physical ghost fill: after fill_ghosts(), every ghost entry of a local vector
// must hold exactly its neighbour's value (rank boundaries and periodic wrap) or the reflection the
// boundary condition prescribes (domain boundaries), on 2D and 3D grids, halo widths 1 to 4, on
// PETSc's default layout and on forced uneven layouts. Each owned value is a unique integer-valued
// double, so "exactly" means bit for bit.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "error_codes.hpp"
#include "field.hpp"
#include "mpi_test_util.hpp"
#include "test_boundaries.hpp"

namespace sf {
namespace {

using test::all;
using test::Boundaries;
using test::face;
using test::Layout;
using test::layouts;

FaceBoundary inflow(std::array<double, 3> velocity, double density) {
  FaceBoundary f;
  f.kind = BoundaryKind::Inflow;
  f.velocity = velocity;
  f.scalar_values["density"] = density;
  return f;
}

/// x: inflow / outflow, y: no-slip / free-slip, z (3D): periodic. The scalar is held at 2 on
/// the no-slip wall and has a fixed gradient on the free-slip one.
Boundaries mixed() {
  Boundaries b = all(BoundaryKind::Periodic);
  b[0] = {inflow({1.5, -0.25, 0.75}, 3.0), face(BoundaryKind::Outflow)};
  b[1] = {face(BoundaryKind::NoSlip), face(BoundaryKind::FreeSlip)};
  b[1][0].scalar_values["density"] = 2.0;
  b[1][1].scalar_gradients["density"] = -1.75;
  return b;
}

/// The value stored at global index (i, j, k), component c: a unique integer.
double label(PetscInt i, PetscInt j, PetscInt k, int c) {
  return static_cast<double>(((c * 64 + k) * 64 + j) * 64 + i + 1);
}

/// The value a correct fill_ghosts() leaves at local index (i, j, k), component c, computed
/// independently of field.cpp: wrap periodic axes; for a ghost outside a non-periodic boundary,
/// reflect the index in the boundary plane and apply the side's rule, axis by axis in order
/// (the last axis' rule is the outermost operation).
double expected(const Field& field, PetscInt i, PetscInt j, PetscInt k, int c) {
  const Grid& grid = field.grid();
  const std::array<PetscInt, 3> ghost = {i, j, k};
  std::array<PetscInt, 3> m = ghost;
  std::array<const GhostFill*, 3> applied = {nullptr, nullptr, nullptr};
  for (int a = 0; a < grid.dim(); ++a) {
    const PetscInt n = grid.cells(a);
    const bool staggered = field.stagger(c) == a;
    const PetscInt last = staggered ? n : n - 1;
    if (grid.periodic(a)) {
      m[a] = ((m[a] % n) + n) % n;
    } else if (m[a] < 0) {
      applied[a] = &field.boundary()[c][a][0];
      m[a] = std::max<PetscInt>(staggered ? -m[a] : -m[a] - 1, 0);
      m[a] = std::min(m[a], last);
    } else if (m[a] > last) {
      applied[a] = &field.boundary()[c][a][1];
      m[a] = std::max<PetscInt>(staggered ? 2 * n - m[a] : 2 * n - 1 - m[a], 0);
    }
  }
  // The value at the fully reflected interior point, with Dirichlet faces set to their value.
  double value = label(m[0], m[1], m[2], c);
  for (int a = 0; a < grid.dim(); ++a) {
    if (field.stagger(c) != a || grid.periodic(a)) continue;
    for (int side = 0; side < 2; ++side) {
      const GhostFill& fill = field.boundary()[c][a][side];
      if (fill.rule == GhostRule::Odd && m[a] == (side == 0 ? 0 : grid.cells(a))) value = fill.value;
    }
  }
  for (int a = 0; a < grid.dim(); ++a) {
    if (!applied[a]) continue;
    if (applied[a]->rule == GhostRule::Odd) value = 2.0 * applied[a]->value - value;
    // The mirror lies |ghost - mirror| spacings from the ghost.
    if (applied[a]->rule == GhostRule::Gradient)
      value += static_cast<double>(std::abs(ghost[a] - m[a])) *
               (applied[a]->value * grid.spacing(a));
  }
  return value;
}

/// Fills the owned entries with labels, calls fill_ghosts() and counts wrong local entries.
long count_wrong_ghosts(Field& field, std::string* first_error) {
  const Grid& grid = field.grid();
  PetscScalar* data;
  ArrayView u;
  EXPECT_EQ(VecGetArray(field.global(), &data), 0);
  EXPECT_EQ(grid.global_view(field.dm(), data, &u), 0);
  for (int c = 0; c < field.components(); ++c) {
    const IndexBox box = field.stagger(c) >= 0 ? grid.owned_faces(c) : grid.owned_cells();
    for (PetscInt k = box.lo[2]; k < box.hi[2]; ++k)
      for (PetscInt j = box.lo[1]; j < box.hi[1]; ++j)
        for (PetscInt i = box.lo[0]; i < box.hi[0]; ++i) u(i, j, k, c) = label(i, j, k, c);
  }
  EXPECT_EQ(VecRestoreArray(field.global(), &data), 0);
  EXPECT_EQ(field.fill_ghosts(), 0);

  long wrong = 0;
  EXPECT_EQ(VecGetArray(field.local(), &data), 0);
  EXPECT_EQ(grid.local_view(field.dm(), data, &u), 0);
  for (int c = 0; c < field.components(); ++c)
    for (PetscInt k = u.start[2]; k < u.start[2] + u.width[2]; ++k)
      for (PetscInt j = u.start[1]; j < u.start[1] + u.width[1]; ++j)
        for (PetscInt i = u.start[0]; i < u.start[0] + u.width[0]; ++i) {
          // Tangential components in the face DM's extra upper layer are ghosts too, and the
          // slots beyond them are only reachable by the same reflection; check them all.
          const double want = expected(field, i, j, k, c);
          if (u(i, j, k, c) != want) {
            if (wrong++ == 0) {
              std::ostringstream s;
              s << "rank " << test::comm_rank() << ": component " << c << " at (" << i << ","
                << j << "," << k << ") holds " << u(i, j, k, c) << ", expected " << want;
              *first_error = s.str();
            }
          }
        }
  EXPECT_EQ(VecRestoreArray(field.local(), &data), 0);
  return wrong;
}

void check_all_layouts(std::array<long, 3> cells, int dim, const Boundaries& boundaries) {
  for (const Layout& layout : layouts(dim)) {
    for (int halo = 1; halo <= 4; ++halo) {
      GridConfig config;
      config.dim = dim;
      config.cells = cells;
      config.size = {2.0, 1.0, 0.5};
      config.halo = halo;
      std::ostringstream trace;
      trace << dim << "D, layout " << layout.name << ", halo " << halo;
      SCOPED_TRACE(trace.str());

      Grid grid;
      ASSERT_EQ(grid.setup(PETSC_COMM_WORLD, config, boundaries, layout.processes), 0);
      Field scalar, velocity;
      ASSERT_EQ(scalar.setup_scalar(grid, "density"), 0);
      ASSERT_EQ(velocity.setup_velocity(grid), 0);

      std::string scalar_error, velocity_error;
      const long scalar_wrong = test::global_sum(count_wrong_ghosts(scalar, &scalar_error));
      const long velocity_wrong = test::global_sum(count_wrong_ghosts(velocity, &velocity_error));
      EXPECT_EQ(scalar_wrong, 0) << scalar_error;
      EXPECT_EQ(velocity_wrong, 0) << velocity_error;
    }
  }
}

// Cell counts are chosen so that splits on 2-4 ranks are uneven and every slab is still at least
// as wide as the largest halo.
TEST(Halo, Periodic2D) { check_all_layouts({23, 18, 1}, 2, all(BoundaryKind::Periodic)); }
TEST(Halo, WallsInflowOutflow2D) { check_all_layouts({23, 18, 1}, 2, mixed()); }
TEST(Halo, Periodic3D) { check_all_layouts({17, 18, 19}, 3, all(BoundaryKind::Periodic)); }
TEST(Halo, WallsInflowOutflow3D) { check_all_layouts({17, 18, 19}, 3, mixed()); }

// A halo wider than some rank's slab cannot be exchanged with nearest neighbours only. Every
// rank must refuse it (the same error code everywhere), and none may be left in a collective.
TEST(Halo, HaloWiderThanASlabIsRefusedOnEveryRank) {
  GridConfig config;
  config.dim = 2;
  config.cells = {7, 7, 1};
  config.halo = 4;
  const PetscInt size = test::comm_size();
  const bool fits = 7 / size >= 4;
  Grid grid;
  PetscCallVoid(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  const PetscErrorCode code = grid.setup(PETSC_COMM_WORLD, config, all(BoundaryKind::Periodic), {size, 1, 1});
  PetscCallVoid(PetscPopErrorHandler());
  EXPECT_EQ(code, fits ? 0 : kErrorBadJob);  // exit status 2: the job cannot run on this many ranks
  EXPECT_EQ(test::global_sum(code != 0 ? 1 : 0), fits ? 0 : size);
}

// The boundary description the fill uses must be the one docs/design.md, "Boundaries", gives per
// face kind.
TEST(Halo, BoundaryRulesFollowFaceKinds) {
  GridConfig config;
  config.dim = 3;
  config.cells = {8, 8, 8};
  config.halo = 1;
  Grid grid;
  ASSERT_EQ(grid.setup(PETSC_COMM_WORLD, config, mixed()), 0);
  Field velocity, scalar;
  ASSERT_EQ(velocity.setup_velocity(grid), 0);
  ASSERT_EQ(scalar.setup_scalar(grid, "density"), 0);
  const FieldBoundary& u = velocity.boundary();
  // Inflow on x-lower: every component Dirichlet to the inflow velocity.
  EXPECT_EQ(u[0][0][0].rule, GhostRule::Odd);
  EXPECT_EQ(u[0][0][0].value, 1.5);
  EXPECT_EQ(u[1][0][0].value, -0.25);
  EXPECT_EQ(u[2][0][0].value, 0.75);
  // Outflow on x-upper: zero gradient.
  for (int c = 0; c < 3; ++c) EXPECT_EQ(u[c][0][1].rule, GhostRule::Even);
  // No-slip on y-lower: all components vanish; free-slip on y-upper: only the normal one.
  for (int c = 0; c < 3; ++c) EXPECT_EQ(u[c][1][0].rule, GhostRule::Odd);
  EXPECT_EQ(u[1][1][1].rule, GhostRule::Odd);
  EXPECT_EQ(u[0][1][1].rule, GhostRule::Even);
  EXPECT_EQ(u[2][1][1].rule, GhostRule::Even);
  EXPECT_EQ(u[0][2][0].rule, GhostRule::Periodic);
  // Scalars: inflow carries its value in, outflow is zero-gradient, and walls hold the value or
  // the gradient they name (zero-gradient for scalars they do not name).
  EXPECT_EQ(scalar.boundary()[0][0][0].rule, GhostRule::Odd);
  EXPECT_EQ(scalar.boundary()[0][0][0].value, 3.0);
  EXPECT_EQ(scalar.boundary()[0][0][1].rule, GhostRule::Even);
  EXPECT_EQ(scalar.boundary()[0][1][0].rule, GhostRule::Odd);
  EXPECT_EQ(scalar.boundary()[0][1][0].value, 2.0);
  EXPECT_EQ(scalar.boundary()[0][1][1].rule, GhostRule::Gradient);
  EXPECT_EQ(scalar.boundary()[0][1][1].value, -1.75);
  Field other;
  ASSERT_EQ(other.setup_scalar(grid, "smoke"), 0);
  EXPECT_EQ(other.boundary()[0][1][0].rule, GhostRule::Even);
  EXPECT_EQ(other.boundary()[0][1][1].rule, GhostRule::Even);
}

// A parabolic inflow profile peaks at the centre line and vanishes at the walls.
TEST(Halo, ParabolicInflowProfile) {
  GridConfig config;
  config.dim = 2;
  config.cells = {8, 10, 1};
  config.halo = 1;
  Boundaries b = mixed();
  b[0][0].profile = InflowProfile::Parabolic;
  b[0][0].velocity = {2.0, 0.0, 0.0};
  Grid grid;
  ASSERT_EQ(grid.setup(PETSC_COMM_WORLD, config, b), 0);
  Field velocity;
  ASSERT_EQ(velocity.setup_velocity(grid), 0);
  const GhostFill& fill = velocity.boundary()[0][0][0];
  // Cell centres of row j sit at s = (j + 0.5) / 10: 4 s (1 - s) * 2.
  for (PetscInt j = 0; j < 10; ++j) {
    const double s = (j + 0.5) / 10.0;
    // The solver derives s from the physical position, (y - origin) / L; a few ulps apart.
    EXPECT_NEAR(velocity.boundary_value(fill, 0, 0, j, 0, 0), 2.0 * 4.0 * s * (1.0 - s), 1e-14);
  }
  EXPECT_EQ(velocity.boundary_value(fill, 0, 0, -1, 0, 0), 0.0);
}

}  // namespace
}  // namespace sf
