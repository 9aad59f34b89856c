// Benchmark of the pressure projection with each candidate preconditioner (solvers/README.md
// holds the measured table and the choice it led to).
//
// For every case (2D or 3D grid, boundary set) and candidate preconditioner it reports
//   setup   seconds for KrylovProjection::setup(): DM, assembly and preconditioner set-up;
//   cold    median iterations and seconds per projection solved from p = 0;
//           (a projection is the right-hand side, the solve, the gradient update and the
//           max |div u| diagnostic);
//   warm    the same when every solve starts from the previous step's pressure, as in a run,
//           with min_s and max_s, the fastest and slowest warm projection (the noise);
//   ksp_s   of warm_s, the seconds inside PETSc's KSPSolve alone (from PETSc's event log): the
//           bare solve of the same system, so warm_s - ksp_s is what the projection adds
//           around it (right-hand side, gradient update, divergence check);
//   div     the largest max |div u| the warm projections left behind.
// The stopping rule is the job default (rtol 1e-8) or, with -max_divergence X, the divergence
// target pressure.max_divergence = X, which makes every candidate stop at the same divergence.
// The velocity u* of step s is a smooth non-potential field whose phase drifts with s plus a
// fixed rough part, so successive pressures differ the way they do between time steps.
//
// Usage: mpiexec -n 2 bench_projection [-cases 2d128,2d256,3d32,3d64]
//          [-boundaries walls,outflow,obstacle,periodic]
//          [-pcs mg,gamg,boomeramg,boomeramg-hmis,pfmg,pfmg-rbgs,icc] [-steps 5] [-repeats 3]
//          [-max_divergence X]
// (defaults: all cases, walls,outflow,obstacle, every candidate but icc).
// A candidate's own options come from the table below; any other -pressure_* option given on
// the command line applies to every candidate.
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../bench/bench_util.hpp"
#include "krylov_projection.hpp"

namespace {

using sf::bench::median;
using sf::bench::now;
using sf::bench::split;
using Boundaries = std::array<std::array<sf::FaceBoundary, 2>, 3>;

struct Candidate {
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;
};

const std::vector<Candidate>& candidates() {
  static const std::vector<Candidate> all = {
      {"mg", {{"-pressure_pc_type", "mg"}}},
      {"gamg", {{"-pressure_pc_type", "gamg"}}},
      {"boomeramg", {{"-pressure_pc_type", "hypre"}, {"-pressure_pc_hypre_type", "boomeramg"}}},
      {"boomeramg-hmis",
       {{"-pressure_pc_type", "hypre"},
        {"-pressure_pc_hypre_type", "boomeramg"},
        {"-pressure_pc_hypre_boomeramg_coarsen_type", "HMIS"},
        {"-pressure_pc_hypre_boomeramg_interp_type", "ext+i"},
        {"-pressure_pc_hypre_boomeramg_strong_threshold", "0.5"}}},
      {"pfmg", {{"-pressure_pc_type", "pfmg"}}},
      {"pfmg-rbgs",
       {{"-pressure_pc_type", "pfmg"},
        {"-pressure_pc_pfmg_relax_type", "symmetric-Red/Black-Gauss-Seidel"}}},
      {"icc", {{"-pressure_pc_type", "bjacobi"}, {"-pressure_sub_pc_type", "icc"}}},
  };
  return all;
}

sf::FaceBoundary face(sf::BoundaryKind kind) {
  sf::FaceBoundary f;
  f.kind = kind;
  return f;
}

/// walls: no-slip all round; outflow: the same with an outflow face at x = 1; obstacle: walls
/// with a sphere (disc in 2D) of radius 0.2 in the middle; periodic: periodic on every axis.
Boundaries boundaries(const std::string& kind) {
  Boundaries b;
  const sf::BoundaryKind all =
      kind == "periodic" ? sf::BoundaryKind::Periodic : sf::BoundaryKind::NoSlip;
  for (auto& axis : b) axis = {face(all), face(all)};
  if (kind == "outflow") b[0][1] = face(sf::BoundaryKind::Outflow);
  return b;
}

/// A deterministic rough value in [-1, 1] per face.
double noise(PetscInt i, PetscInt j, PetscInt k, int c) {
  unsigned long h = static_cast<unsigned long>(((c * 1031 + k) * 1031 + j) * 1031 + i);
  h = (h ^ (h >> 13)) * 0x9E3779B97F4A7C15UL;
  h ^= h >> 29;
  return static_cast<double>(h % 20001UL) / 10000.0 - 1.0;
}

/// Solid faces hold 0 (a static obstacle), so the closed boxes' net flux vanishes and every
/// divergence the projection leaves is its own, not an inconsistency no pressure can remove.
PetscErrorCode set_velocity(sf::Field& velocity, const sf::SolidMask& solids, int step) {
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
      const double smooth = std::sin(2.0 * M_PI * (x + 2.0 * y + phase) + c) *
                            std::cos(M_PI * (3.0 * z - y + c * 0.5 + phase));
      u(i, j, k, c) = solids.solid_face(c, i, j, k) ? 0.0 : smooth + 0.2 * noise(i, j, k, c);
    });
  }
  PetscCall(VecRestoreArray(velocity.global(), &data));
  PetscFunctionReturn(0);
}

