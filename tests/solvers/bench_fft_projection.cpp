// Benchmark of the periodic FFT projection against the Krylov projection (CG + the default
// matrix-free geometric multigrid, or any -pcs candidate) on fully periodic boxes.
//
// For every grid it reports, per method, the median seconds of
//   setup     FftProjection::setup (plans, slab, scatter) or KrylovProjection::setup, once per
//             repeat;
//   project   one projection: right-hand side, solve, gradient update (the max |div u|
//             diagnostic is left out: it is the same for both), with min_s and max_s, the
//             fastest and slowest of the repeats x steps projections it is the median of;
//   it        Krylov iterations (0 for the FFT);
//   div       the largest max |div u| left behind.
// The Krylov projection runs as in a time loop: every solve warm-starts from the last pressure,
// and the stopping rule is the job default (rtol 1e-8). The velocity of step s is a smooth
// non-potential field whose phase drifts with s plus a fixed rough part.
//
// Usage: mpiexec -n 2 bench_fft_projection [-cases 3d128,3d256] [-pcs mg,pfmg] [-steps 5]
//          [-repeats 1]
//
// docs/performance.md's figures ("Speed and memory", the rows "periodic box") come from it through
// tests/bench/run fft, which runs it with -cases 3d128,3d256 at 1 and 2 ranks.
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../bench/bench_util.hpp"
#include "fft_projection.hpp"
#include "krylov_projection.hpp"

namespace {

using sf::bench::median;
using sf::bench::now;
using sf::bench::split;
using sf::bench::Spread;

double noise(PetscInt i, PetscInt j, PetscInt k, int c) {
  unsigned long h = static_cast<unsigned long>(((c * 1031 + k) * 1031 + j) * 1031 + i);
  h = (h ^ (h >> 13)) * 0x9E3779B97F4A7C15UL;
  h ^= h >> 29;
  return static_cast<double>(h % 20001UL) / 10000.0 - 1.0;
}

PetscErrorCode set_velocity(sf::Field& velocity, int step) {
  PetscFunctionBeginUser;
  const sf::Grid& grid = velocity.grid();
  const double phase = 0.03 * step;
  PetscScalar* data;
  sf::ArrayView u;
  PetscCall(VecGetArray(velocity.global(), &data));
  PetscCall(grid.global_view(velocity.dm(), data, &u));
  for (int c = 0; c < grid.dim(); ++c) {
    sf::for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      const double x = grid.sample_position(0, i, c);
      const double y = grid.sample_position(1, j, c);
      const double z = grid.sample_position(2, k, c);
      u(i, j, k, c) = std::sin(2.0 * M_PI * (x + 2.0 * y + phase) + c) *
                          std::cos(2.0 * M_PI * (z - y + c * 0.25 + phase)) +
                      0.2 * noise(i, j, k, c);
    });
  }
  PetscCall(VecRestoreArray(velocity.global(), &data));
  PetscFunctionReturn(0);
}

struct Result {
  double setup = 0.0, iterations = 0.0, divergence = 0.0;
  Spread project;
};

