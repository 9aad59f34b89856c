// Distributed fields on the MAC grid and their boundary conditions.
//
// A Field is a global vector (owned values, what the stages update) and a local vector (owned
// values plus `halo` ghost layers, what stencils and interpolation read). Its boundary conditions
// are data, a GhostFill per component, axis and side, applied in one place: fill_ghosts().
//
// Ghost values outside the domain extend the interior so that interpolation anywhere in the halo
// honours the boundary condition:
//   Even: mirror image,               g = u(mirror)            (zero normal gradient)
//   Odd:  reflection about a value v, g = 2 v(x_b) - u(mirror) (Dirichlet u = v at the boundary;
//         exact for linear profiles, so a linear interpolant through the boundary gives v there;
//         v is either boundary data or, `stored`, what a stage left on the boundary face)
//   Gradient: continuation with a normal gradient G, g = u(mirror) + d G, d the distance from
//         the mirror point to the ghost (Neumann du/dn = G, n out of the domain; cell-centred
//         scalars only, where d = (2 l + 1) h for the l-th ghost layer; exact for linear profiles)
// The mirror point of a ghost is its reflection in the boundary plane: for a component stored at
// cell centres along that axis the plane lies half a cell outside the first cell, for a component
// stored on faces of that axis it is the boundary face itself, whose value an Odd rule also sets.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "boundary.hpp"
#include "grid.hpp"

namespace sf {

enum class GhostRule { Periodic, Even, Odd, Gradient };

/// How one component is continued across one side of the domain.
struct GhostFill {
  GhostRule rule = GhostRule::Even;
  double value = 0.0;  // Odd: the boundary value; Gradient: the outward normal gradient
  InflowProfile profile = InflowProfile::Uniform;  // Odd: how the value varies across the face
  // Odd on a face-centred component: reflect about the value the global vector holds on the
  // boundary face, which a stage sets (Field::let_liquid_leave_walls), instead of `value`.
  bool stored = false;
};

/// Boundary description of a field: [component][axis][side].
using FieldBoundary = std::array<std::array<std::array<GhostFill, 2>, 3>, 3>;

class Field {
public:
  /// A cell-centred scalar named `name`; walls and outflow are zero-gradient, inflow faces carry
  /// the job's inflow value for this scalar (0 if not given).
  PetscErrorCode setup_scalar(const Grid& grid, const std::string& name);
  /// A cell-centred level set (a distance to a surface): zero-gradient on every side that is not
  /// periodic, inflow faces included (what enters carries no surface of its own).
  PetscErrorCode setup_level_set(const Grid& grid, const std::string& name);
  /// The MAC face velocity, dof = dim, on the face DM. No-slip: u = 0 (normal and tangential);
  /// free-slip: normal u = 0, tangential zero-gradient; inflow: u = inflow velocity with its
  /// profile; outflow: zero-gradient.
  PetscErrorCode setup_velocity(const Grid& grid);

  /// The velocity's normal component on the walls of the domain (no-slip, free-slip) becomes
  /// what the global vector holds there, set by the free-surface projection: the speed a liquid
  /// leaves the wall at where it separates, 0 elsewhere (wall_separation.hpp). fill_ghosts()
  /// then reflects about that value instead of resetting it to 0.
  void let_liquid_leave_walls();

  /// A velocity field's inflow faces that vary in time (FaceBoundary::varies) take their value
  /// at `time`; the next fill_ghosts() puts it on the faces. Local.
  void set_time(double time);

  const std::string& name() const { return name_; }
  const Grid& grid() const { return *grid_; }
  DM dm() const { return dm_; }
  int components() const { return components_; }
  /// The axis on which component c is face-centred, or -1 for cell-centred components.
  int stagger(int c) const { return stagger_[c]; }
  const FieldBoundary& boundary() const { return boundary_; }

  Vec global() const { return global_; }
  Vec local() const { return local_; }

  /// Makes the local vector consistent with the global one: sets Dirichlet boundary faces in the
  /// global vector, exchanges the halo (Grid::global_to_local, periodic wrap included) and fills
  /// the ghost layers outside the domain from the boundary description. Collective.
  PetscErrorCode fill_ghosts();

  /// The boundary value of a GhostFill at a sample point, including its profile.
  double boundary_value(const GhostFill& fill, int axis, PetscInt i, PetscInt j, PetscInt k,
                        int component) const;

private:
  PetscErrorCode allocate(const Grid& grid, DM dm, const std::string& name, int components);
  PetscErrorCode set_boundary_faces();
  PetscErrorCode fill_physical_ghosts();

  const Grid* grid_ = nullptr;
  DM dm_ = nullptr;  // borrowed from the grid
  std::string name_;
  int components_ = 1;
  std::array<int, 3> stagger_{-1, -1, -1};
  FieldBoundary boundary_{};
  OwnedVec global_;
  OwnedVec local_;
};

/// The MAC velocity averaged to the centres of the cells of `box`: the mean of each cell's lower
/// and upper face per component, written to `out` as 3 values per cell (0 for components beyond
/// the grid's dimension), x fastest. Reads the local vector, whose ghosts must be fresh; the
/// upper face of a cell at box.hi - 1 must lie within the halo. Frames and Catalyst both use
/// this, so the values they show are the same bit for bit.
PetscErrorCode centre_velocity(const Field& velocity, const IndexBox& box, double* out);

}  // namespace sf
