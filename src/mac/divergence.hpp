// The discrete divergence of a MAC face velocity in one cell: what the projections make zero,
// the air band's projection included.
#pragma once

#include <array>

#include "grid.hpp"
#include "solids.hpp"

namespace sf {

/// The discrete divergence of the face velocity `u` (a local view) in cell (i, j, k):
/// sum_c (u_c(i + e_c) - u_c(i)) / h_c, with inv_h[c] = 1 / h_c.
inline double cell_divergence(const ConstArrayView& u, const std::array<double, 3>& inv_h,
                              int dim, PetscInt i, PetscInt j, PetscInt k) {
  double div = (u(i + 1, j, k, 0) - u(i, j, k, 0)) * inv_h[0] +
               (u(i, j + 1, k, 1) - u(i, j, k, 1)) * inv_h[1];
  if (dim == 3) div += (u(i, j, k + 1, 2) - u(i, j, k, 2)) * inv_h[2];
  return div;
}

/// The divergence of the flux through the open part of the faces of cell (i, j, k),
/// sum_c (F u_c(i + e_c) - F u_c(i)) / h_c with F = SolidMask::face_fraction: what the projection
/// makes zero (Batty, Bertails & Bridson 2007). cell_divergence() where no obstacle is cut.
inline double open_divergence(const ConstArrayView& u, const SolidMask& solids,
                              const std::array<double, 3>& inv_h, int dim, PetscInt i, PetscInt j,
                              PetscInt k) {
  if (!solids.cut()) return cell_divergence(u, inv_h, dim, i, j, k);
  double div = 0.0;
  for (int c = 0; c < dim; ++c) {
    const PetscInt up[3] = {i + (c == 0), j + (c == 1), k + (c == 2)};
    div += (solids.face_fraction(c, up[0], up[1], up[2]) * u(up[0], up[1], up[2], c) -
            solids.face_fraction(c, i, j, k) * u(i, j, k, c)) *
           inv_h[c];
  }
  return div;
}

}  // namespace sf
