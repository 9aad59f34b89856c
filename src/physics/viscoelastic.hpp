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
// Where the quantities live. All of E is stored at cell centres (Goktekin et al. put the
// off-diagonal entries on cell edges; as cell-centred scalars they ride the scalars' advection,
// frames and checkpoints unchanged). On the MAC grid, cell idx, face (a, idx) its lower face
// normal to a, spacing h_a, e_a the unit step along a:
//
//   D_aa(idx) = (u_a(idx + e_a) - u_a(idx)) / h_a        (the cell's own two faces)
//   D_ab(idx) = 1/2 (du_a/dx_b + du_b/dx_a),  du_a/dx_b(idx) =
//       (u_a(idx+e_b) + u_a(idx+e_b+e_a) - u_a(idx-e_b) - u_a(idx-e_b+e_a)) / (4 h_b)
//                          (the central difference of the face-averaged u_a of the cells above
//                           and below along b)
//   f_a(face idx) = k_em [ (E_aa(idx) - E_aa(idx - e_a)) / h_a
//       + sum_{b != a} (E_ab(idx+e_b) + E_ab(idx-e_a+e_b) - E_ab(idx-e_b) - E_ab(idx-e_a-e_b))
//                      / (4 h_b) ]
//                          (the face's two cells along a; the difference across b of E_ab on
//                           the edges above and below the face, each the mean of its 4 cells)
//
// All of these are exact for a linear velocity and a linear strain (test_viscoelastic pins it).
// The yield (von Mises, on the cell's whole tensor): with |E|^2 the sum of the squares of all
// nine entries, where |E| > k_yp,
//   E <- E (1 - min(1, dt k_yr) (|E| - k_yp) / |E|),
// the paper's explicit step E -= dt k_yr (|E| - k_yp) E / |E| while dt k_yr <= 1; the clamp
// keeps a step longer than 1 / k_yr from carrying E through zero (it lands on the yield surface).
//
// The material is where the job's `material` scalar is >= its threshold, or a liquid's cells
// (phi < 0); solid cells are not. Outside it E is set to 0 each step (so strain the advection
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

  /// E += dt D, then the yield, on every owned cell of the material; E = 0 elsewhere. Writes
  /// the strain's global vectors. Reads the velocity's local vector (ghosts current) and the
  /// material's global vector. Local.
  PetscErrorCode update_strain(const Field& velocity, std::vector<Field>& scalars, double dt);
  /// u += dt k_em div E on every free face. Reads the strain's local vectors, whose ghosts must
  /// be current; writes the velocity's global vector. Local.
  PetscErrorCode add_force(const std::vector<Field>& scalars, Field& velocity, double dt);

  /// Index into the run's scalars of the strain component E_ab (a, b < dim).
  int strain_index(int a, int b) const;

private:
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
