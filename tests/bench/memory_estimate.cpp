// Prints the start-up memory check's estimate for a job (src/job/memory_estimate.hpp) as JSON,
// for tests/bench/run memory to set against the run's measured peak:
//
//   memory_estimate <job.yaml> [-ranks N] [--set key=value]...
//
// The job is parsed as the solver parses it (with the same --set overrides), without MPI and
// without reading mesh files, which the estimate does not need. Exit status 2 and the parser's
// message for a job the solver would refuse.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "job.hpp"
#include "memory_estimate.hpp"

int main(int argc, char** argv) {
  std::string path;
  int ranks = 1;
  std::vector<sf::JobOverride> overrides;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-ranks" && i + 1 < argc) {
      ranks = std::stoi(argv[++i]);
    } else if (arg == "--set" && i + 1 < argc) {
      const std::string set = argv[++i];
      const auto equals = set.find('=');
      if (equals == std::string::npos) {
        std::fprintf(stderr, "memory_estimate: --set needs key=value, got '%s'\n", set.c_str());
        return 2;
      }
      overrides.push_back({set.substr(0, equals), set.substr(equals + 1)});
    } else if (path.empty()) {
      path = arg;
    } else {
      std::fprintf(stderr, "usage: memory_estimate <job.yaml> [-ranks N] [--set key=value]...\n");
      return 2;
    }
  }
  if (path.empty() || ranks < 1) {
    std::fprintf(stderr, "usage: memory_estimate <job.yaml> [-ranks N] [--set key=value]...\n");
    return 2;
  }
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  if (!file) {
    std::fprintf(stderr, "memory_estimate: cannot read %s\n", path.c_str());
    return 2;
  }
  try {
    sf::JobConfig job = sf::parse_job(text.str(), path, overrides);
    sf::resolve_ranks(job, ranks);
    const sf::MemoryEstimate estimate = sf::estimate_memory(job);
    std::printf("{\"job\": \"%s\", \"ranks\": %d, \"cells\": %lld, \"columns\": %lld,\n"
                " \"total_bytes\": %.17g, \"per_rank_bytes\": %.17g, \"per_cell_bytes\": %.17g,\n"
                " \"terms\": [",
                job.name.c_str(), ranks, estimate.cells, estimate.columns,
                estimate.total(ranks), estimate.per_rank(), estimate.per_cell());
    for (std::size_t t = 0; t < estimate.terms.size(); ++t) {
      const sf::MemoryTerm& term = estimate.terms[t];
      std::printf("%s\n  {\"what\": \"%s\", \"per_rank\": %.17g, \"per_cell\": %.17g, "
                  "\"per_column\": %.17g}",
                  t ? "," : "", term.what.c_str(), term.per_rank, term.per_cell, term.per_column);
    }
    std::printf("]}\n");
  } catch (const sf::JobError& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }
  return 0;
}
