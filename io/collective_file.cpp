// The all-or-nothing collective HDF5 file (the protocol is in collective_file.hpp).
#include "collective_file.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>

#include "hdf5_util.hpp"

namespace sf {

namespace {

/// Runs `act` on rank 0 alone; it returns "" when it worked, otherwise why not, which *reason
/// then holds on rank 0. *all_ok tells every rank whether it worked. Collective.
template <typename Act>
PetscErrorCode on_rank_zero(MPI_Comm comm, std::string* reason, bool* all_ok, Act&& act) {
  PetscFunctionBeginUser;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) *reason = act();
  PetscCall(agree(comm, reason->empty(), all_ok));
  PetscFunctionReturn(0);
}


/// Refuses, on every rank, to start a file of about `bytes` bytes at `path` when its file system
/// has less space free. HDF5 1.10 cannot recover from a file whose final flush fails (a later
/// close of any file crashes inside H5F__close_cb), so a write that would fill the disk must not
/// begin: this check turns the common case, a full disk, into a clean error that names the file
/// and leaves every earlier file as it was.
PetscErrorCode check_space(MPI_Comm comm, const std::string& path, double bytes,
                           const char* what) {
  PetscFunctionBeginUser;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  double free_bytes = HUGE_VAL;
  if (rank == 0) {
    struct statvfs info;
    const std::string directory = path.substr(0, path.find_last_of('/') + 1);
    if (statvfs(directory.empty() ? "." : directory.c_str(), &info) == 0)
      free_bytes = static_cast<double>(info.f_bavail) * static_cast<double>(info.f_frsize);
  }
  PetscCallMPI(MPI_Bcast(&free_bytes, 1, MPI_DOUBLE, 0, comm));
  PetscCheck(free_bytes >= bytes, comm, PETSC_ERR_FILE_WRITE,
             "cannot write %s '%s': not enough space on its file system (needs about %.1f MB, "
             "%.1f MB free); earlier files are untouched",
             what, path.c_str(), bytes / 1e6, free_bytes / 1e6);
  PetscFunctionReturn(0);
}

/// Creates `temporary` on every rank through the MPI-IO driver; if any rank could not, every
/// rank returns the same error naming the file. The caller owns *file (an H5Fclose-able id).
/// Collective.
PetscErrorCode create_collective(MPI_Comm comm, const std::string& temporary, const char* what,
                                 hid_t* file) {
  PetscFunctionBeginUser;
  // Rank 0 creates the file with plain POSIX first: when that fails, errno says why ("Permission
  // denied", "Read-only file system"), where MPI-IO would only report "MPI_ERR_ACCESS: invalid
  // access mode" or "MPI_ERR_OTHER". H5Fcreate then truncates it.
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  std::string reason;
  if (rank == 0) {
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) reason = std::strerror(errno);
    else ::close(fd);
  }
  bool created = false;
  PetscCall(agree(comm, reason.empty(), &created));
  H5Id access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  const bool ok = created && access.valid() && H5Pset_fapl_mpio(access, comm, MPI_INFO_NULL) >= 0;
  *file = ok ? H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access) : -1;
  std::string problem = *file >= 0 ? "" : !reason.empty() ? reason : hdf5_error_message();
  // MPI-IO says "MPI_ERR_IO: input/output error" for a file that went away meanwhile.
  if (*file < 0 && reason.empty() && ::access(temporary.c_str(), F_OK) != 0)
    problem = std::strerror(errno);
  PetscCall(agree_on_problem(comm, &problem));
  if (!problem.empty() && *file >= 0) {
    H5Fclose(*file);
    *file = -1;
  }
  // Only a file this call made is removed; one it could not open is not ours.
  if (!problem.empty() && rank == 0 && reason.empty()) std::remove(temporary.c_str());
  PetscCheck(problem.empty(), comm, PETSC_ERR_FILE_OPEN, "cannot create %s '%s': %s", what,
             temporary.c_str(), problem.c_str());
  PetscFunctionReturn(0);
}

}  // namespace

