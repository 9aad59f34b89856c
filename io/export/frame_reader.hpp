// One frame file read by one process, a few z-planes at a time. The exporter gives each rank
// whole frames, so a frame is opened with HDF5's default (serial, POSIX) driver on one process:
// no collective call, so a rank that fails on a frame cannot leave another waiting. A cell
// dataset ([nz,] ny, nx[, 3], C order) is read as hyperslabs of whole z-planes, each a
// contiguous run of the file, so that a frame's dense fields are never in memory at once.
#pragma once

#include <hdf5.h>

#include <string>
#include <vector>

#include "frame_index.hpp"

namespace sf::exporter {

/// The dimension (2 or 3) a frame file says its run has (root attribute `dimension`); false,
/// with the reason naming the file, when it cannot be read.
bool frame_dimension(const std::string& path, int* dim, std::string* error);

class FrameFile {
public:
  FrameFile() = default;
  ~FrameFile();
  FrameFile(const FrameFile&) = delete;
  FrameFile& operator=(const FrameFile&) = delete;

  /// Opens `path` read-only and checks that its root attributes (dimension, cells, origin,
  /// spacing) are the grid the index gives. False, with the reason naming the file, otherwise.
  bool open(const std::string& path, const FrameGrid& grid, std::string* error);
  hid_t id() const { return file_; }
  const std::string& path() const { return path_; }
  /// The datasets at the file's root, for a message that says what a frame does hold.
  std::string dataset_names() const;

private:
  hid_t file_ = -1;
  std::string path_;
};

/// One cell-centred dataset of an open frame, read z-plane slab by slab as doubles (HDF5
/// converts the solid mask's bytes).
class SlabReader {
public:
  SlabReader() = default;
  ~SlabReader();
  SlabReader(const SlabReader&) = delete;
  SlabReader& operator=(const SlabReader&) = delete;

  /// Opens dataset `dataset` of `file` and checks that it has the grid's cells and `components`
  /// values a cell. False, with the reason, when it is missing (naming what the frame holds)
  /// or of another shape.
  bool open(const FrameFile& file, const IndexedDataset& dataset, const FrameGrid& grid,
            std::string* error);
  /// Reads z-planes [k0, k0 + planes) into `out`: planes x ny x nx x components doubles, x
  /// fastest, as they are stored. A 2-D dataset is its one plane, k0 = 0.
  bool read(long long k0, long long planes, double* out, std::string* error);

private:
  hid_t dataset_ = -1;
  std::string name_;
  std::string file_;
  int dim_ = 3;
  int components_ = 1;
  std::vector<hsize_t> shape_;
};

}  // namespace sf::exporter
