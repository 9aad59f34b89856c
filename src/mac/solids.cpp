#include "solids.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cut_faces.hpp"
#include "keyframes.hpp"
#include "region.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

// The index of a cell's image inside the domain on a periodic axis (ghost cells across the wrap
// see the obstacles at the other end); unchanged on a bounded one.
PetscInt image(const Grid& grid, int axis, PetscInt index) {
  if (!grid.periodic(axis)) return index;
  const PetscInt n = grid.cells(axis);
  return ((index % n) + n) % n;
}

}  // namespace

bool ObstacleConfig::Motion::moves() const {
  for (int a = 0; a < 3; ++a)
    if (velocity[a] != 0.0 || amplitude[a] != 0.0) return true;
  return !keyframes.empty() || turns();
}

bool ObstacleConfig::Motion::turns() const {
  return angular_velocity[0] != 0.0 || angular_velocity[1] != 0.0 || angular_velocity[2] != 0.0 ||
         std::any_of(keyframes.begin(), keyframes.end(),
                     [](const Keyframe& key) { return key.angle != 0.0; });
}

void ObstacleConfig::Motion::keyframed(double time, std::array<double, 3>* position,
                                       double* angle, std::array<double, 3>* rate,
                                       double* angle_rate) const {
  position->fill(0.0);
  rate->fill(0.0);
  *angle = *angle_rate = 0.0;
  if (keyframes.empty()) return;
  // The rate at a keyframe's own time is the stretch's that ends there (locate_keyframe): the
  // body's faces are given the velocity at the end of a step (move_to(t + dt)).
  const KeyframeSpot spot = locate_keyframe(keyframes, time);
  const Keyframe& a = keyframes[spot.n];
  if (spot.held) {
    *position = a.position;
    *angle = a.angle;
    return;
  }
  const Keyframe& b = keyframes[spot.n + 1];
  const double span = b.time - a.time;
  for (int c = 0; c < 3; ++c) {
    (*position)[c] = a.position[c] + spot.s * (b.position[c] - a.position[c]);
    (*rate)[c] = (b.position[c] - a.position[c]) / span;
  }
  *angle = a.angle + spot.s * (b.angle - a.angle);
  *angle_rate = (b.angle - a.angle) / span;
}

std::array<double, 3> ObstacleConfig::Motion::omega_at(double time) const {
  if (keyframes.empty()) return angular_velocity;
  std::array<double, 3> position, rate;
  double angle, angle_rate;
  keyframed(time, &position, &angle, &rate, &angle_rate);
  return {angular_velocity[0] + axis[0] * angle_rate, angular_velocity[1] + axis[1] * angle_rate,
          angular_velocity[2] + axis[2] * angle_rate};
}

