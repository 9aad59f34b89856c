// Collective HDF5 output of frames (layout in frame_writer.hpp). Every rank opens the file with
// the MPI-IO driver (collective_file.hpp: created as <file>.tmp, renamed when complete), selects
// the hyperslab of the cells it owns and takes part in one collective H5Dwrite per dataset (the
// centred velocity: one per piece, below); only the tiny XDMF index is written by rank 0 alone.
//
// Memory: the scalars and the pressure are written straight from their global vectors; every
// other dataset is packed, one after another, into one buffer of packing_size() doubles (8 bytes
// per owned cell, a layer more on a rank at an upper boundary), the write's only array. The
// centred velocity, three values per cell, goes through it in pieces of whole layers of cells.
#include "frame_writer.hpp"

#include <hdf5.h>

#include "collective_file.hpp"
#include "hdf5_util.hpp"
#include "heaviside.hpp"
#include "vec_array.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace sf {

namespace {

/// What a stranger needs to read one dataset, attached to it as string attributes.
struct DatasetNotes {
  const char* centring;     // "cell" or "face"
  std::string axis_order;   // "z, y, x" ...
  std::string units;
  std::string description;
  std::string components;   // empty for a scalar
};

bool describe_dataset(hid_t parent, const std::string& name, const DatasetNotes& notes,
                      std::string* error) {
  H5Id dataset(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) {
    *error = "dataset " + name + ": " + hdf5_error_message();
    return false;
  }
  bool ok = write_string_attribute(dataset, "centring", notes.centring, error);
  ok = write_string_attribute(dataset, "axis_order", notes.axis_order, error) && ok;
  ok = write_string_attribute(dataset, "units", notes.units, error) && ok;
  ok = write_string_attribute(dataset, "description", notes.description, error) && ok;
  if (!notes.components.empty())
    ok = write_string_attribute(dataset, "components", notes.components, error) && ok;
  // The same as one line that `h5dump -H` shows (it prints comments, not attribute values).
  const std::string comment = notes.description + ". " + notes.centring + "-centred; axes " +
                              notes.axis_order +
                              (notes.components.empty() ? "" : " (" + notes.components + ")") +
                              "; units: " + notes.units;
  if (H5Oset_comment(dataset, comment.c_str()) < 0) {
    *error = "dataset " + name + ": comment: " + hdf5_error_message();
    ok = false;
  }
  return ok;
}

constexpr const char* kUnits =
    "the job's own units, whatever they are (stablefluids has none of its own): lengths as "
    "grid.size, times as time.dt, density 1, so the pressure is kinematic (length^2 / time^2)";
constexpr const char* kConventions =
    "Datasets are stored in C order, slowest axis first (see each dataset's axis_order): index "
    "[k][j][i] is cell (i, j, k). The attributes cells, origin and spacing are in x, y, z order. "
    "Cell i along an axis spans origin + i * spacing to origin + (i + 1) * spacing; face i lies at "
    "origin + i * spacing.";

/// About the size of a frame on disk: the centred velocity, the cell fields, the solid mask (a
/// byte per cell), the raw faces and the job text, plus room for HDF5's metadata.
double frame_bytes(const Grid& grid, const JobConfig& job, size_t scalars, bool with_pressure) {
  return 65536.0 + static_cast<double>(job.text.size()) +
         static_cast<double>(grid.total_cells()) +
         8.0 * (static_cast<double>(grid.total_cells()) *
                    (3.0 + static_cast<double>(scalars) + (with_pressure ? 1.0 : 0.0) +
                     (job.liquid.enabled ? 1.0 : 0.0)) +
                grid.face_samples());
}

/// The velocity averaged to the cell centres, written as /velocity ([nz,] ny, nx, 3) in pieces
/// (split_box) of at most a third of `buffer`'s length in cells, each centred into `buffer` and
/// written at once: the whole centred field would be 24 bytes per cell beside the buffer's 8.
/// Every rank makes as many collective writes as the rank with the most pieces. Collective.
PetscErrorCode write_centred_velocity(CollectiveFile& out, const Grid& grid, const Field& velocity,
                                      std::vector<double>& buffer) {
  PetscFunctionBeginUser;
  const std::array<PetscInt, 3> cells = {grid.cells(0), grid.cells(1), grid.cells(2)};
  const IndexBox& owned = grid.owned_cells();
  std::vector<IndexBox> pieces;
  split_box(owned, std::max<PetscInt>(1, static_cast<PetscInt>(buffer.size() / 3)), &pieces);
  if (buffer.size() < 3) buffer.resize(3);  // a rank of one or two cells
  long long mine = static_cast<long long>(pieces.size()), writes = 0;
  PetscCallMPI(MPI_Allreduce(&mine, &writes, 1, MPI_LONG_LONG, MPI_MAX, grid.comm()));
  IndexBox nothing = owned;
  nothing.hi = nothing.lo;
  std::string* error = out.error();
  H5Id dataset(create_dataset(out.id(), "velocity", make_slab(grid.dim(), owned, cells, 3),
                              H5T_NATIVE_DOUBLE, error),
               H5Dclose);
  bool ok = dataset.valid();
  for (long long n = 0; n < writes; ++n) {
    const IndexBox& piece = n < mine ? pieces[static_cast<size_t>(n)] : nothing;
    if (n < mine) PetscCall(centre_velocity(velocity, piece, buffer.data()));
    ok = write_part(dataset, "velocity", make_slab(grid.dim(), piece, cells, 3),
                    H5T_NATIVE_DOUBLE, buffer.data(), out.transfer(), error) && ok;
  }
  out.record(ok);
  PetscFunctionReturn(0);
}

/// What the frame is: the root's attributes (identical values on every rank, as parallel HDF5
/// requires), the job's text (written by the rank with `writer` set) and the comments that
/// `h5dump -H` prints. Collective.
void write_frame_header(CollectiveFile& out, const Grid& grid, const JobConfig& job,
                        const Provenance& provenance, bool writer, int frame, PetscInt step,
                        double time) {
  const hid_t file = out.id();
  std::string* error = out.error();
  const int dim = grid.dim();
  const long long step_value = step, frame_value = frame, dim_value = dim;
  long long cell_counts[3];
  double origin[3], spacing[3];
  for (int a = 0; a < dim; ++a) {
    cell_counts[a] = grid.cells(a);
    origin[a] = grid.origin(a);
    spacing[a] = grid.spacing(a);
  }
  bool ok = write_attribute(file, "time", H5T_NATIVE_DOUBLE, &time, 1, error);
  ok = write_attribute(file, "step", H5T_NATIVE_LLONG, &step_value, 1, error) && ok;
  ok = write_attribute(file, "frame", H5T_NATIVE_LLONG, &frame_value, 1, error) && ok;
  ok = write_attribute(file, "dimension", H5T_NATIVE_LLONG, &dim_value, 1, error) && ok;
  ok = write_attribute(file, "cells", H5T_NATIVE_LLONG, cell_counts, dim, error) && ok;
  ok = write_attribute(file, "origin", H5T_NATIVE_DOUBLE, origin, dim, error) && ok;
  ok = write_attribute(file, "spacing", H5T_NATIVE_DOUBLE, spacing, dim, error) && ok;
  ok = write_string_attribute(file, "units", kUnits, error) && ok;
  ok = write_string_attribute(file, "conventions", kConventions, error) && ok;
  ok = write_string_attribute(file, "job_file", job.source, error) && ok;
  ok = write_provenance(file, provenance, error) && ok;
  ok = write_string_dataset(file, "job", job.text, writer, out.transfer(), error) && ok;
  out.record(ok);
  char summary[160];
  std::snprintf(summary, sizeof summary, "frame %d at t = %.9g, step %lld, of job %s, ", frame,
                time, step_value, job.name.c_str());
  const std::string root_comment =
      std::string(summary) + "written by " + provenance.program + " on " +
      std::to_string(provenance.ranks) + " ranks at " + provenance.written +
      " (attributes: h5dump -A; the job: h5dump -d /job). " + kConventions + " Units: " +
      kUnits + ".";
  if (H5Oset_comment(file, root_comment.c_str()) < 0 ||
      H5Oset_comment_by_name(file, "job", "the job file's text, exactly as read", H5P_DEFAULT) < 0)
    out.fail("comment: " + hdf5_error_message());
}

/// The cell-centred datasets, each described on itself: the velocity averaged to the centres,
/// every scalar, the pressure (when not null) and the solid mask, the velocity and the mask
/// packed in `buffer` (packing_size() doubles). With a `liquid`, the scalar named phi is its
/// level set, and liquid_fraction its volume fraction or, without that scalar, H(-phi).
/// Collective.
PetscErrorCode write_cell_datasets(CollectiveFile& out, const Grid& grid, const Field& velocity,
                                   const std::vector<Field>& scalars, Vec pressure,
                                   const SolidMask& solids, bool liquid,
                                   std::vector<double>& buffer) {
  PetscFunctionBeginUser;
  const hid_t file = out.id(), transfer = out.transfer();
  std::string* error = out.error();
  const int dim = grid.dim();
  PetscCall(write_centred_velocity(out, grid, velocity, buffer));
  bool ok = true;
  // Cell-centred fields are written straight from their global vectors: a rank's owned block
  // is already contiguous in x-fastest order.
  std::vector<std::pair<std::string, Vec>> cell_fields;
  for (const Field& scalar : scalars) cell_fields.emplace_back(scalar.name(), scalar.global());
  if (pressure) cell_fields.emplace_back("pressure", pressure);
  for (const auto& [field_name, vec] : cell_fields) {
    ReadArray data;
    PetscCall(data.get(vec));
    ok = write_dataset(file, field_name, cell_slab(grid), data.data, transfer, error) && ok;
  }
  // The solid mask, a byte per cell x fastest, in the first eighth of the buffer.
  auto* solid = reinterpret_cast<std::uint8_t*>(buffer.data());
  for_each_index(grid.owned_cells(),
                 [&](PetscInt i, PetscInt j, PetscInt k) { *solid++ = solids.cell(i, j, k); });
  ok = write_dataset(file, "solid", cell_slab(grid), H5T_NATIVE_UINT8, buffer.data(), transfer,
                     error) && ok;
  // A liquid's level set, and its volume fraction when its interface carries one (a scalar of
  // the run, written with the others).
  const Field* level_set = nullptr;
  bool carries_fraction = false;
  for (const Field& scalar : scalars) {
    if (liquid && scalar.name() == LiquidConfig::kLevelSetName) level_set = &scalar;
    if (liquid && scalar.name() == LiquidConfig::kFractionName) carries_fraction = true;
  }
  // Otherwise the liquid's fraction in each cell, from its level set, in the buffer.
  if (level_set && !carries_fraction) {
    const double h = grid.min_spacing();
    ReadArray phi;
    PetscCall(phi.get(level_set->global()));
    // An obstacle holds none (its phi continues the liquid beside it; level_set.hpp).
    size_t c = 0;
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      buffer[c] = solids.solid(i, j, k) ? 0.0 : liquid_fraction(phi[c], h);
      ++c;
    });
    PetscCall(phi.restore());
    ok = write_dataset(file, "liquid_fraction", cell_slab(grid), buffer.data(), transfer, error) &&
         ok;
    ok = describe_dataset(file, "liquid_fraction",
                          {"cell", dim == 3 ? "z, y, x" : "y, x", "none",
                           "the liquid's fraction of the cell, H(-phi) smeared over 1.5 cells "
                           "either side of the surface (Sussman et al. 1994): 1 in the liquid, 0 "
                           "in the air and in obstacles",
                           ""},
                          error) && ok;
  }

  // What each dataset is, on the dataset itself.
  const std::string axes = dim == 3 ? "z, y, x" : "y, x";
  ok = describe_dataset(file, "velocity",
                        {"cell", axes + ", component", "length / time",
                         "velocity at cell centres: the mean of the two MAC faces of the cell "
                         "along each axis (the raw face values are in /face_velocity)",
                         dim == 3 ? "u, v, w (along x, y, z)"
                                  : "u, v, w (along x, y, z; w = 0 in 2D)"},
                        error) && ok;
  for (const Field& scalar : scalars) {
    DatasetNotes notes =
        &scalar == level_set ? DatasetNotes{"cell", axes, "length",
                                 "the liquid's level set at cell centres: the signed distance "
                                 "to its surface, negative in the liquid, held at +-liquid.band "
                                 "cells beyond the band",
                                 ""}
                  : DatasetNotes{"cell", axes, "as the job gives scalars." + scalar.name(),
                                 "scalar " + scalar.name() + " at cell centres", ""};
    if (liquid && scalar.name() == LiquidConfig::kFractionName)
      notes = {"cell", axes, "none",
               "the liquid's volume fraction of the cell (liquid.interface: vof), which the "
               "run moves in flux form: 1 in the liquid, 0 in the air and in obstacles",
               ""};
    ok = describe_dataset(file, scalar.name(), notes, error) && ok;
  }
  if (pressure)
    ok = describe_dataset(file, "pressure",
                          {"cell", axes, "length^2 / time^2 (kinematic: pressure / density)",
                           "the last projection's pressure p, with u = u* - dt grad p; 0 in "
                           "solid cells",
                           ""},
                          error) && ok;
  ok = describe_dataset(file, "solid",
                        {"cell", axes, "none",
                         "obstacle mask: 0 fluid, 1 no-slip obstacle, 2 free-slip obstacle", ""},
                        error) && ok;
  out.record(ok);
  PetscFunctionReturn(0);
}

