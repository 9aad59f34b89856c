// Static obstacles as solid cells (Foster & Metaxas; Cline et al. §4): a cell is solid when its
// centre lies inside an obstacle primitive. Faces touching a solid cell are held at the solid's
// velocity (zero for static obstacles) by every stage, and the pressure equation excludes solid
// cells (Neumann on their faces).
//
// A `cut` obstacle is not a staircase: every face keeps the fraction of its area that lies
// outside the obstacle (cut_faces.hpp), the pressure equation weighs each face by it (Batty,
// Bertails & Bridson 2007), and only the cells it covers completely are solid. The cells it
// crosses are fluid cells to every stage; their faces with a fraction above 0 are free.
//
// The mask is kept as a plain byte array over the cell DM's ghosted extent (halo exchanged when
// it is built): stages query it per cell without any PETSc call.
//
// Moving obstacles (a prescribed motion, ObstacleConfig::Motion; staircase only): move_to(t)
// rebuilds the mask with every obstacle where it is at t, moved and turned (a cell centre is
// turned back about the pivot into the body's frame and tested against the job's region; on a
// periodic axis one carried out of the domain comes back in at the other side), raises
// version() if any cell changed (the solvers reassemble then) and lists the owned cells the
// obstacles uncovered; hold_solid_faces() then sets every solid face to the velocity of the
// body's point at the face's centre, so that the projection (which leaves
// solid faces alone, Neumann) makes the fluid's normal velocity at the solid the solid's
// (Foster & Fedkiw 2001; Cline et al. §6, eq. 16). Cost, measured at 96^3 on 2 ranks of the
// 2-core machine (a sphere of radius 0.15 moving half a cell a step, so the mask changes every
// step; 20 steps): the "obstacles" stage 0.05 s a step (every owned cell tested against every
// obstacle, one exchange, the scalars' fill), and the projection 0.30 s against 0.21 s for the
// same sphere at rest in the same relative flow, the multigrid hierarchy being rebuilt after each
// change; a step 0.47 s against 0.32 s.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "boundary.hpp"
#include "field.hpp"
#include "region.hpp"

namespace sf {

/// A static obstacle: the cells whose centre lies inside `region` are solid. Faces between a
/// solid and any other cell have zero normal velocity; `boundary` (NoSlip or FreeSlip) sets what
/// the tangential velocity does at its surface. Scalars, as on a wall (boundary.hpp):
/// `scalar_values` holds the named scalars at a value on the obstacle's surface (a heated or
/// cooled body), `scalar_gradients` gives others a fixed gradient ds/dn there (n into the
/// obstacle: the job's flux into the fluid over the scalar's diffusivity); scalars named in
/// neither are insulated.
struct ObstacleConfig {
  enum class Surface { Staircase, Cut };
  /// Prescribed motion (Foster & Fedkiw 2001; Cline et al. §6): the region is carried by the
  /// displacement d(t) = velocity t + amplitude sin(2 pi t / period) and turned by the angle
  /// |omega| t about the axis omega / |omega| through pivot + d(t), omega = angular_velocity
  /// (in 2D about z). A point x of the body moves at d'(t) + omega x (x - pivot - d(t)), with
  /// d'(t) = velocity + amplitude (2 pi / period) cos(2 pi t / period): a tow, a paddle, a
  /// stirrer, or any sum of them. At rest unless one of velocity, amplitude, angular_velocity is
  /// non-zero.
  ///
  /// Keyframes add a path of their own: the displacement `position` and the angle `angle`
  /// (radians about `axis`; in 2D about z) given at increasing times, linear in between and held
  /// before the first and after the last. A keyframed angle and an angular_velocity do not mix
  /// (the parser refuses it): the body turns about one axis.
  struct Keyframe {
    double time = 0.0;
    std::array<double, 3> position{0.0, 0.0, 0.0};
    double angle = 0.0;
  };
  struct Motion {
    std::array<double, 3> velocity{0.0, 0.0, 0.0};
    std::array<double, 3> amplitude{0.0, 0.0, 0.0};
    double period = 0.0;  // > 0 whenever amplitude is non-zero
    std::array<double, 3> angular_velocity{0.0, 0.0, 0.0};  // radians per unit time
    std::array<double, 3> pivot{0.0, 0.0, 0.0};  // at t = 0; the region's centre by default
    std::vector<Keyframe> keyframes;              // none, or at least two, by increasing time
    std::array<double, 3> axis{0.0, 0.0, 1.0};    // the keyframes' angles turn about it (unit)
    bool moves() const;
    bool turns() const;
    /// d(t), from the job's region.
    std::array<double, 3> displacement(double time) const;
    /// d'(t), the velocity of the point that starts at the pivot.
    std::array<double, 3> velocity_at(double time) const;
    /// The body's angular velocity at `time`.
    std::array<double, 3> omega_at(double time) const;
    /// The rotation (row-major 3 x 3) from the body turned as it is at `time` back to the job's
    /// orientation.
    std::array<double, 9> unturn(double time) const;

