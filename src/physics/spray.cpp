// Spray and foam on a DMSwarm (see spray.hpp for the method and its source).
#include "spray.hpp"

#include <algorithm>
#include <cmath>

#include "interpolation.hpp"
#include "particle_swarm.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

/// The spray's fields for the duration of a loop over its particles, by column.
struct SprayArrays : SwarmFields {
  PetscErrorCode open(DM swarm) {
    PetscFunctionBeginUser;
    PetscCall(SwarmFields::open(swarm, kSprayTable));
    position = real(kSprayPosition);
    velocity = real(kSprayVelocity);
    radius = real(kSprayRadius);
    life = real(kSprayLife);
    kind = real(kSprayKind);
    id = int64(kSprayId);
    PetscFunctionReturn(0);
  }

  double* position = nullptr;  // 3 per particle
  double* velocity = nullptr;  // 3 per particle
  double* radius = nullptr;
  double* life = nullptr;
  double* kind = nullptr;
  std::int64_t* id = nullptr;
};

constexpr double kSpray = 0.0, kFoam = 1.0;

/// The key of random number `what` of particle `id` at step `step`.
std::uint64_t particle_key(std::int64_t id, PetscInt step, int what) {
  return mix_bits(static_cast<std::uint64_t>(id)) ^
         (static_cast<std::uint64_t>(step) * 8 + static_cast<std::uint64_t>(what));
}

}  // namespace

PetscErrorCode Spray::setup(const Grid& grid, const SolidMask& solids,
                            const LiquidConfig& config, const std::array<double, 3>& gravity) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  config_ = config.spray;
  gravity_ = gravity;
  h_ = grid.min_spacing();
  cell_volume_ = 1.0;
  for (int a = 0; a < grid.dim(); ++a) cell_volume_ *= grid.spacing(a);
  if (config_.radius == 0.0) config_.radius = 0.25 * h_;
  if (!enabled()) PetscFunctionReturn(0);
  PetscCall(owners_.setup(grid));
  PetscCall(create_particle_swarm(grid, kSprayTable, &swarm_));
  PetscFunctionReturn(0);
}

PetscErrorCode Spray::add(const std::vector<Particle>& particles) {
  PetscFunctionBeginUser;
  if (particles.empty()) PetscFunctionReturn(0);
  PetscInt before = 0;
  PetscCall(DMSwarmGetLocalSize(swarm_, &before));
  PetscCall(DMSwarmAddNPoints(swarm_, static_cast<PetscInt>(particles.size())));
  SprayArrays p;
  PetscCall(p.open(swarm_));
  PetscMPIInt rank = 0;
  PetscCallMPI(MPI_Comm_rank(grid_->comm(), &rank));
  for (size_t s = 0; s < particles.size(); ++s) {
    const PetscInt at = before + static_cast<PetscInt>(s);
    for (int a = 0; a < 3; ++a) {
      p.position[3 * at + a] = particles[s].x[a];
      p.velocity[3 * at + a] = particles[s].v[a];
    }
    p.radius[at] = particles[s].radius;
    p.life[at] = particles[s].life;
    p.kind[at] = particles[s].kind;
    p.id[at] = particles[s].id;
    p.rank[at] = rank;
  }
  PetscCall(p.close());
  PetscFunctionReturn(0);
}

PetscErrorCode Spray::add_spray(const std::array<double, 3>& position,
                                const std::array<double, 3>& velocity, double radius,
                                std::int64_t id) {
  return add({Particle{position, velocity, radius, 0.0, kSpray, id}});
}

PetscErrorCode Spray::remove(const std::vector<PetscInt>& indices) {
  return remove_particles(swarm_, indices);
}

PetscErrorCode Spray::migrate() { return migrate_particles(swarm_, kSprayTable, owners_); }

double Spray::volume_of(double radius) const {
  return grid_->dim() == 3 ? 4.0 / 3.0 * M_PI * radius * radius * radius
                           : M_PI * radius * radius;
}

void Spray::cell_of(const double x[3], PetscInt cell[3]) const {
  const Grid& grid = *grid_;
  cell[0] = cell[1] = cell[2] = 0;
  for (int a = 0; a < grid.dim(); ++a)
    cell[a] = std::clamp<PetscInt>(
        static_cast<PetscInt>(std::floor((x[a] - grid.origin(a)) / grid.spacing(a))), 0,
        grid.cells(a) - 1);
}

