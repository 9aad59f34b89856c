// The output lock and the check for an earlier run's files (see run_lock.hpp).
#include "run_lock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "error_codes.hpp"

namespace sf {

namespace {

namespace fs = std::filesystem;

std::string this_host() {
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0) return "unknown";
  return host;
}

/// "host=<h> pid=<p> started=<local time> job=<file>", one line.
std::string holder_line(const std::string& job_source) {
  char started[64] = "";
  const std::time_t now = std::time(nullptr);
  std::strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  return "host=" + this_host() + " pid=" + std::to_string(getpid()) + " started=" + started +
         " job=" + job_source + "\n";
}

std::string read_all(int fd) {
  std::string text;
  char buffer[512];
  if (lseek(fd, 0, SEEK_SET) < 0) return text;
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0 && text.size() < 4096;)
    text.append(buffer, static_cast<size_t>(n));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

/// The value of `key=` in a holder line, or "".
std::string field(const std::string& line, const std::string& key) {
  const size_t at = line.find(key + "=");
  if (at == std::string::npos) return "";
  const size_t start = at + key.size() + 1;
  return line.substr(start, line.find(' ', start) - start);
}

bool write_holder(int fd, const std::string& line) {
  return ftruncate(fd, 0) == 0 && pwrite(fd, line.data(), line.size(), 0) ==
                                      static_cast<ssize_t>(line.size());
}

/// What rank 0 found when it tried to lock one file.
struct Attempt {
  int fd = -1;           // >= 0: locked
  std::string refusal;   // why not, when fd < 0
  bool busy = false;     // refused because another run holds it (else: the file system said no)
  std::string note;      // e.g. a stale lock taken over
};

/// The fallback for file systems without record locks: exclusive creation, and a lock file
/// whose PID is gone from this host is stale.
Attempt take_exclusively(const std::string& path, const std::string& line) {
  Attempt result;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      if (!write_holder(fd, line)) {
        result.refusal = "cannot write lock file '" + path + "': " + std::strerror(errno);
        close(fd);
        unlink(path.c_str());
        return result;
      }
      result.fd = fd;
      return result;
    }
    if (errno != EEXIST) {
      result.refusal = "cannot create lock file '" + path + "': " + std::strerror(errno);
      return result;
    }
    const int existing = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const std::string holder = existing >= 0 ? read_all(existing) : "";
    if (existing >= 0) close(existing);
    const std::string pid = field(holder, "pid");
    const bool here = field(holder, "host") == this_host();
    const bool gone = here && !pid.empty() && kill(std::atoi(pid.c_str()), 0) != 0 && errno == ESRCH;
    if (!gone) {
      result.busy = true;
      result.refusal = "held by " + (holder.empty() ? std::string("an unknown run") : holder) +
                       (here ? "" : " (this file system has no record locks, so a run on "
                                    "another host cannot be checked: remove the file if that "
                                    "run has ended)");
      return result;
    }
    unlink(path.c_str());
    result.note = "removed the stale lock of a run that ended (" + holder + ")";
  }
  result.busy = true;
  result.refusal = "could not take lock file '" + path + "'";
  return result;
}

Attempt take(const std::string& path, const std::string& line) {
  Attempt result;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      result.refusal = "cannot create lock file '" + path + "': " + std::strerror(errno);
      return result;
    }
    struct flock lock = {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &lock) != 0) {
      const int error = errno;
      const std::string holder = read_all(fd);
      close(fd);
      if (error == ENOLCK || error == EINVAL || error == ENOSYS)
        return take_exclusively(path, line);
      result.busy = true;
      result.refusal = "held by " + (holder.empty() ? std::string("a run that is starting") : holder);
      return result;
    }
    // The run that held the file removes it when it ends; if that happened between our open
    // and our lock, we hold a file nobody else will look at. Only the file at `path` counts.
    struct stat locked, current;
    if (fstat(fd, &locked) != 0 || stat(path.c_str(), &current) != 0 ||
        locked.st_ino != current.st_ino || locked.st_dev != current.st_dev) {
      close(fd);
      continue;
    }
    const std::string previous = read_all(fd);
    if (!previous.empty())
      result.note = "took over the stale lock of a run that ended without releasing it (" +
                    previous + ")";
    if (!write_holder(fd, line)) {
      result.refusal = "cannot write lock file '" + path + "': " + std::strerror(errno);
      close(fd);
      return result;
    }
    result.fd = fd;
    return result;
  }
  result.busy = true;
  result.refusal = "lock file '" + path + "' keeps being replaced by another run";
  return result;
}