CollectiveFile::CollectiveFile(MPI_Comm comm, std::string path, const char* what)
    : comm_(comm), path_(std::move(path)), temporary_(path_ + ".tmp"), what_(what) {}

CollectiveFile::~CollectiveFile() {
  if (transfer_ >= 0) (void)H5Pclose(transfer_);
  if (file_ >= 0) (void)H5Fclose(file_);
}

PetscErrorCode CollectiveFile::create(double bytes) {
  PetscFunctionBeginUser;
  PetscCall(check_space(comm_, path_, bytes, what_));
  PetscCall(create_collective(comm_, temporary_, what_, &file_));
  transfer_ = collective_transfer();
  if (transfer_ < 0) fail("collective transfer list: " + hdf5_error_message());
  PetscFunctionReturn(0);
}

void CollectiveFile::fail(const std::string& reason) {
  if (ok_) error_ = reason;
  ok_ = false;
}

void CollectiveFile::record_close(bool closed) {
  if (!closed) fail(hdf5_error_message());
}

PetscErrorCode CollectiveFile::commit() {
  PetscFunctionBeginUser;
  const hid_t file = file_;
  file_ = -1;
  record_close(file < 0 || H5Fclose(file) >= 0);
  bool all_ok = false;
  PetscCall(agree(comm_, ok_, &all_ok));
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm_, &rank));
  if (all_ok && rank == 0 && std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    ok_ = false;
    error_ = std::string("rename from ") + temporary_ + ": " + std::strerror(errno);
  }
  if (all_ok) PetscCall(agree(comm_, ok_, &all_ok));
  if (!all_ok && rank == 0) std::remove(temporary_.c_str());
  PetscCheck(all_ok, comm_, PETSC_ERR_FILE_WRITE,
             "cannot write %s '%s': %s (earlier files are untouched)", what_, path_.c_str(),
             error_.empty() ? "failed on another rank" : error_.c_str());
  PetscFunctionReturn(0);
}

void choose_mpi_io() {
  // "^ompio": any ROMIO Open MPI carries (romio321 in 4.1, romio341 in 5.0).
  setenv("OMPI_MCA_io", "^ompio", 0);
}

PetscErrorCode make_directory(MPI_Comm comm, const std::string& path) {
  PetscFunctionBeginUser;
  std::string reason;
  bool all_ok = false;
  PetscCall(on_rank_zero(comm, &reason, &all_ok, [&]() -> std::string {
    // Made again if it is removed between its creation and the check (nothing of the run is in
    // it yet); a path that stays something else is an error.
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::error_code code;
      std::filesystem::create_directories(path, code);
      if (code) return code.message();
      if (std::filesystem::is_directory(path, code)) return "";
      if (std::filesystem::exists(path, code)) return "exists and is not a directory";
    }
    return "it was removed as soon as it was made, three times";
  }));
  PetscCheck(all_ok, comm, PETSC_ERR_FILE_OPEN, "cannot create output directory '%s'%s%s",
             path.c_str(), reason.empty() ? "" : ": ", reason.c_str());
  PetscFunctionReturn(0);
}

PetscErrorCode write_text_atomically(MPI_Comm comm, const std::string& path,
                                     const std::string& text) {
  PetscFunctionBeginUser;
  std::string reason;
  bool all_ok = false;
  PetscCall(on_rank_zero(comm, &reason, &all_ok, [&]() -> std::string {
    const std::string temporary = path + ".tmp";
    bool ok = true;
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << text;
      out.flush();
      ok = static_cast<bool>(out);
    }
    if (ok && std::rename(temporary.c_str(), path.c_str()) == 0) return "";
    const std::string why = std::strerror(errno);
    std::remove(temporary.c_str());
    return why;
  }));
  PetscCheck(all_ok, comm, PETSC_ERR_FILE_WRITE, "cannot write '%s': %s", path.c_str(),
             reason.c_str());
  PetscFunctionReturn(0);
}

}  // namespace sf
