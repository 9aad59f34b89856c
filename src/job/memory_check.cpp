// The memory check of load_job. A grid far too large for the machine would otherwise fail deep in
// PETSc's allocation on one rank, or drive the node into swap or the OOM killer, long after the
// job was accepted; it is cheaper to refuse it up front with the numbers, as an error of the
// job's grid.cells line. What the job needs is estimated from measurements of each of its
// features (memory_estimate.hpp): the peak resident memory of its ranks.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "memory_estimate.hpp"
#include "parser.hpp"

namespace sf::job_detail {
namespace {

/// Test hook: when set to a number of bytes, it replaces MemAvailable, so that the tests can
/// check both verdicts on any machine (documented in jobs/README.md, "Memory check").
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

std::string format_megabytes(double bytes) {
  return std::to_string(std::lround(bytes / 1e6)) + " MB";
}

}  // namespace

void check_memory(MPI_Comm comm, const JobParser& parser, const JobConfig& job, int cells_line) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MemoryEstimate estimate = estimate_memory(job);
  const double total = estimate.total(size);

  // The ranks that share this node's memory, and the least any of them sees available.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size = 1;
  MPI_Comm_size(node, &node_size);
  const double local_available = available_bytes();
  double node_available = 0.0;
  MPI_Allreduce(&local_available, &node_available, 1, MPI_DOUBLE, MPI_MIN, node);
  MPI_Comm_free(&node);

  const bool short_of_memory =
      node_available >= 0.0 && estimate.share(node_size, size) > node_available;
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

  std::string message = "the job needs about " + format_gigabytes(total) + " (" +
                        std::to_string(estimate.cells) + " cells at ~" +
                        std::to_string(std::lround(estimate.per_cell())) +
                        " bytes per cell, plus " + format_megabytes(estimate.per_rank()) +
                        " per rank for the program and its libraries" +
                        (job.catalyst.scripts.empty() ? "" : " with ParaView Catalyst") + ")";
  if (worst_node_size < size) {
    message += ", about " + format_gigabytes(estimate.share(worst_node_size, size)) +
               " of it on the " + std::to_string(worst_node_size) + " ranks of node " + host +
               ",";
  }
  message += " but the ranks on node " + std::string(host) + " have only " +
             format_gigabytes(worst.available) + " available; use more nodes or a smaller grid";
  parser.fail(cells_line, "grid.cells", message);
}

}  // namespace sf::job_detail
