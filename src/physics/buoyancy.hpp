// Buoyancy (Fedkiw, Stam & Jensen 2001; Cline et al. eq. 27): on every free face
//   f_c = 1/2 (b(idx - e_c) + b(idx)) up_c,   b = -alpha rho + beta (T - T_amb)  at cell centres,
// the mean of the face's two cells. At a domain boundary face the outside cell is a ghost,
// continued with the scalar's own boundary rule (its local vector, ghosts filled).
#pragma once

#include "force.hpp"
#include "job.hpp"

namespace sf {

class Buoyancy : public Force {
public:
  /// Resolves the density and temperature scalars by name; a name that matches no scalar is an
  /// error unless its coefficient is zero (then the term is dropped). Collective.
  PetscErrorCode setup(const Grid& grid, const BuoyancyConfig& config,
                       const std::vector<ScalarConfig>& scalars);
  /// True when at least one term acts (a scalar was found for it).
  bool acts() const { return density_index_ >= 0 || temperature_index_ >= 0; }
  PetscErrorCode add_to(const ForceState& state, const ArrayView& u) override;
  const char* event_name() const override { return "Buoyancy"; }

private:
  const Grid* grid_ = nullptr;
  BuoyancyConfig config_;
  int density_index_ = -1;      // index into the scalars, or -1
  int temperature_index_ = -1;  // index into the scalars, or -1
};

}  // namespace sf
