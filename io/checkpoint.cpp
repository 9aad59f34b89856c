// Checkpoint write, read and pruning (layout in checkpoint.hpp).
#include "checkpoint.hpp"

#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <thread>

#include "checksum.hpp"
#include "error_codes.hpp"
#include "hdf5_util.hpp"
#include "hdf5_writer.hpp"

namespace sf {

namespace {

const char* const kAxisNames[3] = {"x", "y", "z"};

/// FNV-1a: a hash of the job text that is the same on every machine and compiler, so a
/// checkpoint can say which job file wrote it.
std::string job_hash(const std::string& text) {
  unsigned long long hash = 1469598103934665603ull;
  for (unsigned char ch : text) {
    hash ^= ch;
    hash *= 1099511628211ull;
  }
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%016llx", hash);
  return buffer;
}

/// Writes a small one-dimensional dataset that rank 0 holds, with `crc` (the same on every rank)
/// as its checksum; every rank takes part.
bool write_small(hid_t file, const char* name, hid_t type, const void* data, hsize_t count,
                 bool writer, hid_t transfer, std::uint32_t crc, std::string* error) {
  const hsize_t extent = std::max<hsize_t>(count, 1);
  H5Id filespace(H5Screate_simple(1, &extent, nullptr), H5Sclose);
  H5Id memspace(H5Screate_simple(1, &extent, nullptr), H5Sclose);
  H5Id dataset(H5Dcreate2(file, name, type, filespace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
               H5Dclose);
  bool ok = filespace.valid() && memspace.valid() && dataset.valid();
  if (ok && (!writer || count == 0)) {
    ok = H5Sselect_none(filespace) >= 0 && H5Sselect_none(memspace) >= 0;
  }
  static const double nothing = 0.0;
  ok = ok && H5Dwrite(dataset, type, memspace, filespace, transfer, data ? data : &nothing) >= 0;
  if (!ok) *error = std::string("dataset ") + name + ": " + hdf5_error_message();
  return write_attribute(dataset, "crc32", H5T_NATIVE_UINT32, &crc, 1, error) && ok;
}

/// Stores `crc` as the checksum of dataset `name` under `parent`. Collective.
bool write_checksum(hid_t parent, const std::string& name, std::uint32_t crc,
                    std::string* error) {
  H5Id dataset(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) {
    *error = "dataset " + name + ": " + hdf5_error_message();
    return false;
  }
  return write_attribute(dataset, "crc32", H5T_NATIVE_UINT32, &crc, 1, error);
}

template <typename T>
bool read_attribute(hid_t object, const char* name, hid_t type, T* values, size_t count,
                    std::string* error) {
  H5Id attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  H5Id space(attribute.valid() ? H5Aget_space(attribute) : -1, H5Sclose);
  const bool ok = attribute.valid() && space.valid() &&
                  H5Sget_simple_extent_npoints(space) == static_cast<hssize_t>(count) &&
                  H5Aread(attribute, type, values) >= 0;
  if (!ok) {
    *error = std::string("attribute ") + name + " is missing or malformed";
    H5Eclear2(H5E_DEFAULT);
  }
  return ok;
}

/// The checksum stored with dataset `name`; false, with the problem, if there is none.
bool read_checksum(hid_t dataset, const std::string& name, std::uint32_t* crc,
                   std::string* problem) {
  std::string ignored;
  if (read_attribute(dataset, "crc32", H5T_NATIVE_UINT32, crc, 1, &ignored)) return true;
  *problem = "dataset " + name + " has no checksum";
  return false;
}

/// Reads a whole small one-dimensional dataset and its checksum on every rank (independently).
template <typename T>
bool read_small(hid_t file, const char* name, hid_t type, std::vector<T>* values,
                std::uint32_t* crc, std::string* problem) {
  H5Id dataset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) {
    *problem = std::string("dataset ") + name + " is missing";
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  H5Id space(H5Dget_space(dataset), H5Sclose);
  const hssize_t count = space.valid() ? H5Sget_simple_extent_npoints(space) : -1;
  if (count < 0) {
    *problem = std::string("dataset ") + name + ": " + hdf5_error_message();
    return false;
  }
  values->resize(static_cast<size_t>(count));
  if (count > 0 && H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values->data()) < 0) {
    *problem = std::string("dataset ") + name + ": " + hdf5_error_message();
    return false;
  }
  return read_checksum(dataset, name, crc, problem);
}

std::string mismatch(const std::string& what, std::uint32_t stored, std::uint32_t computed) {
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, " (CRC-32 stored 0x%08x, of the data 0x%08x)", stored,
                computed);
  return "checksum mismatch in " + what + ": the file is damaged" + numbers;
}

/// The checksum of the attributes a restart continues from: time, step, last_dt, next_frame and
/// frames, in this order, each as 8 little-endian bytes, so that the value does not depend on
/// the machine that computes it.
std::uint32_t state_checksum(double time, long long step, double last_dt, long long next_frame,
                             long long frames) {
  unsigned char bytes[40];
  const auto put = [&](int slot, std::uint64_t bits) {
    for (int b = 0; b < 8; ++b) bytes[8 * slot + b] = static_cast<unsigned char>(bits >> (8 * b));
  };
  std::uint64_t bits;
  std::memcpy(&bits, &time, 8);
  put(0, bits);
  put(1, static_cast<std::uint64_t>(step));
  std::memcpy(&bits, &last_dt, 8);
  put(2, bits);
  put(3, static_cast<std::uint64_t>(next_frame));
  put(4, static_cast<std::uint64_t>(frames));
  return crc32_of(bytes, sizeof bytes);
}

herr_t collect_description(unsigned, const H5E_error2_t* error, void* data) {
  static_cast<std::vector<std::string>*>(data)->push_back(error->desc ? error->desc : "");
  return 0;
}

/// Why H5Fopen failed, as the part that failed and the innermost reason, e.g. "unable to read
/// superblock: truncated file: eof = 600000, ...". Clears HDF5's error stack.
std::string open_failure() {
  std::vector<std::string> descriptions;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_description, &descriptions);
  H5Eclear2(H5E_DEFAULT);
  if (descriptions.empty()) return "unknown HDF5 error";
  // [0] is H5Fopen's own "unable to open file"; [1] names the part that failed.
  if (descriptions.size() >= 3) return descriptions[1] + ": " + descriptions.back();
  return descriptions.back();
}

