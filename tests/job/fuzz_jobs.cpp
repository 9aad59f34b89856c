// Fuzz test of the job parser (src/job/): several hundred malformed jobs, generated
// deterministically from a few valid seed jobs by random mutations (deleted lines, truncated
// text, values of the wrong type, huge/negative/NaN numbers, unknown and duplicate keys, broken
// indentation, lists of the wrong length). Each must either parse (a mutation can leave a job
// valid, e.g. deleting an optional key) or be rejected with a JobError whose message names the
// file; nothing else may escape, nothing may crash or take long, and every rank, generating the
// same mutants, must reach the same verdicts.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iterator>
#include <random>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "job.hpp"
#include "mpi_test_util.hpp"

namespace {

// Valid seed jobs covering most keys: 2D and 3D, fixed and adaptive steps, inflow and moving
// walls, obstacles, every force, scalar blobs and sources, solvers, output and checkpoints.
// No comments and block style mostly, so that most single-line mutations hit a real setting.
const char* const kSeeds[] = {
    R"(name: plume_2d
grid:
  cells: [32, 16]
  size: [2.0, 1.0]
  origin: [0.0, 0.0]
  halo: 3
boundary:
  x:
    lower: {type: inflow, velocity: [1.0, 0.0], profile: parabolic, scalars: {smoke: 1.0}}
    upper: outflow
  y:
    lower: no-slip
    upper: {type: no-slip, velocity: [0.5, 0.0]}
velocity:
  initial:
    type: vortex
    center: [0.5, 0.5]
    radius: 0.1
    strength: 0.5
scalars:
  smoke:
    background: 0.0
    initial:
      - {shape: sphere, center: [0.5, 0.25], radius: 0.1, value: 1.0}
      - {shape: box, lower: [1.0, 0.0], upper: [1.2, 0.2], value: 0.5}
    diffusion: 0.001
    dissipation: 0.1
    sources:
      - {shape: sphere, center: [0.3, 0.1], radius: 0.05, mode: set, value: 1.0, velocity: [0.0, 0.5]}
  temperature:
    sources:
      - {shape: box, lower: [0.25, 0.0], upper: [0.35, 0.05], mode: add, value: 2.0}
fluid:
  viscosity: 0.001
advection:
  scheme: maccormack
  interpolation: monotone_cubic
forces:
  gravity: [0.0, -1.0]
  buoyancy:
    density: smoke
    temperature: temperature
    alpha: 0.05
    beta: 1.0
    up: [0.0, 1.0]
  vorticity_confinement: 0.2
  wind:
    velocity: [0.3, 0.0]
    rate: 2.0
    region: {shape: box, lower: [1.0, 0.5], upper: [2.0, 1.0]}
  regions:
    - {shape: sphere, center: [1.5, 0.2], radius: 0.1, acceleration: [0.0, 3.0]}
obstacles:
  - {shape: cylinder, center: [0.8, 0.5], radius: 0.08}
  - {shape: box, lower: [1.6, 0.0], upper: [1.7, 0.3], boundary: free-slip}
time:
  cfl: 2.0
  dt_min: 0.0
  dt_max: 0.01
  end: 2.0
pressure:
  tolerance: 1e-8
  absolute_tolerance: 1e-14
  max_iterations: 500
output:
  directory: out
  interval: 0.05
  initial_frame: true
checkpoint:
  directory: checkpoints
  every_steps: 100
  every_time: 0.5
  every_wall_seconds: 600
  keep: 2
debug:
  dump_on_failure: true
)",
    R"(name: cube_3d
grid:
  cells: [16, 16, 32]
  size: [1.0, 1.0, 2.0]
  halo: 2
boundary:
  x: periodic
  y: free-slip
  z:
    lower: {type: inflow, velocity: [0.0, 0.0, 1.0], scalars: {density: 1.0}}
    upper: outflow
velocity:
  initial:
    type: uniform
    value: [0.0, 0.0, 0.5]
scalars:
  density:
    background: 0.0
    initial:
      - {shape: cylinder, center: [0.5, 0.5, 0.0], radius: 0.2, axis: z, value: 1.0}
advection:
  scheme: bfecc
forces:
  gravity: [0.0, 0.0, -9.81]
  buoyancy:
    alpha: 0.1
    up: [0.0, 0.0, 1.0]
obstacles:
  - {shape: sphere, center: [0.5, 0.5, 1.0], radius: 0.1, boundary: no-slip}
time:
  dt: 0.01
  end: 1.0
diffusion:
  tolerance: 1e-10
  max_iterations: 200
output:
  directory: out
  interval: 0.1
checkpoint:
  every_steps: 10
  keep: 3
debug:
  dump_on_failure: false
)",
    R"(grid:
  cells: [64, 64]
  size: [6.283185307179586, 6.283185307179586]
