// Where a time falls among keyframes (obstacle paths, inflows that vary): one rule for every
// keyed quantity, linear between keyframes and held before the first and after the last.
#pragma once

#include <cstddef>
#include <vector>

namespace sf {

/// The stretch (keys[n].time, keys[n + 1].time] that holds a time and the fraction s along it;
/// or, when `held`, keys[n] itself (before the first keyframe or after the last). At a keyframe's
/// own time the stretch is the one that ends there: a step ending on a keyframe moved along it.
struct KeyframeSpot {
  std::size_t n = 0;
  double s = 0.0;
  bool held = true;
};

/// `keys` (at least one, each with a `time`, increasing). Linear in their number.
template <typename Key>
KeyframeSpot locate_keyframe(const std::vector<Key>& keys, double time) {
  if (time <= keys.front().time) return {0, 0.0, true};
  if (time > keys.back().time) return {keys.size() - 1, 0.0, true};
  std::size_t n = 0;
  while (keys[n + 1].time < time) ++n;
  return {n, (time - keys[n].time) / (keys[n + 1].time - keys[n].time), false};
}

}  // namespace sf
