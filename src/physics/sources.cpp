// Scalar sources and dissipation (Stam 1999 §2.4; steps 2 and 6 of docs/design.md, "One step").
//
// Sources: in the fluid cells whose centre lies in the source region, s = v (Set) or s += v dt
// (Add); a source with a velocity also sets u_c = v_c on the free faces whose centre lies in the
// region. Sources apply in job order, so a later one wins where Set regions overlap. A source's
// time profile switches it on and off and, at the step's start time, scales v (and its velocity)
// by its factor and moves its region by its offset (job.hpp TimeProfile).
// Dissipation: s <- s / (1 + dt a) in every owned cell.
#include "sources.hpp"

#include <algorithm>
#include <cmath>

#include "region_box.hpp"
#include "vec_array.hpp"

namespace sf {

PetscErrorCode apply_sources(const ScalarConfig& config, Field& scalar, Field& velocity,
                             const SolidMask& solids, double dt, double time) {
  PetscFunctionBeginUser;
  if (config.sources.empty()) PetscFunctionReturn(0);
  const Grid& grid = scalar.grid();
  PetscCheck(&velocity.grid() == &grid, grid.comm(), PETSC_ERR_ARG_WRONG,
             "apply_sources: scalar \"%s\" and the velocity live on different grids",
             scalar.name().c_str());
  const int dim = grid.dim();
  const bool blows = std::any_of(config.sources.begin(), config.sources.end(),
                                 [time](const ScalarSource& source) {
                                   return source.has_velocity && source.when.active(time);
                                 });

  WriteArray s;
  PetscCall(s.get_global(scalar));
  WriteArray u;
  if (blows) PetscCall(u.get_global(velocity));
  // Sources are applied in job order, so a later source wins where Set regions overlap.
  for (const ScalarSource& source : config.sources) {
    if (!source.when.active(time)) continue;
    const bool set = source.mode == ScalarSource::Mode::Set;
    const double factor = source.when.factor(time);
    // Without keyframes the factor is exactly 1 and value * 1 is value: the same bits as a
    // source with no profile.
    const double value = source.value * factor;
    const double increment = value * dt;
    const Region region = source.when.place(source.region, time);
    for_each_index(near_region(grid, region, -1, grid.owned_cells()),
                   [&](PetscInt i, PetscInt j, PetscInt k) {
      if (solids.solid(i, j, k)) return;
      const double x[3] = {grid.cell_center(0, i), grid.cell_center(1, j), grid.cell_center(2, k)};
      if (!region_contains(region, x, dim)) return;
      s(i, j, k) = set ? value : s(i, j, k) + increment;
    });
    if (!source.has_velocity) continue;
    for (int c = 0; c < dim; ++c) {
      const double speed = source.velocity[c] * factor;
      for_each_index(near_region(grid, region, c, grid.owned_faces(c)),
                     [&](PetscInt i, PetscInt j, PetscInt k) {
        if (solids.fixed_face(c, i, j, k)) return;
        double x[3];
        grid.face_center(c, i, j, k, x);
        if (region_contains(region, x, dim)) u(i, j, k, c) = speed;
      });
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode dissipate(Field& scalar, double rate, double dt) {
  PetscFunctionBeginUser;
  const Grid& grid = scalar.grid();
  PetscCheck(rate >= 0.0 && dt >= 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "dissipation of \"%s\" needs rate >= 0 and dt >= 0, got rate %g, dt %g",
             scalar.name().c_str(), rate, dt);
  if (rate == 0.0) PetscFunctionReturn(0);
  const double denominator = 1.0 + dt * rate;
  WriteArray s;
  PetscCall(s.get_global(scalar));
  for_each_index(grid.owned_cells(),
                 [&](PetscInt i, PetscInt j, PetscInt k) { s(i, j, k) /= denominator; });
  PetscFunctionReturn(0);
}

}  // namespace sf
