#include "vorticity_confinement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lanes.hpp"
#include "vec_array.hpp"

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

// The formulas below are written once for one cell (double) and four neighbours along x
// (Lanes): rows go four cells at a time and their ends one cell at a time, with the same bits
// (lanes.hpp), so the result does not depend on where a rank's rows start.
inline double square_root(double x) { return std::sqrt(x); }
inline Lanes square_root(Lanes x) { return lane_sqrt(x); }
/// std::max's comparison, on doubles or lanes.
template <typename Real>
Real larger(Real a, Real b) {
  return a < b ? b : a;
}

/// Vorticity of the cell-centred velocity by central differences, read from the ghosted face
/// velocity. Cell (i, j, k) needs the faces of its neighbours along every axis, so with a halo of
/// 2 it can be evaluated on the owned cells and one layer beyond them. Neighbours are reached by
/// constant strides from the cell's first face, so a cell costs one index computation.
struct Curl {
  Curl(const ConstArrayView& velocity, const Grid& grid) : u(velocity), dim(grid.dim()) {
    stride = {u.dof, u.dof * u.width[0], u.dof * u.width[0] * u.width[1]};
    for (int a = 0; a < dim; ++a) inv_2h[a] = 0.5 / grid.spacing(a);
  }

  /// omega at a cell; load(o) reads the face velocity o entries from the cell's first face.
  template <typename Real, typename Load>
  void evaluate(const Load& load, Real omega[3]) const {
    // U_c of the cell `at` entries away, and dU_c / dx_a at the cell.
    auto cell_velocity = [&](int c, PetscInt at) {
      return 0.5 * (load(at + c) + load(at + c + stride[c]));
    };
    auto derivative = [&](int c, int a) {
      return (cell_velocity(c, stride[a]) - cell_velocity(c, -stride[a])) * inv_2h[a];
    };
    omega[2] = derivative(1, 0) - derivative(0, 1);
    if (dim == 2) {
      omega[0] = omega[1] = Real{};
      return;
    }
    omega[0] = derivative(2, 1) - derivative(1, 2);
    omega[1] = derivative(0, 2) - derivative(2, 0);
  }
  void operator()(PetscInt i, PetscInt j, PetscInt k, double omega[3]) const {
    const PetscScalar* p = u.data + u.offset(i, j, k);
    evaluate<double>([p](PetscInt o) { return p[o]; }, omega);
  }
  /// omega at cells i .. i+3 of row (j, k).
  void lanes(PetscInt i, PetscInt j, PetscInt k, Lanes omega[3]) const {
    const PetscScalar* p = u.data + u.offset(i, j, k);
    const auto dof = static_cast<std::int32_t>(u.dof);
    const LaneIndex next = {0, dof, 2 * dof, 3 * dof};
    evaluate<Lanes>([&](PetscInt o) { return gather(p + o, next); }, omega);
  }

  ConstArrayView u;
  int dim;
  std::array<PetscInt, 3> stride;                // between neighbours along x, y, z
  std::array<double, 3> inv_2h{0.0, 0.0, 0.0};  // 1 / (2 h_a)
};

