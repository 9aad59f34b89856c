// Integral measures and probes for the steps CSV (see diagnostics.hpp for the formulas).
#include "diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cut_faces.hpp"
#include "interpolation.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

/// The derivative along the normal into the fluid at a wall where the field's value is `wall`,
/// from its values at the first cell centre (h/2 from the wall) and, when `two`, the second
/// (3h/2): the quadratic through the three, exact for quadratics; from one cell, the
/// first-order difference.
double wall_normal_derivative(double wall, double first, double second, bool two, double h) {
  return two ? (9.0 * first - second - 8.0 * wall) / (3.0 * h) : (first - wall) / (0.5 * h);
}

/// The area of a cell's face normal to `axis` (in 2D a length).
double face_area(const Grid& grid, int axis) {
  double area = 1.0;
  for (int t = 0; t < grid.dim(); ++t)
    if (t != axis) area *= grid.spacing(t);
  return area;
}

}  // namespace

PetscErrorCode FlowDiagnostics::setup(const Grid& grid, const SolidMask& solids,
                                      const JobConfig& job, LiquidVolume liquid_volume,
                                      double initial_volume) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  viscosity_ = job.fluid.viscosity;
  probes_ = job.diagnostics.probes;
  columns_ = {"kinetic_energy", "enstrophy", "dissipation"};
  for (const ScalarConfig& scalar : job.scalars) columns_.push_back(scalar.name + "_total");
  scalar_totals_ = job.scalars.size();
  liquid_volume_ = job.liquid.enabled ? std::move(liquid_volume) : nullptr;
  PetscCheck(!job.liquid.enabled || liquid_volume_, grid.comm(), PETSC_ERR_ARG_NULL,
             "the diagnostics of a liquid need its volume");
  initial_volume_ = initial_volume;
  std::vector<std::string> sampled;  // the cell fields a probe samples
  for (const ScalarConfig& scalar : job.scalars) sampled.push_back(scalar.name);
  if (liquid_volume_) {
    columns_.push_back("liquid_volume");
    columns_.push_back("liquid_volume_change");
    sampled.push_back(LiquidConfig::kLevelSetName);
    if (job.liquid.interface == LiquidConfig::Interface::Vof)
      sampled.push_back(LiquidConfig::kFractionName);
  }
  const char* component[3] = {"u", "v", "w"};
  probe_here_.clear();
  for (const ProbeConfig& probe : probes_) {
    for (int c = 0; c < grid.dim(); ++c)
      columns_.push_back("probe_" + probe.name + "_" + component[c]);
    for (const std::string& name : sampled) columns_.push_back("probe_" + probe.name + "_" + name);
    // The cell holding the point (a point on the upper boundary belongs to the last cell), so
    // exactly one rank samples it.
    PetscInt cell[3] = {0, 0, 0};
    for (int a = 0; a < grid.dim(); ++a) {
      const double t = std::floor((probe.point[a] - grid.origin(a)) / grid.spacing(a));
      cell[a] = std::clamp(static_cast<PetscInt>(t), PetscInt{0}, grid.cells(a) - 1);
    }
    probe_here_.push_back(grid.owned_cells().contains(cell[0], cell[1], cell[2]));
  }
  walls_.clear();
  const char* sides[2] = {"lower", "upper"};
  for (size_t s = 0; s < job.scalars.size(); ++s) {
    const std::string& name = job.scalars[s].name;
    double lowest = 0.0, highest = 0.0;
    const size_t first = walls_.size();
    for (int a = 0; a < grid.dim(); ++a)
      for (int side = 0; side < 2; ++side) {
        const FaceBoundary& face = grid.face_boundary(a, side);
        if (face.kind != BoundaryKind::NoSlip && face.kind != BoundaryKind::FreeSlip) continue;
        const auto held = face.scalar_values.find(name);
        if (held == face.scalar_values.end()) continue;
        if (walls_.size() == first) lowest = highest = held->second;
        lowest = std::min(lowest, held->second);
        highest = std::max(highest, held->second);
        walls_.push_back({s, a, side, held->second, job.scalars[s].diffusion});
      }
    for (size_t w = first; w < walls_.size(); ++w) {
      DirichletWall& wall = walls_[w];
      const char* axes[3] = {"x", "y", "z"};
      const std::string where = std::string("_") + axes[wall.axis] + "_" + sides[wall.side];
      columns_.push_back(name + "_flux" + where);
      if (highest > lowest) {
        double area = 1.0;
        for (int t = 0; t < grid.dim(); ++t)
          if (t != wall.axis) area *= grid.length(t);
        wall.nusselt_scale = grid.length(wall.axis) / ((highest - lowest) * area);
        columns_.push_back(name + "_nusselt" + where);
      }
    }
  }
  obstacles_ = job.obstacles;
  const DiagnosticsConfig& d = job.diagnostics;
  coefficient_scale_ = d.reference_velocity > 0.0 && d.reference_area > 0.0
                           ? 2.0 / (d.reference_velocity * d.reference_velocity * d.reference_area)
                           : 0.0;
  for (size_t n = 0; n < obstacles_.size(); ++n) {
    const char* axes[3] = {"x", "y", "z"};
    for (int a = 0; a < grid.dim(); ++a)
      columns_.push_back("obstacle" + std::to_string(n) + "_f" + axes[a]);
    if (coefficient_scale_ > 0.0)
      for (int a = 0; a < grid.dim(); ++a)
        columns_.push_back("obstacle" + std::to_string(n) + "_c" + axes[a]);
  }
  held_scalars_.clear();
  for (size_t n = 0; n < obstacles_.size(); ++n)
    for (size_t s = 0; s < job.scalars.size(); ++s) {
      const auto held = obstacles_[n].scalar_values.find(job.scalars[s].name);
      if (held == obstacles_[n].scalar_values.end()) continue;
      held_scalars_.push_back({n, s, held->second, job.scalars[s].diffusion});
      columns_.push_back("obstacle" + std::to_string(n) + "_" + job.scalars[s].name + "_flux");
    }
  find_surface_crossings();
  PetscFunctionReturn(0);
}

