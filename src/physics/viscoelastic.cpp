#include "viscoelastic.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "limiters.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

/// Position of E_ab among the strain scalars, in ViscoelasticConfig::kStrainNames' order with
/// the z entries left out in 2D: xx yy xy (2D), xx yy zz xy xz yz (3D).
int component_of(int a, int b, int dim) {
  if (a == b) return a;
  const int lo = std::min(a, b), hi = std::max(a, b);
  if (dim == 2) return 2;
  return lo == 0 ? 2 + hi : 5;  // xy 3, xz 4, yz 5
}

/// The row and column (a <= b) of each strain component, by its position among them.
struct Entries {
  std::array<int, 6> row{}, column{};
};
Entries entries_of(int dim) {
  Entries e;
  for (int a = 0; a < dim; ++a)
    for (int b = a; b < dim; ++b) {
      const int n = component_of(a, b, dim);
      e.row[n] = a;
      e.column[n] = b;
    }
  return e;
}

/// The strain components' vectors, opened together: the global ones to write
/// (StrainArrays<Access::Write>) or the local ones to read with their ghosts (Access::Read).
template <Access A>
class StrainArrays {
public:
  PetscErrorCode open(const std::vector<Field>& scalars, int first, int count) {
    PetscFunctionBeginUser;
    for (int n = 0; n < count; ++n) {
      const Field& field = scalars[static_cast<size_t>(first + n)];
      if constexpr (A == Access::Write) {
        PetscCall(arrays_[n].get_global(field));
      } else {
        PetscCall(arrays_[n].get_local(field));
      }
    }
    PetscFunctionReturn(0);
  }
  const typename VecArray<A>::View& operator[](int n) const { return arrays_[n].view(); }

private:
  std::array<VecArray<A>, 6> arrays_;
};

}  // namespace

int Viscoelastic::strain_index(int a, int b) const {
  return config_.first_strain + component_of(a, b, grid_->dim());
}

PetscErrorCode Viscoelastic::setup(const Grid& grid, const SolidMask& solids,
                                   const ViscoelasticConfig& config,
                                   const std::vector<ScalarConfig>& job_scalars, bool liquid) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  config_ = config;
  if (!config.enabled) PetscFunctionReturn(0);
  components_ = grid.dim() == 2 ? 3 : 6;
  PetscCheck(config.first_strain >= 0 &&
                 config.first_strain + components_ <= static_cast<int>(job_scalars.size()),
             grid.comm(), PETSC_ERR_ARG_WRONG,
             "viscoelastic: the job has no strain scalars (parse_job adds them)");
  material_is_liquid_ = config.material.empty();
  if (material_is_liquid_) {
    PetscCheck(liquid, grid.comm(), PETSC_ERR_ARG_WRONG,
               "viscoelastic: no material scalar is given and the job has no liquid");
    material_index_ = static_cast<int>(job_scalars.size());  // the level set comes last
  } else {
    for (size_t n = 0; n < job_scalars.size(); ++n)
      if (job_scalars[n].name == config.material) material_index_ = static_cast<int>(n);
    PetscCheck(material_index_ >= 0, grid.comm(), PETSC_ERR_ARG_WRONG,
               "viscoelastic: the material scalar \"%s\" is not one of the job's scalars",
               config.material.c_str());
  }
  // Its own event in the "forces" clock, as each force has (-log_view); a second simulation in
  // the same process (tests) finds it registered.
  static PetscClassId viscoelastic_class = -1;
  if (viscoelastic_class < 0) PetscCall(PetscClassIdRegister("Viscoelastic", &viscoelastic_class));
  PetscCall(PetscLogEventGetId("Viscoelastic", &event_));
  if (event_ < 0) PetscCall(PetscLogEventRegister("Viscoelastic", viscoelastic_class, &event_));
  faces_.setup(grid, solids);
  PetscFunctionReturn(0);
}

