// Stam 1999 §4: "a noise term which is proportional to the amount of density ... produced nice
// billowing motions". On every free face
//
//   f_c = amplitude * 1/2 (s(idx - e_c) + s(idx)) * n_c(x / scale, t / period),
//
// with s the job's scalar (the mean of the face's two cells, as buoyancy takes it) and n_c a
// smooth random field in [-1, 1]: value noise, uniform draws at the nodes of a lattice of spacing
// `scale` in space and `period` in time, blended with Perlin's fade 3w^2 - 2w^3 along each
// coordinate, so the force is C1 in space and time and does not depend on the step. A node's draw
// is a hash of its global lattice index, the component and the seed: the same force on any rank
// count, bit for bit. Where the scalar is 0 the force is exactly 0 (and the face keeps its bits).
#pragma once

#include <vector>

#include "force.hpp"
#include "job.hpp"

namespace sf {

class DensityNoise : public Force {
public:
  /// Resolves the scalar by name (an error if it is not one of `scalars`). Collective.
  PetscErrorCode setup(const Grid& grid, const NoiseConfig& config,
                       const std::vector<ScalarConfig>& scalars);
  PetscErrorCode add_to(const ForceState& state, const ArrayView& u) override;
  const char* event_name() const override { return "DensityNoise"; }

  /// n_c at the point x (in units of the job) and time t: what add_to() multiplies by
  /// amplitude * s. Computed from the hashes directly (add_to() interpolates the same lattice
  /// values, from a table). For tests.
  double noise(int c, const double x[3], double time) const;

private:
  /// The draw in [-1, 1] at lattice node q (space) and time node n of component c.
  double draw(int c, const long long q[3], long long n) const;
  /// Fills table_ with the lattice's values at `time` over the nodes this rank's owned faces of
  /// component c fall between.
  void tabulate(int c, double time);

  const Grid* grid_ = nullptr;
  NoiseConfig config_;
  int scalar_ = -1;
  // The nodes of the lattice around this rank's faces of the component being visited: the first
  // node and the counts along each axis, and their values at the step's time.
  long long first_[3] = {0, 0, 0};
  long long count_[3] = {1, 1, 1};
  std::vector<double> table_;
};

}  // namespace sf