struct Result {
  double setup = 0.0;
  double cold_iterations = 0.0, cold_seconds = 0.0;
  double warm_iterations = 0.0, warm_ksp_seconds = 0.0;
  sf::bench::Spread warm_seconds;
  double warm_divergence = 0.0;
};

/// Seconds this rank has spent in KSPSolve so far.
PetscErrorCode ksp_solve_seconds(double* seconds) {
  return sf::bench::event_seconds("KSPSolve", seconds);
}

PetscErrorCode run_case(MPI_Comm comm, const sf::Grid& grid, const sf::SolidMask& solids,
                        const sf::SolverConfig& config, int steps, int repeats,
                        Result* result) {
  PetscFunctionBeginUser;
  sf::Field velocity;
  PetscCall(velocity.setup_velocity(grid));
  std::vector<double> setups, cold_its, cold_times, warm_its, warm_times, warm_ksp;
  for (int r = 0; r < repeats; ++r) {
    sf::KrylovProjection projection;
    double t0 = 0.0, t1 = 0.0;
    PetscCall(now(comm, &t0));
    PetscCall(projection.setup(grid, solids, config));
    PetscCall(now(comm, &t1));
    setups.push_back(t1 - t0);
    sf::ProjectionStats stats;
    for (int s = 0; s < steps; ++s) {
      PetscCall(set_velocity(velocity, solids, s));
      PetscCall(VecSet(projection.pressure(), 0.0));
      PetscCall(now(comm, &t0));
      PetscCall(projection.project(velocity, 0.1, &stats));
      PetscCall(now(comm, &t1));
      cold_times.push_back(t1 - t0);
      cold_its.push_back(static_cast<double>(stats.iterations));
    }
    // Warm: the pressure of step s starts the solve of step s + 1.
    PetscCall(VecSet(projection.pressure(), 0.0));
    for (int s = 0; s <= steps; ++s) {
      PetscCall(set_velocity(velocity, solids, s));
      double k0 = 0.0, k1 = 0.0;
      PetscCall(ksp_solve_seconds(&k0));
      PetscCall(now(comm, &t0));
      PetscCall(projection.project(velocity, 0.1, &stats));
      PetscCall(now(comm, &t1));
      PetscCall(ksp_solve_seconds(&k1));
      if (s > 0) {
        warm_times.push_back(t1 - t0);
        warm_its.push_back(static_cast<double>(stats.iterations));
        warm_ksp.push_back(k1 - k0);
        result->warm_divergence = std::max(result->warm_divergence, stats.max_divergence);
      }
    }
  }
  result->setup = median(setups);
  result->cold_iterations = median(cold_its);
  result->cold_seconds = median(cold_times);
  result->warm_iterations = median(warm_its);
  result->warm_seconds = sf::bench::spread(warm_times);
  result->warm_ksp_seconds = median(warm_ksp);
  PetscFunctionReturn(0);
}

}  // namespace

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscLogDefaultBegin());  // the event log behind the ksp_s column
  MPI_Comm comm = PETSC_COMM_WORLD;
  {
    char buffer[512];
    PetscBool set;
    std::string cases = "2d128,2d256,3d32,3d64", bcs = "walls,outflow,obstacle",
                pcs = "mg,gamg,boomeramg,boomeramg-hmis,pfmg,pfmg-rbgs";
    PetscInt steps = 5, repeats = 3;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-cases", buffer, sizeof(buffer), &set));
    if (set) cases = buffer;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-boundaries", buffer, sizeof(buffer), &set));
    if (set) bcs = buffer;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-pcs", buffer, sizeof(buffer), &set));
    if (set) pcs = buffer;
    PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-steps", &steps, nullptr));
    PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-repeats", &repeats, nullptr));
    sf::SolverConfig solver;
    PetscCall(PetscOptionsGetReal(nullptr, nullptr, "-max_divergence", &solver.max_divergence,
                                  nullptr));
    int size = 1;
    PetscCallMPI(MPI_Comm_size(comm, &size));

    std::ostringstream rule;
    if (solver.max_divergence > 0.0)
      rule << "max |div u| <= " << solver.max_divergence;
    else
      rule << "rtol " << solver.rtol << " on the unpreconditioned residual";
    PetscCall(PetscPrintf(comm,
                          "# %d rank(s), %s, medians of %" PetscInt_FMT " repeats x %" PetscInt_FMT
                          " steps\n",
                          size, rule.str().c_str(), repeats, steps));
    PetscCall(PetscPrintf(comm,
                          "%-7s %-9s %-15s %9s | %6s %10s | %6s %10s %10s %10s %10s %9s\n",
                          "grid", "boundary", "pc", "setup_s", "cold_it", "cold_s", "warm_it",
                          "warm_s", "min_s", "max_s", "ksp_s", "div"));
    for (const std::string& name : split(cases)) {
      const int dim = name.rfind("3d", 0) == 0 ? 3 : 2;
      const long n = std::stol(name.substr(2));
      sf::GridConfig config;
      config.dim = dim;
      config.cells = {n, n, dim == 3 ? n : 1};
      config.halo = 2;
      for (const std::string& bc : split(bcs)) {
        sf::Grid grid;
        PetscCall(grid.setup(comm, config, boundaries(bc)));
        std::vector<sf::ObstacleConfig> obstacles;
        if (bc == "obstacle") {
          sf::ObstacleConfig sphere;
          sphere.region.shape = sf::Region::Shape::Sphere;
          sphere.region.center = {0.5, 0.5, dim == 3 ? 0.5 : 0.0};
          sphere.region.radius = 0.2;
          obstacles.push_back(sphere);
        }
        sf::SolidMask solids;
        PetscCall(solids.setup(grid, obstacles));
        for (const std::string& pc : split(pcs)) {
          auto it = std::find_if(candidates().begin(), candidates().end(),
                                 [&](const Candidate& c) { return c.name == pc; });
          PetscCheck(it != candidates().end(), comm, PETSC_ERR_ARG_WRONG,
                     "unknown candidate '%s'", pc.c_str());
          for (const auto& [key, value] : it->options)
            PetscCall(PetscOptionsSetValue(nullptr, key.c_str(), value.c_str()));
          Result result;
          // A candidate that cannot handle the case reports its error and the table goes on.
          PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
          const PetscErrorCode status = run_case(comm, grid, solids, solver,
                                                 static_cast<int>(steps),
                                                 static_cast<int>(repeats), &result);
          PetscCall(PetscPopErrorHandler());
          for (const auto& [key, value] : it->options)
            PetscCall(PetscOptionsClearValue(nullptr, key.c_str()));
          if (status) {
            const char* text = nullptr;
            PetscCall(PetscErrorMessage(status, &text, nullptr));
            PetscCall(PetscPrintf(comm, "%-7s %-9s %-15s   failed: %s\n", name.c_str(),
                                  bc.c_str(), pc.c_str(),
                                  status == PETSC_ERR_NOT_CONVERGED ? "did not converge"
                                  : text                            ? text
                                                                    : "PETSc error"));
            continue;
          }
          PetscCall(PetscPrintf(comm,
                                "%-7s %-9s %-15s %9.4f | %6.1f %10.4f | %6.1f %10.4f %10.4f "
                                "%10.4f %10.4f %9.2e\n",
                                name.c_str(), bc.c_str(), pc.c_str(), result.setup,
                                result.cold_iterations, result.cold_seconds,
                                result.warm_iterations, result.warm_seconds.median,
                                result.warm_seconds.min, result.warm_seconds.max,
                                result.warm_ksp_seconds, result.warm_divergence));
        }
      }
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}
