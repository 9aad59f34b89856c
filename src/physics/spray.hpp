// Spray and foam (Foster & Metaxas 1996, §4.3: "Whenever the vertical velocity of the surface is
// greater than some positive threshold, a set of particles are introduced just below the surface
// and the local fluid velocity is used to set their initial velocity. The particles are then
// removed from the Navier-Stokes calculation and affected only by gravity, wind, and air
// resistance. [...] a small probability that airborne particles will separate over time [...]
// Foam is introduced whenever spray collides with the height field. Foam has a random life span
// proportional to the size of its parent spray particle."), on a DMSwarm, for a liquid's level
// set instead of their height field. After each step's projection and velocity extension:
//
// Shedding  a surface cell (liquid, with an air neighbour along an axis) whose velocity, averaged
//           from its faces to its centre, has an outward normal component u . n > threshold
//           (n = grad phi / |grad phi|, central differences) sheds on average rate dt particles:
//           at uniform points of the cell carried to the surface along n (x - phi grad phi /
//           |grad phi|^2, phi linear about the centre) and half a cell beyond it, so that they
//           start in the air, with the cell's velocity plus a
//           random part of spread (u . n - threshold) per component, and a radius of 0.5 to 1.5
//           times the mean; at most 63 per cell and step (a rate dt above that is cut there).
//           The numbers are hashes of (step, cell, slot), not of a rank's stream: the same
//           fields shed the same particles on any rank count (the pressure solve's rounding
//           differs between rank counts, so a run's fields, and its spray, may differ slightly).
// Spray     flies: dv/dt = g - drag v, integrated exactly over the step (a parabola without
//           drag), and, with split_time, splits with probability 1 - exp(-dt / split_time) per
//           step into two of half the volume each, their velocities 10 % apart.
// Landing   a spray particle that ends a step in the liquid (phi < 0 there) becomes foam there,
//           with a life drawn from an exponential distribution of mean foam_life r / radius.
//           One that leaves the domain through a face that is not periodic, or ends in a solid
//           cell, is gone.
// Foam      rides the surface: it moves with the liquid's velocity (RK2, as the marker
//           particles), is put back on the surface (x - phi grad phi / |grad phi|^2: phi need
//           not be a distance), and is gone when its life is over, or when the liquid leaves it
//           more than a cell behind (phi > h).
//
// Books     with a liquid's volume fraction (liquid.interface: vof) the spray is the liquid's:
//           a shed particle's volume (4/3 pi r^3; pi r^2 in 2D) leaves the fraction of the
//           cell that sheds it (a cell sheds no more than it holds), and comes back to the
//           fraction of the cell it lands in (the foam it becomes is a mark on the surface,
//           without volume); one that would end in a solid cell or leave through a wall gives
//           it back to the cell it flew from (through an outflow face it leaves the domain, as
//           the fraction's own liquid does). So the fraction's volume plus the airborne
//           spray's (airborne()) is kept. The level set's liquid is not a volume to draw on:
//           with it the spray is added to the liquid, not taken from it.
//
// The particles do not push the liquid. Every particle goes to the rank that owns its cell
// after it moves (DMSwarmMigrate, as the marker particles). In-situ scripts get them on the
// Catalyst channel "particles" (catalyst_adaptor.hpp); checkpoints keep them (/spray: a restart
// goes on bit for bit), frames do not. Ids: a shed particle's is (step cells + cell) 64 +
// slot, a split one's a 53-bit hash, both below 2^53 (exact as a checkpoint's doubles) for
// runs of fewer than 2^53 / 64 cell-steps.
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
#include "vec_array.hpp"

namespace sf {

class Spray {
public:
  /// Creates the (empty) swarm, attached to the grid's cell DMDA. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const LiquidConfig& config,
                       const std::array<double, 3>& gravity);
  bool enabled() const { return config_.enabled; }

  /// Moves the spray and the foam over dt, lands spray, ages foam, and sheds new spray from
  /// the surface (see the top); `step` is the step's number (from 1), the key of its random
  /// numbers. With a volume fraction (null without) the spray takes its volume from it and
  /// gives it back ("Books" above). Fills the ghosts of `velocity` and `phi`. Collective.
  PetscErrorCode advance(Field& velocity, Field& phi, Field* fraction, double dt, PetscInt step);

  /// The volume (area in 2D) of the spray in flight, over all ranks. Collective.
  PetscErrorCode airborne(double* volume) const;

  /// Adds one spray particle on this rank (it goes to its owner at the next advance()). Local.
  PetscErrorCode add_spray(const std::array<double, 3>& position,
                           const std::array<double, 3>& velocity, double radius,
                           std::int64_t id);

  /// The spray and foam particles over all ranks. Collective.
  PetscErrorCode census(PetscInt* spray, PetscInt* foam) const;
  /// This rank's particles as plain arrays (a checkpoint's, an in-situ script's).
  PetscErrorCode records(SprayRecords* out) const;
  /// Replaces the particles by `in` (this rank's share of a checkpoint's, any share) and hands
  /// each to the rank that owns its cell. Collective.
  PetscErrorCode restore(const SprayRecords& in);

private:
  struct Particle {
    std::array<double, 3> x, v;
    double radius, life, kind;
    std::int64_t id;
  };
  PetscErrorCode add(const std::vector<Particle>& particles);
  /// Moves every particle (spray flies, foam rides the velocity), marks those that leave the
  /// domain (or, keeping the books in `fraction`, would end in a solid cell), collects the
  /// children of splits.
  PetscErrorCode move(const Field& velocity, Field* fraction, double dt, PetscInt step,
                      std::vector<PetscInt>* gone, std::vector<Particle>* born);
  /// Lands spray in the liquid (its volume into `fraction`, if given), puts foam back on the
  /// surface and ages it, marks what is gone.
  PetscErrorCode settle(const Field& phi, Field* fraction, double dt, PetscInt step,
                        std::vector<PetscInt>* gone);
  /// New spray from the surface cells that move out faster than the threshold (its volume
  /// from `fraction`, if given).
  PetscErrorCode shed(const Field& velocity, const Field& phi, Field* fraction, double dt,
                      PetscInt step, std::vector<Particle>* born) const;
  /// Gives `share` (of a cell) of landed liquid to the fraction: the cells of `points` (the
  /// surface point it is put back on and one half a cell into the air; may be null), then the
  /// cell it fell to and its face neighbours, those of this rank that are fluid, each up to
  /// its room; the rest to the cell it fell to. Local.
  void land(WriteArray& f, const double* const* points, const PetscInt cell[3],
            double share) const;
  /// A particle's volume (area in 2D).
  double volume_of(double radius) const;
  /// The cell holding point x (clamped into the domain).
  void cell_of(const double x[3], PetscInt cell[3]) const;
  /// Removes the particles at the given indices (ascending, no repeats). Local.
  PetscErrorCode remove(const std::vector<PetscInt>& indices);
  /// Sets every particle's DMSwarm_rank to the owner of its cell and migrates. Collective.
  PetscErrorCode migrate();

  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  LiquidConfig::Spray config_;
  std::array<double, 3> gravity_{0.0, 0.0, 0.0};
  double h_ = 0.0;  // the smallest spacing
  double cell_volume_ = 0.0;
  OwnedDM swarm_;
  CellOwners owners_;
};

}  // namespace sf
