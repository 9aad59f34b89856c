// The 2D Taylor-Green vortex as the accuracy tests and the convergence study pose it: the job and
// the error of a run against the exact decaying solution.
#pragma once

#include <cmath>
#include <string>

#include "simulation.hpp"

namespace sf::test {

/// u = (sin x cos y, -cos x sin y) e^{-2 nu t} on the periodic [0, 2 pi]^2 in n x n cells, with
/// nu = 0.05, to time `end`, written (if at all) to `directory`.
inline JobConfig taylor_green_job(long n, double end, TimeScheme scheme,
                                  Interpolation interpolation, const std::string& directory) {
  JobConfig job;
  job.name = "tg";
  job.time.scheme = scheme;
  job.advection.interpolation = interpolation;
  job.grid.dim = 2;
  job.grid.cells = {n, n, 1};
  job.grid.size = {2.0 * M_PI, 2.0 * M_PI, 1.0};
  job.grid.halo = 2;
  for (auto& axis : job.boundary)
    for (auto& side : axis) side.kind = BoundaryKind::Periodic;
  job.velocity.kind = VelocityInit::Kind::TaylorGreen;
  job.velocity.strength = 1.0;
  job.fluid.viscosity = 0.05;
  job.time.end = end;
  job.output.directory = directory;
  job.output.overwrite = true;  // one study, many runs of the same name
  return job;
}

/// max over all faces of |u - exact| for a simulation of taylor_green_job() at its time.
/// Collective.
inline PetscErrorCode taylor_green_max_error(Simulation& simulation, double viscosity,
                                             double* error) {
  PetscFunctionBeginUser;
  const Grid& grid = simulation.grid();
  const double decay = std::exp(-2.0 * viscosity * simulation.time());  // k = 1
  const PetscScalar* data;
  ArrayView u;
  PetscCall(VecGetArrayRead(simulation.velocity().global(), &data));
  PetscCall(grid.global_view(simulation.velocity().dm(), const_cast<PetscScalar*>(data), &u));
  double local = 0.0;
  for (int c = 0; c < 2; ++c) {
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      const double x = grid.sample_position(0, i, c), y = grid.sample_position(1, j, c);
      const double exact = c == 0 ? std::sin(x) * std::cos(y) * decay
                                  : -std::cos(x) * std::sin(y) * decay;
      local = std::max(local, std::abs(u(i, j, k, c) - exact));
    });
  }
  PetscCall(VecRestoreArrayRead(simulation.velocity().global(), &data));
  PetscCallMPI(MPI_Allreduce(&local, error, 1, MPI_DOUBLE, MPI_MAX, grid.comm()));
  PetscFunctionReturn(0);
}

}  // namespace sf::test
