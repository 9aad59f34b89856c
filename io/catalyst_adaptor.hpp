// ParaView Catalyst adaptor (legacy vtkCPProcessor API of ParaView 5.11).
//
// Each rank hands ParaView its block of the MAC grid as one vtkImageData of cell data, on the
// channel named "input" (scripts: PVTrivialProducer(registrationName="input")):
//   velocity   3 components, the faces averaged to cell centres (w = 0 in 2D)
//   <scalar>   every scalar of the job, by its name
//   pressure   the last projection's pressure
//   solid      0 fluid, 1 no-slip obstacle, 2 free-slip obstacle
//   vtkGhostType  DUPLICATECELL on the one-cell ghost layer
// A block is the rank's own cells plus one layer of its neighbours' cells on every side that
// has a neighbour (never beyond the domain), marked as ghost cells, so filters see across rank
// boundaries (contours close, slices are continuous) while every cell is counted once.
// The channel "owned" carries the same arrays on exactly the rank's own cells, no ghosts: data
// extracts (.pvti) written from it tile the domain, and its scalars and pressure are the
// solver's own vectors, not copies. With a liquid's spray (liquid.spray), the channel
// "particles" carries each rank's spray and foam particles as a vtkPolyData of vertices with
// point data kind (0 spray, 1 foam), radius and velocity.
//
// Scripts are ParaView "version 2" Catalyst scripts (what File > Save Catalyst State writes);
// jobs/catalyst holds examples. Each runs on the job's schedule (catalyst.scripts[].every_*),
// receives the job's args as the Python list stablefluids_catalyst.args, and writes its extracts
// under catalyst.directory. Nothing is assembled on steps where no script is due.
//
// A Python exception anywhere in a script (its top-level code, catalyst_initialize,
// catalyst_execute) stops the run with an error naming the script and the step on every rank;
// ParaView itself would only print the traceback and carry on without the pipeline.
#pragma once

#include <memory>

#include "in_situ.hpp"

namespace sf {

class CatalystAdaptor final : public InSitu {
public:
  CatalystAdaptor();
  ~CatalystAdaptor() override;
  CatalystAdaptor(const CatalystAdaptor&) = delete;
  CatalystAdaptor& operator=(const CatalystAdaptor&) = delete;

  /// Starts ParaView's server manager on the grid's communicator, loads every script of the job
  /// (a script that cannot be loaded is an error naming it) and lays out this rank's block.
  /// Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const JobConfig& job);
  /// Sets the schedules of scripts that run every_time: a fresh run starts with every script
  /// due (the initial state), a restarted one at each script's next multiple after `time`.
  void start_at(double time, bool restarted);

  PetscErrorCode due(PetscInt step, double time, bool* due) override;
  PetscErrorCode execute(const InSituState& state) override;
  PetscErrorCode finalize() override;

private:
  struct Impl;  // keeps VTK's headers out of the solver's
  std::unique_ptr<Impl> impl_;
};

}  // namespace sf
