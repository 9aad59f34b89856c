#include "force_regions.hpp"

#include "region.hpp"

namespace sf {

PetscErrorCode ForceRegions::add_to(const ForceState& state, const ArrayView& u) {
  PetscFunctionBeginUser;
  const int dim = grid_.dim();
  state.faces.for_each([&](int c, PetscInt i, PetscInt j, PetscInt k) {
    double x[3];
    grid_.face_center(c, i, j, k, x);
    // The regions' sum first, then one update: overlapping regions add their accelerations.
    double f = 0.0;
    for (const ForceRegion& region : regions_)
      if (region_contains(region.region, x, dim)) f += region.acceleration[c];
    accelerate(u(i, j, k, c), state.dt, f);
  });
  PetscFunctionReturn(0);
}

}  // namespace sf
