// The liquid fraction a level set shows: what frames store and the volume the liquid is judged
// by (physics/level_set.hpp).
#pragma once

#include <cmath>

namespace sf {

/// The smeared Heaviside's half-width, in cells (Sussman, Smereka & Osher 1994).
constexpr double kHeavisideCells = 1.5;

/// H(-phi), smeared over 1.5 h either side of the surface (h the smallest spacing): 1 deep in
/// the liquid (phi < 0), 0 deep in the air, 1/2 on the surface.
inline double liquid_fraction(double phi, double h) {
  const double epsilon = kHeavisideCells * h;
  const double x = -phi;
  if (x <= -epsilon) return 0.0;
  if (x >= epsilon) return 1.0;
  return 0.5 * (1.0 + x / epsilon + std::sin(M_PI * x / epsilon) / M_PI);
}

}  // namespace sf
