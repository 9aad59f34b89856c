// The set-up of the variable-viscosity solve (variable_viscosity.hpp, variable_viscosity.cpp for
// the rows): the face DM with a box stencil, the matrix's pattern, the Krylov solver and its
// multigrid preconditioner, and the kind of every sample (free, prescribed, outside).
#include <algorithm>
#include <cmath>
#include <string>

#include "health.hpp"
#include "variable_viscosity_impl.hpp"

namespace sf {

using namespace viscous;

PetscErrorCode VariableViscosity::Impl::create() {
  PetscFunctionBeginUser;
  // The face DM's process grid and ownership ranges (its last rank along a non-periodic axis
  // owns the upper boundary layer), with stencil width 1 and a box stencil: a shear stress couples
  // u_a at m with u_b at m + e_b - e_a.
  DM faces = grid->face_dm();
  std::array<PetscInt, 3> procs{1, 1, 1}, sizes{1, 1, 1};
  PetscCall(DMDAGetInfo(faces, nullptr, &sizes[0], &sizes[1], &sizes[2], &procs[0], &procs[1],
                        &procs[2], nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
  const PetscInt* ranges[3] = {nullptr, nullptr, nullptr};
  PetscCall(DMDAGetOwnershipRanges(faces, &ranges[0], &ranges[1], &ranges[2]));
  DMBoundaryType bt[3] = {DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE};
  for (int a = 0; a < dim; ++a)
    if (grid->periodic(a)) bt[a] = DM_BOUNDARY_PERIODIC;
  if (dim == 2) {
    PetscCall(DMDACreate2d(grid->comm(), bt[0], bt[1], DMDA_STENCIL_BOX, sizes[0], sizes[1],
                           procs[0], procs[1], dim, 1, ranges[0], ranges[1], dm.replace()));
  } else {
    PetscCall(DMDACreate3d(grid->comm(), bt[0], bt[1], bt[2], DMDA_STENCIL_BOX, sizes[0],
                           sizes[1], sizes[2], procs[0], procs[1], procs[2], dim, 1, ranges[0],
                           ranges[1], ranges[2], dm.replace()));
  }
  PetscCall(DMSetUp(dm));
  PetscInt lo[3] = {0, 0, 0}, width[3] = {1, 1, 1};
  PetscCall(DMDAGetCorners(dm, &lo[0], &lo[1], &lo[2], &width[0], &width[1], &width[2]));
  for (int a = 0; a < 3; ++a) {
    rows.lo[a] = lo[a];
    rows.hi[a] = lo[a] + width[a];
  }
  PetscCall(create_matrix());
  PetscCall(MatSetOption(matrix, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(matrix, MAT_SPD, PETSC_TRUE));
  PetscCall(DMCreateGlobalVector(dm, solution.replace()));
  PetscCall(DMCreateGlobalVector(dm, rhs.replace()));
  PetscFunctionReturn(0);
}

// A new KSP for a newly filled matrix, so that the solve is a function of the matrix alone and
// a restarted run repeats an uninterrupted one bit for bit: a preconditioner set up again may
// keep state from its last set-up. Its cost is small beside the multigrid set-up the refill
// needs anyway.
PetscErrorCode VariableViscosity::Impl::make_solver() {
  PetscFunctionBeginUser;
  PetscCall(create_krylov_solver(grid->comm(), kPrefix, config, ksp.replace()));
  // Far beyond the explicit limit the first guess u* is far from the solution (its residual is
  // about nu dt / h^2 times u*), and the default divergence test (1e5 ||b||) would stop the solve
  // at its first iterate.
  PetscCall(KSPSetTolerances(ksp, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_MAX_REAL, PETSC_DEFAULT));
  PC pc;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, kDefaultPreconditioner));
  PetscCall(KSPSetFromOptions(ksp));
  // The levels read their options when the preconditioner is first set up: the defaults go into
  // the options database now, for GAMG only (another preconditioner would leave them unread) and
  // only where the user gave none.
  PetscBool gamg = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCGAMG, &gamg));
  for (const auto& [key, value] : kLevelSmoother) {
    const std::string option = std::string("-") + kPrefix + key;
    PetscBool given = PETSC_FALSE;
    PetscCall(PetscOptionsHasName(nullptr, nullptr, option.c_str(), &given));
    if (gamg && !given) PetscCall(PetscOptionsSetValue(nullptr, option.c_str(), value));
  }
  PetscCall(KSPSetOperators(ksp, matrix, matrix));
  PetscFunctionReturn(0);
}

