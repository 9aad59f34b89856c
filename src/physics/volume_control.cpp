// The volume controller's arithmetic (see volume_control.hpp for the method and its source).
#include "volume_control.hpp"

namespace sf {

VolumeController::VolumeController(double response_time)
    : proportional_(2.0 / response_time),
      integral_gain_(1.0 / (response_time * response_time)) {}

double VolumeController::update(double volume, double initial_volume, double dt) {
  const double x = volume / initial_volume - 1.0;
  integral_ += x * dt;
  const double c = (proportional_ * x + integral_gain_ * integral_) / (x + 1.0);
  return -c;
}

bool VolumeController::restore(const std::vector<double>& state) {
  if (state.size() != 1) return false;
  integral_ = state[0];
  return true;
}

}  // namespace sf
