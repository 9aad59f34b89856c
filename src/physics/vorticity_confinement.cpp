#include "vorticity_confinement.hpp"

#include <algorithm>
#include <cmath>

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

/// A view of a dof-component array laid out over `box` (x fastest, like a DMDA vector).
inline ArrayView box_view(const IndexBox& box, PetscScalar* data, PetscInt dof) {
  return ArrayView{data, box.lo, {box.size(0), box.size(1), box.size(2)}, dof};
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
  // the halo of vorticity_magnitude_, and the velocity two faces down.
  PetscCheck(grid.halo() >= 2, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "vorticity confinement needs a halo of at least 2, but the grid's halo is %d",
             grid.halo());
  PetscCall(vorticity_magnitude_.setup_scalar(grid, "vorticity_magnitude"));
  box_ = grid.owned_cells();
  for (int a = 0; a < grid.dim(); ++a) {
    const PetscInt below = box_.lo[a] - 1;
    if (grid.periodic(a) || below >= 0) box_.lo[a] = below;
  }
  force_.assign(static_cast<size_t>(box_.count() * 3), 0.0);
  PetscFunctionReturn(0);
}

PetscErrorCode VorticityConfinement::compute(const Field& velocity) {
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

  const PetscScalar* u_data;
  PetscCall(VecGetArrayRead(velocity.local(), &u_data));
  PetscCall(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(u_data), &curl.u));

  // omega on the whole box (kept for the force below, so the curl is evaluated once per cell),
  // |omega| on the owned cells, then the halo of |omega|: the gradient at a rank's edge needs its
  // neighbour's values.
  const ArrayView cell = box_view(box_, force_.data(), 3);
  const IndexBox& owned = grid.owned_cells();
  PetscScalar* eta_data;
  ArrayView eta;
  PetscCall(VecGetArray(vorticity_magnitude_.global(), &eta_data));
  PetscCall(grid.global_view(vorticity_magnitude_.dm(), eta_data, &eta));
  for_each_index(box_, [&](PetscInt i, PetscInt j, PetscInt k) {
    double* omega = &cell(i, j, k);
    curl(i, j, k, omega);
    if (owned.contains(i, j, k))
      eta(i, j, k) = std::sqrt(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]);
  });
  PetscCall(VecRestoreArray(vorticity_magnitude_.global(), &eta_data));
  PetscCall(vorticity_magnitude_.fill_ghosts());

  // F replaces omega cell by cell: each cell's force needs only its own omega.
  const PetscScalar* eta_local;
  PetscCall(VecGetArrayRead(vorticity_magnitude_.local(), &eta_local));
  PetscCall(grid.local_view(vorticity_magnitude_.dm(), const_cast<PetscScalar*>(eta_local), &eta));
  for_each_index(box_, [&](PetscInt i, PetscInt j, PetscInt k) {
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
    double* out = &cell(i, j, k);
    const double norm = std::sqrt(gradient[0] * gradient[0] + gradient[1] * gradient[1] +
                                  gradient[2] * gradient[2]);
    if (!(norm * h > kFlatVorticity * largest)) {
      out[0] = out[1] = out[2] = 0.0;
      return;
    }
    const double n[3] = {gradient[0] / norm, gradient[1] / norm, gradient[2] / norm};
    const double omega[3] = {out[0], out[1], out[2]};
    out[0] = scale * (n[1] * omega[2] - n[2] * omega[1]);
    out[1] = scale * (n[2] * omega[0] - n[0] * omega[2]);
    out[2] = scale * (n[0] * omega[1] - n[1] * omega[0]);
  });
  PetscCall(VecRestoreArrayRead(vorticity_magnitude_.local(), &eta_local));
  PetscCall(VecRestoreArrayRead(velocity.local(), &u_data));
  PetscFunctionReturn(0);
}

PetscErrorCode VorticityConfinement::add_to(const ForceState& state, const ArrayView& u) {
  PetscFunctionBeginUser;
  PetscCall(compute(state.velocity));
  const Grid& grid = *grid_;
  const ArrayView force = box_view(box_, force_.data(), 3);
  state.faces.for_each([&](int c, PetscInt i, PetscInt j, PetscInt k) {
    // Beyond a non-periodic boundary the cell's force is its mirror image's.
    const PetscInt p[3] = {i, j, k};
    PetscInt below[3] = {i, j, k}, above[3] = {i, j, k};
    below[c] = even_mirror(grid, c, p[c] - 1);
    above[c] = even_mirror(grid, c, p[c]);
    accelerate(u(i, j, k, c), state.dt,
               0.5 * (force(below[0], below[1], below[2], c) +
                      force(above[0], above[1], above[2], c)));
  });
  PetscFunctionReturn(0);
}

}  // namespace sf
