#include "force_regions.hpp"

#include "region.hpp"

namespace sf {

PetscErrorCode ForceRegions::add_to(const ForceState& state, const ArrayView& u) {
  PetscFunctionBeginUser;
  const int dim = grid_.dim();
  // The regions as their time profiles have them now: where they are, how strongly they push;
  // those not active now are left out. Kept between calls, so no step allocates.
  now_.clear();
  for (const ForceRegion& region : regions_) {
    if (!region.when.active(state.time)) continue;
    Placed placed{region.when.place(region.region, state.time), region.acceleration};
    const double factor = region.when.factor(state.time);
    for (int c = 0; c < 3; ++c) placed.acceleration[c] *= factor;
    now_.push_back(placed);
  }
  if (now_.empty()) PetscFunctionReturn(0);
  state.faces.for_each([&](int c, PetscInt i, PetscInt j, PetscInt k) {
    double x[3];
    grid_.face_center(c, i, j, k, x);
    // The regions' sum first, then one update: overlapping regions add their accelerations.
    double f = 0.0;
    for (const Placed& region : now_)
      if (region_contains(region.region, x, dim)) f += region.acceleration[c];
    accelerate(u(i, j, k, c), state.dt, f);
  });
  PetscFunctionReturn(0);
}

}  // namespace sf
