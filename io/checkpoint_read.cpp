// Reading a checkpoint back for a restart: screening and opening the file, its format, the job
// that wrote it, the run state and the fields, each verified against its stored CRC-32 before
// it is used; and `--restart latest`, which falls back past damaged checkpoints (layout and
// guarantees in checkpoint.hpp; writing in checkpoint.cpp).
//
// Every step ends with the ranks agreeing on one problem (agree_on_problem) before any rank
// makes the next collective call, so a damaged file stops every rank at the same point.
//
// Checksums, measured at 128^3 cells with two scalars (101 MB; medians of 7 on this 2-core
// machine, the file in the page cache): zlib's CRC-32 adds about 30 ms of CPU per 100 MB (3.3
// GB/s), shared by the ranks. 1 rank: write 0.025 s without checksums, 0.056 s with; read 0.019
// s without, 0.049 s with verification. 2 ranks: read 0.015 -> 0.036 s; write 0.05-0.1 s either
// way (it varies more from run to run than the checksum costs). A step at 128^3 takes about 1.9 s.
// HDF5's own Fletcher-32 filter, which parallel HDF5 1.10.8 does write collectively on chunked
// datasets, cost 50 ms per 16 MB array to write and 40 ms to read, covers no attributes, would
// make the layout chunked, and its per-chunk checksums cannot be checked with common tools.
#include "checkpoint.hpp"

#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "checksum.hpp"
#include "error_codes.hpp"
#include "hdf5_util.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

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
  // [0] is H5Fopen's own "unable to open file"; [1] names the part that failed, unless it is
  // H5F_open's "unable to open file: time = <date and a newline>, name = ...", which says nothing
  // the caller does not.
  if (descriptions.size() >= 3) {
    const std::string part = descriptions[1].substr(0, descriptions[1].find(": time = "));
    return part + ": " + descriptions.back();
  }
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

/// Opens `path` for reading on every rank: rank 0 screens it alone first (screen()), then every
/// rank opens it through MPI-IO. *file is the open file (the caller closes it), or negative with
/// the reason in *problem, the same on every rank. Collective.
PetscErrorCode open_checkpoint(MPI_Comm comm, const std::string& path, hid_t* file,
                               std::string* problem) {
  PetscFunctionBeginUser;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  *file = -1;
  if (rank == 0) *problem = screen(path);
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);
  H5Id access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  const bool ok = access.valid() && H5Pset_fapl_mpio(access, comm, MPI_INFO_NULL) >= 0;
  *file = ok ? H5Fopen(path.c_str(), H5F_ACC_RDONLY, access) : -1;
  // MPI-IO says "MPI_ERR_IO: input/output error" for a file that went away after screen().
  if (*file < 0) *problem = "not a readable HDF5 file (" + open_failure() + ")";
  if (*file < 0 && ::access(path.c_str(), R_OK) != 0) *problem = std::strerror(errno);
  PetscCall(agree_on_problem(comm, problem));
  PetscFunctionReturn(0);
}

/// Checksums are what make a checkpoint trustworthy; without them (format 1) it is refused, as
/// is a format this code does not know. *format is the file's. Local.
void check_format(hid_t file, long long* format, std::string* problem) {
  *format = 1;
  if (H5Aexists(file, "format") > 0 &&
      !read_attribute(file, "format", H5T_NATIVE_LLONG, format, 1, problem))
    *format = 0;
  if (*format == 1) {
    std::string version;
    if (!read_text_attribute(file, "version", &version) || version.size() > 64)
      version = "(version unknown)";
    *problem = "it has no checksums (written by stablefluids " + version +
               " in checkpoint format 1), so its data cannot be verified; continue it with the "
               "stablefluids that wrote it, or start the run afresh";
  } else if (*format != Checkpointer::kFormat &&
             *format != Checkpointer::kOldestReadableFormat && problem->empty()) {
    *problem = "checkpoint format " + std::to_string(*format) + " is not one this " +
               "stablefluids reads (" + std::to_string(Checkpointer::kOldestReadableFormat) +
               " to " + std::to_string(Checkpointer::kFormat) + ")";
  }
}

/// Text dataset `name` with its checksum verified. Format 3 stores text as an HDF5 string,
/// format 2 as an array of int8; the checksum is of the text either way. Local.
void read_verified_text(hid_t file, const char* name, std::string* value, std::string* problem) {
  if (!read_text_dataset(file, name, value, problem)) return;
  H5Id dataset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  std::uint32_t stored = 0;
  if (read_checksum(dataset, name, &stored, problem) &&
      crc32_of(value->data(), value->size()) != stored)
    *problem = mismatch(std::string("dataset ") + name, stored,
                        crc32_of(value->data(), value->size()));
}