PetscErrorCode Viscoelastic::apply(Field& velocity, std::vector<Field>& scalars, double dt) {
  PetscFunctionBeginUser;
  if (!config_.enabled) PetscFunctionReturn(0);
  PetscCall(PetscLogEventBegin(event_, 0, 0, 0, 0));
  PetscCall(update_strain(velocity, scalars, dt));
  // The force's stencil reads E one cell beyond the owned ones, and the advection that follows
  // traces into the halo: both need the new E there.
  PetscCall(fill_strain_ghosts(scalars));
  PetscCall(add_force(scalars, velocity, dt));
  PetscCall(PetscLogEventEnd(event_, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode Viscoelastic::fill_strain_ghosts(std::vector<Field>& scalars) const {
  PetscFunctionBeginUser;
  for (int n = 0; n < components_; ++n)
    PetscCall(scalars[static_cast<size_t>(config_.first_strain + n)].fill_ghosts());
  PetscFunctionReturn(0);
}

PetscErrorCode Viscoelastic::update_strain(const Field& velocity, std::vector<Field>& scalars,
                                           double dt) {
  PetscFunctionBeginUser;
  if (!config_.enabled) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  PetscCheck(material_index_ < static_cast<int>(scalars.size()), grid.comm(), PETSC_ERR_ARG_SIZ,
             "viscoelastic: %d scalars given, but the material is scalar %d",
             static_cast<int>(scalars.size()), material_index_);
  // An edge reads the material of the cells about it, one beyond the owned ones.
  Field& material = scalars[static_cast<size_t>(material_index_)];
  PetscCall(material.fill_ghosts());
  ReadArray m, u;
  PetscCall(m.get_local(material));
  PetscCall(u.get_local(velocity));
  std::array<double, 3> h{1.0, 1.0, 1.0};
  for (int a = 0; a < dim; ++a) h[a] = grid.spacing(a);
  const bool liquid = material_is_liquid_;
  const double threshold = config_.threshold;
  const int components = components_;
  const Entries entries = entries_of(dim);
  const auto& row = entries.row;
  const auto& column = entries.column;
  // Whether cell (i, j, k) (local, possibly in the halo) is of the material; `counts` is false
  // for a cell that has no say: beyond a wall, or an obstacle's.
  const auto material_cell = [&](PetscInt i, PetscInt j, PetscInt k, bool* counts) {
    const PetscInt at[3] = {i, j, k};
    *counts = !solids_->solid(i, j, k);
    for (int a = 0; a < dim; ++a)
      if (!grid.periodic(a) && (at[a] < 0 || at[a] >= grid.cells(a))) *counts = false;
    if (!*counts) return false;
    const double s = m(i, j, k);
    return liquid ? s < 0.0 : s >= threshold;
  };
  // E_ab's edge (at the lower corner of cell idx across a and b) is of the material when every
  // cell about it that has a say is, and one does: the surface's edges hold no shear strain.
  const auto material_edge = [&](int a, int b, PetscInt i, PetscInt j, PetscInt k) {
    int inside = 0, counted = 0;
    for (int da = 0; da < 2; ++da)
      for (int db = 0; db < 2; ++db) {
        PetscInt at[3] = {i, j, k};
        at[a] -= da;
        at[b] -= db;
        bool counts = false;
        inside += material_cell(at[0], at[1], at[2], &counts);
        counted += counts;
      }
    return counted > 0 && inside == counted;
  };
  {
    StrainArrays<Access::Write> strain;
    PetscCall(strain.open(scalars, config_.first_strain, components_));
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      const PetscInt idx[3] = {i, j, k};
      bool counts = false;
      const bool centre_inside = material_cell(i, j, k, &counts);
      for (int n = 0; n < components; ++n) {
        const int a = row[n], b = column[n];
        double& e = strain[n](i, j, k);
        if (a == b) {
          // D_aa at the centre: the cell's own two a-faces.
          if (!centre_inside) {
            e = 0.0;
            continue;
          }
          PetscInt up[3] = {i, j, k};
          up[a] += 1;
          e += dt * (u(up[0], up[1], up[2], a) - u(i, j, k, a)) / h[a];
          continue;
        }
        if (!material_edge(a, b, i, j, k)) {
          e = 0.0;
          continue;
        }
        // D_ab at the edge: du_a/dx_b from the two a-faces either side of it across b, and
        // du_b/dx_a from the two b-faces across a.
        PetscInt below_b[3] = {idx[0], idx[1], idx[2]}, below_a[3] = {idx[0], idx[1], idx[2]};
        below_b[b] -= 1;
        below_a[a] -= 1;
        const double du_a = (u(i, j, k, a) - u(below_b[0], below_b[1], below_b[2], a)) / h[b];
        const double du_b = (u(i, j, k, b) - u(below_a[0], below_a[1], below_a[2], b)) / h[a];
        e += dt * 0.5 * (du_a + du_b);
      }
    });
  }
  if (std::isfinite(config_.yield_point)) PetscCall(yield(scalars, dt));
  PetscFunctionReturn(0);
}

PetscErrorCode Viscoelastic::yield(std::vector<Field>& scalars, double dt) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  // |E| at a point needs all its entries there: those stored elsewhere (the diagonal at the
  // centres, E_ab on its edges) are the means of the two or four nearest.
  PetscCall(fill_strain_ghosts(scalars));
  StrainArrays<Access::Read> before;
  PetscCall(before.open(scalars, config_.first_strain, components_));
  // Copies of the owned values to write: the reads above see the local vectors.
  StrainArrays<Access::Write> after;
  PetscCall(after.open(scalars, config_.first_strain, components_));
  const double yield_point = config_.yield_point;
  const double yield_step = std::min(1.0, dt * config_.yield_rate);
  const int components = components_;
  const Entries entries = entries_of(dim);
  const auto& row = entries.row;
  const auto& column = entries.column;
  // Which axes a component's place is half a cell below the centre on.
  const auto lower_axes = [&](int n) {
    return row[n] == column[n] ? 0u : (1u << row[n]) | (1u << column[n]);
  };
  // Component n at the place of component `at` in cell (i, j, k): the mean over the axes where
  // the two places differ (on at most two).
  const auto value_at = [&](int n, int at, PetscInt i, PetscInt j, PetscInt k) {
    const unsigned from = lower_axes(n), to = lower_axes(at);
    int axes[2] = {0, 0}, count = 0;
    PetscInt shift[2] = {0, 0};
    for (int a = 0; a < dim; ++a) {
      const unsigned bit = 1u << a;
      if ((from & bit) == (to & bit)) continue;
      axes[count] = a;
      // Stored at the lower face's height, wanted at the centre: this cell's and the next.
      // Stored at the centre, wanted at the lower face: the cell below and this one.
      shift[count] = (from & bit) ? 1 : -1;
      ++count;
    }
    double total = 0.0;
    const int samples = 1 << count;
    for (int s = 0; s < samples; ++s) {
      PetscInt at3[3] = {i, j, k};
      for (int c = 0; c < count; ++c)
        if (s & (1 << c)) at3[axes[c]] += shift[c];
      total += before[n](at3[0], at3[1], at3[2]);
    }
    return total / samples;
  };
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    for (int at = 0; at < components; ++at) {
      const double own = before[at](i, j, k);
      if (own == 0.0) continue;  // outside the material, or nothing to yield
      double norm2 = 0.0;
      for (int n = 0; n < components; ++n) {
        const double e = n == at ? own : value_at(n, at, i, j, k);
        norm2 += (row[n] == column[n] ? 1.0 : 2.0) * e * e;
      }
      after[at](i, j, k) = yield_kept(norm2, yield_point, yield_step) * own;
    }
  });
  PetscFunctionReturn(0);
}