/// The raw face values, one dataset per component with its own face counts, in the group
/// /face_velocity, each packed in `buffer` (packing_size() doubles). Collective.
PetscErrorCode write_face_datasets(CollectiveFile& out, const Grid& grid, const Field& velocity,
                                   std::vector<double>& buffer) {
  PetscFunctionBeginUser;
  std::string* error = out.error();
  const std::string axes = grid.dim() == 3 ? "z, y, x" : "y, x";
  H5Id faces(H5Gcreate2(out.id(), "face_velocity", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
             H5Gclose);
  bool ok = faces.valid();
  PetscCall(with_packed_faces(grid, velocity, buffer, [&](int c, const double* packed) {
    ok = write_dataset(faces, kFaceDatasets[c], face_slab(grid, c), packed,
                       out.transfer(), error) && ok;
    const std::string along = kFaceDatasets[c];
    ok = describe_dataset(faces, kFaceDatasets[c],
                          {"face", axes, "length / time",
                           std::string("velocity component ") + "uvw"[c] + " on the MAC faces "
                           "normal to " + along + ": index " + along + " = i is the face at " +
                           along + " = origin + i * spacing (one more face than cells unless " +
                           along + " is periodic), at cell centres along the other axes",
                           ""},
                          error) && ok;
    return PetscErrorCode(0);
  }));
  out.record(ok);
  out.record_close(faces.close());
  PetscFunctionReturn(0);
}

/// The marker particles under /particles, a dataset per column of their table written to
/// frames (position N x 3, sign and radius N), this rank's rows after those of the ranks before
/// it. *total gets N. Collective.
PetscErrorCode write_particles(CollectiveFile& out, const Grid& grid,
                               const ParticleRecords& particles, long* total) {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid.comm();
  std::string* error = out.error();
  unsigned long long local = particles.size(), offset = 0, all = 0;
  PetscCallMPI(MPI_Exscan(&local, &offset, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&local, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm));
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) offset = 0;  // MPI_Exscan leaves rank 0's undefined
  *total = static_cast<long>(all);
  H5Id group(H5Gcreate2(out.id(), "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  bool ok = group.valid();
  if (!ok) *error = "group particles: " + hdf5_error_message();
  const double none = 0.0;  // never a null buffer, even with no particles here
  const SwarmTable& table = particles.table();
  for (size_t c = 0; c < table.count; ++c) {
    if (!table[c].in_frames) continue;
    const auto width = static_cast<hsize_t>(table[c].width);
    Slab slab;  // N values, or N x width
    slab.global = {all};
    slab.offset = {offset};
    slab.count = {local};
    if (width > 1) {
      slab.global.push_back(width);
      slab.offset.push_back(0);
      slab.count.push_back(width);
    }
    const std::vector<double>& values = particles[c];
    ok = write_dataset(group, table[c].name, slab, values.empty() ? &none : values.data(),
                       out.transfer(), error) && ok;
  }
  for (const SwarmColumn& column : table) {
    if (!column.in_frames) continue;
    ok = describe_dataset(group, column.name,
                          {"particle", column.width > 1 ? "particle, component" : "particle",
                           column.units, column.description, column.width > 1 ? "x, y, z" : ""},
                          error) && ok;
  }
  out.record(ok);
  out.record_close(group.close());
  PetscFunctionReturn(0);
}

/// The particles a frame file holds (the rows of /particles/position), or -1 if none: read by
/// one process, independently.
long particles_in(const std::string& path) {
  H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid() || H5Lexists(file, "particles", H5P_DEFAULT) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return -1;
  }
  H5Id dataset(H5Dopen2(file, "particles/position", H5P_DEFAULT), H5Dclose);
  H5Id space(dataset.valid() ? H5Dget_space(dataset) : -1, H5Sclose);
  hsize_t shape[2] = {0, 0};
  if (!space.valid() || H5Sget_simple_extent_ndims(space) != 2 ||
      H5Sget_simple_extent_dims(space, shape, nullptr) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return -1;
  }
  return static_cast<long>(shape[0]);
}

}  // namespace

