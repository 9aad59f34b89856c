// The liquid's velocity carried into the air about its surface (Foster & Metaxas 1996 §3;
// Cline et al. §10, the "buffer zone"), so that the back-trace and the level set's advection
// read a meaningful velocity on both sides of the surface.
//
// A face is known when it touches a liquid cell (phi < 0 and not solid: the projection sets it)
// or is prescribed (walls, solids: never written). Layer by layer, every unknown owned face with
// known neighbours of its own component (+-1 along each axis) takes the mean of their values
// and becomes known for the next layer; each layer ends with one exchange of the velocity and of
// the known marks. After `layers` layers the faces still unknown are set to 0: beyond the band
// the air's velocity is never read by the liquid. Each layer reads only its neighbours, so the
// result is the same bits on any rank count.
//
// Cost per call: `layers` passes over the owned faces and 2 `layers` halo exchanges (the passes
// could be limited to the band).
//
// The air's layers (mark_air_layers; what the volume-of-fluid interface's air projection needs,
// air_band_projection.hpp): the liquid's cells are layer 0, each air cell beside a cell of layer
// n - 1 is layer n, up to `layers`; the solids and the air beyond are far. Given the volume
// fraction, an air cell that holds any liquid (f > 1e-12: a film or a drop thinner than half a
// cell, which the level set does not show) is layer 1 wherever it is, so that the band reaches
// every cell the fraction's fluxes move liquid in. Each layer reads only
// its neighbours after an exchange: the same marks on any rank count. Cost: `layers` passes over
// the owned cells and `layers` + 1 exchanges of a cell vector.
#pragma once

#include "field.hpp"
#include "petsc_handle.hpp"
#include "solids.hpp"

namespace sf {

/// What one projection of the air's band did.
struct AirBandStats {
  PetscInt iterations = 0;    // the solver's
  PetscInt pocket_cells = 0;  // band cells that reach no Dirichlet edge (air_band_projection.hpp)
  double residual = 0.0;      // the solve's residual norm, in units of |div u| dt
};

/// Makes the air cells of the band about the liquid divergence-free, given the layers of
/// VelocityExtension::mark_air_layers (the solvers' AirBandProjection, published in Flow by the
/// base scheme).
class AirProjection {
public:
  virtual ~AirProjection() = default;
  /// `layers`: air_layers(); `band`: the largest layer that is the band's; `dt` the step the
  /// velocity will move the liquid by (it scales the stopping rule). Collective.
  virtual PetscErrorCode project(Field& velocity, Vec layers, int band, double dt,
                                 AirBandStats* stats) = 0;
  /// The band's pockets (air that reaches no air beyond the band: a bubble) become liquid in
  /// `phi` (a small negative value), so that the projection keeps their volume. `*cells`: how
  /// many. Collective.
  virtual PetscErrorCode fill_pockets(Field& phi, Vec layers, int band, PetscInt* cells) = 0;
};

class VelocityExtension {
public:
  /// `layers` >= 1: how many faces deep the liquid's velocity reaches into the air.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, int layers);

  /// Overwrites the velocity of the faces that touch no liquid cell, from the liquid's, given
  /// the level set `phi` (its ghosts are filled here). Collective.
  PetscErrorCode extend(Field& velocity, Field& phi);

  /// The air's layers about the liquid of `phi` and the liquid `fraction` holds (may be null;
  /// see the top), kept in air_layers(). Collective.
  PetscErrorCode mark_air_layers(Field& phi, const Field* fraction);
  /// After extend() and mark_air_layers(): a wall of the domain beside an air cell gets its
  /// normal velocity 0 again (the liquid that left it is gone).
  PetscErrorCode close_walls_beside_air(Field& velocity);
  /// The marks of mark_air_layers(): a local vector of the grid's cell DM, its ghosts filled
  /// (beyond the domain far), 0 in the liquid, 1 ... layers() in the air's band, larger beyond.
  Vec air_layers() const { return layer_local_; }

  int layers() const { return layers_; }

private:
  OwnedVec layer_;        // per cell: 0 liquid, n the n-th layer of air about it, kFar beyond
  OwnedVec layer_local_;  // the same with its ghosts
  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  int layers_ = 1;
  OwnedVec known_;        // 1 on known faces, per component (face DM, global)
  OwnedVec known_local_;  // the same with its ghosts
};

}  // namespace sf
