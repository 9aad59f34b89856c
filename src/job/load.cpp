// Reading a job: rank 0 reads the file (a regular file of bounded size), every rank parses the
// same text and so reaches the same verdict; a weak-scaling job becomes the grid for the rank
// count; the memory the grid will take is checked against the machine's (memory_check.cpp).
#include "parser.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

namespace sf::job_detail {
namespace {

/// Why a file system entry of type `mode`, not a regular file, is refused as a job file.
std::string not_regular_file(mode_t mode) {
  const char* kind = S_ISDIR(mode)    ? "a directory"
                     : S_ISFIFO(mode) ? "a FIFO"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : nullptr;
  if (kind == nullptr) return "it is not a regular file";
  return std::string("it is ") + kind + ", not a regular file";
}

/// Reads a job file of at most kMaxJobFileBytes. On failure returns false and puts the reason in
/// `error`. Only a regular file is read: a FIFO can block forever, a device such as /dev/zero
/// never ends, and a directory has no text. The size is checked before reading, and again while
/// reading (at most one byte beyond the limit is read), so a file that grows meanwhile is caught.
bool read_file(const std::string& path, std::string& text, std::string& error) {
  const std::string limit = "the " + std::to_string(kMaxJobFileBytes) + " bytes (1 MiB) a job " +
                            "file may have";
  // O_NONBLOCK, because opening a FIFO for reading waits for a writer, perhaps forever; it has no
  // effect on reading a regular file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    error = std::strerror(errno);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = not_regular_file(info.st_mode);
    return false;
  }
  if (info.st_size > kMaxJobFileBytes) {
    error = "it is " + std::to_string(info.st_size) + " bytes, more than " + limit;
    return false;
  }
  text.clear();
  char buffer[1 << 16];
  const auto most = static_cast<std::size_t>(kMaxJobFileBytes);
  while (true) {
    const std::size_t wanted = std::min(sizeof buffer, most + 1 - text.size());
    const ssize_t count = ::read(fd, buffer, wanted);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      error = std::strerror(errno);
      return false;
    }
    if (count == 0) return true;
    text.append(buffer, static_cast<std::size_t>(count));
    if (text.size() > most) {
      error = "it grew to more than " + limit + " while it was read";
      return false;
    }
  }
}

}  // namespace
}  // namespace sf::job_detail

namespace sf {

// The public entry points use the parser's vocabulary throughout.
using namespace job_detail;

JobConfig parse_job(const std::string& text, const std::string& source,
                    const std::vector<JobOverride>& overrides, const std::string& relative_to) {
  return JobParser(source, overrides, relative_to).parse(text);
}

Steered parse_steering(const std::string& text, const std::string& source, const JobConfig& job) {
  return JobParser(source, {}).parse_steering(text, job);
}

void resolve_ranks(JobConfig& job, int ranks) {
  GridSection& grid = job.grid;
  if (!grid.cells_per_rank) return;
  // MPI's own balanced factorisation; every rank computes the same one.
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(ranks, grid.dim, dims);
  long long unknowns = grid.dim;
  std::string block, layout;
  for (int a = 0; a < grid.dim; ++a) {
    block += (a ? " x " : "") + std::to_string(grid.cells[a]);
    layout += (a ? " x " : "") + std::to_string(dims[a]);
    grid.cells[a] *= dims[a];
    grid.processes[a] = dims[a];
    unknowns *= grid.cells[a];
  }
  if (unknowns > kMaxIndex) {
    JobParser(job.source, job.overrides)
        .fail(grid.cells_line, "grid.cells_per_rank",
              block + " cells per rank on " + std::to_string(ranks) + " ranks (" + layout +
                  ") is " + std::to_string(unknowns) +
                  " unknowns, but PETSc here uses 32-bit indices and allows at most " +
                  std::to_string(kMaxIndex));
  }
  for (int a = 0; a < grid.dim; ++a) {
    const std::string problem = cell_size_problem(grid, a);
    if (!problem.empty()) {
      JobParser(job.source, job.overrides)
          .fail(grid.origin_line, "grid.origin[" + std::to_string(a) + "]",
                "on " + std::to_string(ranks) + " ranks, " + problem);
    }
  }
}

JobConfig load_job(MPI_Comm comm, const std::string& path,
                   const std::vector<JobOverride>& overrides) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);

  // Only rank 0 touches the file system, so a thousand ranks do not hammer a shared file
  // system, and a failure there is known everywhere through the broadcast length (-1), so no
  // rank is left waiting in a collective that the others skipped.
  std::string text;
  std::string error;
  long long length = -1;
  if (rank == 0 && read_file(path, text, error)) length = static_cast<long long>(text.size());
  MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm);

  if (length < 0) {
    // The reason is broadcast too, because errno only means something on rank 0.
    int error_length = static_cast<int>(error.size());
    MPI_Bcast(&error_length, 1, MPI_INT, 0, comm);
    error.resize(static_cast<std::size_t>(error_length));
    MPI_Bcast(error.data(), error_length, MPI_CHAR, 0, comm);
    throw JobError("cannot read job file '" + path + "': " + error);
  }

  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, comm);
  // Every rank parses the same text, so every rank throws the same JobError or none does, and
  // the memory check below, which is collective, is reached by all ranks or by none.
  const JobParser parser(path, overrides);
  JobConfig job = parser.parse(text);
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  resolve_ranks(job, ranks);
  load_meshes(comm, parser, job);
  check_memory(comm, parser, job, job.grid.cells_line);
  return job;
}

}  // namespace sf
