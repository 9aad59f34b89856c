// Sparse OpenVDB grids from z-plane slabs, and the .vdb file (vdb_export.hpp). Each builder
// writes through a ValueAccessor, which caches the path to the last leaf it touched: voxels come
// in x-fastest order, so nearly every insertion lands in the cached leaf and no voxel allocates
// (a leaf of 8^3 voxels is allocated when its first voxel is set).
#include "vdb_export.hpp"

#include <openvdb/io/Archive.h>
#include <openvdb/tools/Prune.h>
#include <openvdb/tools/SignedFloodFill.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

namespace sf::exporter {

namespace {

/// OpenVDB's writer (io::Archive, as io::File uses it) onto a stream we own, so that a failed
/// write or close (a full disk) is seen: io::File opens and closes its own std::ofstream and
/// does not check it after writing.
class StreamWriter : public openvdb::io::Archive {
public:
  void write_to(std::ostream& out, const openvdb::GridCPtrVec& grids,
                const openvdb::MetaMap& meta) const {
    // seekable: with each grid's offsets, as io::File writes them, so readers (Blender,
    // Houdini) can load one grid without reading the others.
    Archive::write(out, grids, /*seekable=*/true, meta);
  }
};

openvdb::Coord voxel(long long i, long long j, long long k) {
  return openvdb::Coord(static_cast<openvdb::Int32>(i), static_cast<openvdb::Int32>(j),
                        static_cast<openvdb::Int32>(k));
}

}  // namespace

openvdb::math::Transform::Ptr frame_transform(const FrameGrid& grid) {
  const openvdb::Vec3d centre(grid.origin[0] + 0.5 * grid.spacing[0],
                              grid.origin[1] + 0.5 * grid.spacing[1],
                              grid.origin[2] + 0.5 * grid.spacing[2]);
  if (grid.spacing[0] == grid.spacing[1] && grid.spacing[1] == grid.spacing[2]) {
    // Cubic cells: a uniform scale, which every reader (and OpenVDB's level-set tools) expects.
    openvdb::math::Transform::Ptr transform =
        openvdb::math::Transform::createLinearTransform(grid.spacing[0]);
    transform->postTranslate(centre);
    return transform;
  }
  const openvdb::Vec3d scale(grid.spacing[0], grid.spacing[1], grid.spacing[2]);
  return std::make_shared<openvdb::math::Transform>(
      std::make_shared<openvdb::math::ScaleTranslateMap>(scale, centre));
}

VolumeGrid::VolumeGrid(const std::string& name, double threshold,
                       openvdb::math::Transform::Ptr transform)
    : grid_(openvdb::FloatGrid::create(0.0f)), voxels_(grid_->getAccessor()),
      threshold_(threshold), lowest_(std::numeric_limits<float>::max()),
      highest_(std::numeric_limits<float>::lowest()) {
  grid_->setName(name);
  grid_->setTransform(transform);
}

void VolumeGrid::add(const double* values, long long k0, long long planes, long long ny,
                     long long nx) {
  const double* value = values;
  for (long long k = k0; k < k0 + planes; ++k)
    for (long long j = 0; j < ny; ++j)
      for (long long i = 0; i < nx; ++i, ++value) {
        if (!(std::abs(*value) > threshold_)) continue;
        const float stored = static_cast<float>(*value);
        voxels_.setValueOn(voxel(i, j, k), stored);
        lowest_ = std::min(lowest_, stored);
        highest_ = std::max(highest_, stored);
      }
}

openvdb::GridBase::Ptr VolumeGrid::finish() {
  // A fog volume is OpenVDB's name for a density-like field: 0 outside, values in [0, 1]. An
  // empty grid is one too (its background is 0).
  const bool fog = lowest_ > highest_ || (lowest_ >= 0.0f && highest_ <= 1.0f);
  grid_->setGridClass(fog ? openvdb::GRID_FOG_VOLUME : openvdb::GRID_UNKNOWN);
  voxels_.clear();  // the tree's nodes change below; the accessor's cached path must not be used
  // Blocks of 8^3 voxels with one value (a source region set to 1) become single tiles.
  openvdb::tools::prune(grid_->tree());
  return grid_;
}

LevelSetGrid::LevelSetGrid(const std::string& name, double voxel_size,
                           openvdb::math::Transform::Ptr transform)
    : grid_(openvdb::FloatGrid::create(
          static_cast<float>(openvdb::LEVEL_SET_HALF_WIDTH * voxel_size))),
      voxels_(grid_->getAccessor()), band_(openvdb::LEVEL_SET_HALF_WIDTH * voxel_size) {
  grid_->setName(name);
  grid_->setTransform(transform);
  grid_->setGridClass(openvdb::GRID_LEVEL_SET);
}

void LevelSetGrid::add(const double* phi, long long k0, long long planes, long long ny,
                       long long nx) {
  const double* value = phi;
  for (long long k = k0; k < k0 + planes; ++k)
    for (long long j = 0; j < ny; ++j)
      for (long long i = 0; i < nx; ++i, ++value)
        if (std::abs(*value) < band_)
          voxels_.setValueOn(voxel(i, j, k), static_cast<float>(*value));
}

openvdb::GridBase::Ptr LevelSetGrid::finish() {
  // Outside the band every voxel was left at +background; the flood fill gives the inactive
  // voxels and tiles that the band encloses on its negative side -background, as a level set's
  // readers expect (OpenVDB's meshToVolume finishes its grids the same way).
  voxels_.clear();
  openvdb::tools::signedFloodFill(grid_->tree());
  openvdb::tools::pruneLevelSet(grid_->tree());
  return grid_;
}

VelocityGrid::VelocityGrid(const std::string& name, double threshold,
                           openvdb::math::Transform::Ptr transform)
    : grid_(openvdb::Vec3fGrid::create(openvdb::Vec3f(0.0f))), voxels_(grid_->getAccessor()),
      threshold_squared_(threshold * threshold) {
  grid_->setName(name);
  grid_->setTransform(transform);
  grid_->setVectorType(openvdb::VEC_CONTRAVARIANT_RELATIVE);
  grid_->setIsInWorldSpace(true);
}

void VelocityGrid::add(const double* velocity, long long k0, long long planes, long long ny,
                       long long nx) {
  // Threshold 0 keeps every non-zero vector; the test is on the components so that a vector
  // whose squared length underflows to 0 is not dropped.
  const bool nonzero = threshold_squared_ == 0.0;
  const double* u = velocity;
  for (long long k = k0; k < k0 + planes; ++k)
    for (long long j = 0; j < ny; ++j)
      for (long long i = 0; i < nx; ++i, u += 3) {
        const bool keep = nonzero ? (u[0] != 0.0 || u[1] != 0.0 || u[2] != 0.0)
                                  : u[0] * u[0] + u[1] * u[1] + u[2] * u[2] > threshold_squared_;
        if (keep)
          voxels_.setValueOn(voxel(i, j, k),
                             openvdb::Vec3f(static_cast<float>(u[0]), static_cast<float>(u[1]),
                                            static_cast<float>(u[2])));
      }
}

openvdb::GridBase::Ptr VelocityGrid::finish() {
  voxels_.clear();
  openvdb::tools::prune(grid_->tree());
  return grid_;
}

bool write_vdb(const std::string& path, const openvdb::GridPtrVec& grids,
               const openvdb::MetaMap& meta, std::string* error) {
  const std::string temporary = path + ".tmp";
  const openvdb::GridCPtrVec constant(grids.begin(), grids.end());
  std::string reason;
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) {
      reason = std::strerror(errno);
    } else {
      StreamWriter().write_to(out, constant, meta);
      out.close();
      if (out.fail()) reason = "the write or the close failed (is the disk full?)";
    }
  } catch (const std::exception& failure) {
    reason = failure.what();
  }
  if (reason.empty() && std::rename(temporary.c_str(), path.c_str()) != 0)
    reason = std::string("renaming ") + temporary + ": " + std::strerror(errno);
  if (reason.empty()) return true;
  std::remove(temporary.c_str());
  *error = "cannot write " + path + ": " + reason;
  return false;
}

}  // namespace sf::exporter
