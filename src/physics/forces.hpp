// Sources and forces (DESIGN.md step 2; Stam §2.2 step 1; Cline et al. §9.3; Fedkiw et al. 2001).
// velocity += dt f on every free face (SolidMask::fixed_face faces are left alone), with
//   gravity                 f = g
//   buoyancy                f = (-alpha density + beta (T - T_amb)) up   (cell centres -> faces)
//   vorticity confinement   f = epsilon h (N x omega), N = grad|omega| / |grad|omega||
//   wind                    u = (1 - rate dt) u + rate dt w   (in a region or everywhere)
//   force regions           f = acceleration inside the region
// and scalar sources (set or add a value in a region, optionally with a velocity).
#pragma once

#include <vector>

#include "job.hpp"
#include "solids.hpp"

namespace sf {

class Forces {
public:
  /// Resolves scalar names (buoyancy) against `scalars` and prepares work vectors. Collective.
  PetscErrorCode setup(const Grid& grid, const ForcesConfig& config, const SolidMask& solids,
                       const std::vector<ScalarConfig>& scalars);
  /// Adds dt f to the global velocity. `velocity` and `scalars` must have their ghosts filled.
  /// Collective.
  PetscErrorCode apply(Field& velocity, const std::vector<Field>& scalars, double dt);

private:
  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  ForcesConfig config_;
  int density_index_ = -1;      // index into scalars, or -1
  int temperature_index_ = -1;  // index into scalars, or -1
  Field vorticity_magnitude_;   // |omega| at cell centres, with a halo for its gradient

  /// Fills confinement_force_ from the ghosted velocity. Collective (halo exchange of |omega|).
  PetscErrorCode compute_confinement(const Field& velocity);

  // The confinement force epsilon h (N x omega) at cell centres, 3 components per cell (omega
  // until |omega| is known, then the force; in 2D the third is 0), on the owned cells plus the
  // layer below them on every axis (where that layer is inside the domain or across a periodic
  // boundary). A face's lower cell is in that layer, so the owner computes the force there itself
  // (same formula, same exchanged inputs, same bits as its neighbour) instead of exchanging a
  // force field.
  IndexBox confinement_box_;
  std::vector<PetscScalar> confinement_force_;
};

/// Applies the sources of `config` to `scalar` (and, for sources with a velocity, to the free
/// faces of `velocity` inside the region). Works on global vectors. Collective only through PETSc
/// array access (no communication).
PetscErrorCode apply_sources(const ScalarConfig& config, Field& scalar, Field& velocity,
                             const SolidMask& solids, double dt);

/// s /= 1 + dt a in every owned cell (Stam's dissipation; solid cells too, which nothing enters
/// or leaves, so their value never matters). Does nothing when a == 0.
PetscErrorCode dissipate(Field& scalar, double rate, double dt);

}  // namespace sf
