// The samples of a grid that a region can reach: what sources loop over instead of the whole
// grid (a source is a few cells of a large one).
#pragma once

#include <algorithm>
#include <cmath>

#include "grid.hpp"
#include "region.hpp"

namespace sf {

/// The part of `box` (cells, or faces of component `stagger`) whose sample points can lie in
/// `region` or within `margin` samples of it: its bounding box, widened by `margin` samples on
/// each side (at least one, so that rounding cannot leave out a point the exact test,
/// region_contains, accepts).
inline IndexBox near_region(const Grid& grid, const Region& region, int stagger, IndexBox box,
                            double margin = 1.0) {
  for (int a = 0; a < grid.dim(); ++a) {
    double lo = 0.0, hi = 0.0;
    if (!region_extent(region, a, &lo, &hi)) continue;
    const double offset = stagger == a ? 0.0 : 0.5;  // sample i sits at origin + (i + offset) h
    const double first = std::floor((lo - grid.origin(a)) / grid.spacing(a) - offset) - margin;
    const double last = std::ceil((hi - grid.origin(a)) / grid.spacing(a) - offset) + margin;
    // Clamped as doubles: a region far outside the grid must not overflow the conversion.
    const double below = static_cast<double>(box.lo[a]), above = static_cast<double>(box.hi[a]);
    box.lo[a] = static_cast<PetscInt>(std::clamp(first, below, above));
    box.hi[a] = static_cast<PetscInt>(std::clamp(last + 1.0, below, above));
  }
  return box;
}

}  // namespace sf
