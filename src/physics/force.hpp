// One body force of DESIGN.md step 2 (Stam §2.2 step 1): an acceleration f_c evaluated on the
// faces of the MAC grid from the state at the start of the step (used on the free faces only).
// Forces (forces.hpp) sums the job's forces face by face in a fixed order and then applies
// u_c += dt f_c once, so no force sees another's increment and the sum has the same bits on any
// number of ranks. A new force (fire's expansion, a liquid's gravity on marker cells) is a class
// behind this interface and one line in Forces::setup (forces.cpp).
#pragma once

#include <vector>

#include "field.hpp"
#include "solids.hpp"

namespace sf {

/// What a force reads: the state on entry to the step, ghosts filled.
struct ForceState {
  const Field& velocity;
  const std::vector<Field>& scalars;
  double dt;
};

class Force {
public:
  virtual ~Force() = default;
  /// Adds this force's f_c to sum(i, j, k, c) on every face this rank owns (`sum` views the owned
  /// faces of a face-DM global vector). Forces uses the sum on the free faces only, so a force
  /// need not look the solid mask up (that lookup per face and force cost more than the sum).
  /// Collective where the force exchanges a halo.
  virtual PetscErrorCode add_to(const ForceState& state, const ArrayView& sum) = 0;
};

/// Calls visit(c, i, j, k) for every owned face of every velocity component.
template <class Visit>
void for_each_owned_face(const Grid& grid, Visit&& visit) {
  for (int c = 0; c < grid.dim(); ++c) {
    for_each_index(grid.owned_faces(c),
                   [&](PetscInt i, PetscInt j, PetscInt k) { visit(c, i, j, k); });
  }
}

/// Calls visit(c, i, j, k) for every owned face that is free, i.e. not prescribed by a wall, an
/// inflow or a solid (SolidMask::fixed_face faces are never touched).
template <class Visit>
void for_each_free_face(const Grid& grid, const SolidMask& solids, Visit&& visit) {
  for_each_owned_face(grid, [&](int c, PetscInt i, PetscInt j, PetscInt k) {
    if (!solids.fixed_face(c, i, j, k)) visit(c, i, j, k);
  });
}

}  // namespace sf
