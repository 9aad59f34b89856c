// The liquid's surface as a level set (Osher & Sethian 1988; Foster & Fedkiw 2001; Cline et
// al. §10.7): phi at cell centres, negative in the liquid, the signed distance to the surface
// within a band of `band` cells about it and held at +-band h beyond (h the smallest spacing).
//
// Initial   phi = the signed distance to the union of the job's regions (cut_faces.hpp: exact
//           outside the union and inside a single region; inside overlapping regions the
//           nearest one's, which the first reinitialisation corrects).
// Advected  with the scalars, in the same semi-Lagrangian trace (Simulation).
// Reinitialised (Sussman, Smereka & Osher 1994) every `reinitialise_every` steps: pseudo-time
//           iterations of phi_tau + S(phi0) (|grad phi| - 1) = 0 from phi0, the advected phi,
//           S(phi0) = phi0 / sqrt(phi0^2 + h^2), forward Euler with dtau = 0.45 h / dim (the
//           Hamilton-Jacobi CFL limit is h / dim):
//             away from the surface, Godunov's upwind |grad phi| (Rouy & Tourin 1992): per axis
//               max(max(D-, 0)^2, min(D+, 0)^2) where phi0 > 0, max(min(D-, 0)^2, max(D+, 0)^2)
//               where phi0 < 0, with the one-sided differences D-, D+ made second order by
//               ENO (D- += h/2 minmod(D2(i-1), D2(i)), D+ -= h/2 minmod(D2(i), D2(i+1)), D2 the
//               second differences; Osher & Shu 1991) when the halo is 2 or more, first order
//               with a halo of 1, and first order too wherever the correction would be larger
//               than the difference it corrects (phi0 not smooth on the scale of a cell: there
//               the correction took cells in the air across zero, and made liquid);
//             in the cells next to the surface (phi0 changes sign towards a neighbour), Russo &
//               Smereka's (2000) subcell fix, which keeps the surface where phi0 has it:
//               phi <- phi - dtau / h (sign(phi0) |phi| - d), d = phi0 / |grad phi0|, with
//               |grad phi0| from central differences (Russo & Smereka take the largest of the
//               central and one-sided ones, robust at kinks but biased by O(h) at a curved
//               surface: a disc reinitialised every step then grew by 9 % over 80 steps);
//               next to a wall whose ghost mirrors the cell, the one-sided difference into the
//               domain; |d| at most the distance to where phi0 crosses zero along an axis (in
//               a sheet a cell thick the central differences vanish and d would be unbounded).
//           Measured (tests/physics/test_level_set.cpp): a disc carried round a periodic box
//           with monotone cubic interpolation and reinitialised every step returns with its
//           surface error falling at second order and its volume kept to 0.07 % on 32^2 cells.
//           ceil(band h / dtau) + 1 iterations carry the distance across the band. Only the
//           cells of the band (|phi0| < band h, listed once per reinitialisation) are
//           updated, so each iteration costs the surface's cells plus one halo exchange.
// Obstacles phi inside an obstacle is not the liquid's to carry: it is the mean of the nearest
//           fluid cells along the axes (constant extension along the obstacle's normal, as the
//           ghosts behind a wall mirror the cell next to it; across an obstacle one or two
//           cells thick the two sides' values are averaged), set before the advection and the
//           first particle correction read it (extend_into_solids), so that the surface meets
//           an obstacle at a right angle and the advection's stencils read the liquid's own
//           values; the reinitialisation reads an obstacle's cells as mirrors of the fluid
//           beside them and leaves them alone.
//           Before, the cells of an obstacle were advected and reinitialised as if fluid: once
//           water lay against the block of dam_break_3d, the distance ran through the block and
//           liquid appeared on its far side, and the block's own cells counted as liquid.
// Inflow    Beyond an inflow face that carries liquid (boundary ... liquid: regions), phi's
//           ghosts are the distance to the union of those regions, so the advection's trace
//           brings the liquid in where the regions cross the face (Foster & Metaxas' inflow);
//           elsewhere on the face (and on every other side) the ghosts are zero-gradient.
// Volume    V = sum over fluid cells of H(-phi) V_cell, H the smeared Heaviside of half-width
//           1.5 h (Sussman et al. 1994): the measure the liquid's conservation is judged by.
#pragma once

#include <functional>
#include <vector>

#include "field.hpp"
#include "job.hpp"
#include "solids.hpp"

