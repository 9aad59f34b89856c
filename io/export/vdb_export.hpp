// A frame's cell fields as OpenVDB grids, built incrementally from z-plane slabs (a VDB grid is
// sparse: only the voxels that hold something are stored, so the dense field is never needed
// whole), and the .vdb file that holds them.
//
// Placement: OpenVDB puts voxel (i, j, k)'s centre at the index point (i, j, k); the transform
// maps it to the cell centre origin + (i + 1/2) h, per axis (a scale-translate map, which
// allows non-cubic cells). Voxel (i, j, k) is cell (i, j, k) of the frame, dataset index
// [k][j][i].
//
// Which voxels are stored (active):
//   volume     a scalar dataset as a float grid: the cells whose |value| > threshold (the default
//              threshold 0 keeps exactly the non-zero cells); background 0. Class fog volume
//              when every stored value lies in [0, 1] (OpenVDB's convention for a density),
//              otherwise unknown.
//   level set  the liquid's level set phi (negative in the liquid, as OpenVDB's level sets) as
//              class level set: the narrow band |phi| < 3 h (h the smallest spacing, the unit of
//              the solver's own band), background +3 h, the inactive voxels and tiles inside
//              the liquid -3 h (OpenVDB's signed flood fill).
//   velocity   the cell-centred velocity as a Vec3f grid `velocity`: the cells where |u| >
//              threshold, world-space, contravariant-relative (OpenVDB's class for velocities).
// Values are the frame's doubles rounded to the nearest float.
#pragma once

#include <openvdb/openvdb.h>

#include <string>

#include "frame_index.hpp"

namespace sf::exporter {

/// The index-to-world transform of `grid` (placement above).
openvdb::math::Transform::Ptr frame_transform(const FrameGrid& grid);

/// A scalar dataset as a sparse float grid, fed slab by slab.
class VolumeGrid {
public:
  VolumeGrid(const std::string& name, double threshold, openvdb::math::Transform::Ptr transform);
  /// Adds z-planes [k0, k0 + planes) of values (x fastest, as read).
  void add(const double* values, long long k0, long long planes, long long ny, long long nx);
  /// The finished grid (pruned, its class set). The builder is spent.
  openvdb::GridBase::Ptr finish();

private:
  openvdb::FloatGrid::Ptr grid_;
  openvdb::FloatGrid::Accessor voxels_;
  double threshold_;
  float lowest_, highest_;  // of the stored values, for the class
};

/// The liquid's level set as a narrow-band level-set grid, fed slab by slab.
class LevelSetGrid {
public:
  /// `voxel` is the smallest spacing h: the band is |phi| < 3 h (openvdb::LEVEL_SET_HALF_WIDTH).
  LevelSetGrid(const std::string& name, double voxel, openvdb::math::Transform::Ptr transform);
  void add(const double* phi, long long k0, long long planes, long long ny, long long nx);
  openvdb::GridBase::Ptr finish();

private:
  openvdb::FloatGrid::Ptr grid_;
  openvdb::FloatGrid::Accessor voxels_;
  double band_;
};

/// The velocity (3 values a cell) as a sparse Vec3f grid, fed slab by slab.
class VelocityGrid {
public:
  VelocityGrid(const std::string& name, double threshold, openvdb::math::Transform::Ptr transform);
  void add(const double* velocity, long long k0, long long planes, long long ny, long long nx);
  openvdb::GridBase::Ptr finish();

private:
  openvdb::Vec3fGrid::Ptr grid_;
  openvdb::Vec3fGrid::Accessor voxels_;
  double threshold_squared_;
};

/// Writes `grids` with the file metadata `meta` to `path` atomically: into <path>.tmp, renamed
/// to `path` once written and closed, so a reader never sees half a file and a failure leaves
/// an earlier file of that name untouched. False, with a message naming the file, on failure.
bool write_vdb(const std::string& path, const openvdb::GridPtrVec& grids,
               const openvdb::MetaMap& meta, std::string* error);

}  // namespace sf::exporter
