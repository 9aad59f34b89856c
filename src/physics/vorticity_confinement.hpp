// Vorticity confinement (Fedkiw, Stam & Jensen 2001; Cline et al. eqs. 28-29), which puts back
// the small swirls that semi-Lagrangian advection damps. At cell centres:
//   U_c   = 1/2 (u_c(idx) + u_c(idx + e_c))     cell-centred velocity
//   omega = curl U                              central differences (eq. 28); 2D: (0, 0, omega_z)
//   N     = grad|omega| / |grad|omega||         central differences
//   F     = epsilon h (N x omega),  h = min_a h_a   (eq. 29)
// and on every free face f_c = 1/2 (F_c(idx - e_c) + F_c(idx)). Beyond a non-periodic boundary
// the confinement quantities continue by mirror symmetry (zero normal gradient: the scalar ghost
// rule would make |omega| odd across an inflow face).
//
// Where |grad|omega|| is at rounding level relative to |omega| (a uniform flow, a solid-body
// rotation) N has no direction, only noise, and F would be a full-size force in a random
// direction. The force is zero there: N is used only where
// |grad|omega|| h > 1e-10 max|omega| over the gradient stencil.
//
// Distribution. |omega| is computed on the owned cells and its halo exchanged once. F is then
// computed on the owned cells and on the layer of cells just below them (inside the domain or
// across a periodic boundary), which needs |omega| and the face velocity two cells down: hence a
// halo of at least 2. A rank thus evaluates the lower cell of its first face itself, with the same
// formula and the same exchanged inputs as the cell's owner, instead of exchanging a force field.
#pragma once

#include "force.hpp"

namespace sf {

class VorticityConfinement : public Force {
public:
  /// Checks epsilon > 0 and the halo (>= 2) and prepares |omega| and the force box. Collective.
  PetscErrorCode setup(const Grid& grid, double epsilon);
  PetscErrorCode add_to(const ForceState& state, const ArrayView& u) override;

private:
  /// Fills force_ from the ghosted velocity. Collective (halo exchange of |omega|).
  PetscErrorCode compute(const Field& velocity);

  const Grid* grid_ = nullptr;
  double epsilon_ = 0.0;
  Field vorticity_magnitude_;  // |omega| at cell centres, with a halo for its gradient
  // The force F at cell centres, 3 components per cell (omega until |omega| is known, then the
  // force; in 2D the third is 0), on the owned cells plus the layer below them on every axis
  // (where that layer is inside the domain or across a periodic boundary).
  IndexBox box_;
  std::vector<PetscScalar> force_;
};

}  // namespace sf
