#include "steering.hpp"

#include <sys/stat.h>

#include <exception>
#include <fstream>
#include <iterator>

namespace sf {

namespace {

// A steering file is a few lines; a larger one is refused unread (it is not what was meant).
constexpr std::size_t kMaxSteeringBytes = 1 << 20;

}  // namespace

void Steering::setup(const JobConfig& job) {
  job_ = &job;
  path_ = job.steering.file;
  every_ = job.steering.every_steps;
  steered_ = Steered{};
  steered_.sources.resize(job.scalars.size());
  sources_ = job.scalars;
  for (ScalarConfig& scalar : sources_) scalar.sources.clear();
}

PetscErrorCode Steering::poll(MPI_Comm comm, PetscInt step, bool* changed) {
  PetscFunctionBeginUser;
  *changed = false;
  // The first poll reads the file whatever the step (a restart may resume between multiples).
  if (path_.empty() || (polled_ && step % every_ != 0)) PetscFunctionReturn(0);
  polled_ = true;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  // Rank 0 reads; -1: no file (or unreadable), -2: not a regular file of at most
  // kMaxSteeringBytes (a FIFO would block the read, a huge file fill the memory), else the
  // text's length. Nothing here throws past the broadcast, which every rank waits in.
  std::string text;
  long long length = -1;
  if (rank == 0) {
    struct stat info {};
    if (::stat(path_.c_str(), &info) == 0) {
      if (!S_ISREG(info.st_mode) || static_cast<std::size_t>(info.st_size) > kMaxSteeringBytes) {
        length = -2;
      } else {
        try {
          std::ifstream in(path_, std::ios::binary);
          text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
          length = text.size() <= kMaxSteeringBytes ? static_cast<long long>(text.size()) : -2;
        } catch (const std::exception&) {
          length = -1;
        }
      }
    }
  }
  PetscCallMPI(MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm));
  if (length == -2) {
    // Not something to read as a steering file: said once, and nothing changes.
    if (!oversize_)
      PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                             "stablefluids: warning: steering file '%s' is not a regular file of "
                             "at most %zu bytes; keeping what was steered before\n",
                             path_.c_str(), kMaxSteeringBytes));
    oversize_ = true;
    PetscFunctionReturn(0);
  }
  oversize_ = false;
  const bool exists = length >= 0;
  if (exists) {
    text.resize(static_cast<size_t>(length));
    PetscCallMPI(MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, comm));
  }
  if (exists == seen_ && text == text_) PetscFunctionReturn(0);
  seen_ = exists;
  text_ = text;
  // Every rank parses the same text: the same verdict everywhere, no communication.
  Steered next;
  next.sources.resize(job_->scalars.size());
  if (exists) {
    try {
      next = parse_steering(text, path_, *job_);
    } catch (const JobError& error) {
      PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                             "stablefluids: warning: steering file: %s; keeping what was steered "
                             "before\n",
                             error.what()));
      PetscFunctionReturn(0);
    }
  }
  steered_ = next;
  for (size_t s = 0; s < sources_.size(); ++s) sources_[s].sources = steered_.sources[s];
  *changed = true;
  PetscCall(PetscPrintf(comm,
                        "steering: %s '%s' after step %" PetscInt_FMT ": %zu force regions, "
                        "%zu sources\n",
                        exists ? "read" : "no file", path_.c_str(), step, steered_.forces.size(),
                        steered_.count() - steered_.forces.size()));
  PetscFunctionReturn(0);
}

}  // namespace sf
