// Implicit diffusion (Stam §2.2 step 3), backward Euler:
//
//   (I - k dt lap) q = q*
//
// for every velocity component on its own staggered location (k = nu) and for every scalar at
// cell centres (k = kappa). The boundary terms come from the field's own boundary description
// (Field::boundary()): a ghost value g = 2 v - q_mirror (Odd) or g = q_mirror (Even) folds into
// the diagonal and the right-hand side; prescribed faces (SolidMask::fixed_face) keep their value
// (identity rows). Next to a solid cell a scalar sees no flux (Neumann) and a velocity component
// sees 0 (no-slip obstacle) or its own value (free-slip obstacle).
#pragma once

#include <memory>

#include "job.hpp"
#include "solids.hpp"

namespace sf {

/// A diffusion strategy (DESIGN.md "Numerics" step 3): an alternative (an FFT solve on a
/// periodic box, say) is a new class and one entry in make_diffusion.
class Diffusion {
public:
  virtual ~Diffusion() = default;
  /// Solves in place on the global vector of `field` (every component). Does nothing when
  /// coefficient == 0. `iterations` receives the total iterations of the solver. Collective.
  virtual PetscErrorCode diffuse(Field& field, double coefficient, double dt,
                                 PetscInt* iterations) = 0;
};

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
PetscErrorCode make_diffusion(const Grid& grid, const SolidMask& solids, const SolverConfig& config,
                              std::unique_ptr<Diffusion>* diffusion);

}  // namespace sf
