// The particle level set on a DMSwarm (see particle_level_set.hpp for the method and sources).
#include "particle_level_set.hpp"

#include <petscdmda.h>

#include <algorithm>
#include <cmath>

#include "interpolation.hpp"
#include "liquid_sources.hpp"
#include "particle_swarm.hpp"
#include "region.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

// Radii and seeding levels in units of h (Enright et al. 2002, §3.2).
constexpr double kLeastRadius = 0.1;
constexpr double kMostRadius = 0.5;
constexpr double kLeastLevel = 0.1;

/// The marker particles' fields for the duration of a loop over them, by column.
struct ParticleArrays : SwarmFields {
  PetscErrorCode open(DM swarm) {
    PetscFunctionBeginUser;
    PetscCall(SwarmFields::open(swarm, kParticleTable));
    position = real(kParticlePosition);
    sign = real(kParticleSign);
    radius = real(kParticleRadius);
    id = int64(kParticleId);
    PetscFunctionReturn(0);
  }

  double* position = nullptr;  // 3 per particle
  double* sign = nullptr;
  double* radius = nullptr;
  std::int64_t* id = nullptr;
};

/// phi's local (ghosted) values, sampled linearly at canonical points.
class LevelSampler {
public:
  PetscErrorCode open(const Field& phi) {
    PetscFunctionBeginUser;
    phi_ = &phi;
    PetscCall(array_.get_local(phi));
    sampler_ = LocalSampler(phi.grid(), array_, Interpolation::Linear);
    PetscFunctionReturn(0);
  }
  PetscErrorCode close() {
    PetscFunctionBeginUser;
    PetscCall(array_.restore());
    PetscFunctionReturn(0);
  }
  /// phi at x (made canonical here); false if its stencil is beyond the halo.
  bool operator()(const double point[3], double* value) const {
    double x[3] = {point[0], point[1], point[2]};
    canonical_point(sampler_.axes(), phi_->grid().dim(), x);
    return sampler_.sample(0, -1, x, value);
  }
  const ConstArrayView& view() const { return array_.view(); }

private:
  const Field* phi_ = nullptr;
  ReadArray array_;
  LocalSampler sampler_;
};

}  // namespace

PetscErrorCode ParticleLevelSet::setup(const Grid& grid, const SolidMask& solids,
                                       const LiquidConfig& config) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  config_ = config.particles;
  h_ = grid.min_spacing();
  least_radius_ = kLeastRadius * h_;
  most_radius_ = kMostRadius * h_;
  if (!enabled()) PetscFunctionReturn(0);

  PetscCall(owners_.setup(grid));

  PetscCall(create_particle_swarm(grid, kParticleTable, &swarm_));
  PetscFunctionReturn(0);
}

size_t ParticleLevelSet::owned_cell(const double x[3]) const {
  const Grid& grid = *grid_;
  const IndexBox& owned = grid.owned_cells();
  PetscInt cell[3] = {0, 0, 0};
  for (int a = 0; a < grid.dim(); ++a)
    cell[a] = std::clamp<PetscInt>(
        static_cast<PetscInt>(std::floor((x[a] - grid.origin(a)) / grid.spacing(a))),
        owned.lo[a], owned.hi[a] - 1);
  return box_offset(owned, cell[0], cell[1], cell[2]);
}

template <typename Sample>
void ParticleLevelSet::seeds_of_cell(PetscInt i, PetscInt j, PetscInt k, PetscInt generation,
                                     int wanted, const Sample& sample,
                                     std::vector<Seed>* out) const {
  const Grid& grid = *grid_;
  const std::int64_t cells = static_cast<std::int64_t>(grid.cells(0)) * grid.cells(1) *
                             grid.cells(2);
  const std::int64_t cell = (static_cast<std::int64_t>(k) * grid.cells(1) + j) * grid.cells(0) + i;
  const PetscInt index[3] = {i, j, k};
  const double band = config_.band * h_;
  for (int slot = 0; slot < config_.per_cell && wanted > 0; ++slot) {
    Seed seed{};
    seed.id = (generation * cells + cell) * config_.per_cell + slot;
    for (int a = 0; a < grid.dim(); ++a)
      seed.x[a] = grid.origin(a) +
                  (static_cast<double>(index[a]) +
                   uniform_from(static_cast<std::uint64_t>(seed.id) * 4 +
                                static_cast<unsigned>(a))) *
                      grid.spacing(a);
    double phi = 0.0;
    if (!sample(seed.x, &phi)) continue;
    const double distance = std::abs(phi);
    if (distance < kLeastLevel * h_ || distance > band) continue;
    seed.sign = phi < 0.0 ? -1.0 : 1.0;
    seed.radius = std::clamp(distance, least_radius_, most_radius_);
    out->push_back(seed);
    --wanted;
  }
}

