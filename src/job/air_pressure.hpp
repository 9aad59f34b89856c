// The pressure the air puts on a liquid's free surface (Foster & Metaxas 1996 §7: wind over the
// water, a pressure pulse): patches of the surface pressed by a pressure of their own, each a
// region that may move at a constant velocity and acts for a span of time. The free-surface
// projection (free_surface_projection.hpp) takes p = the patches' sum at the surface instead of
// p = 0; the liquid sinks under a high pressure and rises where it is low.
#pragma once

#include <array>
#include <limits>
#include <vector>

#include "region.hpp"

namespace sf {

struct AirPressure {
  Region region;         // where it presses at t = 0
  double pressure = 0.0;  // per unit density of the liquid (as the solver's pressure)
  std::array<double, 3> velocity{0.0, 0.0, 0.0};  // the region moves at it
  double start = 0.0;
  double end = std::numeric_limits<double>::infinity();
};

/// The air's pressure at x at `time`: the sum of the patches that hold x then.
inline double air_pressure(const std::vector<AirPressure>& patches, const double x[3],
                           double time, int dim) {
  double p = 0.0;
  for (const AirPressure& patch : patches) {
    if (time < patch.start || time >= patch.end) continue;
    const double y[3] = {x[0] - patch.velocity[0] * time, x[1] - patch.velocity[1] * time,
                         x[2] - patch.velocity[2] * time};
    if (region_contains(patch.region, y, dim)) p += patch.pressure;
  }
  return p;
}

}  // namespace sf
