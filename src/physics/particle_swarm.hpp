// What the liquid's particle swarms share (the marker particles of particle_level_set.hpp, the
// spray and foam of spray.hpp): a basic DMSwarm on the cell DMDA whose fields are the columns of
// its table (particle_records.hpp), the fields of every column held for a loop over the
// particles, the particles copied to and from plain records, particles handed to the rank that
// owns their cell, particles removed in place.
#pragma once

#include <petscdmswarm.h>

#include <cstdint>
#include <vector>

#include "cell_owners.hpp"
#include "grid.hpp"
#include "particle_records.hpp"
#include "petsc_handle.hpp"

namespace sf {

/// A DMSwarm named table.name on the grid's cell DMDA with a field per column of `table`,
/// empty. Basic type: a particle migrates to the rank its DMSwarm_rank names (PETSc 3.18's point
/// location on a DMDA, the PIC swarm's, takes the DMDA's points for the vertices of its cells and
/// does not wrap periodic axes, while these cells are centred on the DMDA's points). Collective.
PetscErrorCode create_particle_swarm(const Grid& grid, const SwarmTable& table, OwnedDM* swarm);

/// The fields of every column of a swarm's table, and DMSwarm_rank, from open() to close() or
/// the end of the scope (DMSwarmGetField / DMSwarmRestoreField, like VecArray for vectors).
class SwarmFields {
public:
  SwarmFields() = default;
  ~SwarmFields() { close_quietly(); }
  SwarmFields(const SwarmFields&) = delete;
  SwarmFields& operator=(const SwarmFields&) = delete;

  PetscErrorCode open(DM swarm, const SwarmTable& table);
  /// Gives the fields back (nothing if none are held).
  PetscErrorCode close();

  /// A column's values, width per particle: reals for a Real column, 64-bit integers for an
  /// Int64 one.
  double* real(size_t column) const { return static_cast<double*>(fields_[column]); }
  std::int64_t* int64(size_t column) const { return static_cast<std::int64_t*>(fields_[column]); }

  PetscInt count = 0;        // this rank's particles
  PetscInt* rank = nullptr;  // DMSwarm_rank: where migrate sends each particle

private:
  void close_quietly() { PetscCallVoid(close()); }

  DM swarm_ = nullptr;
  const SwarmTable* table_ = nullptr;
  std::vector<void*> fields_;
};

/// This rank's particles of `swarm` into *out, every column of out's table. Local.
PetscErrorCode copy_particles(DM swarm, SwarmRecords* out);
/// Replaces this rank's particles of `swarm` by `in` (the caller then migrates them). Local.
PetscErrorCode replace_particles(DM swarm, const SwarmRecords& in);

/// Sets every particle's DMSwarm_rank to the owner of the cell that holds its position (the
/// table's first column) and migrates. Collective.
PetscErrorCode migrate_particles(DM swarm, const SwarmTable& table, const CellOwners& owners);

/// Removes the particles at `indices` (ascending, no repeats). Local.
PetscErrorCode remove_particles(DM swarm, const std::vector<PetscInt>& indices);

}  // namespace sf
