// Point-in-region tests for the primitives jobs use for initial blobs, sources, force regions
// and obstacles.
#pragma once

#include "config.hpp"

namespace sf {

/// True if the point x (x, y, z order; z ignored in 2D) lies inside `region` (boundary
/// included).
bool region_contains(const Region& region, const double x[3], int dim);

}  // namespace sf