std::array<double, 9> ObstacleConfig::Motion::unturn(double time) const {
  // The angle turned by `time` and the axis: the constant angular velocity's, or the keyframes'
  // (the two do not mix).
  double turned = std::sqrt(angular_velocity[0] * angular_velocity[0] +
                            angular_velocity[1] * angular_velocity[1] +
                            angular_velocity[2] * angular_velocity[2]);
  std::array<double, 3> k = axis;
  if (turned > 0.0) {
    for (int a = 0; a < 3; ++a) k[a] = angular_velocity[a] / turned;
    turned *= time;
  } else {
    std::array<double, 3> position, rate;
    double angle_rate;
    keyframed(time, &position, &turned, &rate, &angle_rate);
  }
  if (turned == 0.0) return {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
  // Rodrigues: R = cos a I + sin a [k]x + (1 - cos a) k k^T, a = -turned about k.
  const double c = std::cos(-turned), s = std::sin(-turned), v = 1.0 - c;
  return {c + k[0] * k[0] * v,        k[0] * k[1] * v - k[2] * s, k[0] * k[2] * v + k[1] * s,
          k[1] * k[0] * v + k[2] * s, c + k[1] * k[1] * v,        k[1] * k[2] * v - k[0] * s,
          k[2] * k[0] * v - k[1] * s, k[2] * k[1] * v + k[0] * s, c + k[2] * k[2] * v};
}

std::array<double, 3> ObstacleConfig::Motion::displacement(double time) const {
  const double swing = period > 0.0 ? std::sin(2.0 * M_PI * time / period) : 0.0;
  std::array<double, 3> path, rate;
  double angle, angle_rate;
  keyframed(time, &path, &angle, &rate, &angle_rate);
  return {velocity[0] * time + amplitude[0] * swing + path[0],
          velocity[1] * time + amplitude[1] * swing + path[1],
          velocity[2] * time + amplitude[2] * swing + path[2]};
}

std::array<double, 3> ObstacleConfig::Motion::velocity_at(double time) const {
  const double swing = period > 0.0 ? 2.0 * M_PI / period * std::cos(2.0 * M_PI * time / period)
                                    : 0.0;
  std::array<double, 3> path, rate;
  double angle, angle_rate;
  keyframed(time, &path, &angle, &rate, &angle_rate);
  return {velocity[0] + amplitude[0] * swing + rate[0],
          velocity[1] + amplitude[1] * swing + rate[1],
          velocity[2] + amplitude[2] * swing + rate[2]};
}

void SolidMask::position(const PetscInt at[3], const double offset[3], double x[3]) const {
  const Grid& grid = *grid_;
  for (int a = 0; a < 3; ++a)
    x[a] = a < grid.dim() ? grid.face_position(a, image(grid, a, at[a])) +
                                offset[a] * grid.spacing(a)
                          : 0.0;
}

double SolidMask::cut_distance(int stagger, PetscInt i, PetscInt j, PetscInt k,
                               BoundaryKind* kind) const {
  double nearest = std::numeric_limits<double>::infinity();
  if (cut_obstacles_.empty()) return nearest;
  const PetscInt at[3] = {i, j, k};
  const double offset[3] = {stagger == 0 ? 0.0 : 0.5, stagger == 1 ? 0.0 : 0.5,
                            stagger == 2 ? 0.0 : 0.5};
  double x[3];
  position(at, offset, x);
  for (const ObstacleConfig& obstacle : cut_obstacles_) {
    const double d = region_distance(obstacle.region, x, grid_->dim());
    if (d < nearest) {
      nearest = d;
      if (kind) *kind = obstacle.boundary;
    }
  }
  return nearest;
}

int SolidMask::obstacle_of_cell(PetscInt i, PetscInt j, PetscInt k) const {
  const PetscInt at[3] = {i, j, k};
  const double centre[3] = {0.5, 0.5, 0.5};
  double x[3];
  position(at, centre, x);
  for (size_t n = 0; n < obstacles_.size(); ++n) {
    const ObstacleConfig& obstacle = obstacles_[n];
    const bool inside = obstacle.surface == ObstacleConfig::Surface::Cut
                            ? region_distance(obstacle.region, x, grid_->dim()) < 0.0
                            : holds(n, x);
    if (inside) return static_cast<int>(n);
  }
  return -1;
}

double SolidMask::surface_crossing(size_t n, const PetscInt fluid[3], const PetscInt held[3],
                                   double* normal) const {
  const ObstacleConfig& obstacle = obstacles_[n];
  if (obstacle.surface != ObstacleConfig::Surface::Cut) {
    *normal = 1.0;
    return 0.5;
  }
  const double centre[3] = {0.5, 0.5, 0.5};
  double x[3], y[3];
  position(fluid, centre, x);
  position(held, centre, y);
  const double here = region_distance(obstacle.region, x, grid_->dim());
  const double there = region_distance(obstacle.region, y, grid_->dim());
  int axis = 0;
  while (axis < 2 && fluid[axis] == held[axis]) ++axis;
  // Along a distance function's gradient the distance changes by h per h; along an axis by
  // h |n_a|.
  *normal = std::clamp((here - there) / grid_->spacing(axis), 0.0, 1.0);
  return std::max(here / (here - there), kLeastCrossing);
}

PetscErrorCode SolidMask::hold_scalar_values(Field& scalar) const {
  PetscFunctionBeginUser;
  const bool any_held =
      std::any_of(obstacles_.begin(), obstacles_.end(), [&](const ObstacleConfig& obstacle) {
        return obstacle.scalar_values.count(scalar.name()) > 0;
      });
  if (!any_held) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  WriteArray s;
  PetscCall(s.get_global(scalar));
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!scalar_held(i, j, k)) return;
    const int n = obstacle_of_cell(i, j, k);
    if (n < 0) return;
    const auto value = obstacles_[static_cast<size_t>(n)].scalar_values.find(scalar.name());
    if (value != obstacles_[static_cast<size_t>(n)].scalar_values.end()) s(i, j, k) = value->second;
  });
  PetscFunctionReturn(0);
}

