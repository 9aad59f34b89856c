// In-situ analysis: something that looks at the state while the run goes, on a schedule of its
// own, without the state leaving the ranks. Today that is ParaView Catalyst (catalyst_adaptor.*,
// legacy vtkCPProcessor API, the one Debian's ParaView 5.11 ships); a Catalyst 2 (Conduit)
// adaptor would be a second implementation of this interface.
#pragma once

#include <memory>
#include <vector>

#include "job.hpp"
#include "field.hpp"
#include "particle_records.hpp"
#include "solids.hpp"

namespace sf {

/// What the solver hands over on a step where something is due. Fields must have fresh ghost
/// layers (Field::fill_ghosts); `pressure` is a global vector of the cell DM.
struct InSituState {
  const Field* velocity = nullptr;
  const std::vector<Field>* scalars = nullptr;
  Vec pressure = nullptr;
  const SprayRecords* spray = nullptr;  // with a liquid's spray: this rank's particles
  PetscInt step = 0;
  double time = 0.0;
};

class InSitu {
public:
  virtual ~InSitu() = default;
  /// Whether anything runs at this step and time (*due, the same on every rank); the solver
  /// prepares nothing when it is false. Decided from the job alone, except for a schedule in
  /// wall-clock time, which follows rank 0's clock (one broadcast, only on steps where such a
  /// script is otherwise due). Collective.
  virtual PetscErrorCode due(PetscInt step, double time, bool* due) = 0;
  /// Runs whatever is due. A failure stops the run on every rank with one message. Collective.
  virtual PetscErrorCode execute(const InSituState& state) = 0;
  /// Ends every pipeline (scripts' finalize hooks run here). Collective.
  virtual PetscErrorCode finalize() = 0;
};

/// The in-situ analysis the job asks for (its catalyst section), or null when it asks for none,
/// for a run that starts at `start_time` (`restarted`: from a checkpoint, whose state was
/// already handed over by the run that wrote it). A job that names Catalyst scripts in a build
/// without Catalyst is an error. Collective.
PetscErrorCode make_in_situ(const Grid& grid, const SolidMask& solids, const JobConfig& job,
                            double start_time, bool restarted, std::unique_ptr<InSitu>* in_situ);

}  // namespace sf
