#include "texture.hpp"

#include <cmath>

#include "vec_array.hpp"

namespace sf {

PetscErrorCode TextureCoordinates::setup(const Grid& grid, const JobConfig& job) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  config_ = job.texture;
  for (int set = 0; set < 2; ++set) {
    index_[set].clear();
    if (!config_.enabled) continue;
    for (int axis = 0; axis < grid.dim(); ++axis) {
      const std::string name = texture_coordinate_name(set, axis);
      int found = -1;
      for (size_t n = 0; n < job.scalars.size(); ++n)
        if (job.scalars[n].name == name) found = static_cast<int>(n);
      PetscCheck(found >= 0, grid.comm(), PETSC_ERR_ARG_WRONG,
                 "texture: the job has no scalar \"%s\" (the parser adds it)", name.c_str());
      index_[set].push_back(found);
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TextureCoordinates::reset(std::vector<Field>& scalars, int set) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  for (int axis = 0; axis < grid.dim(); ++axis) {
    Field& coordinate = scalars[static_cast<size_t>(index_[set][static_cast<size_t>(axis)])];
    const double origin = grid.origin(axis);
    const double size = grid.spacing(axis) * static_cast<double>(grid.cells(axis));
    WriteArray s;
    PetscCall(s.get_global(coordinate));
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      const PetscInt at[3] = {i, j, k};
      s(i, j, k) = (grid.cell_center(axis, at[axis]) - origin) / size;
    });
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TextureCoordinates::reset_all(std::vector<Field>& scalars) const {
  PetscFunctionBeginUser;
  if (!config_.enabled) PetscFunctionReturn(0);
  PetscCall(reset(scalars, 0));
  PetscCall(reset(scalars, 1));
  PetscFunctionReturn(0);
}

PetscErrorCode TextureCoordinates::reset_due(std::vector<Field>& scalars, double before,
                                             double after) const {
  PetscFunctionBeginUser;
  if (!config_.enabled) PetscFunctionReturn(0);
  for (int set = 0; set < 2; ++set) {
    // Reset times of set a: n T; of set b: (n + 1/2) T. One lies in (before, after] when the
    // count of them up to `after` is larger than up to `before`; a step longer than half a
    // period resets a set once, to the same values. Times that miss a reset time by rounding
    // (steps of 0.05 add up to 0.19999999999999998) count as reaching it.
    const double shift = (set == 0 ? 0.0 : 0.5) + 1e-9;
    if (std::floor(after / config_.period + shift) > std::floor(before / config_.period + shift))
      PetscCall(reset(scalars, set));
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
