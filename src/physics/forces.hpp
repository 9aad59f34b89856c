// The forces of step 2 in docs/design.md, "One step" (Stam §2.2 step 1; Cline et al. §9.3;
// Fedkiw, Stam & Jensen 2001), on every free face of the MAC grid (SolidMask::fixed_face faces
// are left alone):
//
//   u_c <- u_c + dt g_c                                gravity                gravity.hpp
//   u_c <- u_c + dt 1/2 (b(idx - e_c) + b(idx)) up_c   buoyancy               buoyancy.hpp
//   u_c <- u_c + dt 1/2 (F_c(idx - e_c) + F_c(idx))    vorticity confinement  (its .hpp)
//   u_c <- u_c + dt sum of a_c over the force regions  force regions          force_regions.hpp
//   u_c <- u_c + dt A 1/2 (s(idx - e_c) + s(idx)) n_c  density-weighted noise  density_noise.hpp
//   u_c <- (1 - r) u_c + r w_c                         wind, r = min(1, rate dt)   wind.hpp
//
// Each force adds dt f to the velocity's global vector itself, in the order above, and only where
// its f != 0 (a zero force is no update: the face keeps its bits, a signed zero included). No sum
// of the forces is stored: that face vector was 24 bytes per cell. Every force is evaluated from
// the state on entry, the ghosted local vectors, which are not refreshed until the forces are
// done, so no force sees another one's increment (test_forces pins this). The fixed order fixes
// the bits on any number of ranks; against one u += dt (f_1 + f_2 + ...) the velocity differs by
// rounding only. The wind relaxes the velocity after all forces. The scalar sources and
// dissipation are in sources.hpp.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "force.hpp"
#include "force_regions.hpp"
#include "job.hpp"
#include "wind.hpp"

namespace sf {

class Forces {
public:
  /// Builds the job's forces in the order above: resolves scalar names (buoyancy), checks the
  /// halo (confinement) and finds the free faces. Collective.
  PetscErrorCode setup(const Grid& grid, const ForcesConfig& config, const SolidMask& solids,
                       const std::vector<ScalarConfig>& scalars);
  /// Adds dt f of every force to the global velocity, then applies the wind, for a step of dt
  /// that begins at `time` (what force regions' time profiles and the noise are evaluated at).
  /// `velocity` and `scalars` must have their ghosts filled. Collective.
  PetscErrorCode apply(Field& velocity, const std::vector<Field>& scalars, double dt,
                       double time);
  /// Force regions added to the job's while the run goes on (a steering file, steering.hpp):
  /// applied after the job's own forces; empty: none. Local (every rank gives the same).
  void set_steered(const std::vector<ForceRegion>& regions);

private:
  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  std::vector<std::unique_ptr<Force>> forces_;  // applied in this order
  std::vector<PetscLogEvent> events_;           // of each force, for -log_view
  std::optional<Wind> wind_;
  std::unique_ptr<ForceRegions> steered_;  // from a steering file; null: none
  PetscLogEvent steered_event_ = -1;
  FreeFaces faces_;  // rebuilt if the mask changes
};

}  // namespace sf
