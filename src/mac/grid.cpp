// Grid decomposition: the cell DMDA is created first and PETSc chooses (or the caller fixes) the
// process grid; the face DMDA copies its ownership ranges and gives the last rank along every
// non-periodic axis the extra layer of upper boundary faces. See grid.hpp for the layout.
#include "grid.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "error_codes.hpp"

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
  // With more ranks than the grid can be split into, DMSetUp refuses ("Partition in x direction
  // is too fine"). Its checks look at global sizes only, so every rank fails alike; the failure
  // is still agreed before it is raised, and raised as the job's error (exit status 2) with the
  // numbers a user needs.
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  const PetscErrorCode refused = DMSetUp(layout);
  PetscCall(PetscPopErrorHandler());
  char reason[256] = "";
  if (refused) {
    const char* specific = nullptr;
    if (PetscErrorMessage(refused, nullptr, const_cast<char**>(&specific)) == 0 && specific)
      std::snprintf(reason, sizeof reason, "%s", specific);
  }
  int failed = refused ? 1 : 0, any_failed = 0;
  PetscCallMPI(MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm));
  PetscMPIInt ranks = 1;
  PetscCallMPI(MPI_Comm_size(comm, &ranks));
  PetscCheck(!any_failed, comm, kErrorBadJob,
             "a grid of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT
             " cells cannot be divided among %d ranks (%s); use fewer ranks or more cells",
             cells[0], cells[1], dim == 3 ? cells[2] : 1, ranks,
             reason[0] ? reason : "PETSc's DMDA refused the layout");
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
    PetscCheck(narrowest >= halo_, comm, kErrorBadJob,
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
  PetscCall(cell_halo_.setup(cell_dm_, halo_, HaloShape::Box));
  PetscCall(face_halo_.setup(face_dm_, halo_, HaloShape::Box));

  PetscInt xs, ys, zs, xm, ym, zm;
  PetscCall(DMDAGetCorners(cell_dm_, &xs, &ys, &zs, &xm, &ym, &zm));
  owned_.lo = {xs, ys, zs};
  owned_.hi = {xs + xm, ys + ym, zs + zm};
  PetscFunctionReturn(0);
}

PetscErrorCode Grid::global_to_local(DM dm, Vec global, Vec local) const {
  PetscFunctionBeginUser;
  PetscCheck(dm == cell_dm_.get() || dm == face_dm_.get(), comm_, PETSC_ERR_ARG_WRONG,
             "Grid::global_to_local exchanges vectors of the grid's cell and face DMs only");
  PetscCall((dm == cell_dm_.get() ? cell_halo_ : face_halo_).global_to_local(global, local));
  PetscFunctionReturn(0);
}

namespace {

/// Values one rank receives in a halo exchange of `dm`, and from how many ranks.
PetscErrorCode count_exchange(const Grid& grid, DM dm, double* values, PetscInt* neighbours) {
  PetscFunctionBeginUser;
  PetscInt xs, ys, zs, xm, ym, zm, gxs, gys, gzs, gxm, gym, gzm, dof, sizes[3], procs[3];
  PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetGhostCorners(dm, &gxs, &gys, &gzs, &gxm, &gym, &gzm));
  PetscCall(DMDAGetInfo(dm, nullptr, &sizes[0], &sizes[1], &sizes[2], &procs[0], &procs[1],
                        &procs[2], &dof, nullptr, nullptr, nullptr, nullptr, nullptr));
  const PetscInt* ranges[3] = {nullptr, nullptr, nullptr};
  PetscCall(DMDAGetOwnershipRanges(dm, &ranges[0], &ranges[1], &ranges[2]));
  const PetscInt lo[3] = {gxs, gys, gzs}, width[3] = {gxm, gym, gzm};
  const PetscInt own_lo[3] = {xs, ys, zs}, own_hi[3] = {xs + xm, ys + ym, zs + zm};
  // Per axis, the process coordinate owning each index of the ghosted range (-1: a ghost outside
  // a non-periodic boundary, filled locally).
  std::array<std::vector<PetscInt>, 3> owner;
  for (int a = 0; a < 3; ++a) {
    if (a >= grid.dim()) {  // PETSc gives no ranges for the third axis of a 2D DMDA
      owner[a].assign(static_cast<size_t>(width[a]), 0);
      continue;
    }
    for (PetscInt n = 0; n < width[a]; ++n) {
      PetscInt index = lo[a] + n;
      if (a < grid.dim() && grid.periodic(a)) index = ((index % sizes[a]) + sizes[a]) % sizes[a];
      PetscInt p = -1;
      if (index >= 0 && index < sizes[a]) {
        PetscInt start = 0;
        for (p = 0; p < procs[a] && start + ranges[a][p] <= index; ++p) start += ranges[a][p];
      }
      owner[a].push_back(p);
    }
  }
  PetscMPIInt me;
  PetscCallMPI(MPI_Comm_rank(grid.comm(), &me));
  std::vector<PetscInt> seen;
  double count = 0.0;
  for (PetscInt k = 0; k < width[2]; ++k)
    for (PetscInt j = 0; j < width[1]; ++j)
      for (PetscInt i = 0; i < width[0]; ++i) {
        const PetscInt g[3] = {lo[0] + i, lo[1] + j, lo[2] + k};
        bool owned = true;
        for (int a = 0; a < 3; ++a) owned = owned && g[a] >= own_lo[a] && g[a] < own_hi[a];
        const PetscInt px = owner[0][i], py = owner[1][j], pz = owner[2][k];
        if (owned || px < 0 || py < 0 || pz < 0) continue;
        const PetscInt rank = px + procs[0] * (py + procs[1] * pz);
        if (rank == me) continue;  // a periodic image of this rank's own cells
        count += static_cast<double>(dof);
        if (std::find(seen.begin(), seen.end(), rank) == seen.end()) seen.push_back(rank);
      }
  *values = count;
  *neighbours = static_cast<PetscInt>(seen.size());
  PetscFunctionReturn(0);
}

}  // namespace

