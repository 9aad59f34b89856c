// Point-in-region tests for the primitives jobs use for initial blobs, sources, force regions
// and obstacles.
#pragma once

#include <array>
#include <memory>

#include "triangle_mesh.hpp"

namespace sf {

/// A region of space used by initial conditions, sources, forces and obstacles.
/// Coordinates are in the job's physical units; in 2D the third entries are ignored (0).
struct Region {
  enum class Shape { Box, Sphere, Cylinder, Mesh };
  Shape shape = Shape::Box;
  std::array<double, 3> lower{0.0, 0.0, 0.0};   // box
  std::array<double, 3> upper{0.0, 0.0, 0.0};   // box
  std::array<double, 3> center{0.0, 0.0, 0.0};  // sphere (a disc in 2D), cylinder
  double radius = 0.0;                          // sphere, cylinder
  int axis = 2;  // cylinder: the axis it runs along (0, 1, 2), unbounded along it; in 2D a
                 // cylinder must run along z and is a disc
  // mesh (3D obstacles only): the closed surface, shared by the copies of the region, and where
  // it has been moved to (translated() adds to it).
  std::shared_ptr<const TriangleMesh> mesh;
  std::array<double, 3> offset{0.0, 0.0, 0.0};
};

/// `region` moved by `offset` (x, y, z; z ignored in 2D).
Region translated(const Region& region, const std::array<double, 3>& offset);

/// True if the point x (x, y, z order; z ignored in 2D) lies inside `region` (boundary
/// included).
bool region_contains(const Region& region, const double x[3], int dim);

/// The extent of `region` along `axis`: every point region_contains accepts has lower <= x[axis]
/// <= upper. False if the region is unbounded along it (a cylinder along its own axis).
bool region_extent(const Region& region, int axis, double* lower, double* upper);

}  // namespace sf
