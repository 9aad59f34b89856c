// Checkpoint writing and pruning, and the listing that pruning and `--restart latest` share
// (layout and guarantees in checkpoint.hpp; reading back in checkpoint_read.cpp).
#include "checkpoint.hpp"

#include <hdf5.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <thread>

#include "checksum.hpp"
#include "collective_file.hpp"
#include "hdf5_util.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

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

/// About the size of a checkpoint on disk: the faces, the cell fields and the job, plus room for
/// HDF5's metadata;
/// the second-order step's step before doubles the fields but for the pressure.
double checkpoint_bytes(const Grid& grid, const JobConfig& job, size_t scalars) {
  const double cells = static_cast<double>(grid.total_cells());
  const double fields = cells * static_cast<double>(scalars) + grid.face_samples();
  const double copies = job.time.scheme == TimeScheme::BDF2 ? 2.0 : 1.0;
  return 65536.0 + static_cast<double>(job.text.size()) + 8.0 * (copies * fields + cells);
}

/// Everything but the fields: the run state and the grid as root attributes, the job with the
/// command line's --set on top (both are needed to read it back), and the frame times, each
/// with its checksum. Collective.
PetscErrorCode write_run_state(CollectiveFile& out, const Grid& grid, const JobConfig& job,
                               const RunState& state, const Provenance& provenance) {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid.comm();
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  std::string overrides;
  for (const JobOverride& o : job.overrides) overrides += o.text() + "\n";
  std::uint32_t overrides_crc = crc32_of(overrides.data(), overrides.size());
  PetscCallMPI(MPI_Bcast(&overrides_crc, 1, MPI_UINT32_T, 0, comm));

  const long long step = state.step, next_frame = state.next_frame, dimension = grid.dim(),
                  frames = static_cast<long long>(state.frame_times.size());
  long long cells[3], processes[3];
  for (int a = 0; a < 3; ++a) {
    cells[a] = grid.cells(a);
    processes[a] = grid.process_grid()[a];
  }
  const std::string hash = job_hash(job.text);
  const std::string version = STABLEFLUIDS_VERSION;
  // The small datasets' checksums, from rank 0's values (the ones written), so that every rank
  // writes the same attribute.
  std::uint32_t small_crcs[5] = {
      crc32_of(job.text.data(), job.text.size()),
      crc32_of(state.frame_times.data(), state.frame_times.size() * sizeof(double)),
      state_checksum(state.time, step, state.last_dt, next_frame, frames),
      crc32_of(state.bodies.data(), state.bodies.size() * sizeof(double)),
      crc32_of(state.volume_control.data(), state.volume_control.size() * sizeof(double))};
  PetscCallMPI(MPI_Bcast(small_crcs, 5, MPI_UINT32_T, 0, comm));

  const hid_t file = out.id(), transfer = out.transfer();
  std::string* error = out.error();
  const long long format = Checkpointer::kFormat;
  bool ok = write_attribute(file, "format", H5T_NATIVE_LLONG, &format, 1, error);
  ok = write_attribute(file, "state_crc32", H5T_NATIVE_UINT32, &small_crcs[2], 1, error) && ok;
  ok = write_attribute(file, "time", H5T_NATIVE_DOUBLE, &state.time, 1, error) && ok;
  ok = write_attribute(file, "step", H5T_NATIVE_LLONG, &step, 1, error) && ok;
  ok = write_attribute(file, "last_dt", H5T_NATIVE_DOUBLE, &state.last_dt, 1, error) && ok;
  ok = write_attribute(file, "next_frame", H5T_NATIVE_LLONG, &next_frame, 1, error) && ok;
  ok = write_attribute(file, "frames", H5T_NATIVE_LLONG, &frames, 1, error) && ok;
  ok = write_attribute(file, "process_grid", H5T_NATIVE_LLONG, processes, 3, error) && ok;
  ok = write_attribute(file, "dimension", H5T_NATIVE_LLONG, &dimension, 1, error) && ok;
  ok = write_attribute(file, "cells", H5T_NATIVE_LLONG, cells, 3, error) && ok;
  ok = write_string_attribute(file, "job_hash", hash, error) && ok;
  ok = write_string_attribute(file, "version", version, error) && ok;
  ok = write_provenance(file, provenance, error) && ok;
  ok = write_string_dataset(file, "job", job.text, rank == 0, transfer, error) && ok;
  ok = write_checksum(file, "job", small_crcs[0], error) && ok;
  ok = write_string_dataset(file, "job_overrides", overrides, rank == 0, transfer, error) && ok;
  ok = write_checksum(file, "job_overrides", overrides_crc, error) && ok;
  ok = write_small(file, "frame_times", H5T_NATIVE_DOUBLE, state.frame_times.data(),
                   state.frame_times.size(), rank == 0, transfer, small_crcs[1], error) && ok;
  // Floating bodies: where they are and how fast they go (FloatingBodies::state()).
  if (!state.bodies.empty())
    ok = write_small(file, "floating_bodies", H5T_NATIVE_DOUBLE, state.bodies.data(),
                     state.bodies.size(), rank == 0, transfer, small_crcs[3], error) && ok;
  // A liquid's volume controller: what it has summed of the volume's error.
  if (!state.volume_control.empty())
    ok = write_small(file, "volume_control", H5T_NATIVE_DOUBLE, state.volume_control.data(),
                     state.volume_control.size(), rank == 0, transfer, small_crcs[4], error) &&
         ok;
  out.record(ok);
  PetscFunctionReturn(0);
}

