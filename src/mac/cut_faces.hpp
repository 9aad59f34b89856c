// Fractional face areas of cut obstacles (Batty, Bertails & Bridson 2007, "A fast variational
// framework for accurate solid-fluid coupling"; Ng, Min & Gibou 2009, "An efficient fluid-solid
// coupling algorithm for single-phase flows"): the part of each MAC face that lies outside
// every obstacle, from the obstacles' signed distance sampled at the face's corners and
// interpolated linearly along its edges (2D) or over four triangles (3D). A surface that is
// linear across a face gets its exact fraction, so the fractions of a smooth surface are
// second-order accurate and a circle or a sphere is round to that order in the pressure solve.
#pragma once

#include <vector>

#include "region.hpp"

namespace sf {

/// Signed distance from x to the surface of `region`: negative inside, positive outside.
/// Exact for spheres (discs in 2D), cylinders and boxes.
double region_distance(const Region& region, const double x[3], int dim);

/// The smallest region_distance() over `regions` (the distance to their union, exact outside
/// it and a lower bound on the depth inside); +infinity for none.
double union_distance(const std::vector<Region>& regions, const double x[3], int dim);

/// The fluid part (distance >= 0) of a segment whose ends have distances a and b, with the
/// distance taken as linear along it.
double segment_fluid_fraction(double a, double b);

/// The fluid part of a triangle whose corners have distances a, b and c, with the distance
/// taken as linear over it.
double triangle_fluid_fraction(double a, double b, double c);

/// The fluid part of a square with corner distances d00, d10, d11, d01 (in order round it) and
/// centre distance dc: four triangles from the centre, each linear.
double square_fluid_fraction(double d00, double d10, double d11, double d01, double dc);

}  // namespace sf
