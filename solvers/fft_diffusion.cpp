// Backward-Euler diffusion on a periodic box by FFT (fft_diffusion.hpp has the equations).
//
// A cell-centred scalar is solved in place on its global vector. The velocity's components are
// interleaved in one vector of the face DM, which on a periodic box has the cell DM's layout;
// each component is gathered into a pooled cell vector (VecStrideGather, local, no messages),
// solved there and put back, so one scatter to FFTW's slabs serves every field.
#include "fft_diffusion.hpp"

#include <cmath>

#include "health.hpp"
#include "vec_array.hpp"

namespace sf {

PetscErrorCode FftDiffusion::setup(const Grid& grid, const SolidMask& solids) {
  PetscFunctionBeginUser;
  // The job reader refuses these combinations with the key and line; this guards other callers.
  PetscCheck(!solids.any(), grid.comm(), PETSC_ERR_ARG_WRONG,
             "the FFT diffusion needs a box without obstacles");
  grid_ = &grid;
  PetscCall(fft_.setup(grid, "diffusion_"));
  PetscFunctionReturn(0);
}

PetscErrorCode FftDiffusion::diffuse(Field& field, double coefficient, double dt,
                                     PetscInt* iterations) {
  PetscFunctionBeginUser;
  PetscCheck(grid_, PETSC_COMM_SELF, PETSC_ERR_ORDER, "FftDiffusion::setup() was not called");
  if (iterations) *iterations = 0;
  if (coefficient == 0.0) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  const double alpha = coefficient * dt;
  // A NaN or Inf would spread through the transform to every sample of the box; stop with the
  // place it came from instead. The 2-norm, because a sum carries a NaN through the reduction
  // over ranks, where the maximum of NORM_INFINITY may drop it.
  PetscReal norm = 0.0;
  PetscCall(VecNorm(field.global(), NORM_2, &norm));
  if (!std::isfinite(static_cast<double>(norm)))
    PetscCall(stop_non_finite_solve(grid, "diffusion solve", "has a right-hand side that is "
                                    "not finite", field, nullptr));
  if (field.dm() == grid.cell_dm()) {
    PetscCheck(field.components() == 1, grid.comm(), PETSC_ERR_ARG_WRONG,
               "FFT diffusion of a cell field with %d components", field.components());
    PetscCall(fft_.solve_helmholtz(field.global(), alpha));
    PetscFunctionReturn(0);
  }
  PetscCheck(field.dm() == grid.face_dm(), grid.comm(), PETSC_ERR_ARG_WRONG,
             "FFT diffusion of '%s', which is on neither the cell nor the face DM of the grid",
             field.name().c_str());
  BorrowedVec component;
  PetscCall(component.get_global(grid.cell_dm()));
  for (int c = 0; c < field.components(); ++c) {
    PetscCall(VecStrideGather(field.global(), c, component, INSERT_VALUES));
    PetscCall(fft_.solve_helmholtz(component, alpha));
    PetscCall(VecStrideScatter(component, c, field.global(), INSERT_VALUES));
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
