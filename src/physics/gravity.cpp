#include "gravity.hpp"

namespace sf {

PetscErrorCode Gravity::add_to(const ForceState& state, const ArrayView& u) {
  PetscFunctionBeginUser;
  for (int c = 0; c < 3; ++c) {
    if (g_[c] == 0.0) continue;  // no update, as accelerate() would decide face by face
    const double du = state.dt * g_[c];
    state.faces.for_each(c, [&](int, PetscInt i, PetscInt j, PetscInt k) { u(i, j, k, c) += du; });
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