void FlowDiagnostics::find_surface_crossings() {
  crossings_.clear();
  if (held_scalars_.empty()) return;
  const Grid& grid = *grid_;
  const SolidMask& solids = *solids_;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (solids.scalar_held(i, j, k)) return;
    for (int a = 0; a < grid.dim(); ++a)
      for (int step : {-1, 1}) {
        PetscInt m[3] = {i, j, k};
        m[a] += step;
        // Beyond a wall lies the wall, not an obstacle.
        if (!grid.periodic(a) && (m[a] < 0 || m[a] >= grid.cells(a))) continue;
        if (!solids.scalar_held(m[0], m[1], m[2])) continue;
        const int n = solids.obstacle_of_cell(m[0], m[1], m[2]);
        if (n < 0 || obstacles_[static_cast<size_t>(n)].scalar_values.empty()) continue;
        const PetscInt cell[3] = {i, j, k};
        double normal;
        const double theta = solids.surface_crossing(static_cast<size_t>(n), cell, m, &normal);
        crossings_.push_back({{i, j, k},
                              face_area(grid, a) / (theta * grid.spacing(a)),
                              static_cast<size_t>(n)});
      }
  });
}

void FlowDiagnostics::cell_position(PetscInt i, PetscInt j, PetscInt k, double x[3]) const {
  const Grid& grid = *grid_;
  const PetscInt index[3] = {i, j, k};
  for (int a = 0; a < 3; ++a) {
    x[a] = 0.0;
    if (a >= grid.dim()) continue;
    // A ghost cell across a periodic axis is its image inside the domain.
    const PetscInt n = grid.cells(a);
    const PetscInt inside = grid.periodic(a) ? ((index[a] % n) + n) % n : index[a];
    x[a] = grid.cell_center(a, inside);
  }
}

