// Floating bodies (Foster & Metaxas 1996 §5; ObstacleConfig::Floating): rigid bodies that gravity
// and the liquid's pressure move, and that move the liquid as any moving obstacle does.
//
// Foster and Metaxas push a body by -grad p over its volume and let it leave the water alone
// ("they act like large marker particles"); here the coupling goes both ways, and it is implicit,
// as Batty, Bertails & Bridson (2007) couple rigid bodies to a pressure solve: a body's
// generalised velocity Q = (V, omega) at the end of a step is
//
//   Q = Q* + dt M^-1 F,   F = sum over the body's faces f next to a liquid cell c of
//                             p_c A_f tau_f j_f,   j_f = (e_a, r_f x e_a),
//
// (tau_f = +1 where the body is on the upper side of c along the face's axis a, r_f from the
// centre of mass to the face's centre, Q* the velocity after gravity), and the face carries
// j_f . Q into the liquid's divergence. Put together, the free-surface projection solves
//
//   (A + V_cell G^T M^-1 G) p = -div u* / dt,   G_c = sum_f tau_f j_f / h_a,
//
// which stays symmetric positive definite (rank 6 more per body), for any density: an explicit
// coupling (the pressure of the last step pushing the body in this one) is unstable once the
// liquid the body must push aside outweighs it (the added mass), as for a body of half the
// liquid's density (free_surface_projection.hpp).
//
// The mass M is the body's (density times the cells it covers at the start, with their inertia
// about the centre of mass) plus, per face next to liquid, the half cell of liquid between the
// face and the liquid cell's centre, (V_cell / 2) j_f j_f^T: the pressure p_c acts half a cell
// from the face, so the liquid between is carried with the body. Its weight comes with it (the
// whole M falls at g), and so a body at rest in liquid at rest is exactly in equilibrium when
// its mass is the liquid's over the cells it displaces (Archimedes, to the solver's tolerance:
// tests/app/test_floating_bodies.cpp), with no offset of half a cell.
//
// In time: the "move obstacles" stage moves each body over the step with the velocity it has
// (X += dt V, R = exp(dt omega) R), then the projection finds its velocity at the step's end
// there (symplectic Euler: a body bobbing without damping keeps its energy bounded). The
// rotation's gyroscopic term -omega x I omega is explicit.
//
// The liquid's viscous shear on a no-slip body (drag()): the step's implicit diffusion holds the
// liquid at the body's velocity on its faces, then the body is pulled towards the liquid beside
// it through the same couplings, implicitly (stable for any density and viscosity), before the
// projection. A free-slip body takes no viscous force. Not modelled: contact (a body that
// reaches a side of the domain stops the run, as does one that reaches another obstacle or
// body), and air moving the body.
// The body's state is replicated on every rank; its sums over cells and faces are reduced.
#pragma once

#include <array>
#include <vector>

#include "grid.hpp"
#include "solids.hpp"

namespace sf {

class FloatingBodies {
public:
  /// The generalised coordinates of a body: velocity x, y, z, then angular velocity x, y, z.
  static constexpr int kDofs = 6;

  struct Body {
    size_t obstacle = 0;        // its index among the job's obstacles
    double density = 1.0;       // relative to the liquid's
    bool turns = true;
    double mass = 0.0;          // density times the volume of the cells it covered at the start
    std::array<double, 9> inertia{};  // about the centre of mass, in the start's orientation
    SolidMask::Pose pose;       // where it is and how fast it goes
  };

  /// Finds the floating obstacles, measures their mass, centre of mass and inertia from the
  /// cells they cover, gives them their start velocities and places them. `gravity` is the
  /// job's. Collective.
  PetscErrorCode setup(const Grid& grid, SolidMask& solids, const std::array<double, 3>& gravity);

  bool any() const { return !bodies_.empty(); }
  const std::vector<Body>& bodies() const { return bodies_; }
  /// Which body obstacle n is, or -1.
  int body_of_obstacle(int n) const {
    return n < 0 || static_cast<size_t>(n) >= body_of_.size() ? -1 : body_of_[n];
  }

  /// Moves every body over dt at the velocity it has and hands the poses to the solids (the
  /// caller's move_to() then rebuilds the mask). Local.
  void advance(double dt);
  /// The velocity before the liquid pushes: gravity and the explicit gyroscopic term over dt,
  /// handed to the solids. Local.
  void accelerate(double dt);
  /// The liquid's viscous drag over dt on the bodies with a no-slip surface, from the velocity
  /// the step's implicit diffusion just gave the liquid (`phi` says where the liquid is): per
  /// pair of samples of a component the diffusion couples, one free in the liquid and one on
  /// the body's face, the body is pulled towards the free sample's velocity with the weight
  /// dt mu A / h of that coupling, implicitly in the body's velocity: (M + K) Q' = M Q + f,
  /// K = sum w j j^T, f = sum w j u (j = (e_c, r x e_c) at the free sample). So a body lighter
  /// than the liquid beside it, or a thick liquid, cannot overshoot. Fills the velocity's ghosts.
  /// Collective.
  PetscErrorCode drag(Field& velocity, const Field& phi, double viscosity, double dt);
  /// Gives body b the generalised velocity q (kDofs values). Local.
  void set_velocity(size_t b, const double q[kDofs]);
  /// Body b's generalised velocity.
  void velocity(size_t b, double q[kDofs]) const;
  /// True if generalised coordinate d of body b moves: in 2D x, y and the turn about z; not the
  /// turns of a body with turns: false.
  bool free(size_t b, int d) const;
  /// Body b's own generalised mass in the world's orientation now, row-major kDofs x kDofs.
  void mass_matrix(size_t b, double m[kDofs * kDofs]) const;

  /// Stops the run, naming the body and what it touches, if a floating body covers a cell next
  /// to a wall of the domain or to another obstacle's cell (contact is not modelled). Where the
  /// job places a body so (`at_start`, before the first step) the job cannot run as given
  /// (kErrorBadJob, exit status 2); a body that gets there as it moves stops the run with a
  /// run-time failure (PETSC_ERR_SUP, exit status 1): the job was valid, what it led to is not
  /// modelled. Collective.
  PetscErrorCode check_clear(bool at_start) const;

  /// The bodies' state (pose and velocities) as numbers, for a checkpoint, and back.
  std::vector<double> state() const;
  /// Local; `values` must come from state() of the same job.
  PetscErrorCode restore(const std::vector<double>& values);
  /// The numbers state() gives per body.
  static constexpr size_t kStateSize = 3 + 9 + 3 + 3;

private:
  const Grid* grid_ = nullptr;
  SolidMask* solids_ = nullptr;
  std::array<double, 3> gravity_{0.0, 0.0, 0.0};
  std::vector<Body> bodies_;
  std::vector<int> body_of_;  // per obstacle
};

/// The inverse of the rows and columns of the symmetric positive definite `m` (row-major
/// kDofs x kDofs) that `free` marks, in those rows and columns of `inverse`, zero elsewhere
/// (Cholesky); false if that part of m is not positive definite.
bool invert_free_part(const bool free[FloatingBodies::kDofs], const double* m, double* inverse);

}  // namespace sf
