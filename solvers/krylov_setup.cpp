#include "krylov_setup.hpp"

#include <array>
#include <vector>

namespace sf {

PetscErrorCode create_sample_dm(const Grid& grid, int stagger, bool layered, DM* dm,
                                DMBoundaryType outside) {
  PetscFunctionBeginUser;
  std::array<PetscInt, 3> procs{1, 1, 1};
  PetscCall(DMDAGetInfo(grid.cell_dm(), nullptr, nullptr, nullptr, nullptr, &procs[0], &procs[1],
                        &procs[2], nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
  const PetscInt* cell_ranges[3] = {nullptr, nullptr, nullptr};
  PetscCall(DMDAGetOwnershipRanges(grid.cell_dm(), &cell_ranges[0], &cell_ranges[1],
                                   &cell_ranges[2]));
  std::array<std::vector<PetscInt>, 3> ranges;
  std::array<PetscInt, 3> sizes{1, 1, 1};
  DMBoundaryType bt[3] = {DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE};
  for (int a = 0; a < grid.dim(); ++a) {
    ranges[a].assign(cell_ranges[a], cell_ranges[a] + procs[a]);
    sizes[a] = grid.face_count(stagger, a);
    if (stagger == a && !grid.periodic(a)) ranges[a].back() += 1;
    bt[a] = grid.periodic(a) ? DM_BOUNDARY_PERIODIC : outside;
  }
  if (grid.dim() == 2 && layered) {
    const PetscInt one_layer[1] = {1};
    PetscCall(DMDACreate3d(grid.comm(), bt[0], bt[1], bt[2], DMDA_STENCIL_STAR, sizes[0],
                           sizes[1], 1, procs[0], procs[1], 1, 1, 1, ranges[0].data(),
                           ranges[1].data(), one_layer, dm));
  } else if (grid.dim() == 2) {
    PetscCall(DMDACreate2d(grid.comm(), bt[0], bt[1], DMDA_STENCIL_STAR, sizes[0], sizes[1],
                           procs[0], procs[1], 1, 1, ranges[0].data(), ranges[1].data(), dm));
  } else {
    PetscCall(DMDACreate3d(grid.comm(), bt[0], bt[1], bt[2], DMDA_STENCIL_STAR, sizes[0],
                           sizes[1], sizes[2], procs[0], procs[1], procs[2], 1, 1,
                           ranges[0].data(), ranges[1].data(), ranges[2].data(), dm));
  }
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(0);
}

PetscErrorCode create_krylov_solver(MPI_Comm comm, const char* prefix, const SolverConfig& config,
                                    KSP* ksp) {
  PetscFunctionBeginUser;
  PetscCall(KSPCreate(comm, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(*ksp, config.rtol, config.atol, PETSC_DEFAULT,
                             static_cast<PetscInt>(config.max_iterations)));
  PetscCall(KSPSetInitialGuessNonzero(*ksp, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode solve_krylov(KSP ksp, Vec rhs, Vec solution, KrylovOutcome* outcome) {
  PetscFunctionBeginUser;
  PetscCall(KSPSolve(ksp, rhs, solution));
  PetscCall(KSPGetConvergedReason(ksp, &outcome->reason));
  PetscCall(KSPGetIterationNumber(ksp, &outcome->iterations));
  PetscCall(KSPGetResidualNorm(ksp, &outcome->residual_norm));
  PetscFunctionReturn(0);
}

}  // namespace sf