  private:
    /// The keyframed displacement, angle and their rates at `time` (zero without keyframes).
    void keyframed(double time, std::array<double, 3>* position, double* angle,
                   std::array<double, 3>* rate, double* angle_rate) const;
  };
  /// Where a mesh obstacle (Region::Shape::Mesh) comes from; load_job reads it into
  /// region.mesh (job/read_mesh.cpp).
  struct MeshFile {
    std::string given;     // as the job gives it
    std::string path;      // the file: `given` made relative to the job file's directory
    double scale = 1.0;    // multiplies the file's coordinates
    bool centred = false;  // a center was given: the scaled mesh's bounding box is centred there
    std::array<double, 3> center{0.0, 0.0, 0.0};
    int line = 0;          // the job's line of `file`, for messages
    std::string key;       // e.g. "obstacles[0].file"
  };
  /// A floating body (Foster & Metaxas §5, two-way coupled as Batty, Bertails & Bridson 2007
  /// couple rigid bodies): not moved by the job but by gravity and the liquid's pressure, as a
  /// rigid body of `density` times the liquid's (floating_bodies.hpp). Its mass and inertia are
  /// those of the cells it covers at the start.
  struct Floating {
    bool enabled = false;
    double density = 1.0;  // relative to the liquid's
    bool turns = true;     // false: it only translates (a raft held level)
    std::array<double, 3> velocity{0.0, 0.0, 0.0};          // at the start
    std::array<double, 3> angular_velocity{0.0, 0.0, 0.0};  // at the start, about z in 2D
  };
  Region region;
  MeshFile mesh_file;
  Motion motion;
  Floating floating;
  /// True if the obstacle moves at all: a prescribed motion or a floating body.
  bool moves() const { return motion.moves() || floating.enabled; }
  BoundaryKind boundary = BoundaryKind::NoSlip;
  Surface surface = Surface::Staircase;
  std::map<std::string, double> scalar_values;
  std::map<std::string, double> scalar_gradients;
};

class SolidMask {
public:
  enum : std::uint8_t { Fluid = 0, NoSlipSolid = 1, FreeSlipSolid = 2 };

  // A face whose open fraction comes out below this is closed: it would add a near-zero weight
  // to the pressure equation (an almost singular row) for a sliver of no consequence.
  static constexpr double kSmallestFraction = 1e-3;

  /// Marks the solid cells of every obstacle and exchanges the halo; computes the open fraction
  /// of every face of the ghosted extent where an obstacle is cut. Collective.
  PetscErrorCode setup(const Grid& grid, const std::vector<ObstacleConfig>& obstacles);

  /// True if any rank has a solid cell or a face that a cut obstacle closes.
  bool any() const { return any_solid_; }
  /// Number of solid cells in the whole domain.
  PetscInt solid_cells() const { return solid_cells_; }
  /// Changes whenever the mask changes (static obstacles: only at set-up); solvers compare it to
  /// decide whether to reassemble their operators.
  int version() const { return version_; }

