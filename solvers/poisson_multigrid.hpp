// The pressure operator without a stored matrix, and PETSc's geometric multigrid (PCMG) over it.
//
// A = -lap with the projection's boundary rules (krylov_projection.cpp) is a 7-point stencil
// whose only data are which faces are open: a face couples its two cells with weight 1/h_a^2
// when its velocity is free, and is closed (weight 0) when it is prescribed. An outflow face is
// open too; its ghost cell holds -p (p = 0 on the face), which the ghost fill below writes, so
// the kernels need no boundary branches. The finest level therefore stores one byte per cell
// (the open lower faces) instead of seven coefficients, and its MatMult reads the pressure and
// those bytes only. Where an obstacle is cut (solids.hpp), a face's weight is its open fraction
// times 1/h_a^2, and the finest level stores weights as the coarse ones do (one double per axis
// and cell); everything else is the same.
//
// Coarse levels halve every axis (cell-centred: a coarse cell is the union of 2^dim fine cells).
// Interpolation P is piecewise constant and restriction is its transpose (the sum over the 2^dim
// fine cells). A coarse face's weight is half the sum of the weights of the fine faces it covers:
// that is (1/2) P^T A P, the Galerkin operator, whose plain form is twice the operator
// rediscretised on the coarse grid (in every dimension), so the half makes the coarse
// correction the right size; a face half blocked by a solid gets half the weight. Coarse
// weights are stored (one double per axis and cell, 1/8 of the fine cells in 3D, 1/4 in 2D).
//
// Smoothing is red-black Gauss-Seidel (colour = parity of i + j + k), red then black before the
// coarse correction and black then red after it, so the V-cycle is symmetric and preconditions
// CG. The coarsest level is assembled (it is small) and solved directly, or with an algebraic
// multigrid cycle when the grid cannot be coarsened far (cell counts with few factors of two).
//
// Distribution: every level keeps the process grid; a rank owns the coarse cells whose first
// fine cell it owns, so transfers read at most one layer of ghosts, and they exchange only when
// some rank's ownership range starts or ends on an odd fine cell.
#pragma once

#include <petscksp.h>

#include <memory>

#include "solids.hpp"

namespace sf {

class PoissonMultigrid {
public:
  PoissonMultigrid();
  ~PoissonMultigrid();
  PoissonMultigrid(const PoissonMultigrid&) = delete;
  PoissonMultigrid& operator=(const PoissonMultigrid&) = delete;

  /// Builds the levels under `fine_dm` (the pressure DM: cell-centred, star stencil of width 1,
  /// DM_BOUNDARY_GHOSTED on non-periodic axes, the cell DM's ownership ranges) and their shell
  /// operators; update() then computes their faces. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, DM fine_dm);
  /// Computes every level's faces from the mask, at set-up and after the mask changed.
  /// Collective.
  PetscErrorCode update();
  /// The finest operator A, a MATSHELL (MatMult, MatGetDiagonal), for the Krylov solver.
  Mat fine_operator() const;
  /// Makes `pc` a PCMG over the levels: shell operators and transfers, one red-black
  /// Gauss-Seidel sweep before and after the coarse correction, a direct solve on the coarsest
  /// level. Call before KSPSetFromOptions, so that -pressure_mg_* options still apply.
  /// Collective.
  PetscErrorCode configure(PC pc);
  /// Number of levels, the finest included; level 0 is the coarsest, as in PCMG.
  int levels() const;
  /// The shell operator of a level (the finest: as the smoothers see it, without null space).
  Mat level_operator(int level) const;
  /// The shell interpolation from level - 1 to `level` (its transpose is the restriction).
  Mat interpolation(int level) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sf
