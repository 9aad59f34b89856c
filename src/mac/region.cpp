#include "region.hpp"

namespace sf {

Region translated(const Region& region, const std::array<double, 3>& offset) {
  Region moved = region;
  for (int a = 0; a < 3; ++a) {
    moved.lower[a] += offset[a];
    moved.upper[a] += offset[a];
    moved.center[a] += offset[a];
    moved.offset[a] += offset[a];
  }
  return moved;
}

bool region_contains(const Region& region, const double x[3], int dim) {
  switch (region.shape) {
    case Region::Shape::Sphere: {
      double r2 = 0.0;
      for (int a = 0; a < dim; ++a) r2 += (x[a] - region.center[a]) * (x[a] - region.center[a]);
      return r2 <= region.radius * region.radius;
    }
    case Region::Shape::Cylinder: {
      // Distance from the axis line: every axis but the cylinder's own.
      double r2 = 0.0;
      for (int a = 0; a < dim; ++a)
        if (a != region.axis) r2 += (x[a] - region.center[a]) * (x[a] - region.center[a]);
      return r2 <= region.radius * region.radius;
    }
    case Region::Shape::Mesh: {
      const double y[3] = {x[0] - region.offset[0], x[1] - region.offset[1],
                           x[2] - region.offset[2]};
      return region.mesh && region.mesh->contains(y);
    }
    case Region::Shape::Box:
      break;
  }
  for (int a = 0; a < dim; ++a)
    if (x[a] < region.lower[a] || x[a] > region.upper[a]) return false;
  return true;
}

bool region_extent(const Region& region, int axis, double* lower, double* upper) {
  switch (region.shape) {
    case Region::Shape::Cylinder:
      if (axis == region.axis) return false;
      [[fallthrough]];
    case Region::Shape::Sphere:
      *lower = region.center[axis] - region.radius;
      *upper = region.center[axis] + region.radius;
      return true;
    case Region::Shape::Mesh:
      if (!region.mesh) return false;
      *lower = region.mesh->lower()[axis] + region.offset[axis];
      *upper = region.mesh->upper()[axis] + region.offset[axis];
      return true;
    case Region::Shape::Box:
      break;
  }
  *lower = region.lower[axis];
  *upper = region.upper[axis];
  return true;
}

}  // namespace sf
