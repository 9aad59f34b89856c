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
//           open faces. With |s| <= 1/2 on every face f mostly stays in [0, 1], but the
//           splitting overshoots: a single sweep may leave it for a moment (see sweep()), and
//           after the step's last sweep a cell may still hold more than 1 (once in the 1058
//           steps of dam_break_2d.yaml with this interface: 0.0045 of a cell). Where a front
//           turns at a wall's corner, a cell with c = 1 that is only partly full gains the
//           c-term's whole s on a sweep that carries less than s out of it: up to a cell in one
//           sub-step (measured where breaking_wave_spray_3d's surge meets its block). What is
//           outside [0, 1] goes to the neighbours with room and on up phi's slope to the
//           surface (keep_bounds()); only what the passes cannot place is clipped and reported
//           (clipped volume). The sweeps
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
// Boundary  Nothing crosses a wall or an inflow face: a face whose donor is beyond the domain
//           carries nothing (a wall the liquid leaves carries the velocity it leaves at, and
//           the c-term sees it, so the cell beside it drains, as the level set's wall
//           separation lets it); an outflow face carries out what its cell holds. Liquid that
//           enters through an inflow face is not carried yet (the parser refuses such jobs with
//           this interface).
// Bodies    A static obstacle's faces have no velocity and carry nothing. A moving body is a
//           staircase of whole cells that jumps a cell when its surface passes a cell's centre,
//           while its faces carry its velocity all the time; its cells keep the books of the
//           half cells between the two. A body's cell holds the liquid of the part of it the
//           body has not reached (no c-term there: the body is not liquid), against its face
//           with the fluid: where the surface moves away, the liquid flows into the cell, the
//           space the body left, and the cell holds it when the body uncovers it; where the
//           surface pushes into the fluid, the cell in front empties through its c-term (the
//           body takes its place) while the body's cell gives the slab its face sweeps,
//           min(|s|, f), so the cell in front empties only once the body's cell has. A cell
//           the body covers keeps its liquid until it has gone out so. Faces between two of a
//           body's cells carry nothing: the liquid does not ride with it. So a body moves the
//           liquid it meets and deletes none, and the liquid's volume counts the body's cells.
//           A cell the body covers faster than its faces empty it (a surface that moves more
//           than a cell a step, or along itself, as a turning body's sides do) holds its
//           liquid until the body uncovers it again. A body's corner cell gathers liquid
//           through two or three faces, so it may hold more than a cell when uncovered; under
//           water no fluid cell near it has room, and the excess goes back into the body's
//           cells beside it (keep_bounds()).
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
// plane, and the reinitialisation (level_set.hpp) carries the distance out from there.
//
// What keeps the volume and the bounds is a velocity that is discretely divergence-free in
// every cell the fluxes move liquid in, not only in those whose c is 1:
//   - the projection makes the liquid cells (f > 1/2) divergence-free;
//   - the air band's projection (air_band_projection.hpp) the air within a few cells of the
//     liquid and of any cell that holds some (a film or drop thinner than half a cell), after
//     the velocity extension has filled it with averages, which have a divergence;
//   - an air pocket that reaches no air beyond that band (a bubble the liquid closed in) is
//     made liquid in phi before the projection, so that the bubble keeps its volume: with the
//     level set's p = 0 in it, it collapses, and what flows into a collapsing cell overfills it.
// So c = 1 exactly where f > 1/2, as in Weymouth & Yue. Measured by
// tests/validation/liquid_volume (docs/validation.md has the table; 1 and 4 ranks, whole runs): the
// volume of dam_break_2d.yaml kept to 1.3e-9 %, of dam_break_3d.yaml to 8.5e-9 %, of
// sloshing_2d.yaml to 1e-8 %, of drop_into_pool_3d.yaml to 1.5e-5 % (1.5e-7 of it clipped),
// of paddle_3d.yaml (a paddle swinging through the water; "Bodies" above) to 1.4e-8 %;
// with the level set and its particles 18 %, 5.4 %, 0.3 %, 2.3 % and 3.1 % on one rank. The
// ways that did not keep it, on dam_break_2d.yaml with 2 ranks: the air made
// divergence-free layer by layer out from the liquid (each cell through its outward faces,
// Foster & Metaxas' surface cells) left wedges of air under the running front that no outward
// face could fix, -0.20 %; a pocket's divergence spread evenly over it, -0.009 %, or put in
// its deepest cells, -0.02 %, both by clipping; c = 0 where |div u| dt > 1e-9 instead of the
// band about the thin films, 5e-6 of the volume clipped.
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
  /// divergence-free where f > 1/2; `step` (steps done) picks the sweeps' order; phi (local,
  /// ghosts current, or null) is the surface at the start of the step, which keep_bounds()
  /// climbs. Fills f's ghosts as it needs. Collective.
  PetscErrorCode advect(Field& fraction, const Field& velocity, const Field* phi, double dt,
                        PetscInt step, FractionStats* stats);

  /// Brings f back into [0, 1] as the end of advect() does: what a cell holds above 1, and then
  /// what it lacks below 0, goes to its face neighbours (fluid or a moving body's cells, in
  /// the domain; "Bodies" above) in proportion to their room (1 - f, or f), a neighbour's room
  /// shared among the cells beside it that spill so that none leaves its bounds (a local
  /// redistribution, as volume-tracking codes remove the split scheme's small overshoots).
  /// What the neighbours have no room for goes on to the open fluid neighbours up phi's slope
  /// towards the surface (towards the liquid for what a cell lacks; equal shares where phi is
  /// flat or null), for them to place at the next pass, in up to 64 passes; what cannot be
  /// placed is clipped: *clipped gets its volume, all ranks. Each cell's new value is summed in
  /// a fixed order from values in the halo (grid.halo >= 2): the same bits on any rank count.
  /// Collective.
  PetscErrorCode keep_bounds(Field& fraction, const Field* phi, double* clipped);

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

  /// The liquid's volume (area in 2D): sum of f V_cell over all cells, a moving body's cells
  /// holding the liquid of the part of them it has not reached ("Bodies" above). Collective.
  PetscErrorCode volume(const Field& fraction, double* volume) const;

private:
  /// The plane of every cell of `box` (local indices) with 0 < f < 1, from f's local array.
  void reconstruct(const ConstArrayView& f, const IndexBox& box);
  /// One sweep along `axis` over dt (f may leave [0, 1] until the step's last sweep).
  PetscErrorCode sweep(Field& fraction, const Field& velocity, int axis, double dt);
  /// One pass of keep_bounds(): what each cell holds above 1 (`above`) or lacks below 0 to its
  /// face neighbours.
  PetscErrorCode redistribute(Field& fraction, const Field* phi, bool above);

  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  LiquidConfig config_;
  IndexBox planes_box_;         // the cells planes_ covers
  std::vector<double> planes_;  // m (3) and alpha per cell of planes_box_, x fastest
  std::vector<unsigned char> centre_liquid_;  // c per owned cell for the current sub-step
  std::vector<double> surface_distance_;         // per owned cell, from impose_surface()
  std::vector<double> swept_, fluxes_;           // s and F per face of the current sweep
  Field offer_;  // keep_bounds(): what a cell offers each neighbour that spills
};

}  // namespace sf
