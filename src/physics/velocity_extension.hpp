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

  int layers() const { return layers_; }

private:
  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  int layers_ = 1;
  OwnedVec known_;        // 1 on known faces, per component (face DM, global)
  OwnedVec known_local_;  // the same with its ghosts
};

}  // namespace sf
