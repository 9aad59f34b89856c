// STREAM triad on every rank at once (stream_triad.hpp), printed as one JSON line, with the
// facts that say which machine it ran on. The scaling-study driver (jobs/scaling) runs it under
// the same launcher and rank count as each solver run, to set the measured parallel efficiency
// against what the memory bandwidth allows:
//
//   mpiexec -n 4 build/stream_triad [--elements N] [--repeats R] [--launcher TEXT]
//
// prints (rank 0, one line):
//
//   {"program": "stream_triad", "ranks": 4, "elements": 8388608, "array_bytes": 67108864,
//    "repeats": 10, "seconds": ..., "bytes_per_second_per_rank": ...,
//    "bytes_per_second_total": ..., "host": "...", "hosts": ["..."], "cpu_model": "...",
//    "cores": 2, "cpus": 2, "mpi": "Open MPI v4.1.4", "launcher": "..."}
//
// The host facts are those of rank 0's node, read where the program runs: inside a Slurm job
// that is the compute node, not the login node the study was written on. "cores" counts
// physical cores (distinct physical id/core id pairs in /proc/cpuinfo), "cpus" the hardware
// threads online. --launcher is recorded as given (the driver passes the command it starts the
// ranks with), since the program cannot tell mpiexec from srun reliably itself.
//
// Exit status 0, or 2 with a message for a bad option; an allocation failure aborts the job.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "stream_triad.hpp"

namespace {

// 2^23 doubles = 64 MiB per array, 192 MiB per rank: many times the last-level cache a rank has
// on a full node (a few MiB per core), and more than the whole cache one rank alone may use on
// most servers, so the triad streams from memory. Larger arrays cost start-up time, not
// accuracy: touching the pages is what takes long (2^24 took 8 s on 4 oversubscribed ranks of
// the 2-core development VM, 2^23 4 s). A node with more cache per core complex than ~48 MiB
// wants --elements 16777216 or more (a study's stream_elements).
constexpr std::size_t kDefaultElements = std::size_t{1} << 23;
constexpr int kDefaultRepeats = 10;
constexpr int kHostChars = 256;

/// MPI's status, checked: a failed call is reported with MPI's message and ends every rank.
void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char message[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, message, &length);
  std::fprintf(stderr, "stream_triad: %s failed: %.*s\n", call, length, message);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

struct CpuFacts {
  std::string model = "unknown";
  long cores = 0;  // physical; 0 when /proc/cpuinfo does not say
};

/// The CPU model and physical core count from /proc/cpuinfo (Linux). x86 says "model name";
/// some ARM and POWER kernels say "cpu model", "Processor" or "cpu" instead.
CpuFacts cpu_facts() {
  CpuFacts facts;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, physical = "0";
  std::set<std::pair<std::string, std::string>> cores;
  int processors = 0;
  bool have_core_ids = false;
  for (const char* wanted : {"model name", "cpu model", "Processor", "cpu"}) {
    cpuinfo.clear();
    cpuinfo.seekg(0);
    while (std::getline(cpuinfo, line)) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
      if (key == wanted && facts.model == "unknown" && !value.empty()) facts.model = value;
      if (std::string(wanted) != "model name") continue;  // count the cores on the first pass
      if (key == "processor") ++processors;
      if (key == "physical id") physical = value;
      if (key == "core id") {
        cores.insert({physical, value});
        have_core_ids = true;
      }
    }
    if (facts.model != "unknown") break;
  }
  facts.cores = have_core_ids ? static_cast<long>(cores.size()) : processors;
  return facts;
}

/// The library's own name for itself: the first line of MPI_Get_library_version, up to its
/// first comma ("Open MPI v4.1.4", "MPICH Version: 4.0").
std::string mpi_library() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  check_mpi(MPI_Get_library_version(version, &length), "MPI_Get_library_version");
  std::string text(version, static_cast<std::size_t>(std::max(length, 0)));
  text = text.substr(0, text.find_first_of(",\n"));
  for (char& c : text)
    if (c == '\t') c = ' ';
  return trim(text);
}

