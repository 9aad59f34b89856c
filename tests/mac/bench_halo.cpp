// The halo exchange (src/mac/halo_exchange.hpp) against PETSc's DMGlobalToLocal on the fields
// the solver exchanges: the velocity (dof 3, halo 3, box), a scalar (dof 1, halo 3, box) and the
// pressure (dof 1, halo 1, star). Prints, per case, the median milliseconds of an exchange each
// way (with the spread over the repeats) and the memory each one's first exchange added, in bytes
// per cell: DMGlobalToLocal builds its star forest then (PETSc's malloc counters, exact), the
// neighbour exchange its datatypes and graphs (the process's resident set, which also counts what
// MPI allocates; 0 when freed memory was reused).
//
//   mpiexec -n 2 build/tests/bench_halo [-cells 128,256,128] [-repeats 10]
//
// The results must agree bit for bit, or the program fails (status 1).
#include <petscdmda.h>

#include <cstdio>
#include <cstring>

#include "../bench/bench_util.hpp"
#include "halo_exchange.hpp"

namespace {

struct Case {
  const char* name;
  PetscInt dof;
  PetscInt width;
  sf::HaloShape shape;
};

/// The process's resident set (`resident`) or what PETSc has allocated and not freed (needs
/// -malloc_debug), in bytes, on the rank with the most.
PetscErrorCode memory(MPI_Comm comm, bool resident, double* bytes) {
  PetscFunctionBeginUser;
  PetscLogDouble mine = 0.0;
  if (resident)
    PetscCall(PetscMemoryGetCurrentUsage(&mine));
  else
    PetscCall(PetscMallocGetCurrentUsage(&mine));
  double value = mine;
  PetscCallMPI(MPI_Allreduce(&value, bytes, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(0);
}

PetscErrorCode run(MPI_Comm comm, const PetscInt cells[3], const Case& c, int repeats,
                   bool* agree) {
  PetscFunctionBeginUser;
  const DMDAStencilType stencil =
      c.shape == sf::HaloShape::Box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR;
  DM dm;
  PetscCall(DMDACreate3d(comm, DM_BOUNDARY_GHOSTED, DM_BOUNDARY_GHOSTED, DM_BOUNDARY_GHOSTED,
                         stencil, cells[0], cells[1], cells[2], PETSC_DECIDE, PETSC_DECIDE,
                         PETSC_DECIDE, c.dof, c.width, nullptr, nullptr, nullptr, &dm));
  PetscCall(DMSetUp(dm));
  Vec global, by_petsc, by_neighbours;
  PetscCall(DMCreateGlobalVector(dm, &global));
  PetscCall(DMCreateLocalVector(dm, &by_petsc));
  PetscCall(DMCreateLocalVector(dm, &by_neighbours));
  PetscCall(VecSetRandom(global, nullptr));
  PetscCall(VecSet(by_petsc, 0.0));
  PetscCall(VecSet(by_neighbours, 0.0));
  PetscInt owned = 0;
  PetscCall(VecGetLocalSize(global, &owned));
  const double cells_per_rank = static_cast<double>(owned / c.dof);

  // Memory first, each way's first exchange on a DM that has not been exchanged yet.
  double before = 0.0, after = 0.0;
  PetscCall(memory(comm, true, &before));
  sf::HaloExchange exchange;
  PetscCall(exchange.setup(dm, static_cast<int>(c.width), c.shape));
  PetscCall(exchange.global_to_local(global, by_neighbours));
  PetscCall(memory(comm, true, &after));
  const double neighbour_bytes = (after - before) / cells_per_rank;
  PetscCall(memory(comm, false, &before));
  PetscCall(DMGlobalToLocal(dm, global, INSERT_VALUES, by_petsc));
  PetscCall(memory(comm, false, &after));
  const double petsc_bytes = (after - before) / cells_per_rank;

  std::vector<double> petsc_ms, neighbour_ms;
  for (int r = 0; r < repeats; ++r) {
    double start = 0.0, end = 0.0;
    PetscCall(sf::bench::now(comm, &start));
    PetscCall(DMGlobalToLocal(dm, global, INSERT_VALUES, by_petsc));
    PetscCall(sf::bench::now(comm, &end));
    petsc_ms.push_back(1e3 * (end - start));
    PetscCall(sf::bench::now(comm, &start));
    PetscCall(exchange.global_to_local(global, by_neighbours));
    PetscCall(sf::bench::now(comm, &end));
    neighbour_ms.push_back(1e3 * (end - start));
  }

  // DM_BOUNDARY_GHOSTED leaves the ghosts outside the domain alone in both: all entries compare.
  const PetscScalar *a = nullptr, *b = nullptr;
  PetscInt n = 0;
  PetscCall(VecGetLocalSize(by_petsc, &n));
  PetscCall(VecGetArrayRead(by_petsc, &a));
  PetscCall(VecGetArrayRead(by_neighbours, &b));
  int same = std::memcmp(a, b, static_cast<size_t>(n) * sizeof(PetscScalar)) == 0, all = 0;
  PetscCall(VecRestoreArrayRead(by_neighbours, &b));
  PetscCall(VecRestoreArrayRead(by_petsc, &a));
  PetscCallMPI(MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, comm));
  *agree = *agree && all;

  const sf::bench::Spread p = sf::bench::spread(petsc_ms), m = sf::bench::spread(neighbour_ms);
  PetscCall(PetscPrintf(comm,
                        "%-9s %8.3f [%.3f-%.3f] %8.3f [%.3f-%.3f] %9.2f %9.2f  %s\n", c.name,
                        p.median, p.min, p.max, m.median, m.min, m.max, petsc_bytes,
                        neighbour_bytes, all ? "identical" : "DIFFERENT"));
  PetscCall(VecDestroy(&by_neighbours));
  PetscCall(VecDestroy(&by_petsc));
  PetscCall(VecDestroy(&global));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

}  // namespace

int main(int argc, char** argv) {
  // PETSc counts what it allocates only with its debugging malloc; nothing timed allocates.
  if (PetscOptionsSetValue(nullptr, "-malloc_debug", "true") != 0) return 1;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  MPI_Comm comm = PETSC_COMM_WORLD;
  PetscInt cells[3] = {128, 256, 128}, count = 3, repeats = 10;
  PetscCall(PetscOptionsGetIntArray(nullptr, nullptr, "-cells", cells, &count, nullptr));
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-repeats", &repeats, nullptr));
  PetscMPIInt size = 1;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscPrintf(comm,
                        "# halo exchange, %d x %d x %d cells on %d rank(s), %d repeats: median "
                        "ms [min-max]; bytes per cell the first exchange added (PETSc: its malloc counters; "
                        "neighbour: resident set)\n"
                        "%-9s %26s %26s %9s %9s\n",
                        static_cast<int>(cells[0]), static_cast<int>(cells[1]),
                        static_cast<int>(cells[2]), size, static_cast<int>(repeats), "# field",
                        "DMGlobalToLocal ms", "neighbour ms", "PETSc B", "neigh. B"));
  const Case cases[] = {{"velocity", 3, 3, sf::HaloShape::Box},
                        {"scalar", 1, 3, sf::HaloShape::Box},
                        {"pressure", 1, 1, sf::HaloShape::Star}};
  bool agree = true;
  for (const Case& c : cases) PetscCall(run(comm, cells, c, static_cast<int>(repeats), &agree));
  PetscCall(PetscFinalize());
  return agree ? 0 : 1;
}