size_t FlowDiagnostics::obstacle_of(PetscInt i, PetscInt j, PetscInt k) const {
  // Every solid cell's centre lies in some obstacle; a cell covered only by two overlapping cut
  // obstacles together counts as the first.
  return static_cast<size_t>(std::max(0, solids_->obstacle_of_cell(i, j, k)));
}

void FlowDiagnostics::add_obstacle_forces(const ConstArrayView& u, const ConstArrayView& p,
                                          double* forces) const {
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (solids_->solid(i, j, k)) return;
    const PetscInt f[3] = {i, j, k};
    for (int a = 0; a < dim; ++a) {
      for (int side = 0; side < 2; ++side) {
        const PetscInt step = side == 0 ? -1 : 1;
        PetscInt s[3] = {i, j, k};
        s[a] += step;
        // Across a domain boundary lies a wall, not an obstacle (ghost cells copy their mirror).
        if (!grid.periodic(a) && (s[a] < 0 || s[a] >= grid.cells(a))) continue;
        if (!solids_->solid(s[0], s[1], s[2])) continue;
        const size_t n = obstacle_of(s[0], s[1], s[2]);
        if (obstacles_[n].surface == ObstacleConfig::Surface::Cut) continue;
        PetscInt behind[3] = {i, j, k};  // the next cell away from the solid
        behind[a] -= step;
        const bool two = (grid.periodic(a) || (behind[a] >= 0 && behind[a] < grid.cells(a))) &&
                         !solids_->solid(behind[0], behind[1], behind[2]);
        const double area = face_area(grid, a);
        double* force = forces + static_cast<size_t>(dim) * n;
        const double p0 = p(i, j, k);
        const double p_face = two ? p0 + 0.5 * (p0 - p(behind[0], behind[1], behind[2])) : p0;
        force[a] += static_cast<double>(step) * p_face * area;
        if (solids_->cell(s[0], s[1], s[2]) != SolidMask::NoSlipSolid || viscosity_ == 0.0)
          continue;
        // Shear: each tangential component at the cell's centre line, from its two faces.
        const double h = grid.spacing(a);
        for (int c = 0; c < dim; ++c) {
          if (c == a) continue;
          auto tangential = [&](const PetscInt at[3]) {
            return 0.5 * (u(at[0], at[1], at[2], c) +
                          u(at[0] + (c == 0), at[1] + (c == 1), at[2] + (c == 2), c));
          };
          // The surface moves with the body: 0 for one at rest; for a moving one, what its
          // solid cell's faces hold (hold_solid_faces(): the body's velocity).
          const double surface = obstacles_[n].moves() ? tangential(s) : 0.0;
          const double gradient = wall_normal_derivative(
              surface, tangential(f), two ? tangential(behind) : 0.0, two, h);
          force[c] += viscosity_ * gradient * area;
        }
      }
    }
  });
}

size_t FlowDiagnostics::nearest_cut_obstacle(PetscInt i, PetscInt j, PetscInt k,
                                            double* distance) const {
  double x[3];
  cell_position(i, j, k, x);
  size_t nearest = 0;
  *distance = std::numeric_limits<double>::infinity();
  for (size_t n = 0; n < obstacles_.size(); ++n) {
    if (obstacles_[n].surface != ObstacleConfig::Surface::Cut) continue;
    const double d = region_distance(obstacles_[n].region, x, grid_->dim());
    if (d < *distance) {
      nearest = n;
      *distance = d;
    }
  }
  return nearest;
}

