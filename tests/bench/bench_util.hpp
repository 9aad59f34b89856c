// What the benchmark programs (tests/solvers/bench_projection.cpp,
// tests/solvers/bench_fft_projection.cpp, tests/physics/bench_advection.cpp) share: option lists,
// medians and their spread, timings every rank agrees on, and PETSc event times.
#pragma once

#include <petscsys.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace sf::bench {

/// "a,b,,c" -> {"a", "b", "c"}.
inline std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ','))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n == 0 ? 0.0 : (n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]));
}

/// A timing's median with the smallest and largest of the values it was taken from: the figure
/// a benchmark reports and the noise around it, so a reader can tell a change from the scatter.
struct Spread {
  double median = 0.0, min = 0.0, max = 0.0;
};

inline Spread spread(const std::vector<double>& values) {
  Spread s;
  if (values.empty()) return s;
  s.median = median(values);
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  return s;
}

/// Wall time after every rank has arrived, so a timing covers the slowest rank.
inline PetscErrorCode now(MPI_Comm comm, double* seconds) {
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(comm));
  *seconds = MPI_Wtime();
  PetscFunctionReturn(0);
}

/// Seconds this rank has spent in the named PETSc event so far, in the main log stage (the
/// program must have called PetscLogDefaultBegin).
inline PetscErrorCode event_seconds(const char* name, double* seconds) {
  PetscFunctionBeginUser;
  PetscLogEvent event;
  PetscCall(PetscLogEventGetId(name, &event));
  PetscEventPerfInfo info;
  PetscCall(PetscLogEventGetPerfInfo(0, event, &info));
  *seconds = info.time;
  PetscFunctionReturn(0);
}

}  // namespace sf::bench
