// The uniform Cartesian MAC grid and its decomposition over MPI ranks.
//
// Cells are indexed (i, j, k) from 0 to n-1 per axis; cell (i,j,k) spans
// [origin + i h, origin + (i+1) h) along each axis. Pressure and every scalar live at cell
// centres; velocity component d lives on the faces normal to d, and the value stored at index
// (i,j,k) is the one on that cell's *lower* face in d (x = origin + i h along d).
//
// Two PETSc DMDAs share one process grid and one set of ownership ranges, so a cell's scalars,
// pressure and lower faces always live on the same rank:
//   cell DM: dof 1, n cells per axis;
//   face DM: dof = dim, n cells per periodic axis but n + 1 per non-periodic axis. The extra layer
//            holds the domain's upper boundary faces; it is owned by the last rank along that
//            axis (explicit ownership ranges). In that layer only the normal component is a face
//            of the domain; the tangential components there are kept at 0 in global vectors and
//            are ghost values in local vectors.
// Non-periodic axes use DM_BOUNDARY_GHOSTED, so every local vector has `halo` ghost layers
// outside the domain, filled by the physical boundary conditions in Field::fill_ghosts().
// In 2D the third axis has one cell, no ghosts, and index k = 0.
#pragma once

#include <petscdmda.h>

#include <algorithm>
#include <array>
#include <type_traits>

#include "boundary.hpp"
#include "halo_exchange.hpp"
#include "petsc_handle.hpp"

namespace sf {

/// The grid as the job gives it: dimension, cells, domain, halo and (optionally) the process grid.
struct GridConfig {
  int dim = 0;                                  // 2 or 3, from the length of `cells`
  std::array<long, 3> cells{1, 1, 1};           // per-axis cell counts; unused axes hold 1
  std::array<PetscInt, 3> processes{PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE};
  std::array<double, 3> origin{0.0, 0.0, 0.0};  // lower corner of the domain
  std::array<double, 3> size{1.0, 1.0, 1.0};    // extent of the domain per axis
  int halo = 3;                                 // ghost-cell width H of every field
};

using OwnedDM = Owned<DM, DMDestroy>;
using OwnedVec = Owned<Vec, VecDestroy>;

/// A half-open box of indices [lo, hi) on all three axes (2D: [0, 1) on z).
struct IndexBox {
  std::array<PetscInt, 3> lo{0, 0, 0};
  std::array<PetscInt, 3> hi{1, 1, 1};
  PetscInt size(int axis) const { return hi[axis] - lo[axis]; }
  PetscInt count() const { return size(0) * size(1) * size(2); }
  bool contains(PetscInt i, PetscInt j, PetscInt k) const {
    return i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
  }
};

/// Position of (i, j, k) in `box`, x fastest: where per-cell data of an owned box is kept.
inline size_t box_offset(const IndexBox& box, PetscInt i, PetscInt j, PetscInt k) {
  return static_cast<size_t>(((k - box.lo[2]) * box.size(1) + (j - box.lo[1])) * box.size(0) +
                             (i - box.lo[0]));
}

/// Calls f(i, j, k) for every index of `box`, x fastest (the storage order, so the accesses
/// stream through memory). Inlined: the lambda costs nothing in a hot loop.
template <typename F>
inline void for_each_index(const IndexBox& box, F&& f) {
  for (PetscInt k = box.lo[2]; k < box.hi[2]; ++k)
    for (PetscInt j = box.lo[1]; j < box.hi[1]; ++j)
      for (PetscInt i = box.lo[0]; i < box.hi[0]; ++i) f(i, j, k);
}

/// Indexing into the raw array of a DMDA vector (global or local): x fastest, then y, then z,
/// components interleaved. Works the same for 2D and 3D, so no stage needs two code paths.
/// `T` is PetscScalar for an array that may be written, const PetscScalar for one that is only
/// read (ArrayView and ConstArrayView below); a writable view converts to a read-only one.
/// Views are made by VecArray (vec_array.hpp), which also gets and restores the array.
template <typename T>
struct BasicArrayView {
  T* data = nullptr;
  std::array<PetscInt, 3> start{0, 0, 0};
  std::array<PetscInt, 3> width{1, 1, 1};
  PetscInt dof = 1;

