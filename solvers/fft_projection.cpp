// Pressure projection on a periodic box by FFT (fft_projection.hpp has the equations).
//
// Where the quantities live on the MAC cell (i, j, k), as in krylov_projection.cpp:
//   p(i,j,k)            cell centre (a global vector of the grid's cell DM);
//   u_c(i,j,k)          centre of the lower face of the cell in direction c;
//   div u(i,j,k) = sum_c (u_c(i + e_c) - u_c(i)) / h_c;
//   (grad p)_c(i,j,k) = (p(i) - p(i - e_c)) / h_c,
// every index wrapping around the periodic box. The right-hand side is formed in the pressure
// vector itself and solved in place, so the projection needs no vector beyond the FFT slab.
#include "fft_projection.hpp"

#include <cmath>

#include "health.hpp"
#include "vec_array.hpp"

namespace sf {

PetscErrorCode FftProjection::setup(const Grid& grid, const SolidMask& solids) {
  PetscFunctionBeginUser;
  // The job reader refuses these combinations with the key and line; this guards other callers.
  PetscCheck(!solids.any(), grid.comm(), PETSC_ERR_ARG_WRONG,
             "the FFT projection needs a box without obstacles");
  grid_ = &grid;
  solids_ = &solids;
  PetscCall(fft_.setup(grid, "pressure_"));
  PetscCall(DMCreateGlobalVector(grid.cell_dm(), pressure_.replace()));
  PetscCall(PetscObjectSetName(reinterpret_cast<PetscObject>(pressure_.get()), "pressure"));
  PetscCall(VecSet(pressure_, 0.0));
  PetscFunctionReturn(0);
}

PetscErrorCode FftProjection::project(Field& velocity, double dt, ProjectionStats* stats) {
  PetscFunctionBeginUser;
  PetscCheck(grid_, PETSC_COMM_SELF, PETSC_ERR_ORDER, "FftProjection::setup() was not called");
  const Grid& grid = *grid_;
  PetscCheck(velocity.dm() == grid.face_dm() && velocity.components() == grid.dim(),
             grid.comm(), PETSC_ERR_ARG_WRONG,
             "project() needs the face velocity of the grid the projection was set up on");
  PetscCheck(dt > 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE, "projection time step %g <= 0",
             dt);
  PetscCheck(!solids_->any(), grid.comm(), PETSC_ERR_ARG_WRONG,
             "the FFT projection needs a box without obstacles");
  // b = div u* / dt; the divergence of a rank's last cells needs faces from the next rank.
  PetscCall(velocity.fill_ghosts());
  std::array<double, 3> inv_h{1.0, 1.0, 1.0};
  for (int a = 0; a < grid.dim(); ++a) inv_h[a] = 1.0 / grid.spacing(a);
  const double inv_dt = 1.0 / dt;
  ReadArray u;
  WriteArray b;
  PetscCall(u.get_local(velocity));
  PetscCall(b.get_global(grid.cell_dm(), pressure_));
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    b(i, j, k) = cell_divergence(u, inv_h, grid.dim(), i, j, k) * inv_dt;
  });
  PetscCall(b.restore());
  PetscCall(u.restore());
  // A NaN or Inf would spread through the transform to every cell of the box; stop with the
  // place it came from instead. The 2-norm, because a sum carries a NaN through the reduction
  // over ranks, where the maximum of NORM_INFINITY may drop it (NaN > x is false).
  PetscReal norm = 0.0;
  PetscCall(VecNorm(pressure_, NORM_2, &norm));
  if (!std::isfinite(static_cast<double>(norm)))
    PetscCall(stop_non_finite_solve(grid, "pressure solve",
                                    "has a right-hand side that is not finite", velocity,
                                    nullptr));
  PetscCall(fft_.solve_poisson(pressure_));
  PetscCall(subtract_gradient(velocity, dt));
  last_dt_ = dt;
  if (stats) {
    stats->iterations = 0;
    stats->residual_norm = 0.0;
    PetscCall(max_divergence(velocity, *solids_, &stats->max_divergence));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode FftProjection::subtract_gradient(Field& velocity, double dt) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  DM dm = grid.cell_dm();
  // Borrowed from the DM's pool: allocated once, then reused every step.
  BorrowedVec pressure_local;
  PetscCall(pressure_local.get_local(dm));
  PetscCall(DMGlobalToLocalBegin(dm, pressure_, INSERT_VALUES, pressure_local));
  PetscCall(DMGlobalToLocalEnd(dm, pressure_, INSERT_VALUES, pressure_local));
  ReadArray p;
  WriteArray u;
  PetscCall(p.get_local(dm, pressure_local));
  PetscCall(u.get_global(velocity));
  for (int c = 0; c < grid.dim(); ++c) {
    const double scale = dt / grid.spacing(c);
    const PetscInt di = c == 0, dj = c == 1, dk = c == 2;
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      u(i, j, k, c) -= scale * (p(i, j, k) - p(i - di, j - dj, k - dk));
    });
  }
  PetscFunctionReturn(0);
}

PetscErrorCode FftProjection::subtract_pressure_gradient(Field& velocity, double dt) {
  PetscFunctionBeginUser;
  PetscCheck(grid_, PETSC_COMM_SELF, PETSC_ERR_ORDER, "FftProjection::setup() was not called");
  PetscCall(subtract_gradient(velocity, dt));
  PetscFunctionReturn(0);
}

PetscErrorCode FftProjection::project_increment(Field& velocity, double dt,
                                                ProjectionStats* stats) {
  PetscFunctionBeginUser;
  PetscCheck(grid_, PETSC_COMM_SELF, PETSC_ERR_ORDER, "FftProjection::setup() was not called");
  // p^n waits in a pooled vector while the solve finds the increment phi in pressure_; the
  // gradient subtracted is that of phi alone, then p^{n+1} = p^n + phi.
  DM dm = grid_->cell_dm();
  BorrowedVec base;
  PetscCall(base.get_global(dm));
  PetscCall(VecCopy(pressure_, base));
  PetscCall(project(velocity, dt, stats));
  PetscCall(VecAXPY(pressure_, 1.0, base));
  PetscFunctionReturn(0);
}

}  // namespace sf
