// Marker particles that correct the liquid's level set: the particle level set of Enright,
// Fedkiw, Ferziger & Mitchell (2002, "A hybrid particle level set method for improved interface
// capturing"), the correction Cline et al. §10.7 describe. A level set sampled at cell centres
// cannot hold a feature thinner than a cell: a film that spreads along a floor or a sheet
// stretched in a splash keeps half a cell's thickness or vanishes, and interpolation rounds
// corners. Particles carried with the flow hold that detail.
//
// Seeding   every cell of the band |phi| < (band + 1) h gets up to per_cell particles at
//           positions drawn from a hash of (generation, cell, slot), so the same particles on
//           any rank count; a particle is kept where 0.1 h <= |phi(x)| <= band h, its sign s the
//           side it lies on (+1 air, -1 liquid), its radius r = clamp(|phi(x)|, 0.1 h, 0.5 h).
// Advection with the level set, by the same velocity: RK2 (midpoint), linear interpolation of
//           the local (ghosted) velocity; then every particle goes to the rank that owns its
//           cell (DMSwarmMigrate, the basic push to the rank in DMSwarm_rank: any distance,
//           periodic wrap included).
// Correction after the advection and again after the reinitialisation. A particle has escaped
//           when it lies on the wrong side by more than its radius, s phi(x_p) < -r. Each
//           escaped particle's sphere, phi_p(x) = s (r - |x - x_p|), is applied to the 2^dim
//           cell centres around it: phi+ = max(phi+, phi_p) for air particles, phi- =
//           min(phi-, phi_p) for liquid ones, both starting from phi; then phi = phi+ where
//           |phi+| <= |phi-|, else phi-. Spheres reach cells of a neighbour rank through the
//           ghost cells, combined by the DMDA's scatter in reverse (MAX_VALUES / MIN_VALUES).
// Radii     r = clamp(s phi(x_p), 0.1 h, 0.5 h) for particles on their own side, after the
//           correction.
// Reseeding every reseed_every steps: particles farther than band h from the surface or still
//           escaped are removed, and band cells with fewer than per_cell get new ones
//           (generation = step / reseed_every, so a restart seeds the same).
//
// Cost per step: a few interpolations per particle, a migration, two ghost exchanges and two
// reductions of the cell field; the particles are as many as the band's cells times per_cell,
// so the work follows the surface, not the volume.
#pragma once

#include <petscdmswarm.h>

#include <array>
#include <cstdint>
#include <vector>

#include "cell_owners.hpp"
#include "field.hpp"
#include "job.hpp"
#include "particle_records.hpp"
#include "petsc_handle.hpp"
#include "solids.hpp"

namespace sf {

class ParticleLevelSet {
public:
  /// Creates the (empty) swarm, attached to the grid's cell DMDA. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const LiquidConfig& config);
  bool enabled() const { return config_.per_cell > 0; }

  /// Seeds the band of phi (generation `generation`), on top of the particles there are.
  /// Fills phi's ghosts. Collective.
  PetscErrorCode seed(Field& phi, PetscInt generation);

  /// Moves every particle over dt with `velocity` (its local vector must be current), RK2, and
  /// hands each to the rank that owns its cell. Collective.
  PetscErrorCode advect(const Field& velocity, double dt);

  /// The error correction (see the top); fills phi's ghosts. *escaped gets the number of
  /// escaped particles over all ranks (may be null). Collective.
  PetscErrorCode correct(Field& phi, PetscInt* escaped);

  /// The radii from phi, for particles on their own side. Fills phi's ghosts. Collective.
  PetscErrorCode adjust_radii(Field& phi);

  /// Removes the particles that track the wrong side in the sources and sinks active at `time`
  /// (liquid_sources.hpp): air particles in a source, liquid ones in a sink.
  PetscErrorCode respect_flows(const LiquidConfig& config, double time);

  /// True if the particles are reseeded after step `step` (counted from 1).
  bool reseeds_after(PetscInt step) const { return step % config_.reseed_every == 0; }

  /// Removes the particles far from the surface or escaped, and seeds band cells that have
  /// fewer than per_cell, as generation `generation`. Fills phi's ghosts. Collective.
  PetscErrorCode reseed(Field& phi, PetscInt generation);

  /// Particles over all ranks, and the sum of their ids (a migration loses or doubles none if
  /// both stay). Collective.
  PetscErrorCode census(PetscInt* count, std::int64_t* id_sum) const;

  /// This rank's particles as plain arrays (a checkpoint's).
  PetscErrorCode records(ParticleRecords* out) const;
  /// Replaces the particles by `in` (this rank's share of a checkpoint's, any share) and hands
  /// each to the rank that owns its cell. Collective.
  PetscErrorCode restore(const ParticleRecords& in);

  DM swarm() const { return swarm_; }

private:
  /// A particle about to be added.
  struct Seed {
    double x[3];
    double sign, radius;
    std::int64_t id;
  };

  /// The owned cell holding canonical point x, as an offset in the owned box.
  size_t owned_cell(const double x[3]) const;
  /// Up to `wanted` seeds of cell (i, j, k) of generation g, from the level set sampled by
  /// `sample` (linear, local).
  template <typename Sample>
  void seeds_of_cell(PetscInt i, PetscInt j, PetscInt k, PetscInt generation, int wanted,
                     const Sample& sample, std::vector<Seed>* out) const;
  PetscErrorCode add(const std::vector<Seed>& seeds);
  /// Removes the particles at the given indices (ascending). Collective-free.
  PetscErrorCode remove(const std::vector<PetscInt>& indices);
  /// Sets every particle's DMSwarm_rank to the owner of its cell and migrates. Collective.
  PetscErrorCode migrate();

  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  LiquidConfig::Particles config_;
  double h_ = 0.0;          // the smallest spacing
  double least_radius_ = 0.0, most_radius_ = 0.0;
  OwnedDM swarm_;
  CellOwners owners_;
};

}  // namespace sf
