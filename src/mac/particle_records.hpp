// Particles as plain arrays: the marker particles a checkpoint writes and reads back, between
// the particle level set (physics/particle_level_set.hpp) and the files (io/checkpoint.hpp); the
// spray and foam (physics/spray.hpp) that in-situ scripts draw.
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

/// This rank's spray and foam particles (spray.hpp), one entry per particle.
struct SprayRecords {
  std::vector<double> position;  // 3 per particle
  std::vector<double> velocity;  // 3 per particle (a foam particle's is 0)
  std::vector<double> radius;
  std::vector<double> life;      // a foam particle's remaining life; 0 for spray
  std::vector<double> kind;      // 0 spray, 1 foam
  std::vector<std::int64_t> id;

  size_t size() const { return radius.size(); }
  void resize(size_t n) {
    position.resize(3 * n);
    velocity.resize(3 * n);
    radius.resize(n);
    life.resize(n);
    kind.resize(n);
    id.resize(n);
  }
};

}  // namespace sf