/// The job that wrote the checkpoint, verified before it is parsed, against the job of this run:
/// only output, end time, solver and checkpoint settings may differ. Damage leaves its reason
/// in *problem, the same on every rank; a job that differs is an error (status 2, the job's
/// problem: the older checkpoints are no better, so `latest` does not look past it). Sets
/// state->output_interval, the written job's. Collective.
PetscErrorCode check_job(MPI_Comm comm, hid_t file, long long format, const std::string& path,
                         const JobConfig& job, RunState* state, std::string* problem) {
  PetscFunctionBeginUser;
  std::string text;
  read_verified_text(file, "job", &text, problem);
  // The --set overrides of the run that wrote it, one key=value per line (format 3; a format 2
  // checkpoint did not keep them).
  std::vector<JobOverride> overrides;
  if (problem->empty() && format >= 3) {
    std::string lines;
    read_verified_text(file, "job_overrides", &lines, problem);
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
    // The written job's paths (Catalyst scripts, meshes) are relative to the job file it was
    // read from, which is this job's, wherever the checkpoint lies.
    const JobConfig written = parse_job(text, path + " (job)", overrides, job.source);
    state->output_interval = written.output.interval;
    differences = physics_differences(written, job);
  } catch (const JobError& e) {
    differences = std::string("\n  its job text does not parse: ") + e.what();
  }
  PetscCheck(differences.empty(), comm, kErrorBadJob,
             "checkpoint '%s' does not match the job '%s'; on restart a job may change only "
             "output, time.end, pressure, diffusion, checkpoint and debug settings:%s",
             path.c_str(), job.source.c_str(), differences.c_str());
  PetscFunctionReturn(0);
}

/// The run state, verified against `state_crc32`, then the times of the frames written so far,
/// verified against their dataset's checksum. Local.
void read_run_state(hid_t file, RunState* state, std::string* problem) {
  long long step = 0, next_frame = 0, frames = 0;
  std::uint32_t stored = 0;
  bool ok = read_attribute(file, "time", H5T_NATIVE_DOUBLE, &state->time, 1, problem);
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
  // Floating bodies, if the run has any (the job says whether it must: FloatingBodies::restore
  // refuses a count that does not match).
  if (ok && problem->empty() && H5Lexists(file, "floating_bodies", H5P_DEFAULT) > 0 &&
      read_small(file, "floating_bodies", H5T_NATIVE_DOUBLE, &state->bodies, &stored, problem)) {
    const std::uint32_t computed =
        crc32_of(state->bodies.data(), state->bodies.size() * sizeof(double));
    if (computed != stored) *problem = mismatch("dataset floating_bodies", stored, computed);
  }
  // A liquid's volume controller, if the run has one (VolumeController::restore checks it).
  if (ok && problem->empty() && H5Lexists(file, "volume_control", H5P_DEFAULT) > 0 &&
      read_small(file, "volume_control", H5T_NATIVE_DOUBLE, &state->volume_control, &stored,
                 problem)) {
    const std::uint32_t computed =
        crc32_of(state->volume_control.data(), state->volume_control.size() * sizeof(double));
    if (computed != stored) *problem = mismatch("dataset volume_control", stored, computed);
  }
  state->step = static_cast<PetscInt>(step);
  state->next_frame = static_cast<PetscInt>(next_frame);
}