PetscErrorCode ParticleLevelSet::add(const std::vector<Seed>& seeds) {
  PetscFunctionBeginUser;
  PetscInt before = 0;
  PetscCall(DMSwarmGetLocalSize(swarm_, &before));
  PetscCall(DMSwarmAddNPoints(swarm_, static_cast<PetscInt>(seeds.size())));
  ParticleArrays p;
  PetscCall(p.open(swarm_));
  PetscMPIInt rank = 0;
  PetscCallMPI(MPI_Comm_rank(grid_->comm(), &rank));
  for (size_t s = 0; s < seeds.size(); ++s) {
    const PetscInt at = before + static_cast<PetscInt>(s);
    for (int a = 0; a < 3; ++a) p.position[3 * at + a] = seeds[s].x[a];
    p.sign[at] = seeds[s].sign;
    p.radius[at] = seeds[s].radius;
    p.id[at] = seeds[s].id;
    p.rank[at] = rank;
  }
  PetscCall(p.close());
  PetscFunctionReturn(0);
}

PetscErrorCode ParticleLevelSet::seed(Field& phi, PetscInt generation) {
  PetscFunctionBeginUser;
  if (!enabled()) PetscFunctionReturn(0);
  PetscCall(phi.fill_ghosts());
  LevelSampler sample;
  PetscCall(sample.open(phi));
  std::vector<Seed> seeds;
  const double reach = (config_.band + 1) * h_;
  for_each_index(grid_->owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (solids_->solid(i, j, k) || !(std::abs(sample.view()(i, j, k)) < reach)) return;
    seeds_of_cell(i, j, k, generation, config_.per_cell, sample, &seeds);
  });
  PetscCall(sample.close());
  PetscCall(add(seeds));
  PetscFunctionReturn(0);
}

PetscErrorCode ParticleLevelSet::advect(const Field& velocity, double dt) {
  PetscFunctionBeginUser;
  if (!enabled()) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  ReadArray u_view;
  PetscCall(u_view.get_local(velocity));
  const LocalSampler sampler(grid, u_view, Interpolation::Linear);
  ParticleArrays p;
  PetscCall(p.open(swarm_));
  int lost = 0;
  double where[3] = {0.0, 0.0, 0.0};
  for (PetscInt n = 0; n < p.count; ++n) {
    double* x = &p.position[3 * n];
    double u[3] = {0.0, 0.0, 0.0}, mid[3] = {x[0], x[1], x[2]};
    bool found = sampler.sample_velocity(mid, u);
    for (int a = 0; a < grid.dim(); ++a) mid[a] += 0.5 * dt * u[a];
    canonical_point(sampler.axes(), grid.dim(), mid);
    found = found && sampler.sample_velocity(mid, u);
    if (!found) {
      if (!lost) std::copy(x, x + 3, where);
      lost = 1;
      continue;
    }
    for (int a = 0; a < grid.dim(); ++a) x[a] += dt * u[a];
    canonical_point(sampler.axes(), grid.dim(), x);
  }
  PetscCall(p.close());
  PetscCall(u_view.restore());
  // The first rank that lost one says where, on every rank.
  PetscMPIInt rank, size, first = 0;
  PetscCallMPI(MPI_Comm_rank(grid.comm(), &rank));
  PetscCallMPI(MPI_Comm_size(grid.comm(), &size));
  const PetscMPIInt mine = lost ? rank : size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, grid.comm()));
  const int any = first < size;
  if (any) PetscCallMPI(MPI_Bcast(where, 3, MPI_DOUBLE, first, grid.comm()));
  PetscCheck(!any, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "a marker particle's velocity stencil lies beyond the halo of its rank (one at "
             "%g %g %g): the step moved the liquid farther than grid.halo cells; lower time.cfl "
             "or raise grid.halo",
             where[0], where[1], where[2]);
  PetscCall(migrate());
  PetscFunctionReturn(0);
}

PetscErrorCode ParticleLevelSet::migrate() {
  return migrate_particles(swarm_, kParticleTable, owners_);
}

PetscErrorCode ParticleLevelSet::records(ParticleRecords* out) const {
  PetscFunctionBeginUser;
  out->resize(0);
  if (!enabled()) PetscFunctionReturn(0);
  PetscCall(copy_particles(swarm_, out));
  PetscFunctionReturn(0);
}

