// The halo exchange with MPI's neighbourhood collectives: the datatypes and the graph are built in
// setup(), each exchange is one MPI_Neighbor_alltoallw.
#include "halo_exchange.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace sf {

struct HaloExchange::State {
  int dim = 0;
  PetscInt dof = 1;
  std::array<PetscInt, 3> lo{}, hi{};    // owned entries, per axis [lo, hi)
  std::array<PetscInt, 3> glo{}, ghi{};  // entries of a local vector, halo included
  // One MPI_Neighbor_alltoallw on a graph of the neighbours, its arguments prepared once so an
  // exchange allocates nothing. Slot j sends the owned slab beside direction d_j to the
  // neighbour there and receives the ghost slab on side -d_j from the neighbour there.
  MPI_Comm graph = MPI_COMM_NULL;
  std::vector<int> counts;              // 1 per neighbour, sources and destinations alike
  std::vector<MPI_Aint> displacements;  // 0: the datatypes carry the offsets
  std::vector<MPI_Datatype> send_types, receive_types;

  ~State() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (auto* types : {&send_types, &receive_types})
      for (MPI_Datatype& type : *types) MPI_Type_free(&type);
    if (graph != MPI_COMM_NULL) MPI_Comm_free(&graph);
  }

  /// The subarray of a local vector's array covering the entries [from, to) per axis.
  PetscErrorCode slab(const std::array<PetscInt, 3>& from, const std::array<PetscInt, 3>& to,
                      MPI_Datatype* type) const {
    PetscFunctionBeginUser;
    // C order, z slowest; the components are interleaved, so x counts dof entries per point.
    int sizes[3], subsizes[3], starts[3];
    for (int a = 0; a < 3; ++a) {
      const PetscInt scale = a == 0 ? dof : 1;
      sizes[2 - a] = static_cast<int>((ghi[a] - glo[a]) * scale);
      subsizes[2 - a] = static_cast<int>((to[a] - from[a]) * scale);
      starts[2 - a] = static_cast<int>((from[a] - glo[a]) * scale);
    }
    PetscCallMPI(
        MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPIU_SCALAR, type));
    PetscCallMPI(MPI_Type_commit(type));
    PetscFunctionReturn(0);
  }
};

HaloExchange::HaloExchange() = default;
HaloExchange::~HaloExchange() = default;
HaloExchange::HaloExchange(HaloExchange&&) noexcept = default;
HaloExchange& HaloExchange::operator=(HaloExchange&&) noexcept = default;

