// Grid decomposition: the cell DMDA is created first and PETSc chooses (or the caller fixes) the
// process grid; the face DMDA copies its ownership ranges and gives the last rank along every
// non-periodic axis the extra layer of upper boundary faces. See grid.hpp for the layout.
#include "grid.hpp"

#include <algorithm>
#include <vector>

namespace sf {

namespace {

/// The process grid and ownership ranges PETSc would choose for `cells` (or the fixed process
/// counts in `processes`), from a DMDA of stencil width 1 that is then discarded.
PetscErrorCode decompose(MPI_Comm comm, const DMBoundaryType bt[3], int dim,
                         const std::array<PetscInt, 3>& cells,
                         const std::array<PetscInt, 3>& processes,
                         std::array<std::vector<PetscInt>, 3>* ranges) {
  PetscFunctionBeginUser;
  OwnedDM layout;
  if (dim == 2) {
    PetscCall(DMDACreate2d(comm, bt[0], bt[1], DMDA_STENCIL_BOX, cells[0], cells[1], processes[0],
                           processes[1], 1, 1, nullptr, nullptr, layout.replace()));
  } else {
    PetscCall(DMDACreate3d(comm, bt[0], bt[1], bt[2], DMDA_STENCIL_BOX, cells[0], cells[1],
                           cells[2], processes[0], processes[1], processes[2], 1, 1, nullptr,
                           nullptr, nullptr, layout.replace()));
  }
  PetscCall(DMSetUp(layout));
  PetscInt counts[3] = {1, 1, 1};
  PetscCall(DMDAGetInfo(layout, nullptr, nullptr, nullptr, nullptr, &counts[0], &counts[1],
                        &counts[2], nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
  const PetscInt* owned[3] = {nullptr, nullptr, nullptr};
  PetscCall(DMDAGetOwnershipRanges(layout, &owned[0], &owned[1], &owned[2]));
  for (int a = 0; a < 3; ++a) {
    if (a < dim) {
      (*ranges)[a].assign(owned[a], owned[a] + counts[a]);
    } else {
      (*ranges)[a] = {1};
    }
  }
  PetscFunctionReturn(0);
}

/// A DMDA of `dof` components with box stencil of width `halo` and the given ownership ranges.
PetscErrorCode create_dmda(MPI_Comm comm, const DMBoundaryType bt[3], int dim, int halo,
                           const std::array<PetscInt, 3>& cells, PetscInt dof,
                           const std::array<std::vector<PetscInt>, 3>& ranges, DM* dm) {
  PetscFunctionBeginUser;
  const PetscInt m = static_cast<PetscInt>(ranges[0].size());
  const PetscInt n = static_cast<PetscInt>(ranges[1].size());
  if (dim == 2) {
    PetscCall(DMDACreate2d(comm, bt[0], bt[1], DMDA_STENCIL_BOX, cells[0], cells[1], m, n, dof,
                           halo, ranges[0].data(), ranges[1].data(), dm));
  } else {
    const PetscInt p = static_cast<PetscInt>(ranges[2].size());
    PetscCall(DMDACreate3d(comm, bt[0], bt[1], bt[2], DMDA_STENCIL_BOX, cells[0], cells[1],
                           cells[2], m, n, p, dof, halo, ranges[0].data(), ranges[1].data(),
                           ranges[2].data(), dm));
  }
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(0);
}

}  // namespace

PetscErrorCode Grid::setup(MPI_Comm comm, const GridConfig& config,
                           const std::array<std::array<FaceBoundary, 2>, 3>& boundary,
                           std::array<PetscInt, 3> processes) {
  PetscFunctionBeginUser;
  comm_ = comm;
  dim_ = config.dim;
  halo_ = config.halo;
  boundary_ = boundary;
  PetscCheck(dim_ == 2 || dim_ == 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "grid dimension %d", dim_);
  for (int a = 0; a < 3; ++a) {
    const bool used = a < dim_;
    cells_[a] = used ? static_cast<PetscInt>(config.cells[a]) : 1;
    origin_[a] = used ? config.origin[a] : 0.0;
    spacing_[a] = used ? config.size[a] / static_cast<double>(cells_[a]) : 1.0;
    periodic_[a] = !used || boundary[a][0].kind == BoundaryKind::Periodic;
  }

  DMBoundaryType bt[3];
  for (int a = 0; a < 3; ++a) bt[a] = periodic_[a] ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_GHOSTED;

  // PETSc chooses the process grid (unless the caller fixed it) on a throw-away DMDA of stencil
  // width 1. The ownership ranges are known to every rank, so every rank can check them against
  // the halo and reach the same verdict; left to DMSetUp, a halo wider than one rank's slab
  // fails on that rank alone and leaves the others waiting in a collective.
  std::array<std::vector<PetscInt>, 3> cell_ranges;
  PetscCall(decompose(comm, bt, dim_, cells_, processes, &cell_ranges));
  static const char axis_name[3] = {'x', 'y', 'z'};
  for (int a = 0; a < dim_; ++a) {
    const PetscInt narrowest = *std::min_element(cell_ranges[a].begin(), cell_ranges[a].end());
    PetscCheck(narrowest >= halo_, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "halo %d is wider than the %" PetscInt_FMT " cells some rank owns along %c "
               "(%" PetscInt_FMT " cells over %d ranks); use fewer ranks along %c or a "
               "smaller halo",
               halo_, narrowest, axis_name[a], cells_[a], static_cast<int>(cell_ranges[a].size()),
               axis_name[a]);
  }
  for (int a = 0; a < 3; ++a) processes_[a] = static_cast<PetscInt>(cell_ranges[a].size());
  PetscCall(create_dmda(comm, bt, dim_, halo_, cells_, 1, cell_ranges, cell_dm_.replace()));

  // Face DM: same ownership ranges, plus the upper boundary layer on the last rank.
  std::array<std::vector<PetscInt>, 3> face_ranges = cell_ranges;
  std::array<PetscInt, 3> face_cells = cells_;
  for (int a = 0; a < dim_; ++a) {
    if (!periodic_[a]) {
      face_ranges[a].back() += 1;
      face_cells[a] += 1;
    }
  }
  PetscCall(create_dmda(comm, bt, dim_, halo_, face_cells, dim_, face_ranges, face_dm_.replace()));

  PetscInt xs, ys, zs, xm, ym, zm;
  PetscCall(DMDAGetCorners(cell_dm_, &xs, &ys, &zs, &xm, &ym, &zm));
  owned_.lo = {xs, ys, zs};
  owned_.hi = {xs + xm, ys + ym, zs + zm};
  PetscFunctionReturn(0);
}

IndexBox Grid::owned_faces(int component) const {
  IndexBox box = owned_;
  if (!periodic_[component] && box.hi[component] == cells_[component]) box.hi[component] += 1;
  return box;
}

PetscErrorCode Grid::make_view(DM dm, PetscScalar* data, bool ghosted, ArrayView* view) const {
  PetscFunctionBeginUser;
  PetscInt xs, ys, zs, xm, ym, zm, dof;
  if (ghosted) {
    PetscCall(DMDAGetGhostCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  } else {
    PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  }
  PetscCall(DMDAGetInfo(dm, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &dof,
                        nullptr, nullptr, nullptr, nullptr, nullptr));
  *view = ArrayView{data, {xs, ys, zs}, {xm, ym, zm}, dof};
  PetscFunctionReturn(0);
}

}  // namespace sf
