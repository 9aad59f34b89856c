// Advection stage (step 3 of docs/design.md, "One step"). Strategies share one interface, so an
// alternative scheme is a new class rather than a flag inside a loop, and one entry in
// make_advection (advection.cpp):
// semi_lagrangian.* (Stam's one pass), error_compensated.* (MacCormack and BFECC).
#pragma once

#include <memory>
#include <vector>

#include "job.hpp"
#include "solids.hpp"

namespace sf {

struct AdvectionStats {
  PetscInt remote_points = 0;  // sample points, over all ranks, whose trace needed another rank
};

class Advection {
public:
  virtual ~Advection() = default;
  /// Advects the velocity and the first scalar_count scalars (make_advection's) through the
  /// velocity in velocity.local() (the old velocity; the caller has filled its ghosts, and those
  /// of every scalar); scalars after them are carried by their modules (a liquid's volume
  /// fraction) and left alone. New values go to the global vectors; prescribed faces keep
  /// theirs. Collective.
  virtual PetscErrorCode advect(Field& velocity, std::vector<Field>& scalars, double dt,
                                AdvectionStats* stats) = 0;
};

/// Builds the advection strategy the job asks for. Collective.
PetscErrorCode make_advection(const Grid& grid, const SolidMask& solids,
                              const AdvectionConfig& config, int scalar_count,
                              std::unique_ptr<Advection>* advection);

}  // namespace sf