/// F = epsilon h (N x omega) at a cell from |omega| there (eta), at its neighbours below and
/// above along each axis, and omega; zero where N has no direction (see the header).
template <typename Real>
void confinement_force(int dim, Real eta, const Real below[3], const Real above[3],
                       const Real omega[3], const std::array<double, 3>& inv_2h, double h,
                       double scale, Real out[3]) {
  Real gradient[3] = {Real{}, Real{}, Real{}};
  Real largest = eta;
  for (int a = 0; a < dim; ++a) {
    gradient[a] = (above[a] - below[a]) * inv_2h[a];
    largest = larger(largest, larger(below[a], above[a]));
  }
  const Real norm = square_root(gradient[0] * gradient[0] + gradient[1] * gradient[1] +
                                gradient[2] * gradient[2]);
  const auto directed = norm * h > kFlatVorticity * largest;
  const Real one = Real{} + 1.0;
  const Real divisor = directed ? norm : one;  // no division by a zero norm, even unused
  const Real n[3] = {gradient[0] / divisor, gradient[1] / divisor, gradient[2] / divisor};
  out[0] = directed ? scale * (n[1] * omega[2] - n[2] * omega[1]) : Real{};
  out[1] = directed ? scale * (n[2] * omega[0] - n[0] * omega[2]) : Real{};
  out[2] = directed ? scale * (n[0] * omega[1] - n[1] * omega[0]) : Real{};
}

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
  const double h = grid.min_spacing();
  const double scale = epsilon_ * h;
  const Field& velocity = state.velocity;

  ReadArray u_local;
  PetscCall(u_local.get_local(velocity));
  const Curl curl(u_local, grid);

  // |omega| on the owned cells, then its halo: the gradient at a rank's edge needs its
  // neighbour's values. Cells outside a non-periodic boundary are never read (even_mirror).
  DM cell_dm = grid.cell_dm();
  BorrowedVec eta_global, eta_local;
  WriteArray eta_out;
  PetscCall(eta_global.get_global(cell_dm));
  PetscCall(eta_out.get_global(cell_dm, eta_global));
  const IndexBox owned = grid.owned_cells();
  for (PetscInt k = owned.lo[2]; k < owned.hi[2]; ++k)
    for (PetscInt j = owned.lo[1]; j < owned.hi[1]; ++j) {
      PetscScalar* row = &eta_out(owned.lo[0], j, k);
      PetscInt i = owned.lo[0];
      for (; i + kLanes <= owned.hi[0]; i += kLanes) {
        Lanes omega[3];
        curl.lanes(i, j, k, omega);
        store_lanes(square_root(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]),
                    row + (i - owned.lo[0]));
      }
      for (; i < owned.hi[0]; ++i) {
        double omega[3];
        curl(i, j, k, omega);
        row[i - owned.lo[0]] =
            square_root(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]);
      }
    }
  PetscCall(eta_out.restore());
  PetscCall(eta_local.get_local(cell_dm));
  PetscCall(grid.global_to_local(cell_dm, eta_global, eta_local));
  PetscCall(eta_global.give_back());
  ReadArray eta_array;
  PetscCall(eta_array.get_local(cell_dm, eta_local));
  const ConstArrayView& eta = eta_array.view();

  // F on one row (j, kc) of the box into a plane: four cells at a time where both x neighbours
  // are plain neighbours (inside the domain or across a periodic boundary), else one by one.
  const PetscInt eta_stride[3] = {1, eta.width[0], eta.width[0] * eta.width[1]};
  // Offset in eta of the neighbour of cell `index` on `side` (-1, +1) along axis a.
  auto neighbour = [&](int a, PetscInt index, int side) {
    return (even_mirror(grid, a, index + side) - index) * eta_stride[a];
  };
  const bool periodic_x = grid.periodic(0);
  const PetscInt lanes_lo = periodic_x ? box_.lo[0] : std::max<PetscInt>(box_.lo[0], 1);
  const PetscInt lanes_hi =
      periodic_x ? box_.hi[0] : std::min<PetscInt>(box_.hi[0], grid.cells(0) - 1);
  auto force_row = [&](PetscInt j, PetscInt kc, const ArrayView& plane) {
    // Neighbours along y and z are the same for the whole row.
    PetscInt below_at[3] = {-1, 0, 0}, above_at[3] = {1, 0, 0};
    for (int a = 1; a < dim; ++a) {
      below_at[a] = neighbour(a, a == 1 ? j : kc, -1);
      above_at[a] = neighbour(a, a == 1 ? j : kc, 1);
    }
    PetscInt i = box_.lo[0];
    while (i < box_.hi[0]) {
      const PetscScalar* e = eta.data + eta.offset(i, j, kc);
      if (i >= lanes_lo && i + kLanes <= lanes_hi) {
        Lanes below[3] = {}, above[3] = {}, omega[3], out[3];
        for (int a = 0; a < dim; ++a) {
          below[a] = load_lanes(e + below_at[a]);
          above[a] = load_lanes(e + above_at[a]);
        }
        curl.lanes(i, j, kc, omega);
        confinement_force(dim, load_lanes(e), below, above, omega, curl.inv_2h, h, scale, out);
        for (int l = 0; l < kLanes; ++l)
          for (int c = 0; c < 3; ++c) plane(i + l, j, kc, c) = out[c][l];
        i += kLanes;
      } else {
        double below[3] = {}, above[3] = {}, omega[3];
        for (int a = 0; a < dim; ++a) {
          below[a] = e[a == 0 ? neighbour(0, i, -1) : below_at[a]];
          above[a] = e[a == 0 ? neighbour(0, i, 1) : above_at[a]];
        }
        curl(i, j, kc, omega);
        confinement_force(dim, e[0], below, above, omega, curl.inv_2h, h, scale, &plane(i, j, kc));
        i += 1;
      }
    }
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
      for (PetscInt j = box_.lo[1]; j < box_.hi[1]; ++j) force_row(j, kc, view);
      held[slot] = kc;
    }
    return view;
  };

  // f_c on the free faces, one face plane at a time, a run of faces along x at a time; beyond a
  // non-periodic boundary the cell's force is its mirror image's.
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
      state.faces.for_each_run_in_plane(c, k, [&](PetscInt j, PetscInt begin, PetscInt end) {
        const PetscInt j_below = c == 1 ? even_mirror(grid, 1, j - 1) : j;
        const PetscInt j_above = c == 1 ? even_mirror(grid, 1, j) : j;
        // F_c of the cells below and above face i: entry 3 (i - box_.lo[0]) + c of these rows.
        const PetscScalar* below_row = &below_plane(box_.lo[0], j_below, k_below, c);
        const PetscScalar* above_row = &above_plane(box_.lo[0], j_above, k_above, c);
        PetscScalar* face = &u(begin, j, k, c);
        for (PetscInt i = begin; i < end; ++i, face += u.dof) {
          const PetscInt i_below = c == 0 ? even_mirror(grid, 0, i - 1) : i;
          const PetscInt i_above = c == 0 ? even_mirror(grid, 0, i) : i;
          accelerate(*face, state.dt,
                     0.5 * (below_row[3 * (i_below - box_.lo[0])] +
                            above_row[3 * (i_above - box_.lo[0])]));
        }
      });
    }
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
