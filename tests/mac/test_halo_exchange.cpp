// HaloExchange against PETSc's DMGlobalToLocal: on DMDAs shaped like the grid's cell DM (dof 1)
// and face DM (dof 3, one more point on bounded axes), 2D and 3D, periodic and bounded, PETSc's
// layout and every rank stacked along each axis (so an axis of one or two ranks is periodic
// with the same rank below and above), box stencils of every width up to the DMDA's and star
// stencils. Every owned value is a unique integer, every local entry starts as a sentinel: the
// exchange must leave exactly DMGlobalToLocal's local vector, bit for bit, sentinels included.
#include <gtest/gtest.h>

#include <sstream>

#include "halo_exchange.hpp"
#include "mpi_test_util.hpp"
#include "test_boundaries.hpp"

namespace sf {
namespace {

constexpr double kSentinel = -12345.0;

struct Case {
  int dim;
  std::array<PetscInt, 3> points;
  PetscInt dof;
  PetscInt stencil_width;  // the DMDA's
  bool periodic;
};

PetscErrorCode create(const Case& c, const std::array<PetscInt, 3>& processes, DM* dm) {
  PetscFunctionBeginUser;
  const DMBoundaryType bt = c.periodic ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_GHOSTED;
  if (c.dim == 2)
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, bt, bt, DMDA_STENCIL_BOX, c.points[0], c.points[1],
                           processes[0], processes[1], c.dof, c.stencil_width, nullptr, nullptr,
                           dm));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, bt, bt, bt, DMDA_STENCIL_BOX, c.points[0],
                           c.points[1], c.points[2], processes[0], processes[1], processes[2],
                           c.dof, c.stencil_width, nullptr, nullptr, nullptr, dm));
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(0);
}

/// A star or narrower DMDA over the same layout: what DMGlobalToLocal of that shape fills.
PetscErrorCode reference_dm(const Case& c, DM layout, int width, HaloShape shape, DM* dm) {
  PetscFunctionBeginUser;
  PetscInt processes[3];
  PetscCall(DMDAGetInfo(layout, nullptr, nullptr, nullptr, nullptr, &processes[0], &processes[1],
                        &processes[2], nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
  const PetscInt* ranges[3] = {nullptr, nullptr, nullptr};
  PetscCall(DMDAGetOwnershipRanges(layout, &ranges[0], &ranges[1], &ranges[2]));
  const DMBoundaryType bt = c.periodic ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_GHOSTED;
  const DMDAStencilType stencil = shape == HaloShape::Box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR;
  if (c.dim == 2)
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, bt, bt, stencil, c.points[0], c.points[1],
                           processes[0], processes[1], c.dof, width, ranges[0], ranges[1], dm));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, bt, bt, bt, stencil, c.points[0], c.points[1],
                           c.points[2], processes[0], processes[1], processes[2], c.dof, width,
                           ranges[0], ranges[1], ranges[2], dm));
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(0);
}

/// Labels owned entries uniquely: 1 + the entry's natural index.
PetscErrorCode label(DM dm, Vec global) {
  PetscFunctionBeginUser;
  PetscInt xs, ys, zs, xm, ym, zm, mx, my, dof;
  PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetInfo(dm, nullptr, &mx, &my, nullptr, nullptr, nullptr, nullptr, &dof, nullptr,
                        nullptr, nullptr, nullptr, nullptr));
  PetscScalar* a = nullptr;
  PetscCall(VecGetArray(global, &a));
  PetscInt at = 0;
  for (PetscInt k = zs; k < zs + zm; ++k)
    for (PetscInt j = ys; j < ys + ym; ++j)
      for (PetscInt i = xs; i < xs + xm; ++i)
        for (PetscInt d = 0; d < dof; ++d)
          a[at++] = static_cast<double>(1 + d + dof * (i + mx * (j + my * k)));
  PetscCall(VecRestoreArray(global, &a));
  PetscFunctionReturn(0);
}