PetscErrorCode ParticleLevelSet::restore(const ParticleRecords& in) {
  PetscFunctionBeginUser;
  if (!enabled()) PetscFunctionReturn(0);
  PetscCall(replace_particles(swarm_, in));
  // A share of a checkpoint's particles may lie anywhere in the domain.
  PetscCall(migrate());
  PetscFunctionReturn(0);
}

PetscErrorCode ParticleLevelSet::correct(Field& phi, PetscInt* escaped) {
  PetscFunctionBeginUser;
  if (escaped) *escaped = 0;
  if (!enabled()) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  PetscCall(phi.fill_ghosts());
  // phi+ and phi- over the local extent, both starting from phi.
  // Given back in the reverse order, at the end (as the pool had them back before).
  BorrowedVec plus_local, minus_local, plus, minus;
  PetscCall(plus_local.get_local(phi.dm()));
  PetscCall(minus_local.get_local(phi.dm()));
  PetscCall(VecCopy(phi.local(), plus_local));
  PetscCall(VecCopy(phi.local(), minus_local));
  WriteArray plus_view, minus_view;
  PetscCall(plus_view.get_local(phi.dm(), plus_local));
  PetscCall(minus_view.get_local(phi.dm(), minus_local));

  LevelSampler sample;
  PetscCall(sample.open(phi));
  ParticleArrays p;
  PetscCall(p.open(swarm_));
  PetscInt count = 0;
  for (PetscInt n = 0; n < p.count; ++n) {
    const double* x = &p.position[3 * n];
    double level = 0.0;
    if (!sample(x, &level)) continue;  // owned particles always have their stencil
    const double s = p.sign[n], r = p.radius[n];
    if (!(s * level < -r)) continue;
    ++count;
    // The 2^dim cell centres around x: the stencil of the linear interpolation.
    PetscInt first[3] = {0, 0, 0};
    for (int a = 0; a < dim; ++a)
      first[a] = static_cast<PetscInt>(
          std::floor((x[a] - grid.origin(a)) / grid.spacing(a) - 0.5));
    const WriteArray& view = s > 0.0 ? plus_view : minus_view;
    for (int corner = 0; corner < (1 << dim); ++corner) {
      PetscInt at[3] = {0, 0, 0};
      double distance2 = 0.0;
      for (int a = 0; a < dim; ++a) {
        at[a] = first[a] + ((corner >> a) & 1);
        const double d = grid.origin(a) + (static_cast<double>(at[a]) + 0.5) * grid.spacing(a) -
                         x[a];
        distance2 += d * d;
      }
      const double sphere = s * (r - std::sqrt(distance2));
      double& value = view(at[0], at[1], at[2]);
      value = s > 0.0 ? std::max(value, sphere) : std::min(value, sphere);
    }
  }
  PetscCall(p.close());
  PetscCall(sample.close());
  PetscCall(minus_view.restore());
  PetscCall(plus_view.restore());

  // Spheres that reached a neighbour's cells through the ghosts: max / min into the owner, by
  // the DMDA's own global-to-local scatter run in reverse (DMLocalToGlobal only adds or
  // inserts in PETSc 3.18).
  VecScatter to_local;
  PetscCall(DMDAGetScatter(phi.dm(), &to_local, nullptr));
  PetscCall(plus.get_global(phi.dm()));
  PetscCall(minus.get_global(phi.dm()));
  PetscCall(VecCopy(phi.global(), plus));
  PetscCall(VecCopy(phi.global(), minus));
  PetscCall(VecScatterBegin(to_local, plus_local, plus, MAX_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(to_local, plus_local, plus, MAX_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterBegin(to_local, minus_local, minus, MIN_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(to_local, minus_local, minus, MIN_VALUES, SCATTER_REVERSE));
  ReadArray plus_owned, minus_owned;
  WriteArray phi_owned;
  PetscInt size = 0;
  PetscCall(VecGetLocalSize(plus, &size));
  PetscCall(plus_owned.get(plus));
  PetscCall(minus_owned.get(minus));
  PetscCall(phi_owned.get(phi.global()));
  for (PetscInt c = 0; c < size; ++c)
    phi_owned[c] = std::abs(plus_owned[c]) <= std::abs(minus_owned[c]) ? plus_owned[c]
                                                                        : minus_owned[c];
  PetscCall(phi_owned.restore());
  PetscCall(minus_owned.restore());
  PetscCall(plus_owned.restore());
  if (escaped) PetscCallMPI(MPI_Allreduce(&count, escaped, 1, MPIU_INT, MPI_SUM, grid.comm()));
  PetscFunctionReturn(0);
}

PetscErrorCode ParticleLevelSet::adjust_radii(Field& phi) {
  PetscFunctionBeginUser;
  if (!enabled()) PetscFunctionReturn(0);
  PetscCall(phi.fill_ghosts());
  LevelSampler sample;
  PetscCall(sample.open(phi));
  ParticleArrays p;
  PetscCall(p.open(swarm_));
  for (PetscInt n = 0; n < p.count; ++n) {
    double level = 0.0;
    if (!sample(&p.position[3 * n], &level)) continue;
    const double own_side = p.sign[n] * level;
    if (own_side >= 0.0) p.radius[n] = std::clamp(own_side, least_radius_, most_radius_);
  }
  PetscCall(p.close());
  PetscCall(sample.close());
  PetscFunctionReturn(0);
}

PetscErrorCode ParticleLevelSet::reseed(Field& phi, PetscInt generation) {
  PetscFunctionBeginUser;
  if (!enabled()) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  PetscCall(phi.fill_ghosts());
  LevelSampler sample;
  PetscCall(sample.open(phi));
  // Particles to drop, and those kept per owned cell.
  std::vector<PetscInt> drop;
  std::vector<int> kept(static_cast<size_t>(grid.owned_cells().count()), 0);
  ParticleArrays p;
  PetscCall(p.open(swarm_));
  const double band = config_.band * h_;
  for (PetscInt n = 0; n < p.count; ++n) {
    const double* x = &p.position[3 * n];
    double level = 0.0;
    if (!sample(x, &level) || std::abs(level) > band || p.sign[n] * level < -p.radius[n]) {
      drop.push_back(n);
      continue;
    }
    ++kept[owned_cell(x)];
  }
  PetscCall(p.close());
  PetscCall(remove(drop));
  std::vector<Seed> seeds;
  const double reach = (config_.band + 1) * h_;
  const IndexBox owned = grid.owned_cells();
  for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    const int missing = config_.per_cell - kept[box_offset(owned, i, j, k)];
    if (missing <= 0 || solids_->solid(i, j, k) || !(std::abs(sample.view()(i, j, k)) < reach))
      return;
    seeds_of_cell(i, j, k, generation, missing, sample, &seeds);
  });
  PetscCall(sample.close());
  PetscCall(add(seeds));
  PetscFunctionReturn(0);
}

PetscErrorCode ParticleLevelSet::remove(const std::vector<PetscInt>& indices) {
  return remove_particles(swarm_, indices);
}

PetscErrorCode ParticleLevelSet::respect_flows(const LiquidConfig& config, double time) {
  PetscFunctionBeginUser;
  if (!enabled()) PetscFunctionReturn(0);
  std::vector<const LiquidConfig::Flow*> sources, sinks;
  for (const LiquidConfig::Flow& flow : config.sources)
    if (flow_active(flow, time)) sources.push_back(&flow);
  for (const LiquidConfig::Flow& flow : config.sinks)
    if (flow_active(flow, time)) sinks.push_back(&flow);
  if (sources.empty() && sinks.empty()) PetscFunctionReturn(0);
  std::vector<PetscInt> drop;
  ParticleArrays p;
  PetscCall(p.open(swarm_));
  for (PetscInt n = 0; n < p.count; ++n) {
    const double* x = &p.position[3 * n];
    for (const LiquidConfig::Flow* flow : p.sign[n] > 0.0 ? sources : sinks)
      if (region_contains(flow->region, x, grid_->dim())) {
        drop.push_back(n);
        break;
      }
  }
  PetscCall(p.close());
  PetscCall(remove(drop));
  PetscFunctionReturn(0);
}

PetscErrorCode ParticleLevelSet::census(PetscInt* count, std::int64_t* id_sum) const {
  PetscFunctionBeginUser;
  *count = 0;
  *id_sum = 0;
  if (!enabled()) PetscFunctionReturn(0);
  ParticleArrays p;
  PetscCall(p.open(swarm_));
  std::int64_t sum = 0;
  for (PetscInt n = 0; n < p.count; ++n) sum += p.id[n];
  const PetscInt local = p.count;
  PetscCall(p.close());
  PetscCallMPI(MPI_Allreduce(&local, count, 1, MPIU_INT, MPI_SUM, grid_->comm()));
  PetscCallMPI(MPI_Allreduce(&sum, id_sum, 1, MPI_INT64_T, MPI_SUM, grid_->comm()));
  PetscFunctionReturn(0);
}

}  // namespace sf
