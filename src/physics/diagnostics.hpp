// Integral measures of the flow and point probes, every step, for the steps CSV: what validation
// needs without writing frames.
//
// On the MAC grid, cell volume V = prod_a h_a (2D: h_x h_y), summed over the whole box (solid
// cells hold their obstacle's velocity, 0 for static ones):
//   kinetic energy   E = 1/2 sum_c sum_faces w u_c^2 V;
//   velocity gradient  d_c u_c at cell centres, (u_c(i + e_c) - u_c(i)) / h_c, and for a != c
//                    d_a u_c on the edges where faces of a and c meet, (u_c(i) - u_c(i - e_a)) / h_a
//                    (beyond a wall the ghost gives the one-sided wall shear);
//   enstrophy        Z = 1/2 sum_edges w |omega|^2 V, omega_ab = d_a u_b - d_b u_a on the edges of
//                    axes a, b (2D: the nodes, one component);
//   dissipation      eps = nu sum w |grad u|^2 V, all dim^2 derivatives (2 nu Z in a periodic box);
//   scalar totals    sum over fluid cells of s V;
//   liquid volume    as the liquid's interface measures it: sum over fluid cells of H(-phi) V,
//                    H the level set's smeared Heaviside (level_set.hpp), or of f V with the
//                    vof interface (volume_of_fluid.hpp); and its change from the start in %;
//   wall fluxes      for every wall that holds a scalar at a value s_w (a Dirichlet wall), the
//                    diffusive flux of s into the fluid through it, F = kappa sum (-ds/dn) A over
//                    the wall's cells (n into the fluid, A the cell's face area), with the
//                    second-order one-sided difference ds/dn = (9 s_0 - s_1 - 8 s_w) / (3 h) from
//                    the first two cells; and, when the scalar's walls hold it at different
//                    values, the wall's Nusselt number Nu = (F / kappa) / A_wall * L / dT (the flux
//                    over the conduction kappa dT / L, with dT the largest difference between
//                    the walls' values and L the domain's length across the wall);
//   obstacle forces  per obstacle, the force the fluid exerts on it (density 1, the pressure
//                    being the projection's p), summed over the faces between its solid cells
//                    and fluid cells, with n the face normal into the solid and A its area:
//                    pressure p_face n A, p_face extrapolated linearly from the two fluid cells
//                    in front of the face; and on no-slip obstacles the shear nu du_t/dn A of
//                    every tangential component, du_t/dn = (9 u_0 - u_1) / (3 h) from the
//                    tangential velocity (averaged to the cell's centre line) of the same two
//                    cells. On the staircase of solid cells these are first order in h where the
//                    surface is curved. With a reference speed U and area A, also the
//                    coefficients 2 F / (U^2 A). A solid cell belongs to the first obstacle in the
//                    job whose region holds its centre. A cut obstacle's force is summed over the
//                    cells it crosses instead (add_cut_obstacle_forces() has the formulas);
//   obstacle fluxes  per obstacle and scalar the obstacle holds at a value v, the diffusive flux
//                    of the scalar into the fluid through its surface, kappa sum (v - s) /
//                    (theta h) A over the segments from a fluid cell's centre to a neighbour
//                    the obstacle holds, theta h being where the surface crosses the segment
//                    (SolidMask::surface_crossing): the flux the diffusion's rows exchange with
//                    the surface, so a steady state's fluxes balance to solver tolerance;
//   probes           every velocity component and scalar interpolated linearly at the point from
//                    its own sample lattice (Interpolation::Linear, as the back-trace does), by
//                    the rank that owns the point's cell.
// w is the trapezoid weight: 1/2 for each non-periodic domain boundary a face or an edge lies
// on, 1 elsewhere, so a field constant in space integrates exactly.
#pragma once

#include <string>
#include <vector>

#include "field.hpp"
#include "job.hpp"
#include <functional>

#include "solids.hpp"

namespace sf {

class FlowDiagnostics {
public:
  /// A liquid's volume, as its interface measures it (collective).
  using LiquidVolume = std::function<PetscErrorCode(double* volume)>;
  /// With a liquid, `liquid_volume` measures it (its fields follow the job's scalars in measure()'s
  /// `scalars`) and `initial_volume` is its volume at the start, what changes are relative to.
  /// Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const JobConfig& job,
                       LiquidVolume liquid_volume = nullptr, double initial_volume = 0.0);

