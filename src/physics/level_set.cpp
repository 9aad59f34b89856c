// The level set's initial distance, its reinitialisation and the liquid's volume (see
// level_set.hpp for the method and its sources).
#include "level_set.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cut_faces.hpp"
#include "heaviside.hpp"
#include "limiters.hpp"
#include "vec_array.hpp"
#include "wall_separation.hpp"

namespace sf {

namespace {

// Pseudo-time step as a fraction of the Hamilton-Jacobi CFL limit h / dim.
constexpr double kPseudoCfl = 0.45;

double squared(double x) { return x * x; }

// The offsets along an axis the reinitialisation's stencil reads, in BandCell's bit order.
constexpr int kOffsets[4] = {-2, -1, 1, 2};

// The distance from the centre of cell `at` to the union of `regions`, held within +-band; a
// ghost index across a periodic axis stands for its image inside the domain.
double held_distance(const Grid& grid, const std::vector<Region>& regions, const PetscInt at[3],
                     double band) {
  double x[3] = {0.0, 0.0, 0.0};
  for (int a = 0; a < grid.dim(); ++a) {
    const PetscInt n = grid.cells(a);
    const PetscInt index = grid.periodic(a) ? ((at[a] % n) + n) % n : at[a];
    x[a] = grid.cell_center(a, index);
  }
  return std::clamp(union_distance(regions, x, grid.dim()), -band, band);
}

}  // namespace

PetscErrorCode LevelSet::setup(const Grid& grid, const SolidMask& solids,
                               const LiquidConfig& config) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  config_ = config;
  h_ = grid.min_spacing();
  band_width_ = config.band * h_;
  PetscFunctionReturn(0);
}

PetscErrorCode LevelSet::initialise(Field& phi) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  WriteArray view;
  PetscCall(view.get_global(phi));
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const PetscInt at[3] = {i, j, k};
    view(i, j, k) = held_distance(grid, config_.initial, at, band_width_);
  });
  PetscFunctionReturn(0);
}

