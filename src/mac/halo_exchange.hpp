// The halo exchange of a DMDA's local vectors, done with MPI's neighbourhood collectives.
//
// PETSc's DMGlobalToLocal keeps, for every DMDA it has exchanged, a star forest with an index per
// ghosted entry: about 13 bytes per cell, whatever the dof (measured with PetscMalloc's counters
// on 128^3 cells per rank, dof 1 and 3, halo 1 and 3). A solver holding several full-size DMDAs
// pays that for each. This exchange describes each slab of the halo with an MPI subarray
// datatype, built once from the DMDA's corners, so its memory does not grow with the grid, and
// it fills exactly the entries DMGlobalToLocal fills with the same values (tests/mac/
// test_halo_exchange.cpp checks this bit for bit, 2D and 3D, periodic and bounded, 1 to 4 ranks).
// Measured on 128 x 256 x 128 cells over 2 ranks of the development machine (median of 10, each
// against DMGlobalToLocal): 4.26 against 4.63 ms for the velocity (dof 3, halo 3, box), 1.78
// against 1.80 ms for a scalar (halo 3, box), 1.51 against 1.52 ms for a pressure (halo 1,
// star); the process grew by 0.2 bytes per cell for the first against PETSc's 13.4. The
// benchmark tests/mac/bench_halo.cpp prints these.
//
// Each exchange is one MPI_Neighbor_alltoallw on a distributed graph of the neighbours: the
// ranks beside the faces of the owned box (star), or beside its faces, edges and corners (box),
// each sent its own slab, as DMGlobalToLocal sends them; none across a domain boundary. Slot j
// of the graph sends in direction d_j and receives from direction -d_j, so a rank's k-th message
// to a neighbour meets that neighbour's k-th receive from it even where one rank is the
// neighbour in several directions (a periodic axis of one or two ranks), since MPI matches the
// messages between two ranks in order. A Cartesian communicator lists each neighbour by (lower,
// upper) for sending and receiving alike, which cannot tell those slabs apart, and it has no
// edges or corners. (A box exchanged one axis at a time, the later axes' slabs carrying the
// edges, needs 6 messages instead of up to 26 but three rounds; it measured no faster here, on 2
// to 4 ranks of 2 cores.)
#pragma once

#include <petscdmda.h>

#include <array>
#include <memory>

namespace sf {

enum class HaloShape {
  Box,   // every ghost entry within `width` of the owned box: edges and corners too
  Star,  // only the ghost entries beside a face of the owned box (a 2 dim + 1 point stencil)
};

class HaloExchange {
public:
  HaloExchange();
  ~HaloExchange();
  HaloExchange(HaloExchange&&) noexcept;
  HaloExchange& operator=(HaloExchange&&) noexcept;

  /// Describes the exchange of `width` ghost layers of `dm`'s local vectors, `width` at most the
  /// DMDA's stencil width. Collective on the DMDA's communicator.
  PetscErrorCode setup(DM dm, int width, HaloShape shape);

  /// Copies the owned entries of `global` into `local` and fills the halo from the neighbours:
  /// what DMGlobalToLocal with INSERT_VALUES leaves in `local` (ghosts outside a non-periodic
  /// domain are untouched). Collective.
  PetscErrorCode global_to_local(Vec global, Vec local) const;

  /// Fills the halo of `local`, whose owned entries are current, in place. Collective.
  PetscErrorCode fill_halo(Vec local) const;

private:
  struct State;
  PetscErrorCode exchange(PetscScalar* local) const;
  std::unique_ptr<State> state_;
};

}  // namespace sf
