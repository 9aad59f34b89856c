// The liquid's surface, the zero level set of a frame's phi, as a triangle mesh built z-plane by
// z-plane (marching cubes on the lattice of cell centres), and written as PLY or OBJ.
//
// Why not OpenVDB's volumeToMesh: it places one vertex per voxel at the mean of the voxel's edge
// crossings (tools/VolumeToMesh.h, computePoint), which lies inside the voxel but not on the
// zero crossing. Measured on the exported level sets (pyopenvdb's convertToPolygons, isovalue
// 0, adaptivity 0), the frame's trilinear phi at its vertices away from the walls: up to 0.019
// cells (mean 0.006) on the drop of jobs/drop_into_pool_3d.yaml at t = 0, up to 0.0096 cells on
// jobs/dam_break_3d.yaml at t = 0.05; and where the liquid meets a wall it closes the surface
// along the band's flood-filled outside, beyond the frame's cells. Here every vertex is where
// phi, linearly interpolated along one edge between two neighbouring cell centres, is zero, so
// the frame's trilinear interpolant vanishes at every vertex up to the float rounding of the
// written positions (2e-6 cells on the same drop).
//
// Watertight by construction: each cube's triangles are made from closed loops of edge
// crossings, and the loops are drawn on each face of the cube by a rule that depends only on the
// face's own four corners (on an ambiguous face, one with liquid at two opposite corners, the
// two liquid corners are cut off separately). The two cubes that share a face therefore draw the
// same segments on it, every vertex (an edge crossing) is shared by the cubes around the edge,
// and every mesh edge inside the domain belongs to exactly two triangles. The surface is open
// only where the liquid reaches the outermost cell centres (the domain's walls). Triangles are
// wound counter-clockwise seen from the air: their right-hand normals point up the gradient of
// phi, out of the liquid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frame_index.hpp"

namespace sf::exporter {

struct SurfaceMesh {
  std::vector<float> points;             // x, y, z of each vertex, world coordinates
  std::vector<std::uint32_t> triangles;  // three vertex indices (0-based) each
  size_t vertex_count() const { return points.size() / 3; }
  size_t triangle_count() const { return triangles.size() / 3; }
};

/// Marching cubes over a 3-D frame's level set, fed its z-planes in order.
class MarchingCubes {
public:
  explicit MarchingCubes(const FrameGrid& grid);
  /// Adds z-plane k (ny x nx values, x fastest), k = 0, 1, ... in order, and meshes the layer of
  /// cubes between it and the plane before.
  void add_plane(const double* phi);
  const SurfaceMesh& mesh() const { return mesh_; }

private:
  void plane_crossings(const double* phi, std::vector<std::uint32_t>* x_edges,
                       std::vector<std::uint32_t>* y_edges);
  void layer_crossings(const double* above);
  void layer_cubes(const double* above);
  std::uint32_t add_vertex(double x, double y, double z);

  FrameGrid grid_;
  long long nx_, ny_;
  long long plane_ = 0;                 // the index of the next plane to come
  std::vector<double> below_;           // phi on the plane before
  // The vertex on each crossing edge (kNone elsewhere): x-edges and y-edges of the plane before
  // and of this one, z-edges between the two.
  std::vector<std::uint32_t> x_below_, y_below_, x_above_, y_above_, z_between_;
  SurfaceMesh mesh_;
};

/// Writes `mesh` to `path` as binary little-endian PLY (`ply`) or as Wavefront OBJ (`obj`),
/// atomically (<path>.tmp renamed when complete). `comment` goes into the file's header. False,
/// with a message naming the file, on failure.
bool write_mesh(const std::string& path, const std::string& format, const SurfaceMesh& mesh,
                const std::string& comment, std::string* error);

}  // namespace sf::exporter
