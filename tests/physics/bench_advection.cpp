// Benchmark of the advection stage against the memory system (how close advection comes to the
// speed of the memory system; solvers/README.md "Advection speed" holds the measured table).
//
// For every case (N^3 cells of the unit cube, walls or periodic, a CFL number) and scheme it
// advects the velocity and two scalars through a 3D Taylor-Green-like velocity of peak speed 1
// with dt = CFL h, and reports medians over the repeats of
//   halo       the grid's ghost width (-halos: the cost curve of a wider halo, fewer remote
//              departure points against larger exchanges);
//   ghosts_s   Field::fill_ghosts() of the velocity and both scalars (DMGlobalToLocal + the
//              ghost layers outside the domain), which the step does before advection;
//   advect_s   Advection::advect(): the traces, interpolation and departure exchange;
//   trace_s    of it, the local traces (PETSc event SLTrace), and remote_s the departure
//              exchange of the points beyond the halo (SLDeparture);
//   ns/sample  advect_s per sample point a rank owns (faces of every component + cell centres);
//   remote%    share of sample points whose trace needed another rank;
//   B/cell     the bytes a pass must move per cell at least: every advected value read once
//              from its ghosted array and written once (16 (dim + scalars)); MacCormack and
//              BFECC make 2 and 3 passes;
//   bound%     the time those bytes take at STREAM triad bandwidth (measured here, every rank
//              streaming at once) over advect_s: 100 % is the memory system's speed.
//
// Usage: mpiexec -n 2 bench_advection [-cases 64,128] [-boundaries periodic,walls]
//          [-cfls 1,6] [-halos 3] [-schemes semi_lagrangian,maccormack,bfecc]
//          [-interpolation linear] [-repeats 5]
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "../bench/bench_util.hpp"
#include "../bench/stream_triad.hpp"
#include "advection.hpp"

namespace {

using sf::bench::median;
using sf::bench::now;
using sf::bench::split;
using Boundaries = std::array<std::array<sf::FaceBoundary, 2>, 3>;

Boundaries boundaries(const std::string& kind) {
  sf::FaceBoundary f;
  f.kind = kind == "periodic" ? sf::BoundaryKind::Periodic : sf::BoundaryKind::NoSlip;
  Boundaries b;
  for (auto& axis : b) axis = {f, f};
  return b;
}

/// u = (sin 2pi x cos 2pi y cos 2pi z, -cos 2pi x sin 2pi y cos 2pi z, sin 2pi(x + y)):
/// peak speed about 1.4, no flow through the walls of the unit cube but w, which the walls'
/// ghost rule takes care of; at CFL 6 some traces leave a 3-cell halo on every axis. Scalars:
/// smooth, different per scalar.
PetscErrorCode set_fields(sf::Field& velocity, std::vector<sf::Field>& scalars) {
  PetscFunctionBeginUser;
  const sf::Grid& grid = velocity.grid();
  const double tau = 2.0 * M_PI;
  PetscScalar* data;
  sf::ArrayView v;
  PetscCall(VecGetArray(velocity.global(), &data));
  PetscCall(grid.global_view(velocity.dm(), data, &v));
  for (int c = 0; c < grid.dim(); ++c) {
    sf::for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      double x[3];
      grid.face_center(c, i, j, k, x);
      const double sx = std::sin(tau * x[0]), cx = std::cos(tau * x[0]);
      const double sy = std::sin(tau * x[1]), cy = std::cos(tau * x[1]);
      const double cz = std::cos(tau * x[2]);
      v(i, j, k, c) = c == 0   ? sx * cy * cz
                      : c == 1 ? -cx * sy * cz
                               : std::sin(tau * (x[0] + x[1]));
    });
  }
  PetscCall(VecRestoreArray(velocity.global(), &data));
  for (size_t s = 0; s < scalars.size(); ++s) {
    PetscCall(VecGetArray(scalars[s].global(), &data));
    PetscCall(grid.global_view(scalars[s].dm(), data, &v));
    sf::for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      const double x = grid.cell_center(0, i), y = grid.cell_center(1, j), z = grid.cell_center(2, k);
      v(i, j, k) = std::exp(-8.0 * ((x - 0.5) * (x - 0.5) + (y - 0.3) * (y - 0.3))) +
                   0.1 * static_cast<double>(s + 1) * std::sin(tau * z);
    });
    PetscCall(VecRestoreArray(scalars[s].global(), &data));
  }
  PetscFunctionReturn(0);
}

