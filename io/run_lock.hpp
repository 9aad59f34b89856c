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
//   - The file is removed when the run ends, if it is still the file the run locked.
//
// The lock is only as good as the file: a lock file removed while the run goes on (by hand, or
// with the whole directory's contents) would let a second run take the directory and, with
// output.overwrite, delete the first run's files under it. So:
//   - Rank 0 also holds a record lock on the run's steps CSV, which it keeps open for its whole
//     life. A second run refuses a directory whose <name>_steps.csv another process holds, with
//     status 2, even when the lock file is gone: removing the lock file alone no longer exposes a
//     running job.
//   - At every step boundary, before it writes anything, and at its end, the run checks (on rank
//     0: one fstat and one stat of each lock file and of the steps CSV, the verdict broadcast)
//     that these are still the files at their paths. One removed or replaced stops the run with
//     status 1, naming the file, without writing anything more; at the end (not at a signal's
//     stop), the frames this run wrote, its index and its timings must still be there too. It stops rather than lock
//     a new file: since the removal another run may have taken the directory, and a run that
//     cannot tell whether its files are still its own must neither write more nor end with 0.
//     (The check alone could not protect a run: a step on a large grid takes minutes, and
//     output.overwrite deletes in milliseconds; hence the second lock.)
// What is left unguarded: if both the lock file and the steps CSV are removed, a second run that
// starts before the first reaches its next step boundary may take the directory (and, with
// output.overwrite, remove the first run's files); the first then stops with status 1 at that
// boundary, leaving the second run's lock file in place. A checkpoint directory of its own is
// guarded by its lock file alone.
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

  /// Rank 0 (ignored elsewhere, where `fd` is -1): `fd` is open on `path`, one of the run's own
  /// files that it keeps open for its whole life (the steps CSV). It gets a record lock too, so
  /// that a second run finds this one alive when the lock file is gone, and check() makes sure it
  /// stays at its path. Not collective.
  void watch(const std::string& path, int fd);

  /// Stops the run, on every rank, with a run-time error (exit status 1) naming the file, when a
  /// lock file or a watched file is no longer the file at its path (removed, or replaced by
  /// another run's), or when one of `written` (files the run wrote and still announces) no
  /// longer exists. Rank 0 looks (one fstat and one stat per held file, one stat per written
  /// one); its verdict is broadcast. Collective.
  PetscErrorCode check(MPI_Comm comm, const std::vector<std::string>& written = {});

  /// Removes the lock files that are still this run's, and drops the locks (also done by the
  /// destructor). Not collective.
  void release();

private:
  struct Held {
    std::string path;
    int fd = -1;
  };
  std::string name_;           // the job's name, for messages
  std::vector<Held> held_;     // rank 0 only: the lock files
  std::vector<Held> watched_;  // rank 0 only: the run's own open files (not closed here)
};

/// For a run that is not a restart: raises the job error (exit status 2) if any of
/// `directories` holds files of an earlier run named `name`, listing them, unless `overwrite`,
/// in which case rank 0 removes them and says how many. Collective.
PetscErrorCode clear_earlier_output(MPI_Comm comm, const std::vector<std::string>& directories,
                                    const std::string& name, bool overwrite);

}  // namespace sf
