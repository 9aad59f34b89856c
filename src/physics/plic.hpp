// Piecewise-linear interface calculation (PLIC): the liquid in a cell is the part of the cell on
// one side of a plane, m . x <= alpha in the cell's own coordinates (the unit square or cube,
// x in [0, 1]^dim), m pointing out of the liquid. Given the cell's liquid fraction f and a
// normal m, alpha is the plane's constant that cuts off exactly f; the volume-of-fluid
// advection (volume_of_fluid.hpp) then moves across each face the liquid that lies in the slab
// the face's velocity sweeps in a time step.
//
// Volume   With every m_a >= 0 (an axis with m_a < 0 is mirrored, x_a -> 1 - x_a, alpha -> alpha
//          - m_a) and m scaled so that sum m_a = 1, the volume below the plane is, by the
//          inclusion-exclusion of the cube's corners (Scardovelli & Zaleski 2000, "Analytical
//          relations connecting linear interfaces and volume fractions in rectangular grids",
//          J. Comput. Phys. 164), for alpha <= 1/2 (V(alpha) = 1 - V(1 - alpha) above) and
//          m1 <= m2 <= m3:
//            2D  alpha < m1: alpha^2 / (2 m1 m2);       else (alpha - m1/2) / m2
//            3D  alpha < m1: alpha^3 / (6 m1 m2 m3);
//                alpha >= m1 + m2 (only where m3 >= m1 + m2): (alpha - (m1 + m2)/2) / m3;
//                else (3 alpha^2 - 3 alpha m1 + m1^2) / (6 m2 m3)
//                     - ((alpha - m2)+^3 + (alpha - m3)+^3) / (6 m1 m2 m3).
//          The last form divides by m1 only terms smaller than m1^3 (alpha - m2 < m1 and alpha -
//          m3 <= m1 / 2 there), so a normal along an axis or a plane (m1 -> 0) loses no digits;
//          the textbook form's alpha^3 - (alpha - m1)^3 - ... over 6 m1 m2 m3 cancels
//          catastrophically.
// Inverse  alpha(f) in closed form where V is a power or linear (the first two 3D branches and
//          2D), by Newton's method safeguarded by bisection in the cubic branch (at most ~8
//          iterations to 1e-15). Exact conservation never rests on it: what leaves one cell
//          enters its neighbour whatever the plane (volume_of_fluid.hpp).
#pragma once

namespace sf::plic {

/// The fraction of the unit square (dim 2; m[2] unused) or cube below the plane m . x = alpha;
/// m of any signs, not all 0.
double volume(const double m[3], double alpha, int dim);

/// The alpha for which volume(m, alpha, dim) = fraction, fraction in [0, 1].
double plane_constant(const double m[3], double fraction, int dim);

/// The liquid in the slab lo <= x_axis <= lo + width of the unit cell cut by m . x <= alpha, as
/// a fraction of the whole cell (at most width).
double slab_volume(const double m[3], double alpha, int axis, double lo, double width, int dim);

}  // namespace sf::plic
