// One frame exported by one process: its chosen datasets read slab by slab into sparse OpenVDB
// grids (vdb_export.hpp), written as <directory>/<name>_NNNNNN.vdb, and the liquid's surface
// meshed from the same slabs (surface_mesh.hpp) into <name>_NNNNNN.ply or .obj. The plan, what
// to write, is decided once for all frames from the command line and the index (main.cpp).
#pragma once

#include <string>
#include <vector>

#include "frame_index.hpp"

namespace sf::exporter {

struct ExportField {
  enum class Kind { Volume, LevelSet, Velocity };
  IndexedDataset dataset;
  Kind kind = Kind::Volume;
};

struct ExportPlan {
  std::string directory;
  std::vector<ExportField> fields;  // the grids of each .vdb, in this order (none: no .vdb)
  std::string surface;              // "ply", "obj", or empty for no mesh
  IndexedDataset level_set;         // the dataset the surface is the zero set of
  double threshold = 0.0;           // volumes and velocity: stored where |value| > threshold
};

struct FrameResult {
  std::vector<std::string> files;  // what was written
  long long grids = 0;
  long long active_voxels = 0;     // over all grids
  long long triangles = 0;
  double seconds = 0.0;
};

/// Exports `frame` of `index` as `plan` says. False, with a message naming the file at fault
/// (the frame, or an output file), on any failure; a file that was not completely written is
/// removed, and earlier files of the same names are then untouched.
bool export_frame(const FrameIndex& index, const IndexedFrame& frame, const ExportPlan& plan,
                  FrameResult* result, std::string* error);

}  // namespace sf::exporter