/// The fields under `parent` (the file or a group), each with the checksum of the whole
/// dataset: the velocity's faces in face_velocity/, every scalar and, if given, the pressure.
/// Collective.
PetscErrorCode write_fields(CollectiveFile& out, hid_t parent, const Grid& grid,
                            const Field& velocity, const std::vector<Field>& scalars,
                            Vec pressure) {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid.comm();
  const hid_t transfer = out.transfer();
  std::string* error = out.error();
  H5Id faces(H5Gcreate2(parent, "face_velocity", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
             H5Gclose);
  bool ok = faces.valid();
  // The faces of each component in turn in one buffer, 8 bytes per cell; the cell fields are
  // written straight from their vectors.
  std::vector<double> buffer(packing_size(grid));
  PetscCall(with_packed_faces(grid, velocity, buffer, [&](int c, const double* packed) {
    const Slab slab = face_slab(grid, c);
    std::uint32_t crc = 0;
    PetscCall(distributed_crc32(comm, slab, packed, &crc));
    ok = write_dataset(faces, kFaceDatasets[c], slab, packed, transfer, error) && ok;
    ok = write_checksum(faces, kFaceDatasets[c], crc, error) && ok;
    return PetscErrorCode(0);
  }));
  std::vector<std::pair<std::string, Vec>> cell_fields;
  for (const Field& s : scalars) cell_fields.emplace_back(s.name(), s.global());
  if (pressure) cell_fields.emplace_back("pressure", pressure);
  for (const auto& [name, vec] : cell_fields) {
    ReadArray data;
    PetscCall(data.get(vec));
    std::uint32_t crc = 0;
    PetscCall(distributed_crc32(comm, cell_slab(grid), data.data, &crc));
    ok = write_dataset(parent, name, cell_slab(grid), data.data, transfer, error) && ok;
    ok = write_checksum(parent, name, crc, error) && ok;
  }
  out.record(ok);
  out.record_close(faces.close());
  PetscFunctionReturn(0);
}

/// Rows of `columns` doubles, this rank's `n` of them in `rows`, as the dataset `name` of
/// every rank's rows in rank order, with the checksum of the whole dataset. Collective.
PetscErrorCode write_rows(CollectiveFile& out, const Grid& grid, const char* name, hsize_t columns,
                          std::vector<double>* rows, size_t n) {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid.comm();
  if (rows->empty()) rows->resize(1);  // never a null buffer
  unsigned long long local = n, offset = 0, total = 0;
  PetscCallMPI(MPI_Exscan(&local, &offset, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm));
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) offset = 0;  // MPI_Exscan leaves rank 0's undefined
  const Slab slab = particle_slab(total, offset, local, columns);
  std::uint32_t crc = 0;
  PetscCall(distributed_crc32(comm, slab, rows->data(), &crc));
  bool ok = write_dataset(out.id(), name, slab, rows->data(), out.transfer(), out.error());
  ok = write_checksum(out.id(), name, crc, out.error()) && ok;
  out.record(ok);
  PetscFunctionReturn(0);
}