/// Rank 0's `text` on every rank.
PetscErrorCode broadcast(MPI_Comm comm, std::string* text) {
  PetscFunctionBeginUser;
  int length = static_cast<int>(text->size());
  PetscCallMPI(MPI_Bcast(&length, 1, MPI_INT, 0, comm));
  text->resize(static_cast<size_t>(length));
  PetscCallMPI(MPI_Bcast(text->data(), length, MPI_CHAR, 0, comm));
  PetscFunctionReturn(0);
}

/// The distinct directories of `directories` (the checkpoint directory is often the output one).
std::vector<std::string> distinct(const std::vector<std::string>& directories) {
  std::vector<std::string> result;
  std::vector<fs::path> seen;
  for (const std::string& d : directories) {
    std::error_code code;
    fs::path canonical = fs::weakly_canonical(d, code);
    if (code) canonical = d;
    if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) continue;
    seen.push_back(canonical);
    result.push_back(d);
  }
  return result;
}

bool all_digits(const std::string& text, size_t from, size_t count) {
  if (text.size() < from + count) return false;
  return std::all_of(text.begin() + static_cast<long>(from),
                     text.begin() + static_cast<long>(from + count), ::isdigit);
}

/// Whether `file` (a name in a directory) is one the run called `name` writes itself.
bool written_by_run(const std::string& file, const std::string& name) {
  if (file.compare(0, name.size(), name) != 0) return false;
  const std::string rest = file.substr(name.size());
  if (rest == ".xmf" || rest == ".xmf.tmp" || rest == "_steps.csv" || rest == "_timings.json" ||
      rest == "_timings.json.tmp")
    return true;
  // _NNNNNN.h5 frames and _checkpoint_NNNNNNNN.h5 checkpoints, with or without .tmp
  auto numbered = [&](const std::string& prefix, size_t digits) {
    if (rest.compare(0, prefix.size(), prefix) != 0 || !all_digits(rest, prefix.size(), digits))
      return false;
    const std::string tail = rest.substr(prefix.size() + digits);
    return tail == ".h5" || tail == ".h5.tmp";
  };
  if (numbered("_", 6) || numbered("_checkpoint_", 8)) return true;
  // failure dumps: _failed_step<N>_000000.h5 and their index _failed_step<N>.xmf
  return rest.compare(0, 12, "_failed_step") == 0 && all_digits(rest, 12, 1) &&
         (rest.size() > 4 && (rest.compare(rest.size() - 3, 3, ".h5") == 0 ||
                              rest.compare(rest.size() - 4, 4, ".xmf") == 0));
}

/// Whether `path` still names the file open on `fd`.
enum class Standing { Same, Removed, Replaced, Unknown };

/// One fstat and one stat. *reason gets the system's word when the answer is Unknown.
Standing standing(int fd, const std::string& path, std::string* reason = nullptr) {
  struct stat open_file, at_path;
  if (fstat(fd, &open_file) != 0) {
    if (reason) *reason = std::strerror(errno);
    return Standing::Unknown;
  }
  if (stat(path.c_str(), &at_path) != 0) {
    // ESTALE: an NFS client's answer for a name in a directory removed by another host.
    if (errno == ENOENT || errno == ENOTDIR || errno == ESTALE) return Standing::Removed;
    if (reason) *reason = std::strerror(errno);
    return Standing::Unknown;
  }
  return open_file.st_dev == at_path.st_dev && open_file.st_ino == at_path.st_ino
             ? Standing::Same
             : Standing::Replaced;
}

/// The process that holds a record lock on `path`, as "pid <n>", or "" when none does or there
/// is no such file. A running run holds one on its steps CSV (OutputLock::watch).
std::string lock_holder(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "";
  struct flock probe = {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  const bool held = fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
  close(fd);
  return held ? "pid " + std::to_string(probe.l_pid) : "";
}

/// The steps CSV of the run named `name` in `directory` (run_log.hpp writes it).
std::string steps_csv(const std::string& directory, const std::string& name) {
  return directory + "/" + name + "_steps.csv";
}

}  // namespace