  /// Kind of cell (i, j, k), anywhere in the cell DM's ghosted extent; ghosts outside the domain
  /// copy their mirror cell (so a solid touching a wall stays closed).
  std::uint8_t cell(PetscInt i, PetscInt j, PetscInt k) const { return mask_[index(i, j, k)]; }
  bool solid(PetscInt i, PetscInt j, PetscInt k) const { return cell(i, j, k) != Fluid; }
  /// True if cell (i, j, k) lies in the extent the mask covers (the owned cells and the halo).
  bool in_extent(PetscInt i, PetscInt j, PetscInt k) const {
    return i >= start_[0] && i < start_[0] + width_[0] && j >= start_[1] &&
           j < start_[1] + width_[1] && k >= start_[2] && k < start_[2] + width_[2];
  }

  /// Sets the owned solid faces of a face velocity to their obstacle's velocity (0 for a static
  /// one): an initial velocity is given for the whole box, and no stage writes these faces
  /// afterwards.
  PetscErrorCode hold_solid_faces(Field& velocity) const;

  /// True if some obstacle has a motion or floats.
  bool moving() const { return moving_; }

  /// Where a floating body is (floating_bodies.hpp integrates it): its centre of mass now and
  /// at the start, its rotation from the start (row-major 3 x 3, body to world), its velocity
  /// and angular velocity.
  struct Pose {
    std::array<double, 3> position{0.0, 0.0, 0.0};
    std::array<double, 3> start{0.0, 0.0, 0.0};
    std::array<double, 9> rotation{1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
    std::array<double, 3> velocity{0.0, 0.0, 0.0};
    std::array<double, 3> omega{0.0, 0.0, 0.0};
  };
  /// Places floating obstacle n for the next move_to(), which puts it there whatever the time.
  void set_pose(size_t n, const Pose& pose);
  /// Gives floating obstacle n a new velocity without moving it: its faces take it at the next
  /// hold_solid_faces(). Local.
  void set_body_velocity(size_t n, const std::array<double, 3>& velocity,
                         const std::array<double, 3>& omega);
  /// The vector from moving obstacle n's pivot (a floating body's centre of mass) to x, to the
  /// nearest image across a periodic axis.
  std::array<double, 3> arm(size_t n, const double x[3]) const;
  /// The centre of the face of component c at index (i, j, k) (wrapped on periodic axes).
  void face_center(int c, PetscInt i, PetscInt j, PetscInt k, double x[3]) const {
    const PetscInt at[3] = {i, j, k};
    const double offset[3] = {c == 0 ? 0.0 : 0.5, c == 1 ? 0.0 : 0.5, c == 2 ? 0.0 : 0.5};
    position(at, offset, x);
  }

  /// Rebuilds the mask with the obstacles where their motion has them at `time` (see the top);
  /// setup() places them at time 0. Collective.
  PetscErrorCode move_to(double time);

  /// Gives the owned cells the last move_to() uncovered the scalar of the fluid beside them: the
  /// mean of the nearest cells along the axes (within the halo) that are fluid and were fluid
  /// before, which is the fluid flowing in behind the body; a cell with none such keeps what
  /// the solid held. Then the obstacles' held values (hold_scalar_values()) go into the cells
  /// they cover. Exchanges the scalar's halo first. Collective.
  PetscErrorCode fill_uncovered(Field& scalar) const;

  /// The owned cells that the last move_to() turned from solid into fluid.
  const std::vector<std::array<PetscInt, 3>>& uncovered() const { return uncovered_; }
  /// True if the last move_to() turned cell (i, j, k) (anywhere in the ghosted extent) from
  /// solid into fluid.
  bool just_uncovered(PetscInt i, PetscInt j, PetscInt k) const {
    return !fresh_.empty() && fresh_[index(i, j, k)] != 0;
  }

  /// True if some obstacle is cut (faces have fractions between 0 and 1).
  bool cut() const { return !fraction_[0].empty(); }