/// A swarm's particles as the dataset /<table name> (the marker particles' /particles, the
/// spray's /spray; see checkpoint.hpp): a row per particle, every column of its table.
/// Collective.
PetscErrorCode write_swarm(CollectiveFile& out, const Grid& grid, const SwarmRecords& records) {
  std::vector<double> rows = records.rows();
  return write_rows(out, grid, records.table().name, records.table().row_width(), &rows,
                    records.size());
}

}  // namespace

PetscErrorCode Checkpointer::setup(const Grid& grid, const JobConfig& job) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  job_ = &job;
  directory_ = job.checkpoint.directory.empty() ? job.output.directory : job.checkpoint.directory;
  PetscCall(make_directory(grid.comm(), directory_));
  // A test hook in the production binary (docs/running.md, "Environment"): tests/cli/restart_cli.sh
  // kills a run while a checkpoint is open, which needs the real executable and its real writes.
  // Rank 0 says so on stderr whenever it is in effect, so that it cannot slow a real run unnoticed.
  if (const char* pause = std::getenv("STABLEFLUIDS_TEST_CHECKPOINT_PAUSE"))
    pause_seconds_ = std::atof(pause);
  if (pause_seconds_ > 0.0)
    PetscCall(PetscFPrintf(grid.comm(), PETSC_STDERR,
                           "stablefluids: warning: test hook STABLEFLUIDS_TEST_CHECKPOINT_PAUSE "
                           "holds every checkpoint open %g s before it is committed\n",
                           pause_seconds_));
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

PetscErrorCode Checkpointer::write(const Field& velocity, const std::vector<Field>& scalars,
                                   Vec pressure, const RunState& state, std::string* path_out,
                                   const StepHistory* history,
                                   const ParticleRecords* particles,
                                   const SprayRecords* spray) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  char number[16];
  std::snprintf(number, sizeof number, "%08lld", static_cast<long long>(state.step));
  const std::string path = directory_ + "/" + job_->name + "_checkpoint_" + number + ".h5";
  Provenance provenance;
  PetscCall(current_provenance(grid.comm(), &provenance));

  CollectiveFile out(grid.comm(), path, "checkpoint");
  double bytes = checkpoint_bytes(grid, *job_, scalars.size());
  const SwarmRecords* swarms[] = {particles, spray};
  for (const SwarmRecords* swarm : swarms) {
    if (!swarm) continue;
    unsigned long long local = swarm->size(), total = 0;
    PetscCallMPI(MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, grid.comm()));
    bytes += static_cast<double>(total * swarm->table().row_width() * sizeof(double));
  }
  PetscCall(out.create(bytes));
  PetscCall(write_run_state(out, grid, *job_, state, provenance));
  PetscCall(write_fields(out, out.id(), grid, velocity, scalars, pressure));
  for (const SwarmRecords* swarm : swarms)
    if (swarm) PetscCall(write_swarm(out, grid, *swarm));
  if (history && history->dt > 0.0) {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(grid.comm(), &rank));
    H5Id previous(H5Gcreate2(out.id(), "previous_step", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  H5Gclose);
    if (!previous.valid()) *out.error() = "group previous_step: " + hdf5_error_message();
    out.record(previous.valid());
    // Every rank makes every collective call, whether its group opened or not: a rank that
    // failed records it, and the checkpoint is not committed.
    PetscCall(write_fields(out, previous, grid, *history->velocity, *history->scalars, nullptr));
    out.record(write_small(previous, "dt", H5T_NATIVE_DOUBLE, &history->dt, 1, rank == 0,
                           out.transfer(), crc32_of(&history->dt, sizeof(double)),
                           out.error()));
    out.record_close(previous.close());
  }
  if (pause_seconds_ > 0.0)
    std::this_thread::sleep_for(std::chrono::duration<double>(pause_seconds_));
  PetscCall(out.commit());

  PetscCall(remove_older(path));
  *path_out = path;
  PetscFunctionReturn(0);
}

// Only once a new checkpoint is complete may the oldest ones go: of the checkpoints with an
// earlier step, the newest keep - 1 stay beside the new one.
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
PetscErrorCode Checkpointer::remove_older(const std::string& path) const {
  PetscFunctionBeginUser;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(grid_->comm(), &rank));
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
  PetscFunctionReturn(0);
}

}  // namespace sf
