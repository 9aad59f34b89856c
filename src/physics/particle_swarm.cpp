// The liquid's particle swarms' shared parts (see particle_swarm.hpp).
#include "particle_swarm.hpp"

#include <algorithm>

namespace sf {

namespace {

PetscDataType petsc_type(ColumnType type) {
  return type == ColumnType::Int64 ? PETSC_INT64 : PETSC_REAL;
}

}  // namespace

PetscErrorCode create_particle_swarm(const Grid& grid, const SwarmTable& table, OwnedDM* swarm) {
  PetscFunctionBeginUser;
  PetscCall(DMCreate(grid.comm(), swarm->replace()));
  PetscCall(PetscObjectSetName(reinterpret_cast<PetscObject>(swarm->get()), table.name));
  PetscCall(DMSetType(*swarm, DMSWARM));
  PetscCall(DMSetDimension(*swarm, grid.dim()));
  PetscCall(DMSwarmSetType(*swarm, DMSWARM_BASIC));
  PetscCall(DMSwarmSetCellDM(*swarm, grid.cell_dm()));
  PetscCall(DMSwarmInitializeFieldRegister(*swarm));
  for (const SwarmColumn& column : table)
    PetscCall(DMSwarmRegisterPetscDatatypeField(*swarm, column.name, column.width,
                                                petsc_type(column.type)));
  PetscCall(DMSwarmFinalizeFieldRegister(*swarm));
  PetscCall(DMSwarmSetLocalSizes(*swarm, 0, 1024));
  PetscFunctionReturn(0);
}

PetscErrorCode SwarmFields::open(DM swarm, const SwarmTable& table) {
  PetscFunctionBeginUser;
  PetscCall(close());
  swarm_ = swarm;
  table_ = &table;
  PetscCall(DMSwarmGetLocalSize(swarm, &count));
  fields_.assign(table.count, nullptr);
  for (size_t c = 0; c < table.count; ++c)
    PetscCall(DMSwarmGetField(swarm, table[c].name, nullptr, nullptr, &fields_[c]));
  PetscCall(DMSwarmGetField(swarm, DMSwarmField_rank, nullptr, nullptr,
                            reinterpret_cast<void**>(&rank)));
  PetscFunctionReturn(0);
}

PetscErrorCode SwarmFields::close() {
  PetscFunctionBeginUser;
  if (!swarm_) PetscFunctionReturn(0);
  PetscCall(DMSwarmRestoreField(swarm_, DMSwarmField_rank, nullptr, nullptr,
                                reinterpret_cast<void**>(&rank)));
  for (size_t c = table_->count; c-- > 0;)
    PetscCall(DMSwarmRestoreField(swarm_, (*table_)[c].name, nullptr, nullptr, &fields_[c]));
  swarm_ = nullptr;
  fields_.clear();
  count = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode copy_particles(DM swarm, SwarmRecords* out) {
  PetscFunctionBeginUser;
  const SwarmTable& table = out->table();
  SwarmFields p;
  PetscCall(p.open(swarm, table));
  out->resize(static_cast<size_t>(p.count));
  for (size_t c = 0; c < table.count; ++c) {
    std::vector<double>& values = (*out)[c];
    if (table[c].type == ColumnType::Int64) {
      const std::int64_t* from = p.int64(c);
      for (size_t v = 0; v < values.size(); ++v) values[v] = static_cast<double>(from[v]);
    } else {
      const double* from = p.real(c);
      std::copy(from, from + values.size(), values.begin());
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode replace_particles(DM swarm, const SwarmRecords& in) {
  PetscFunctionBeginUser;
  const SwarmTable& table = in.table();
  PetscCall(DMSwarmSetLocalSizes(swarm, static_cast<PetscInt>(in.size()), 1024));
  SwarmFields p;
  PetscCall(p.open(swarm, table));
  for (size_t c = 0; c < table.count; ++c) {
    const std::vector<double>& values = in[c];
    if (table[c].type == ColumnType::Int64) {
      std::int64_t* to = p.int64(c);
      for (size_t v = 0; v < values.size(); ++v) to[v] = static_cast<std::int64_t>(values[v]);
    } else {
      std::copy(values.begin(), values.end(), p.real(c));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode migrate_particles(DM swarm, const SwarmTable& table, const CellOwners& owners) {
  PetscFunctionBeginUser;
  {
    SwarmFields p;
    PetscCall(p.open(swarm, table));
    const double* x = p.real(0);
    for (PetscInt n = 0; n < p.count; ++n) p.rank[n] = owners.owner(&x[3 * n]);
  }
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
