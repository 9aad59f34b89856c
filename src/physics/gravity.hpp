// Gravity: f = g on every free face, a constant acceleration (Foster & Metaxas; liquids later).
#pragma once

#include <array>

#include "force.hpp"

namespace sf {

class Gravity : public Force {
public:
  Gravity(const Grid& grid, const std::array<double, 3>& g) : grid_(grid), g_(g) {}
  PetscErrorCode add_to(const ForceState& state, const ArrayView& sum) override;

private:
  const Grid& grid_;
  std::array<double, 3> g_;
};

}  // namespace sf
