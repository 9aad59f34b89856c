// Moving obstacles that the tests of the moving-obstacles module drive on a bench (where the
// module's stages put a body and what its faces carry) and through whole steps (the fluid the
// projection makes beside it), and the checks both make: the grid, the mask and the fields are
// the mac layer's, so these serve both.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "field.hpp"
#include "mpi_test_util.hpp"
#include "solids.hpp"
#include "vec_array.hpp"

namespace sf::test {

/// A square of side 0.3 turning at 1 radian per unit time about its centre (0.5, 0.5) in a
/// closed box, holding a dye that does not diffuse at 2; `more` adds keys (an output section).
inline std::string turning_square_job(const std::string& more = "") {
  return "name: turning\n"
         "grid: {cells: [48, 48], size: [1, 1]}\n"
         "boundary: {x: free-slip, y: free-slip}\n"
         "scalars: {dye: {diffusion: 0}}\n"
         "obstacles: [{shape: box, lower: [0.35, 0.35], upper: [0.65, 0.65], scalars: {dye: 2},"
         " motion: {angular_velocity: 1}}]\n"
         "time: {dt: 0.02, end: 0.5}\n" + more;
}

/// A square of side 0.2 centred at (0.3, 0.45) at the start, on keyframes: it slides right by
/// 0.2, then turns by 0.8 while it rises by 0.1, then stays (the keyframes at t = 0, 0.125 and
/// 0.25, linear in between, held after), in a closed box, with steps of 1/32; `more` adds keys.
inline std::string keyframed_square_job(const std::string& more = "") {
  return "name: keyframed\n"
         "grid: {cells: [48, 48], size: [1, 1]}\n"
         "boundary: {x: free-slip, y: free-slip}\n"
         "obstacles: [{shape: box, lower: [0.2, 0.35], upper: [0.4, 0.55], motion: {keyframes: [\n"
         "  {time: 0, position: [0, 0]}, {time: 0.125, position: [0.2, 0]},\n"
         "  {time: 0.25, position: [0.2, 0.1], angle: 0.8}]}}]\n"
         "time: {dt: 0.03125, end: 0.5}\n" + more;
}

/// The largest |u_c - expected(c, i, j, k)| over the owned faces of every component for which
/// `which(c, i, j, k)` holds, over all ranks. Collective.
template <typename Expected, typename Which>
double largest_departure(const Field& velocity, const Expected& expected, const Which& which) {
  const Grid& grid = velocity.grid();
  ReadArray u;
  EXPECT_EQ(u.get_global(velocity), 0);
  double worst = 0.0;
  for (int c = 0; c < grid.dim(); ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (which(c, i, j, k))
        worst = std::max(worst, std::abs(u(i, j, k, c) - expected(c, i, j, k)));
    });
  return global_max(worst);
}

/// The number of cells, over all ranks, whose solid flag differs from inside(x, y, z) at their
/// centre: 0 when the mask is where the motion puts the body. Collective.
template <typename Inside>
long misplaced_cells(const Grid& grid, const SolidMask& solids, const Inside& inside) {
  long misplaced = 0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const bool in = inside(grid.cell_center(0, i), grid.cell_center(1, j), grid.cell_center(2, k));
    if (in != solids.solid(i, j, k)) ++misplaced;
  });
  return global_sum(misplaced);
}

/// The largest |s - expected| of `scalar` over the owned cells for which `which(i, j, k)` holds,
/// over all ranks. Collective.
template <typename Which>
double largest_scalar_departure(const Field& scalar, double expected, const Which& which) {
  ReadArray s;
  EXPECT_EQ(s.get_global(scalar), 0);
  double worst = 0.0;
  for_each_index(scalar.grid().owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (which(i, j, k)) worst = std::max(worst, std::abs(s(i, j, k) - expected));
  });
  return global_max(worst);
}

/// True for the face of component c at (i, j, k) between a solid and a fluid cell: a body's
/// surface.
inline bool surface_face(const SolidMask& solids, int c, PetscInt i, PetscInt j, PetscInt k) {
  return solids.solid(i, j, k) != solids.solid(i - (c == 0), j - (c == 1), k - (c == 2));
}

/// Cells whose solid flag differs from the 2D square of half-side `half` centred at (cx, cy) and
/// turned by `angle`, over all ranks. Collective.
inline long misplaced_square(const Grid& grid, const SolidMask& solids, double cx, double cy,
                             double half, double angle) {
  return misplaced_cells(grid, solids, [&](double x, double y, double) {
    x -= cx;
    y -= cy;  // turned back by -angle about the centre:
    const double bx = std::cos(angle) * x + std::sin(angle) * y;
    const double by = -std::sin(angle) * x + std::cos(angle) * y;
    return std::abs(bx) <= half && std::abs(by) <= half;
  });
}

/// The largest departure, over a 2D body's surface faces, from the velocity of a rigid body
/// moving at (vx, vy) and turning at omega about (cx, cy). Collective.
inline double surface_departure(const Field& velocity, const SolidMask& solids, double vx,
                                double vy, double omega, double cx, double cy) {
  const Grid& grid = velocity.grid();
  return largest_departure(
      velocity,
      [&](int c, PetscInt i, PetscInt j, PetscInt) {
        const double x = c == 0 ? grid.face_position(0, i) : grid.cell_center(0, i);
        const double y = c == 1 ? grid.face_position(1, j) : grid.cell_center(1, j);
        return c == 0 ? vx - omega * (y - cy) : vy + omega * (x - cx);
      },
      [&](int c, PetscInt i, PetscInt j, PetscInt k) { return surface_face(solids, c, i, j, k); });
}

}  // namespace sf::test
