// Sources and forces: DESIGN.md step 2; Stam (1999) §2.2 (add force) and §2.4 (sources,
// dissipation); Cline et al. §9.3 (eqs. 26-29); Fedkiw, Stam & Jensen (2001).
//
// Where the quantities live on the MAC cell (i, j, k), e_c being one index step along axis c:
//   u_c(i,j,k)                 velocity component c on the cell's lower face normal to c, at
//                              x_c = face_position(c, idx_c), cell centres along the other axes;
//   rho, T, s, |omega|, F      cell centres.
//
// Forces. On every free face (SolidMask::fixed_face faces are prescribed and never touched):
//   f_c = g_c                                                   gravity
//       + 1/2 (b(idx - e_c) + b(idx)) up_c                      buoyancy (Cline eq. 27), with
//             b = -alpha rho + beta (T - T_amb)                 at cell centres
//       + 1/2 (F_c(idx - e_c) + F_c(idx))                       vorticity confinement, with
//             U_c   = 1/2 (u_c(idx) + u_c(idx + e_c))           cell-centred velocity
//             omega = curl U                                    central differences (eq. 28);
//                                                               2D: omega = (0, 0, omega_z)
//             N     = grad|omega| / |grad|omega||               central differences
//             F     = epsilon h (N x omega),  h = min_a h_a     (eq. 29)
//       + a_c for every force region containing the face centre
//   u_c <- u_c + dt f_c
// and then wind (Cline eq. 26) relaxes the faces inside its region (or all faces) towards w:
//   u_c <- (1 - r) u_c + r w_c,  r = min(1, rate dt).
// Every force is evaluated from the state on entry (the ghosted local vectors), so no force sees
// another one's increment. A face's two cells are idx - e_c and idx; at a domain boundary face the
// outside one is a ghost, continued with the field's boundary rule (buoyancy) or, for the
// confinement quantities, by mirror symmetry (zero normal gradient: the scalar ghost rule would
// make |omega| odd across an inflow face).
//
// Where |grad|omega|| is at rounding level relative to |omega| (a uniform flow, a solid-body
// rotation) N has no direction, only noise, and F would be a full-size force in a random
// direction. The force is zero there: N is used only where
// |grad|omega|| h > 1e-10 max|omega| over the gradient stencil.
//
// Distribution. |omega| is computed on the owned cells and its halo exchanged once. F is then
// computed on the owned cells and on the layer of cells just below them (inside the domain or
// across a periodic boundary), which needs |omega| and the face velocity two cells down: hence a
// halo of at least 2. A rank thus evaluates the lower cell of its first face itself, with the same
// formula and the same exchanged inputs as the cell's owner, instead of exchanging a force field.
//
// Scalar sources: in the fluid cells whose centre lies in the source region, s = v (Set) or
// s += v dt (Add); a source with a velocity also sets u_c = v_c on the free faces whose centre lies
// in the region. Dissipation (Stam): s <- s / (1 + dt a).
//
// Every value is a fixed-stencil function of global indices and field values, with no
// rank-dependent sum or order, so the result is bit-identical on any number of ranks.
#include "forces.hpp"

#include <algorithm>
#include <cmath>

#include "region.hpp"

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

/// Centre of the face of component c stored at (i, j, k).
inline void face_center(const Grid& grid, int c, PetscInt i, PetscInt j, PetscInt k, double x[3]) {
  x[0] = grid.sample_position(0, i, c);
  x[1] = grid.sample_position(1, j, c);
  x[2] = grid.sample_position(2, k, c);
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

/// Index of the buoyancy scalar called `name` in `scalars`, or -1 when the term is dropped (empty
/// name). A name that matches no scalar is an error unless its coefficient is zero.
PetscErrorCode resolve_scalar(MPI_Comm comm, const std::vector<ScalarConfig>& scalars,
                              const std::string& name, double coefficient, const char* role,
                              const char* coefficient_name, int* index) {
  PetscFunctionBeginUser;
  *index = -1;
  if (name.empty()) PetscFunctionReturn(0);
  for (size_t n = 0; n < scalars.size(); ++n)
    if (scalars[n].name == name) *index = static_cast<int>(n);
  PetscCheck(*index >= 0 || coefficient == 0.0, comm, PETSC_ERR_ARG_WRONG,
             "buoyancy: the %s scalar \"%s\" is not one of the job's scalars, but %s = %g is not "
             "zero",
             role, name.c_str(), coefficient_name, coefficient);
  PetscFunctionReturn(0);
}

}  // namespace

