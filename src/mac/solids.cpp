#include "solids.hpp"

#include "region.hpp"

namespace sf {

PetscErrorCode SolidMask::setup(const Grid& grid, const std::vector<ObstacleConfig>& obstacles) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  // A scalar field gives the halo exchange and the zero-gradient fill outside the domain.
  Field kinds;
  PetscCall(kinds.setup_scalar(grid, "solid"));
  PetscScalar* data;
  ArrayView view;
  PetscCall(VecGetArray(kinds.global(), &data));
  PetscCall(grid.global_view(kinds.dm(), data, &view));
  PetscInt local_solid = 0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const double x[3] = {grid.cell_center(0, i), grid.cell_center(1, j), grid.cell_center(2, k)};
    for (const ObstacleConfig& obstacle : obstacles) {
      if (region_contains(obstacle.region, x, grid.dim())) {
        view(i, j, k) = obstacle.boundary == BoundaryKind::FreeSlip ? FreeSlipSolid : NoSlipSolid;
        ++local_solid;
        break;
      }
    }
  });
  PetscCall(VecRestoreArray(kinds.global(), &data));
  PetscCall(kinds.fill_ghosts());
  PetscCallMPI(MPI_Allreduce(&local_solid, &solid_cells_, 1, MPIU_INT, MPI_SUM, grid.comm()));
  any_solid_ = solid_cells_ > 0;

  const PetscScalar* local;
  PetscCall(VecGetArrayRead(kinds.local(), &local));
  PetscCall(grid.local_view(kinds.dm(), const_cast<PetscScalar*>(local), &view));
  start_ = view.start;
  width_ = view.width;
  mask_.resize(static_cast<size_t>(width_[0] * width_[1] * width_[2]));
  for (size_t n = 0; n < mask_.size(); ++n) mask_[n] = static_cast<std::uint8_t>(local[n]);
  PetscCall(VecRestoreArrayRead(kinds.local(), &local));
  ++version_;
  PetscFunctionReturn(0);
}

}  // namespace sf
