#include "force_regions.hpp"

#include "region.hpp"

namespace sf {

PetscErrorCode ForceRegions::add_to(const ForceState&, const ArrayView& sum) {
  PetscFunctionBeginUser;
  const int dim = grid_.dim();
  for_each_owned_face(grid_, [&](int c, PetscInt i, PetscInt j, PetscInt k) {
    double x[3];
    grid_.face_center(c, i, j, k, x);
    for (const ForceRegion& region : regions_)
      if (region_contains(region.region, x, dim)) sum(i, j, k, c) += region.acceleration[c];
  });
  PetscFunctionReturn(0);
}

}  // namespace sf