boundary:
  x: periodic
  y: periodic
velocity:
  initial: {type: taylor_green, strength: 1.0}
fluid:
  viscosity: 0.01
time:
  dt: 0.01
  end: 0.5
output:
  directory: out
  interval: 0.25
checkpoint:
  every_time: 0.25
petsc_options: "-pressure_ksp_type cg"
)",
};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

std::size_t indent_of(const std::string& line) { return line.find_first_not_of(' '); }

/// Deterministic, seeded mutator. Only rng() is used (not the std distributions, whose results
/// differ between standard libraries), so the mutants are the same everywhere.
class Mutator {
public:
  explicit Mutator(std::uint32_t seed) : rng_(seed) {}

  std::size_t pick(std::size_t n) { return n == 0 ? 0 : rng_() % n; }

  template <typename T>
  const T& choose(const std::vector<T>& items) {
    return items[pick(items.size())];
  }

  /// One mutated copy of `text`, and the kind of mutation applied.
  std::string mutate(const std::string& text, std::string& kind) {
    std::vector<std::string> lines = split_lines(text);
    switch (pick(8)) {
      case 0: {
        kind = "delete a line";
        lines.erase(lines.begin() + static_cast<long>(pick(lines.size())));
        return join_lines(lines);
      }
      case 1: {
        kind = "truncate";
        return text.substr(0, pick(text.size()));
      }
      case 2: {
        kind = "swap a value's type";
        const auto [line, begin, end] = pick_value(lines);
        static const std::vector<std::string> replacements = {
            "some_text", "[1, 2]", "[]", "{a: 1}", "{}", "true", "\"\"", "~", "[[1], [2]]",
            "\"3\"",     "|\n  block"};
        lines[line].replace(begin, end - begin, choose(replacements));
        return join_lines(lines);
      }
      case 3: {
        kind = "replace a number";
        const auto [line, begin, end] = pick_number(lines);
        static const std::vector<std::string> replacements = {
            "1e400", "1e308e1", "-1e400", "99999999999", "-99999999999", "-1", "-0.5", ".nan",
            "NaN",   ".inf",    "-.inf",  "0",           "0.0",          "4294967297", "1e-400x"};
        lines[line].replace(begin, end - begin, choose(replacements));
        return join_lines(lines);
      }
      case 4: {
        kind = "insert an unknown key";
        const std::size_t at = pick(lines.size() + 1);
        std::size_t indent = 0;
        if (at < lines.size() && indent_of(lines[at]) != std::string::npos) {
          indent = indent_of(lines[at]);
          if (lines[at].compare(indent, 2, "- ") == 0) indent += 2;
        }
        std::string key = std::string(indent, ' ') + "unknown_key_" + std::to_string(pick(100)) +
                          ": 1";
        if (at < lines.size() && lines[at].compare(indent_of(lines[at]), 2, "- ") == 0) {
          // Inside a list item written as a flow map: add the key to the map itself.
          const std::size_t brace = lines[at].find('{');
          if (brace != std::string::npos) {
            lines[at].insert(brace + 1, "bogus: 0, ");
            return join_lines(lines);
          }
        }
        lines.insert(lines.begin() + static_cast<long>(at), key);
        return join_lines(lines);
      }
      case 5: {
        kind = "duplicate a key";
        std::vector<std::size_t> keyed;
        for (std::size_t i = 0; i < lines.size(); ++i) {
          const std::size_t indent = indent_of(lines[i]);
          if (indent != std::string::npos && lines[i][indent] != '-' &&
              lines[i].find(": ") != std::string::npos) {
            keyed.push_back(i);
          }
        }
        const std::size_t i = choose(keyed);
        lines.insert(lines.begin() + static_cast<long>(i) + 1, lines[i]);
        return join_lines(lines);
      }
      case 6: {
        kind = "break indentation";
        std::vector<std::size_t> candidates;
        for (std::size_t i = 0; i < lines.size(); ++i) {
          if (indent_of(lines[i]) != std::string::npos) candidates.push_back(i);
        }
        const std::size_t i = choose(candidates);
        const std::size_t indent = indent_of(lines[i]);
        if (indent > 0 && pick(2) == 0) {
          lines[i].erase(0, 1);
        } else {
          lines[i].insert(0, pick(2) == 0 ? " " : "   ");
        }
        return join_lines(lines);
      }
      default: {
        kind = "change a list's length";
        std::vector<std::pair<std::size_t, std::size_t>> lists;  // line, '[' position
        for (std::size_t i = 0; i < lines.size(); ++i) {
          for (std::size_t p = lines[i].find('['); p != std::string::npos;
               p = lines[i].find('[', p + 1)) {
            lists.emplace_back(i, p);
          }
        }
        if (lists.empty()) return text + "grid: {cells: [8]}\n";
        const auto [i, open] = choose(lists);
        const std::size_t close = lines[i].find(']', open);
        if (pick(2) == 0) {
          lines[i].insert(close, ", 1");
        } else {
          const std::size_t comma = lines[i].rfind(',', close);
          lines[i].erase(comma != std::string::npos && comma > open ? comma : open + 1,
                         comma != std::string::npos && comma > open ? close - comma
                                                                    : close - open - 1);
        }
        return join_lines(lines);
      }
    }
  }

private:
  struct Span {
    std::size_t line, begin, end;
  };

