// Reading a job: rank 0 reads the file (a regular file of bounded size), every rank parses the
// same text and so reaches the same verdict; the memory the grid will take is checked against the
// machine's; a weak-scaling job becomes the grid for the rank count.
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

// ---------------------------------------------------------------------------------------------
// Memory estimate (load_job). A grid far too large for the machine would otherwise fail deep in
// PETSc's allocation on one rank, or drive the node into swap or the OOM killer, long after the
// job was accepted; it is cheaper to refuse it up front with the numbers.

/// Bytes a run needs per grid cell, an estimate from measurement: the 128^3 plume_3d job peaked
/// at 642 bytes of resident memory per cell, about 65 of them PETSc/MPI/HDF5 overhead; 700 leaves
/// some headroom for other jobs' settings (more scalars, BFECC). Most of the storage is held per
/// unknown (a velocity component or the pressure, with its halo, work vectors and matrix row), so
/// a 2D job, with 3 unknowns per cell instead of 4, is scaled by 3/4: 525 bytes per cell.
constexpr double kBytesPerCell3D = 700.0;

double bytes_per_cell(int dim) { return kBytesPerCell3D * (dim + 1) / 4.0; }

/// Test hook: when set to a number of bytes, it replaces MemAvailable (documented in
/// jobs/README.md).
constexpr const char* kMemoryHook = "STABLEFLUIDS_MEMORY_AVAILABLE_BYTES";

/// Bytes this node can still hand out without swapping (MemAvailable), or < 0 when unknown.
double available_bytes() {
  if (const char* hook = std::getenv(kMemoryHook); hook != nullptr && *hook != '\0') {
    double value = 0.0;
    if (parse_double(hook, value) == NumberStatus::Ok && value >= 0.0) return value;
  }
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(std::strlen("MemAvailable:")));
      double kib = 0.0;
      if (fields >> kib && kib >= 0.0) return kib * 1024.0;  // the kernel writes "kB": KiB
    }
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) return static_cast<double>(pages) * page_size;
  return -1.0;
}

std::string format_gigabytes(double bytes) {
  std::ostringstream out;
  out.precision(3);
  out << bytes / 1e9 << " GB";
  return out.str();
}

/// Collective on `comm`: throws the same JobError on every rank when the ranks sharing some node
/// would need more memory than that node has available.
void check_memory(MPI_Comm comm, const JobParser& parser, const JobConfig& job, int cells_line) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  long long cells = 1;
  for (int a = 0; a < job.grid.dim; ++a) cells *= job.grid.cells[a];  // < 2^31 (parse_grid)
  const double per_cell = bytes_per_cell(job.grid.dim);
  const double total = static_cast<double>(cells) * per_cell;
  const double per_rank = total / size;

  // The ranks that share this node's memory, and the least any of them sees available.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size = 1;
  MPI_Comm_size(node, &node_size);
  const double local_available = available_bytes();
  double node_available = 0.0;
  MPI_Allreduce(&local_available, &node_available, 1, MPI_DOUBLE, MPI_MIN, node);
  MPI_Comm_free(&node);

  const bool short_of_memory = node_available >= 0.0 && per_rank * node_size > node_available;
  // Every rank learns the same verdict and the same node to name: the lowest-ranked one among
  // those with the least memory available, of the nodes that are short.
  struct {
    double available;
    int rank;
  } mine{short_of_memory ? node_available : std::numeric_limits<double>::max(), rank}, worst{};
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
  if (worst.available == std::numeric_limits<double>::max()) return;

  char host[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int host_length = 0;
  MPI_Get_processor_name(host, &host_length);
  int worst_node_size = node_size;
  MPI_Bcast(host, MPI_MAX_PROCESSOR_NAME + 1, MPI_CHAR, worst.rank, comm);
  MPI_Bcast(&worst_node_size, 1, MPI_INT, worst.rank, comm);
  host[MPI_MAX_PROCESSOR_NAME] = '\0';

  std::string message = "the grid needs about " + format_gigabytes(total) + " (" +
                        std::to_string(cells) + " cells at ~" +
                        std::to_string(static_cast<long>(per_cell)) + " bytes per cell)";
  if (worst_node_size < size) {
    message += ", about " + format_gigabytes(per_rank * worst_node_size) + " of it on the " +
               std::to_string(worst_node_size) + " ranks of node " + host + ",";
  }
  message += " but the ranks on node " + std::string(host) + " have only " +
             format_gigabytes(worst.available) + " available; use more nodes or a smaller grid";
  parser.fail(cells_line, "grid.cells", message);
}

}  // namespace
}  // namespace sf::job_detail

namespace sf {

// The public entry points use the parser's vocabulary throughout.
using namespace job_detail;

JobConfig parse_job(const std::string& text, const std::string& source,
                    const std::vector<JobOverride>& overrides) {
  return JobParser(source, overrides).parse(text);
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
  check_memory(comm, parser, job, job.grid.cells_line);
  return job;
}

}  // namespace sf
