// Static obstacles as solid cells (Foster & Metaxas; Cline et al. §4): a cell is solid when its
// centre lies inside an obstacle primitive. Faces touching a solid cell are held at the solid's
// velocity (zero for static obstacles) by every stage, and the pressure equation excludes solid
// cells (Neumann on their faces).
//
// The mask is static, so it is kept as a plain byte array over the cell DM's ghosted extent
// (halo exchanged once at set-up): stages query it per cell without any PETSc call.
#pragma once

#include <cstdint>
#include <vector>

#include "boundary.hpp"
#include "field.hpp"
#include "region.hpp"

namespace sf {

/// A static obstacle: the cells whose centre lies inside `region` are solid. Faces between a
/// solid and any other cell have zero normal velocity; `boundary` (NoSlip or FreeSlip) sets what
/// the tangential velocity does at its surface.
struct ObstacleConfig {
  Region region;
  BoundaryKind boundary = BoundaryKind::NoSlip;
};

class SolidMask {
public:
  enum : std::uint8_t { Fluid = 0, NoSlipSolid = 1, FreeSlipSolid = 2 };

  /// Marks the solid cells of every obstacle and exchanges the halo. Collective.
  PetscErrorCode setup(const Grid& grid, const std::vector<ObstacleConfig>& obstacles);

  /// True if any rank has a solid cell.
  bool any() const { return any_solid_; }
  /// Number of solid cells in the whole domain.
  PetscInt solid_cells() const { return solid_cells_; }
  /// Changes whenever the mask changes (static obstacles: only at set-up); solvers compare it to
  /// decide whether to reassemble their operators.
  int version() const { return version_; }

  /// Kind of cell (i, j, k), anywhere in the cell DM's ghosted extent; ghosts outside the domain
  /// copy their mirror cell (so a solid touching a wall stays closed).
  std::uint8_t cell(PetscInt i, PetscInt j, PetscInt k) const {
    return mask_[static_cast<size_t>(((k - start_[2]) * width_[1] + (j - start_[1])) * width_[0] +
                                      (i - start_[0]))];
  }
  bool solid(PetscInt i, PetscInt j, PetscInt k) const { return cell(i, j, k) != Fluid; }

  /// True if the face of component c at index (i, j, k) (the lower face of cell (i, j, k) in
  /// direction c) touches a solid cell.
  bool solid_face(int c, PetscInt i, PetscInt j, PetscInt k) const {
    return solid(i, j, k) || solid(i - (c == 0), j - (c == 1), k - (c == 2));
  }

  /// True if the velocity on this face is prescribed rather than computed: a solid face, or a
  /// domain boundary face whose normal velocity is given (walls and inflow; outflow and periodic
  /// faces are free). Forces, advection, diffusion and projection leave prescribed faces alone.
  bool fixed_face(int c, PetscInt i, PetscInt j, PetscInt k) const {
    const PetscInt index[3] = {i, j, k};
    if (!grid_->periodic(c) && (index[c] == 0 || index[c] == grid_->cells(c))) {
      const BoundaryKind kind = grid_->boundary(c, index[c] == 0 ? 0 : 1);
      if (kind != BoundaryKind::Outflow) return true;
    }
    return any_solid_ && solid_face(c, i, j, k);
  }

private:
  const Grid* grid_ = nullptr;
  std::vector<std::uint8_t> mask_;
  std::array<PetscInt, 3> start_{0, 0, 0};
  std::array<PetscInt, 3> width_{1, 1, 1};
  bool any_solid_ = false;
  PetscInt solid_cells_ = 0;
  int version_ = 0;
};

}  // namespace sf
