// The viscoelastic material's test case, which its module's tests
// (tests/physics/test_viscoelastic.cpp) and its whole steps (tests/app/test_viscoelastic_steps.cpp)
// share: a disc (sphere in 3D) of material in the middle of a closed box.
#pragma once

#include <string>

namespace sf::test::viscoelastic {

/// A closed box of side 1 with free-slip walls and `cells` cells a side, no gravity, a scalar
/// `material` that is 1 inside a disc (sphere) of radius 0.25 about the centre, 0 elsewhere
/// (`material_background` 1: everywhere), and the given keys of a viscoelastic section whose
/// material is that scalar (no section if empty). The output directory is a whole step's; the
/// bench ignores it.
inline std::string box_job(const std::string& name, int dim, int cells,
                           const std::string& viscoelastic, const std::string& more = "",
                           double material_background = 0.0) {
  const std::string n = std::to_string(cells);
  const std::string grid =
      dim == 2 ? "grid: {cells: [" + n + ", " + n + "]}\n"
               : "grid: {cells: [" + n + ", " + n + ", " + n + "]}\n";
  const std::string boundary = dim == 2 ? "boundary: {x: free-slip, y: free-slip}\n"
                                        : "boundary: {x: free-slip, y: free-slip, z: free-slip}\n";
  const std::string centre = dim == 2 ? "[0.5, 0.5]" : "[0.5, 0.5, 0.5]";
  std::string job = "name: " + name + "\n" + grid + boundary +
                    "scalars:\n"
                    "  material:\n"
                    "    background: " + std::to_string(material_background) + "\n"
                    "    initial: [{shape: sphere, center: " + centre +
                    ", radius: 0.25, value: 1}]\n" + more +
                    "time: {dt: 0.01, end: 100}\n"
                    "output: {directory: test_viscoelastic_" + name + ", overwrite: true, "
                    "initial_frame: false}\n";
  if (!viscoelastic.empty()) job += "viscoelastic: {material: material, " + viscoelastic + "}\n";
  return job;
}

}  // namespace sf::test::viscoelastic