// The matrix with exactly the couplings a row can have, made once: u_c at m meets u_c at m and
// its 2 dim neighbours, and every other component b at the 4 samples of the two edges it shares
// with it (m, m - e_c, m + e_b, m + e_b - e_c): 9 columns a row in 2D, 15 in 3D, where
// DMCreateMatrix's box stencil would hold 18 and 81. Stencil indices work on it as on a DMDA's
// own matrix (MatSetStencil and the DM's local-to-global mapping).
PetscErrorCode VariableViscosity::Impl::create_matrix() {
  PetscFunctionBeginUser;
  std::array<PetscInt, 3> size{1, 1, 1};
  PetscCall(DMDAGetInfo(dm, nullptr, &size[0], &size[1], &size[2], nullptr, nullptr, nullptr,
                        nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
  const PetscInt local_rows = rows.count() * dim;
  std::vector<PetscInt> diagonal_counts, off_counts;
  diagonal_counts.reserve(static_cast<size_t>(local_rows));
  off_counts.reserve(static_cast<size_t>(local_rows));
  for_each_index(rows, [&](PetscInt i, PetscInt j, PetscInt k) {
    for (int c = 0; c < dim; ++c) {
      PetscInt here = 0, there = 0;
      const auto count = [&](Index m) {
        for (int a = 0; a < dim; ++a) {
          if (grid->periodic(a)) {
            m[a] = (m[a] + size[a]) % size[a];
          } else if (m[a] < 0 || m[a] >= size[a]) {
            return;  // beyond the domain: a ghost, folded onto a sample counted already
          }
        }
        (rows.contains(m[0], m[1], m[2]) ? here : there) += 1;
      };
      const Index m{i, j, k};
      count(m);
      for (int a = 0; a < dim; ++a)
        for (const int step : {-1, 1}) {
          Index n = m;
          n[a] += step;
          count(n);
        }
      for (int b = 0; b < dim; ++b) {
        if (b == c) continue;
        for (const int up : {0, 1})
          for (const int back : {0, 1}) {
            Index n = m;
            n[b] += up;
            n[c] -= back;
            count(n);
          }
      }
      diagonal_counts.push_back(here);
      off_counts.push_back(there);
    }
  });
  PetscCall(MatCreate(grid->comm(), matrix.replace()));
  PetscCall(MatSetSizes(matrix, local_rows, local_rows, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(matrix, MATAIJ));
  PetscCall(MatSetBlockSize(matrix, dim));
  PetscCall(MatSeqAIJSetPreallocation(matrix, 0, diagonal_counts.data()));
  PetscCall(MatMPIAIJSetPreallocation(matrix, 0, diagonal_counts.data(), 0, off_counts.data()));
  ISLocalToGlobalMapping map;
  PetscCall(DMGetLocalToGlobalMapping(dm, &map));
  PetscCall(MatSetLocalToGlobalMapping(matrix, map, map));
  PetscInt start[3] = {0, 0, 0}, width[3] = {1, 1, 1};
  PetscCall(DMDAGetGhostCorners(dm, &start[0], &start[1], &start[2], &width[0], &width[1],
                                &width[2]));
  PetscCall(MatSetStencil(matrix, dim, width, start, dim));
  // A coupling outside this pattern is a bug in the rows, not something to allocate for.
  PetscCall(MatSetOption(matrix, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

// What every sample of the owned rows is, exchanged to the ghosted extent so that a row can ask
// about its neighbours on other ranks (a face's status depends on two cells, one of which may lie
// beyond the solid mask's halo for a ghost face).
PetscErrorCode VariableViscosity::Impl::classify() {
  PetscFunctionBeginUser;
  OwnedVec owned, ghosted;
  PetscCall(DMCreateGlobalVector(dm, owned.replace()));
  PetscCall(DMCreateLocalVector(dm, ghosted.replace()));
  WriteArray view;
  PetscCall(view.get_global(dm, owned));
  for_each_index(rows, [&](PetscInt i, PetscInt j, PetscInt k) {
    const Index m{i, j, k};
    for (int c = 0; c < dim; ++c) {
      std::uint8_t kind = kFree;
      if (!in_domain(c, m)) {
        kind = kOutside;
      } else if (solids->fixed_face(c, i, j, k)) {
        const PetscInt below[3] = {i - (c == 0), j - (c == 1), k - (c == 2)};
        const bool free_slip =
            solids->cell(i, j, k) == SolidMask::FreeSlipSolid ||
            solids->cell(below[0], below[1], below[2]) == SolidMask::FreeSlipSolid;
        kind = free_slip ? kPrescribedFreeSlip : kPrescribed;
      }
      view(i, j, k, c) = kind;
    }
  });
  PetscCall(view.restore());
  PetscCall(DMGlobalToLocalBegin(dm, owned, INSERT_VALUES, ghosted));
  PetscCall(DMGlobalToLocalEnd(dm, owned, INSERT_VALUES, ghosted));
  ReadArray local;
  PetscCall(local.get_local(dm, ghosted));
  kinds_lo = local.start;
  kinds_width = local.width;
  kinds.resize(static_cast<size_t>(local.width[0] * local.width[1] * local.width[2] * dim));
  for (size_t n = 0; n < kinds.size(); ++n) kinds[n] = static_cast<std::uint8_t>(local[n]);
  PetscCall(local.restore());
  kinds_version = solids->version();
  PetscFunctionReturn(0);
}

// nu and log nu at the owned cells and one layer around them (the scalar's ghosts: a rank
// neighbour's cells, or the scalar's own boundary rule beyond the domain), and whether they
// differ from what the matrix was assembled with on any rank.
}  // namespace sf
