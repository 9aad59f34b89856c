// The channel that the tests of inflows varying in time drive, on a bench (the inflows module's
// stage on the boundary data) and through whole steps (the channel the projection moves).
#pragma once

#include <string>

#include "mpi_test_util.hpp"

namespace sf::test {

/// A 2-D channel 4 long and 1 wide (32 x 8 cells) with walls that let the fluid slide, entered
/// through its lower x side by the inflow `inflow` (the keys after type: inflow) and left
/// through its upper x side, in steps of 0.05.
inline std::string channel(const std::string& name, const std::string& inflow) {
  return "name: " + name + "\n"
         "grid: {cells: [32, 8], size: [4, 1]}\n"
         "boundary:\n"
         "  x: {lower: {type: inflow, " + inflow + "}, upper: outflow}\n"
         "  y: free-slip\n"
         "time: {dt: 0.05, end: 1}\n"
         "output: {directory: inflow_np" + std::to_string(comm_size()) +
         ", overwrite: true, initial_frame: false}\n";
}

}  // namespace sf::test