OutputLock::~OutputLock() { release(); }

void OutputLock::release() {
  for (Held& held : held_) {
    if (held.fd < 0) continue;
    // Removed while still locked, then closed: a run that opened the old file in between sees
    // that it no longer is the file at the path, and starts over. A lock file that is no longer
    // the one this run locked belongs to someone else (check() stopped the run): it stays.
    if (standing(held.fd, held.path) == Standing::Same) unlink(held.path.c_str());
    close(held.fd);
    held.fd = -1;
  }
  held_.clear();
  watched_.clear();
}

void OutputLock::watch(const std::string& path, int fd) {
  if (fd < 0) return;
  // Without record locks on this file system (ENOLCK) the file is still checked at every step
  // boundary; only a second run's early refusal is lost.
  struct flock lock = {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  (void)fcntl(fd, F_SETLK, &lock);
  watched_.push_back({path, fd});
}

PetscErrorCode OutputLock::check(MPI_Comm comm, const std::vector<std::string>& written) {
  PetscFunctionBeginUser;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  std::string problem;
  if (rank == 0) {
    constexpr const char* kStops = "; the run stops here and writes nothing more";
    // What happened to the lock files, which says the most (another run took the directory).
    const auto lock_problem = [&]() -> std::string {
      std::string found;
      for (const Held& held : held_) {
        std::string reason;
        switch (standing(held.fd, held.path, &reason)) {
          case Standing::Same: continue;
          case Standing::Removed:
            found = "lock file '" + held.path + "' was removed while this run held it, so " +
                    "another run of job '" + name_ + "' could take the directory and delete " +
                    "this run's files" + kStops + " (continue it with --restart latest)";
            break;
          case Standing::Replaced: {
            const int other = open(held.path.c_str(), O_RDONLY | O_CLOEXEC);
            const std::string holder = other >= 0 ? read_all(other) : "";
            if (other >= 0) close(other);
            found = "lock file '" + held.path + "' was replaced while this run held it (" +
                    (holder.empty() ? std::string("by an unknown run") : "now " + holder) +
                    "): another run may have taken the directory" + kStops;
            break;
          }
          case Standing::Unknown:
            found = "cannot check lock file '" + held.path + "': " + reason + kStops;
            break;
        }
        break;
      }
      return found;
    };
    problem = lock_problem();
    for (const Held& file : watched_) {
      if (!problem.empty()) break;
      std::string reason;
      switch (standing(file.fd, file.path, &reason)) {
        case Standing::Same: continue;
        case Standing::Removed:
          problem = "'" + file.path + "' was removed while the run was writing it" + kStops;
          break;
        case Standing::Replaced:
          problem = "'" + file.path + "' was replaced by another file while the run was " +
                    "writing it" + kStops;
          break;
        case Standing::Unknown:
          problem = "cannot check '" + file.path + "': " + reason + kStops;
          break;
      }
    }
    // A run stopped between the two looks (SIGSTOP, a descheduled process) may find its steps
    // CSV replaced by the run that took its lock file meanwhile: that run is the cause to name.
    if (!problem.empty())
      if (std::string taken = lock_problem(); !taken.empty()) problem = std::move(taken);
    if (problem.empty()) {
      std::vector<std::string> missing;
      struct stat info;
      for (const std::string& path : written)
        if (stat(path.c_str(), &info) != 0) missing.push_back(path);
      if (!missing.empty())
        problem = "'" + missing.front() + "'" +
                  (missing.size() > 1 ? " and " + std::to_string(missing.size() - 1) +
                                            " more of this run's files were"
                                      : " was") +
                  " removed while the run went on; what it wrote is incomplete";
    }
  }
  // One broadcast at every step boundary; the text follows only when something is wrong.
  int length = static_cast<int>(problem.size());
  PetscCallMPI(MPI_Bcast(&length, 1, MPI_INT, 0, comm));
  if (length > 0) PetscCall(broadcast(comm, &problem));
  PetscCheck(problem.empty(), comm, PETSC_ERR_FILE_WRITE, "%s", problem.c_str());
  PetscFunctionReturn(0);
}

PetscErrorCode OutputLock::acquire(MPI_Comm comm, const std::vector<std::string>& directories,
                                   const std::string& name, const std::string& job_source) {
  PetscFunctionBeginUser;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  std::string refusal, notes;
  int busy = 0;
  if (rank == 0) {
    const std::string line = holder_line(job_source);
    for (const std::string& directory : distinct(directories)) {
      const std::string path = directory + "/" + name + ".lock";
      Attempt attempt = take(path, line);
      if (attempt.fd < 0 && attempt.busy) {
        busy = 1;
        refusal = "directory '" + directory + "' is in use by another run of job '" + name +
                  "': lock file " + path + " " + attempt.refusal +
                  "; wait for that run to end, or give this one another name or output "
                  "directory";
        break;
      }
      if (attempt.fd < 0) {
        refusal = attempt.refusal;
        break;
      }
      held_.push_back({path, attempt.fd});
      if (!attempt.note.empty()) notes += "stablefluids: " + path + ": " + attempt.note + "\n";
    }
    // The lock file may have been removed under a run that is still going (a user cleaning
    // up): that run still holds its steps CSV, and its files are not ours to mix with or
    // remove.
    for (const std::string& directory : distinct(directories)) {
      if (!refusal.empty()) break;
      const std::string csv = steps_csv(directory, name);
      const std::string holder = lock_holder(csv);
      if (holder.empty()) continue;
      busy = 1;
      refusal = "directory '" + directory + "' is in use by another run of job '" + name +
                "': its lock file " + directory + "/" + name + ".lock was missing or not held, " +
                "but that run (" + holder + ") still writes " + csv + "; wait for that run to " +
                "end, or give this one another name or output directory";
    }
    if (!refusal.empty()) release();
  }
  name_ = name;
  PetscCall(broadcast(comm, &refusal));
  PetscCallMPI(MPI_Bcast(&busy, 1, MPI_INT, 0, comm));
  // Another run holding the directory is the job's problem (status 2); a file system that will
  // not let us create the file is the run's (status 1), as for any other write.
  PetscCheck(refusal.empty(), comm, busy ? kErrorBadJob : PETSC_ERR_FILE_OPEN, "%s",
             refusal.c_str());
  if (!notes.empty()) PetscCall(PetscPrintf(comm, "%s", notes.c_str()));
  PetscFunctionReturn(0);
}

PetscErrorCode clear_earlier_output(MPI_Comm comm, const std::vector<std::string>& directories,
                                    const std::string& name, bool overwrite) {
  PetscFunctionBeginUser;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  std::string refusal, cannot_remove, report;
  if (rank == 0) {
    std::vector<fs::path> found;
    for (const std::string& directory : distinct(directories)) {
      std::error_code code;
      for (const auto& entry : fs::directory_iterator(directory, code))
        if (written_by_run(entry.path().filename().string(), name)) found.push_back(entry.path());
    }
    std::sort(found.begin(), found.end());
    if (!found.empty() && !overwrite) {
      std::string listed;
      for (size_t n = 0; n < found.size() && n < 4; ++n)
        listed += (n ? ", " : "") + found[n].string();
      if (found.size() > 4) listed += " and " + std::to_string(found.size() - 4) + " more";
      refusal = "the output of an earlier run named '" + name + "' is in the way (" + listed +
                "); continue that run with --restart latest, or set output.overwrite: true to "
                "replace it, or give this run another name or output.directory";
    } else if (!found.empty()) {
      size_t removed = 0;
      std::string failed;
      for (const fs::path& path : found) {
        std::error_code code;
        if (fs::remove(path, code)) ++removed;
        else if (code && failed.empty()) failed = path.string() + ": " + code.message();
      }
      if (!failed.empty())
        cannot_remove = "output.overwrite: cannot remove the earlier run's file " + failed;
      else
        report = "stablefluids: output.overwrite: removed " + std::to_string(removed) +
                 " files of an earlier run named '" + name + "'\n";
    }
  }
  PetscCall(broadcast(comm, &refusal));
  PetscCall(broadcast(comm, &cannot_remove));
  PetscCheck(refusal.empty(), comm, kErrorBadJob, "%s", refusal.c_str());
  PetscCheck(cannot_remove.empty(), comm, PETSC_ERR_FILE_WRITE, "%s", cannot_remove.c_str());
  if (!report.empty()) PetscCall(PetscPrintf(comm, "%s", report.c_str()));
  PetscFunctionReturn(0);
}

}  // namespace sf