/// Rank 0's look at a checkpoint before any rank opens it collectively: a missing, empty,
/// truncated or garbage file is refused by one process with one reason, so no rank enters the
/// MPI-IO open of a file that only some ranks might manage to read. "" if it opens.
std::string screen(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) return std::strerror(errno);
  if (!S_ISREG(info.st_mode)) return "not a regular file";
  if (info.st_size == 0) return "the file is empty (0 bytes)";
  H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) return "not a readable HDF5 file (" + open_failure() + ")";
  return "";
}

/// Makes *problem the same on every rank: the non-empty problem of the lowest rank that has
/// one, or empty everywhere. Collective.
PetscErrorCode agree_on_problem(MPI_Comm comm, std::string* problem) {
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

/// Reads this rank's slab of dataset `name` collectively and checks the CRC-32 of the whole
/// dataset against the one stored with it. A problem (missing, wrong shape, no checksum,
/// unreadable, mismatch) is left in *problem on every rank; the ranks agree before the
/// collective read, so none enters it alone. Collective.
PetscErrorCode read_verified(MPI_Comm comm, hid_t file, const std::string& name, const Slab& slab,
                             double* data, hid_t transfer, std::string* problem) {
  PetscFunctionBeginUser;
  const int rank = static_cast<int>(slab.global.size());
  H5Id dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  H5Id filespace(dataset.valid() ? H5Dget_space(dataset) : -1, H5Sclose);
  std::vector<hsize_t> shape(static_cast<size_t>(rank), 0);
  std::uint32_t stored = 0;
  if (!dataset.valid()) {
    *problem = "dataset " + name + " is missing";
    H5Eclear2(H5E_DEFAULT);
  } else if (!filespace.valid() || H5Sget_simple_extent_ndims(filespace) != rank ||
             H5Sget_simple_extent_dims(filespace, shape.data(), nullptr) < 0 ||
             shape != slab.global) {
    *problem = "dataset " + name + " does not have the grid's shape";
  } else {
    read_checksum(dataset, name, &stored, problem);
  }
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);

  H5Id memspace(H5Screate_simple(rank, slab.count.data(), nullptr), H5Sclose);
  bool ok = memspace.valid() && H5Sselect_hyperslab(filespace, H5S_SELECT_SET, slab.offset.data(),
                                                    nullptr, slab.count.data(), nullptr) >= 0;
  ok = ok && H5Dread(dataset, H5T_NATIVE_DOUBLE, memspace, filespace, transfer, data) >= 0;
  if (!ok) *problem = "dataset " + name + ": " + hdf5_error_message();
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);

  std::uint32_t computed = 0;
  PetscCall(distributed_crc32(comm, slab, data, &computed));
  if (computed != stored) *problem = mismatch("dataset " + name, stored, computed);
  PetscFunctionReturn(0);
}

