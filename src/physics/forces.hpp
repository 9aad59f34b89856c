// The forces of DESIGN.md step 2 (Stam §2.2 step 1; Cline et al. §9.3; Fedkiw, Stam & Jensen
// 2001), on every free face of the MAC grid (SolidMask::fixed_face faces are left alone):
//
//   f_c = g_c                                   gravity                gravity.hpp
//       + 1/2 (b(idx - e_c) + b(idx)) up_c      buoyancy               buoyancy.hpp
//       + 1/2 (F_c(idx - e_c) + F_c(idx))       vorticity confinement  vorticity_confinement.hpp
//       + a_c in every force region             force regions          force_regions.hpp
//   u_c <- u_c + dt f_c                         (only where f_c != 0: a zero force is no update,
//                                                the face keeps its bits, a signed zero included)
//   u_c <- (1 - r) u_c + r w_c                  wind, r = min(1, rate dt)   wind.hpp
//
// Every force is evaluated from the state on entry (the ghosted local vectors), so no force sees
// another one's increment; they are summed face by face in the order above, which fixes the bits
// of f on any number of ranks. The scalar sources and dissipation are in sources.hpp.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "force.hpp"
#include "job.hpp"
#include "petsc_handle.hpp"
#include "wind.hpp"

namespace sf {

class Forces {
public:
  /// Builds the job's forces in the order above: resolves scalar names (buoyancy), checks the
  /// halo (confinement) and prepares work vectors. Collective.
  PetscErrorCode setup(const Grid& grid, const ForcesConfig& config, const SolidMask& solids,
                       const std::vector<ScalarConfig>& scalars);
  /// Adds dt f to the global velocity, then applies the wind. `velocity` and `scalars` must have
  /// their ghosts filled. Collective.
  PetscErrorCode apply(Field& velocity, const std::vector<Field>& scalars, double dt);

private:
  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  std::vector<std::unique_ptr<Force>> forces_;  // summed in this order
  std::optional<Wind> wind_;
  OwnedVec sum_;  // f on the faces (face DM, global layout), when any force acts
};

}  // namespace sf