namespace sf {

struct ReinitialiseStats {
  int iterations = 0;      // pseudo-time iterations
  PetscInt band_cells = 0; // cells updated per iteration, over all ranks
};

class LevelSet {
public:
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const LiquidConfig& config);

  /// phi = the signed distance to the job's initial liquid, held within the band. Owned cells.
  PetscErrorCode initialise(Field& phi) const;

  /// The distance to the surface of an owned cell next to it, where something other than phi
  /// knows it (the volume fraction's planes); NaN: from phi (Russo & Smereka).
  using SurfaceDistance = std::function<double(PetscInt i, PetscInt j, PetscInt k)>;

  /// Makes phi a signed distance again within the band, keeping its zero level (see the top);
  /// the cells next to the surface are held at `surface`'s distance where it gives one. Fills
  /// phi's ghosts itself. Collective.
  PetscErrorCode reinitialise(Field& phi, ReinitialiseStats* stats,
                              const SurfaceDistance& surface = nullptr);

  /// From now on the reinitialisation sees air behind the walls the liquid leaves, as the
  /// advection does (wall_separation.hpp): `velocity` holds on its wall faces the speed the
  /// liquid leaves them at, and its local vector must be current when reinitialise() runs.
  void separate_at_walls(const Field& velocity) { wall_velocity_ = &velocity; }

  /// What phi.fill_ghosts() leaves to the level set, after it: phi extended into the obstacles
  /// (extend_into_solids(), exchanging again) if `into_solids`, the inflow faces' ghosts, and
  /// air behind the walls the liquid leaves (separate_at_walls()). Collective.
  PetscErrorCode complete_ghosts(Field& phi, bool into_solids = true) const;

  /// Sets phi in the owned cells of the obstacles that lie within the halo of a fluid cell to
  /// the mean of the nearest fluid cells along the axes, from phi's local vector (current), and
  /// exchanges phi again; nothing without obstacles. Collective.
  PetscErrorCode extend_into_solids(Field& phi) const;

  /// True if `step` (counted from 1) is one after which the surface is reinitialised.
  bool reinitialises_after(PetscInt step) const { return step % config_.reinitialise_every == 0; }

  /// phi.fill_ghosts(), with the surface held on the walls the liquid leaves and air behind
  /// them (separate_at_walls()), and phi extended into the obstacles (extend_into_solids()).
  /// Collective.
  PetscErrorCode fill_ghosts(Field& phi) const;

  /// The liquid's volume (area in 2D), from the owned values of phi in the fluid cells.
  /// Collective.
  PetscErrorCode volume(const Field& phi, double* volume) const;

  /// The smeared Heaviside of -phi: the liquid fraction a cell shows, 1 deep in the liquid.
  double liquid_fraction(double phi) const;

  /// Pseudo-time iterations of one reinitialisation.
  int iterations() const;

  /// The half-width of the band, in length units.
  double band_width() const { return band_width_; }

private:
  /// An owned cell of the band, and what its update needs of phi0.
  struct BandCell {
    PetscInt i, j, k;
    PetscInt local;  // its offset in the local (ghosted) array
    double sign;     // S(phi0) = phi0 / sqrt(phi0^2 + h^2)
    double surface;  // next to the surface: phi0 / |grad phi0| (Russo-Smereka); else NaN
    unsigned solid_neighbours;  // bit 4 a + n: the cell at kOffsets[n] along axis a is solid
  };

  /// fill_ghosts(), extending phi into the obstacles only if `into_solids`.
  PetscErrorCode exchange(Field& phi, bool into_solids) const;


  /// Beyond an inflow face that carries liquid (FaceBoundary::liquid), phi's ghosts in the local
  /// vector are the distance to the liquid's regions, held within the band.
  PetscErrorCode fill_inflow_ghosts(Field& phi) const;

  /// The pseudo-time step, kPseudoCfl h / dim.
  double pseudo_step() const;

  const Grid* grid_ = nullptr;
  const Field* wall_velocity_ = nullptr;
  const SolidMask* solids_ = nullptr;
  LiquidConfig config_;
  double h_ = 0.0;           // the smallest spacing
  double band_width_ = 0.0;  // band h
  std::vector<double> initial_;  // phi0 over the local (ghosted) extent, reused
  std::vector<BandCell> band_;   // the owned band cells, reused
};

}  // namespace sf