  /// The CSV column names of measure()'s values, in order: kinetic_energy, enstrophy,
  /// dissipation, <scalar>_total per scalar, with a liquid liquid_volume and
  /// liquid_volume_change (in % of the initial volume), then probe_<name>_u/v(/w) and
  /// probe_<name>_<scalar> per probe (and probe_<name>_phi with a liquid), then
  /// <scalar>_flux_<axis>_<side> (and <scalar>_nusselt_<axis>_<side>) per
  /// Dirichlet wall, as in "temperature_nusselt_x_lower", then obstacle<n>_fx/fy(/fz) (and with a
  /// reference obstacle<n>_cx/cy(/cz)) per obstacle, n from 0 in the job's order, then
  /// obstacle<n>_<scalar>_flux per obstacle and scalar it holds at a value.
  const std::vector<std::string>& columns() const { return columns_; }

  /// Every value of columns() for the state in the global vectors and the pressure (cell DM,
  /// global; read only when there are obstacles). Fills the velocity's ghosts (one exchange per
  /// step: the gradients read across rank and domain boundaries), when there are probes or
  /// Dirichlet walls the scalars', and with obstacles a ghosted copy of the pressure.
  /// Collective.
  PetscErrorCode measure(Field& velocity, std::vector<Field>& scalars, Vec pressure,
                         std::vector<double>* values);

private:
  /// The local sums of E, Z and |grad u|^2 (without V and nu).
  void integrate_velocity(const ConstArrayView& u, double sums[3]) const;
  /// 1 or 1/2 per non-periodic domain boundary that node index i along `axis` lies on.
  double node_weight(int axis, PetscInt i) const;

  /// A wall that holds a scalar at a value.
  struct DirichletWall {
    size_t scalar;
    int axis, side;
    double value;
    double diffusion;  // the scalar's kappa
    double nusselt_scale = 0.0;  // L / (dT A_wall), 0 when the scalar has one wall value only
  };
  /// The local sums -sum ds/dn A over the wall's owned cells.
  double wall_gradient_sum(const DirichletWall& wall, const ConstArrayView& s) const;

  /// A segment from the centre of an owned fluid cell to a neighbour an obstacle holds a scalar
  /// in, across the obstacle's surface.
  struct SurfaceCrossing {
    PetscInt cell[3];
    double weight;  // A / (theta h)
    size_t obstacle;
  };
  /// An obstacle that holds a scalar at a value, with its column.
  struct HeldScalar {
    size_t obstacle, scalar;
    double value, diffusion;
  };
  /// The crossings of the obstacles that hold some scalar at a value (set-up).
  void find_surface_crossings();

  /// Adds to forces[dim * n + a] the local part of the force on obstacle n: staircase
  /// obstacles, from the faces of their solid cells.
  void add_obstacle_forces(const ConstArrayView& u, const ConstArrayView& p, double* forces) const;
  /// The same for cut obstacles, from the closed part of the faces of the cells they cross.
  void add_cut_obstacle_forces(const ConstArrayView& u, const ConstArrayView& p,
                               double* forces) const;
  /// The cut obstacle nearest the centre of cell (i, j, k), and the distance to the cut
  /// obstacles' surface from there.
  size_t nearest_cut_obstacle(PetscInt i, PetscInt j, PetscInt k, double* distance) const;
  /// The obstacle solid cell (i, j, k) belongs to (SolidMask::obstacle_of_cell).
  size_t obstacle_of(PetscInt i, PetscInt j, PetscInt k) const;
  /// The centre of cell (i, j, k); a ghost across a periodic axis stands for its image.
  void cell_position(PetscInt i, PetscInt j, PetscInt k, double x[3]) const;

  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  double viscosity_ = 0.0;
  std::vector<DirichletWall> walls_;
  size_t scalar_totals_ = 0;  // the job's scalars (a liquid's level set follows them)
  LiquidVolume liquid_volume_;
  double initial_volume_ = 0.0;
  std::vector<ObstacleConfig> obstacles_;
  std::vector<HeldScalar> held_scalars_;
  std::vector<SurfaceCrossing> crossings_;
  double coefficient_scale_ = 0.0;  // 2 / (U^2 A), 0 without a reference
  std::vector<ProbeConfig> probes_;
  std::vector<bool> probe_here_;  // this rank owns the probe's cell
  std::vector<std::string> columns_;
};

}  // namespace sf
