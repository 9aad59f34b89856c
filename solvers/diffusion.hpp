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

/// A diffusion strategy (step 4 of docs/design.md, "One step"): an alternative (an FFT solve on a
/// periodic box, say) is a new class and one entry in make_diffusion.
class Diffusion {
public:
  virtual ~Diffusion() = default;
  /// Solves in place on the global vector of `field` (every component). Does nothing when
  /// coefficient == 0. `iterations` receives the total iterations of the solver. Collective.
  virtual PetscErrorCode diffuse(Field& field, double coefficient, double dt,
                                 PetscInt* iterations) = 0;
};

/// The diffusion strategy for the job: the Krylov one, or with diffusion.solver: fft on a
/// periodic box the FFT one (fft_diffusion.hpp). Collective.
PetscErrorCode make_diffusion(const Grid& grid, const SolidMask& solids, const SolverConfig& config,
                              std::unique_ptr<Diffusion>* diffusion);

}  // namespace sf
