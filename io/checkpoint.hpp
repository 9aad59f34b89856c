// Checkpoints: the exact state of a run in one parallel HDF5 file, written collectively, so that
// a run can stop at any moment and continue, on the same or another number of ranks.
//
// <directory>/<name>_checkpoint_<step, 8 digits>.h5 holds
//   /face_velocity/x|y|z, /<scalar>, /pressure   the fields in layout-independent global shapes
//                                              (as in output frames), read back by hyperslab on
//                                              any decomposition
//   /frame_times                               the times of the frames written so far, so the
//                                              XDMF index continues without duplicates
//   /job                                       the job file's text, exactly as read (an HDF5
//                                              string)
//   /job_overrides                             the command line's --set key=value, one per line
//                                              (the job is /job with these on top)
//   /previous_step/face_velocity/x|y|z, /previous_step/<scalar>, /previous_step/dt
//                                              the step before (time.scheme: bdf2 only)
//   /particles                                 a liquid's marker particles: one row of 6
//                                              doubles each, x y z sign radius id (the columns
//                                              of kParticleTable, particle_records.hpp; the id
//                                              is an integer below 2^53, exact as a double), the
//                                              ranks' rows one after another; read back in
//                                              even shares and handed to the ranks that own
//                                              them, so on any decomposition
//   /spray                                     a liquid's spray and foam (liquid.spray): one
//                                              row of 10 doubles each, x y z, vx vy vz, radius,
//                                              life, kind (0 spray, 1 foam), id (below 2^53:
//                                              kSprayTable's columns), as
//                                              /particles
//   /floating_bodies                           the floating bodies' state, 18 doubles each
//                                              (FloatingBodies::state())
//   /volume_control                            a liquid's volume controller: its integral
//                                              of the volume's error (VolumeController::state())
//   attributes: time, step, last_dt (the projection's warm-start scale), next_frame, frames,
//   process_grid, cells, dimension, format, and as strings job_hash, version (of stablefluids)
//   and the provenance (build_info.hpp): program, commit, written, ranks (an integer),
//   command_line, petsc_options, libraries
//
// Format 3 (this one) stores text as HDF5 strings and carries the provenance; format 2 stored
// the job and version as arrays of int8 and is still read.
//
// Checksums (format 2 and later). Every dataset carries a `crc32` attribute: zlib's CRC-32 of its bytes in
// file order (checksum.hpp; for frame_times, of the first `frames` values, the ones in use), so
// it does not depend on the ranks that wrote or read it. The root attribute `state_crc32` covers
// time, step, last_dt, next_frame and frames (checksum.hpp, state_checksum). A restart verifies
// all of them before using anything: the job text before it is parsed, the fields as they are
// read. Checkpoints without checksums (format 1, written before them) are refused: their data
// cannot be told from damaged data.
//
// It is written as <file>.tmp and renamed when complete; only then are checkpoints beyond the
// newest `keep` removed, so a crash at any moment leaves the newest complete checkpoint intact.
// The one just written is never removed, nor any with a later step (see write()).
#pragma once

#include <string>
#include <vector>

#include "field.hpp"
#include "job.hpp"
#include "particle_records.hpp"

namespace sf {

/// The state besides the fields that a restart needs to continue bit for bit.
struct RunState {
  double time = 0.0;
  PetscInt step = 0;
  double last_dt = 0.0;             // the projection's previous step
  PetscInt next_frame = 0;          // index of the next output time
  std::vector<double> frame_times;  // times of the frames written so far
  double output_interval = 0.0;     // the interval next_frame counts in (read from the job)
  std::vector<double> bodies;       // the floating bodies' state (FloatingBodies::state())
  std::vector<double> volume_control;  // a liquid's volume controller (VolumeController::state())
};

/// The step before the current one, which the second-order time step (time.scheme: bdf2) needs
/// to continue bit for bit: its fields and its dt. Kept in the checkpoint's /previous_step group
/// when dt > 0.
struct StepHistory {
  Field* velocity = nullptr;
  std::vector<Field>* scalars = nullptr;
  double dt = 0.0;  // 0: there is no step before
};

/// A checkpoint that read_latest() passed over, and why.
struct SkippedCheckpoint {
  std::string path;
  std::string reason;
};

class Checkpointer {
public:
  /// The checkpoint layout this code writes; the `format` attribute. Format 1 (no attribute) had
  /// no checksums; format 2 stored the job and the version as arrays of int8 and had no
  /// provenance, and is still read.
  static constexpr long long kFormat = 3;
  static constexpr long long kOldestReadableFormat = 2;