// Every face of the ghosted extent, from the distances at its corners (and, in 3D, its centre):
// computed where it is needed rather than exchanged, as the geometry is known everywhere.
void SolidMask::compute_fractions(const std::vector<Region>& cut_regions) {
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  const size_t count = mask_.size();
  IndexBox extent;
  for (int a = 0; a < 3; ++a) {
    extent.lo[a] = start_[a];
    extent.hi[a] = start_[a] + width_[a];
  }
  auto distance = [&](const double x[3]) { return union_distance(cut_regions, x, dim); };
  for (int c = 0; c < dim; ++c) {
    fraction_[c].assign(count, 1.0f);
    // The face's two (2D: one) tangential axes.
    int t0 = -1, t1 = -1;
    for (int b = 0; b < dim; ++b) {
      if (b == c) continue;
      (t0 < 0 ? t0 : t1) = b;
    }
    for_each_index(extent, [&](PetscInt i, PetscInt j, PetscInt k) {
      const PetscInt at[3] = {i, j, k};
      const double corner[3] = {0.0, 0.0, 0.0};
      double lo[3];
      position(at, corner, lo);
      double x[3] = {lo[0], lo[1], lo[2]};
      double fraction = 1.0;
      if (dim == 2) {
        const double d0 = distance(x);
        x[t0] += grid.spacing(t0);
        fraction = segment_fluid_fraction(d0, distance(x));
      } else {
        const double h0 = grid.spacing(t0), h1 = grid.spacing(t1);
        double d[4];
        for (int n = 0; n < 4; ++n) {  // (0,0), (1,0), (1,1), (0,1): round the square
          x[t0] = lo[t0] + ((n == 1 || n == 2) ? h0 : 0.0);
          x[t1] = lo[t1] + (n >= 2 ? h1 : 0.0);
          d[n] = distance(x);
        }
        x[t0] = lo[t0] + 0.5 * h0;
        x[t1] = lo[t1] + 0.5 * h1;
        fraction = square_fluid_fraction(d[0], d[1], d[2], d[3], distance(x));
      }
      if (fraction < kSmallestFraction) fraction = 0.0;
      fraction_[c][index(i, j, k)] = static_cast<float>(fraction);
    });
  }
}

PetscErrorCode SolidMask::hold_solid_faces(Field& velocity) const {
  PetscFunctionBeginUser;
  if (!any_solid_) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  WriteArray u;
  PetscCall(u.get_global(velocity));
  for (int c = 0; c < grid.dim(); ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (!solid_face(c, i, j, k)) return;
      // A face on the domain's boundary is a wall's (or an open face's): 0 as beside a body at
      // rest, never a moving body's velocity into the wall.
      const PetscInt along[3] = {i, j, k};
      const bool boundary =
          !grid.periodic(c) && (along[c] == 0 || along[c] == grid.cells(c));
      if (!moving_ || boundary) {
        u(i, j, k, c) = 0.0;
        return;
      }
      // The solid cell on either side names the obstacle (the upper one if both are solid);
      // the face takes the velocity of the body's point at its centre.
      int n = solid(i, j, k) ? obstacle_of_cell(i, j, k) : -1;
      if (n < 0) n = obstacle_of_cell(i - (c == 0), j - (c == 1), k - (c == 2));
      if (n < 0) {
        u(i, j, k, c) = 0.0;
        return;
      }
      const PetscInt at[3] = {i, j, k};
      const double offset[3] = {c == 0 ? 0.0 : 0.5, c == 1 ? 0.0 : 0.5, c == 2 ? 0.0 : 0.5};
      double x[3];
      position(at, offset, x);
      u(i, j, k, c) = body_velocity(static_cast<size_t>(n), c, x);
    });
  PetscFunctionReturn(0);
}

