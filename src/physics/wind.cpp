#include "wind.hpp"

#include <algorithm>

#include "region.hpp"
#include "vec_array.hpp"

namespace sf {

PetscErrorCode Wind::apply(Field& velocity, const FreeFaces& faces, double dt) const {
  PetscFunctionBeginUser;
  const Grid& grid = grid_;
  const int dim = grid.dim();
  const double relax = std::min(1.0, config_.rate * dt);
  const bool everywhere = !config_.has_region;
  WriteArray u;
  PetscCall(u.get_global(velocity));
  faces.for_each([&](int c, PetscInt i, PetscInt j, PetscInt k) {
    if (!everywhere) {
      double x[3];
      grid.face_center(c, i, j, k, x);
      if (!region_contains(config_.region, x, dim)) return;
    }
    u(i, j, k, c) = (1.0 - relax) * u(i, j, k, c) + relax * config_.velocity[c];
  });
  PetscFunctionReturn(0);
}

}  // namespace sf