/// The owned faces of component c, packed x fastest (as the face datasets store them).
std::vector<double> pack_faces(const Grid& grid, const ArrayView& u, int c) {
  const IndexBox box = grid.owned_faces(c);
  std::vector<double> packed(static_cast<size_t>(box.count()));
  size_t n = 0;
  for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) { packed[n++] = u(i, j, k, c); });
  return packed;
}

Slab face_slab(const Grid& grid, int c) {
  std::array<PetscInt, 3> extent{grid.cells(0), grid.cells(1), grid.cells(2)};
  for (int a = 0; a < grid.dim(); ++a) extent[a] = grid.face_count(c, a);
  return make_slab(grid.dim(), grid.owned_faces(c), extent, 1);
}

Slab cell_slab(const Grid& grid) {
  return make_slab(grid.dim(), grid.owned_cells(), {grid.cells(0), grid.cells(1), grid.cells(2)},
                   1);
}

}  // namespace

PetscErrorCode Checkpointer::setup(const Grid& grid, const JobConfig& job) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  job_ = &job;
  directory_ = job.checkpoint.directory.empty() ? job.output.directory : job.checkpoint.directory;
  PetscCall(make_directory(grid.comm(), directory_));
  if (const char* pause = std::getenv("STABLEFLUIDS_TEST_CHECKPOINT_PAUSE"))
    pause_seconds_ = std::atof(pause);
  PetscFunctionReturn(0);
}

PetscErrorCode Checkpointer::list(std::vector<std::string>* paths) const {
  PetscFunctionBeginUser;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(grid_->comm(), &rank));
  std::string joined;
  if (rank == 0) {
    // <name>_checkpoint_<8 digits>.h5; the zero-padded step sorts as text.
    const std::string prefix = job_->name + "_checkpoint_";
    std::vector<std::string> found;
    std::error_code code;
    for (const auto& entry : std::filesystem::directory_iterator(directory_, code)) {
      const std::string file = entry.path().filename().string();
      if (file.size() == prefix.size() + 8 + 3 && file.compare(0, prefix.size(), prefix) == 0 &&
          file.compare(file.size() - 3, 3, ".h5") == 0 &&
          std::all_of(file.begin() + prefix.size(), file.end() - 3, ::isdigit))
        found.push_back(entry.path().string());
    }
    std::sort(found.begin(), found.end());
    for (const std::string& f : found) joined += f + "\n";
  }
  int length = static_cast<int>(joined.size());
  PetscCallMPI(MPI_Bcast(&length, 1, MPI_INT, 0, grid_->comm()));
  joined.resize(static_cast<size_t>(length));
  PetscCallMPI(MPI_Bcast(joined.data(), length, MPI_CHAR, 0, grid_->comm()));
  paths->clear();
  std::istringstream lines(joined);
  for (std::string line; std::getline(lines, line);) paths->push_back(line);
  PetscFunctionReturn(0);
}

PetscErrorCode Checkpointer::read_latest(Field& velocity, std::vector<Field>& scalars,
                                         Vec pressure, RunState* state, std::string* path,
                                         std::vector<SkippedCheckpoint>* skipped) {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid_->comm();
  std::vector<std::string> paths;
  PetscCall(list(&paths));
  PetscCheck(!paths.empty(), comm, PETSC_ERR_FILE_OPEN,
             "no checkpoint of job '%s' in '%s' to restart from", job_->name.c_str(),
             directory_.c_str());
  std::vector<SkippedCheckpoint> passed;
  for (auto candidate = paths.rbegin(); candidate != paths.rend(); ++candidate) {
    // A failed attempt may have filled some fields; the next one sets every field again.
    std::string problem;
    *state = RunState();
    PetscCall(try_read(*candidate, velocity, scalars, pressure, state, &problem));
    if (problem.empty()) {
      *path = *candidate;
      if (skipped) *skipped = passed;
      PetscFunctionReturn(0);
    }
    PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                           "stablefluids: warning: skipped checkpoint '%s': %s\n",
                           candidate->c_str(), problem.c_str()));
    passed.push_back({*candidate, problem});
  }
  if (skipped) *skipped = passed;
  SETERRQ(comm, PETSC_ERR_FILE_READ,
          "no usable checkpoint of job '%s' in '%s' (found %zu, each damaged or unverifiable, "
          "named above with its reason)",
          job_->name.c_str(), directory_.c_str(), paths.size());
}