  /// The part of the face of component c at index (i, j, k) (the lower face of cell (i, j, k) in
  /// direction c) that is open to the fluid: 0 where it touches a solid cell or a cut obstacle
  /// covers it, 1 away from obstacles, the fraction outside a cut obstacle in between.
  double face_fraction(int c, PetscInt i, PetscInt j, PetscInt k) const {
    if (solid(i, j, k) || solid(i - (c == 0), j - (c == 1), k - (c == 2))) return 0.0;
    return cut() ? static_cast<double>(fraction_[c][index(i, j, k)]) : 1.0;
  }

  /// Signed distance from sample (i, j, k) of a location (stagger -1: the cell centre; c: the
  /// lower face on axis c) to the surface of the nearest cut obstacle, negative inside it, and
  /// that obstacle's boundary kind in *kind; +infinity without cut obstacles. Ghost indices
  /// across a periodic axis stand for their image inside the domain.
  double cut_distance(int stagger, PetscInt i, PetscInt j, PetscInt k,
                      BoundaryKind* kind = nullptr) const;

  /// The obstacles, in the job's order.
  const std::vector<ObstacleConfig>& obstacles() const { return obstacles_; }

  /// The first obstacle (in the job's order) whose region holds the centre of cell (i, j, k), or
  /// -1: the obstacle a solid cell belongs to, or the cut obstacle a cell's centre lies in.
  int obstacle_of_cell(PetscInt i, PetscInt j, PetscInt k) const;

  /// True if a scalar's cell sample (i, j, k) is not the fluid's: the cell is solid, or its
  /// centre lies inside a cut obstacle (the cell is open, but the obstacle's surface lies
  /// between its centre and the fluid). Scalar conditions on obstacles act across such cells.
  bool scalar_held(PetscInt i, PetscInt j, PetscInt k) const {
    return solid(i, j, k) || (cut() && cut_distance(-1, i, j, k) < 0.0);
  }

  /// True if cell (i, j, k) holds liquid: it is not solid and the liquid's level set `phi` (a
  /// view of its local vector, negative in the liquid) is negative there.
  bool liquid(const ConstArrayView& phi, PetscInt i, PetscInt j, PetscInt k) const {
    return !solid(i, j, k) && phi(i, j, k) < 0.0;
  }

  /// True if side `side` (0 lower, 1 upper) of axis `axis` is a wall of the domain (no-slip or
  /// free-slip): a face a liquid may leave.
  bool wall(int axis, int side) const {
    if (grid_->periodic(axis)) return false;
    const BoundaryKind kind = grid_->boundary(axis, side);
    return kind == BoundaryKind::NoSlip || kind == BoundaryKind::FreeSlip;
  }

  /// Bit 2 a + side set for each wall of the domain (wall()) that cell (i, j, k) touches.
  unsigned wall_sides(PetscInt i, PetscInt j, PetscInt k) const {
    const PetscInt at[3] = {i, j, k};
    unsigned sides = 0;
    for (int a = 0; a < grid_->dim(); ++a) {
      if (at[a] == 0 && wall(a, 0)) sides |= 1u << (2 * a);
      if (at[a] == grid_->cells(a) - 1 && wall(a, 1)) sides |= 1u << (2 * a + 1);
    }
    return sides;
  }

  /// True if liquid at a wall with this pressure leaves the wall. A wall can push on a liquid
  /// but not pull: where holding the liquid against it would take a pressure below the air's
  /// (p = 0), the liquid separates and air enters between (the unilateral contact of Chentanez
  /// & Mueller 2012, "A multigrid fluid pressure solver handling separating solid boundary
  /// conditions"). The free-surface projection opens such walls to air; the level set's
  /// advection sees air behind them.
  static bool separates(double pressure) { return pressure < 0.0; }

  /// Where the surface of obstacle n crosses the segment from the centre of cell `fluid` to the
  /// centre of its neighbour `held` (scalar_held), as a fraction theta of the spacing from
  /// `fluid`: 1/2 for a staircase obstacle (its surface is the face between them), from the
  /// signed distances at both centres for a cut one (at least kLeastCrossing). *normal gets
  /// |n_a|, the size of the surface normal's component along their axis (1 for a staircase):
  /// a flux through the surface enters across this segment with that weight, so that the
  /// segments of a cut surface carry its true area, not the staircase's.
  double surface_crossing(size_t n, const PetscInt fluid[3], const PetscInt held[3],
                          double* normal) const;
  // The least theta surface_crossing returns: a gradient over a shorter distance would make an
  // unbounded coefficient for a sliver of no consequence.
  static constexpr double kLeastCrossing = 1e-3;