  /// Creates the checkpoint directory (rank 0). Collective.
  PetscErrorCode setup(const Grid& grid, const JobConfig& job);

  /// Writes a checkpoint of the given state and prunes old ones. Collective.
  PetscErrorCode write(const Field& velocity, const std::vector<Field>& scalars, Vec pressure,
                       const RunState& state, std::string* path,
                       const StepHistory* history = nullptr,
                       const ParticleRecords* particles = nullptr,
                       const SprayRecords* spray = nullptr);

  /// Restores the fields and the run state from `path` (`--restart <file>`). A file that cannot
  /// be opened, lacks checksums or fails one stops every rank with a message naming the file and
  /// the dataset: the user asked for this file, so there is no fallback. A checkpoint whose grid
  /// or physics differ from the job is refused with every difference listed. With `history`,
  /// the step before is read into it as well (history->dt stays 0 if the checkpoint was written
  /// before the first step); with `particles`, this rank's share of the marker particles; with
  /// `spray`, of the spray and foam. Collective.
  PetscErrorCode read(const std::string& path, Field& velocity, std::vector<Field>& scalars,
                      Vec pressure, RunState* state, StepHistory* history = nullptr,
                      ParticleRecords* particles = nullptr, SprayRecords* spray = nullptr);

  /// `--restart latest`: restores from the newest checkpoint of this job that opens and verifies.
  /// Each newer one passed over is named with its reason, one line each on rank 0's stderr, and
  /// listed in *skipped; *path is the one used. Fails when none is usable. A checkpoint whose
  /// physics differ from the job stops the search with the differences (as read() does): that is
  /// the job having changed, which an older checkpoint would only hide. Collective.
  PetscErrorCode read_latest(Field& velocity, std::vector<Field>& scalars, Vec pressure,
                             RunState* state, std::string* path,
                             std::vector<SkippedCheckpoint>* skipped = nullptr,
                             StepHistory* history = nullptr,
                             ParticleRecords* particles = nullptr,
                             SprayRecords* spray = nullptr);

  /// The complete (renamed) checkpoints of this job, oldest first, not yet verified (rank 0
  /// lists, every rank learns). Collective.
  PetscErrorCode list(std::vector<std::string>* paths) const;

  const std::string& directory() const { return directory_; }

private:
  /// Reads and verifies `path`. A damaged or unverifiable file leaves the reason in *problem,
  /// the same on every rank; a job mismatch raises an error. Collective.
  PetscErrorCode try_read(const std::string& path, Field& velocity, std::vector<Field>& scalars,
                          Vec pressure, RunState* state, StepHistory* history,
                          ParticleRecords* particles, SprayRecords* spray,
                          std::string* problem);
  /// Removes the checkpoints beyond the newest `keep` once `path` is complete, never `path`
  /// itself nor any with a later step (rank 0). Collective.
  PetscErrorCode remove_older(const std::string& path) const;

  const Grid* grid_ = nullptr;
  const JobConfig* job_ = nullptr;
  std::string directory_;
  // Test hook (environment STABLEFLUIDS_TEST_CHECKPOINT_PAUSE, seconds; docs/running.md,
  // "Environment"): wait with the data written but the file not yet closed and renamed, so that a
  // test can kill the run in the middle of a checkpoint deterministically.
  double pause_seconds_ = 0.0;
};

}  // namespace sf
