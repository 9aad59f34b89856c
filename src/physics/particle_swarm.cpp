// The liquid's particle swarms' shared parts (see particle_swarm.hpp).
#include "particle_swarm.hpp"

namespace sf {

PetscErrorCode create_particle_swarm(const Grid& grid, const char* name,
                                     const std::vector<std::pair<const char*, PetscInt>>& reals,
                                     const char* id, OwnedDM* swarm) {
  PetscFunctionBeginUser;
  PetscCall(DMCreate(grid.comm(), swarm->replace()));
  PetscCall(PetscObjectSetName(reinterpret_cast<PetscObject>(swarm->get()), name));
  PetscCall(DMSetType(*swarm, DMSWARM));
  PetscCall(DMSetDimension(*swarm, grid.dim()));
  PetscCall(DMSwarmSetType(*swarm, DMSWARM_BASIC));
  PetscCall(DMSwarmSetCellDM(*swarm, grid.cell_dm()));
  PetscCall(DMSwarmInitializeFieldRegister(*swarm));
  for (const auto& [field, components] : reals)
    PetscCall(DMSwarmRegisterPetscDatatypeField(*swarm, field, components, PETSC_REAL));
  PetscCall(DMSwarmRegisterPetscDatatypeField(*swarm, id, 1, PETSC_INT64));
  PetscCall(DMSwarmFinalizeFieldRegister(*swarm));
  PetscCall(DMSwarmSetLocalSizes(*swarm, 0, 1024));
  PetscFunctionReturn(0);
}

PetscErrorCode migrate_particles(DM swarm, const CellOwners& owners, const char* position) {
  PetscFunctionBeginUser;
  PetscInt count = 0;
  double* x = nullptr;
  PetscInt* rank = nullptr;
  PetscCall(DMSwarmGetLocalSize(swarm, &count));
  PetscCall(DMSwarmGetField(swarm, position, nullptr, nullptr, reinterpret_cast<void**>(&x)));
  PetscCall(DMSwarmGetField(swarm, DMSwarmField_rank, nullptr, nullptr,
                            reinterpret_cast<void**>(&rank)));
  for (PetscInt n = 0; n < count; ++n) rank[n] = owners.owner(&x[3 * n]);
  PetscCall(DMSwarmRestoreField(swarm, DMSwarmField_rank, nullptr, nullptr,
                                reinterpret_cast<void**>(&rank)));
  PetscCall(DMSwarmRestoreField(swarm, position, nullptr, nullptr, reinterpret_cast<void**>(&x)));
  PetscCall(DMSwarmMigrate(swarm, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode remove_particles(DM swarm, const std::vector<PetscInt>& indices) {
  PetscFunctionBeginUser;
  // DMSwarmRemovePointAtIndex moves the last particle into the hole: remove from the back.
  for (auto n = indices.rbegin(); n != indices.rend(); ++n)
    PetscCall(DMSwarmRemovePointAtIndex(swarm, *n));
  PetscFunctionReturn(0);
}

}  // namespace sf
