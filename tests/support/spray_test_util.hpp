// The pool that the tests of spray and foam throw particles over, on a bench (the spray module's
// own stage) and through whole steps (what the liquid sheds), and the count of its particles.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "mpi_test_util.hpp"
#include "spray.hpp"

namespace sf::test {

/// A 2-D box of 2 x 2 (32 x 32 cells) with a pool `depth` deep, g = 1 down, and `spray` (the
/// keys of liquid.spray); `more` adds regions to the liquid's initial union.
inline std::string pool(const std::string& name, double depth, const std::string& spray,
                        const std::string& more = "") {
  return "name: " + name + "\n"
         "grid: {cells: [32, 32], size: [2, 2]}\n"
         "boundary: {x: free-slip, y: free-slip}\n"
         "forces: {gravity: [0, -1]}\n"
         "liquid:\n"
         "  initial: [{shape: box, lower: [-1, -1], upper: [3, " + std::to_string(depth) + "]}" +
         more + "]\n"
         "  interface: level_set\n"
         "  particles: {per_cell: 0}\n"
         "  spray: {" + spray + "}\n"
         "time: {dt: 0.05, end: 100}\n"
         "output: {directory: test_spray_np" + std::to_string(comm_size()) +
         ", overwrite: true, initial_frame: false}\n";
}

/// How many spray and foam particles there are on all ranks.
struct Census {
  PetscInt spray = 0, foam = 0;
};

/// The census of `spray`. Collective.
inline Census count(const Spray& spray) {
  Census c;
  EXPECT_EQ(spray.census(&c.spray, &c.foam), 0);
  return c;
}

}  // namespace sf::test
