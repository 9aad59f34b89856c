// One frame to .vdb and .ply/.obj (export_frame.hpp). The frame is read in slabs of a few
// z-planes: each slab of each chosen dataset is read into one buffer and handed to its grid
// builder, and the level set's slab also to the mesher, plane by plane. What stays in memory is
// the sparse grids, the mesh, and buffers of kPlanesPerSlab planes, never a whole dense field.
//
// Measured on this 2-core machine, one rank, a 128^3 frame of jobs/drop_into_pool_3d.yaml (vof)
// in the page cache: phi as a level set and the PLY surface, 0.03-0.04 s (116,288 active
// voxels, 41,102 triangles); with liquid_fraction and the velocity too, 0.14-0.15 s (1.74
// million active voxels). Peak resident memory 75 and 93 MB against 73 MB for a 20^3 frame: a
// dense copy of phi alone would be 17 MB, of the velocity 50 MB.
#include "export_frame.hpp"

#include <openvdb/openvdb.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "frame_reader.hpp"
#include "surface_mesh.hpp"
#include "vdb_export.hpp"

namespace sf::exporter {

namespace {

/// z-planes read at once. Each slab of a C-ordered dataset is one contiguous run of the file,
/// so a few planes already make reads large (64 x 128 planes: 256 kB a read) while 1024^2
/// planes still cost only 32 MB of buffer (96 MB with the velocity's three components).
constexpr long long kPlanesPerSlab = 4;

/// A chosen dataset: where it is read from and the grid it goes into (one of the three).
struct FieldInput {
  SlabReader reader;
  std::unique_ptr<VolumeGrid> volume;
  std::unique_ptr<LevelSetGrid> level_set;
  std::unique_ptr<VelocityGrid> velocity;
};

std::string format_time(double time) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", time);
  return text;
}

}  // namespace

bool export_frame(const FrameIndex& index, const IndexedFrame& frame, const ExportPlan& plan,
                  FrameResult* result, std::string* error) {
  const auto start = std::chrono::steady_clock::now();
  *result = FrameResult{};
  const FrameGrid& grid = index.grid;
  FrameFile file;
  if (!file.open(frame.file, grid, error)) return false;

  const openvdb::math::Transform::Ptr transform = frame_transform(grid);
  const double voxel = std::min({grid.spacing[0], grid.spacing[1],
                                 grid.dim == 3 ? grid.spacing[2] : grid.spacing[0]});
  std::vector<std::unique_ptr<FieldInput>> inputs;
  int components = 1;
  const FieldInput* level_set_input = nullptr;
  for (const ExportField& field : plan.fields) {
    auto input = std::make_unique<FieldInput>();
    if (!input->reader.open(file, field.dataset, grid, error)) return false;
    switch (field.kind) {
      case ExportField::Kind::Volume:
        input->volume = std::make_unique<VolumeGrid>(field.dataset.name, plan.threshold,
                                                     transform);
        break;
      case ExportField::Kind::LevelSet:
        input->level_set = std::make_unique<LevelSetGrid>(field.dataset.name, voxel, transform);
        if (field.dataset.path == plan.level_set.path) level_set_input = input.get();
        break;
      case ExportField::Kind::Velocity:
        input->velocity = std::make_unique<VelocityGrid>(field.dataset.name, plan.threshold,
                                                         transform);
        break;
    }
    components = std::max(components, field.dataset.components);
    inputs.push_back(std::move(input));
  }
  // The mesh reads the level set itself when no grid of it is written.
  const bool mesh = !plan.surface.empty();
  SlabReader surface_reader;
  if (mesh && !level_set_input && !surface_reader.open(file, plan.level_set, grid, error))
    return false;
  std::unique_ptr<MarchingCubes> cubes;
  if (mesh) cubes = std::make_unique<MarchingCubes>(grid);

  const long long nx = grid.cells[0], ny = grid.cells[1];
  const long long nz = grid.dim == 3 ? grid.cells[2] : 1;
  std::vector<double> buffer(static_cast<size_t>(std::min(kPlanesPerSlab, nz) * nx * ny *
                                                 components));
  for (long long k0 = 0; k0 < nz; k0 += kPlanesPerSlab) {
    const long long planes = std::min(kPlanesPerSlab, nz - k0);
    for (const auto& input : inputs) {
      if (!input->reader.read(k0, planes, buffer.data(), error)) return false;
      if (input->volume) input->volume->add(buffer.data(), k0, planes, ny, nx);
      if (input->velocity) input->velocity->add(buffer.data(), k0, planes, ny, nx);
      if (input->level_set) input->level_set->add(buffer.data(), k0, planes, ny, nx);
      if (mesh && input.get() == level_set_input)
        for (long long p = 0; p < planes; ++p) cubes->add_plane(buffer.data() + p * nx * ny);
    }
    if (mesh && !level_set_input) {
      if (!surface_reader.read(k0, planes, buffer.data(), error)) return false;
      for (long long p = 0; p < planes; ++p) cubes->add_plane(buffer.data() + p * nx * ny);
    }
  }

  const std::string base = plan.directory + "/" + frame.stem;
  const std::string source = std::filesystem::path(frame.file).filename().string();
  if (!inputs.empty()) {
    openvdb::GridPtrVec grids;
    for (const auto& input : inputs) {
      openvdb::GridBase::Ptr made = input->volume      ? input->volume->finish()
                                    : input->velocity  ? input->velocity->finish()
                                                       : input->level_set->finish();
      result->active_voxels += static_cast<long long>(made->activeVoxelCount());
      grids.push_back(made);
    }
    // What the file is, for whoever opens it: vdb_print shows these, Houdini lists them.
    openvdb::MetaMap meta;
    meta.insertMeta("creator",
                    openvdb::StringMetadata("stablefluids_export " STABLEFLUIDS_VERSION));
    meta.insertMeta("source", openvdb::StringMetadata(source));
    meta.insertMeta("time", openvdb::DoubleMetadata(frame.time));
    if (!write_vdb(base + ".vdb", grids, meta, error)) return false;
    result->files.push_back(base + ".vdb");
    result->grids = static_cast<long long>(grids.size());
  }
  if (mesh) {
    const std::string comment = "the zero level set of " + plan.level_set.name + " (the liquid: " +
                                plan.level_set.name + " < 0) in " + source + " at t = " +
                                format_time(frame.time) + ", by stablefluids_export " +
                                STABLEFLUIDS_VERSION;
    const std::string path = base + "." + plan.surface;
    if (!write_mesh(path, plan.surface, cubes->mesh(), comment, error)) return false;
    result->files.push_back(path);
    result->triangles = static_cast<long long>(cubes->mesh().triangle_count());
  }
  result->seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return true;
}

}  // namespace sf::exporter
