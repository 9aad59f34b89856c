// Checkpoints: the exact state of a run in one parallel HDF5 file, written collectively, so that
// a run can stop at any moment and continue, on the same or another number of ranks.
//
// <directory>/<name>_checkpoint_<step, 8 digits>.h5 holds
//   /face_velocity/x|y|z, /<scalar>, /pressure   the fields in layout-independent global shapes
//                                              (as in output frames), read back by hyperslab on
//                                              any decomposition
//   /frame_times                               the times of the frames written so far, so the
//                                              XDMF index continues without duplicates
//   /job                                       the job file's text, exactly as read
//   attributes: time, step, last_dt (the projection's warm-start scale), next_frame,
//   job_hash, ranks, process_grid, cells, dimension, version
// It is written as <file>.tmp and renamed when complete; only then are checkpoints beyond the
// newest `keep` removed, so a crash at any moment leaves the newest complete checkpoint intact.
#pragma once

#include <string>
#include <vector>

#include "field.hpp"

namespace sf {

/// The state besides the fields that a restart needs to continue bit for bit.
struct RunState {
  double time = 0.0;
  PetscInt step = 0;
  double last_dt = 0.0;             // the projection's previous step
  PetscInt next_frame = 0;          // index of the next output time
  std::vector<double> frame_times;  // times of the frames written so far
  double output_interval = 0.0;     // the interval next_frame counts in (read from the job)
};

class Checkpointer {
public:
  /// Creates the checkpoint directory (rank 0). Collective.
  PetscErrorCode setup(const Grid& grid, const JobConfig& job);

  /// Writes a checkpoint of the given state and prunes old ones. Collective.
  PetscErrorCode write(const Field& velocity, const std::vector<Field>& scalars, Vec pressure,
                       const RunState& state, std::string* path);

  /// Restores the fields and the run state from `path`, after refusing a checkpoint whose grid
  /// or physics differ from the job (the message lists every difference). Collective.
  PetscErrorCode read(const std::string& path, Field& velocity, std::vector<Field>& scalars,
                      Vec pressure, RunState* state);

  /// The newest complete checkpoint of this job in its checkpoint directory. Collective.
  PetscErrorCode latest(std::string* path) const;

  const std::string& directory() const { return directory_; }

private:
  /// Complete checkpoints of this job, oldest first (rank 0 lists, every rank learns).
  PetscErrorCode list(std::vector<std::string>* paths) const;

  const Grid* grid_ = nullptr;
  const JobConfig* job_ = nullptr;
  std::string directory_;
  // Test hook (environment STABLEFLUIDS_TEST_CHECKPOINT_PAUSE, seconds): wait with the data
  // written but the file not yet closed and renamed, so that a test can kill the run in the
  // middle of a checkpoint deterministically.
  double pause_seconds_ = 0.0;
};

/// The job's settings that a restart must not change, as "key: value" lines; two jobs may
/// continue each other's checkpoints when their lines are equal.
std::vector<std::string> physics_description(const JobConfig& job);

}  // namespace sf
