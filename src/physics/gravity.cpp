#include "gravity.hpp"

namespace sf {

PetscErrorCode Gravity::add_to(const ForceState&, const ArrayView& sum) {
  PetscFunctionBeginUser;
  for_each_owned_face(grid_, [&](int c, PetscInt i, PetscInt j, PetscInt k) {
    sum(i, j, k, c) += g_[c];
  });
  PetscFunctionReturn(0);
}

}  // namespace sf
