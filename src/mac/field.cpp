// Fields and fill_ghosts(): the halo exchange is the grid's (halo_exchange.hpp); what no exchange
// can know, the physical boundary conditions outside the domain, is applied here from the field's
// FieldBoundary. See field.hpp for the ghost rules.
#include "field.hpp"
#include "vec_array.hpp"

#include <algorithm>

namespace sf {

namespace {

/// Rule for a cell-centred scalar on one side of the domain.
GhostFill scalar_fill(const FaceBoundary& face, const std::string& name) {
  switch (face.kind) {
    case BoundaryKind::Periodic:
      return {GhostRule::Periodic, 0.0, InflowProfile::Uniform};
    case BoundaryKind::Inflow: {
      const auto it = face.scalar_values.find(name);
      return {GhostRule::Odd, it == face.scalar_values.end() ? 0.0 : it->second,
              InflowProfile::Uniform};
    }
    case BoundaryKind::NoSlip:
    case BoundaryKind::FreeSlip: {
      // A wall holds the scalars it names at their value, lets the ones it gives a gradient
      // (a flux) through at that gradient, and insulates against the others.
      const auto it = face.scalar_values.find(name);
      if (it != face.scalar_values.end())
        return {GhostRule::Odd, it->second, InflowProfile::Uniform};
      const auto gradient = face.scalar_gradients.find(name);
      if (gradient != face.scalar_gradients.end())
        return {GhostRule::Gradient, gradient->second, InflowProfile::Uniform};
      break;
    }
    case BoundaryKind::Outflow:
      break;
  }
  return {GhostRule::Even, 0.0, InflowProfile::Uniform};
}

/// Rule for velocity component `component` on a face normal to `axis`.
GhostFill velocity_fill(const FaceBoundary& face, int component, int axis) {
  const bool normal = component == axis;
  switch (face.kind) {
    case BoundaryKind::Periodic:
      return {GhostRule::Periodic, 0.0, InflowProfile::Uniform};
    case BoundaryKind::NoSlip:  // a moving wall carries its tangential velocity
      return {GhostRule::Odd, normal ? 0.0 : face.velocity[component], InflowProfile::Uniform};
    case BoundaryKind::FreeSlip:
      return normal ? GhostFill{GhostRule::Odd, 0.0, InflowProfile::Uniform}
                    : GhostFill{GhostRule::Even, 0.0, InflowProfile::Uniform};
    case BoundaryKind::Inflow:
      return {GhostRule::Odd, face.velocity[component], face.profile};
    case BoundaryKind::Outflow:
      break;
  }
  return {GhostRule::Even, 0.0, InflowProfile::Uniform};
}

}  // namespace

PetscErrorCode Field::allocate(const Grid& grid, DM dm, const std::string& name,
                               int components) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  dm_ = dm;
  name_ = name;
  components_ = components;
  PetscCall(DMCreateGlobalVector(dm, global_.replace()));
  PetscCall(DMCreateLocalVector(dm, local_.replace()));
  PetscCall(PetscObjectSetName(reinterpret_cast<PetscObject>(global_.get()), name.c_str()));
  PetscCall(VecSet(global_, 0.0));
  PetscCall(VecSet(local_, 0.0));
  PetscFunctionReturn(0);
}

PetscErrorCode Field::setup_scalar(const Grid& grid, const std::string& name) {
  PetscFunctionBeginUser;
  PetscCall(allocate(grid, grid.cell_dm(), name, 1));
  stagger_ = {-1, -1, -1};
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s) boundary_[0][a][s] = scalar_fill(grid.face_boundary(a, s), name);
  PetscFunctionReturn(0);
}

PetscErrorCode Field::setup_level_set(const Grid& grid, const std::string& name) {
  PetscFunctionBeginUser;
  PetscCall(setup_scalar(grid, name));
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s)
      if (boundary_[0][a][s].rule != GhostRule::Periodic) boundary_[0][a][s] = GhostFill{};
  PetscFunctionReturn(0);
}

