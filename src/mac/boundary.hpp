// Boundary conditions of the domain's faces, as data: what kind each face is, and what an inflow
// or a moving wall carries. Field::fill_ghosts() (field.hpp) turns them into ghost values.
#pragma once

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "keyframes.hpp"
#include "region.hpp"

namespace sf {

/// Boundary condition on one face of the domain (docs/design.md, "Boundaries").
enum class BoundaryKind { Periodic, NoSlip, FreeSlip, Inflow, Outflow };

/// Velocity profile across an inflow face.
/// Uniform: u = velocity everywhere on the face.
/// Parabolic: u = velocity * prod over the face's non-periodic tangential axes of 4 s (1 - s),
/// s in [0, 1] the position across that axis; so `velocity` is the centre-line (peak) value.
enum class InflowProfile { Uniform, Parabolic };

struct FaceBoundary {
  BoundaryKind kind = BoundaryKind::NoSlip;
  // Inflow: the velocity entering the domain (all dim components; the normal one must point
  // into the domain), its profile, and the values carried in by named scalars (scalars not named
  // here enter with 0).
  // No-slip: `velocity` is the wall's own (tangential) velocity, e.g. a lid-driven cavity's lid;
  // its normal component must be 0. Default: a wall at rest.
  // Walls (no-slip, free-slip): `scalar_values` are the values the named scalars are held at on
  // the wall (Dirichlet: a heated or cooled wall); `scalar_gradients` the fixed normal
  // gradients ds/dn (n out of the domain) of others (Neumann: the job's flux into the domain
  // over the scalar's diffusivity); scalars named in neither are zero-gradient there.
  // Inflow with a liquid: the regions whose union the entering liquid fills where it crosses
  // the face (Foster & Metaxas' inflow: a river, a pipe); the level set's ghosts beyond the
  // face are the distance to it. Empty: air enters (or nothing, without a liquid).
  std::vector<Region> liquid;
  std::array<double, 3> velocity{0.0, 0.0, 0.0};
  InflowProfile profile = InflowProfile::Uniform;
  std::map<std::string, double> scalar_values;
  std::map<std::string, double> scalar_gradients;

  // Inflow that varies in time: `keyframes` (a time and a velocity each, at least two, by
  // increasing time) take the place of `velocity`, linear between them and held before the first
  // and after the last (a flow that starts up, a tide table); a pulsation adds
  // `pulsation` sin(2 pi t / pulsation_period) (a heartbeat, a pump). Field::set_time() applies
  // them; the profile stays what it is.
  struct Keyframe {
    double time = 0.0;
    std::array<double, 3> velocity{0.0, 0.0, 0.0};
  };
  std::vector<Keyframe> keyframes;
  std::array<double, 3> pulsation{0.0, 0.0, 0.0};
  double pulsation_period = 0.0;  // > 0 when there is a pulsation

  bool varies() const { return !keyframes.empty() || pulsation_period > 0.0; }

  /// The inflow velocity at `time` (its peak value for a parabolic profile).
  std::array<double, 3> inflow_velocity(double time) const {
    std::array<double, 3> v = velocity;
    if (!keyframes.empty()) {
      const KeyframeSpot spot = locate_keyframe(keyframes, time);
      const Keyframe& a = keyframes[spot.n];
      v = a.velocity;
      if (!spot.held) {
        const Keyframe& b = keyframes[spot.n + 1];
        for (int c = 0; c < 3; ++c) v[c] += spot.s * (b.velocity[c] - a.velocity[c]);
      }
    }
    if (pulsation_period > 0.0) {
      const double swing = std::sin(2.0 * M_PI * time / pulsation_period);
      for (int c = 0; c < 3; ++c) v[c] += pulsation[c] * swing;
    }
    return v;
  }
};

}  // namespace sf
