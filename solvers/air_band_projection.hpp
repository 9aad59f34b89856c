// The air's own projection about a liquid's surface, for the volume-of-fluid interface
// (volume_of_fluid.hpp): its fluxes carry liquid into the air cells beside the surface, and an
// air cell whose velocity has a divergence compresses or expands what enters it (Weymouth & Yue
// 2010 keep the volume exact only where the velocity is discretely divergence-free). The
// free-surface projection makes the liquid cells divergence-free and leaves the air to the
// velocity extension, whose averages are not; this solve takes their divergence out.
//
//   A q = b,   b = -div u dt   in the band's air cells (1 <= layer <= band, not solid),
//   u = u - grad q / dt        on the faces between two of them, or one of them and the air
//                              beyond the band,
//
// with A = -Laplacian (the 5- or 7-point operator of the projections). The liquid's faces, walls,
// inflows and obstacles keep their velocity (Neumann: no term): the liquid cells keep the
// projection's divergence. q = 0 in the air beyond the band (a Dirichlet neighbour: 1 / h^2 on
// the diagonal) and on an outflow face of the domain (2 / h^2, the face half a cell away), so
// the correction leaves through the band's outer edge, where no liquid is.
//
// Pockets. Band cells connected to neither (a bubble closed in by liquid and walls) have no
// such solution unless their faces bring in nothing in all. Their cells of the pocket's deepest
// layer (its core, the farthest from the liquid) take q = 0 instead, so the rest of the pocket
// is divergence-free and the core keeps the pocket's net flux (what is left is counted in
// `pocket_cells`). The volume-of-fluid interface does not leave them so: fill_pockets() makes
// them liquid in phi before the projection, which then keeps the bubble's volume (see
// volume_of_fluid.hpp for what the other choices lost).
//
// Which cells are the band's is given by the caller (VelocityExtension's layers); which of them
// reach the Dirichlet edge, and which pocket each of the others is in (named by its least
// global cell index), is found here by flooding: each exchange of a cell vector is followed by
// sweeps forward and back over the owned cells, until a pass changes nothing on any rank. The
// result is the connected sets themselves, the same on any rank count.
//
// The solve is CG with Jacobi's preconditioner (options prefix air_band_) on the band's rows
// alone (MatCreateSubMatrix of the grid's operator): the band is a few cells thick and bounded
// by the Dirichlet edge on its outer side, so its operator is well conditioned whatever the
// grid's size, and Jacobi's is the same preconditioner on any rank count. The stopping rule is
// absolute: ||b - A q|| <= kTolerance, which bounds each cell's |div u| dt, the fraction of its
// volume a step could wrongly move, by that number. Measured (-log_view, 2 ranks, this machine):
//   - dam_break_2d.yaml at 192 x 96, vof, to t = 0.6: a median of 99 iterations a step; the
//     band's projection 0.84 s of 7.8 s. SOR 39 iterations and 0.74 s, block ICC(0) 34 and
//     0.69 s, BoomerAMG 6 and 1.12 s (-air_band_pc_type); the same solve on the whole grid's
//     rows (the rest decoupled) 4.0 s.
//   - dam_break_3d.yaml at 64 x 24 x 24 to t = 1: 4.2 s of 33.9 s; a median step of 0.209 s
//     against 0.201 s for the same job with the level set and its particles.
#pragma once

#include <petscksp.h>

#include <array>
#include <vector>

#include "field.hpp"
#include "petsc_handle.hpp"
#include "solids.hpp"
#include "velocity_extension.hpp"

namespace sf {

class AirBandProjection final : public AirProjection {
public:
  /// The largest ||b - A q|| (b = -div u dt) the solve stops at.
  static constexpr double kTolerance = 1e-10;

  PetscErrorCode setup(const Grid& grid, const SolidMask& solids);

  /// Makes the band's air cells divergence-free. `layers`: a local (ghosted) vector of the
  /// grid's cell DM, 0 in the liquid, 1 ... `band` in the band's air, more beyond or in a solid.
  /// `dt` only scales the stopping rule (the step the velocity will move the fraction by).
  /// Collective.
  PetscErrorCode project(Field& velocity, Vec layers, int band, double dt,
                         AirBandStats* stats) override;
  PetscErrorCode fill_pockets(Field& phi, Vec layers, int band, PetscInt* cells) override;

private:
  /// Repeats update(values, i, j, k) (1 if it changed the cell) over the owned cells, forward
  /// and back, between exchanges of `global` into `local`, until no rank changes one.
  template <typename F>
  PetscErrorCode settle(Vec global, Vec local, F&& update);
  PetscErrorCode mark_roles(const ConstArrayView& layer, int band, PetscInt* pockets);
  /// Marks each pocket's cells of its deepest layer as its core.
  PetscErrorCode mark_cores(const ConstArrayView& layer);
  PetscErrorCode assemble(const ConstArrayView& layer);
  PetscErrorCode subtract_gradient(Field& velocity, const ConstArrayView& layer, double dt);

  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  std::array<double, 3> inv_h2_{0.0, 0.0, 0.0};
  OwnedDM dm_;  // one sample per cell, stencil width 1
  Owned<Mat, MatDestroy> matrix_;
  Owned<KSP, KSPDestroy> ksp_;
  OwnedVec q_, q_local_, rhs_;
  OwnedVec role_, role_local_;    // per cell: what it is to the solve
  OwnedVec label_, label_local_;  // per pocket cell: its pocket's name
  std::vector<PetscInt> unknowns_;  // the global rows of the owned unknown cells
};

}  // namespace sf