PetscErrorCode LevelSet::reinitialise(Field& phi, ReinitialiseStats* stats,
                                      const SurfaceDistance& surface) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  const bool eno = grid.halo() >= 2;
  // The obstacles' cells are read as mirrors of the fluid (BandCell::solid_neighbours), so the
  // iterations need no extension into them.
  PetscCall(exchange(phi, false));

  // phi0 over the local extent, and the band listed with what its updates need of phi0.
  ReadArray local;
  PetscCall(local.get_local(phi));
  const ConstArrayView l = local.view();  // for its box only: the values are copied here
  const size_t count = static_cast<size_t>(l.width[0] * l.width[1] * l.width[2]);
  initial_.assign(local.data, local.data + count);
  PetscCall(local.restore());
  const PetscInt stride[3] = {1, l.width[0], l.width[0] * l.width[1]};
  double inverse_h[3] = {0.0, 0.0, 0.0};
  for (int a = 0; a < dim; ++a) inverse_h[a] = 1.0 / grid.spacing(a);

  std::vector<BandCell>& band = band_;
  band.clear();
  WriteArray g;
  PetscCall(g.get_global(phi));
  const SolidMask& solids = *solids_;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    // An obstacle's cells hold the extension of their fluid neighbours (extend_into_solids).
    if (solids.solid(i, j, k)) return;
    const PetscInt at = l.offset(i, j, k);
    const double p0 = initial_[static_cast<size_t>(at)];
    if (!(std::abs(p0) < band_width_)) {
      // Beyond the band the distance is not kept: the value only says which side.
      g(i, j, k) = p0 < 0.0 ? -band_width_ : band_width_;
      return;
    }
    BandCell cell{i, j, k, at, p0 / std::sqrt(p0 * p0 + h_ * h_),
                  std::numeric_limits<double>::quiet_NaN(), 0u};
    bool next_to_surface = p0 == 0.0;
    double gradient2 = 0.0;
    // The surface lies no farther than where it crosses the line to a neighbour of the other
    // sign (linear interpolation along that axis): a bound on |d| where the central differences
    // vanish, at a sheet one or two cells thick (phi0 peaks in it), whose d would be unbounded.
    double nearest_crossing = std::numeric_limits<double>::infinity();
    const PetscInt index[3] = {i, j, k};
    for (int a = 0; a < dim; ++a) {
      for (int n = 0; n < 4; ++n) {
        if (!eno && (n == 0 || n == 3)) continue;  // +-2 are read by ENO only (halo 2 or more)
        PetscInt neighbour[3] = {i, j, k};
        neighbour[a] += kOffsets[n];
        if (solids.solid(neighbour[0], neighbour[1], neighbour[2]))
          cell.solid_neighbours |= 1u << (4 * a + n);
      }
      // An obstacle's value mirrors its fluid neighbours, as a wall's ghost does.
      const bool solid_below = cell.solid_neighbours >> (4 * a + 1) & 1u;
      const bool solid_above = cell.solid_neighbours >> (4 * a + 2) & 1u;
      const double below = solid_below ? p0 : initial_[static_cast<size_t>(at - stride[a])];
      const double above = solid_above ? p0 : initial_[static_cast<size_t>(at + stride[a])];
      for (const double neighbour : {below, above})
        if (p0 * neighbour < 0.0) {
          next_to_surface = true;
          nearest_crossing = std::min(nearest_crossing, grid.spacing(a) * std::abs(p0) /
                                                            (std::abs(p0) + std::abs(neighbour)));
        }
      // Where a ghost behind a wall mirrors the cell (zero gradient), the central difference
      // would be halved and, through d = phi0 / |grad phi0|, push the surface away from the
      // wall at every reinitialisation (a film on a wall thickened by a quarter cell a step):
      // there the one-sided difference into the domain stands in.
      // The same holds next to an obstacle.
      double slope = 0.5 * std::abs(above - below) * inverse_h[a];
      if (solid_below || (!grid.periodic(a) && index[a] == 0 && below == p0))
        slope = std::abs(above - p0) * inverse_h[a];
      else if (solid_above ||
               (!grid.periodic(a) && index[a] == grid.cells(a) - 1 && above == p0))
        slope = std::abs(p0 - below) * inverse_h[a];
      gradient2 += slope * slope;
    }
    if (next_to_surface) {
      const double given = surface ? surface(i, j, k) : std::numeric_limits<double>::quiet_NaN();
      cell.surface = std::isnan(given)
                         ? std::copysign(std::min(std::abs(p0) /
                                                      std::max(std::sqrt(gradient2), 1e-12),
                                                  nearest_crossing),
                                         p0)
                         : given;
    }
    band.push_back(cell);
  });
  PetscCall(g.restore());

  // Forward Euler in pseudo time, Jacobi-style: each iteration reads the exchanged values of
  // the last one.
  const double dtau = pseudo_step();
  const int iterations = this->iterations();
  for (int n = 0; n < iterations; ++n) {
    PetscCall(exchange(phi, false));
    PetscCall(local.get(phi.local()));
    PetscCall(g.get_global(phi));
    for (const BandCell& cell : band) {
      const double p = local[cell.local];
      if (!std::isnan(cell.surface)) {
        const double side = cell.sign > 0.0 ? 1.0 : (cell.sign < 0.0 ? -1.0 : 0.0);
        g(cell.i, cell.j, cell.k) = p - dtau / h_ * (side * std::abs(p) - cell.surface);
        continue;
      }
      double gradient2 = 0.0;
      for (int a = 0; a < dim; ++a) {
        // phi at offsets -2, -1, +1, +2 along the axis; an obstacle's cells reflect the fluid
        // across the face between (the mirror a wall's ghosts hold).
        // (+-2 only with ENO: a halo of 1 holds no more.)
        double v[4] = {0.0, local[cell.local - stride[a]], local[cell.local + stride[a]], 0.0};
        if (eno) {
          v[0] = local[cell.local - 2 * stride[a]];
          v[3] = local[cell.local + 2 * stride[a]];
        }
        const unsigned solid = cell.solid_neighbours >> (4 * a) & 0xFu;
        if (solid) {
          // Across the face to a solid at -1, the mirror holds p at -1 and phi(+1) at -2.
          const double raw_below = v[1], raw_above = v[2];
          if (solid & 2u) {
            v[1] = p;
            v[0] = solid & 4u ? p : raw_above;
          } else if (solid & 1u) {
            v[0] = raw_below;
          }
          if (solid & 4u) {
            v[2] = p;
            v[3] = solid & 2u ? p : raw_below;
          } else if (solid & 8u) {
            v[3] = raw_above;
          }
        }
        double minus = (p - v[1]) * inverse_h[a];
        double plus = (v[2] - p) * inverse_h[a];
        if (eno) {
          // Second-order ENO: the one-sided difference corrected by the smaller second
          // difference on its side (h/2 minmod(D2-, D2), h/2 minmod(D2, D2+), in units of h).
          const double here = v[2] - 2.0 * p + v[1];
          const double below = p - 2.0 * v[1] + v[0];
          const double above = v[3] - 2.0 * v[2] + p;
          minus = eno_limited(minus, 0.5 * minmod(below, here) * inverse_h[a]);
          plus = eno_limited(plus, -0.5 * minmod(here, above) * inverse_h[a]);
        }
        gradient2 += cell.sign > 0.0
                         ? std::max(squared(std::max(minus, 0.0)), squared(std::min(plus, 0.0)))
                         : std::max(squared(std::min(minus, 0.0)), squared(std::max(plus, 0.0)));
      }
      g(cell.i, cell.j, cell.k) = p - dtau * cell.sign * (std::sqrt(gradient2) - 1.0);
    }
    PetscCall(g.restore());
    PetscCall(local.restore());
  }
  PetscInt cells = static_cast<PetscInt>(band.size());
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &cells, 1, MPIU_INT, MPI_SUM, grid.comm()));
  if (stats) *stats = {iterations, cells};
  PetscFunctionReturn(0);
}