  PetscInt offset(PetscInt i, PetscInt j, PetscInt k, PetscInt c = 0) const {
    return (((k - start[2]) * width[1] + (j - start[1])) * width[0] + (i - start[0])) * dof + c;
  }
  T& operator()(PetscInt i, PetscInt j, PetscInt k, PetscInt c = 0) const {
    return data[offset(i, j, k, c)];
  }
  template <typename U = T, typename = std::enable_if_t<!std::is_const_v<U>>>
  operator BasicArrayView<const U>() const {
    return {data, start, width, dof};
  }
};
using ArrayView = BasicArrayView<PetscScalar>;
using ConstArrayView = BasicArrayView<const PetscScalar>;

/// How the grid is spread over the ranks, for the start-up report and the timings JSON.
/// Exchanged values count the ghost entries a rank receives from other ranks in one
/// halo exchange (ghosts outside the domain are filled locally and not counted).
struct Decomposition {
  std::array<PetscInt, 3> processes{1, 1, 1};
  PetscInt min_cells = 0, max_cells = 0;  // owned cells per rank
  int halo = 0;
  PetscInt max_neighbours = 0;            // ranks one rank receives from, at most
  double cell_values_max = 0.0;           // per rank, one dof-1 cell field
  double cell_values_total = 0.0;         // over all ranks
  double face_values_max = 0.0;           // per rank, the velocity (dof = dim)
  double face_values_total = 0.0;
};

/// The index box of a DMDA vector's array and its components: the owned entries of a global
/// vector, or with `ghosted` the owned and ghost entries of a local one.
PetscErrorCode dmda_array_box(DM dm, bool ghosted, std::array<PetscInt, 3>* start,
                              std::array<PetscInt, 3>* width, PetscInt* dof);

class Grid {
public:
  /// Creates both DMDAs. `processes` fixes the process grid per axis (PETSC_DECIDE lets PETSc
  /// choose); tests use it to force uneven layouts. Collective on `comm`.
  PetscErrorCode setup(MPI_Comm comm, const GridConfig& config,
                       const std::array<std::array<FaceBoundary, 2>, 3>& boundary,
                       std::array<PetscInt, 3> processes = {PETSC_DECIDE, PETSC_DECIDE,
                                                            PETSC_DECIDE});

  MPI_Comm comm() const { return comm_; }
  int dim() const { return dim_; }
  int halo() const { return halo_; }
  PetscInt cells(int axis) const { return cells_[axis]; }
  PetscInt total_cells() const { return cells_[0] * cells_[1] * cells_[2]; }
  double spacing(int axis) const { return spacing_[axis]; }
  /// The smallest spacing over the grid's axes: what CFL numbers, level-set bands, particle
  /// radii and smoothing widths are measured in.
  double min_spacing() const {
    double h = spacing_[0];
    for (int a = 1; a < dim_; ++a) h = std::min(h, spacing_[a]);
    return h;
  }
  double origin(int axis) const { return origin_[axis]; }
  double length(int axis) const { return spacing_[axis] * static_cast<double>(cells_[axis]); }
  bool periodic(int axis) const { return periodic_[axis]; }
  BoundaryKind boundary(int axis, int side) const { return boundary_[axis][side].kind; }
  const FaceBoundary& face_boundary(int axis, int side) const { return boundary_[axis][side]; }
  std::array<PetscInt, 3> process_grid() const { return processes_; }

  DM cell_dm() const { return cell_dm_; }
  DM face_dm() const { return face_dm_; }

  /// Fills `local`, a local vector of the cell or the face DM, from `global`: the owned values
  /// and the halo of the grid's width, edges and corners included (halo_exchange.hpp), as
  /// DMGlobalToLocal would, without PETSc's per-entry index of the DM. Collective.
  PetscErrorCode global_to_local(DM dm, Vec global, Vec local) const;

  /// The cells this rank owns (identical for the cell and face DMs, bar the face DM's extra
  /// upper layer).
  const IndexBox& owned_cells() const { return owned_; }

  /// The owned index range of velocity component `component` as a field of faces: the owned
  /// cells plus, on the last rank of a non-periodic axis `component`, the upper boundary face.
  IndexBox owned_faces(int component) const;

