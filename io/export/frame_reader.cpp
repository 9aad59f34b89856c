// Serial HDF5 reads of one frame (frame_reader.hpp): its grid checked against the index, then
// z-plane hyperslabs of its cell datasets.
#include "frame_reader.hpp"

#include "hdf5_util.hpp"

#include <algorithm>

namespace sf::exporter {

namespace {

/// H5Literate's callback: appends `name` to the list in `data` when it is a dataset (a group,
/// such as /face_velocity, does not open as one).
herr_t add_dataset_name(hid_t group, const char* name, const H5L_info_t*, void* data) {
  H5Id dataset(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
  if (dataset.valid()) {
    auto* names = static_cast<std::string*>(data);
    *names += (names->empty() ? "" : ", ") + std::string(name);
  }
  H5Eclear2(H5E_DEFAULT);
  return 0;
}

}  // namespace

bool frame_dimension(const std::string& path, int* dim, std::string* error) {
  H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) {
    *error = path + ": cannot open it as HDF5 (" + hdf5_error_message() + ")";
    return false;
  }
  long long value = 0;
  std::string ignored;  // the message below says more
  const bool read = read_attribute(static_cast<hid_t>(file), "dimension", H5T_NATIVE_LLONG,
                                   &value, 1, &ignored);
  if (!read || (value != 2 && value != 3)) {
    *error = path + ": not a stablefluids frame (no root attribute dimension of 2 or 3)";
    return false;
  }
  *dim = static_cast<int>(value);
  return true;
}

FrameFile::~FrameFile() {
  if (file_ >= 0) (void)H5Fclose(file_);
}

bool FrameFile::open(const std::string& path, const FrameGrid& grid, std::string* error) {
  path_ = path;
  // H5P_DEFAULT: the serial POSIX driver, this process alone (frame_reader.hpp).
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0) {
    *error = path + ": cannot open it as HDF5 (" + hdf5_error_message() + ")";
    return false;
  }
  long long dim = 0;
  long long cells[3] = {0, 0, 0};
  double origin[3] = {0.0, 0.0, 0.0}, spacing[3] = {0.0, 0.0, 0.0};
  const auto n = static_cast<size_t>(grid.dim);
  std::string ignored;  // the message below says more
  const bool read = read_attribute(file_, "dimension", H5T_NATIVE_LLONG, &dim, 1, &ignored) &&
                    dim == grid.dim &&
                    read_attribute(file_, "cells", H5T_NATIVE_LLONG, cells, n, &ignored) &&
                    read_attribute(file_, "origin", H5T_NATIVE_DOUBLE, origin, n, &ignored) &&
                    read_attribute(file_, "spacing", H5T_NATIVE_DOUBLE, spacing, n, &ignored);
  if (!read) {
    *error = path + ": not a stablefluids frame of a " + std::to_string(grid.dim) +
             "-D run (its root attributes dimension, cells, origin and spacing are missing or "
             "of another dimension)";
    return false;
  }
  // The index prints the grid with 17 significant digits, so the two agree exactly.
  for (int a = 0; a < grid.dim; ++a)
    if (cells[a] != grid.cells[a] || origin[a] != grid.origin[a] ||
        spacing[a] != grid.spacing[a]) {
      *error = path + ": its grid (cells, origin, spacing) is not the one its index gives";
      return false;
    }
  return true;
}

std::string FrameFile::dataset_names() const {
  std::string names;
  hsize_t at = 0;
  (void)H5Literate(file_, H5_INDEX_NAME, H5_ITER_INC, &at, add_dataset_name, &names);
  H5Eclear2(H5E_DEFAULT);
  return names;
}

SlabReader::~SlabReader() {
  if (dataset_ >= 0) (void)H5Dclose(dataset_);
}

bool SlabReader::open(const FrameFile& file, const IndexedDataset& dataset, const FrameGrid& grid,
                      std::string* error) {
  name_ = dataset.path;
  file_ = file.path();
  dim_ = grid.dim;
  components_ = dataset.components;
  if (H5Lexists(file.id(), dataset.path.c_str(), H5P_DEFAULT) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    *error = file_ + ": no dataset " + dataset.path + " in this frame (it holds " +
             file.dataset_names() + ")";
    return false;
  }
  dataset_ = H5Dopen2(file.id(), dataset.path.c_str(), H5P_DEFAULT);
  H5Id space(dataset_ >= 0 ? H5Dget_space(dataset_) : -1, H5Sclose);
  shape_.clear();
  for (int a = grid.dim - 1; a >= 0; --a) shape_.push_back(static_cast<hsize_t>(grid.cells[a]));
  if (components_ > 1) shape_.push_back(static_cast<hsize_t>(components_));
  std::vector<hsize_t> actual(shape_.size() + 1, 0);
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space) : -1;
  if (rank != static_cast<int>(shape_.size()) ||
      H5Sget_simple_extent_dims(space, actual.data(), nullptr) < 0 ||
      !std::equal(shape_.begin(), shape_.end(), actual.begin())) {
    H5Eclear2(H5E_DEFAULT);
    *error = file_ + ": dataset " + name_ + " is not of the grid's shape";
    return false;
  }
  return true;
}

bool SlabReader::read(long long k0, long long planes, double* out, std::string* error) {
  std::vector<hsize_t> offset(shape_.size(), 0), count = shape_;
  if (dim_ == 3) {
    offset[0] = static_cast<hsize_t>(k0);
    count[0] = static_cast<hsize_t>(planes);
  }
  H5Id file_space(H5Dget_space(dataset_), H5Sclose);
  H5Id memory(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
  if (!file_space.valid() || !memory.valid() ||
      H5Sselect_hyperslab(file_space, H5S_SELECT_SET, offset.data(), nullptr, count.data(),
                          nullptr) < 0 ||
      H5Dread(dataset_, H5T_NATIVE_DOUBLE, memory, file_space, H5P_DEFAULT, out) < 0) {
    *error = file_ + ": reading " + name_ + ", z-planes " + std::to_string(k0) + " to " +
             std::to_string(k0 + planes - 1) + ": " + hdf5_error_message();
    return false;
  }
  return true;
}

}  // namespace sf::exporter