namespace {

// Adds `volume` of liquid to the fraction of owned cell `cell` (its volume `cell_volume`).
void deposit(WriteArray& f, const PetscInt cell[3], double volume, double cell_volume) {
  f(cell[0], cell[1], cell[2]) += volume / cell_volume;
}

}  // namespace

PetscErrorCode Spray::move(const Field& velocity, Field* fraction, double dt, PetscInt step,
                           std::vector<PetscInt>* gone, std::vector<Particle>* born) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  ReadArray u_view;
  PetscCall(u_view.get_local(velocity));
  WriteArray f;
  if (fraction) PetscCall(f.get_global(*fraction));
  const double cell_volume = cell_volume_;
  const LocalSampler sampler(grid, u_view, Interpolation::Linear);
  // The flight's exact solution over dt: v(t) = v_inf + (v - v_inf) e^{-k t}, v_inf = g / k; a
  // parabola without drag.
  const double k = config_.drag;
  const double decay = std::exp(-k * dt);
  const double reach = k > 0.0 ? -std::expm1(-k * dt) / k : dt;  // integral of e^{-k t}
  const double split = config_.split_time > 0.0 ? -std::expm1(-dt / config_.split_time) : 0.0;
  SprayArrays p;
  PetscCall(p.open(swarm_));
  for (PetscInt n = 0; n < p.count; ++n) {
    double* x = &p.position[3 * n];
    double* v = &p.velocity[3 * n];
    // The cell it flies from (this rank's since the last migration), for the books.
    PetscInt from[3];
    cell_of(x, from);
    const bool books = fraction && p.kind[n] == kSpray;
    if (p.kind[n] == kSpray) {
      for (int a = 0; a < dim; ++a) {
        if (k > 0.0) {
          const double terminal = gravity_[a] / k;
          x[a] += terminal * dt + (v[a] - terminal) * reach;
          v[a] = terminal + (v[a] - terminal) * decay;
        } else {
          x[a] += dt * v[a] + 0.5 * dt * dt * gravity_[a];
          v[a] += dt * gravity_[a];
        }
      }
    } else {
      // Foam rides the liquid: RK2 (midpoint), as the marker particles.
      double u[3] = {0.0, 0.0, 0.0}, mid[3] = {x[0], x[1], x[2]};
      bool found = sampler.sample_velocity(mid, u);
      for (int a = 0; a < dim; ++a) mid[a] += 0.5 * dt * u[a];
      canonical_point(sampler.axes(), dim, mid);
      found = found && sampler.sample_velocity(mid, u);
      if (!found) {
        gone->push_back(n);
        continue;
      }
      for (int a = 0; a < dim; ++a) x[a] += dt * u[a];
    }
    bool inside = true, through_outflow = false;
    for (int a = 0; a < dim; ++a)
      if (!grid.periodic(a) &&
          !(x[a] >= grid.origin(a) && x[a] <= grid.origin(a) + grid.length(a))) {
        inside = false;
        through_outflow |= grid.boundary(a, x[a] < grid.origin(a) ? 0 : 1) ==
                           BoundaryKind::Outflow;
      }
    if (!inside) {
      if (books && !through_outflow) deposit(f, from, volume_of(p.radius[n]), cell_volume);
      gone->push_back(n);
      continue;
    }
    canonical_point(sampler.axes(), dim, x);
    if (books) {
      // Into an obstacle: its liquid goes back where it flew from (a cell beyond the halo is
      // checked where it lands, settle()).
      PetscInt to[3];
      cell_of(x, to);
      if (solids_->in_extent(to[0], to[1], to[2]) && solids_->solid(to[0], to[1], to[2])) {
        deposit(f, from, volume_of(p.radius[n]), cell_volume);
        gone->push_back(n);
        continue;
      }
    }
    // A spray particle still in the domain may split.
    if (p.kind[n] == kSpray && split > 0.0 &&
        uniform_from(particle_key(p.id[n], step, 1)) < split) {
      // Two of half the volume, 10 % of the speed apart along a random direction.
      double d[3] = {0.0, 0.0, 0.0}, length = 0.0, speed = 0.0;
      for (int a = 0; a < dim; ++a) {
        d[a] = 2.0 * uniform_from(particle_key(p.id[n], step, 2 + a)) - 1.0;
        length += d[a] * d[a];
        speed += v[a] * v[a];
      }
      const double scale = length > 0.0 ? 0.05 * std::sqrt(speed / length) : 0.0;
      Particle child{{x[0], x[1], x[2]}, {v[0], v[1], v[2]}, p.radius[n] / std::cbrt(2.0),
                     0.0, kSpray,
                     static_cast<std::int64_t>(mix_bits(particle_key(p.id[n], step, 5)) >> 11)};
      for (int a = 0; a < dim; ++a) {
        child.v[a] += scale * d[a];
        v[a] -= scale * d[a];
      }
      p.radius[n] = child.radius;
      born->push_back(child);
    }
  }
  PetscCall(p.close());
  PetscFunctionReturn(0);
}

