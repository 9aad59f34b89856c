#include "cut_faces.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sf {

double region_distance(const Region& region, const double x[3], int dim) {
  switch (region.shape) {
    case Region::Shape::Sphere:
    case Region::Shape::Cylinder: {
      double r2 = 0.0;
      for (int a = 0; a < dim; ++a) {
        if (region.shape == Region::Shape::Cylinder && a == region.axis) continue;
        r2 += (x[a] - region.center[a]) * (x[a] - region.center[a]);
      }
      return std::sqrt(r2) - region.radius;
    }
    case Region::Shape::Mesh:  // the job refuses a cut mesh obstacle
      return std::numeric_limits<double>::infinity();
    case Region::Shape::Box:
      break;
  }
  // Outside: the distance to the nearest point of the box; inside: minus the distance to the
  // nearest face.
  double outside = 0.0, inside = -std::numeric_limits<double>::infinity();
  for (int a = 0; a < dim; ++a) {
    const double half = 0.5 * (region.upper[a] - region.lower[a]);
    const double q = std::abs(x[a] - 0.5 * (region.upper[a] + region.lower[a])) - half;
    outside += std::max(q, 0.0) * std::max(q, 0.0);
    inside = std::max(inside, q);
  }
  return std::sqrt(outside) + std::min(inside, 0.0);
}

double union_distance(const std::vector<Region>& regions, const double x[3], int dim) {
  double d = std::numeric_limits<double>::infinity();
  for (const Region& region : regions) d = std::min(d, region_distance(region, x, dim));
  return d;
}

double segment_fluid_fraction(double a, double b) {
  if (a >= 0.0 && b >= 0.0) return 1.0;
  if (a < 0.0 && b < 0.0) return 0.0;
  return std::max(a, b) / (std::abs(a) + std::abs(b));
}

double triangle_fluid_fraction(double a, double b, double c) {
  const int solid = (a < 0.0) + (b < 0.0) + (c < 0.0);
  if (solid == 0) return 1.0;
  if (solid == 3) return 0.0;
  // The corner on its own side first: the part on its side is the triangle it spans with the
  // two crossings, at t = a / (a - b) and a / (a - c) along its edges, of area t_b t_c.
  if ((solid == 1) != (a < 0.0)) {
    if ((solid == 1) == (b < 0.0)) std::swap(a, b);
    else std::swap(a, c);
  }
  const double corner = a * a / ((a - b) * (a - c));
  return solid == 1 ? 1.0 - corner : corner;
}

double square_fluid_fraction(double d00, double d10, double d11, double d01, double dc) {
  return 0.25 * (triangle_fluid_fraction(dc, d00, d10) + triangle_fluid_fraction(dc, d10, d11) +
                 triangle_fluid_fraction(dc, d11, d01) + triangle_fluid_fraction(dc, d01, d00));
}

}  // namespace sf
