// What every Krylov solver of the solvers layer sets up the same way: a DMDA for its unknowns that
// lines up with the grid's cell DM, and a CG solver whose stopping rule means the same for every
// preconditioner. Projection and diffusion differ only in what comes after (their operator,
// their preconditioner defaults), so one helper keeps the two from drifting apart.
#pragma once

#include <petscksp.h>

#include <string>

#include "grid.hpp"
#include "job.hpp"
#include "petsc_handle.hpp"

namespace sf {

using OwnedMat = Owned<Mat, MatDestroy>;
using OwnedKSP = Owned<KSP, KSPDestroy>;

/// A DMDA of one dof and stencil width 1 with exactly the process grid and the ownership ranges
/// of the grid's cell DM, so a sample lives on the rank that owns its cell. `stagger` < 0 gives
/// the cell centres; stagger = a the faces normal to axis a, whose last rank on a non-periodic
/// axis also owns the upper boundary face (its owned box is then grid.owned_faces(a)). With
/// `layered`, a 2D grid becomes a 3D DMDA one cell thick (k = 0 throughout, as elsewhere), which
/// hypre's structured matrices need. `outside` is the DMDA boundary type of the non-periodic
/// axes: DM_BOUNDARY_GHOSTED gives local vectors a ghost layer beyond the domain, which
/// matrix-free stencils fill with their boundary rule. Collective.
PetscErrorCode create_sample_dm(const Grid& grid, int stagger, bool layered, DM* dm,
                                DMBoundaryType outside = DM_BOUNDARY_NONE);

/// A CG solver with options prefix `prefix` and the job's stopping rule, before its operator,
/// preconditioner and KSPSetFromOptions (the caller's defaults come first, options override
/// them). The unpreconditioned residual makes rtol mean ||b - A x|| <= rtol ||b|| whatever the
/// preconditioner; every solve starts from the vector it is given (a warm start). Collective.
PetscErrorCode create_krylov_solver(MPI_Comm comm, const char* prefix, const SolverConfig& config,
                                    KSP* ksp);

/// One row of a 5- or 7-point operator on a cell DMDA, built a term at a time: its diagonal,
/// and its neighbours' columns.
struct StencilRow {
  StencilRow(PetscInt i, PetscInt j, PetscInt k) { columns[0] = MatStencil{k, j, i, 0}; }
  PetscScalar& diagonal() { return values[0]; }
  void add_neighbour(PetscInt i, PetscInt j, PetscInt k, PetscScalar value) {
    columns[count] = MatStencil{k, j, i, 0};
    values[count++] = value;
  }
  /// ADD_VALUES, so that a neighbour reached twice (two cells on a periodic axis) sums.
  PetscErrorCode add_to(Mat matrix) const {
    return MatSetValuesStencil(matrix, 1, columns, count, columns, values, ADD_VALUES);
  }

  MatStencil columns[7];
  PetscScalar values[7] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  PetscInt count = 1;
};

/// What a solve reports.
struct KrylovOutcome {
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  PetscInt iterations = 0;
  PetscReal residual_norm = 0.0;
};

/// Runs KSPSolve and reads its reason, iterations and residual norm.
PetscErrorCode solve_krylov(KSP ksp, Vec rhs, Vec solution, KrylovOutcome* outcome);

}  // namespace sf
