// The fire's test case, which its module's tests (tests/physics/test_fire.cpp) and its whole steps
// (tests/app/test_fire_steps.cpp) share: a box at rest with a block of fuel, partly inside a hot
// disc (sphere in 3D) that ignites it, and the exact reaction of one cell over a step.
#pragma once

#include <gtest/gtest.h>
#include <petscvec.h>

#include <cmath>
#include <string>
#include <vector>

#include "field.hpp"
#include "mpi_test_util.hpp"
#include "vec_array.hpp"

namespace sf::test::fire {

constexpr double kRate = 2.0, kIgnition = 0.5, kHeat = 3.0, kYield = 0.5;

/// The box (24 x 20 or 12 x 10 x 8 cells; its top an outflow, the other sides free-slip walls)
/// with fuel, temperature and soot, in that order, and a fire of the constants above. The
/// pressure's tolerance and the output directory are a whole step's; the bench ignores them.
inline std::string fire_job(const std::string& name, int dim, double dt, double expansion) {
  const std::string cells = dim == 2 ? "[24, 20]" : "[12, 10, 8]";
  const std::string size = dim == 2 ? "[1.2, 1.0]" : "[1.2, 1.0, 0.8]";
  const std::string lower = dim == 2 ? "[0.2, 0.2]" : "[0.2, 0.2, 0.2]";
  const std::string upper = dim == 2 ? "[0.9, 0.6]" : "[0.9, 0.6, 0.6]";
  const std::string centre = dim == 2 ? "[0.4, 0.4]" : "[0.4, 0.4, 0.4]";
  std::string boundary = dim == 2 ? "{x: free-slip, y: {lower: free-slip, upper: outflow}}"
                                  : "{x: free-slip, y: {lower: free-slip, upper: outflow}, "
                                    "z: free-slip}";
  return "name: " + name + "\n"
         "grid: {cells: " + cells + ", size: " + size + "}\n"
         "boundary: " + boundary + "\n"
         "scalars:\n"
         "  fuel: {initial: [{shape: box, lower: " + lower + ", upper: " + upper +
         ", value: 0.8}]}\n"
         "  temperature: {initial: [{shape: sphere, center: " + centre +
         ", radius: 0.25, value: 1.0}]}\n"
         "  soot: {background: 0.125}\n"
         "fire: {burn_rate: " + std::to_string(kRate) + ", ignition_temperature: " +
         std::to_string(kIgnition) + ", heat: " + std::to_string(kHeat) +
         ", soot: soot, soot_yield: " + std::to_string(kYield) + ", expansion: " +
         std::to_string(expansion) + "}\n"
         "pressure: {tolerance: 1e-12}\n"
         "time: {dt: " + std::to_string(dt) + ", end: 1000000}\n"
         "output: {directory: test_fire_np" + std::to_string(comm_size()) +
         ", overwrite: true, initial_frame: false}\n";
}

/// The owned values of a scalar, in the order of the owned cells.
inline std::vector<double> values(const Field& field) {
  PetscInt size = 0;
  ReadArray data;
  EXPECT_EQ(VecGetLocalSize(field.global(), &size), 0);
  EXPECT_EQ(data.get(field.global()), 0);
  return std::vector<double>(data.data, data.data + size);
}

/// What the fire makes of (fuel, temperature, soot) in one cell over a step of dt, and b.
struct Burnt {
  double fuel, temperature, soot, b;
};
inline Burnt burn(double fuel, double temperature, double soot, double dt) {
  if (!(temperature >= kIgnition && fuel > 0.0)) return {fuel, temperature, soot, 0.0};
  const double b = fuel * -std::expm1(-kRate * dt);
  return {fuel - b, temperature + kHeat * b, soot + kYield * b, b};
}

}  // namespace sf::test::fire
