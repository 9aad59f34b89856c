// One run at a time per job name and output directory, and no silent mixing with an old run.
//
// Two runs of the same job name writing into one directory would replace each other's frames,
// index, steps CSV and checkpoints, both ending with status 0. So every run holds
// <directory>/<name>.lock for its whole life (in the checkpoint directory too, when that is
// another one):
//   - Rank 0 takes an exclusive POSIX record lock on the file (fcntl F_SETLK). The kernel drops
//     it when the process ends in any way, SIGKILL included, so a lock file left behind by a
//     crashed run is recognised as stale and taken over (and said so). NFS (through lockd) and
//     Lustre (mounted with flock or localflock) support such locks.
//   - The file holds the holder's host, PID, start time and job file, which a second run quotes
//     when it is refused (exit status 2).
//   - Where the file system has no record locks (ENOLCK), the file is created exclusively
//     instead; one left by a PID that no longer exists on this host is stale, one from another
//     host is taken as alive and the message says which file to remove if it is not.
//   - The file is removed when the run ends.
//
// A new run (no --restart) over the files of an earlier run of the same name is refused too,
// listing what is there, unless the job sets output.overwrite: true, which first removes them:
// frames and the index, the steps CSV, the timings, checkpoints and failure dumps. Files that
// Catalyst scripts write are named by the scripts and left alone.
#pragma once

#include <petscsys.h>

#include <string>
#include <vector>

namespace sf {

class OutputLock {
public:
  OutputLock() = default;
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  /// Locks <directory>/<name>.lock in every one of `directories` (which exist), or raises the
  /// job error (exit status 2) naming the run that holds one. `job_source` is recorded in the
  /// file. Collective.
  PetscErrorCode acquire(MPI_Comm comm, const std::vector<std::string>& directories,
                         const std::string& name, const std::string& job_source);

  /// Removes the lock files and drops the locks (also done by the destructor). Not collective.
  void release();

private:
  struct Held {
    std::string path;
    int fd = -1;
  };
  std::vector<Held> held_;  // rank 0 only
};

/// For a run that is not a restart: raises the job error (exit status 2) if any of
/// `directories` holds files of an earlier run named `name`, listing them, unless `overwrite`,
/// in which case rank 0 removes them and says how many. Collective.
PetscErrorCode clear_earlier_output(MPI_Comm comm, const std::vector<std::string>& directories,
                                    const std::string& name, bool overwrite);

}  // namespace sf