// In a cell that a cut obstacle crosses, the closed parts of its faces, (1 - F) A n summed with
// n the outward face normals, are the area vector S of the piece of surface inside the cell
// (the cell's boundary closes), pointing into the solid. The pressure force is p S with p taken
// at the surface point nearest the cell's centre (extrapolated: exact for a linear pressure, so
// the sum over a body at rest in hydrostatic fluid is g times the volume the fractions enclose,
// second order in h), and the shear nu du_t/dn |S| from the velocity tangential to S at the
// centres of this cell and the next one away from the surface (below).
void FlowDiagnostics::add_cut_obstacle_forces(const ConstArrayView& u, const ConstArrayView& p,
                                              double* forces) const {
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  const double smallest_h = grid.min_spacing();
  auto inside_domain = [&](const PetscInt at[3]) {
    for (int a = 0; a < dim; ++a)
      if (!grid.periodic(a) && (at[a] < 0 || at[a] >= grid.cells(a))) return false;
    return true;
  };
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (solids_->solid(i, j, k)) return;
    double surface[3] = {0.0, 0.0, 0.0};
    bool crossed = false;
    for (int a = 0; a < dim; ++a) {
      for (int side = 0; side < 2; ++side) {
        PetscInt s[3] = {i, j, k}, face[3] = {i, j, k};
        s[a] += side == 0 ? -1 : 1;
        face[a] += side;
        if (!inside_domain(s)) continue;  // a wall, not an obstacle
        // A staircase obstacle's solid cell: add_obstacle_forces() has that face.
        if (solids_->solid(s[0], s[1], s[2]) &&
            obstacles_[obstacle_of(s[0], s[1], s[2])].surface != ObstacleConfig::Surface::Cut)
          continue;
        const double closed = 1.0 - solids_->face_fraction(a, face[0], face[1], face[2]);
        if (closed == 0.0) continue;
        surface[a] += (side == 0 ? -1.0 : 1.0) * closed * face_area(grid, a);
        crossed = true;
      }
    }
    if (!crossed) return;
    double distance = 0.0;
    const size_t n = nearest_cut_obstacle(i, j, k, &distance);
    double* force = forces + static_cast<size_t>(dim) * n;
    double area = 0.0;
    for (int a = 0; a < dim; ++a) area += surface[a] * surface[a];
    area = std::sqrt(area);
    if (area == 0.0) return;
    double normal[3] = {0.0, 0.0, 0.0};
    int main_axis = 0;
    for (int a = 0; a < dim; ++a) {
      normal[a] = surface[a] / area;
      if (std::abs(normal[a]) > std::abs(normal[main_axis])) main_axis = a;
    }
    // The pressure at the surface point nearest the centre, x + d n, from the differences to
    // the cells away from the surface (exact for a linear pressure).
    double pressure = p(i, j, k);
    for (int a = 0; a < dim; ++a) {
      PetscInt away[3] = {i, j, k};
      const PetscInt step = normal[a] > 0.0 ? -1 : 1;
      away[a] += step;
      if (normal[a] == 0.0 || !inside_domain(away) || solids_->solid(away[0], away[1], away[2]))
        continue;
      const double gradient = (p(i, j, k) - p(away[0], away[1], away[2])) /
                              (-static_cast<double>(step) * grid.spacing(a));
      pressure += distance * normal[a] * gradient;
    }
    for (int a = 0; a < dim; ++a) force[a] += pressure * surface[a];
    if (obstacles_[n].boundary != BoundaryKind::NoSlip || viscosity_ == 0.0) return;
    // The velocity tangential to the surface at the centres of this cell and the next one away
    // from it, at distances d1 and d2 from the surface: the quadratic through 0 on the surface
    // and both gives du_t/dn = (u1 d2^2 - u2 d1^2) / (d1 d2 (d2 - d1)), second order. A centre
    // closer than h/4 to the surface (or inside the obstacle) is left out, and so is the second
    // cell where there is none: then u / d from the one cell left, first order.
    auto tangential = [&](const PetscInt at[3], double* t) {
      double along = 0.0;
      for (int c = 0; c < dim; ++c) {
        t[c] = 0.5 * (u(at[0], at[1], at[2], c) +
                      u(at[0] + (c == 0), at[1] + (c == 1), at[2] + (c == 2), c));
        along += t[c] * normal[c];
      }
      for (int c = 0; c < dim; ++c) t[c] -= along * normal[c];
    };
    PetscInt away[3] = {i, j, k};
    away[main_axis] += normal[main_axis] > 0.0 ? -1 : 1;
    double away_distance = 0.0;
    nearest_cut_obstacle(away[0], away[1], away[2], &away_distance);
    const bool near_usable = distance >= 0.25 * smallest_h;
    // The cell's upper faces must lie in the velocity's ghosted extent (a ghost cell's upper
    // face on its own axis does not, with a halo of 1).
    bool faces_here = true;
    for (int a = 0; a < dim; ++a)
      faces_here = faces_here && away[a] + 1 < u.start[a] + u.width[a];
    const bool away_usable = faces_here && inside_domain(away) &&
                             !solids_->solid(away[0], away[1], away[2]) &&
                             away_distance > distance && away_distance >= 0.25 * smallest_h;
    const PetscInt here[3] = {i, j, k};
    double t1[3] = {0.0, 0.0, 0.0}, t2[3] = {0.0, 0.0, 0.0};
    if (near_usable && away_usable) {
      tangential(here, t1);
      tangential(away, t2);
      const double d1 = distance, d2 = away_distance;
      for (int c = 0; c < dim; ++c)
        force[c] += viscosity_ * (t1[c] * d2 * d2 - t2[c] * d1 * d1) / (d1 * d2 * (d2 - d1)) *
                    area;
    } else if (near_usable || away_usable) {
      tangential(near_usable ? here : away, t1);
      const double d = near_usable ? distance : away_distance;
      for (int c = 0; c < dim; ++c) force[c] += viscosity_ * t1[c] / d * area;
    }
  });
}