PetscErrorCode Grid::describe(Decomposition* d) const {
  PetscFunctionBeginUser;
  d->processes = processes_;
  d->halo = halo_;
  double cell_values = 0.0, face_values = 0.0;
  PetscInt cell_neighbours = 0, face_neighbours = 0;
  PetscCall(count_exchange(*this, cell_dm_, &cell_values, &cell_neighbours));
  PetscCall(count_exchange(*this, face_dm_, &face_values, &face_neighbours));
  const PetscInt owned = owned_.count();
  PetscInt mine[2] = {-owned, owned}, extremes[2];
  PetscCallMPI(MPI_Allreduce(mine, extremes, 2, MPIU_INT, MPI_MAX, comm_));
  d->min_cells = -extremes[0];
  d->max_cells = extremes[1];
  const PetscInt neighbours = std::max(cell_neighbours, face_neighbours);
  PetscCallMPI(MPI_Allreduce(&neighbours, &d->max_neighbours, 1, MPIU_INT, MPI_MAX, comm_));
  double local[2] = {cell_values, face_values}, maxima[2], totals[2];
  PetscCallMPI(MPI_Allreduce(local, maxima, 2, MPI_DOUBLE, MPI_MAX, comm_));
  PetscCallMPI(MPI_Allreduce(local, totals, 2, MPI_DOUBLE, MPI_SUM, comm_));
  d->cell_values_max = maxima[0];
  d->face_values_max = maxima[1];
  d->cell_values_total = totals[0];
  d->face_values_total = totals[1];
  PetscFunctionReturn(0);
}

IndexBox Grid::owned_faces(int component) const {
  IndexBox box = owned_;
  if (!periodic_[component] && box.hi[component] == cells_[component]) box.hi[component] += 1;
  return box;
}

PetscErrorCode dmda_array_box(DM dm, bool ghosted, std::array<PetscInt, 3>* start,
                              std::array<PetscInt, 3>* width, PetscInt* dof) {
  PetscFunctionBeginUser;
  PetscInt xs, ys, zs, xm, ym, zm;
  if (ghosted) {
    PetscCall(DMDAGetGhostCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  } else {
    PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  }
  PetscCall(DMDAGetInfo(dm, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, dof,
                        nullptr, nullptr, nullptr, nullptr, nullptr));
  *start = {xs, ys, zs};
  *width = {xm, ym, zm};
  PetscFunctionReturn(0);
}

PetscErrorCode Grid::make_view(DM dm, PetscScalar* data, bool ghosted, ArrayView* view) const {
  PetscFunctionBeginUser;
  view->data = data;
  PetscCall(dmda_array_box(dm, ghosted, &view->start, &view->width, &view->dof));
  PetscFunctionReturn(0);
}

}  // namespace sf
