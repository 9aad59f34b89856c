// Wind (Cline et al. eq. 26): after the forces, the free faces inside the wind's region (or all
// of them) relax towards the wind velocity w,
//   u_c <- (1 - r) u_c + r w_c,   r = min(1, rate dt),
// a relaxation rather than an acceleration, so it acts on the velocity the forces left, not as
// one more force.
#pragma once

#include "force.hpp"
#include "job.hpp"

namespace sf {

class Wind {
public:
  Wind(const Grid& grid, const WindConfig& config) : grid_(grid), config_(config) {}
  /// Relaxes the free faces (`faces`) of the global velocity. No communication.
  PetscErrorCode apply(Field& velocity, const FreeFaces& faces, double dt) const;

private:
  const Grid& grid_;
  WindConfig config_;
};

}  // namespace sf