PetscErrorCode SolidMask::fill_uncovered(Field& scalar) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  PetscCall(scalar.fill_ghosts());
  if (!uncovered_.empty()) {
    ReadArray in;
    WriteArray out;
    PetscCall(in.get_local(scalar));
    PetscCall(out.get_global(scalar));
    // The nearest such cells along the axes: a body that moved more than a cell in the step
    // uncovered a band, whose inner cells reach the fluid only farther out.
    const auto fluid_before = [&](PetscInt i, PetscInt j, PetscInt k) {
      return !solid(i, j, k) && !just_uncovered(i, j, k);
    };
    const auto value = [&](PetscInt i, PetscInt j, PetscInt k) { return in(i, j, k); };
    for (const auto& [i, j, k] : uncovered_) {
      double mean = 0.0;
      if (nearest_along_axes(grid, i, j, k, grid.halo(), fluid_before, value, &mean))
        out(i, j, k) = mean;
    }
  }
  PetscCall(hold_scalar_values(scalar));
  PetscFunctionReturn(0);
}

bool SolidMask::holds(size_t n, const double x[3]) const {
  const ObstacleConfig& obstacle = obstacles_[n];
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  if (!obstacle.moves()) return region_contains(obstacle.region, x, dim);
  const Placement& placement = placements_[n];
  // A moving obstacle crosses periodic faces: its images one period either side count too.
  for (const std::array<double, 3>& shift : image_shifts_) {
    const double y[3] = {x[0] + shift[0], x[1] + shift[1], x[2] + shift[2]};
    if (placement.turns) {
      // Into the body's own frame: turned back about its pivot.
      double r[3], z[3];
      for (int a = 0; a < 3; ++a) r[a] = y[a] - placement.pivot[a];
      for (int a = 0; a < 3; ++a)
        z[a] = placement.pivot[a] + placement.unturn[3 * a] * r[0] +
               placement.unturn[3 * a + 1] * r[1] + placement.unturn[3 * a + 2] * r[2];
      if (region_contains(obstacle.region, z, dim)) return true;
    } else if (region_contains(obstacle.region, y, dim)) {
      return true;
    }
  }
  return false;
}

std::array<double, 3> SolidMask::arm(size_t n, const double x[3]) const {
  const Placement& placement = placements_[n];
  std::array<double, 3> r{0.0, 0.0, 0.0};
  for (int a = 0; a < grid_->dim(); ++a) {
    r[a] = x[a] - placement.pivot[a];
    if (grid_->periodic(a)) r[a] -= grid_->length(a) * std::round(r[a] / grid_->length(a));
  }
  return r;
}

void SolidMask::set_pose(size_t n, const Pose& pose) {
  poses_.resize(placed_.size());
  poses_[n] = pose;
}

void SolidMask::set_body_velocity(size_t n, const std::array<double, 3>& velocity,
                                  const std::array<double, 3>& omega) {
  poses_.resize(placed_.size());
  poses_[n].velocity = velocity;
  poses_[n].omega = omega;
  placements_[n].velocity = velocity;
  placements_[n].omega = omega;
}