PetscErrorCode HaloExchange::setup(DM dm, int width, HaloShape shape) {
  PetscFunctionBeginUser;
  auto state = std::make_unique<State>();
  State& s = *state;
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(dm));
  PetscInt dim = 0, stencil_width = 0;
  std::array<PetscInt, 3> cells{1, 1, 1}, processes{1, 1, 1}, start{}, size{}, gstart{}, gsize{};
  DMBoundaryType bt[3];
  PetscCall(DMDAGetInfo(dm, &dim, &cells[0], &cells[1], &cells[2], &processes[0], &processes[1],
                        &processes[2], &s.dof, &stencil_width, &bt[0], &bt[1], &bt[2], nullptr));
  PetscCheck(width >= 0 && width <= stencil_width, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "a halo of %d layers from a DMDA of stencil width %" PetscInt_FMT, width,
             stencil_width);
  PetscCall(DMDAGetCorners(dm, &start[0], &start[1], &start[2], &size[0], &size[1], &size[2]));
  PetscCall(DMDAGetGhostCorners(dm, &gstart[0], &gstart[1], &gstart[2], &gsize[0], &gsize[1],
                                &gsize[2]));
  s.dim = static_cast<int>(dim);
  std::array<bool, 3> periodic{false, false, false};
  for (int a = 0; a < 3; ++a) {
    const bool used = a < s.dim;
    periodic[a] = used && bt[a] == DM_BOUNDARY_PERIODIC;
    s.lo[a] = used ? start[a] : 0;
    s.hi[a] = used ? start[a] + size[a] : 1;
    s.glo[a] = used ? gstart[a] : 0;
    s.ghi[a] = used ? gstart[a] + gsize[a] : 1;
  }

  // The DMDA numbers its ranks x fastest over the process grid.
  PetscMPIInt rank = 0;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  const std::array<PetscInt, 3> coords{rank % processes[0],
                                       (rank / processes[0]) % processes[1],
                                       rank / (processes[0] * processes[1])};
  // The rank in direction d (each component -1, 0 or 1), or -1 where a non-periodic domain ends.
  auto neighbour = [&](const std::array<int, 3>& d) {
    std::array<PetscInt, 3> at = coords;
    for (int a = 0; a < 3; ++a) {
      at[a] += d[a];
      if (!periodic[a] && (at[a] < 0 || at[a] >= processes[a])) return -1;
      at[a] = (at[a] + processes[a]) % processes[a];
    }
    return static_cast<int>(at[0] + processes[0] * (at[1] + processes[1] * at[2]));
  };
  // The owned slab beside direction d (what the neighbour there receives), or the ghost slab on
  // side d (what this rank receives from it): per axis `width` layers where d is not 0, the
  // owned range where it is.
  auto slab = [&](const std::array<int, 3>& d, bool ghost, MPI_Datatype* type) {
    std::array<PetscInt, 3> from = s.lo, to = s.hi;
    for (int a = 0; a < s.dim; ++a) {
      if (d[a] < 0) {
        from[a] = ghost ? s.lo[a] - width : s.lo[a];
        to[a] = from[a] + width;
      } else if (d[a] > 0) {
        from[a] = ghost ? s.hi[a] : s.hi[a] - width;
        to[a] = from[a] + width;
      }
    }
    return s.slab(from, to, type);
  };

  // Every direction to a face (star) or to a face, an edge or a corner (box), in one order. Slot
  // j's destination is the neighbour in direction d_j and its source the neighbour in -d_j:
  // the k-th message a rank sends to a neighbour then meets that neighbour's k-th receive from
  // it, even where one rank is the neighbour in several directions (a periodic axis of one or
  // two ranks), since MPI matches the messages between two ranks in order.
  std::vector<int> sources, destinations;
  if (width > 0)
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::array<int, 3> d{dx, dy, dz}, opposite{-dx, -dy, -dz};
          const int reach = std::abs(dx) + std::abs(dy) + std::abs(dz);
          bool within = reach > 0 && (shape == HaloShape::Box || reach == 1);
          for (int a = s.dim; a < 3; ++a) within = within && d[a] == 0;
          if (!within) continue;
          const int to = neighbour(d), from = neighbour(opposite);
          if (to >= 0) {
            destinations.push_back(to);
            s.send_types.push_back(MPI_DATATYPE_NULL);
            PetscCall(slab(d, false, &s.send_types.back()));
          }
          if (from >= 0) {
            sources.push_back(from);
            s.receive_types.push_back(MPI_DATATYPE_NULL);
            PetscCall(slab(opposite, true, &s.receive_types.back()));
          }
        }
  PetscCallMPI(MPI_Dist_graph_create_adjacent(
      comm, static_cast<int>(sources.size()), sources.data(), MPI_UNWEIGHTED,
      static_cast<int>(destinations.size()), destinations.data(), MPI_UNWEIGHTED, MPI_INFO_NULL,
      0, &s.graph));
  s.counts.assign(std::max(sources.size(), destinations.size()), 1);
  s.displacements.assign(s.counts.size(), 0);
  state_ = std::move(state);
  PetscFunctionReturn(0);
}

PetscErrorCode HaloExchange::exchange(PetscScalar* local) const {
  PetscFunctionBeginUser;
  // The call reads the owned slabs and writes the ghost slabs of the same array: disjoint.
  const State& s = *state_;
  PetscCallMPI(MPI_Neighbor_alltoallw(local, s.counts.data(), s.displacements.data(),
                                      s.send_types.data(), local, s.counts.data(),
                                      s.displacements.data(), s.receive_types.data(), s.graph));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloExchange::global_to_local(Vec global, Vec local) const {
  PetscFunctionBeginUser;
  const State& s = *state_;
  const PetscScalar* owned = nullptr;
  PetscScalar* ghosted = nullptr;
  PetscCall(VecGetArrayRead(global, &owned));
  PetscCall(VecGetArray(local, &ghosted));
  const PetscInt row = (s.hi[0] - s.lo[0]) * s.dof;
  const PetscInt ghost_row = (s.ghi[0] - s.glo[0]) * s.dof;
  const PetscInt ghost_rows = s.ghi[1] - s.glo[1];
  const PetscScalar* from = owned;
  for (PetscInt k = s.lo[2]; k < s.hi[2]; ++k)
    for (PetscInt j = s.lo[1]; j < s.hi[1]; ++j) {
      PetscScalar* to = ghosted + ((k - s.glo[2]) * ghost_rows + (j - s.glo[1])) * ghost_row +
                        (s.lo[0] - s.glo[0]) * s.dof;
      std::memcpy(to, from, static_cast<size_t>(row) * sizeof(PetscScalar));
      from += row;
    }
  PetscCall(VecRestoreArrayRead(global, &owned));
  PetscCall(exchange(ghosted));
  PetscCall(VecRestoreArray(local, &ghosted));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloExchange::fill_halo(Vec local) const {
  PetscFunctionBeginUser;
  PetscScalar* ghosted = nullptr;
  PetscCall(VecGetArray(local, &ghosted));
  PetscCall(exchange(ghosted));
  PetscCall(VecRestoreArray(local, &ghosted));
  PetscFunctionReturn(0);
}

}  // namespace sf