  /// Sets the owned cells of a scalar that obstacles hold at a value (`scalar_values` naming
  /// the field) to that value: at set-up, so that the first step's advection reads it.
  PetscErrorCode hold_scalar_values(Field& scalar) const;

  /// True if no fluid crosses the face of component c at index (i, j, k): it touches a solid
  /// cell, or a cut obstacle covers it.
  bool solid_face(int c, PetscInt i, PetscInt j, PetscInt k) const {
    return face_fraction(c, i, j, k) == 0.0;
  }

  /// True if the velocity on this face is prescribed rather than computed: a solid face, or a
  /// domain boundary face whose normal velocity is given (walls and inflow; outflow and periodic
  /// faces are free). Forces, advection, diffusion and projection leave prescribed faces alone.
  bool fixed_face(int c, PetscInt i, PetscInt j, PetscInt k) const {
    const PetscInt at[3] = {i, j, k};
    if (!grid_->periodic(c) && (at[c] == 0 || at[c] == grid_->cells(c))) {
      const BoundaryKind kind = grid_->boundary(c, at[c] == 0 ? 0 : 1);
      if (kind != BoundaryKind::Outflow) return true;
    }
    return any_solid_ && solid_face(c, i, j, k);
  }

private:
  size_t index(PetscInt i, PetscInt j, PetscInt k) const {
    return static_cast<size_t>(((k - start_[2]) * width_[1] + (j - start_[1])) * width_[0] +
                               (i - start_[0]));
  }
  void compute_fractions(const std::vector<Region>& cut_regions);
  /// True if the centre x lies in staircase obstacle n where it is now (for a moving one, in
  /// one of its images a period away along the periodic axes too).
  bool holds(size_t n, const double x[3]) const;
  /// Position of index (i, j, k) along each axis, wrapped on periodic ones, with `offset` cells
  /// added (0.5 for a cell centre, 0 for a face).
  void position(const PetscInt at[3], const double offset[3], double x[3]) const;

  const Grid* grid_ = nullptr;
  std::vector<std::uint8_t> mask_;
  // Open fraction of the lower face per axis, over the ghosted extent; empty without a cut
  // obstacle. Single precision: 4 bytes a face, and far finer than the fractions' accuracy.
  std::array<std::vector<float>, 3> fraction_;
  std::vector<ObstacleConfig> placed_;     // the obstacles as the job places them (t = 0)
  std::vector<ObstacleConfig> obstacles_;  // where they are now
  // Where each obstacle is now: the velocity of its pivot, its pivot, its angular velocity and
  // the rotation back to its region's orientation (identity unless it turns).
  struct Placement {
    std::array<double, 3> velocity{0.0, 0.0, 0.0};
    std::array<double, 3> pivot{0.0, 0.0, 0.0};
    std::array<double, 3> omega{0.0, 0.0, 0.0};
    std::array<double, 9> unturn{1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
    bool turns = false;
  };
  std::vector<Placement> placements_;
  std::vector<Pose> poses_;  // of the floating obstacles (set_pose); unused for the others
  std::vector<std::array<double, 3>> image_shifts_;  // what holds() adds to a centre
  /// The velocity of obstacle n's body at x now (component c).
  double body_velocity(size_t n, int c, const double x[3]) const;
  std::vector<std::array<PetscInt, 3>> uncovered_;
  std::vector<std::uint8_t> fresh_;  // 1 where the last move uncovered a cell (ghosts too)
  bool moving_ = false;
  std::vector<ObstacleConfig> cut_obstacles_;
  std::array<PetscInt, 3> start_{0, 0, 0};
  std::array<PetscInt, 3> width_{1, 1, 1};
  bool any_solid_ = false;
  PetscInt solid_cells_ = 0;
  int version_ = 0;
};

}  // namespace sf