double SolidMask::body_velocity(size_t n, int c, const double x[3]) const {
  const Placement& placement = placements_[n];
  if (!placement.turns) return placement.velocity[static_cast<size_t>(c)];
  // omega x r, r from the pivot to x, the nearest image across a periodic axis.
  const std::array<double, 3> r = arm(n, x);
  const std::array<double, 3>& w = placement.omega;
  const double turning[3] = {w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2],
                             w[0] * r[1] - w[1] * r[0]};
  return placement.velocity[static_cast<size_t>(c)] + turning[c];
}

PetscErrorCode SolidMask::setup(const Grid& grid, const std::vector<ObstacleConfig>& obstacles) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  PetscInt dof = 1;
  PetscCall(dmda_array_box(grid.cell_dm(), true, &start_, &width_, &dof));
  mask_.assign(static_cast<size_t>(width_[0] * width_[1] * width_[2]), Fluid);
  placed_ = obstacles;
  // The shifts by a period along the periodic axes that holds() tries (just 0 without any).
  image_shifts_.assign(1, {0.0, 0.0, 0.0});
  for (int a = 0; a < grid.dim(); ++a) {
    if (!grid.periodic(a)) continue;
    const size_t before = image_shifts_.size();
    for (const int side : {-1, 1})
      for (size_t n = 0; n < before; ++n) {
        std::array<double, 3> shift = image_shifts_[n];
        shift[a] += side * grid.length(a);
        image_shifts_.push_back(shift);
      }
  }
  moving_ = std::any_of(obstacles.begin(), obstacles.end(),
                        [](const ObstacleConfig& o) { return o.moves(); });
  std::vector<Region> cut_regions;
  cut_obstacles_.clear();
  for (const ObstacleConfig& obstacle : obstacles) {
    if (obstacle.surface != ObstacleConfig::Surface::Cut) continue;
    cut_regions.push_back(obstacle.region);
    cut_obstacles_.push_back(obstacle);
  }
  for (std::vector<float>& f : fraction_) f.clear();
  if (!cut_regions.empty()) compute_fractions(cut_regions);
  PetscCall(move_to(0.0));
  ++version_;
  PetscFunctionReturn(0);
}

