// Air behind the walls a liquid leaves, for the level set's advection (see wall_separation.hpp).
#include "wall_separation.hpp"

#include <algorithm>

#include "vec_array.hpp"

namespace sf {

namespace {

/// Calls f(i, j, k, a, side) for every liquid cell of `cells` (a box spanning the other axes)
/// next to a wall of the domain whose face velocity in `u` points away from the wall, on the
/// rank that owns the cells next to that wall (it owns the wall's face and, with
/// DM_BOUNDARY_GHOSTED, the ghosts beyond it). `level` and `u` are both global or both local
/// views.
template <typename F>
void for_each_leaving_cell(const Grid& grid, const SolidMask& solids,
                           const ConstArrayView& level, const ConstArrayView& u,
                           const IndexBox& cells, F&& f) {
  for (int a = 0; a < grid.dim(); ++a)
    for (int side = 0; side < 2; ++side) {
      if (!solids.wall(a, side)) continue;
      const PetscInt n = grid.cells(a);
      const PetscInt next = side == 0 ? 0 : n - 1;
      if (next < grid.owned_cells().lo[a] || next >= grid.owned_cells().hi[a]) continue;
      IndexBox wall_cells = cells;
      wall_cells.lo[a] = next;
      wall_cells.hi[a] = next + 1;
      for_each_index(wall_cells, [&](PetscInt i, PetscInt j, PetscInt k) {
        PetscInt face[3] = {i, j, k};
        face[a] = side == 0 ? 0 : n;
        const double w = u(face[0], face[1], face[2], a);
        if (solids.liquid(level, i, j, k) && (side == 0 ? w > 0.0 : w < 0.0)) f(i, j, k, a, side);
      });
    }
}

}  // namespace

PetscErrorCode hold_surfaces_at_leaving_walls(const Field& velocity, Field& phi,
                                              const SolidMask& solids) {
  PetscFunctionBeginUser;
  const Grid& grid = phi.grid();
  ReadArray u;
  WriteArray level;
  PetscCall(u.get_global(velocity));
  PetscCall(level.get_global(phi));
  for_each_leaving_cell(grid, solids, level, u, grid.owned_cells(),
                        [&](PetscInt i, PetscInt j, PetscInt k, int a, int) {
                          level(i, j, k) = std::max(level(i, j, k), -0.5 * grid.spacing(a));
                        });
  PetscFunctionReturn(0);
}

PetscErrorCode open_separating_walls(const Field& velocity, Field& phi, const SolidMask& solids) {
  PetscFunctionBeginUser;
  const Grid& grid = phi.grid();
  ReadArray u;
  WriteArray level;
  PetscCall(u.get_local(velocity));
  PetscCall(level.get_local(phi));
  // The cells next to a wall over the local extent of the other axes, within the domain.
  IndexBox cells;
  for (int b = 0; b < 3; ++b) {
    cells.lo[b] = level.start[b];
    cells.hi[b] = level.start[b] + level.width[b];
    if (b < grid.dim() && !grid.periodic(b)) {
      cells.lo[b] = std::max<PetscInt>(cells.lo[b], 0);
      cells.hi[b] = std::min(cells.hi[b], grid.cells(b));
    }
  }
  // Only the ghosts behind the wall change, which only this rank holds (a rank whose halo
  // reaches the cell next to the wall sends traces beyond it here): so every rank count sees
  // the same values.
  for_each_leaving_cell(grid, solids, level, u, cells,
                        [&](PetscInt i, PetscInt j, PetscInt k, int a, int side) {
                          const double h = grid.spacing(a), inside = level(i, j, k);
                          PetscInt ghost[3] = {i, j, k};
                          for (PetscInt l = 1; l <= grid.halo(); ++l) {
                            ghost[a] = (side == 0 ? 0 : grid.cells(a) - 1) + (side == 0 ? -l : l);
                            const double layer = static_cast<double>(l);
                            level(ghost[0], ghost[1], ghost[2]) =
                                std::max((layer - 0.5) * h, inside + layer * h);
                          }
                        });
  PetscFunctionReturn(0);
}

}  // namespace sf
