// Where a liquid enters and leaves (Cline et al. §5: sources, sinks, pumps; liquid.sources and
// liquid.sinks in the job). Each is a region active for the steps that begin at a time in
// [start, end):
//   source  the region is held liquid: phi = min(phi, max(d, -band h)), d the signed distance to
//           the region (negative inside), over the region and the band about it, so phi stays a
//           distance there; with a velocity, the free faces inside the region take it (a spout
//           that shoots liquid out, or a pump that drives the liquid through it). Active for a
//           single step, it drops a blob of liquid.
//   sink    the region is held air: phi = max(phi, min(-d, band h)).
// Applied at the start of the forces, before the projection makes the velocity divergence-free
// again, as the scalars' sources are. Marker particles of the wrong side in an active region
// are removed (ParticleLevelSet::respect_flows): air particles left in a source would correct
// its new liquid back to air as it flows out; new liquid gets particles at the next reseeding.
#pragma once

#include "field.hpp"
#include "job.hpp"
#include "solids.hpp"

namespace sf {

/// True if `flow` acts on the step that begins at `time`.
inline bool flow_active(const LiquidConfig::Flow& flow, double time) {
  return flow.start <= time && time < flow.end;
}

/// Applies the sources and sinks of `config` active at `time` to the owned cells of `phi` and
/// the owned faces of `velocity`. `band_width` is the level set's (LevelSet::band_width()).
PetscErrorCode apply_liquid_flows(const LiquidConfig& config, double band_width, double time,
                                  Field& phi, Field& velocity, const SolidMask& solids);

}  // namespace sf
