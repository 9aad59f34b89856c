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
  for (int n = 0; n < components_; ++n)
    PetscCall(scalars[static_cast<size_t>(config_.first_strain + n)].fill_ghosts());
  PetscCall(add_force(scalars, velocity, dt));
  PetscCall(PetscLogEventEnd(event_, 0, 0, 0, 0));
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
  const Field& material = scalars[static_cast<size_t>(material_index_)];
  ReadArray m, u;
  PetscCall(m.get_global(material));
  PetscCall(u.get_local(velocity));
  StrainArrays<Access::Write> strain;
  PetscCall(strain.open(scalars, config_.first_strain, components_));

  std::array<double, 3> h{1.0, 1.0, 1.0};
  for (int a = 0; a < dim; ++a) h[a] = grid.spacing(a);
  const bool liquid = material_is_liquid_;
  const double threshold = config_.threshold;
  const double yield_point = config_.yield_point;
  // The fraction of the excess strain given up in one step (see the header for the clamp).
  const double yield_step = std::min(1.0, dt * config_.yield_rate);
  const int components = components_;
  // The strain components in one cell, and whether each is off the diagonal (counted twice in
  // the nine entries of |E|^2).
  std::array<int, 6> row{}, column{};
  for (int a = 0; a < dim; ++a)
    for (int b = a; b < dim; ++b) {
      const int n = component_of(a, b, dim);
      row[n] = a;
      column[n] = b;
    }
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const double s = m(i, j, k);
    const bool inside = (liquid ? s < 0.0 : s >= threshold) && !solids_->solid(i, j, k);
    if (!inside) {
      for (int n = 0; n < components; ++n) strain[n](i, j, k) = 0.0;
      return;
    }
    // u_a at face idx + offset (offset in cells along each axis).
    const auto face = [&](int a, PetscInt di, PetscInt dj, PetscInt dk) {
      return u(i + di, j + dj, k + dk, a);
    };
    const auto step = [](int axis, int along) { return axis == along ? 1 : 0; };
    // du_a/dx_b at the cell centre: the two-face difference for a == b, else the central
    // difference across b of u_a averaged over each neighbour's two a-faces.
    const auto gradient = [&](int a, int b) {
      const PetscInt ea[3] = {step(a, 0), step(a, 1), step(a, 2)};
      const PetscInt eb[3] = {step(b, 0), step(b, 1), step(b, 2)};
      if (a == b) return (face(a, ea[0], ea[1], ea[2]) - face(a, 0, 0, 0)) / h[a];
      const double above = face(a, eb[0], eb[1], eb[2]) +
                           face(a, eb[0] + ea[0], eb[1] + ea[1], eb[2] + ea[2]);
      const double below = face(a, -eb[0], -eb[1], -eb[2]) +
                           face(a, ea[0] - eb[0], ea[1] - eb[1], ea[2] - eb[2]);
      return (above - below) / (4.0 * h[b]);
    };
    std::array<double, 6> e{};
    double norm2 = 0.0;
    for (int n = 0; n < components; ++n) {
      const int a = row[n], b = column[n];
      const double rate = a == b ? gradient(a, a) : 0.5 * (gradient(a, b) + gradient(b, a));
      e[n] = strain[n](i, j, k) + dt * rate;
      norm2 += (a == b ? 1.0 : 2.0) * e[n] * e[n];
    }
    // Plastic yield: strain beyond the yield point is given up at the yield rate.
    const double keep = yield_kept(norm2, yield_point, yield_step);
    for (int n = 0; n < components; ++n) strain[n](i, j, k) = keep * e[n];
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
        double f = (diagonal.data[at] - diagonal.data[at - below]) / h[a];
        for (int o = 0; o < others; ++o) {
          const int b = other[o];
          const PetscScalar* e = strain[component_of(a, b, dim)].data;
          const PetscInt across = stride[b];
          f += (e[at + across] + e[at - below + across] - e[at - across] -
                e[at - below - across]) /
               (4.0 * h[b]);
        }
        accelerate(u(begin + n, j, k, a), dt, modulus * f);
      }
    });
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