struct Result {
  double ghosts = 0.0, advect = 0.0, trace = 0.0, remote = 0.0, remote_share = 0.0;
  double samples_per_rank = 0.0;
};

PetscErrorCode run_case(MPI_Comm comm, const sf::JobConfig& job, double dt, int repeats,
                        Result* result) {
  PetscFunctionBeginUser;
  sf::Grid grid;
  PetscCall(grid.setup(comm, job.grid, job.boundary));
  sf::SolidMask solids;
  PetscCall(solids.setup(grid, job.obstacles));
  sf::Field velocity;
  PetscCall(velocity.setup_velocity(grid));
  std::vector<sf::Field> scalars(job.scalars.size());
  for (size_t s = 0; s < scalars.size(); ++s)
    PetscCall(scalars[s].setup_scalar(grid, job.scalars[s].name));
  std::unique_ptr<sf::Advection> advection;
  PetscCall(sf::make_advection(grid, solids, job.advection, static_cast<int>(scalars.size()),
                               &advection));
  std::vector<double> ghosts, advect, trace, remote;
  double remote_points = 0.0;
  for (int r = 0; r <= repeats; ++r) {  // the first round warms caches and pools, untimed
    PetscCall(set_fields(velocity, scalars));
    double t0 = 0.0, t1 = 0.0, t2 = 0.0, e0[2] = {0.0, 0.0}, e1[2] = {0.0, 0.0};
    PetscCall(now(comm, &t0));
    PetscCall(velocity.fill_ghosts());
    for (sf::Field& s : scalars) PetscCall(s.fill_ghosts());
    PetscCall(now(comm, &t1));
    PetscCall(sf::bench::event_seconds("SLTrace", &e0[0]));
    PetscCall(sf::bench::event_seconds("SLDeparture", &e0[1]));
    sf::AdvectionStats stats;
    PetscCall(advection->advect(velocity, scalars, dt, &stats));
    PetscCall(now(comm, &t2));
    PetscCall(sf::bench::event_seconds("SLTrace", &e1[0]));
    PetscCall(sf::bench::event_seconds("SLDeparture", &e1[1]));
    if (r == 0) continue;
    ghosts.push_back(t1 - t0);
    advect.push_back(t2 - t1);
    // The slowest rank's share of each part.
    double parts[2] = {e1[0] - e0[0], e1[1] - e0[1]}, slowest[2];
    PetscCallMPI(MPI_Allreduce(parts, slowest, 2, MPI_DOUBLE, MPI_MAX, comm));
    trace.push_back(slowest[0]);
    remote.push_back(slowest[1]);
    remote_points = static_cast<double>(stats.remote_points);
  }
  int size = 1;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  const double samples = grid.face_samples() + static_cast<double>(grid.cells(0)) *
                                                   static_cast<double>(grid.cells(1)) *
                                                   static_cast<double>(grid.cells(2));
  result->ghosts = median(ghosts);
  result->advect = median(advect);
  result->trace = median(trace);
  result->remote = median(remote);
  result->remote_share = remote_points / samples;
  result->samples_per_rank = samples / size;
  PetscFunctionReturn(0);
}

}  // namespace

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscLogDefaultBegin());  // the event log behind the trace_s and remote_s columns
  MPI_Comm comm = PETSC_COMM_WORLD;
  {
    char buffer[512];
    PetscBool set;
    std::string cases = "64,128", bcs = "periodic,walls", cfls = "1,6", halos = "3",
                schemes = "semi_lagrangian", interpolation = "linear";
    PetscInt repeats = 5;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-cases", buffer, sizeof(buffer), &set));
    if (set) cases = buffer;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-boundaries", buffer, sizeof(buffer), &set));
    if (set) bcs = buffer;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-cfls", buffer, sizeof(buffer), &set));
    if (set) cfls = buffer;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-halos", buffer, sizeof(buffer), &set));
    if (set) halos = buffer;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-schemes", buffer, sizeof(buffer), &set));
    if (set) schemes = buffer;
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-interpolation", buffer, sizeof(buffer),
                                    &set));
    if (set) interpolation = buffer;
    PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-repeats", &repeats, nullptr));
    int size = 1;
    PetscCallMPI(MPI_Comm_size(comm, &size));

    // 3 x 32 Mi doubles = 768 MiB per rank: far beyond any cache.
    const double stream = sf::bench::stream_triad_per_rank(comm, std::size_t{1} << 25);
    PetscCall(PetscPrintf(comm,
                          "# %d rank(s); STREAM triad %.2f GB/s per rank (%.2f GB/s in all); "
                          "medians of %" PetscInt_FMT " repeats; %s interpolation\n",
                          size, stream * 1e-9, stream * size * 1e-9, repeats,
                          interpolation.c_str()));
    PetscCall(PetscPrintf(comm, "%-5s %-9s %4s %4s %-16s | %9s %9s %9s %9s | %9s %8s | %6s %7s\n",
                          "cells", "boundary", "cfl", "halo", "scheme", "ghosts_s", "advect_s",
                          "trace_s", "remote_s", "ns/sample", "remote%", "B/cell", "bound%"));
    for (const std::string& n_text : split(cases)) {
      const long n = std::stol(n_text);
      for (const std::string& bc : split(bcs)) {
        for (const std::string& cfl_text : split(cfls)) {
          const double cfl = std::stod(cfl_text);
          for (const std::string& halo_text : split(halos))
          for (const std::string& scheme : split(schemes)) {
            sf::JobConfig job;
            job.grid.dim = 3;
            job.grid.cells = {n, n, n};
            job.grid.size = {1.0, 1.0, 1.0};
            job.grid.halo = std::stoi(halo_text);
            job.boundary = boundaries(bc);
            job.scalars.resize(2);
            job.scalars[0].name = "density";
            job.scalars[1].name = "temperature";
            PetscCheck(scheme == "semi_lagrangian" || scheme == "maccormack" || scheme == "bfecc",
                       comm, PETSC_ERR_ARG_WRONG, "unknown scheme '%s'", scheme.c_str());
            job.advection.scheme = scheme == "maccormack" ? sf::AdvectionScheme::MacCormack
                                   : scheme == "bfecc"    ? sf::AdvectionScheme::BFECC
                                                          : sf::AdvectionScheme::SemiLagrangian;
            job.advection.interpolation = interpolation == "cubic"
                                              ? sf::Interpolation::MonotoneCubic
                                              : sf::Interpolation::Linear;
            Result result;
            PetscCall(run_case(comm, job, cfl / static_cast<double>(n), static_cast<int>(repeats),
                               &result));
            const int passes = scheme == "maccormack" ? 2 : scheme == "bfecc" ? 3 : 1;
            const double bytes_per_cell = 16.0 * (3 + 2) * passes;
            const double cells_per_rank = static_cast<double>(n) * n * n / size;
            const double bound = bytes_per_cell * cells_per_rank / stream;
            PetscCall(PetscPrintf(
                comm,
                "%-5ld %-9s %4.1f %4d %-16s | %9.4f %9.4f %9.4f %9.4f | %9.1f %8.2f | %6.0f %6.1f%%\n",
                n, bc.c_str(), cfl, job.grid.halo, scheme.c_str(), result.ghosts, result.advect,
                result.trace, result.remote, 1e9 * result.advect / result.samples_per_rank,
                100.0 * result.remote_share, bytes_per_cell, 100.0 * bound / result.advect));
          }
        }
      }
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}
