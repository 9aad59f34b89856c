// Gravity: f = g on every free face, a constant acceleration (Foster & Metaxas; liquids later).
#pragma once

#include <array>

#include "force.hpp"

namespace sf {

class Gravity : public Force {
public:
  explicit Gravity(const std::array<double, 3>& g) : g_(g) {}
  PetscErrorCode add_to(const ForceState& state, const ArrayView& u) override;
  const char* event_name() const override { return "Gravity"; }

private:
  std::array<double, 3> g_;
};

}  // namespace sf
