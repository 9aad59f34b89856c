// Checkpoint write, read and pruning (layout in checkpoint.hpp).
#include "checkpoint.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

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

std::string format(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string format(const std::array<double, 3>& v, int dim) {
  std::string s = "[";
  for (int a = 0; a < dim; ++a) s += (a ? ", " : "") + format(v[a]);
  return s + "]";
}

std::string format(const Region& r, int dim) {
  switch (r.shape) {
    case Region::Shape::Box:
      return "box " + format(r.lower, dim) + " " + format(r.upper, dim);
    case Region::Shape::Sphere:
      return "sphere " + format(r.center, dim) + " r " + format(r.radius);
    case Region::Shape::Cylinder:
      return "cylinder " + format(r.center, dim) + " r " + format(r.radius) + " axis " +
             std::to_string(r.axis);
  }
  return "?";
}

/// Writes a small one-dimensional dataset that rank 0 holds; every rank takes part.
bool write_small(hid_t file, const char* name, hid_t type, const void* data, hsize_t count,
                 bool writer, hid_t transfer, std::string* error) {
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
  return ok;
}

/// Reads a whole small one-dimensional dataset on every rank.
template <typename T>
bool read_small(hid_t file, const char* name, hid_t type, std::vector<T>* values,
                std::string* error) {
  H5Id dataset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) {
    *error = std::string("dataset ") + name + " is missing";
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  H5Id space(H5Dget_space(dataset), H5Sclose);
  const hssize_t count = space.valid() ? H5Sget_simple_extent_npoints(space) : -1;
  if (count < 0) {
    *error = std::string("dataset ") + name + ": " + hdf5_error_message();
    return false;
  }
  values->resize(static_cast<size_t>(count));
  if (count > 0 && H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values->data()) < 0) {
    *error = std::string("dataset ") + name + ": " + hdf5_error_message();
    return false;
  }
  return true;
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

std::vector<std::string> physics_description(const JobConfig& job) {
  const int dim = job.grid.dim;
  std::vector<std::string> lines;
  auto add = [&](const std::string& key, const std::string& value) {
    lines.push_back(key + ": " + value);
  };
  add("grid.dim", std::to_string(dim));
  std::array<double, 3> cells{};
  for (int a = 0; a < 3; ++a) cells[a] = static_cast<double>(job.grid.cells[a]);
  add("grid.cells", format(cells, dim));
  add("grid.origin", format(job.grid.origin, dim));
  add("grid.size", format(job.grid.size, dim));
  add("grid.halo", std::to_string(job.grid.halo));
  for (int a = 0; a < dim; ++a)
    for (int s = 0; s < 2; ++s) {
      const FaceBoundary& f = job.boundary[a][s];
      std::string value = to_string(f.kind);
      if (f.kind == BoundaryKind::Inflow || f.kind == BoundaryKind::NoSlip)
        value += " velocity " + format(f.velocity, dim);
      if (f.kind == BoundaryKind::Inflow) {
        value += f.profile == InflowProfile::Parabolic ? " parabolic" : " uniform";
        for (const auto& [name, v] : f.scalar_values) value += " " + name + "=" + format(v);
      }
      add(std::string("boundary.") + kAxisNames[a] + (s ? ".upper" : ".lower"), value);
    }
  add("velocity.initial", std::to_string(static_cast<int>(job.velocity.kind)) + " " +
                              format(job.velocity.value, dim) + " " +
                              format(job.velocity.center, dim) + " " + format(job.velocity.radius) +
                              " " + format(job.velocity.strength));
  for (const ScalarConfig& s : job.scalars) {
    const std::string key = "scalars." + s.name;
    add(key + ".background", format(s.background));
    std::string initial;
    for (const ScalarBlob& b : s.initial) initial += format(b.region, dim) + " = " + format(b.value) + "; ";
    add(key + ".initial", initial);
    add(key + ".diffusion", format(s.diffusion));
    add(key + ".dissipation", format(s.dissipation));
    std::string sources;
    for (const ScalarSource& src : s.sources)
      sources += format(src.region, dim) + (src.mode == ScalarSource::Mode::Add ? " add " : " set ") +
                 format(src.value) + (src.has_velocity ? " velocity " + format(src.velocity, dim) : "") +
                 "; ";
    add(key + ".sources", sources);
  }
  add("fluid.viscosity", format(job.fluid.viscosity));
  add("advection.scheme", std::to_string(static_cast<int>(job.advection.scheme)));
  add("advection.interpolation", std::to_string(static_cast<int>(job.advection.interpolation)));
  const ForcesConfig& f = job.forces;
  add("forces.gravity", format(f.gravity, dim));
  add("forces.buoyancy",
      f.buoyancy.enabled ? f.buoyancy.density_scalar + " " + f.buoyancy.temperature_scalar + " " +
                               format(f.buoyancy.alpha) + " " + format(f.buoyancy.beta) + " " +
                               format(f.buoyancy.ambient_temperature) + " " +
                               format(f.buoyancy.up, dim)
                         : "off");
  add("forces.vorticity_confinement", format(f.vorticity_confinement));
  add("forces.wind", f.wind.enabled ? format(f.wind.velocity, dim) + " rate " + format(f.wind.rate) +
                                          (f.wind.has_region ? " in " + format(f.wind.region, dim) : "")
                                    : "off");
  std::string regions;
  for (const ForceRegion& r : f.regions)
    regions += format(r.region, dim) + " " + format(r.acceleration, dim) + "; ";
  add("forces.regions", regions);
  std::string obstacles;
  for (const ObstacleConfig& o : job.obstacles)
    obstacles += format(o.region, dim) + " " + to_string(o.boundary) + "; ";
  add("obstacles", obstacles);
  add("time.dt", format(job.time.dt));
  add("time.cfl", format(job.time.cfl));
  add("time.dt_min", format(job.time.dt_min));
  add("time.dt_max", format(job.time.dt_max));
  return lines;
}

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

PetscErrorCode Checkpointer::latest(std::string* path) const {
  PetscFunctionBeginUser;
  std::vector<std::string> paths;
  PetscCall(list(&paths));
  PetscCheck(!paths.empty(), grid_->comm(), PETSC_ERR_FILE_OPEN,
             "no checkpoint of job '%s' in '%s' to restart from", job_->name.c_str(),
             directory_.c_str());
  *path = paths.back();
  PetscFunctionReturn(0);
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

  std::string error;
  bool ok = true;
  {
    hid_t created = -1;
    PetscCall(create_collective(comm, temporary, "checkpoint", &created));
    H5Id file(created, H5Fclose);

    H5Id transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    ok = transfer.valid() && H5Pset_dxpl_mpio(transfer, H5FD_MPIO_COLLECTIVE) >= 0;

    const long long step = state.step, next_frame = state.next_frame, ranks = size,
                    dimension = dim, frames = static_cast<long long>(state.frame_times.size());
    long long cells[3], processes[3];
    for (int a = 0; a < 3; ++a) {
      cells[a] = grid.cells(a);
      processes[a] = grid.process_grid()[a];
    }
    const std::string hash = job_hash(job_->text);
    const std::string version = STABLEFLUIDS_VERSION;
    ok = write_attribute(file, "time", H5T_NATIVE_DOUBLE, &state.time, 1, &error) && ok;
    ok = write_attribute(file, "step", H5T_NATIVE_LLONG, &step, 1, &error) && ok;
    ok = write_attribute(file, "last_dt", H5T_NATIVE_DOUBLE, &state.last_dt, 1, &error) && ok;
    ok = write_attribute(file, "next_frame", H5T_NATIVE_LLONG, &next_frame, 1, &error) && ok;
    ok = write_attribute(file, "frames", H5T_NATIVE_LLONG, &frames, 1, &error) && ok;
    ok = write_attribute(file, "ranks", H5T_NATIVE_LLONG, &ranks, 1, &error) && ok;
    ok = write_attribute(file, "process_grid", H5T_NATIVE_LLONG, processes, 3, &error) && ok;
    ok = write_attribute(file, "dimension", H5T_NATIVE_LLONG, &dimension, 1, &error) && ok;
    ok = write_attribute(file, "cells", H5T_NATIVE_LLONG, cells, 3, &error) && ok;
    ok = write_attribute(file, "job_hash", H5T_NATIVE_CHAR, hash.data(), hash.size(), &error) && ok;
    ok = write_attribute(file, "version", H5T_NATIVE_CHAR, version.data(), version.size(),
                               &error) && ok;
    ok = write_small(file, "job", H5T_NATIVE_CHAR, job_->text.data(), job_->text.size(),
                           rank == 0, transfer, &error) && ok;
    ok = write_small(file, "frame_times", H5T_NATIVE_DOUBLE, state.frame_times.data(),
                           state.frame_times.size(), rank == 0, transfer, &error) && ok;

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
        ok = write_dataset(faces, kAxisNames[c], face_slab(grid, c), packed.data(), transfer,
                           &error) && ok;
      }
      PetscCall(VecRestoreArrayRead(velocity.global(), &data));
    }
    std::vector<std::pair<std::string, Vec>> cell_fields;
    for (const Field& s : scalars) cell_fields.emplace_back(s.name(), s.global());
    cell_fields.emplace_back("pressure", pressure);
    for (const auto& [name, vec] : cell_fields) {
      const PetscScalar* data;
      PetscCall(VecGetArrayRead(vec, &data));
      ok = write_dataset(file, name, cell_slab(grid), data, transfer, &error) && ok;
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

  // Only now, with the new checkpoint complete, may the oldest ones go.
  std::vector<std::string> paths;
  PetscCall(list(&paths));
  if (rank == 0) {
    const size_t keep = static_cast<size_t>(std::max(job_->checkpoint.keep, 1));
    for (size_t n = 0; n + keep < paths.size(); ++n) std::remove(paths[n].c_str());
  }
  *path_out = path;
  PetscFunctionReturn(0);
}

PetscErrorCode Checkpointer::read(const std::string& path, Field& velocity,
                                  std::vector<Field>& scalars, Vec pressure, RunState* state) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const MPI_Comm comm = grid.comm();
  const int dim = grid.dim();
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H5Id access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  bool ok = access.valid() && H5Pset_fapl_mpio(access, comm, MPI_INFO_NULL) >= 0;
  H5Id file(ok ? H5Fopen(path.c_str(), H5F_ACC_RDONLY, access) : -1, H5Fclose);
  std::string error = file.valid() ? "" : hdf5_error_message();
  bool all_ok = false;
  PetscCall(agree(comm, file.valid(), &all_ok));
  PetscCheck(all_ok, comm, PETSC_ERR_FILE_OPEN, "cannot open checkpoint '%s': %s", path.c_str(),
             error.c_str());

  // The job that wrote it: only output, end time, solver and checkpoint settings may differ.
  std::vector<char> text;
  ok = read_small(file, "job", H5T_NATIVE_CHAR, &text, &error);
  PetscCall(agree(comm, ok, &all_ok));
  PetscCheck(all_ok, comm, PETSC_ERR_FILE_READ, "'%s' is not a stablefluids checkpoint: %s",
             path.c_str(), error.c_str());
  std::string differences;
  try {
    const JobConfig written = parse_job(std::string(text.begin(), text.end()), path + " (job)");
    state->output_interval = written.output.interval;
    const std::vector<std::string> before = physics_description(written);
    const std::vector<std::string> now = physics_description(*job_);
    for (const std::string& line : before)
      if (std::find(now.begin(), now.end(), line) == now.end()) {
        const std::string key = line.substr(0, line.find(':'));
        auto match = std::find_if(now.begin(), now.end(), [&](const std::string& l) {
          return l.compare(0, key.size() + 1, key + ":") == 0;
        });
        differences += "\n  " + key + ": checkpoint has" + line.substr(key.size() + 1) +
                       ", job has" + (match == now.end() ? " nothing" : match->substr(key.size() + 1));
      }
    for (const std::string& line : now) {
      const std::string key = line.substr(0, line.find(':'));
      if (std::none_of(before.begin(), before.end(), [&](const std::string& l) {
            return l.compare(0, key.size() + 1, key + ":") == 0;
          }))
        differences += "\n  " + key + ": not in the checkpoint's job, job has" + line.substr(key.size() + 1);
    }
  } catch (const JobError& e) {
    differences = std::string("\n  its job text does not parse: ") + e.what();
  }
  PetscCheck(differences.empty(), comm, PETSC_ERR_ARG_INCOMP,
             "checkpoint '%s' does not match the job '%s'; on restart a job may change only "
             "output, time.end, pressure, diffusion, checkpoint and debug settings:%s",
             path.c_str(), job_->source.c_str(), differences.c_str());

  long long step = 0, next_frame = 0, frames = 0;
  ok = read_attribute(file, "time", H5T_NATIVE_DOUBLE, &state->time, 1, &error);
  ok = ok && read_attribute(file, "frames", H5T_NATIVE_LLONG, &frames, 1, &error);
  ok = ok && read_attribute(file, "step", H5T_NATIVE_LLONG, &step, 1, &error);
  ok = ok && read_attribute(file, "last_dt", H5T_NATIVE_DOUBLE, &state->last_dt, 1, &error);
  ok = ok && read_attribute(file, "next_frame", H5T_NATIVE_LLONG, &next_frame, 1, &error);
  ok = ok && read_small(file, "frame_times", H5T_NATIVE_DOUBLE, &state->frame_times, &error);
  state->step = static_cast<PetscInt>(step);
  state->next_frame = static_cast<PetscInt>(next_frame);
  // An empty list is stored as one unwritten element (HDF5 datasets cannot be empty here).
  if (ok) state->frame_times.resize(static_cast<size_t>(frames));

  H5Id transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  ok = ok && transfer.valid() && H5Pset_dxpl_mpio(transfer, H5FD_MPIO_COLLECTIVE) >= 0;
  {
    PetscScalar* data;
    ArrayView u;
    PetscCall(VecSet(velocity.global(), 0.0));
    PetscCall(VecGetArray(velocity.global(), &data));
    PetscCall(grid.global_view(velocity.dm(), data, &u));
    for (int c = 0; c < dim; ++c) {
      const IndexBox box = grid.owned_faces(c);
      std::vector<double> packed(static_cast<size_t>(box.count()));
      ok = read_dataset(file, std::string("face_velocity/") + kAxisNames[c], face_slab(grid, c),
                        packed.data(), transfer, &error) && ok;
      size_t n = 0;
      for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) { u(i, j, k, c) = packed[n++]; });
    }
    PetscCall(VecRestoreArray(velocity.global(), &data));
  }
  std::vector<std::pair<std::string, Vec>> cell_fields;
  for (Field& s : scalars) cell_fields.emplace_back(s.name(), s.global());
  cell_fields.emplace_back("pressure", pressure);
  for (const auto& [name, vec] : cell_fields) {
    PetscScalar* data;
    PetscCall(VecGetArray(vec, &data));
    ok = read_dataset(file, name, cell_slab(grid), data, transfer, &error) && ok;
    PetscCall(VecRestoreArray(vec, &data));
  }
  PetscCall(agree(comm, ok, &all_ok));
  PetscCheck(all_ok, comm, PETSC_ERR_FILE_READ, "cannot read checkpoint '%s': %s", path.c_str(),
             error.empty() ? "failed on another rank" : error.c_str());
  PetscFunctionReturn(0);
}

}  // namespace sf
