// Collective HDF5 building blocks shared by output frames and checkpoints: an RAII identifier,
// HDF5's own error text, hyperslabs of the owned cells and faces (and the faces packed as they
// are stored), dataset and attribute writes and reads, and the agreement of all ranks on whether
// a step of a collective write worked. The file itself, created and committed all or nothing, is
// collective_file.hpp's.
//
// Discipline for callers: every rank makes every collective call, whatever happened before on
// this rank (write `ok = call(...) && ok`, never `ok = ok && call(...)`): a full disk or a vanished
// directory may fail on some ranks only, and a rank that skipped a collective call would leave
// the others waiting in it forever. The ranks agree on the outcome once, at the end.
#pragma once

#include <hdf5.h>
#include <petscsys.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "build_info.hpp"
#include "field.hpp"
#include "grid.hpp"
#include "vec_array.hpp"

namespace sf {

/// Closes an HDF5 identifier when it goes out of scope. A negative id means the call that made
/// it failed; such an id is never closed.
class H5Id {
public:
  H5Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~H5Id() {
    if (id_ >= 0) (void)close_(id_);
  }
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  operator hid_t() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Closes now and reports whether the close itself worked (a file close flushes data).
  bool close() {
    const bool ok = id_ < 0 || close_(id_) >= 0;
    id_ = -1;
    return ok;
  }

private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

inline herr_t remember_deepest(unsigned, const H5E_error2_t* error, void* data) {
  auto* message = static_cast<std::string*>(data);
  if (error->desc && error->desc[0]) *message = error->desc;
  return 0;
}

/// The innermost description on HDF5's error stack, e.g. "unable to open file" or the
/// operating system's reason, to be quoted in our own message. Clears the stack.
inline std::string hdf5_error_message() {
  std::string message;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, remember_deepest, &message);
  H5Eclear2(H5E_DEFAULT);
  return message.empty() ? std::string("unknown HDF5 error") : message;
}

/// A hyperslab of a global array, slowest axis first (HDF5 and XDMF order).
struct Slab {
  std::vector<hsize_t> global, offset, count;
};

/// The slab of `box` (x, y, z order) in an array of `extent` cells per axis, as HDF5 wants it.
/// `components` > 1 appends a fastest-varying component axis.
inline Slab make_slab(int dim, const IndexBox& box, const std::array<PetscInt, 3>& extent,
               int components) {
  Slab slab;
  for (int a = dim - 1; a >= 0; --a) {
    slab.global.push_back(static_cast<hsize_t>(extent[a]));
    slab.offset.push_back(static_cast<hsize_t>(box.lo[a]));
    slab.count.push_back(static_cast<hsize_t>(box.size(a)));
  }
  if (components > 1) {
    slab.global.push_back(static_cast<hsize_t>(components));
    slab.offset.push_back(0);
    slab.count.push_back(static_cast<hsize_t>(components));
  }
  return slab;
}

/// The slab of this rank's own cells, as every cell field is stored.
inline Slab cell_slab(const Grid& grid) {
  return make_slab(grid.dim(), grid.owned_cells(), {grid.cells(0), grid.cells(1), grid.cells(2)},
                   1);
}

/// The slab of this rank's own faces of velocity component c in the array of all of them (one
/// more face than cells along c unless c is periodic), as /face_velocity/x|y|z store them.
inline Slab face_slab(const Grid& grid, int c) {
  std::array<PetscInt, 3> extent{grid.cells(0), grid.cells(1), grid.cells(2)};
  for (int a = 0; a < grid.dim(); ++a) extent[a] = grid.face_count(c, a);
  return make_slab(grid.dim(), grid.owned_faces(c), extent, 1);
}

/// Rows [first, first + count) of a particle dataset of `total` rows of `columns` values (a
/// swarm's checkpoint rows, particle_records.hpp).
inline Slab particle_slab(hsize_t total, hsize_t first, hsize_t count, hsize_t columns) {
  Slab slab;
  slab.global = {total, columns};
  slab.offset = {first, 0};
  slab.count = {count, columns};
  return slab;
}

/// The size, in doubles, of the one buffer a frame or checkpoint packs its datasets into, one
/// after another: this rank's largest box of owned faces, which holds as many values as its
/// owned cells or, on a rank at an upper non-periodic boundary, one layer more.
inline size_t packing_size(const Grid& grid) {
  PetscInt largest = grid.owned_cells().count();
  for (int c = 0; c < grid.dim(); ++c) largest = std::max(largest, grid.owned_faces(c).count());
  return static_cast<size_t>(largest);
}

/// Calls `use(c, packed)`, which returns a PetscErrorCode, for every velocity component c with
/// this rank's own faces of it packed x fastest in `buffer` (packing_size() doubles at least), as
/// the face datasets store them. One buffer for all components: 8 bytes per cell.
template <typename Use>
PetscErrorCode with_packed_faces(const Grid& grid, const Field& velocity,
                                 std::vector<double>& buffer, Use&& use) {
  PetscFunctionBeginUser;
  PetscCheck(buffer.size() >= packing_size(grid), grid.comm(), PETSC_ERR_ARG_SIZ,
             "the packing buffer is smaller than this rank's largest box of faces");
  ReadArray u;
  PetscCall(u.get_global(velocity));
  for (int c = 0; c < grid.dim(); ++c) {
    double* packed = buffer.data();
    for_each_index(grid.owned_faces(c),
                   [&](PetscInt i, PetscInt j, PetscInt k) { *packed++ = u(i, j, k, c); });
    PetscCall(use(c, static_cast<const double*>(buffer.data())));
  }
  PetscFunctionReturn(0);
}

/// Splits `box` into boxes of at most `capacity` cells (>= 1) that tile it, in storage order:
/// runs of whole layers across axis `axis` (z first), as few and as even as fit, or, where a
/// single layer holds more than `capacity`, that layer split the same way across the next
/// axis. Each piece is a hyperslab, so a dataset can be written piece by piece from a buffer
/// of `capacity` cells.
inline void split_box(const IndexBox& box, PetscInt capacity, std::vector<IndexBox>* pieces,
                      int axis = 2) {
  const PetscInt layers = box.size(axis);
  if (box.count() == 0) return;
  const PetscInt layer = box.count() / layers;
  if (layer > capacity && axis > 0) {
    for (PetscInt l = box.lo[axis]; l < box.hi[axis]; ++l) {
      IndexBox one = box;
      one.lo[axis] = l;
      one.hi[axis] = l + 1;
      split_box(one, capacity, pieces, axis - 1);
    }
    return;
  }
  const PetscInt most = std::max<PetscInt>(1, capacity / layer);  // layers per piece
  const PetscInt count = (layers + most - 1) / most;
  PetscInt start = box.lo[axis];
  for (PetscInt p = 0; p < count; ++p) {
    IndexBox piece = box;
    piece.lo[axis] = start;
    start += layers / count + (p < layers % count ? 1 : 0);
    piece.hi[axis] = start;
    pieces->push_back(piece);
  }
}

/// The face datasets under /face_velocity, by velocity component.
inline const char* const kFaceDatasets[3] = {"x", "y", "z"};

/// A dataset transfer property list for collective MPI-IO writes and reads, as every dataset of
/// frames and checkpoints is written; negative when HDF5 could not make one. The caller closes
/// it (H5Id with H5Pclose).
inline hid_t collective_transfer() {
  const hid_t transfer = H5Pcreate(H5P_DATASET_XFER);
  if (transfer >= 0 && H5Pset_dxpl_mpio(transfer, H5FD_MPIO_COLLECTIVE) < 0) {
    H5Pclose(transfer);
    return -1;
  }
  return transfer;
}

/// Creates dataset `name` of element type `type` and global shape `slab.global` under
/// `parent`; negative, with the reason in `error`, on failure (close it with H5Dclose).
/// Collective.
inline hid_t create_dataset(hid_t parent, const std::string& name, const Slab& slab, hid_t type,
                            std::string* error) {
  H5Id filespace(H5Screate_simple(static_cast<int>(slab.global.size()), slab.global.data(),
                                  nullptr),
                 H5Sclose);
  const hid_t dataset = filespace.valid() ? H5Dcreate2(parent, name.c_str(), type, filespace,
                                                       H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                                          : -1;
  if (dataset < 0) *error = "dataset " + name + ": " + hdf5_error_message();
  return dataset;
}

/// Writes this rank's part `slab` of `dataset` (created with create_dataset) collectively from
/// `data`, packed as the slab is stored. A slab with no elements writes nothing but takes part,
/// so ranks with fewer parts to write than others make the same calls. False on failure, with
/// the reason; an invalid `dataset` (its creation failed) keeps create_dataset's reason.
inline bool write_part(hid_t dataset, const std::string& name, const Slab& slab, hid_t type,
                       const void* data, hid_t transfer, std::string* error) {
  if (dataset < 0) return false;
  const int rank = static_cast<int>(slab.global.size());
  bool empty = false;
  std::vector<hsize_t> extent = slab.count;
  for (hsize_t& n : extent)
    if (n == 0) empty = true, n = 1;
  H5Id filespace(H5Dget_space(dataset), H5Sclose);
  H5Id memspace(H5Screate_simple(rank, extent.data(), nullptr), H5Sclose);
  bool ok = filespace.valid() && memspace.valid();
  // A dataset with no elements at all (a checkpoint's spray before any was shed) has nothing to
  // write, and HDF5 1.10's collective write fails on its unallocated storage ("addr overflow");
  // every rank sees the same global extent, so every rank skips the write together.
  bool nothing = false;
  for (hsize_t n : slab.global) nothing = nothing || n == 0;
  if (nothing) return ok;
  if (empty)
    ok = ok && H5Sselect_none(filespace) >= 0 && H5Sselect_none(memspace) >= 0;
  else
    ok = ok && H5Sselect_hyperslab(filespace, H5S_SELECT_SET, slab.offset.data(), nullptr,
                                   slab.count.data(), nullptr) >= 0;
  ok = ok && H5Dwrite(dataset, type, memspace, filespace, transfer, data) >= 0;
  if (!ok) *error = "dataset " + name + ": " + hdf5_error_message();
  return ok;
}

/// Creates dataset `name` of element type `type` (stored as in memory) under `parent` and
/// writes this rank's slab collectively. Returns false if any HDF5 call failed; `error` then
/// holds the reason.
inline bool write_dataset(hid_t parent, const std::string& name, const Slab& slab, hid_t type,
                          const void* data, hid_t transfer, std::string* error) {
  H5Id dataset(create_dataset(parent, name, slab, type, error), H5Dclose);
  return write_part(dataset, name, slab, type, data, transfer, error);
}

inline bool write_dataset(hid_t parent, const std::string& name, const Slab& slab,
                          const double* data, hid_t transfer, std::string* error) {
  return write_dataset(parent, name, slab, H5T_NATIVE_DOUBLE, data, transfer, error);
}

/// The HDF5 type of `text` as a string: fixed length, NUL-terminated, UTF-8, so that h5dump
/// prints it as a string and h5py reads it as one (not as an array of int8).
inline hid_t string_type(const std::string& text) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  if (type >= 0 && (H5Tset_size(type, text.size() + 1) < 0 ||
                    H5Tset_strpad(type, H5T_STR_NULLTERM) < 0 ||
                    H5Tset_cset(type, H5T_CSET_UTF8) < 0)) {
    H5Tclose(type);
    return -1;
  }
  return type;
}

/// Attaches `value` to `object` as a scalar string attribute. Every rank must pass the same
/// value (parallel HDF5 writes attributes from every rank). Collective.
inline bool write_string_attribute(hid_t object, const char* name, const std::string& value,
                                   std::string* error) {
  H5Id type(string_type(value), H5Tclose);
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id attribute(type.valid() && space.valid()
                     ? H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT)
                     : -1,
                 H5Aclose);
  const bool ok = attribute.valid() && H5Awrite(attribute, type, value.c_str()) >= 0;
  if (!ok) *error = std::string("attribute ") + name + ": " + hdf5_error_message();
  return ok;
}

