// Volume control for a level-set liquid (Kim, Liu, Llamas, Jiao & Rossignac 2007, "Simulation
// of bubbles in foam with the volume control method", ACM Trans. Graph. 26(3), §4): the level
// set's advection, reinitialisation and thin sheets lose or gain volume that nothing in the
// level set restores. The controller gives the projection a divergence in every liquid cell,
//
//   div u = -c,   c = (k_p x + k_i ∫ x dt) / (x + 1),   x = (V - V_0) / V_0,
//
// V the liquid's volume before the projection, V_0 the initial one. The liquid's volume then
// changes at dV/dt = -c V, that is dx/dt = -(k_p x + k_i ∫ x dt): the 1 / (x + 1) makes the
// loop linear in x whatever its size. With k_p = 2 / T and k_i = 1 / T^2 both roots of
// s^2 + k_p s + k_i are -1 / T (critically damped: an error x_0 with nothing summed yet decays
// as x_0 (1 - t / T) e^{-t / T}, crossing zero once and overshooting by at most e^{-2} |x_0|),
// and against a steady leak dx/dt = -L the integral settles at k_i ∫ x = -L with x = 0: no
// offset, where a proportional controller alone leaves x = -L / k_p. (Kim et
// al. use the same form with gains tuned per scene; these are the critically damped pair for
// one time scale T, which the job sets: liquid.volume_control.response_time, by default 25
// steps.) The controller keeps a number, not the water where it was: a sheet the level set
// thins away comes back as a slightly higher surface everywhere. The vof interface keeps its
// volume without one (volume_of_fluid.hpp), so the job refuses the two together.
#pragma once

#include <vector>

namespace sf {

class VolumeController {
public:
  /// `response_time` T > 0: the gains k_p = 2 / T, k_i = 1 / T^2.
  explicit VolumeController(double response_time = 1.0);

  /// One step of length dt: the divergence -c every liquid cell is to have, for the measured
  /// volume V and the initial V_0 > 0.
  double update(double volume, double initial_volume, double dt);

  /// What a restart needs to go on bit for bit: the integral of x.
  std::vector<double> state() const { return {integral_}; }
  /// Returns false (and changes nothing) unless `state` is one state() returned.
  bool restore(const std::vector<double>& state);

  double proportional_gain() const { return proportional_; }
  double integral_gain() const { return integral_gain_; }

private:
  double proportional_ = 0.0, integral_gain_ = 0.0;
  double integral_ = 0.0;  // ∫ x dt over the steps so far
};

}  // namespace sf