  static bool is_number_char(char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+';
  }

  /// A scalar value of a block "key: value" line, or of a flow map/list entry.
  Span pick_value(const std::vector<std::string>& lines) {
    std::vector<Span> spans;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string& l = lines[i];
      for (std::size_t p = 0; p < l.size(); ++p) {
        // A value starts after ": ", "[", ", " and runs to the next ',', ']', '}' or line end.
        std::size_t begin = std::string::npos;
        if (l.compare(p, 2, ": ") == 0) {
          begin = p + 2;
        } else if (l[p] == '[') {
          begin = p + 1;
        }
        if (begin == std::string::npos || begin >= l.size()) continue;
        if (l[begin] == '{' || l[begin] == '[') continue;
        std::size_t end = begin;
        while (end < l.size() && l[end] != ',' && l[end] != ']' && l[end] != '}') ++end;
        if (end > begin) spans.push_back({i, begin, end});
      }
    }
    return choose(spans);
  }

  /// A numeric token anywhere in the text.
  Span pick_number(const std::vector<std::string>& lines) {
    std::vector<Span> spans;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string& l = lines[i];
      std::size_t p = 0;
      while (p < l.size()) {
        const bool starts = (l[p] >= '0' && l[p] <= '9') &&
                            (p == 0 || l[p - 1] == ' ' || l[p - 1] == '[' || l[p - 1] == '-');
        if (!starts) {
          ++p;
          continue;
        }
        std::size_t begin = p > 0 && l[p - 1] == '-' ? p - 1 : p;
        std::size_t end = p;
        while (end < l.size() && is_number_char(l[end])) ++end;
        spans.push_back({i, begin, end});
        p = end;
      }
    }
    return choose(spans);
  }

  std::mt19937 rng_;
};

struct Mutant {
  std::string text;
  std::string kind;
};

