// The projection stage's entry points: the strategy the job chose, and the divergence check
// every strategy is measured by.
#include "projection.hpp"

#include <algorithm>
#include <cmath>

#include "fft_projection.hpp"
#include "free_surface_projection.hpp"
#include "krylov_projection.hpp"
#include "vec_array.hpp"

namespace sf {

PetscErrorCode make_projection(const Grid& grid, const SolidMask& solids,
                               const SolverConfig& config,
                               std::unique_ptr<Projection>* projection, Field* level_set,
                               const std::vector<AirPressure>& air, FloatingBodies* bodies,
                               bool walls_may_open) {
  PetscFunctionBeginUser;
  if (level_set) {
    auto free_surface = std::make_unique<FreeSurfaceProjection>();
    PetscCall(free_surface->setup(grid, solids, config, *level_set, air, walls_may_open));
    PetscCall(free_surface->couple(bodies));
    *projection = std::move(free_surface);
    PetscFunctionReturn(0);
  }
  if (config.method == SolverConfig::Method::Fft) {
    auto fft = std::make_unique<FftProjection>();
    PetscCall(fft->setup(grid, solids));
    *projection = std::move(fft);
    PetscFunctionReturn(0);
  }
  auto krylov = std::make_unique<KrylovProjection>();
  PetscCall(krylov->setup(grid, solids, config));
  *projection = std::move(krylov);
  PetscFunctionReturn(0);
}


PetscErrorCode max_divergence(Field& velocity, const SolidMask& solids, double* result,
                              const ConstArrayView* level_set, Vec source) {
  PetscFunctionBeginUser;
  const Grid& grid = velocity.grid();
  PetscCheck(velocity.dm() == grid.face_dm() && velocity.components() == grid.dim(),
             grid.comm(), PETSC_ERR_ARG_WRONG, "max_divergence() needs the face velocity");
  PetscCall(velocity.fill_ghosts());
  std::array<double, 3> inv_h{1.0, 1.0, 1.0};
  for (int a = 0; a < grid.dim(); ++a) inv_h[a] = 1.0 / grid.spacing(a);
  ReadArray u;
  PetscCall(u.get_local(velocity));
  ReadArray d;
  if (source) PetscCall(d.get_global(grid.cell_dm(), source));
  double local_max = 0.0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (level_set ? !solids.liquid(*level_set, i, j, k) : solids.solid(i, j, k)) return;
    const double target = d ? d(i, j, k) : 0.0;
    local_max = std::max(
        local_max, std::abs(open_divergence(u, solids, inv_h, grid.dim(), i, j, k) - target));
  });
  PetscCall(d.restore());
  PetscCall(u.restore());
  PetscCallMPI(MPI_Allreduce(&local_max, result, 1, MPI_DOUBLE, MPI_MAX, grid.comm()));
  PetscFunctionReturn(0);
}

}  // namespace sf
