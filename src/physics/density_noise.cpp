#include "density_noise.hpp"

#include <cmath>

#include "cell_owners.hpp"  // mix_bits, uniform_from
#include "vec_array.hpp"

namespace sf {

namespace {

/// Perlin's fade: 0 at 0, 1 at 1, zero slope at both.
double fade(double w) { return w * w * (3.0 - 2.0 * w); }

/// The lattice node at or below x / scale, and the faded weight of the node above.
void locate(double x, double scale, long long* node, double* weight) {
  const double q = x / scale;
  const double below = std::floor(q);
  *node = static_cast<long long>(below);
  *weight = fade(q - below);
}

}  // namespace

PetscErrorCode DensityNoise::setup(const Grid& grid, const NoiseConfig& config,
                                   const std::vector<ScalarConfig>& scalars) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  config_ = config;
  scalar_ = -1;
  for (size_t n = 0; n < scalars.size(); ++n)
    if (scalars[n].name == config.scalar) scalar_ = static_cast<int>(n);
  PetscCheck(scalar_ >= 0, grid.comm(), PETSC_ERR_ARG_WRONG,
             "noise: the scalar \"%s\" is not one of the job's scalars", config.scalar.c_str());
  PetscCheck(config.scale > 0.0 && config.period > 0.0 && config.amplitude >= 0.0, grid.comm(),
             PETSC_ERR_ARG_OUTOFRANGE,
             "noise needs scale > 0, period > 0 and amplitude >= 0, got %g, %g, %g", config.scale,
             config.period, config.amplitude);
  // Finer than a cell the noise is lost between the faces, and its table (one node per scale
  // per axis) would outgrow the grid.
  const double h = grid.min_spacing();
  PetscCheck(config.scale >= h, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "forces.noise.scale %g is finer than the grid's smallest cell, %g: give a few cells "
             "or more",
             config.scale, h);
  PetscFunctionReturn(0);
}

double DensityNoise::draw(int c, const long long q[3], long long n) const {
  std::uint64_t key = mix_bits(config_.seed);
  key = mix_bits(key ^ static_cast<std::uint64_t>(c));
  for (int a = 0; a < 3; ++a) key = mix_bits(key ^ static_cast<std::uint64_t>(q[a]));
  return 2.0 * uniform_from(key ^ static_cast<std::uint64_t>(n)) - 1.0;
}

double DensityNoise::noise(int c, const double x[3], double time) const {
  const int dim = grid_->dim();
  long long q[3] = {0, 0, 0}, n = 0;
  double w[3] = {0.0, 0.0, 0.0}, wt = 0.0;
  for (int a = 0; a < dim; ++a) locate(x[a], config_.scale, &q[a], &w[a]);
  locate(time, config_.period, &n, &wt);
  // The same sums in the same order as tabulate() and add_to(): time first, then x, y, z.
  double value = 0.0;
  for (int dz = 0; dz < (dim == 3 ? 2 : 1); ++dz)
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        const long long node[3] = {q[0] + dx, q[1] + dy, q[2] + dz};
        const double at = (1.0 - wt) * draw(c, node, n) + wt * draw(c, node, n + 1);
        value += (dx ? w[0] : 1.0 - w[0]) * (dy ? w[1] : 1.0 - w[1]) *
                 (dim == 3 ? (dz ? w[2] : 1.0 - w[2]) : 1.0) * at;
      }
  return value;
}

void DensityNoise::tabulate(int c, double time) {
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  const IndexBox faces = grid.owned_faces(c);
  // The first and last owned faces, placed as add_to() places them, bound the nodes it reads.
  double lo[3], hi[3];
  grid.face_center(c, faces.lo[0], faces.lo[1], faces.lo[2], lo);
  grid.face_center(c, faces.hi[0] - 1, faces.hi[1] - 1, faces.hi[2] - 1, hi);
  for (int a = 0; a < 3; ++a) {
    first_[a] = 0;
    count_[a] = 1;
    if (a >= dim) continue;
    double weight;
    long long last;
    locate(lo[a], config_.scale, &first_[a], &weight);
    locate(hi[a], config_.scale, &last, &weight);
    count_[a] = last - first_[a] + 2;
  }
  long long n = 0;
  double wt = 0.0;
  locate(time, config_.period, &n, &wt);
  table_.resize(static_cast<size_t>(count_[0] * count_[1] * count_[2]));
  size_t at = 0;
  for (long long z = 0; z < count_[2]; ++z)
    for (long long y = 0; y < count_[1]; ++y)
      for (long long x = 0; x < count_[0]; ++x) {
        const long long node[3] = {first_[0] + x, first_[1] + y, first_[2] + z};
        table_[at++] = (1.0 - wt) * draw(c, node, n) + wt * draw(c, node, n + 1);
      }
}

PetscErrorCode DensityNoise::add_to(const ForceState& state, const ArrayView& u) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  if (config_.amplitude == 0.0) PetscFunctionReturn(0);
  PetscCheck(scalar_ < static_cast<int>(state.scalars.size()), grid.comm(), PETSC_ERR_ARG_SIZ,
             "noise: %d scalars given, but it reads scalar %d",
             static_cast<int>(state.scalars.size()), scalar_);
  // The ghosted vector: a face's lower cell may belong to the rank below.
  const Field& scalar = state.scalars[static_cast<size_t>(scalar_)];
  ReadArray s;
  PetscCall(s.get_local(scalar));
  for (int c = 0; c < dim; ++c) {
    tabulate(c, state.time);
    const long long stride[3] = {1, count_[0], count_[0] * count_[1]};
    state.faces.for_each(c, [&](int, PetscInt i, PetscInt j, PetscInt k) {
      const PetscInt below[3] = {i - (c == 0), j - (c == 1), k - (c == 2)};
      const double amount = 0.5 * (s(below[0], below[1], below[2]) + s(i, j, k));
      if (amount == 0.0) return;
      double x[3];
      grid.face_center(c, i, j, k, x);
      long long q[3] = {0, 0, 0};
      double w[3] = {0.0, 0.0, 0.0};
      for (int a = 0; a < dim; ++a) locate(x[a], config_.scale, &q[a], &w[a]);
      const double* corner = table_.data() + (q[0] - first_[0]) * stride[0] +
                             (q[1] - first_[1]) * stride[1] + (q[2] - first_[2]) * stride[2];
      double value = 0.0;
      for (int dz = 0; dz < (dim == 3 ? 2 : 1); ++dz)
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx)
            value += (dx ? w[0] : 1.0 - w[0]) * (dy ? w[1] : 1.0 - w[1]) *
                     (dim == 3 ? (dz ? w[2] : 1.0 - w[2]) : 1.0) *
                     corner[dx * stride[0] + dy * stride[1] + dz * stride[2]];
      accelerate(u(i, j, k, c), state.dt, config_.amplitude * amount * value);
    });
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