  /// Number of faces of component `component` along `axis` in the whole domain.
  PetscInt face_count(int component, int axis) const {
    return cells_[axis] + ((component == axis && !periodic_[axis]) ? 1 : 0);
  }

  /// Number of velocity samples in the whole domain: the faces of every component.
  double face_samples() const {
    double total = 0.0;
    for (int c = 0; c < dim_; ++c) {
      double faces = 1.0;
      for (int a = 0; a < dim_; ++a) faces *= static_cast<double>(face_count(c, a));
      total += faces;
    }
    return total;
  }

  double cell_center(int axis, PetscInt index) const {
    return origin_[axis] + (static_cast<double>(index) + 0.5) * spacing_[axis];
  }
  double face_position(int axis, PetscInt index) const {
    return origin_[axis] + static_cast<double>(index) * spacing_[axis];
  }
  /// Position along `axis` of the sample point of a field component staggered on
  /// `stagger_axis` (-1 for cell-centred components).
  double sample_position(int axis, PetscInt index, int stagger_axis) const {
    return stagger_axis == axis ? face_position(axis, index) : cell_center(axis, index);
  }
  /// Centre of the face normal to axis c stored at (i, j, k): where velocity component c lives.
  void face_center(int c, PetscInt i, PetscInt j, PetscInt k, double x[3]) const {
    x[0] = sample_position(0, i, c);
    x[1] = sample_position(1, j, c);
    x[2] = sample_position(2, k, c);
  }

  /// Counts the decomposition's halo traffic (collective; a loop over ghost layers, run once).
  PetscErrorCode describe(Decomposition* decomposition) const;

  /// Views into a vector of the cell or face DM: owned entries of a global vector, or the whole
  /// ghosted extent of a local vector, over an array the caller holds. Code that gets the array
  /// itself uses VecArray (vec_array.hpp) instead, which restores it too.
  PetscErrorCode global_view(DM dm, PetscScalar* data, ArrayView* view) const {
    return make_view(dm, data, false, view);
  }
  PetscErrorCode local_view(DM dm, PetscScalar* data, ArrayView* view) const {
    return make_view(dm, data, true, view);
  }

private:
  PetscErrorCode make_view(DM dm, PetscScalar* data, bool ghosted, ArrayView* view) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int dim_ = 0;
  int halo_ = 0;
  std::array<PetscInt, 3> cells_{1, 1, 1};
  std::array<double, 3> spacing_{1.0, 1.0, 1.0};
  std::array<double, 3> origin_{0.0, 0.0, 0.0};
  std::array<bool, 3> periodic_{true, true, true};
  std::array<std::array<FaceBoundary, 2>, 3> boundary_{};
  std::array<PetscInt, 3> processes_{1, 1, 1};
  IndexBox owned_;
  OwnedDM cell_dm_;
  OwnedDM face_dm_;
  HaloExchange cell_halo_;
  HaloExchange face_halo_;
};

/// The mean of value(i', j', k') over the nearest cells along the axes from (i, j, k) that
/// accept(i', j', k') takes: those at distance 1 if there is one, else at 2, and so on up to
/// `reach`, within the domain on a bounded axis. False, and *mean untouched, if none is in reach.
/// (What continues a field into cells that are not its own: an obstacle's, ones just uncovered.)
template <typename Accept, typename Value>
bool nearest_along_axes(const Grid& grid, PetscInt i, PetscInt j, PetscInt k, int reach,
                        const Accept& accept, const Value& value, double* mean) {
  for (int distance = 1; distance <= reach; ++distance) {
    double sum = 0.0;
    int count = 0;
    for (int a = 0; a < grid.dim(); ++a)
      for (const int side : {-1, 1}) {
        PetscInt at[3] = {i, j, k};
        at[a] += side * distance;
        if (!grid.periodic(a) && (at[a] < 0 || at[a] >= grid.cells(a))) continue;
        if (!accept(at[0], at[1], at[2])) continue;
        sum += value(at[0], at[1], at[2]);
        ++count;
      }
    if (count > 0) {
      *mean = sum / count;
      return true;
    }
  }
  return false;
}

}  // namespace sf
