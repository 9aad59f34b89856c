// The liquid as a volume fraction f per cell (volume of fluid), moved in flux form with a
// geometric (PLIC, plic.hpp) reconstruction, so that what leaves one cell enters its neighbour:
// the liquid's volume is kept to rounding whenever the velocity that moves it is discretely
// divergence-free in the cells that hold more liquid than air.
//
// Advection (Weymouth & Yue 2010, "Conservative volume-of-fluid method for free-surface
//           simulations on Cartesian grids", J. Comput. Phys. 229): one sweep per axis, each
//             f <- f - (F_{i+1/2} - F_{i-1/2}) + c (s_{i+1/2} - s_{i-1/2}),
//           s = u dt / h on the axis's faces (times the open fraction of a face an obstacle cuts),
//           F the liquid the face's velocity carries across in dt, in units of a cell: the part
//           of the donor (upwind) cell's liquid, cut by its plane, that lies in the slab of
//           width |s| next to the face. c = 1 where f > 1/2 at the start of the (sub-)step, 0
//           elsewhere, for every sweep of it: summed over the sweeps the c-terms add c dt div u,
//           zero in every cell with c = 1 when the velocity is divergence-free there, and the
//           fluxes cancel between neighbours, so sum f changes only by what crosses the domain's
//           open faces. Weymouth & Yue show that f stays in [0, 1] for |s| <= 1/2 on every face;
//           what rounding leaves outside is clipped and reported (clipped volume). The sweeps
//           start with x on even (sub-)steps and run backwards on odd ones (a Strang-like
//           alternation, so no axis always goes first). A step whose largest |s| exceeds 1/2 is
//           taken in ceil(2 max|s|) equal sub-steps with the same velocity.
// Normal    Youngs' (1982) gradient of f over the 3 x 3 (x 3) block, weights (1, 2, 1) across
//           the axis of each difference: m = -grad f in index space (the spacing cancels from
//           the normal of the unit cell); an obstacle's cells in the block read the centre
//           cell's fraction (the surface meets an obstacle at a right angle, as the level set's
//           extension makes it), the ghosts behind a wall mirror the domain. A block without a
//           gradient (a drop alone in its cell) takes the diagonal (1, 1, 1): any plane keeps
//           the volume, only its shape is a guess.
// Boundary  Nothing crosses a wall, an inflow face or an obstacle's face: a face whose donor is
//           beyond the domain or solid carries nothing (a wall the liquid leaves carries the
//           velocity it leaves at, and the c-term sees it, so the cell beside it drains, as the
//           level set's wall separation lets it); an outflow face carries out what its cell
//           holds. Liquid that enters through an inflow face is not carried yet (the parser
//           refuses such jobs with this interface).
// Ranks     Each sweep exchanges f's halo (grid.halo >= 2: the normal of a donor in the halo
//           reads one cell beyond it); a face's flux is computed from the same values by both
//           ranks that own its cells, so the fraction is the same bits on any rank count.
//
// The level set the rest of the code reads (the free-surface projection's liquid cells and its
// ghost-fluid surface, the velocity extension, spray, images) is rebuilt from the fraction after
// every advection (the coupled level set / volume of fluid of Sussman & Puckett 2000, "A
// coupled level set and volume-of-fluid method for computing 3D and axisymmetric
// incompressible two-phase flows", J. Comput. Phys. 162): its sign is f's (phi < 0 exactly
// where f > 1/2), the cells beside the surface take the distance from their centre to their own
// plane, and the reinitialisation (level_set.hpp) carries the distance out from there. The
// projection then makes the velocity divergence-free in exactly the cells whose c is 1 at the
// next advection, and the velocity extension makes the air cells about the surface
// divergence-free too (velocity_extension.hpp), so that liquid the fluxes carry into them is
// neither compressed nor expanded: that is what keeps the volume and the bounds. Where the
// extension cannot (an air cell whose neighbours are all liquid, walls or air of its own layer:
// a wedge of air under a running front, a pocket in a corner), the cell keeps a divergence, and
// it takes no c-term (c = 0 where |div u| dt > 1e-9), so what flows into it may overfill it and
// be clipped. Measured (2 ranks, dam_break_2d.yaml at 192 x 96 with interface: vof, cfl 1,
// mostly 2 sub-steps): the volume kept to 1e-9 % until the front has run up the far wall (t =
// 0.64), then -0.20 % by t = 1.5, all of it clipped in such cells; the same job with the level
// set and its particles: +13.6 % at t = 0.97, -13.5 % at t = 1.5. Without the divergence-free air a second sub-step's
// c-term in cells the first had filled lost 1.6 %; with c held from the step's start instead,
// the clipping lost 1.3 %.
#pragma once

#include <vector>

#include "field.hpp"
#include "job.hpp"
#include "solids.hpp"

namespace sf {

struct FractionStats {
  int substeps = 0;       // sub-steps the last advect() took
  double clipped = 0.0;   // volume clipped to keep f in [0, 1] in the last advect(), all ranks
};

class VolumeOfFluid {
public:
  /// The grid's halo must be at least 2. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const LiquidConfig& config);

  /// f = the fraction of each cell inside the union of the job's initial regions (sampled on a
  /// sub-grid of the cells the surface crosses), 0 in obstacles. Owned cells.
  PetscErrorCode initialise(Field& fraction) const;

  /// Moves f over dt with the face velocity in velocity.local() (ghosts current), taken as
  /// divergence-free where f > 1/2; `step` (steps done) picks the sweeps' order. Fills f's
  /// ghosts as it needs. Collective.
  PetscErrorCode advect(Field& fraction, const Field& velocity, double dt, PetscInt step,
                        FractionStats* stats);

  /// phi takes f's side in every fluid cell (phi < 0 exactly where f > 1/2), and the cells
  /// beside the surface the distance from their centre to their plane; the caller then
  /// reinitialises phi and calls keep_sides(). Fills f's ghosts. Collective.
  PetscErrorCode impose_surface(Field& fraction, Field& phi);

  /// The distance impose_surface() gave owned cell (i, j, k) beside the surface, NaN for the
  /// others: what the reinitialisation holds those cells at (LevelSet::SurfaceDistance).
  double surface_distance(PetscInt i, PetscInt j, PetscInt k) const;

  /// Where the reinitialisation moved phi across zero against f, phi is put back just on f's
  /// side. Owned cells.
  PetscErrorCode keep_sides(const Field& fraction, Field& phi) const;

  /// The liquid's volume (area in 2D): sum of f V_cell over the fluid cells. Collective.
  PetscErrorCode volume(const Field& fraction, double* volume) const;

private:
  /// The plane of every cell of `box` (local indices) with 0 < f < 1, from f's local array.
  void reconstruct(const ConstArrayView& f, const IndexBox& box);
  /// One sweep along `axis` over dt; adds the clipped fraction (cell units) to *clipped.
  PetscErrorCode sweep(Field& fraction, const Field& velocity, int axis, double dt,
                       double* clipped);

  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  LiquidConfig config_;
  IndexBox planes_box_;         // the cells planes_ covers
  std::vector<double> planes_;  // m (3) and alpha per cell of planes_box_, x fastest
  std::vector<unsigned char> centre_liquid_;  // c per owned cell for the current sub-step
  std::vector<unsigned char> divergence_free_;  // per owned cell, for the current step
  std::vector<double> surface_distance_;         // per owned cell, from impose_surface()
  std::vector<double> swept_, fluxes_;           // s and F per face of the current sweep
};

}  // namespace sf