PetscErrorCode FrameWriter::setup(const Grid& grid, const SolidMask& solids, const JobConfig& job,
                                  const std::string& name) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  job_ = &job;
  directory_ = job.output.directory;
  name_ = name;
  frames_.clear();
  // We report HDF5 failures ourselves, naming the file; HDF5's own stack dump on every rank
  // would bury that message.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  PetscCall(make_directory(grid.comm(), directory_));
  PetscFunctionReturn(0);
}

std::string FrameWriter::frame_path(int frame) const {
  char number[16];
  std::snprintf(number, sizeof number, "%06d", frame);
  return directory_ + "/" + name_ + "_" + number + ".h5";
}

std::string FrameWriter::index_path() const { return directory_ + "/" + name_ + ".xmf"; }

std::string FrameWriter::particles_index_path() const {
  return directory_ + "/" + name_ + "_particles.xmf";
}

PetscErrorCode FrameWriter::write(const Field& velocity, const std::vector<Field>& scalars,
                                  Vec pressure, PetscInt step, double time,
                                  const ParticleRecords* particles) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const MPI_Comm comm = grid.comm();
  const int frame = frames_written();
  const std::string path = frame_path(frame);

  // The one array this write adds to the run's memory: every dataset that is not a global
  // vector already is packed into it in turn. At 128^3 on 2 ranks the frame's addition to the
  // run's peak fell from 33.5 to 9.6 bytes per cell (8.1 of it this buffer, the rest HDF5's and
  // MPI-IO's own) when the centred velocity (24 B/cell), the solid mask (1) and a vector per
  // face component (8) became this one buffer.
  std::vector<double> buffer(packing_size(grid));
  Provenance provenance;
  PetscCall(current_provenance(comm, &provenance));
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));

  CollectiveFile out(comm, path, "output frame");
  double bytes = frame_bytes(grid, *job_, scalars.size(), pressure != nullptr);
  if (particles) {
    unsigned long long local = particles->size(), total = 0;
    PetscCallMPI(MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm));
    double values = 0.0;  // per particle: position (3), sign, radius
    for (const SwarmColumn& column : particles->table())
      if (column.in_frames) values += column.width;
    bytes += values * 8.0 * static_cast<double>(total);
  }
  PetscCall(out.create(bytes));
  write_frame_header(out, grid, *job_, provenance, rank == 0, frame, step, time);
  PetscCall(write_cell_datasets(out, grid, velocity, scalars, pressure, *solids_,
                                job_->liquid.enabled, buffer));
  PetscCall(write_face_datasets(out, grid, velocity, buffer));
  long count = -1;
  if (particles) PetscCall(write_particles(out, grid, *particles, &count));
  PetscCall(out.commit());

  if (attributes_.empty()) describe_attributes(scalars, pressure != nullptr);
  frames_.push_back({std::filesystem::path(path).filename().string(), time, count});
  PetscCall(write_index());
  PetscFunctionReturn(0);
}