double FlowDiagnostics::wall_gradient_sum(const DirichletWall& wall,
                                          const ConstArrayView& s) const {
  const Grid& grid = *grid_;
  const int a = wall.axis;
  const PetscInt n = grid.cells(a);
  IndexBox layer = grid.owned_cells();
  const PetscInt first = wall.side == 0 ? 0 : n - 1;
  if (first < layer.lo[a] || first >= layer.hi[a]) return 0.0;
  layer.lo[a] = first;
  layer.hi[a] = first + 1;
  const PetscInt inward = wall.side == 0 ? 1 : -1;
  const double h = grid.spacing(a);
  const double area = face_area(grid, a);
  double sum = 0.0;
  for_each_index(layer, [&](PetscInt i, PetscInt j, PetscInt k) {
    if (solids_->solid(i, j, k)) return;
    const PetscInt second[3] = {i + (a == 0) * inward, j + (a == 1) * inward,
                                k + (a == 2) * inward};
    // Second order from two cells; one cell (a grid one cell across, or an obstacle in the
    // second) gives the first-order difference.
    const bool two = n >= 2 && !solids_->solid(second[0], second[1], second[2]);
    sum -= wall_normal_derivative(wall.value, s(i, j, k),
                                  two ? s(second[0], second[1], second[2]) : 0.0, two, h) *
           area;
  });
  return sum;
}

double FlowDiagnostics::node_weight(int axis, PetscInt i) const {
  if (grid_->periodic(axis)) return 1.0;
  return (i == 0 || i == grid_->cells(axis)) ? 0.5 : 1.0;
}

