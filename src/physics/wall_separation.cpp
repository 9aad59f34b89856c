// Air behind the walls a liquid leaves, for the level set's advection (see wall_separation.hpp).
#include "wall_separation.hpp"

#include <algorithm>

namespace sf {

PetscErrorCode hold_surfaces_at_leaving_walls(const Field& velocity, Field& phi,
                                              const SolidMask& solids) {
  PetscFunctionBeginUser;
  const Grid& grid = phi.grid();
  const IndexBox& owned = grid.owned_cells();
  const PetscScalar* u_data;
  PetscScalar* phi_data;
  ArrayView u, level;
  PetscCall(VecGetArrayRead(velocity.global(), &u_data));
  PetscCall(grid.global_view(velocity.dm(), const_cast<PetscScalar*>(u_data), &u));
  PetscCall(VecGetArray(phi.global(), &phi_data));
  PetscCall(grid.global_view(phi.dm(), phi_data, &level));
  for (int a = 0; a < grid.dim(); ++a)
    for (int side = 0; side < 2; ++side) {
      if (!solids.wall(a, side)) continue;
      const PetscInt n = grid.cells(a);
      const PetscInt next = side == 0 ? 0 : n - 1;
      if (next < owned.lo[a] || next >= owned.hi[a]) continue;
      IndexBox wall_cells = owned;
      wall_cells.lo[a] = next;
      wall_cells.hi[a] = next + 1;
      const double half = 0.5 * grid.spacing(a);
      // The rank that owns the cell next to a wall owns the wall's face too.
      for_each_index(wall_cells, [&](PetscInt i, PetscInt j, PetscInt k) {
        PetscInt at[3] = {i, j, k};
        at[a] = side == 0 ? 0 : n;
        const double w = u(at[0], at[1], at[2], a);
        if (solids.solid(i, j, k) || !(level(i, j, k) < 0.0) || !(side == 0 ? w > 0.0 : w < 0.0))
          return;
        level(i, j, k) = std::max(level(i, j, k), -half);
      });
    }
  PetscCall(VecRestoreArray(phi.global(), &phi_data));
  PetscCall(VecRestoreArrayRead(velocity.global(), &u_data));
  PetscFunctionReturn(0);
}

PetscErrorCode open_separating_walls(const Field& velocity, Field& phi, const SolidMask& solids) {
  PetscFunctionBeginUser;
  const Grid& grid = phi.grid();
  const int dim = grid.dim();
  const PetscScalar* u_data;
  PetscScalar* phi_data;
  ArrayView u, level;
  PetscCall(VecGetArrayRead(velocity.local(), &u_data));
  PetscCall(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(u_data), &u));
  PetscCall(VecGetArray(phi.local(), &phi_data));
  PetscCall(grid.local_view(phi.dm(), phi_data, &level));
  for (int a = 0; a < dim; ++a)
    for (int side = 0; side < 2; ++side) {
      if (!solids.wall(a, side)) continue;
      // This rank's local arrays reach behind the wall only if it owns the cells next to it
      // (DM_BOUNDARY_GHOSTED: the ghosts beyond the domain are the boundary rank's).
      const PetscInt n = grid.cells(a);
      const PetscInt next = side == 0 ? 0 : n - 1;
      if (next < grid.owned_cells().lo[a] || next >= grid.owned_cells().hi[a]) continue;
      // The cells next to the wall, over the local extent of the other axes within the domain.
      IndexBox wall_cells;
      for (int b = 0; b < 3; ++b) {
        wall_cells.lo[b] = level.start[b];
        wall_cells.hi[b] = level.start[b] + level.width[b];
        if (b < dim && !grid.periodic(b)) {
          wall_cells.lo[b] = std::max<PetscInt>(wall_cells.lo[b], 0);
          wall_cells.hi[b] = std::min(wall_cells.hi[b], grid.cells(b));
        }
      }
      wall_cells.lo[a] = next;
      wall_cells.hi[a] = next + 1;
      const double h = grid.spacing(a);
      const PetscInt outward = side == 0 ? -1 : 1;
      for_each_index(wall_cells, [&](PetscInt i, PetscInt j, PetscInt k) {
        PetscInt at[3] = {i, j, k};
        at[a] = side == 0 ? 0 : n;  // the wall's face
        const double w = u(at[0], at[1], at[2], a);
        if (!solids.liquid(level, i, j, k) || !(side == 0 ? w > 0.0 : w < 0.0)) return;
        // Only the ghosts behind the wall change, which only this rank holds (a rank whose
        // halo reaches the cell next to the wall sends traces beyond it here): so every rank
        // count sees the same values.
        const double inside = level(i, j, k);
        for (PetscInt l = 1; l <= grid.halo(); ++l) {
          at[a] = next + outward * l;  // the l-th ghost cell behind the wall
          const double layer = static_cast<double>(l);
          level(at[0], at[1], at[2]) = std::max((layer - 0.5) * h, inside + layer * h);
        }
      });
    }
  PetscCall(VecRestoreArray(phi.local(), &phi_data));
  PetscCall(VecRestoreArrayRead(velocity.local(), &u_data));
  PetscFunctionReturn(0);
}

}  // namespace sf