/// Creates the scalar string dataset `name` under `parent` holding `text`; only the rank with
/// `writer` set writes its bytes (text of any length, where an attribute stops at 64 kB).
/// Collective.
inline bool write_string_dataset(hid_t parent, const char* name, const std::string& text,
                                 bool writer, hid_t transfer, std::string* error) {
  H5Id type(string_type(text), H5Tclose);
  H5Id filespace(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id memspace(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id dataset(type.valid() && filespace.valid()
                   ? H5Dcreate2(parent, name, type, filespace, H5P_DEFAULT, H5P_DEFAULT,
                                H5P_DEFAULT)
                   : -1,
               H5Dclose);
  bool ok = memspace.valid() && dataset.valid();
  if (ok && !writer) ok = H5Sselect_none(filespace) >= 0 && H5Sselect_none(memspace) >= 0;
  ok = ok && H5Dwrite(dataset, type, memspace, filespace, transfer, text.c_str()) >= 0;
  if (!ok) *error = std::string("dataset ") + name + ": " + hdf5_error_message();
  return ok;
}

/// Reads text stored either way this code has written it: as an HDF5 string (fixed length, as
/// now) or as an array of 8-bit integers (checkpoint formats 1 and 2). `read(type, buffer)`
/// reads the whole object with memory type `type`. False when it is neither.
template <typename Read>
bool read_text(hid_t file_type, hssize_t elements, Read read, std::string* text) {
  if (file_type < 0 || elements < 0) return false;
  if (H5Tget_class(file_type) == H5T_STRING && !H5Tis_variable_str(file_type)) {
    const size_t size = H5Tget_size(file_type);
    std::string buffer(size * static_cast<size_t>(elements), '\0');
    H5Id memory(H5Tcopy(file_type), H5Tclose);
    if (!memory.valid() || (elements > 0 && read(hid_t(memory), buffer.data()) < 0)) return false;
    *text = buffer.substr(0, buffer.find('\0'));
    return true;
  }
  if (H5Tget_class(file_type) == H5T_INTEGER && H5Tget_size(file_type) == 1) {
    std::string buffer(static_cast<size_t>(elements), '\0');
    if (elements > 0 && read(H5T_NATIVE_CHAR, buffer.data()) < 0) return false;
    *text = buffer;
    return true;
  }
  return false;
}

/// Text dataset `name` under `parent` (see read_text); false, with the reason, when it is
/// missing or not text.
inline bool read_text_dataset(hid_t parent, const char* name, std::string* text,
                              std::string* problem) {
  H5Id dataset(H5Dopen2(parent, name, H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) {
    *problem = std::string("dataset ") + name + " is missing";
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  H5Id type(H5Dget_type(dataset), H5Tclose);
  H5Id space(H5Dget_space(dataset), H5Sclose);
  const hssize_t elements = space.valid() ? H5Sget_simple_extent_npoints(space) : -1;
  auto read = [&](hid_t memory, void* buffer) {
    return H5Dread(dataset, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
  };
  if (read_text(type, elements, read, text)) return true;
  *problem = std::string("dataset ") + name + " is not text (" + hdf5_error_message() + ")";
  return false;
}

/// Numeric attribute `name` of `object` as `count` values of memory type `type`; false, with the
/// reason, when it is missing or holds another number of values.
template <typename T>
bool read_attribute(hid_t object, const char* name, hid_t type, T* values, size_t count,
                    std::string* error) {
  H5Id attribute(H5Aexists(object, name) > 0 ? H5Aopen(object, name, H5P_DEFAULT) : -1,
                 H5Aclose);
  H5Id space(attribute.valid() ? H5Aget_space(attribute) : -1, H5Sclose);
  const bool ok = attribute.valid() && space.valid() &&
                  H5Sget_simple_extent_npoints(space) == static_cast<hssize_t>(count) &&
                  H5Aread(attribute, type, values) >= 0;
  if (!ok) *error = std::string("attribute ") + name + " is missing or malformed";
  H5Eclear2(H5E_DEFAULT);
  return ok;
}

/// Text attribute `name` of `object` (see read_text); false when it is missing or not text.
inline bool read_text_attribute(hid_t object, const char* name, std::string* text) {
  if (H5Aexists(object, name) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  H5Id attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  H5Id type(attribute.valid() ? H5Aget_type(attribute) : -1, H5Tclose);
  H5Id space(attribute.valid() ? H5Aget_space(attribute) : -1, H5Sclose);
  const hssize_t elements = space.valid() ? H5Sget_simple_extent_npoints(space) : -1;
  auto read = [&](hid_t memory, void* buffer) { return H5Aread(attribute, memory, buffer); };
  const bool ok = read_text(type, elements, read, text);
  H5Eclear2(H5E_DEFAULT);
  return ok;
}

/// Reads this rank's slab of dataset `name` under `parent` collectively, after checking that the
/// dataset has exactly the global shape the slab expects. False on failure, with the reason.
inline bool read_dataset(hid_t parent, const std::string& name, const Slab& slab, double* data,
                         hid_t transfer, std::string* error) {
  const int rank = static_cast<int>(slab.global.size());
  H5Id dataset(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) {
    *error = "dataset " + name + " is missing";
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  H5Id filespace(H5Dget_space(dataset), H5Sclose);
  std::vector<hsize_t> shape(static_cast<size_t>(rank), 0);
  if (!filespace.valid() || H5Sget_simple_extent_ndims(filespace) != rank ||
      H5Sget_simple_extent_dims(filespace, shape.data(), nullptr) < 0 || shape != slab.global) {
    *error = "dataset " + name + " does not have the grid's shape";
    return false;
  }
  H5Id memspace(H5Screate_simple(rank, slab.count.data(), nullptr), H5Sclose);
  bool ok = memspace.valid() && H5Sselect_hyperslab(filespace, H5S_SELECT_SET, slab.offset.data(),
                                                    nullptr, slab.count.data(), nullptr) >= 0;
  ok = ok && H5Dread(dataset, H5T_NATIVE_DOUBLE, memspace, filespace, transfer, data) >= 0;
  if (!ok) *error = "dataset " + name + ": " + hdf5_error_message();
  return ok;
}

template <typename T>
bool write_attribute(hid_t object, const char* name, hid_t type, const T* values, hsize_t count,
                     std::string* error) {
  H5Id space(H5Screate_simple(1, &count, nullptr), H5Sclose);
  H5Id attribute(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  const bool ok = space.valid() && attribute.valid() && H5Awrite(attribute, type, values) >= 0;
  if (!ok) *error = std::string("attribute ") + name + ": " + hdf5_error_message();
  return ok;
}

/// Attaches the provenance (build_info.hpp) to `object`: `ranks` as an integer, the rest as
/// string attributes of the same names. Collective.
inline bool write_provenance(hid_t object, const Provenance& provenance, std::string* error) {
  bool ok = write_string_attribute(object, "program", provenance.program, error);
  ok = write_string_attribute(object, "commit", provenance.commit, error) && ok;
  ok = write_string_attribute(object, "written", provenance.written, error) && ok;
  ok = write_attribute(object, "ranks", H5T_NATIVE_LLONG, &provenance.ranks, 1, error) && ok;
  ok = write_string_attribute(object, "command_line", provenance.command_line, error) && ok;
  ok = write_string_attribute(object, "petsc_options", provenance.petsc_options, error) && ok;
  ok = write_string_attribute(object, "libraries", provenance.libraries, error) && ok;
  return ok;
}

/// True on every rank only if `ok` holds on every rank.
inline PetscErrorCode agree(MPI_Comm comm, bool ok, bool* all_ok) {
  PetscFunctionBeginUser;
  int local = ok ? 1 : 0, global = 0;
  PetscCallMPI(MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MIN, comm));
  *all_ok = global == 1;
  PetscFunctionReturn(0);
}

/// Makes *problem the same on every rank: the non-empty problem of the lowest rank that has
/// one, or empty everywhere. Collective.
inline PetscErrorCode agree_on_problem(MPI_Comm comm, std::string* problem) {
  PetscFunctionBeginUser;
  PetscMPIInt rank, size;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  int mine = problem->empty() ? size : rank, first = size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) PetscFunctionReturn(0);
  int length = static_cast<int>(problem->size());
  PetscCallMPI(MPI_Bcast(&length, 1, MPI_INT, first, comm));
  problem->resize(static_cast<size_t>(length));
  PetscCallMPI(MPI_Bcast(problem->data(), length, MPI_CHAR, first, comm));
  PetscFunctionReturn(0);
}

}  // namespace sf
