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
// Distribution and memory. |omega| is computed on the owned cells into a vector borrowed from
// PETSc's pool of the cell DM (DMGetGlobalVector / DMGetLocalVector, returned at the end of the
// force, so other stages that borrow from the same pool share the memory) and its halo exchanged
// once. F is not stored: it is evaluated plane by plane (z) on the owned cells and the layer of
// cells just below them (inside the domain or across a periodic boundary), and each face plane
// takes its f from the two cell planes around it, the only F kept being two planes of the box.
// The box's lower layer needs |omega| and the face velocity two cells down: hence a halo of at
// least 2. A rank thus evaluates the lower cell of its first face itself, with the same formula and
// the same exchanged inputs as the cell's owner, instead of exchanging a force field. The curl is
// evaluated twice per cell (for |omega| and for F) instead of being stored: 24 bytes per cell
// (omega, then F, 3 components) that the stage no longer holds. Both passes go along rows four
// cells at a time (lanes.hpp) with the same bits as one at a time; on the side-by-side plume
// (solvers/README.md, "Advection speed") the force costs 0.068 s per step, 0.091 s before.
#pragma once

#include <array>

#include "force.hpp"

namespace sf {

class VorticityConfinement : public Force {
public:
  /// Checks epsilon > 0 and the halo (>= 2) and prepares the two planes of F. Collective.
  PetscErrorCode setup(const Grid& grid, double epsilon);
  /// Collective (halo exchange of |omega|).
  PetscErrorCode add_to(const ForceState& state, const ArrayView& u) override;
  const char* event_name() const override { return "VortConfinement"; }

private:
  const Grid* grid_ = nullptr;
  double epsilon_ = 0.0;
  // The owned cells plus the layer below them on every axis (where that layer is inside the
  // domain or across a periodic boundary): the cells whose F the owned faces read.
  IndexBox box_;
  // F at cell centres, 3 components per cell (in 2D the third is 0), on two consecutive z planes
  // of box_, plane kc in slot kc & 1.
  std::array<std::vector<PetscScalar>, 2> planes_;
};

}  // namespace sf