void FlowDiagnostics::integrate_velocity(const ConstArrayView& u, double sums[3]) const {
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  double inv_h[3] = {1.0, 1.0, 1.0};
  for (int a = 0; a < dim; ++a) inv_h[a] = 1.0 / grid.spacing(a);
  double energy = 0.0, enstrophy = 0.0, gradient = 0.0;
  for (int c = 0; c < dim; ++c) {
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      const PetscInt index[3] = {i, j, k};
      const double value = u(i, j, k, c);
      energy += node_weight(c, index[c]) * value * value;
    });
  }
  // d_c u_c at cell centres.
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    for (int c = 0; c < dim; ++c) {
      const double d =
          (u(i + (c == 0), j + (c == 1), k + (c == 2), c) - u(i, j, k, c)) * inv_h[c];
      gradient += d * d;
    }
  });
  // d_a u_b and d_b u_a on the edges of axes a < b: node indices along a and b (the owned faces'
  // ranges, which include the upper boundary node on the last rank), cells along the third.
  for (int a = 0; a < dim; ++a) {
    for (int b = a + 1; b < dim; ++b) {
      IndexBox edges = grid.owned_cells();
      edges.lo[a] = grid.owned_faces(a).lo[a];
      edges.hi[a] = grid.owned_faces(a).hi[a];
      edges.lo[b] = grid.owned_faces(b).lo[b];
      edges.hi[b] = grid.owned_faces(b).hi[b];
      for_each_index(edges, [&](PetscInt i, PetscInt j, PetscInt k) {
        const PetscInt index[3] = {i, j, k};
        const double d_a_ub =
            (u(i, j, k, b) - u(i - (a == 0), j - (a == 1), k - (a == 2), b)) * inv_h[a];
        const double d_b_ua =
            (u(i, j, k, a) - u(i - (b == 0), j - (b == 1), k - (b == 2), a)) * inv_h[b];
        const double w = node_weight(a, index[a]) * node_weight(b, index[b]);
        const double omega = d_a_ub - d_b_ua;
        enstrophy += w * omega * omega;
        gradient += w * (d_a_ub * d_a_ub + d_b_ua * d_b_ua);
      });
    }
  }
  sums[0] = energy;
  sums[1] = enstrophy;
  sums[2] = gradient;
}

