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
// Divergence-free in the air (make_divergence_free; what the volume-of-fluid interface needs,
// volume_of_fluid.hpp): the averages leave the air cells about the surface with a divergence,
// and liquid moved in flux form into such a cell is compressed or expanded there. Foster &
// Metaxas (1996, §3) set the empty faces of each surface cell so that the cell is
// divergence-free; here the air cells are taken layer by layer outwards from the liquid (layer
// n: the cells beside layer n - 1, the liquid layer 0), and each cell's divergence is taken out
// through its outward faces (to cells of a later layer or beyond the band, neither prescribed),
// in equal shares of u h_a: a face of the cell's lower side gives -d, of its upper side +d, d =
// -div / sum over those faces of 1 / h_a. The liquid's faces, walls and obstacles keep their
// values, so the liquid cells keep the projection's divergence. A face is changed by its owner,
// from the cell's faces in the exchanged halo, one layer after the other: the same bits on any
// rank count. An air cell with no outward face (a pocket closed by liquid and walls) keeps its
// divergence. Cost: `layers` passes over the owned faces, as many exchanges of the velocity and
// of the cells' layers.
#pragma once

#include "field.hpp"
#include "petsc_handle.hpp"
#include "solids.hpp"

namespace sf {

class VelocityExtension {
public:
  /// `layers` >= 1: how many faces deep the liquid's velocity reaches into the air.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, int layers);

  /// Overwrites the velocity of the faces that touch no liquid cell, from the liquid's, given
  /// the level set `phi` (its ghosts are filled here). Collective.
  PetscErrorCode extend(Field& velocity, Field& phi);

  /// After extend(): the faces of the air cells within `layers` cells of the liquid are
  /// corrected so that those cells are divergence-free (see the top). Collective.
  PetscErrorCode make_divergence_free(Field& velocity, Field& phi);

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
