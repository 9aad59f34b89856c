// Viscoelastic fluids (Goktekin, Bargteil & O'Brien 2004; Cline et al. §8, eqs. 22-23): the
// elastic strain tensor E, symmetric, lives in the cells of the material and evolves by
//
//   dE/dt = D - k_yr max(0, |E| - k_yp) E / |E| - (u . grad) E,   D = (grad u + grad u^T) / 2,
//
// and pushes back on the fluid with the force  f = k_em div E.  The three terms are split as
// Cline et al. do, each over the whole step: this stage adds dt D and then yields, the
// advection stage carries E with the other scalars (its components are scalars of the run,
// ViscoelasticConfig::kStrainNames), and this stage adds dt f to the faces.
//
// Where the quantities live (Goktekin et al.; Cline et al. §8 and their figure 11): the
// diagonal entries E_aa at cell centres, the off-diagonal E_ab (a < b) on the cell edges across
// a and b, so that the strain rate and the force are the compact differences of the MAC grid
// (backward for D_ab, forward for the force's E_ab terms). E_ab of cell idx is stored at the
// edge of its lower corner across a and b, idx - (e_a + e_b) / 2. On the
// MAC grid, face (a, idx) the lower face of cell idx normal to a, spacing h_a, e_a the unit
// step along a:
//
//   D_aa(idx) = (u_a(idx + e_a) - u_a(idx)) / h_a          (the cell's own two faces)
//   D_ab(edge idx) = 1/2 [ (u_a(idx) - u_a(idx - e_b)) / h_b + (u_b(idx) - u_b(idx - e_a)) / h_a ]
//                                                          (the faces either side of the edge)
//   f_a(face idx) = k_em [ (E_aa(idx) - E_aa(idx - e_a)) / h_a
//                          + sum_{b != a} (E_ab(edge idx + e_b) - E_ab(edge idx)) / h_b ]
//                          (the face's two cells along a, and the two edges at its ends across b)
//
// All of these are exact for a linear velocity and a linear strain (test_viscoelastic pins it),
// and, unlike the centred differences of a strain kept at the centres, they see the
// grid-scale shear (u_a alternating in sign from one cell to the next across b): its strain
// pushes back on it, so an elastic surface does not roughen at the cell scale.
//
// The strain components are scalars of the run (ViscoelasticConfig::kStrainNames): they ride
// the scalars' advection, frames and checkpoints. The advection traces E_ab's values from the
// cell centre, not from its edge: its departure point is off by dt times the velocity's change
// over half a cell, a first-order error, as the semi-Lagrangian interpolation's own is. A frame's
// strain_xy (and xz, yz) is the edge's value under its cell's index.
//
// The yield (von Mises, on the whole tensor at each place an entry lives): with |E|^2 the sum of
// the squares of all nine entries, those stored elsewhere the means of the two or four nearest,
// where |E| > k_yp,
//   E <- E (1 - min(1, dt k_yr) (|E| - k_yp) / |E|),
// the paper's explicit step E -= dt k_yr (|E| - k_yp) E / |E| while dt k_yr <= 1; the clamp
// keeps a step longer than 1 / k_yr from carrying E through zero (it lands on the yield surface).
//
// At a wall the two sides differ, not yet mirror images: an edge on the domain's lower wall is
// one of the owned cells' and gains the strain rate of the wall's ghost velocity; one on the
// upper wall lies in the halo, where the strain's ghosts copy the edge inside it. The lower
// wall's way is the one to keep: set as the upper's (tried), the floor's edges held no shear
// and jelly_drop_2d's jelly slid apart on its no-slip floor; the upper wall needs edges of its
// own that the ghost exchange does not overwrite.
//
// The material is where the job's `material` scalar is >= its threshold, or a liquid's cells
// (phi < 0); solid cells are not. An edge is of the material when every cell about it that is
// in the domain and not solid is. Outside it E is set to 0 each step (so strain the advection
// carries out of the material is dropped, and the material's surface feels the traction of its
// own strain against none); Cline et al. extrapolate E into the air buffer instead, which this
// does not do yet.
//
// In the step: after the forces, from the same ghosted velocity the forces read (the state on
// entry to the stage), before the check and the advection; the strain's ghosts are refreshed
// here, after E changed, so the advection's trace reads current values.
#pragma once

#include <vector>

#include "force.hpp"
#include "job.hpp"

namespace sf {

class Viscoelastic {
public:
  /// Resolves the material (a scalar by name, or the liquid's level set at index
  /// job_scalars.size()) and the strain scalars. Collective (registers a log event).
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const ViscoelasticConfig& config,
                       const std::vector<ScalarConfig>& job_scalars, bool liquid);
  bool enabled() const { return config_.enabled; }

  /// The whole stage: update_strain(), then the strain's ghosts, then add_force(). Reads the
  /// velocity's local vector, whose ghosts must be current. Collective.
  PetscErrorCode apply(Field& velocity, std::vector<Field>& scalars, double dt);

  /// E += dt D, then the yield, on every owned cell and edge of the material; E = 0 elsewhere.
  /// Writes the strain's global vectors. Reads the velocity's local vector (ghosts current) and
  /// the material's local vector, whose ghosts it fills (an edge reads the cells about it).
  /// Collective.
  PetscErrorCode update_strain(const Field& velocity, std::vector<Field>& scalars, double dt);
  /// u += dt k_em div E on every free face. Reads the strain's local vectors, whose ghosts must
  /// be current; writes the velocity's global vector. Local.
  PetscErrorCode add_force(const std::vector<Field>& scalars, Field& velocity, double dt);

  /// Index into the run's scalars of the strain component E_ab (a, b < dim).
  int strain_index(int a, int b) const;

private:
  /// The strain's ghosts from its global vectors. Collective.
  PetscErrorCode fill_strain_ghosts(std::vector<Field>& scalars) const;
  /// The yield of every owned entry from the strain update_strain() wrote. Collective.
  PetscErrorCode yield(std::vector<Field>& scalars, double dt);

  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  ViscoelasticConfig config_;
  int material_index_ = -1;   // index into the run's scalars
  bool material_is_liquid_ = false;
  int components_ = 0;        // 3 in 2D, 6 in 3D
  FreeFaces faces_;           // rebuilt if the mask changes
  PetscLogEvent event_ = -1;
};

}  // namespace sf