PetscErrorCode FlowDiagnostics::measure(Field& velocity, std::vector<Field>& scalars,
                                        Vec pressure, std::vector<double>* values) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  double volume = 1.0;
  for (int a = 0; a < dim; ++a) volume *= grid.spacing(a);
  // One exchange keeps the measures right whatever the stage before left in the halo.
  PetscCall(velocity.fill_ghosts());
  if (!probes_.empty() || !walls_.empty() || !held_scalars_.empty())
    for (Field& scalar : scalars) PetscCall(scalar.fill_ghosts());

  std::vector<double> local(columns_.size(), 0.0);
  ReadArray u;
  PetscCall(u.get_local(velocity));
  double sums[3];
  integrate_velocity(u, sums);
  local[0] = 0.5 * sums[0] * volume;
  local[1] = 0.5 * sums[1] * volume;
  local[2] = viscosity_ * sums[2] * volume;

  size_t column = 3;
  std::vector<ReadArray> s_views(scalars.size());
  for (size_t s = 0; s < scalars.size(); ++s) {
    // The owned values, which the local vector holds too once its ghosts are filled (probes).
    PetscCall(s_views[s].get_local(scalars[s]));
    ReadArray owned;
    PetscCall(owned.get_global(scalars[s]));
    if (s < scalar_totals_) {
      double total = 0.0;
      for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
        if (!solids_->solid(i, j, k)) total += owned(i, j, k);
      });
      local[column++] = total * volume;
    }
    PetscCall(owned.restore());
  }
  // The liquid's volume is reduced on its own (collective); one rank's share enters the sum.
  const size_t volume_at = column;
  double liquid_volume = 0.0;
  if (liquid_volume_) {
    PetscCall(liquid_volume_(&liquid_volume));
    column += 2;
  }

  const LocalSampler velocity_sampler(grid, u, Interpolation::Linear);
  std::vector<LocalSampler> scalar_samplers;
  for (const ReadArray& view : s_views)
    scalar_samplers.emplace_back(grid, view, Interpolation::Linear);
  for (size_t p = 0; p < probes_.size(); ++p) {
    const size_t count = static_cast<size_t>(dim) + scalars.size();
    if (probe_here_[p]) {
      double x[3] = {probes_[p].point[0], probes_[p].point[1], probes_[p].point[2]};
      canonical_point(velocity_sampler.axes(), dim, x);
      // Every stencil of a point in an owned cell lies within one ghost layer; NaN would mark
      // a broken invariant in the CSV rather than a silently wrong number.
      for (int c = 0; c < dim; ++c) {
        double value = std::numeric_limits<double>::quiet_NaN();
        velocity_sampler.sample(c, c, x, &value);
        local[column + static_cast<size_t>(c)] = value;
      }
      for (size_t s = 0; s < scalars.size(); ++s) {
        double value = std::numeric_limits<double>::quiet_NaN();
        scalar_samplers[s].sample(0, -1, x, &value);
        local[column + static_cast<size_t>(dim) + s] = value;
      }
    }
    column += count;
  }
  // Walls: the gradient sums, scaled once summed over the ranks.
  std::vector<size_t> wall_columns;
  for (const DirichletWall& wall : walls_) {
    wall_columns.push_back(column);
    local[column] = wall_gradient_sum(wall, s_views[wall.scalar]);
    column += wall.nusselt_scale > 0.0 ? 2 : 1;
  }
  // Obstacles that hold scalars: the fluxes through their surfaces, placed after the forces.
  const size_t per_obstacle = static_cast<size_t>(dim) * (coefficient_scale_ > 0.0 ? 2 : 1);
  const size_t held_at = column + per_obstacle * obstacles_.size();
  for (size_t h = 0; h < held_scalars_.size(); ++h) {
    const HeldScalar& held = held_scalars_[h];
    const ConstArrayView& s = s_views[held.scalar];
    double sum = 0.0;
    for (const SurfaceCrossing& crossing : crossings_)
      if (crossing.obstacle == held.obstacle)
        sum += crossing.weight *
               (held.value - s(crossing.cell[0], crossing.cell[1], crossing.cell[2]));
    local[held_at + h] = held.diffusion * sum;
  }
  for (size_t s = 0; s < scalars.size(); ++s)
    PetscCall(s_views[s].restore());
  // Obstacles: the pressure with its ghosts (a pooled local vector), then the face sums.
  const size_t forces_at = column;
  if (!obstacles_.empty()) {
    PetscCheck(pressure, grid.comm(), PETSC_ERR_ARG_NULL,
               "the obstacle forces need the pressure");
    BorrowedVec p_local;
    PetscCall(p_local.get_local(grid.cell_dm()));
    PetscCall(grid.global_to_local(grid.cell_dm(), pressure, p_local));
    ReadArray p;
    PetscCall(p.get_local(grid.cell_dm(), p_local));
    std::vector<double> forces(static_cast<size_t>(dim) * obstacles_.size(), 0.0);
    add_obstacle_forces(u, p, forces.data());
    if (solids_->cut()) add_cut_obstacle_forces(u, p, forces.data());
    for (size_t n = 0; n < obstacles_.size(); ++n)
      for (int a = 0; a < dim; ++a)
        local[forces_at + n * per_obstacle + static_cast<size_t>(a)] =
            forces[static_cast<size_t>(dim) * n + static_cast<size_t>(a)];
  }
  PetscCall(u.restore());

  // A probe's value comes from one rank and zeros from the others, so the sum is exact.
  values->assign(local.size(), 0.0);
  PetscCallMPI(MPI_Allreduce(local.data(), values->data(), static_cast<int>(local.size()),
                             MPI_DOUBLE, MPI_SUM, grid.comm()));
  if (liquid_volume_) {
    (*values)[volume_at] = liquid_volume;
    (*values)[volume_at + 1] =
        initial_volume_ > 0.0 ? 100.0 * (liquid_volume - initial_volume_) / initial_volume_ : 0.0;
  }
  for (size_t w = 0; w < walls_.size(); ++w) {
    double& flux = (*values)[wall_columns[w]];
    if (walls_[w].nusselt_scale > 0.0)
      (*values)[wall_columns[w] + 1] = flux * walls_[w].nusselt_scale;
    flux *= walls_[w].diffusion;
  }
  if (coefficient_scale_ > 0.0)
    for (size_t n = 0; n < obstacles_.size(); ++n)
      for (size_t a = 0; a < static_cast<size_t>(dim); ++a) {
        const size_t at = forces_at + n * 2 * static_cast<size_t>(dim);
        (*values)[at + static_cast<size_t>(dim) + a] = coefficient_scale_ * (*values)[at + a];
      }
  PetscFunctionReturn(0);
}

}  // namespace sf