PetscErrorCode Forces::setup(const Grid& grid, const ForcesConfig& config, const SolidMask& solids,
                             const std::vector<ScalarConfig>& scalars) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  config_ = config;
  density_index_ = -1;
  temperature_index_ = -1;
  if (config.buoyancy.enabled) {
    PetscCall(resolve_scalar(grid.comm(), scalars, config.buoyancy.density_scalar,
                             config.buoyancy.alpha, "density", "alpha", &density_index_));
    PetscCall(resolve_scalar(grid.comm(), scalars, config.buoyancy.temperature_scalar,
                             config.buoyancy.beta, "temperature", "beta", &temperature_index_));
  }
  PetscCheck(config.vorticity_confinement >= 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "vorticity confinement epsilon must be >= 0, got %g", config.vorticity_confinement);
  PetscCheck(!config.wind.enabled || config.wind.rate >= 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "wind rate must be >= 0, got %g", config.wind.rate);

  confinement_force_.clear();
  if (config.vorticity_confinement > 0.0) {
    // The force at the cell below a rank's first cell needs |omega| one cell further down, from
    // the halo of vorticity_magnitude_, and the velocity two faces down.
    PetscCheck(grid.halo() >= 2, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
               "vorticity confinement needs a halo of at least 2, but the grid's halo is %d",
               grid.halo());
    PetscCall(vorticity_magnitude_.setup_scalar(grid, "vorticity_magnitude"));
    confinement_box_ = grid.owned_cells();
    for (int a = 0; a < grid.dim(); ++a) {
      const PetscInt below = confinement_box_.lo[a] - 1;
      if (grid.periodic(a) || below >= 0) confinement_box_.lo[a] = below;
    }
    confinement_force_.assign(static_cast<size_t>(confinement_box_.count() * 3), 0.0);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode Forces::compute_confinement(const Field& velocity) {
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
  const double scale = config_.vorticity_confinement * h;

  const PetscScalar* u_data;
  PetscCall(VecGetArrayRead(velocity.local(), &u_data));
  PetscCall(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(u_data), &curl.u));

  // omega on the whole box (kept for the force below, so the curl is evaluated once per cell),
  // |omega| on the owned cells, then the halo of |omega|: the gradient at a rank's edge needs its
  // neighbour's values.
  const ArrayView cell = box_view(confinement_box_, confinement_force_.data(), 3);
  const IndexBox& owned = grid.owned_cells();
  PetscScalar* eta_data;
  ArrayView eta;
  PetscCall(VecGetArray(vorticity_magnitude_.global(), &eta_data));
  PetscCall(grid.global_view(vorticity_magnitude_.dm(), eta_data, &eta));
  for_each_index(confinement_box_, [&](PetscInt i, PetscInt j, PetscInt k) {
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
  for_each_index(confinement_box_, [&](PetscInt i, PetscInt j, PetscInt k) {
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

PetscErrorCode Forces::apply(Field& velocity, const std::vector<Field>& scalars, double dt) {
  PetscFunctionBeginUser;
  PetscCheck(grid_ != nullptr, PETSC_COMM_SELF, PETSC_ERR_ORDER,
             "Forces::apply called before Forces::setup");
  const Grid& grid = *grid_;
  PetscCheck(&velocity.grid() == grid_ && velocity.dm() == grid.face_dm(), grid.comm(),
             PETSC_ERR_ARG_WRONG, "Forces::apply: the velocity is not a face field of this grid");
  PetscCheck(std::max(density_index_, temperature_index_) < static_cast<int>(scalars.size()),
             grid.comm(), PETSC_ERR_ARG_SIZ,
             "Forces::apply: %d scalars given, but buoyancy reads scalar %d",
             static_cast<int>(scalars.size()), std::max(density_index_, temperature_index_));
  const int dim = grid.dim();
  const SolidMask& solids = *solids_;
  const BuoyancyConfig& buoyancy = config_.buoyancy;
  const bool confine = config_.vorticity_confinement > 0.0;
  const bool buoyant = buoyancy.enabled && (density_index_ >= 0 || temperature_index_ >= 0);
  const bool regions = !config_.regions.empty();
  const bool gravity =
      config_.gravity[0] != 0.0 || config_.gravity[1] != 0.0 || config_.gravity[2] != 0.0;
  const bool additive = gravity || buoyant || confine || regions;
  const bool wind = config_.wind.enabled;
  if (!additive && !wind) PetscFunctionReturn(0);

  if (confine) PetscCall(compute_confinement(velocity));
  const ArrayView force = box_view(confinement_box_, confinement_force_.data(), 3);

  // Buoyancy reads the scalars' ghosted vectors: a face's lower cell may belong to the rank below.
  const PetscScalar* density_data = nullptr;
  const PetscScalar* temperature_data = nullptr;
  ArrayView density, temperature;
  if (buoyant && density_index_ >= 0) {
    const Field& field = scalars[static_cast<size_t>(density_index_)];
    PetscCall(VecGetArrayRead(field.local(), &density_data));
    PetscCall(grid.local_view(field.dm(), const_cast<PetscScalar*>(density_data), &density));
  }
  if (buoyant && temperature_index_ >= 0) {
    const Field& field = scalars[static_cast<size_t>(temperature_index_)];
    PetscCall(VecGetArrayRead(field.local(), &temperature_data));
    PetscCall(
        grid.local_view(field.dm(), const_cast<PetscScalar*>(temperature_data), &temperature));
  }
  const double alpha = buoyancy.alpha, beta = buoyancy.beta;
  const double ambient = buoyancy.ambient_temperature;
  auto buoyancy_at = [&](PetscInt i, PetscInt j, PetscInt k) {
    double b = 0.0;
    if (density_data) b -= alpha * density(i, j, k);
    if (temperature_data) b += beta * (temperature(i, j, k) - ambient);
    return b;
  };

  const double relax = wind ? std::min(1.0, config_.wind.rate * dt) : 0.0;
  const bool wind_everywhere = !config_.wind.has_region;

  PetscScalar* u_data;
  ArrayView u;
  PetscCall(VecGetArray(velocity.global(), &u_data));
  PetscCall(grid.global_view(velocity.dm(), u_data, &u));
  for (int c = 0; c < dim; ++c) {
    const double up = buoyancy.up[c];
    const double g = config_.gravity[c];
    const double w = config_.wind.velocity[c];
    const PetscInt di = c == 0, dj = c == 1, dk = c == 2;
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (solids.fixed_face(c, i, j, k)) return;
      double x[3] = {0.0, 0.0, 0.0};
      if (regions || (wind && !wind_everywhere)) face_center(grid, c, i, j, k, x);
      if (additive) {
        double f = g;
        if (buoyant) f += 0.5 * (buoyancy_at(i - di, j - dj, k - dk) + buoyancy_at(i, j, k)) * up;
        if (confine) {
          // Beyond a non-periodic boundary the cell's force is its mirror image's.
          const PetscInt p[3] = {i, j, k};
          PetscInt below[3] = {i, j, k}, above[3] = {i, j, k};
          below[c] = even_mirror(grid, c, p[c] - 1);
          above[c] = even_mirror(grid, c, p[c]);
          f += 0.5 *
               (force(below[0], below[1], below[2], c) + force(above[0], above[1], above[2], c));
        }
        for (const ForceRegion& region : config_.regions)
          if (region_contains(region.region, x, dim)) f += region.acceleration[c];
        // A zero force is no update: the face keeps its bits, a signed zero included.
        if (f != 0.0) u(i, j, k, c) += dt * f;
      }
      if (wind && (wind_everywhere || region_contains(config_.wind.region, x, dim)))
        u(i, j, k, c) = (1.0 - relax) * u(i, j, k, c) + relax * w;
    });
  }
  PetscCall(VecRestoreArray(velocity.global(), &u_data));
  if (temperature_data) {
    PetscCall(VecRestoreArrayRead(scalars[static_cast<size_t>(temperature_index_)].local(),
                                  &temperature_data));
  }
  if (density_data) {
    PetscCall(
        VecRestoreArrayRead(scalars[static_cast<size_t>(density_index_)].local(), &density_data));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode apply_sources(const ScalarConfig& config, Field& scalar, Field& velocity,
                             const SolidMask& solids, double dt) {
  PetscFunctionBeginUser;
  if (config.sources.empty()) PetscFunctionReturn(0);
  const Grid& grid = scalar.grid();
  PetscCheck(&velocity.grid() == &grid, grid.comm(), PETSC_ERR_ARG_WRONG,
             "apply_sources: scalar \"%s\" and the velocity live on different grids",
             scalar.name().c_str());
  const int dim = grid.dim();
  const bool blows = std::any_of(config.sources.begin(), config.sources.end(),
                                 [](const ScalarSource& source) { return source.has_velocity; });

  PetscScalar* s_data;
  ArrayView s;
  PetscCall(VecGetArray(scalar.global(), &s_data));
  PetscCall(grid.global_view(scalar.dm(), s_data, &s));
  PetscScalar* u_data = nullptr;
  ArrayView u;
  if (blows) {
    PetscCall(VecGetArray(velocity.global(), &u_data));
    PetscCall(grid.global_view(velocity.dm(), u_data, &u));
  }
  // Sources are applied in job order, so a later source wins where Set regions overlap.
  for (const ScalarSource& source : config.sources) {
    const bool set = source.mode == ScalarSource::Mode::Set;
    const double increment = source.value * dt;
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (solids.solid(i, j, k)) return;
      const double x[3] = {grid.cell_center(0, i), grid.cell_center(1, j), grid.cell_center(2, k)};
      if (!region_contains(source.region, x, dim)) return;
      s(i, j, k) = set ? source.value : s(i, j, k) + increment;
    });
    if (!source.has_velocity) continue;
    for (int c = 0; c < dim; ++c) {
      const double value = source.velocity[c];
      for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
        if (solids.fixed_face(c, i, j, k)) return;
        double x[3];
        face_center(grid, c, i, j, k, x);
        if (region_contains(source.region, x, dim)) u(i, j, k, c) = value;
      });
    }
  }
  if (blows) PetscCall(VecRestoreArray(velocity.global(), &u_data));
  PetscCall(VecRestoreArray(scalar.global(), &s_data));
  PetscFunctionReturn(0);
}

PetscErrorCode dissipate(Field& scalar, double rate, double dt) {
  PetscFunctionBeginUser;
  const Grid& grid = scalar.grid();
  PetscCheck(rate >= 0.0 && dt >= 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "dissipation of \"%s\" needs rate >= 0 and dt >= 0, got rate %g, dt %g",
             scalar.name().c_str(), rate, dt);
  if (rate == 0.0) PetscFunctionReturn(0);
  const double denominator = 1.0 + dt * rate;
  PetscScalar* data;
  ArrayView s;
  PetscCall(VecGetArray(scalar.global(), &data));
  PetscCall(grid.global_view(scalar.dm(), data, &s));
  for_each_index(grid.owned_cells(),
                 [&](PetscInt i, PetscInt j, PetscInt k) { s(i, j, k) /= denominator; });
  PetscCall(VecRestoreArray(scalar.global(), &data));
  PetscFunctionReturn(0);
}

}  // namespace sf
