// A closed triangle mesh as a region of space (an obstacle read from an STL or OBJ file): the
// inside test behind a mesh obstacle's mask, and the volume it encloses.
//
// Inside test: a ray from the point along +x crosses the surface an odd number of times exactly
// when the point is inside. Rays that pass through an edge or a vertex are where such tests
// usually go wrong, and cell centres on a grid meet edges often (a box mesh whose corners sit on
// cell centres' planes). Here every triangle is projected onto the (y, z) plane and a point on a
// projected edge belongs to exactly one of the two triangles that share the edge when the surface
// passes through it (the "top-left" rule of rasterisers), or to both or neither when the edge is a
// silhouette (the ray only grazes), so the parity stays right where a ray meets an edge or a
// vertex exactly. The edge function is evaluated from the edge's endpoints in one canonical
// order, so that both triangles of an edge see the same number to the last bit. (The predicates
// are not exact: a point within rounding of a sliver triangle's edge may still be misjudged.)
//
// Cost: the triangles are binned over the (y, z) extent of the mesh once; a query looks at the
// triangles of one bin and at nothing when the point lies outside the bounding box. Each rank
// tests only its own cells (SolidMask), so the voxelisation is parallel and local.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sf {

class TriangleMesh {
public:
  /// `vertices` holds x, y, z of each vertex; `triangles` three vertex indices each. The mesh
  /// must be closed (closed_problem() says whether it is); the orientation of the triangles
  /// does not matter to contains().
  TriangleMesh(std::vector<double> vertices, std::vector<std::int64_t> triangles);

  /// True if x lies inside the surface (a point on it may count either way).
  bool contains(const double x[3]) const;

  /// "" if every edge is shared by exactly two triangles (the surface encloses a volume);
  /// otherwise how many edges are not, e.g. "12 edges belong to one triangle only (the surface
  /// has holes)".
  std::string closed_problem() const;

  /// True if every edge is run through in opposite directions by its two triangles: the
  /// triangles agree on which side is out (volume() needs it; contains() does not).
  bool consistently_oriented() const;

  /// The volume enclosed (the divergence theorem over the triangles; exact for the polyhedron
  /// when consistently_oriented()).
  double volume() const;

  const std::array<double, 3>& lower() const { return lower_; }
  const std::array<double, 3>& upper() const { return upper_; }
  std::size_t triangle_count() const { return triangles_.size() / 3; }
  std::size_t vertex_count() const { return vertices_.size() / 3; }

private:
  const double* vertex(std::int64_t v) const { return &vertices_[3 * static_cast<size_t>(v)]; }
  /// Whether the +x ray from x crosses triangle t (see the header comment).
  bool crosses(std::size_t t, const double x[3]) const;
  void bin_triangles();

  std::vector<double> vertices_;
  std::vector<std::int64_t> triangles_;
  std::array<double, 3> lower_{}, upper_{};
  // Bins over (y, z): bin (b, c) lists the triangles whose projected bounding box meets it.
  int bins_[2] = {1, 1};
  double bin_size_[2] = {1.0, 1.0};
  std::vector<std::size_t> bin_start_;  // (bins_[0] * bins_[1] + 1) offsets into bin_list_
  std::vector<std::uint32_t> bin_list_;  // triangle numbers
};

}  // namespace sf
