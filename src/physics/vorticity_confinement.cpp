#include "vorticity_confinement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sf {

namespace {

/// Below this ratio |grad|omega|| h / |omega| the gradient of |omega| is rounding noise.
constexpr double kFlatVorticity = 1e-10;

/// The index a cell-centred quantity is read at for cell `index` along `axis`: the cell itself
/// inside the domain and along periodic axes (the halo holds the wrapped copy), its mirror image in
/// the boundary plane beyond a non-periodic boundary (zero normal gradient).
inline PetscInt even_mirror(const Grid& grid, int axis, PetscInt index) {
  if (grid.periodic(axis)) return index;
  const PetscInt n = grid.cells(axis);
  if (index < 0) return -index - 1;
  if (index >= n) return 2 * n - 1 - index;
  return index;
}

/// Vorticity of the cell-centred velocity by central differences, read from the ghosted face
/// velocity. Cell (i, j, k) needs the faces of its neighbours along every axis, so with a halo of
/// 2 it can be evaluated on the owned cells and one layer beyond them.
struct Curl {
  ArrayView u;
  int dim = 3;
  std::array<double, 3> inv_2h{0.0, 0.0, 0.0};  // 1 / (2 h_a)

  double cell_velocity(int c, PetscInt i, PetscInt j, PetscInt k) const {
    return 0.5 * (u(i, j, k, c) + u(i + (c == 0), j + (c == 1), k + (c == 2), c));
  }
  /// dU_c / dx_a at the centre of cell (i, j, k).
  double derivative(int c, int a, PetscInt i, PetscInt j, PetscInt k) const {
    const PetscInt di = a == 0, dj = a == 1, dk = a == 2;
    return (cell_velocity(c, i + di, j + dj, k + dk) - cell_velocity(c, i - di, j - dj, k - dk)) *
           inv_2h[a];
  }
  void operator()(PetscInt i, PetscInt j, PetscInt k, double omega[3]) const {
    omega[2] = derivative(1, 0, i, j, k) - derivative(0, 1, i, j, k);
    if (dim == 2) {
      omega[0] = omega[1] = 0.0;
      return;
    }
    omega[0] = derivative(2, 1, i, j, k) - derivative(1, 2, i, j, k);
    omega[1] = derivative(0, 2, i, j, k) - derivative(2, 0, i, j, k);
  }
};

}  // namespace

PetscErrorCode VorticityConfinement::setup(const Grid& grid, double epsilon) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  epsilon_ = epsilon;
  PetscCheck(epsilon > 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "vorticity confinement epsilon must be > 0 where it acts, got %g", epsilon);
  // The force at the cell below a rank's first cell needs |omega| one cell further down, from
  // the exchanged halo of |omega|, and the velocity two faces down.
  PetscCheck(grid.halo() >= 2, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "vorticity confinement needs a halo of at least 2, but the grid's halo is %d",
             grid.halo());
  box_ = grid.owned_cells();
  for (int a = 0; a < grid.dim(); ++a) {
    const PetscInt below = box_.lo[a] - 1;
    if (grid.periodic(a) || below >= 0) box_.lo[a] = below;
  }
  // Two planes of F: 2 x 24 bytes per cell of one z plane of the box (0.75 B/cell at 128^3 on
  // 2 ranks, against 25 B/cell for F on the whole box).
  const size_t plane_values = static_cast<size_t>(box_.size(0) * box_.size(1) * 3);
  for (auto& plane : planes_) plane.assign(plane_values, 0.0);
  PetscFunctionReturn(0);
}