PetscErrorCode Checkpointer::write(const Field& velocity, const std::vector<Field>& scalars,
                                   Vec pressure, const RunState& state, std::string* path_out) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const MPI_Comm comm = grid.comm();
  const int dim = grid.dim();
  PetscMPIInt rank, size;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  char number[16];
  std::snprintf(number, sizeof number, "%08lld", static_cast<long long>(state.step));
  const std::string path = directory_ + "/" + job_->name + "_checkpoint_" + number + ".h5";
  const std::string temporary = path + ".tmp";

  // The faces, the cell fields and the job, plus room for HDF5's metadata.
  const double bytes = 65536.0 + static_cast<double>(job_->text.size()) +
                       8.0 * (static_cast<double>(grid.total_cells()) *
                                  (static_cast<double>(scalars.size()) + 1.0) +
                              grid.face_samples());
  PetscCall(check_space(comm, path, bytes, "checkpoint"));

  Provenance provenance;
  PetscCall(current_provenance(comm, &provenance));
  // The job is its text with the command line's --set on top: both are needed to read it back.
  std::string overrides;
  for (const JobOverride& o : job_->overrides) overrides += o.text() + "\n";
  std::uint32_t overrides_crc = crc32_of(overrides.data(), overrides.size());
  PetscCallMPI(MPI_Bcast(&overrides_crc, 1, MPI_UINT32_T, 0, comm));

  std::string error;
  bool ok = true;
  {
    hid_t created = -1;
    PetscCall(create_collective(comm, temporary, "checkpoint", &created));
    H5Id file(created, H5Fclose);

    H5Id transfer(collective_transfer(), H5Pclose);
    ok = transfer.valid();

    const long long step = state.step, next_frame = state.next_frame, dimension = dim,
                    frames = static_cast<long long>(state.frame_times.size());
    long long cells[3], processes[3];
    for (int a = 0; a < 3; ++a) {
      cells[a] = grid.cells(a);
      processes[a] = grid.process_grid()[a];
    }
    const std::string hash = job_hash(job_->text);
    const std::string version = STABLEFLUIDS_VERSION;
    // The small datasets' checksums, from rank 0's values (the ones written), so that every rank
    // writes the same attribute.
    std::uint32_t small_crcs[3] = {
        crc32_of(job_->text.data(), job_->text.size()),
        crc32_of(state.frame_times.data(), state.frame_times.size() * sizeof(double)),
        state_checksum(state.time, step, state.last_dt, next_frame, frames)};
    PetscCallMPI(MPI_Bcast(small_crcs, 3, MPI_UINT32_T, 0, comm));
    ok = write_attribute(file, "format", H5T_NATIVE_LLONG, &kFormat, 1, &error) && ok;
    ok = write_attribute(file, "state_crc32", H5T_NATIVE_UINT32, &small_crcs[2], 1, &error) && ok;
    ok = write_attribute(file, "time", H5T_NATIVE_DOUBLE, &state.time, 1, &error) && ok;
    ok = write_attribute(file, "step", H5T_NATIVE_LLONG, &step, 1, &error) && ok;
    ok = write_attribute(file, "last_dt", H5T_NATIVE_DOUBLE, &state.last_dt, 1, &error) && ok;
    ok = write_attribute(file, "next_frame", H5T_NATIVE_LLONG, &next_frame, 1, &error) && ok;
    ok = write_attribute(file, "frames", H5T_NATIVE_LLONG, &frames, 1, &error) && ok;
    ok = write_attribute(file, "process_grid", H5T_NATIVE_LLONG, processes, 3, &error) && ok;
    ok = write_attribute(file, "dimension", H5T_NATIVE_LLONG, &dimension, 1, &error) && ok;
    ok = write_attribute(file, "cells", H5T_NATIVE_LLONG, cells, 3, &error) && ok;
    ok = write_string_attribute(file, "job_hash", hash, &error) && ok;
    ok = write_string_attribute(file, "version", version, &error) && ok;
    ok = write_provenance(file, provenance, &error) && ok;
    ok = write_string_dataset(file, "job", job_->text, rank == 0, transfer, &error) && ok;
    ok = write_checksum(file, "job", small_crcs[0], &error) && ok;
    ok = write_string_dataset(file, "job_overrides", overrides, rank == 0, transfer, &error) && ok;
    ok = write_checksum(file, "job_overrides", overrides_crc, &error) && ok;
    ok = write_small(file, "frame_times", H5T_NATIVE_DOUBLE, state.frame_times.data(),
                     state.frame_times.size(), rank == 0, transfer, small_crcs[1], &error) && ok;

    H5Id faces(H5Gcreate2(file, "face_velocity", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
               H5Gclose);
    ok = ok && faces.valid();
    {
      const PetscScalar* data;
      ArrayView u;
      PetscCall(VecGetArrayRead(velocity.global(), &data));
      PetscCall(grid.global_view(velocity.dm(), const_cast<PetscScalar*>(data), &u));
      for (int c = 0; c < dim; ++c) {
        const std::vector<double> packed = pack_faces(grid, u, c);
        const Slab slab = face_slab(grid, c);
        std::uint32_t crc = 0;
        PetscCall(distributed_crc32(comm, slab, packed.data(), &crc));
        ok = write_dataset(faces, kAxisNames[c], slab, packed.data(), transfer, &error) && ok;
        ok = write_checksum(faces, kAxisNames[c], crc, &error) && ok;
      }
      PetscCall(VecRestoreArrayRead(velocity.global(), &data));
    }
    std::vector<std::pair<std::string, Vec>> cell_fields;
    for (const Field& s : scalars) cell_fields.emplace_back(s.name(), s.global());
    cell_fields.emplace_back("pressure", pressure);
    for (const auto& [name, vec] : cell_fields) {
      const PetscScalar* data;
      PetscCall(VecGetArrayRead(vec, &data));
      std::uint32_t crc = 0;
      PetscCall(distributed_crc32(comm, cell_slab(grid), data, &crc));
      ok = write_dataset(file, name, cell_slab(grid), data, transfer, &error) && ok;
      ok = write_checksum(file, name, crc, &error) && ok;
      PetscCall(VecRestoreArrayRead(vec, &data));
    }
    if (pause_seconds_ > 0.0)
      std::this_thread::sleep_for(std::chrono::duration<double>(pause_seconds_));
    if (!faces.close() || !file.close()) {
      if (ok) error = hdf5_error_message();
      ok = false;
    }
  }
  PetscCall(commit_file(comm, ok, error, temporary, path, "checkpoint"));

  // Only now, with the new checkpoint complete, may the oldest ones go: of the checkpoints with
  // an earlier step, the newest keep - 1 stay beside the new one.
  //
  // "Verified" here means committed by this run: the new checkpoint was renamed only after every
  // rank's every HDF5 call succeeded, the closing flush included, and nothing writes it after.
  // It is not read back. Read at once, it would come from the operating system's page cache,
  // re-checking the bytes this process has just handed over rather than what the disk holds
  // (here that costs 0.04-0.05 s at 128^3, about as much as the write); on a parallel file system
  // at scale, where it would not be cached, it would double the I/O of every checkpoint. Damage
  // that happens later, on the medium, is what read_latest() finds at restart, falling back to
  // the previous checkpoint, which is why keep >= 2 is worth its disk space.
  //
  // So the newest verified checkpoint is never removed, and a damaged or foreign file that sorts
  // after it cannot push it out: checkpoints with a later step (left by the run this one
  // restarted before, such as the damaged ones read_latest() skipped) are neither counted nor
  // removed; this run overwrites or outgrows them.
  std::vector<std::string> paths;
  PetscCall(list(&paths));
  if (rank == 0) {
    namespace fs = std::filesystem;
    const std::string written = fs::path(path).filename().string();
    std::vector<std::string> older;  // oldest first, as list() returns them
    for (const std::string& p : paths)
      if (fs::path(p).filename().string() < written) older.push_back(p);
    const size_t keep_older = static_cast<size_t>(std::max(job_->checkpoint.keep, 1)) - 1;
    for (size_t n = 0; n + keep_older < older.size(); ++n) std::remove(older[n].c_str());
  }
  *path_out = path;
  PetscFunctionReturn(0);
}

