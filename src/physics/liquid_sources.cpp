// Liquid sources and sinks (see liquid_sources.hpp).
#include "liquid_sources.hpp"

#include <algorithm>
#include <cmath>

#include "cut_faces.hpp"
#include "region_box.hpp"
#include "vec_array.hpp"

namespace sf {

PetscErrorCode apply_liquid_flows(const LiquidConfig& config, double band_width, double time,
                                  Field& phi, Field& velocity, const SolidMask& solids) {
  PetscFunctionBeginUser;
  const bool any = std::any_of(config.sources.begin(), config.sources.end(),
                               [&](const LiquidConfig::Flow& f) { return flow_active(f, time); }) ||
                   std::any_of(config.sinks.begin(), config.sinks.end(),
                               [&](const LiquidConfig::Flow& f) { return flow_active(f, time); });
  if (!any) PetscFunctionReturn(0);
  const Grid& grid = phi.grid();
  const int dim = grid.dim();
  const double h = grid.min_spacing();
  // The band about a region, in samples (of the smallest spacing: enough on every axis).
  const double margin = std::ceil(band_width / h) + 1.0;

  WriteArray level, u;
  PetscCall(level.get_global(phi));
  PetscCall(u.get_global(velocity));
  // Sources first, then sinks: where both hold, the sink wins.
  for (const bool sink : {false, true}) {
    for (const LiquidConfig::Flow& flow : sink ? config.sinks : config.sources) {
      if (!flow_active(flow, time)) continue;
      for_each_index(near_region(grid, flow.region, -1, grid.owned_cells(), margin),
                     [&](PetscInt i, PetscInt j, PetscInt k) {
        if (solids.solid(i, j, k)) return;
        const double x[3] = {grid.cell_center(0, i), grid.cell_center(1, j),
                             grid.cell_center(2, k)};
        const double d = region_distance(flow.region, x, dim);
        double& value = level(i, j, k);
        value = sink ? std::max(value, std::min(-d, band_width))
                     : std::min(value, std::max(d, -band_width));
      });
      if (sink || !flow.has_velocity) continue;
      for (int c = 0; c < dim; ++c)
        for_each_index(near_region(grid, flow.region, c, grid.owned_faces(c)),
                       [&](PetscInt i, PetscInt j, PetscInt k) {
          if (solids.fixed_face(c, i, j, k)) return;
          double x[3];
          grid.face_center(c, i, j, k, x);
          if (region_contains(flow.region, x, dim)) u(i, j, k, c) = flow.velocity[c];
        });
    }
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
