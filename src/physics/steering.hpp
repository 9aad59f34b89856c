// Steering a running job (Stam, "Interacting with Smoke and Fire": forces and sources painted in
// while the fluid runs). The job names a small YAML file (`steering: {file: ...}`); every
// `every_steps` steps rank 0 reads it, and when its text has changed every rank parses the new
// text (parse_steering in job.hpp): force regions added to the job's, sources added to its
// scalars'. A user watching the run in ParaView (Catalyst Live, or the frames) edits the file to
// push the smoke where they want it and empties or removes it to stop. A file that does not
// parse is reported on rank 0 and changes nothing: the run goes on with what it had. Reading a
// file of a few lines on one rank and broadcasting it costs microseconds a step.
#pragma once

#include <petscsys.h>

#include <string>

#include "job.hpp"

namespace sf {

class Steering {
public:
  /// Reads nothing yet. Local.
  void setup(const JobConfig& job);
  bool enabled() const { return !path_.empty(); }

  /// At the first call and then every every_steps steps (step counts the steps done): rank 0
  /// reads the file, every rank
  /// gets its text, and if it changed, parses it. *changed tells every rank whether what is
  /// steered changed. Collective.
  PetscErrorCode poll(MPI_Comm comm, PetscInt step, bool* changed);

  const Steered& steered() const { return steered_; }
  /// Each scalar's steered sources as a ScalarConfig that apply_sources() takes.
  const std::vector<ScalarConfig>& sources() const { return sources_; }

private:
  const JobConfig* job_ = nullptr;
  std::string path_;
  PetscInt every_ = 1;
  bool seen_ = false;      // the file existed at the last read
  bool oversize_ = false;  // it was too large or not a file (said once)
  bool polled_ = false;    // the first poll happened
  std::string text_;   // its text then
  Steered steered_;
  std::vector<ScalarConfig> sources_;
};

}  // namespace sf