PetscErrorCode Field::setup_velocity(const Grid& grid) {
  PetscFunctionBeginUser;
  PetscCall(allocate(grid, grid.face_dm(), "velocity", grid.dim()));
  stagger_ = {0, 1, 2};
  for (int c = 0; c < grid.dim(); ++c)
    for (int a = 0; a < 3; ++a)
      for (int s = 0; s < 2; ++s) boundary_[c][a][s] = velocity_fill(grid.face_boundary(a, s), c, a);
  PetscFunctionReturn(0);
}

void Field::set_time(double time) {
  if (stagger_[0] != 0) return;  // a scalar's inflow value does not vary
  for (int a = 0; a < grid_->dim(); ++a)
    for (int side = 0; side < 2; ++side) {
      const FaceBoundary& face = grid_->face_boundary(a, side);
      if (face.kind != BoundaryKind::Inflow || !face.varies()) continue;
      const std::array<double, 3> v = face.inflow_velocity(time);
      for (int c = 0; c < components_; ++c) boundary_[c][a][side].value = v[c];
    }
}

void Field::let_liquid_leave_walls() {
  for (int a = 0; a < grid_->dim(); ++a)
    for (int side = 0; side < 2; ++side) {
      const BoundaryKind kind = grid_->boundary(a, side);
      if (kind == BoundaryKind::NoSlip || kind == BoundaryKind::FreeSlip)
        boundary_[a][a][side].stored = true;
    }
}

double Field::boundary_value(const GhostFill& fill, int axis, PetscInt i, PetscInt j, PetscInt k,
                             int component) const {
  if (fill.profile == InflowProfile::Uniform) return fill.value;
  // Parabolic: 4 s (1 - s) across every non-periodic tangential axis, 0 outside the face.
  const PetscInt index[3] = {i, j, k};
  double weight = 1.0;
  for (int t = 0; t < grid_->dim(); ++t) {
    if (t == axis || grid_->periodic(t)) continue;
    const double x = grid_->sample_position(t, index[t], stagger_[component]);
    const double s = std::clamp((x - grid_->origin(t)) / grid_->length(t), 0.0, 1.0);
    weight *= 4.0 * s * (1.0 - s);
  }
  return fill.value * weight;
}

PetscErrorCode Field::fill_ghosts() {
  PetscFunctionBeginUser;
  PetscCall(set_boundary_faces());
  PetscCall(grid_->global_to_local(dm_, global_, local_));
  PetscCall(fill_physical_ghosts());
  PetscFunctionReturn(0);
}

// Dirichlet faces (Odd rules on the component normal to the face) are real entries of the global
// vector; they are set here so that every consumer, output included, sees the boundary value.
PetscErrorCode Field::set_boundary_faces() {
  PetscFunctionBeginUser;
  WriteArray u;
  PetscCall(u.get_global(dm_, global_));
  for (int c = 0; c < components_; ++c) {
    const int a = stagger_[c];
    if (a < 0 || grid_->periodic(a)) continue;
    const IndexBox owned = grid_->owned_faces(c);
    for (int side = 0; side < 2; ++side) {
      const GhostFill& fill = boundary_[c][a][side];
      if (fill.rule != GhostRule::Odd || fill.stored) continue;
      const PetscInt face = side == 0 ? 0 : grid_->cells(a);
      if (face < owned.lo[a] || face >= owned.hi[a]) continue;
      IndexBox plane = owned;
      plane.lo[a] = face;
      plane.hi[a] = face + 1;
      for_each_index(plane, [&](PetscInt i, PetscInt j, PetscInt k) {
        u(i, j, k, c) = boundary_value(fill, a, i, j, k, c);
      });
    }
  }
  PetscFunctionReturn(0);
}

