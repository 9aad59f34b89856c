// A height-field surface (Foster & Metaxas 1996, §4.3; liquid.surface: height_field): for water
// whose surface is single valued over the ground (a lake, a harbour, the sea without breaking
// waves), the surface is a height h(x, z) over each vertical column of cells instead of a level
// set that must be reinitialised and corrected by marker particles. y is up (gravity along -y).
//
// The coupling with the 3-D solver. The 3-D velocity drives the height; Foster and Metaxas
// write it as the surface's kinematic condition, dh/dt = w - u dh/dx - v dh/dz (their eq. 11,
// with their y and z swapped). Integrated over the water column with Leibniz's rule and div u =
// 0 this is the same as
//
//   dh/dt = -d(Q_x)/dx - d(Q_z)/dz,   Q = integral of the horizontal velocity from the floor to h,
//
// the form used here, because it keeps the water's volume to rounding: on each vertical face
// between two columns, Q is the sum over the face's cells of u A f, f = clamp((h_f - y_lo) /
// dy, 0, 1) the part of the cell below the surface h_f (the two columns' mean), and a column's
// height changes by what flows in through its faces over dt. The 3-D solver sees the height as
// the level set phi = y - h (a vertical distance, exact for the projection's surface along y):
// its cells below the surface are the liquid's (Foster and Metaxas's Full cells), the cell the
// surface crosses gets the ghost-fluid surface of the free-surface projection, the cells above
// are air (Empty). Each step, after the projection and the velocity's extension into the air,
// every cell of a column moves phi by -dh; phi is the state (what frames and checkpoints keep),
// so a restart goes on bit for bit.
//
// In parallel, the sums over a face's cells are reduced over the ranks that share the column
// (a communicator per column of the process grid); every rank of a column applies the same dh.
// Cost per step: one pass over the faces, one reduction of the faces' sums over the column's
// ranks and one of two numbers over all (the check below); no reinitialisation, no particles.
//
// At the start each column's height is the liquid of the job's `initial` regions in it, counted
// from the floor up: liquid in several layers (a drop above a pool) is joined into one. The
// walls of the domain stay closed (the projection does not open them: a column cannot leave a
// wall), and water must cover the floor and stay under the top (the run stops otherwise,
// exit status 1). Moving obstacles (they would have to move the height with the water they
// displace), liquid sources and sinks are refused by the parser.
#pragma once

#include <mpi.h>

#include "field.hpp"
#include "solids.hpp"

namespace sf {

class HeightField {
public:
  HeightField() = default;
  ~HeightField();
  HeightField(const HeightField&) = delete;
  HeightField& operator=(const HeightField&) = delete;

  /// Splits the grid's communicator into the ranks that share each column. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids);

  /// Makes `phi` (a level set of the liquid at the start) the height field of the liquid it
  /// holds: each column's height is its liquid counted from the floor, phi = y - h. Collective.
  PetscErrorCode initialise(Field& phi) const;

  /// Moves the surface over dt with the velocity (see the top). Fills the ghosts of both.
  /// Collective.
  PetscErrorCode advance(Field& velocity, Field& phi, double dt) const;

private:
  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  MPI_Comm column_comm_ = MPI_COMM_NULL;  // the ranks that share this rank's columns
};

}  // namespace sf
