// Texture-coordinate advection (job.hpp TextureConfig; Stam 1999 §4, Stam 2000): the coordinates
// are job scalars the advection carries like any other; this stage sets them to where each cell
// is, (x - origin) / size, at the start, and again for a set whenever its period comes round
// (set a at multiples of the period, set b half a period later), after the step's advection.
// A reset writes each cell from its own position only: the same bits on any rank count.
#pragma once

#include <vector>

#include "field.hpp"
#include "job.hpp"

namespace sf {

class TextureCoordinates {
public:
  /// Finds the coordinates among the job's scalars. Collective (an error if one is missing).
  PetscErrorCode setup(const Grid& grid, const JobConfig& job);
  bool enabled() const { return config_.enabled; }
  /// Sets both sets to their starting values (a new run). Collective only through PETSc.
  PetscErrorCode reset_all(std::vector<Field>& scalars) const;
  /// After a step from `before` to `after`: resets each set whose reset time lies in
  /// (before, after].
  PetscErrorCode reset_due(std::vector<Field>& scalars, double before, double after) const;

private:
  PetscErrorCode reset(std::vector<Field>& scalars, int set) const;

  const Grid* grid_ = nullptr;
  TextureConfig config_;
  std::vector<int> index_[2];  // per set, the scalar index of each coordinate
};

}  // namespace sf