PetscErrorCode SolidMask::move_to(double time) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  // The obstacles where they are at `time` (only a staircase obstacle moves: the job refuses a
  // moving cut one), and how fast they go.
  obstacles_ = placed_;
  placements_.assign(obstacles_.size(), Placement{});
  poses_.resize(placed_.size());
  for (size_t n = 0; n < obstacles_.size(); ++n) {
    const ObstacleConfig::Motion& motion = obstacles_[n].motion;
    const bool floating = obstacles_[n].floating.enabled;
    if (!motion.moves() && !floating) continue;
    // A floating body is where its pose has it (its pivot the centre of mass), whatever the
    // time; any other moving one where its motion has it at `time`.
    const Pose& pose = poses_[n];
    std::array<double, 3> pivot = motion.pivot, offset = motion.displacement(time);
    if (floating) {
      pivot = pose.start;
      for (int a = 0; a < 3; ++a) offset[a] = pose.position[a] - pose.start[a];
    }
    // On a periodic axis the pivot is brought back into the box, so that the body lies within
    // one period of it (holds() looks one period either side, body_velocity() takes r to the
    // nearest image).
    for (int a = 0; a < grid.dim(); ++a)
      if (grid.periodic(a))
        offset[a] -= grid.length(a) *
                     std::floor((pivot[a] + offset[a] - grid.origin(a)) / grid.length(a));
    obstacles_[n].region = translated(placed_[n].region, offset);
    Placement& placement = placements_[n];
    for (int a = 0; a < 3; ++a) placement.pivot[a] = pivot[a] + offset[a];
    if (floating) {
      placement.velocity = pose.velocity;
      placement.omega = pose.omega;
      placement.turns = true;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) placement.unturn[3 * r + c] = pose.rotation[3 * c + r];
      continue;
    }
    placement.velocity = motion.velocity_at(time);
    placement.omega = motion.omega_at(time);
    placement.turns = motion.turns();
    placement.unturn = motion.unturn(time);
  }

  auto kind_of = [](const ObstacleConfig& obstacle) {
    return obstacle.boundary == BoundaryKind::FreeSlip ? FreeSlipSolid : NoSlipSolid;
  };
  // The kinds as a scalar field, for its halo exchange and its zero-gradient fill outside the
  // domain: made for each move, so that its two vectors (17 bytes a cell) are not held between
  // moves, and all a run without moving obstacles keeps is the byte per cell of mask_.
  Field kinds;
  PetscCall(kinds.setup_scalar(grid, "solid"));
  WriteArray view;
  PetscCall(view.get_global(kinds));
  PetscInt local_solid = 0;
  const int dim = grid.dim();
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    // The centre as obstacle_of_cell() computes it, to the last bit.
    const PetscInt at[3] = {i, j, k};
    const double centre[3] = {0.5, 0.5, 0.5};
    double x[3];
    position(at, centre, x);
    // A cut obstacle makes solid only the cells whose every face it closes; the one nearest
    // the centre gives the cell its kind.
    bool covered = cut();
    for (int c = 0; c < dim && covered; ++c) {
      const PetscInt up[3] = {i + (c == 0), j + (c == 1), k + (c == 2)};
      covered = fraction_[c][index(i, j, k)] == 0.0f &&
                fraction_[c][index(up[0], up[1], up[2])] == 0.0f;
    }
    const ObstacleConfig* nearest = nullptr;
    double nearest_distance = 0.0;
    for (size_t n = 0; n < obstacles_.size(); ++n) {
      const ObstacleConfig& obstacle = obstacles_[n];
      if (obstacle.surface == ObstacleConfig::Surface::Staircase) {
        if (!holds(n, x)) continue;
        nearest = &obstacle;
        break;
      }
      if (!covered) continue;
      const double d = region_distance(obstacle.region, x, dim);
      if (!nearest || d < nearest_distance) {
        nearest = &obstacle;
        nearest_distance = d;
      }
    }
    view(i, j, k) = nearest ? kind_of(*nearest) : Fluid;
    if (nearest) ++local_solid;
  });
  PetscCall(view.restore());
  PetscCall(kinds.fill_ghosts());
  PetscCallMPI(MPI_Allreduce(&local_solid, &solid_cells_, 1, MPIU_INT, MPI_SUM, grid.comm()));
  any_solid_ = solid_cells_ > 0 || !cut_obstacles_.empty();

  // The owned cells the obstacles left (the fluid's stages must give them values), and whether
  // anything changed on any rank.
  uncovered_.clear();
  fresh_.assign(mask_.size(), 0);
  int changed = 0;
  ReadArray local;
  PetscCall(local.get(kinds.local()));
  const IndexBox& owned = grid.owned_cells();
  for (size_t n = 0; n < mask_.size(); ++n) {
    const auto kind = static_cast<std::uint8_t>(local[n]);
    if (kind == mask_[n]) continue;
    changed = 1;
    const PetscInt i = start_[0] + static_cast<PetscInt>(n % static_cast<size_t>(width_[0]));
    const PetscInt j = start_[1] + static_cast<PetscInt>((n / static_cast<size_t>(width_[0])) %
                                                         static_cast<size_t>(width_[1]));
    const PetscInt k = start_[2] + static_cast<PetscInt>(n / static_cast<size_t>(width_[0] *
                                                                                  width_[1]));
    fresh_[n] = kind == Fluid;
    if (kind == Fluid && owned.contains(i, j, k)) uncovered_.push_back({i, j, k});
    mask_[n] = kind;
  }
  PetscCall(local.restore());
  int any_changed = 0;
  PetscCallMPI(MPI_Allreduce(&changed, &any_changed, 1, MPI_INT, MPI_MAX, grid.comm()));
  if (any_changed) ++version_;
  PetscFunctionReturn(0);
}

}  // namespace sf
