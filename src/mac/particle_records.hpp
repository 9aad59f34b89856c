// Marker particles as plain arrays: what a checkpoint writes and reads back, between the
// particle level set (physics/particle_level_set.hpp) and the files (io/checkpoint.hpp).
#pragma once

#include <cstdint>
#include <vector>

namespace sf {

/// This rank's particles, one entry per particle (position: 3 per particle, x y z).
struct ParticleRecords {
  std::vector<double> position;
  std::vector<double> sign;    // +1 air, -1 liquid
  std::vector<double> radius;
  std::vector<std::int64_t> id;

  size_t size() const { return sign.size(); }
  void resize(size_t n) {
    position.resize(3 * n);
    sign.resize(n);
    radius.resize(n);
    id.resize(n);
  }
};

}  // namespace sf
