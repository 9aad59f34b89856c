// Backward-Euler diffusion with PETSc: the Diffusion of solvers/diffusion.hpp as one CG solve per
// component on its own sample location (krylov_diffusion.cpp explains the rows).
#pragma once

#include <memory>

#include "diffusion.hpp"

namespace sf {

/// Krylov + multigrid diffusion with PETSc (options prefix "diffusion_").
class KrylovDiffusion : public Diffusion {
public:
  KrylovDiffusion();
  ~KrylovDiffusion() override;
  KrylovDiffusion(const KrylovDiffusion&) = delete;  // owns PETSc objects through impl_
  KrylovDiffusion& operator=(const KrylovDiffusion&) = delete;
  /// Records the grid, the mask and the stopping rule. The DM, matrix and KSP (options prefix
  /// "diffusion_") of a sample location (cells, or the faces of one axis) are created the first
  /// time a component on it is diffused with a nonzero coefficient, so a run without viscosity
  /// pays no memory for the face locations. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const SolverConfig& config);
  PetscErrorCode diffuse(Field& field, double coefficient, double dt,
                         PetscInt* iterations) override;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The diffusion strategy for the job (today the Krylov one). Collective.
}  // namespace sf