void Spray::land(WriteArray& f, const double* const* points, const PetscInt cell[3],
                 double share) const {
  const Grid& grid = *grid_;
  const IndexBox& owned = grid.owned_cells();
  // The cells of the surface point and of the point half a cell out from it (where the liquid
  // has room), then the cell it fell to and its face neighbours, each of this rank and fluid,
  // each up to its room; what none has room for goes to the cell it fell to (the fraction's
  // advection moves it on, VolumeOfFluid::keep_bounds()).
  // At most the two points' cells, the landing cell and its 6 face neighbours: no allocation
  // per landing.
  std::array<std::array<PetscInt, 3>, 9> candidates;
  int count = 0;
  const auto consider = [&](const std::array<PetscInt, 3>& at) {
    if (owned.contains(at[0], at[1], at[2]) && !solids_->solid(at[0], at[1], at[2]))
      candidates[count++] = at;
  };
  for (int c = 0; points && c < 2; ++c) {
    PetscInt at[3];
    cell_of(points[c], at);
    consider({at[0], at[1], at[2]});
  }
  consider({cell[0], cell[1], cell[2]});
  for (int a = 0; a < grid.dim(); ++a)
    for (int side : {-1, 1}) {
      std::array<PetscInt, 3> n = {cell[0], cell[1], cell[2]};
      n[a] += side;
      consider(n);
    }
  for (int c = 0; c < count && share > 0.0; ++c) {
    const std::array<PetscInt, 3>& at = candidates[c];
    double& value = f(at[0], at[1], at[2]);
    const double placed = std::min(share, std::max(0.0, 1.0 - value));
    value += placed;
    share -= placed;
  }
  f(cell[0], cell[1], cell[2]) += share;
}

PetscErrorCode Spray::settle(const Field& phi, Field* fraction, double dt, PetscInt step,
                             std::vector<PetscInt>* gone) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  ReadArray level;
  PetscCall(level.get_local(phi));
  WriteArray f;
  if (fraction) PetscCall(f.get_global(*fraction));
  const double cell_volume = cell_volume_;
  const LocalSampler sampler(grid, level, Interpolation::Linear);
  const auto sample = [&](const double point[3], double* value) {
    double x[3] = {point[0], point[1], point[2]};
    canonical_point(sampler.axes(), dim, x);
    return sampler.sample(0, -1, x, value);
  };
  SprayArrays p;
  PetscCall(p.open(swarm_));
  for (PetscInt n = 0; n < p.count; ++n) {
    double* x = &p.position[3 * n];
    PetscInt cell[3];
    cell_of(x, cell);  // this rank's since the migration
    double value = 0.0;
    bool landed = false;
    if (solids_->solid(cell[0], cell[1], cell[2]) || !sample(x, &value)) {
      // Spray that flew farther than the halo into an obstacle: the obstacle's cell holds
      // its liquid (a moving body's gives it back, volume_of_fluid.hpp "Bodies").
      if (fraction && p.kind[n] == kSpray) deposit(f, cell, volume_of(p.radius[n]), cell_volume);
      gone->push_back(n);
      continue;
    }
    if (p.kind[n] == kSpray) {
      if (!(value < 0.0)) continue;  // still in the air
      // Landed: foam, its life drawn from an exponential of mean foam_life r / radius. Its
      // liquid goes to the surface it is put back on, below.
      landed = fraction != nullptr;
      p.kind[n] = kFoam;
      const double mean = config_.foam_life * p.radius[n] / config_.radius;
      p.life[n] = -mean * std::log1p(-uniform_from(particle_key(p.id[n], step, 6)));
      for (int a = 0; a < 3; ++a) p.velocity[3 * n + a] = 0.0;
    } else {
      p.life[n] -= dt;
      if (!(p.life[n] > 0.0) || value > h_) {
        gone->push_back(n);
        continue;
      }
    }
    // Back onto the surface along grad phi, from phi's differences half a cell either side.
    double gradient[3] = {0.0, 0.0, 0.0}, norm = 0.0;
    bool found = true;
    for (int a = 0; a < dim && found; ++a) {
      double lo[3] = {x[0], x[1], x[2]}, hi[3] = {x[0], x[1], x[2]}, below = 0.0, above = 0.0;
      lo[a] -= 0.5 * grid.spacing(a);
      hi[a] += 0.5 * grid.spacing(a);
      found = sample(lo, &below) && sample(hi, &above);
      gradient[a] = (above - below) / grid.spacing(a);
      norm += gradient[a] * gradient[a];
    }
    // phi need not be a distance (a height field's is a vertical one): its zero lies
    // phi / |grad phi| along the normal. Farther than a cell (phi flat: a thin sheet, between
    // two surfaces) the foam is not on a surface it can find: gone.
    if (!found || !(norm > 0.0) || std::abs(value) > h_ * std::sqrt(norm)) {
      if (landed) land(f, nullptr, cell, volume_of(p.radius[n]) / cell_volume);
      if (p.kind[n] == kFoam) gone->push_back(n);
      continue;
    }
    for (int a = 0; a < dim; ++a) x[a] -= value * gradient[a] / norm;
    canonical_point(sampler.axes(), dim, x);
    if (landed) {
      // On the surface, and half a cell out from it into the air: the cells there have room.
      double outward[3] = {0.0, 0.0, 0.0};
      for (int a = 0; a < dim; ++a) outward[a] = x[a] + 0.5 * h_ * gradient[a] / std::sqrt(norm);
      canonical_point(sampler.axes(), dim, outward);
      const double* points[2] = {x, outward};
      land(f, points, cell, volume_of(p.radius[n]) / cell_volume);
    }
  }
  PetscCall(p.close());
  PetscFunctionReturn(0);
}

