// Output frames: one HDF5 file per frame, written collectively by every rank through HDF5's
// MPI-IO driver (each rank writes its own hyperslab; nothing is gathered on one rank), indexed by
// an XDMF file so that ParaView opens <directory>/<name>.xmf directly.
//
// Contents of <directory>/<name>_NNNNNN.h5. Datasets are stored in C order, slowest axis first
// ([nz,] ny, nx: index [k][j][i] is cell (i, j, k)); the root's vector attributes are in x, y, z
// order. `h5dump -H` shows all of this on the file itself: every dataset carries string
// attributes `centring` (cell or face), `axis_order`, `units` and `description`, the velocity
// also `components`.
//   /velocity            [nz,] ny, nx, 3   velocity averaged to cell centres (u, v, w; w = 0 in 2D)
//   /<scalar>            [nz,] ny, nx      every scalar, at cell centres
//   /pressure            [nz,] ny, nx      the last projection's pressure (when given)
//   /solid               [nz,] ny, nx      uint8: 0 fluid, 1 no-slip obstacle, 2 free-slip
//   /liquid_fraction     [nz,] ny, nx      with a liquid: its fraction of each cell, H(-phi)
//   /face_velocity/x|y|z                   the raw MAC face values of each component, shape
//                                          cells + 1 along its own non-periodic axis
//   /job                                   the job file's text (an HDF5 string)
//   /particles/position, sign, radius      a liquid's marker particles (N x 3, N, N), the
//                                          ranks' one after another; indexed by
//                                          <name>_particles.xmf as Polyvertex grids
//   attributes on /: time, step, frame, dimension, cells, origin, spacing (x, y, z order),
//     units, conventions, job_file, and the provenance (build_info.hpp): program, commit,
//     written, ranks, command_line, petsc_options, libraries, all strings but ranks
// Quantities are in the job's own units (lengths and times as it gives them), density 1.
// A frame is written as <file>.tmp and renamed when it is complete, so an interrupted run never
// leaves a truncated frame under a final name.
#pragma once

#include <string>
#include <vector>

#include "field.hpp"
#include "job.hpp"
#include "particle_records.hpp"
#include "solids.hpp"
#include "xdmf.hpp"

namespace sf {

class FrameWriter {
public:
  /// Creates the output directory `job.output.directory` (rank 0) and prepares the XDMF index
  /// of frames <name>_NNNNNN.h5. `solids` and `job` must outlive the writer. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const JobConfig& job,
                       const std::string& name);

  /// Writes the next frame. `velocity` must have up-to-date ghosts (the cell-centre average
  /// reads the upper face of every cell). `pressure`, if not null, is a global vector with the
  /// cell DM's layout. Collective.
  /// With `particles` (this rank's), the frame holds them too. Collective.
  PetscErrorCode write(const Field& velocity, const std::vector<Field>& scalars, Vec pressure,
                       PetscInt step, double time, const ParticleRecords* particles = nullptr);

  int frames_written() const { return static_cast<int>(frames_.size()); }
  std::vector<double> frame_times() const;

  /// Continues a series after a restart: the index keeps exactly the frames `times` (any frame
  /// written after the checkpoint by the interrupted run is dropped and will be written again)
  /// and is rewritten at once. Collective.
  PetscErrorCode resume(const std::vector<double>& times, const std::vector<Field>& scalars,
                        bool with_pressure);
  /// Path of frame number `frame` (0-based).
  std::string frame_path(int frame) const;
  std::string index_path() const;
  /// The particles' index, <name>_particles.xmf, written once a frame holds particles.
  std::string particles_index_path() const;

private:
  PetscErrorCode write_index();
  void describe_attributes(const std::vector<Field>& scalars, bool with_pressure);

  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  const JobConfig* job_ = nullptr;
  std::string directory_;
  std::string name_;
  std::vector<XdmfFrame> frames_;
  std::vector<XdmfAttribute> attributes_;
};

}  // namespace sf
