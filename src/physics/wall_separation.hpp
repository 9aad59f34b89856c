// A liquid leaving a wall of the domain: what the level set's advection sees behind the wall.
//
// A wall pushes on a liquid but cannot pull: where holding the liquid against a wall would take
// a pressure below the air's, the liquid separates and air enters between them (the unilateral
// contact of Chentanez & Mueller 2012, "A multigrid fluid pressure solver handling separating
// solid boundary conditions"). The free-surface projection finds those walls by an active set
// (free_surface_projection.hpp) and leaves on each wall's face the velocity the liquid leaves
// it at (0 on the walls it holds to; the velocity's walls are `stored` ghost rules, Field::
// let_liquid_leave_walls), so the trace carries the liquid away from the wall.
//
// The level set's ghosts behind a wall are zero-gradient: the liquid seems to go on behind it,
// and a trace that ends near the wall brings liquid back in (a film that runs up a wall and
// along the ceiling then stays there for ever, 64^2 dam break +49 % volume by t = 1). So before
// the advection, behind each wall face whose velocity points away from the wall next to a
// liquid cell, the wall is a surface: the cell's phi_c is held at max(phi_c, -h/2) (no deeper
// than the wall is far; in the global vector, before the ghosts are exchanged), and the l-th
// ghost cell outwards gets phi = max((l - 1/2) h, phi_c + l h): air, the surface on the wall where the liquid has just left
// it, and where a gap has opened already the distance continued across it (a slab falling from
// a ceiling keeps its gap growing at the speed it falls). Only ghosts beyond the domain change,
// in phi's local vector, and only the rank at the wall holds those (traces that reach them from
// another rank are answered there); the
// halo cells along the wall are decided from the velocity's halo, so every rank sees the same
// ghosts and the trace keeps its bits on any rank count.
#pragma once

#include "field.hpp"
#include "solids.hpp"

namespace sf {

/// The cells next to a wall the liquid leaves hold the surface on the wall: phi = max(phi,
/// -h/2) in the owned cells (the liquid is no deeper there than the wall is far), from the
/// wall faces' velocity in the global vector. Call before phi.fill_ghosts(), so that every rank
/// holding the cell in its halo sees the same value.
PetscErrorCode hold_surfaces_at_leaving_walls(const Field& velocity, Field& phi,
                                              const SolidMask& solids);

/// See the top. Call after fill_ghosts() of both fields, before the advection.
PetscErrorCode open_separating_walls(const Field& velocity, Field& phi, const SolidMask& solids);

}  // namespace sf