PetscErrorCode Spray::shed(const Field& velocity, const Field& phi, Field* fraction, double dt,
                           PetscInt step, std::vector<Particle>* born) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  ReadArray level, u;
  PetscCall(level.get_local(phi));
  PetscCall(u.get_local(velocity));
  WriteArray f;
  if (fraction) PetscCall(f.get_global(*fraction));
  const double cell_volume = cell_volume_;
  const std::uint64_t cells = static_cast<std::uint64_t>(grid.cells(0)) *
                              static_cast<std::uint64_t>(grid.cells(1)) *
                              static_cast<std::uint64_t>(grid.cells(2));
  constexpr int kMostPerStep = 63;  // slots per cell and step; the last keys the count
  const double expected = config_.rate * dt;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!solids_->liquid(level, i, j, k)) return;
    const PetscInt at[3] = {i, j, k};
    bool surface = false;
    double n[3] = {0.0, 0.0, 0.0}, speed[3] = {0.0, 0.0, 0.0}, norm = 0.0;
    for (int a = 0; a < dim; ++a) {
      PetscInt lo[3] = {i, j, k}, hi[3] = {i, j, k};
      --lo[a];
      ++hi[a];
      const bool lo_in = grid.periodic(a) || at[a] > 0;
      const bool hi_in = grid.periodic(a) || at[a] < grid.cells(a) - 1;
      const auto air = [&](const PetscInt* n) {
        return !solids_->solid(n[0], n[1], n[2]) && level(n[0], n[1], n[2]) >= 0.0;
      };
      surface = surface || (lo_in && air(lo)) || (hi_in && air(hi));
      n[a] = (level(hi[0], hi[1], hi[2]) - level(lo[0], lo[1], lo[2])) / (2.0 * grid.spacing(a));
      norm += n[a] * n[a];
      speed[a] = 0.5 * (u(i, j, k, a) + u(hi[0], hi[1], hi[2], a));
    }
    if (!surface || !(norm > 0.0)) return;
    norm = std::sqrt(norm);
    double outward = 0.0;
    for (int a = 0; a < dim; ++a) {
      n[a] /= norm;
      outward += speed[a] * n[a];
    }
    if (!(outward > config_.threshold)) return;
    const std::uint64_t cell =
        (static_cast<std::uint64_t>(k) * static_cast<std::uint64_t>(grid.cells(1)) +
         static_cast<std::uint64_t>(j)) * static_cast<std::uint64_t>(grid.cells(0)) +
        static_cast<std::uint64_t>(i);
    const std::uint64_t base = (static_cast<std::uint64_t>(step) * cells + cell) *
                               static_cast<std::uint64_t>(kMostPerStep + 1);
    const int count = std::min<int>(
        kMostPerStep, static_cast<int>(std::floor(expected + uniform_from(base + kMostPerStep))));
    const double excess = outward - config_.threshold;
    for (int slot = 0; slot < count; ++slot) {
      const std::uint64_t key = (base + static_cast<std::uint64_t>(slot)) * 8;
      Particle particle{{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, 0.0, 0.0, kSpray,
                        static_cast<std::int64_t>(base + static_cast<std::uint64_t>(slot))};
      // A point of the cell, carried along n to the surface (phi linear about the centre)
      // and half a cell beyond it.
      double along = level(i, j, k);
      for (int a = 0; a < dim; ++a) {
        const double offset = (uniform_from(key + static_cast<std::uint64_t>(a)) - 0.5) *
                              grid.spacing(a);
        particle.x[a] = grid.cell_center(a, at[a]) + offset;
        along += n[a] * norm * offset;
      }
      bool inside = true;
      for (int a = 0; a < dim; ++a) {
        particle.x[a] += (-along / norm + 0.5 * h_) * n[a];
        particle.v[a] =
            speed[a] + config_.spread * excess *
                           (2.0 * uniform_from(key + 3 + static_cast<std::uint64_t>(a)) - 1.0);
        if (!grid.periodic(a) && !(particle.x[a] >= grid.origin(a) &&
                                   particle.x[a] <= grid.origin(a) + grid.length(a)))
          inside = false;
      }
      particle.radius = config_.radius * (0.5 + uniform_from(key + 6));
      if (!inside) continue;
      if (fraction) {
        // The cell's own liquid: none shed beyond what it holds.
        const double share = volume_of(particle.radius) / cell_volume;
        double& held = f(i, j, k);
        if (share > held) continue;
        held -= share;
      }
      born->push_back(particle);
    }
  });
  PetscFunctionReturn(0);
}

