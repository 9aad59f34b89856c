// What the liquid's particle swarms share (the marker particles of particle_level_set.hpp, the
// spray and foam of spray.hpp): a basic DMSwarm on the cell DMDA, particles handed to the rank
// that owns their cell, particles removed in place.
#pragma once

#include <petscdmswarm.h>

#include <utility>
#include <vector>

#include "cell_owners.hpp"
#include "grid.hpp"
#include "petsc_handle.hpp"

namespace sf {

/// A DMSwarm named `name` on the grid's cell DMDA with the real fields `reals` (name and
/// components) and the 64-bit integer field `id`, empty. Basic type: a particle migrates to the
/// rank its DMSwarm_rank names (PETSc 3.18's point location on a DMDA, the PIC swarm's, takes
/// the DMDA's points for the vertices of its cells and does not wrap periodic axes, while these
/// cells are centred on the DMDA's points). Collective.
PetscErrorCode create_particle_swarm(const Grid& grid, const char* name,
                                     const std::vector<std::pair<const char*, PetscInt>>& reals,
                                     const char* id, OwnedDM* swarm);

/// Sets every particle's DMSwarm_rank to the owner of the cell that holds its `position`
/// (3 reals) and migrates. Collective.
PetscErrorCode migrate_particles(DM swarm, const CellOwners& owners, const char* position);

/// Removes the particles at `indices` (ascending, no repeats). Local.
PetscErrorCode remove_particles(DM swarm, const std::vector<PetscInt>& indices);

}  // namespace sf