// Axes are filled one after another over the full ghosted extent of the other axes, so edge and
// corner ghosts (outside the domain on two or three axes) end up reflected in every axis.
PetscErrorCode Field::fill_physical_ghosts() {
  PetscFunctionBeginUser;
  WriteArray array;
  PetscCall(array.get_local(dm_, local_));
  const ArrayView& u = array.view();
  const std::array<PetscInt, 3> lo = u.start;
  const std::array<PetscInt, 3> hi = {u.start[0] + u.width[0], u.start[1] + u.width[1],
                                      u.start[2] + u.width[2]};
  for (int a = 0; a < grid_->dim(); ++a) {
    if (grid_->periodic(a)) continue;
    const PetscInt n = grid_->cells(a);
    for (int c = 0; c < components_; ++c) {
      const bool staggered = stagger_[c] == a;
      // Largest valid sample index along a: the upper boundary face, or the last cell.
      const PetscInt last = staggered ? n : n - 1;
      for (int side = 0; side < 2; ++side) {
        const GhostFill& fill = boundary_[c][a][side];
        IndexBox ghosts{lo, hi};
        if (side == 0) {
          ghosts.hi[a] = std::min<PetscInt>(0, hi[a]);
        } else {
          ghosts.lo[a] = std::max<PetscInt>(last + 1, lo[a]);
        }
        if (ghosts.size(a) <= 0) continue;
        // Each ghost layer g along a mirrors one layer m of samples, a fixed distance away in
        // the array: mirror[g - ghosts.lo[a]] = (m - g) * stride along a.
        std::vector<PetscInt> mirror(static_cast<size_t>(ghosts.size(a)));
        const PetscInt stride_a = u.offset(a == 0, a == 1, a == 2) - u.offset(0, 0, 0);
        for (PetscInt g = ghosts.lo[a]; g < ghosts.hi[a]; ++g) {
          // Reflection in the boundary plane: about face 0 / face n for a staggered component,
          // about the plane half a cell outside cell 0 / cell n-1 otherwise.
          PetscInt m = side == 0 ? (staggered ? -g : -g - 1)
                                 : (staggered ? 2 * n - g : 2 * n - 1 - g);
          // Only the face DM's unused slot beyond a tangential component's last ghost can reach
          // past the opposite boundary when the halo equals the cell count.
          m = std::clamp<PetscInt>(m, 0, last);
          mirror[static_cast<size_t>(g - ghosts.lo[a])] = (m - g) * stride_a;
        }
        const bool odd = fill.rule == GhostRule::Odd;
        const bool uniform = fill.profile == InflowProfile::Uniform;
        // Gradient: the distance from mirror to ghost is |m - g| spacings.
        const double gradient_step =
            fill.rule == GhostRule::Gradient ? fill.value * grid_->spacing(a) : 0.0;
        for (PetscInt k = ghosts.lo[2]; k < ghosts.hi[2]; ++k)
          for (PetscInt j = ghosts.lo[1]; j < ghosts.hi[1]; ++j) {
            PetscScalar* row = &u(ghosts.lo[0], j, k, c);
            const PetscInt layer_jk = a == 1 ? j : k;  // the index along a, unless a = 0
            for (PetscInt i = ghosts.lo[0]; i < ghosts.hi[0]; ++i) {
              const PetscInt layer = (a == 0 ? i : layer_jk) - ghosts.lo[a];
              PetscScalar* ghost = row + (i - ghosts.lo[0]) * u.dof;
              const PetscInt offset = mirror[static_cast<size_t>(layer)];
              const PetscScalar mirrored = ghost[offset];
              if (gradient_step != 0.0) {
                const double spacings = static_cast<double>(std::abs(offset) / stride_a);
                *ghost = mirrored + spacings * gradient_step;
              } else if (!odd) {
                *ghost = mirrored;
              } else if (fill.stored) {
                // The boundary face lies |m - g| / 2 layers from the ghost, towards the mirror.
                *ghost = 2.0 * ghost[offset / 2] - mirrored;
              } else {
                *ghost = 2.0 * (uniform ? fill.value : boundary_value(fill, a, i, j, k, c)) -
                         mirrored;
              }
            }
          }
      }
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode centre_velocity(const Field& velocity, const IndexBox& box, double* out) {
  PetscFunctionBeginUser;
  const Grid& grid = velocity.grid();
  const int dim = grid.dim();
  ReadArray u;
  PetscCall(u.get_local(velocity));
  for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
    for (int c = 0; c < 3; ++c) {
      out[c] = c < dim ? 0.5 * (u(i, j, k, c) + u(i + (c == 0), j + (c == 1), k + (c == 2), c))
                       : 0.0;
    }
    out += 3;
  });
  PetscFunctionReturn(0);
}

}  // namespace sf