PetscErrorCode VorticityConfinement::add_to(const ForceState& state, const ArrayView& u) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  Curl curl;
  curl.dim = dim;
  double h = grid.spacing(0);
  for (int a = 0; a < dim; ++a) {
    curl.inv_2h[a] = 0.5 / grid.spacing(a);
    h = std::min(h, grid.spacing(a));
  }
  const double scale = epsilon_ * h;
  const Field& velocity = state.velocity;

  const PetscScalar* u_data;
  PetscCall(VecGetArrayRead(velocity.local(), &u_data));
  PetscCall(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(u_data), &curl.u));

  // |omega| on the owned cells, then its halo: the gradient at a rank's edge needs its
  // neighbour's values. Cells outside a non-periodic boundary are never read (even_mirror).
  DM cell_dm = grid.cell_dm();
  Vec eta_global, eta_local;
  PetscScalar* eta_data;
  ArrayView eta;
  PetscCall(DMGetGlobalVector(cell_dm, &eta_global));
  PetscCall(VecGetArray(eta_global, &eta_data));
  PetscCall(grid.global_view(cell_dm, eta_data, &eta));
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    double omega[3];
    curl(i, j, k, omega);
    eta(i, j, k) = std::sqrt(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]);
  });
  PetscCall(VecRestoreArray(eta_global, &eta_data));
  PetscCall(DMGetLocalVector(cell_dm, &eta_local));
  PetscCall(DMGlobalToLocalBegin(cell_dm, eta_global, INSERT_VALUES, eta_local));
  PetscCall(DMGlobalToLocalEnd(cell_dm, eta_global, INSERT_VALUES, eta_local));
  PetscCall(DMRestoreGlobalVector(cell_dm, &eta_global));
  const PetscScalar* eta_local_data;
  PetscCall(VecGetArrayRead(eta_local, &eta_local_data));
  PetscCall(grid.local_view(cell_dm, const_cast<PetscScalar*>(eta_local_data), &eta));

  // F at one cell: each cell's force needs only its own omega and |omega| around it.
  auto cell_force = [&](PetscInt i, PetscInt j, PetscInt k, double out[3]) {
    const PetscInt p[3] = {i, j, k};
    double gradient[3] = {0.0, 0.0, 0.0};
    double largest = eta(i, j, k);
    for (int a = 0; a < dim; ++a) {
      PetscInt below[3] = {i, j, k}, above[3] = {i, j, k};
      below[a] = even_mirror(grid, a, p[a] - 1);
      above[a] = even_mirror(grid, a, p[a] + 1);
      const double eta_below = eta(below[0], below[1], below[2]);
      const double eta_above = eta(above[0], above[1], above[2]);
      gradient[a] = (eta_above - eta_below) * curl.inv_2h[a];
      largest = std::max(largest, std::max(eta_below, eta_above));
    }
    const double norm = std::sqrt(gradient[0] * gradient[0] + gradient[1] * gradient[1] +
                                  gradient[2] * gradient[2]);
    if (!(norm * h > kFlatVorticity * largest)) {
      out[0] = out[1] = out[2] = 0.0;
      return;
    }
    const double n[3] = {gradient[0] / norm, gradient[1] / norm, gradient[2] / norm};
    double omega[3];
    curl(i, j, k, omega);
    out[0] = scale * (n[1] * omega[2] - n[2] * omega[1]);
    out[1] = scale * (n[2] * omega[0] - n[0] * omega[2]);
    out[2] = scale * (n[0] * omega[1] - n[1] * omega[0]);
  };

  // F on cell plane kc of the box, computed when a face plane first needs it; a face plane k
  // needs cell plane k (x and y faces) and k - 1 (z faces), so two planes are held.
  constexpr PetscInt kNone = std::numeric_limits<PetscInt>::min();
  std::array<PetscInt, 2> held{kNone, kNone};
  std::array<ArrayView, 2> force;
  auto plane = [&](PetscInt kc) -> const ArrayView& {
    const size_t slot = static_cast<size_t>(kc & 1);
    ArrayView& view = force[slot];
    if (held[slot] != kc) {
      view = ArrayView{planes_[slot].data(), {box_.lo[0], box_.lo[1], kc},
                       {box_.size(0), box_.size(1), 1}, 3};
      for (PetscInt j = box_.lo[1]; j < box_.hi[1]; ++j)
        for (PetscInt i = box_.lo[0]; i < box_.hi[0]; ++i) cell_force(i, j, kc, &view(i, j, kc));
      held[slot] = kc;
    }
    return view;
  };

  // f_c on the free faces, one face plane at a time; beyond a non-periodic boundary the cell's
  // force is its mirror image's.
  std::array<IndexBox, 3> faces;
  PetscInt first = box_.hi[2], last = box_.lo[2];
  for (int c = 0; c < dim; ++c) {
    faces[c] = grid.owned_faces(c);
    first = std::min(first, faces[c].lo[2]);
    last = std::max(last, faces[c].hi[2]);
  }
  for (PetscInt k = first; k < last; ++k) {
    for (int c = 0; c < dim; ++c) {
      if (k < faces[c].lo[2] || k >= faces[c].hi[2]) continue;  // z faces: one more plane on top
      const PetscInt k_below = c == 2 ? even_mirror(grid, 2, k - 1) : k;
      const PetscInt k_above = c == 2 ? even_mirror(grid, 2, k) : k;
      const ArrayView& below_plane = plane(k_below);
      const ArrayView& above_plane = plane(k_above);
      state.faces.for_each_in_plane(c, k, [&](int, PetscInt i, PetscInt j, PetscInt) {
        const PetscInt p[3] = {i, j, k};
        PetscInt below[3] = {i, j, k_below}, above[3] = {i, j, k_above};
        if (c < 2) {
          below[c] = even_mirror(grid, c, p[c] - 1);
          above[c] = even_mirror(grid, c, p[c]);
        }
        accelerate(u(i, j, k, c), state.dt,
                   0.5 * (below_plane(below[0], below[1], below[2], c) +
                          above_plane(above[0], above[1], above[2], c)));
      });
    }
  }
  PetscCall(VecRestoreArrayRead(eta_local, &eta_local_data));
  PetscCall(DMRestoreLocalVector(cell_dm, &eta_local));
  PetscCall(VecRestoreArrayRead(velocity.local(), &u_data));
  PetscFunctionReturn(0);
}

}  // namespace sf
