// One HDF5 file that every rank writes together through MPI-IO, all or nothing: the protocol
// that output frames and checkpoints share.
//
//   create   refuse, on every rank, a file the file system has no room for; create <path>.tmp
//            with the MPI-IO driver (rank 0 tries it with POSIX first, for the operating
//            system's reason when it cannot), and make the collective transfer list;
//   write    the caller's collective steps, each recorded with record() or fail(); a step never
//            stops early on one rank (hdf5_util.hpp: every rank makes every collective call);
//   commit   close the file (the closing flush can fail too), agree on the outcome, and rename
//            <path>.tmp to <path> on rank 0 if every rank's every step worked; otherwise remove
//            the temporary file. Either way every rank returns the same error naming the file.
//
// So an interrupted or failed write never leaves a truncated file under a final name, and never
// touches an earlier file.
#pragma once

#include <hdf5.h>
#include <petscsys.h>

#include <string>

namespace sf {

class CollectiveFile {
public:
  /// The file will be `path`; `what` names its kind in error messages ("output frame",
  /// "checkpoint").
  CollectiveFile(MPI_Comm comm, std::string path, const char* what);
  ~CollectiveFile();
  CollectiveFile(const CollectiveFile&) = delete;
  CollectiveFile& operator=(const CollectiveFile&) = delete;

  /// Checks that about `bytes` bytes fit, then creates <path>.tmp on every rank. Any failure
  /// is an error on every rank, naming the file. Collective.
  PetscErrorCode create(double bytes);

  /// The open file and the collective transfer list for its datasets.
  hid_t id() const { return file_; }
  hid_t transfer() const { return transfer_; }

  /// Where a step leaves the reason when it fails (write_dataset(..., out.error()) and the like).
  std::string* error() { return &error_; }
  bool ok() const { return ok_; }
  /// Records whether a step worked; the file is committed only if every step did.
  void record(bool step_ok) { ok_ = step_ok && ok_; }
  /// Records a failed step that left no reason of its own: `reason` is the error unless an
  /// earlier step has already failed with one.
  void fail(const std::string& reason);
  /// Records the closing of an object in the file (a group); closing flushes, so a failure,
  /// e.g. a full disk, is as fatal as a failed write. HDF5's reason is kept as in fail().
  void record_close(bool closed);

  /// Closes the file and renames it to its final path if every rank's every step worked; the
  /// error otherwise says "cannot write <what> '<path>': <reason> (earlier files are
  /// untouched)" on every rank. Collective.
  PetscErrorCode commit();

  const std::string& path() const { return path_; }

private:
  MPI_Comm comm_;
  std::string path_;
  std::string temporary_;
  const char* what_;
  hid_t file_ = -1;
  hid_t transfer_ = -1;
  bool ok_ = true;
  std::string error_;
};

/// Asks Open MPI, before MPI starts, for ROMIO rather than OMPIO as its MPI-IO implementation,
/// unless the user chose one (OMPI_MCA_io). ROMIO's MPI_File_open is all or nothing: the ranks
/// agree on the outcome before it returns. OMPIO's is not: rank 0 opens the file, tells the
/// others, and only then do they open it by name, so a file or directory removed in between (a
/// user cleaning up a running job's output) leaves rank 0 with an open file and the others with
/// an error. HDF5 then takes rank 0 into its next collective call (a broadcast of the file size)
/// while the others, out of H5Fcreate, wait in ours: every rank hangs for ever. disk_cli caught
/// this about once in 150 runs under load; exit_status_cli makes it happen every time (one rank's
/// open refused, tests/cli/refuse_open.c). MPICH and its derivatives use ROMIO already.
/// The environment variable also overrides an `io` setting in a site's openmpi-mca-params.conf;
/// an Open MPI built without ROMIO (--disable-io-romio) then has no MPI-IO at all and every
/// frame fails to open: there, set OMPI_MCA_io=ompio (io/README.md).
void choose_mpi_io();

// Plain files of the run (the frame index, the timings, directories) are written by rank 0 alone;
// the other ranks learn the outcome, so all of them stop together when it fails.

/// Creates `path` and its parents on rank 0 and agrees on the outcome on every rank. Collective.
PetscErrorCode make_directory(MPI_Comm comm, const std::string& path);

/// Rank 0 writes `text` to `path` through a temporary file and a rename, so readers only ever
/// see a complete file. Collective (every rank learns whether it worked).
PetscErrorCode write_text_atomically(MPI_Comm comm, const std::string& path,
                                     const std::string& text);

}  // namespace sf