PetscErrorCode LevelSet::fill_ghosts(Field& phi) const { return exchange(phi, true); }

PetscErrorCode LevelSet::exchange(Field& phi, bool into_solids) const {
  PetscFunctionBeginUser;
  if (wall_velocity_) PetscCall(hold_surfaces_at_leaving_walls(*wall_velocity_, phi, *solids_));
  PetscCall(phi.fill_ghosts());
  PetscCall(complete_ghosts(phi, into_solids));
  PetscFunctionReturn(0);
}

PetscErrorCode LevelSet::complete_ghosts(Field& phi, bool into_solids) const {
  PetscFunctionBeginUser;
  if (into_solids) PetscCall(extend_into_solids(phi));
  PetscCall(fill_inflow_ghosts(phi));
  if (wall_velocity_) PetscCall(open_separating_walls(*wall_velocity_, phi, *solids_));
  PetscFunctionReturn(0);
}

PetscErrorCode LevelSet::fill_inflow_ghosts(Field& phi) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  const IndexBox& owned = grid.owned_cells();
  WriteArray l;
  for (int a = 0; a < dim; ++a)
    for (int side = 0; side < 2; ++side) {
      const std::vector<Region>& liquid = grid.face_boundary(a, side).liquid;
      if (grid.boundary(a, side) != BoundaryKind::Inflow || liquid.empty()) continue;
      // Only the ranks at the face hold its ghosts (traces that reach them from elsewhere are
      // answered there).
      if (side == 0 ? owned.lo[a] != 0 : owned.hi[a] != grid.cells(a)) continue;
      if (!l) PetscCall(l.get_local(phi));
      IndexBox ghosts;  // the local extent's cells beyond this face
      for (int b = 0; b < 3; ++b) {
        ghosts.lo[b] = l.start[b];
        ghosts.hi[b] = l.start[b] + l.width[b];
      }
      if (side == 0)
        ghosts.hi[a] = 0;
      else
        ghosts.lo[a] = grid.cells(a);
      for_each_index(ghosts, [&](PetscInt i, PetscInt j, PetscInt k) {
        const PetscInt at[3] = {i, j, k};
        l(i, j, k) = held_distance(grid, liquid, at, band_width_);
      });
    }
  PetscFunctionReturn(0);
}

PetscErrorCode LevelSet::extend_into_solids(Field& phi) const {
  PetscFunctionBeginUser;
  if (!solids_->any()) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  const SolidMask& solids = *solids_;
  ReadArray l;
  WriteArray g;
  PetscCall(l.get_local(phi));
  PetscCall(g.get_global(phi));
  // Up to the halo's width: the farthest any stencil of a fluid cell reaches into an obstacle.
  const int reach = grid.halo();
  const auto fluid = [&](PetscInt i, PetscInt j, PetscInt k) { return !solids.solid(i, j, k); };
  const auto value = [&](PetscInt i, PetscInt j, PetscInt k) { return l(i, j, k); };
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!solids.solid(i, j, k)) return;
    double mean = 0.0;
    if (nearest_along_axes(grid, i, j, k, reach, fluid, value, &mean)) g(i, j, k) = mean;
  });
  PetscCall(g.restore());
  PetscCall(l.restore());
  PetscCall(phi.fill_ghosts());
  PetscFunctionReturn(0);
}

double LevelSet::pseudo_step() const { return kPseudoCfl * h_ / grid_->dim(); }

int LevelSet::iterations() const {
  return static_cast<int>(std::ceil(band_width_ / pseudo_step())) + 1;
}

double LevelSet::liquid_fraction(double phi) const { return sf::liquid_fraction(phi, h_); }

PetscErrorCode LevelSet::volume(const Field& phi, double* volume) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  double cell_volume = 1.0;
  for (int a = 0; a < grid.dim(); ++a) cell_volume *= grid.spacing(a);
  ReadArray view;
  PetscCall(view.get_global(phi));
  double sum = 0.0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!solids_->solid(i, j, k)) sum += liquid_fraction(view(i, j, k));
  });
  PetscCall(view.restore());
  sum *= cell_volume;
  PetscCallMPI(MPI_Allreduce(&sum, volume, 1, MPI_DOUBLE, MPI_SUM, grid.comm()));
  PetscFunctionReturn(0);
}

}  // namespace sf