PetscErrorCode Checkpointer::read(const std::string& path, Field& velocity,
                                  std::vector<Field>& scalars, Vec pressure, RunState* state) {
  PetscFunctionBeginUser;
  std::string problem;
  PetscCall(try_read(path, velocity, scalars, pressure, state, &problem));
  PetscCheck(problem.empty(), grid_->comm(), PETSC_ERR_FILE_READ,
             "cannot restart from checkpoint '%s': %s", path.c_str(), problem.c_str());
  PetscFunctionReturn(0);
}

// Every step below ends with the ranks agreeing on one problem (agree_on_problem) before any
// rank makes the next collective call, so a damaged file stops every rank at the same point.
//
// Checksums, measured at 128^3 cells with two scalars (101 MB; medians of 7 on this 2-core
// machine, the file in the page cache): zlib's CRC-32 adds about 30 ms of CPU per 100 MB (3.3
// GB/s), shared by the ranks. 1 rank: write 0.025 s without checksums, 0.056 s with; read 0.019
// s without, 0.049 s with verification. 2 ranks: read 0.015 -> 0.036 s; write 0.05-0.1 s either
// way (it varies more from run to run than the checksum costs). A step at 128^3 takes about 1.9 s.
// HDF5's own Fletcher-32 filter, which parallel HDF5 1.10.8 does write collectively on chunked
// datasets, cost 50 ms per 16 MB array to write and 40 ms to read, covers no attributes, would
// make the layout chunked, and its per-chunk checksums cannot be checked with common tools.
PetscErrorCode Checkpointer::try_read(const std::string& path, Field& velocity,
                                      std::vector<Field>& scalars, Vec pressure,
                                      RunState* state, std::string* problem) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const MPI_Comm comm = grid.comm();
  const int dim = grid.dim();
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  problem->clear();

  // Rank 0 alone first, then every rank through MPI-IO.
  if (rank == 0) *problem = screen(path);
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);
  H5Id access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  bool ok = access.valid() && H5Pset_fapl_mpio(access, comm, MPI_INFO_NULL) >= 0;
  H5Id file(ok ? H5Fopen(path.c_str(), H5F_ACC_RDONLY, access) : -1, H5Fclose);
  if (!file.valid()) *problem = "not a readable HDF5 file (" + open_failure() + ")";
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);

  // Checksums are what make a checkpoint trustworthy; without them (format 1) it is refused.
  long long format = 1;
  if (H5Aexists(file, "format") > 0 &&
      !read_attribute(file, "format", H5T_NATIVE_LLONG, &format, 1, problem))
    format = 0;
  if (format == 1) {
    std::string version;
    if (!read_text_attribute(file, "version", &version) || version.size() > 64)
      version = "(version unknown)";
    *problem = "it has no checksums (written by stablefluids " + version +
               " in checkpoint format 1), so its data cannot be verified; continue it with the "
               "stablefluids that wrote it, or start the run afresh";
  } else if (format != kFormat && format != kOldestReadableFormat && problem->empty()) {
    *problem = "checkpoint format " + std::to_string(format) + " is not one this " +
               "stablefluids reads (" + std::to_string(kOldestReadableFormat) + " to " +
               std::to_string(kFormat) + ")";
  }
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);

  // The job that wrote it, verified before it is parsed: only output, end time, solver and
  // checkpoint settings may differ.
  // Format 3 stores it as an HDF5 string, format 2 as an array of int8; the checksum is of the
  // text either way.
  std::string text;
  std::uint32_t stored = 0;
  auto read_verified_text = [&](const char* name, std::string* value) {
    if (!read_text_dataset(file, name, value, problem)) return;
    H5Id dataset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
    if (read_checksum(dataset, name, &stored, problem) &&
        crc32_of(value->data(), value->size()) != stored)
      *problem = mismatch(std::string("dataset ") + name, stored,
                          crc32_of(value->data(), value->size()));
  };
  read_verified_text("job", &text);
  // The --set overrides of the run that wrote it, one key=value per line (format 3; a format 2
  // checkpoint did not keep them).
  std::vector<JobOverride> overrides;
  if (problem->empty() && format >= 3) {
    std::string lines;
    read_verified_text("job_overrides", &lines);
    for (std::size_t begin = 0; begin < lines.size();) {
      const std::size_t end = lines.find('\n', begin);
      const std::string line = lines.substr(begin, end - begin);
      const std::size_t equals = line.find('=');
      if (equals != std::string::npos) overrides.push_back({line.substr(0, equals), line.substr(equals + 1)});
      begin = end == std::string::npos ? lines.size() : end + 1;
    }
  }
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);
  std::string differences;
  try {
    const JobConfig written = parse_job(text, path + " (job)", overrides);
    state->output_interval = written.output.interval;
    differences = physics_differences(written, *job_);
  } catch (const JobError& e) {
    differences = std::string("\n  its job text does not parse: ") + e.what();
  }
  // The job asks for something the checkpoint cannot give: the job's problem (status 2), and the
  // older checkpoints are no better, so `latest` does not look past it.
  PetscCheck(differences.empty(), comm, kErrorBadJob,
             "checkpoint '%s' does not match the job '%s'; on restart a job may change only "
             "output, time.end, pressure, diffusion, checkpoint and debug settings:%s",
             path.c_str(), job_->source.c_str(), differences.c_str());

  // The run state, then the times of the frames written so far.
  long long step = 0, next_frame = 0, frames = 0;
  ok = read_attribute(file, "time", H5T_NATIVE_DOUBLE, &state->time, 1, problem);
  ok = ok && read_attribute(file, "frames", H5T_NATIVE_LLONG, &frames, 1, problem);
  ok = ok && read_attribute(file, "step", H5T_NATIVE_LLONG, &step, 1, problem);
  ok = ok && read_attribute(file, "last_dt", H5T_NATIVE_DOUBLE, &state->last_dt, 1, problem);
  ok = ok && read_attribute(file, "next_frame", H5T_NATIVE_LLONG, &next_frame, 1, problem);
  ok = ok && read_attribute(file, "state_crc32", H5T_NATIVE_UINT32, &stored, 1, problem);
  if (ok) {
    const std::uint32_t computed =
        state_checksum(state->time, step, state->last_dt, next_frame, frames);
    if (computed != stored) {
      *problem = mismatch("the run state attributes (time, step, last_dt, next_frame, frames)",
                          stored, computed);
      ok = false;
    }
  }
  if (ok && read_small(file, "frame_times", H5T_NATIVE_DOUBLE, &state->frame_times, &stored,
                       problem)) {
    // Only the first `frames` values are in use (an empty list is stored as one unwritten
    // element, since an HDF5 dataset cannot be empty here); the checksum covers those.
    if (frames < 0 || static_cast<size_t>(frames) > state->frame_times.size()) {
      *problem = "dataset frame_times holds fewer than the " + std::to_string(frames) +
                 " frame times the run state names";
    } else {
      state->frame_times.resize(static_cast<size_t>(frames));
      const std::uint32_t computed =
          crc32_of(state->frame_times.data(), state->frame_times.size() * sizeof(double));
      if (computed != stored) *problem = mismatch("dataset frame_times", stored, computed);
    }
  }
  state->step = static_cast<PetscInt>(step);
  state->next_frame = static_cast<PetscInt>(next_frame);
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);

  // The fields, each verified as a whole once every rank has its part.
  H5Id transfer(collective_transfer(), H5Pclose);
  if (!transfer.valid())
    *problem = "cannot set up collective reads: " + hdf5_error_message();
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);
  {
    PetscScalar* data;
    ArrayView u;
    PetscCall(VecSet(velocity.global(), 0.0));
    PetscCall(VecGetArray(velocity.global(), &data));
    PetscCall(grid.global_view(velocity.dm(), data, &u));
    for (int c = 0; c < dim && problem->empty(); ++c) {
      const IndexBox box = grid.owned_faces(c);
      std::vector<double> packed(static_cast<size_t>(box.count()));
      PetscCall(read_verified(comm, file, std::string("face_velocity/") + kAxisNames[c],
                              face_slab(grid, c), packed.data(), transfer, problem));
      size_t n = 0;
      for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) { u(i, j, k, c) = packed[n++]; });
    }
    PetscCall(VecRestoreArray(velocity.global(), &data));
  }
  std::vector<std::pair<std::string, Vec>> cell_fields;
  for (Field& s : scalars) cell_fields.emplace_back(s.name(), s.global());
  cell_fields.emplace_back("pressure", pressure);
  for (const auto& [name, vec] : cell_fields) {
    if (!problem->empty()) break;
    PetscScalar* data;
    PetscCall(VecGetArray(vec, &data));
    PetscCall(read_verified(comm, file, name, cell_slab(grid), data, transfer, problem));
    PetscCall(VecRestoreArray(vec, &data));
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