bool parse_count(const char* text, long long minimum, long long* value) {
  char* end = nullptr;
  const long long parsed = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || parsed < minimum) return false;
  *value = parsed;
  return true;
}

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: stream_triad [--elements N] [--repeats R] [--launcher TEXT]\n"
               "  STREAM triad a = b + s c on every rank at once; prints one JSON line.\n"
               "  --elements N   doubles per array (default %zu: 3 arrays of %zu MiB per rank)\n"
               "  --repeats R    passes; the fastest counts (default %d)\n"
               "  --launcher T   recorded as the launcher (e.g. 'srun', 'mpiexec')\n",
               kDefaultElements, kDefaultElements * sizeof(double) >> 20, kDefaultRepeats);
}

}  // namespace

int main(int argc, char** argv) {
  check_mpi(MPI_Init(&argc, &argv), "MPI_Init");
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");

  long long elements = static_cast<long long>(kDefaultElements), repeats = kDefaultRepeats;
  std::string launcher;
  // Every rank parses the same arguments, so every rank reaches the same verdict.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string given = arg;
    bool ok = true;
    if (arg == "--help" || arg == "-h") {
      if (rank == 0) usage(stdout);
      check_mpi(MPI_Finalize(), "MPI_Finalize");
      return 0;
    } else if (arg == "--elements" && i + 1 < argc) {
      given += std::string(" ") + argv[i + 1];
      ok = parse_count(argv[++i], 1, &elements);
    } else if (arg == "--repeats" && i + 1 < argc) {
      given += std::string(" ") + argv[i + 1];
      ok = parse_count(argv[++i], 1, &repeats) && repeats <= 1000000;
    } else if (arg == "--launcher" && i + 1 < argc) {
      launcher = argv[++i];
    } else {
      ok = false;
    }
    if (!ok) {
      if (rank == 0) {
        std::fprintf(stderr, "stream_triad: bad or incomplete option '%s'\n", given.c_str());
        usage(stderr);
      }
      check_mpi(MPI_Finalize(), "MPI_Finalize");
      return 2;
    }
  }

  // Every rank's host name, so that a run over several nodes names them all.
  char host[kHostChars] = {};
  if (gethostname(host, kHostChars - 1) != 0) std::snprintf(host, kHostChars, "unknown");
  std::vector<char> hosts(rank == 0 ? static_cast<std::size_t>(size) * kHostChars : 0);
  check_mpi(MPI_Gather(host, kHostChars, MPI_CHAR, hosts.data(), kHostChars, MPI_CHAR, 0, comm),
            "MPI_Gather");

  double per_rank = 0.0;
  try {
    per_rank = sf::bench::stream_triad_per_rank(comm, static_cast<std::size_t>(elements),
                                                static_cast<int>(repeats));
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "stream_triad: rank %d cannot allocate 3 arrays of %lld doubles "
                 "(%.1f MiB); give a smaller --elements\n",
                 rank, elements, 3.0 * 8.0 * static_cast<double>(elements) / (1 << 20));
    MPI_Abort(comm, 1);
  }

  const std::string mpi = mpi_library();
  if (rank == 0) {
    std::set<std::string> names;
    for (int r = 0; r < size; ++r)
      names.insert(std::string(&hosts[static_cast<std::size_t>(r) * kHostChars]));
    std::string host_list;
    for (const std::string& name : names) host_list += (host_list.empty() ? "" : ", ") +
                                                       json_string(name);
    const CpuFacts cpu = cpu_facts();
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const double bytes = 24.0 * static_cast<double>(elements);
    std::ostringstream line;
    line.precision(17);
    line << "{\"program\": \"stream_triad\", \"ranks\": " << size << ", \"elements\": " << elements
         << ", \"array_bytes\": " << elements * 8 << ", \"repeats\": " << repeats
         << ", \"seconds\": " << bytes / per_rank
         << ", \"bytes_per_second_per_rank\": " << per_rank
         << ", \"bytes_per_second_total\": " << per_rank * size
         << ", \"host\": " << json_string(host) << ", \"hosts\": [" << host_list << "]"
         << ", \"cpu_model\": " << json_string(cpu.model)
         << ", \"cores\": " << (cpu.cores > 0 ? cpu.cores : std::max(cpus, 1L))
         << ", \"cpus\": " << std::max(cpus, 1L) << ", \"mpi\": " << json_string(mpi)
         << ", \"launcher\": " << json_string(launcher) << "}\n";
    std::fputs(line.str().c_str(), stdout);
    std::fflush(stdout);
  }
  check_mpi(MPI_Finalize(), "MPI_Finalize");
  return 0;
}