/// The fields under `prefix` ("" or a group's name and '/'), each verified as a whole once every
/// rank has its part: the velocity's faces, every scalar and, if given, the pressure. The first
/// problem stops the reading on every rank. Collective.
PetscErrorCode read_fields(const Grid& grid, hid_t file, const std::string& prefix,
                           Field& velocity, std::vector<Field>& scalars, Vec pressure,
                           std::string* problem) {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid.comm();
  H5Id transfer(collective_transfer(), H5Pclose);
  if (!transfer.valid())
    *problem = "cannot set up collective reads: " + hdf5_error_message();
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);
  {
    WriteArray u;
    PetscCall(VecSet(velocity.global(), 0.0));
    PetscCall(u.get_global(velocity));
    // Each component's faces are read packed into one buffer (8 bytes per cell) and spread
    // from there into the interleaved vector.
    std::vector<double> packed(packing_size(grid));
    for (int c = 0; c < grid.dim() && problem->empty(); ++c) {
      PetscCall(read_verified(comm, file, prefix + "face_velocity/" + kFaceDatasets[c],
                              face_slab(grid, c), packed.data(), transfer, problem));
      size_t n = 0;
      for_each_index(grid.owned_faces(c),
                     [&](PetscInt i, PetscInt j, PetscInt k) { u(i, j, k, c) = packed[n++]; });
    }
  }
  std::vector<std::pair<std::string, Vec>> cell_fields;
  for (Field& s : scalars) cell_fields.emplace_back(s.name(), s.global());
  if (pressure) cell_fields.emplace_back("pressure", pressure);
  for (const auto& [name, vec] : cell_fields) {
    if (!problem->empty()) break;
    WriteArray data;
    PetscCall(data.get(vec));
    PetscCall(
        read_verified(comm, file, prefix + name, cell_slab(grid), data.data, transfer, problem));
  }
  PetscFunctionReturn(0);
}

/// The step before (checkpoint.hpp, /previous_step), which every checkpoint of the second-order
/// step after its first step has. Collective.
PetscErrorCode read_history(const Grid& grid, hid_t file, const RunState& state,
                            StepHistory* history, std::string* problem) {
  PetscFunctionBeginUser;
  history->dt = 0.0;
  if (H5Lexists(file, "previous_step", H5P_DEFAULT) <= 0) {
    if (state.step > 0)
      *problem = "group previous_step is missing: the second-order step (time.scheme: bdf2) "
                 "needs the step before to continue";
    PetscCall(agree_on_problem(grid.comm(), problem));
    PetscFunctionReturn(0);
  }
  PetscCall(read_fields(grid, file, "previous_step/", *history->velocity, *history->scalars,
                        nullptr, problem));
  if (!problem->empty()) PetscFunctionReturn(0);
  std::vector<double> dt;
  std::uint32_t stored = 0;
  if (read_small(file, "previous_step/dt", H5T_NATIVE_DOUBLE, &dt, &stored, problem)) {
    const std::uint32_t computed = crc32_of(dt.data(), dt.size() * sizeof(double));
    if (computed != stored)
      *problem = mismatch("dataset previous_step/dt", stored, computed);
    else if (dt.size() != 1 || !(dt[0] > 0.0))
      *problem = "dataset previous_step/dt does not hold one positive step";
    else
      history->dt = dt[0];
  }
  PetscCall(agree_on_problem(grid.comm(), problem));
  PetscFunctionReturn(0);
}

/// This rank's even share of the rows of dataset `name` (`columns` doubles each), verified
/// against the checksum of the whole dataset, into *rows (*n of them); `missing` says why the
/// dataset should be there. Collective.
PetscErrorCode read_rows(const Grid& grid, hid_t file, const char* name, hsize_t columns,
                         const char* missing, std::vector<double>* rows, size_t* n,
                         std::string* problem) {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid.comm();
  const std::string dataset_name = std::string("dataset ") + name;
  H5Id dataset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  H5Id filespace(dataset.valid() ? H5Dget_space(dataset) : -1, H5Sclose);
  hsize_t shape[2] = {0, 0};
  std::uint32_t stored = 0;
  if (!dataset.valid()) {
    *problem = dataset_name + " is missing (" + missing + ")";
    H5Eclear2(H5E_DEFAULT);
  } else if (!filespace.valid() || H5Sget_simple_extent_ndims(filespace) != 2 ||
             H5Sget_simple_extent_dims(filespace, shape, nullptr) < 0 || shape[1] != columns) {
    *problem = dataset_name + " does not have " + std::to_string(columns) + " columns";
  } else {
    read_checksum(dataset, name, &stored, problem);
  }
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);

  PetscMPIInt rank, size;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  const hsize_t first = shape[0] * static_cast<hsize_t>(rank) / static_cast<hsize_t>(size);
  const hsize_t last = shape[0] * static_cast<hsize_t>(rank + 1) / static_cast<hsize_t>(size);
  const Slab slab = particle_slab(shape[0], first, last - first, columns);
  rows->assign(std::max<hsize_t>(columns * (last - first), 1), 0.0);
  H5Id transfer(collective_transfer(), H5Pclose);
  hsize_t extent[2] = {std::max<hsize_t>(last - first, 1), columns};
  H5Id memspace(H5Screate_simple(2, extent, nullptr), H5Sclose);
  bool ok = transfer.valid() && memspace.valid();
  if (last == first)
    ok = ok && H5Sselect_none(filespace) >= 0 && H5Sselect_none(memspace) >= 0;
  else
    ok = ok && H5Sselect_hyperslab(filespace, H5S_SELECT_SET, slab.offset.data(), nullptr,
                                   slab.count.data(), nullptr) >= 0;
  // A dataset of no rows (no spray yet) has no storage to read from (see write_part).
  if (shape[0] > 0)
    ok = ok &&
         H5Dread(dataset, H5T_NATIVE_DOUBLE, memspace, filespace, transfer, rows->data()) >= 0;
  if (!ok) *problem = dataset_name + ": " + hdf5_error_message();
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);
  std::uint32_t computed = 0;
  PetscCall(distributed_crc32(comm, slab, rows->data(), &computed));
  if (computed != stored) {
    *problem = mismatch(dataset_name, stored, computed);
    PetscFunctionReturn(0);
  }
  *n = static_cast<size_t>(last - first);
  PetscFunctionReturn(0);
}