/// Entries of this rank's local vector where the exchange and DMGlobalToLocal (on a DMDA of the
/// exchange's width and shape) differ; the first described in *first.
long count_differences(const Case& c, DM dm, int width, HaloShape shape, std::string* first) {
  long differences = -1;
  DM ref = nullptr;
  Vec global = nullptr, local = nullptr, ref_global = nullptr, expected = nullptr;
  HaloExchange exchange;
  EXPECT_EQ(reference_dm(c, dm, width, shape, &ref), 0);
  EXPECT_EQ(DMCreateGlobalVector(dm, &global), 0);
  EXPECT_EQ(DMCreateLocalVector(dm, &local), 0);
  EXPECT_EQ(DMCreateGlobalVector(ref, &ref_global), 0);
  EXPECT_EQ(DMCreateLocalVector(ref, &expected), 0);
  EXPECT_EQ(label(dm, global), 0);
  EXPECT_EQ(label(ref, ref_global), 0);
  EXPECT_EQ(VecSet(local, kSentinel), 0);
  EXPECT_EQ(VecSet(expected, kSentinel), 0);
  EXPECT_EQ(exchange.setup(dm, width, shape), 0);
  EXPECT_EQ(exchange.global_to_local(global, local), 0);
  EXPECT_EQ(DMGlobalToLocal(ref, ref_global, INSERT_VALUES, expected), 0);

  // The two local vectors differ in extent when the reference is narrower: compare by index.
  PetscInt gx[3], gm[3], rx[3], rm[3];
  EXPECT_EQ(DMDAGetGhostCorners(dm, &gx[0], &gx[1], &gx[2], &gm[0], &gm[1], &gm[2]), 0);
  EXPECT_EQ(DMDAGetGhostCorners(ref, &rx[0], &rx[1], &rx[2], &rm[0], &rm[1], &rm[2]), 0);
  const PetscScalar *got = nullptr, *want = nullptr;
  EXPECT_EQ(VecGetArrayRead(local, &got), 0);
  EXPECT_EQ(VecGetArrayRead(expected, &want), 0);
  differences = 0;
  for (PetscInt k = gx[2]; k < gx[2] + gm[2]; ++k)
    for (PetscInt j = gx[1]; j < gx[1] + gm[1]; ++j)
      for (PetscInt i = gx[0]; i < gx[0] + gm[0]; ++i)
        for (PetscInt d = 0; d < c.dof; ++d) {
          const bool in_ref = i >= rx[0] && i < rx[0] + rm[0] && j >= rx[1] &&
                              j < rx[1] + rm[1] && k >= rx[2] && k < rx[2] + rm[2];
          const double have =
              got[(((k - gx[2]) * gm[1] + (j - gx[1])) * gm[0] + (i - gx[0])) * c.dof + d];
          const double should =
              in_ref ? want[(((k - rx[2]) * rm[1] + (j - rx[1])) * rm[0] + (i - rx[0])) * c.dof +
                            d]
                     : kSentinel;
          if (have != should && differences++ == 0) {
            std::ostringstream s;
            s << "rank " << test::comm_rank() << ": (" << i << "," << j << "," << k << ") dof "
              << d << " holds " << have << ", DMGlobalToLocal gives " << should;
            *first = s.str();
          }
        }
  EXPECT_EQ(VecRestoreArrayRead(expected, &want), 0);
  EXPECT_EQ(VecRestoreArrayRead(local, &got), 0);
  VecDestroy(&expected);
  VecDestroy(&ref_global);
  VecDestroy(&local);
  VecDestroy(&global);
  DMDestroy(&ref);
  return differences;
}

void check(const Case& c) {
  for (const test::Layout& layout : test::layouts(c.dim)) {
    DM dm = nullptr;
    ASSERT_EQ(create(c, layout.processes, &dm), 0);
    for (int width = 1; width <= c.stencil_width; ++width)
      for (const HaloShape shape : {HaloShape::Box, HaloShape::Star}) {
        std::ostringstream trace;
        trace << c.dim << "D " << c.points[0] << "x" << c.points[1] << "x" << c.points[2]
              << " dof " << c.dof << (c.periodic ? " periodic" : " bounded") << ", layout "
              << layout.name << ", width " << width
              << (shape == HaloShape::Box ? " box" : " star");
        SCOPED_TRACE(trace.str());
        std::string first;
        EXPECT_EQ(test::global_sum(count_differences(c, dm, width, shape, &first)), 0) << first;
      }
    DMDestroy(&dm);
  }
}

// Point counts give uneven splits on 2-4 ranks with every slab at least 3 wide; the face-like
// cases have one point more on each axis, as the face DM has on bounded axes.
TEST(HaloExchange, CellLike3D) {
  check({3, {13, 14, 15}, 1, 3, false});
  check({3, {13, 14, 15}, 1, 3, true});
}
TEST(HaloExchange, FaceLike3D) {
  check({3, {14, 15, 16}, 3, 3, false});
  check({3, {13, 14, 15}, 3, 2, true});
}
TEST(HaloExchange, CellAndFaceLike2D) {
  check({2, {17, 14, 1}, 1, 3, false});
  check({2, {18, 15, 1}, 2, 3, false});
  check({2, {18, 17, 1}, 2, 4, true});
}

TEST(HaloExchange, WidthBeyondTheStencilIsRefused) {
  DM dm = nullptr;
  ASSERT_EQ(create({3, {9, 9, 9}, 1, 1, false},
                   {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}, &dm), 0);
  HaloExchange exchange;
  ASSERT_EQ(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr), 0);
  EXPECT_EQ(exchange.setup(dm, 2, HaloShape::Box), PETSC_ERR_ARG_OUTOFRANGE);
  ASSERT_EQ(PetscPopErrorHandler(), 0);
  DMDestroy(&dm);
}

}  // namespace
}  // namespace sf