PetscErrorCode Viscoelastic::add_force(const std::vector<Field>& scalars, Field& velocity,
                                       double dt) {
  PetscFunctionBeginUser;
  if (!config_.enabled) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  if (faces_.version() != solids_->version()) faces_.setup(grid, *solids_);
  StrainArrays<Access::Read> strain;
  PetscCall(strain.open(scalars, config_.first_strain, components_));
  WriteArray u;
  PetscCall(u.get_global(velocity));
  std::array<double, 3> h{1.0, 1.0, 1.0};
  for (int a = 0; a < dim; ++a) h[a] = grid.spacing(a);
  const double modulus = config_.elastic_modulus;
  for (int a = 0; a < dim; ++a) {
    const ConstArrayView& diagonal = strain[component_of(a, a, dim)];
    // The other axes b and the views of E_ab; their offsets in a local vector: every strain
    // component shares the cell DM's layout.
    int others = 0;
    std::array<int, 2> other{};
    for (int b = 0; b < dim; ++b)
      if (b != a) other[others++] = b;
    const PetscInt stride[3] = {1, diagonal.width[0], diagonal.width[0] * diagonal.width[1]};
    const PetscInt below = stride[a];
    faces_.for_each_run(a, [&](PetscInt j, PetscInt k, PetscInt begin, PetscInt end) {
      const PetscInt first = diagonal.offset(begin, j, k);
      for (PetscInt n = 0; n < end - begin; ++n) {
        const PetscInt at = first + n;  // the cell above the face, idx
        // The face's two cells along a, and the two edges at its ends across each b: the
        // face's own lower-corner edge (idx) and the one above it (idx + e_b).
        double f = (diagonal.data[at] - diagonal.data[at - below]) / h[a];
        for (int o = 0; o < others; ++o) {
          const int b = other[o];
          const PetscScalar* e = strain[component_of(a, b, dim)].data;
          f += (e[at + stride[b]] - e[at]) / h[b];
        }
        accelerate(u(begin + n, j, k, a), dt, modulus * f);
      }
    });
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