/// This rank's even share of a swarm's particles (/particles, /spray: the dataset of the
/// records' table, see checkpoint.hpp); `missing` says why the dataset should be there.
/// Collective.
PetscErrorCode read_swarm(const Grid& grid, hid_t file, const char* missing,
                          SwarmRecords* records, std::string* problem) {
  PetscFunctionBeginUser;
  std::vector<double> rows;
  size_t n = 0;
  PetscCall(read_rows(grid, file, records->table().name, records->table().row_width(), missing,
                      &rows, &n, problem));
  if (!problem->empty()) PetscFunctionReturn(0);
  records->set_rows(rows, n);
  PetscFunctionReturn(0);
}

}  // namespace

PetscErrorCode Checkpointer::read_latest(Field& velocity, std::vector<Field>& scalars,
                                         Vec pressure, RunState* state, std::string* path,
                                         std::vector<SkippedCheckpoint>* skipped,
                                         StepHistory* history, ParticleRecords* particles,
                                         SprayRecords* spray) {
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
    PetscCall(try_read(*candidate, velocity, scalars, pressure, state, history, particles, spray,
                       &problem));
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

PetscErrorCode Checkpointer::read(const std::string& path, Field& velocity,
                                  std::vector<Field>& scalars, Vec pressure, RunState* state,
                                  StepHistory* history, ParticleRecords* particles,
                                  SprayRecords* spray) {
  PetscFunctionBeginUser;
  std::string problem;
  PetscCall(try_read(path, velocity, scalars, pressure, state, history, particles, spray,
                     &problem));
  PetscCheck(problem.empty(), grid_->comm(), PETSC_ERR_FILE_READ,
             "cannot restart from checkpoint '%s': %s", path.c_str(), problem.c_str());
  PetscFunctionReturn(0);
}

PetscErrorCode Checkpointer::try_read(const std::string& path, Field& velocity,
                                      std::vector<Field>& scalars, Vec pressure,
                                      RunState* state, StepHistory* history,
                                      ParticleRecords* particles, SprayRecords* spray,
                                      std::string* problem) {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid_->comm();
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  problem->clear();
  hid_t opened = -1;
  PetscCall(open_checkpoint(comm, path, &opened, problem));
  H5Id file(opened, H5Fclose);
  if (!problem->empty()) PetscFunctionReturn(0);

  long long format = 0;
  check_format(file, &format, problem);
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);

  PetscCall(check_job(comm, file, format, path, *job_, state, problem));
  if (!problem->empty()) PetscFunctionReturn(0);

  read_run_state(file, state, problem);
  PetscCall(agree_on_problem(comm, problem));
  if (!problem->empty()) PetscFunctionReturn(0);

  PetscCall(read_fields(*grid_, file, "", velocity, scalars, pressure, problem));
  if (history && problem->empty()) PetscCall(read_history(*grid_, file, *state, history, problem));
  if (particles && problem->empty())
    PetscCall(read_swarm(*grid_, file,
                         "the job's liquid has marker particles: liquid.particles.per_cell: 0 "
                         "restarts without them",
                         particles, problem));
  if (spray && problem->empty())
    PetscCall(read_swarm(*grid_, file, "the job's liquid has spray", spray, problem));
  PetscFunctionReturn(0);
}

}  // namespace sf
