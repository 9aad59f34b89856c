// Wind (Cline et al. eq. 26): after the forces, the free faces inside the wind's region (or all
// of them) relax towards the wind velocity w,
//   u_c <- (1 - r) u_c + r w_c,   r = min(1, rate dt),
// a relaxation rather than an acceleration, so it acts on the velocity itself, not on the sum of
// the forces.
#pragma once

#include "field.hpp"
#include "job.hpp"
#include "solids.hpp"

namespace sf {

class Wind {
public:
  Wind(const Grid& grid, const SolidMask& solids, const WindConfig& config)
      : grid_(grid), solids_(solids), config_(config) {}
  /// Relaxes the owned free faces of the global velocity. No communication.
  PetscErrorCode apply(Field& velocity, double dt) const;

private:
  const Grid& grid_;
  const SolidMask& solids_;
  WindConfig config_;
};

}  // namespace sf
