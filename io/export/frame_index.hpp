// A run's frames as its XDMF index (<name>.xmf, io/xdmf.cpp) lists them: the frame files and
// their times, the grid they share, and the datasets each holds. The exporter works from the
// index rather than from a listing of the directory because the index is what the run committed:
// a frame still being written is a <file>.tmp the index does not name yet, and a frame that an
// interrupted run wrote after its last checkpoint was dropped from it on restart.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace sf::exporter {

/// One cell-centred dataset of every frame, as the index names it.
struct IndexedDataset {
  std::string name;    // e.g. density: the name ParaView shows, and the VDB grid's name
  std::string path;    // inside the frame file, e.g. /density
  int components = 1;  // 1: a scalar; 3: a vector (the velocity)
};

struct IndexedFrame {
  std::string file;  // the frame's HDF5 file, with the index's directory in front
  std::string stem;  // its name without .h5, <name>_NNNNNN: the output files' name
  double time = 0.0;
};

/// The grid every frame shares, x, y, z order. A 2-D run has dim 2 and one cell along z, centred
/// on z = 0 and as thick as a cell is wide, as the index itself places it (io/xdmf.cpp); the
/// index alone cannot tell it from a 3-D grid one cell thick, so parse_frame_index() gives dim 3
/// and the caller sets 2 when the frames say so (frame_dimension()).
struct FrameGrid {
  int dim = 3;
  std::array<long long, 3> cells{1, 1, 1};
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  std::array<double, 3> spacing{1.0, 1.0, 1.0};
  long long plane_cells() const { return cells[0] * cells[1]; }
};

struct FrameIndex {
  std::string path;  // the .xmf file
  std::string name;  // the run's name: the index's file name without .xmf
  FrameGrid grid;
  std::vector<IndexedDataset> datasets;  // the first frame's, in the index's order
  std::vector<IndexedFrame> frames;      // in the index's order: frame n is frames[n]

  const IndexedDataset* find(const std::string& name) const;
  /// "velocity, density, ..." for messages that say what there is.
  std::string dataset_names() const;
};

/// Reads `text`, the contents of the index at `path`, into *index. False, with the reason in
/// *error, when the text is not a stablefluids frame index (another XML file, the particles'
/// index <name>_particles.xmf, an index whose frames disagree on the grid or the datasets).
bool parse_frame_index(const std::string& path, const std::string& text, FrameIndex* index,
                       std::string* error);

}  // namespace sf::exporter