/// Times `steps` projections with the strategy `make` builds (after one untimed warm-up step),
/// `repeats` times over, each with a projection set up afresh.
template <typename Make>
PetscErrorCode run(MPI_Comm comm, const sf::Grid& grid, const sf::SolidMask& solids, int steps,
                   int repeats, const Make& make, Result* result) {
  PetscFunctionBeginUser;
  sf::Field velocity;
  PetscCall(velocity.setup_velocity(grid));
  std::vector<double> setups, times, iterations;
  for (int r = 0; r < repeats; ++r) {
    double t0 = 0.0, t1 = 0.0;
    std::unique_ptr<sf::Projection> projection;
    PetscCall(now(comm, &t0));
    PetscCall(make(&projection));
    PetscCall(now(comm, &t1));
    setups.push_back(t1 - t0);
    sf::ProjectionStats stats;
    for (int s = 0; s <= steps; ++s) {
      PetscCall(set_velocity(velocity, s));
      PetscCall(now(comm, &t0));
      PetscCall(projection->project(velocity, 0.1, &stats));
      PetscCall(now(comm, &t1));
      // The divergence diagnostic inside project() is not part of the solve; take it out.
      double d0 = 0.0, d1 = 0.0;
      PetscCall(now(comm, &d0));
      PetscCall(sf::max_divergence(velocity, solids, &stats.max_divergence));
      PetscCall(now(comm, &d1));
      if (s == 0) continue;  // the first step pays for first touches of pooled vectors
      times.push_back(t1 - t0 - (d1 - d0));
      iterations.push_back(static_cast<double>(stats.iterations));
      result->divergence = std::max(result->divergence, stats.max_divergence);
    }
  }
  result->setup = median(setups);
  result->project = sf::bench::spread(times);
  result->iterations = median(iterations);
  PetscFunctionReturn(0);
}

}  // namespace

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  MPI_Comm comm = PETSC_COMM_WORLD;
  {
    char buffer[512];
    PetscBool set;
    std::string cases = "3d128,3d256", pcs = "mg";
    PetscInt steps = 5, repeats = 1;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-cases", buffer, sizeof(buffer), &set));
    if (set) cases = buffer;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-pcs", buffer, sizeof(buffer), &set));
    if (set) pcs = buffer;
    PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-steps", &steps, nullptr));
    PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-repeats", &repeats, nullptr));
    PetscCheck(steps >= 1 && repeats >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-steps and -repeats must be at least 1");
    int size = 1;
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCall(PetscPrintf(comm, "# %d rank(s), periodic boxes, medians of %" PetscInt_FMT
                                " repeats x %" PetscInt_FMT
                                " steps; krylov: rtol 1e-8, warm start\n",
                          size, repeats, steps));
    PetscCall(PetscPrintf(comm, "%-7s %-12s %9s %10s %10s %10s %7s %9s\n", "grid", "method",
                          "setup_s", "project_s", "min_s", "max_s", "it", "div"));
    for (const std::string& name : split(cases)) {
      const int dim = name.rfind("3d", 0) == 0 ? 3 : 2;
      const long n = std::stol(name.substr(2));
      sf::GridConfig config;
      config.dim = dim;
      config.cells = {n, n, dim == 3 ? n : 1};
      config.halo = 1;
      std::array<std::array<sf::FaceBoundary, 2>, 3> boundaries;
      for (auto& axis : boundaries)
        for (auto& side : axis) side.kind = sf::BoundaryKind::Periodic;
      sf::Grid grid;
      PetscCall(grid.setup(comm, config, boundaries));
      sf::SolidMask solids;
      PetscCall(solids.setup(grid, {}));
      std::vector<std::string> methods{"fft"};
      for (const std::string& pc : split(pcs)) methods.push_back("krylov-" + pc);
      for (const std::string& method : methods) {
        Result result;
        const sf::SolverConfig solver;
        if (method == "fft") {
          PetscCall(run(comm, grid, solids, static_cast<int>(steps), static_cast<int>(repeats),
                        [&](std::unique_ptr<sf::Projection>* out) -> PetscErrorCode {
                          auto p = std::make_unique<sf::FftProjection>();
                          PetscCall(p->setup(grid, solids));
                          *out = std::move(p);
                          return 0;
                        },
                        &result));
        } else {
          const std::string pc = method.substr(7);
          PetscCall(PetscOptionsSetValue(nullptr, "-pressure_pc_type", pc.c_str()));
          PetscCall(run(comm, grid, solids, static_cast<int>(steps), static_cast<int>(repeats),
                        [&](std::unique_ptr<sf::Projection>* out) -> PetscErrorCode {
                          auto p = std::make_unique<sf::KrylovProjection>();
                          PetscCall(p->setup(grid, solids, solver));
                          *out = std::move(p);
                          return 0;
                        },
                        &result));
          PetscCall(PetscOptionsClearValue(nullptr, "-pressure_pc_type"));
        }
        PetscCall(PetscPrintf(comm, "%-7s %-12s %9.3f %10.4f %10.4f %10.4f %7.1f %9.2e\n",
                              name.c_str(), method.c_str(), result.setup, result.project.median,
                              result.project.min, result.project.max, result.iterations,
                              result.divergence));
      }
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}