void FrameWriter::describe_attributes(const std::vector<Field>& scalars, bool with_pressure) {
  attributes_.clear();
  attributes_.push_back({"velocity", "/velocity", 3});
  for (const Field& scalar : scalars) attributes_.push_back({scalar.name(), "/" + scalar.name(), 1});
  if (with_pressure) attributes_.push_back({"pressure", "/pressure", 1});
  attributes_.push_back({"solid", "/solid", 1, "UChar", 1});
  // A vof interface's fraction is a scalar of the run, already listed.
  const bool listed = std::any_of(scalars.begin(), scalars.end(), [](const Field& scalar) {
    return scalar.name() == LiquidConfig::kFractionName;
  });
  if (job_->liquid.enabled && !listed)
    attributes_.push_back({"liquid_fraction", "/liquid_fraction", 1});
}

std::vector<double> FrameWriter::frame_times() const {
  std::vector<double> times;
  for (const XdmfFrame& frame : frames_) times.push_back(frame.time);
  return times;
}

PetscErrorCode FrameWriter::resume(const std::vector<double>& times,
                                   const std::vector<Field>& scalars, bool with_pressure) {
  PetscFunctionBeginUser;
  describe_attributes(scalars, with_pressure);
  frames_.clear();
  // How many particles each kept frame holds, for their index: rank 0 looks, all learn.
  std::vector<long> counts(times.size(), -1);
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(grid_->comm(), &rank));
  if (rank == 0)
    for (size_t n = 0; n < times.size(); ++n) counts[n] = particles_in(frame_path(static_cast<int>(n)));
  PetscCallMPI(MPI_Bcast(counts.data(), static_cast<int>(counts.size()), MPI_LONG, 0,
                         grid_->comm()));
  for (size_t n = 0; n < times.size(); ++n)
    frames_.push_back({std::filesystem::path(frame_path(static_cast<int>(n))).filename().string(),
                       times[n], counts[n]});
  if (!frames_.empty()) PetscCall(write_index());
  PetscFunctionReturn(0);
}

PetscErrorCode FrameWriter::write_index() {
  PetscFunctionBeginUser;
  XdmfGrid geometry;
  geometry.dim = grid_->dim();
  for (int a = 0; a < 3; ++a) {
    geometry.cells[a] = grid_->cells(a);
    geometry.origin[a] = grid_->origin(a);
    geometry.spacing[a] = grid_->spacing(a);
  }
  PetscCall(write_text_atomically(grid_->comm(), index_path(),
                                  render_xdmf(geometry, attributes_, frames_)));
  if (std::any_of(frames_.begin(), frames_.end(),
                  [](const XdmfFrame& frame) { return frame.particles >= 0; }))
    PetscCall(write_text_atomically(grid_->comm(), particles_index_path(),
                                    render_particles_xdmf(frames_)));
  PetscFunctionReturn(0);
}

}  // namespace sf