PetscErrorCode Spray::advance(Field& velocity, Field& phi, Field* fraction, double dt,
                              PetscInt step) {
  PetscFunctionBeginUser;
  if (!enabled()) PetscFunctionReturn(0);
  PetscCall(velocity.fill_ghosts());
  PetscCall(phi.fill_ghosts());
  std::vector<PetscInt> gone;
  std::vector<Particle> born;
  PetscCall(move(velocity, fraction, dt, step, &gone, &born));
  PetscCall(remove(gone));
  PetscCall(add(born));
  PetscCall(migrate());
  gone.clear();
  born.clear();
  PetscCall(settle(phi, fraction, dt, step, &gone));
  PetscCall(remove(gone));
  PetscCall(shed(velocity, phi, fraction, dt, step, &born));
  PetscCall(add(born));
  PetscCall(migrate());
  PetscFunctionReturn(0);
}

PetscErrorCode Spray::airborne(double* volume) const {
  PetscFunctionBeginUser;
  double here = 0.0;
  if (enabled()) {
    SprayArrays p;
    PetscCall(p.open(swarm_));
    for (PetscInt n = 0; n < p.count; ++n)
      if (p.kind[n] == kSpray) here += volume_of(p.radius[n]);
    PetscCall(p.close());
  }
  PetscCallMPI(MPI_Allreduce(&here, volume, 1, MPI_DOUBLE, MPI_SUM, grid_->comm()));
  PetscFunctionReturn(0);
}

PetscErrorCode Spray::census(PetscInt* spray, PetscInt* foam) const {
  PetscFunctionBeginUser;
  PetscInt local[2] = {0, 0}, all[2] = {0, 0};
  if (enabled()) {
    SprayArrays p;
    PetscCall(p.open(swarm_));
    for (PetscInt n = 0; n < p.count; ++n) ++local[p.kind[n] == kSpray ? 0 : 1];
    PetscCall(p.close());
  }
  PetscCallMPI(MPI_Allreduce(local, all, 2, MPIU_INT, MPI_SUM, grid_->comm()));
  *spray = all[0];
  *foam = all[1];
  PetscFunctionReturn(0);
}

PetscErrorCode Spray::restore(const SprayRecords& in) {
  PetscFunctionBeginUser;
  if (!enabled()) PetscFunctionReturn(0);
  PetscCall(replace_particles(swarm_, in));
  // A share of a checkpoint's particles may lie anywhere in the domain.
  PetscCall(migrate());
  PetscFunctionReturn(0);
}

PetscErrorCode Spray::records(SprayRecords* out) const {
  PetscFunctionBeginUser;
  out->resize(0);
  if (!enabled()) PetscFunctionReturn(0);
  PetscCall(copy_particles(swarm_, out));
  PetscFunctionReturn(0);
}

}  // namespace sf