std::vector<Mutant> generate(std::size_t count) {
  Mutator mutator(20240611u);
  std::vector<Mutant> mutants;
  const std::size_t seeds = std::size(kSeeds);
  for (std::size_t i = 0; i < count; ++i) {
    Mutant m;
    m.text = mutator.mutate(kSeeds[i % seeds], m.kind);
    // Every fifth mutant gets a second mutation, to reach combinations.
    if (i % 5 == 4) {
      std::string second;
      m.text = mutator.mutate(m.text, second);
      m.kind += " + " + second;
    }
    mutants.push_back(std::move(m));
  }
  return mutants;
}

constexpr std::size_t kMutants = 600;

TEST(FuzzJobs, SeedJobsAreValid) {
  for (std::size_t i = 0; i < std::size(kSeeds); ++i) {
    try {
      sf::parse_job(kSeeds[i], "seed_" + std::to_string(i) + ".yaml");
    } catch (const std::exception& e) {
      ADD_FAILURE() << "seed " << i << ": " << e.what();
    }
  }
}

TEST(FuzzJobs, MalformedJobsAreRejectedCleanlyAndIdenticallyOnEveryRank) {
  const std::vector<Mutant> mutants = generate(kMutants);
  ASSERT_EQ(mutants.size(), kMutants);

  const auto start = std::chrono::steady_clock::now();
  std::size_t rejected = 0, accepted = 0, bad = 0;
  // A fingerprint of every verdict and message, compared across ranks.
  std::uint64_t fingerprint = 1469598103934665603ull;
  auto mix = [&fingerprint](const std::string& s) {
    for (unsigned char c : s) fingerprint = (fingerprint ^ c) * 1099511628211ull;
    fingerprint = (fingerprint ^ 0xff) * 1099511628211ull;
  };
  for (std::size_t i = 0; i < mutants.size(); ++i) {
    const std::string source = "mutant_" + std::to_string(i) + ".yaml";
    const Mutant& m = mutants[i];
    try {
      sf::parse_job(m.text, source);
      ++accepted;
      mix("accepted");
    } catch (const sf::JobError& e) {
      const std::string message = e.what();
      const bool named = message.rfind(source + ":", 0) == 0;
      const bool has_text = message.size() > source.size() + 2;
      const bool one_line = message.find('\n') == std::string::npos;
      if (!named || !has_text || !one_line) {
        ++bad;
        ADD_FAILURE() << "mutant " << i << " (" << m.kind << "): bad message \"" << message
                      << "\"\n--- job ---\n" << m.text << "--- end ---";
      }
      ++rejected;
      mix(message);
    } catch (const std::exception& e) {
      ++bad;
      ADD_FAILURE() << "mutant " << i << " (" << m.kind << "): " << typeid(e).name()
                    << " escaped: " << e.what() << "\n--- job ---\n" << m.text << "--- end ---";
    } catch (...) {
      ++bad;
      ADD_FAILURE() << "mutant " << i << " (" << m.kind << "): a non-std exception escaped"
                    << "\n--- job ---\n" << m.text << "--- end ---";
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(rejected + accepted + bad, kMutants);
  // The generator must stay meaningful: most mutants are malformed.
  EXPECT_GE(rejected * 100, kMutants * 80)
      << rejected << " of " << kMutants << " mutants rejected, " << accepted << " accepted";
  // The time is printed, not asserted (a loaded machine would make a bound flaky); a parser
  // that hangs is caught by the test's timeout.
  if (sf::test::comm_rank() == 0) {
    std::printf("fuzz_jobs: %zu mutants, %zu rejected, %zu accepted, %.3f s\n", kMutants,
                rejected, accepted, seconds);
  }

  // Same mutants, same verdicts, same messages on every rank.
  unsigned long long mine = fingerprint, lowest = 0, highest = 0;
  MPI_Allreduce(&mine, &lowest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &highest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lowest, highest) << "ranks disagree about some mutant's verdict or message";
}

}  // namespace
