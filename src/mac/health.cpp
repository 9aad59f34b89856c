// NaN / Inf detection. See health.hpp for why.
//
// Every sample of the state has a place in one fixed global order: field (as given, pressure
// last), component, then k, j, i over the component's global index range (faces of a staggered
// component include the upper boundary layer of a non-periodic axis). Its position in that order
// is a 64-bit key. Each rank scans its owned values in the same order and stops at its first bad
// one, so its key is its local minimum; one MINLOC reduction over (key, rank) gives every rank the
// global first bad value and its owner. Ranks decode the key into field, component and index
// themselves (the order is known everywhere) and only the value itself is broadcast by the owner.
// A clean state costs one pass over the owned values and that one reduction.
#include "health.hpp"
#include "vec_array.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace sf {

namespace {

using Key = long;  // MPI_LONG_INT pairs a long with an int
static_assert(sizeof(Key) == 8, "sample keys need 64 bits");

constexpr Key kClean = std::numeric_limits<Key>::max();
constexpr Key kLayoutError = -1;  // sorts first, so every rank sees it and fails together

/// Global extent of one component's index range: cells, or faces along the stagger axis.
std::array<Key, 3> component_extent(const Grid& grid, int stagger) {
  std::array<Key, 3> n{1, 1, 1};
  for (int a = 0; a < 3; ++a)
    n[a] = stagger >= 0 ? static_cast<Key>(grid.face_count(stagger, a))
                        : static_cast<Key>(grid.cells(a));
  return n;
}

/// The first value of component c of `view` within `box`, in k, j, i order, that is not finite
/// or exceeds `limit` in magnitude. Returns false if there is none.
bool first_bad(const ConstArrayView& view, const IndexBox& box, int c, double limit,
               std::array<PetscInt, 3>* index) {
  const PetscInt nx = box.size(0);
  const PetscInt dof = view.dof;
  for (PetscInt k = box.lo[2]; k < box.hi[2]; ++k)
    for (PetscInt j = box.lo[1]; j < box.hi[1]; ++j) {
      const PetscScalar* row = &view(box.lo[0], j, k, c);
      for (PetscInt i = 0; i < nx; ++i)
        if (!std::isfinite(row[i * dof]) || std::abs(row[i * dof]) > limit) {
          *index = {box.lo[0] + i, j, k};
          return true;
        }
    }
  return false;
}

/// One component of the state, as the scan and the decoding see it.
struct Block {
  const char* name;
  int component;
  int stagger;
  Key base;                  // key of its first sample
  std::array<Key, 3> extent;  // global index extent
};

/// Scans the components of one global vector (the blocks from *block on, one per component)
/// until the first non-finite value; sets *key and *value for it, or leaves them alone.
PetscErrorCode scan(const Grid& grid, Vec vec, DM dm, const std::vector<Block>& blocks,
                    double limit, size_t* block, Key* key, double* value) {
  PetscFunctionBeginUser;
  ReadArray array;
  PetscCall(array.get_global(dm, vec));
  const ConstArrayView& view = array.view();
  for (PetscInt c = 0; c < view.dof; ++c, ++*block) {
    const Block& b = blocks[*block];
    const IndexBox box = b.stagger >= 0 ? grid.owned_faces(b.stagger) : grid.owned_cells();
    std::array<PetscInt, 3> index{0, 0, 0};
    if (first_bad(view, box, static_cast<int>(c), limit, &index)) {
      *key = b.base + (index[2] * b.extent[1] + index[1]) * b.extent[0] + index[0];
      *value = view(index[0], index[1], index[2], c);
      break;
    }
  }
  PetscFunctionReturn(0);
}

}  // namespace

PetscErrorCode find_bad_value(const Grid& grid, const std::vector<const Field*>& fields,
                              Vec pressure, bool* found, BadValue* bad, double limit) {
  PetscFunctionBeginUser;
  // The global order: one block per component of every field, pressure last. Decided from the
  // arguments alone, so identical on every rank.
  std::vector<Block> blocks;
  bool layout_ok = true;
  Key base = 0;
  auto add_block = [&](const char* name, int component, int stagger) {
    const std::array<Key, 3> extent = component_extent(grid, stagger);
    blocks.push_back({name, component, stagger, base, extent});
    base += extent[0] * extent[1] * extent[2];
  };
  for (const Field* field : fields) {
    if (field == nullptr || &field->grid() != &grid) {
      layout_ok = false;
      continue;
    }
    for (int c = 0; c < field->components(); ++c)
      add_block(field->name().c_str(), c, field->stagger(c));
  }
  if (pressure) {
    PetscInt size = 0;
    PetscCall(VecGetLocalSize(pressure, &size));
    if (size != grid.owned_cells().count()) layout_ok = false;
    add_block("pressure", 0, -1);
  }

  // This rank's first bad value in the global order.
  Key local = layout_ok ? kClean : kLayoutError;
  double local_value = 0.0;
  size_t block = 0;
  if (layout_ok) {
    for (const Field* field : fields) {
      if (local != kClean) break;
      PetscCall(scan(grid, field->global(), field->dm(), blocks, limit, &block, &local,
                     &local_value));
    }
    if (pressure && local == kClean)
      PetscCall(scan(grid, pressure, grid.cell_dm(), blocks, limit, &block, &local, &local_value));
  }

  // The global first, and the rank that owns it.
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(grid.comm(), &rank));
  struct {
    long key;
    int rank;
  } mine{local, rank}, first{kClean, 0};
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_LONG_INT, MPI_MINLOC, grid.comm()));
  PetscCheck(first.key != kLayoutError, grid.comm(), PETSC_ERR_ARG_INCOMP,
             "find_bad_value: a field is null or of another grid, or the pressure vector does "
             "not have the cell DM's layout");
  *found = first.key != kClean;
  if (!*found) PetscFunctionReturn(0);

  double value = first.rank == rank ? local_value : 0.0;
  PetscCallMPI(MPI_Bcast(&value, 1, MPI_DOUBLE, first.rank, grid.comm()));

  // Decode the key: the last block whose base does not exceed it.
  size_t b = 0;
  while (b + 1 < blocks.size() && blocks[b + 1].base <= first.key) ++b;
  const Block& where = blocks[b];
  const Key offset = first.key - where.base;
  const std::array<PetscInt, 3> ijk = {
      static_cast<PetscInt>(offset % where.extent[0]),
      static_cast<PetscInt>((offset / where.extent[0]) % where.extent[1]),
      static_cast<PetscInt>(offset / (where.extent[0] * where.extent[1]))};
  bad->field = where.name;
  bad->component = where.component;
  bad->stagger = where.stagger;
  bad->i = ijk[0];
  bad->j = ijk[1];
  bad->k = ijk[2];
  for (int a = 0; a < 3; ++a)
    bad->x[a] = a < grid.dim() ? grid.sample_position(a, ijk[a], where.stagger) : 0.0;
  bad->value = value;
  PetscFunctionReturn(0);
}

PetscErrorCode stop_non_finite_solve(const Grid& grid, const char* solve, const char* symptom,
                                     const Field& input, Vec solution) {
  PetscFunctionBeginUser;
  bool found = false;
  BadValue bad;
  PetscCall(find_bad_value(grid, {&input}, solution, &found, &bad));
  if (found) {
    if (solution && bad.field == "pressure") bad.field = "the solution of the " + std::string(solve);
    SETERRQ(grid.comm(), PETSC_ERR_FP,
            "%s (the %s %s). The run stops here; the newest checkpoint is untouched.",
            describe(bad, grid.dim()).c_str(), solve, symptom);
  }
  PetscReal largest = 0.0;
  PetscCall(VecNorm(input.global(), NORM_INFINITY, &largest));
  SETERRQ(grid.comm(), PETSC_ERR_FP,
          "the %s %s although %s is finite: its values are too large for double precision "
          "(max |%s| = %g). The run stops here; the newest checkpoint is untouched.",
          solve, symptom, input.name().c_str(), input.name().c_str(),
          static_cast<double>(largest));
}

std::string describe(const BadValue& bad, int dim) {
  const char* kind = std::isnan(bad.value) ? "NaN"
                     : std::isinf(bad.value) ? (bad.value < 0 ? "-Inf" : "Inf")
                                             : nullptr;
  std::string text = kind ? std::string(kind) + " in " + bad.field : bad.field;
  if (bad.stagger >= 0 || bad.component != 0) text += " component " + std::to_string(bad.component);
  char buffer[160];
  if (!kind) {
    std::snprintf(buffer, sizeof buffer, " = %.4g", bad.value);
    text += buffer;
  }
  if (dim == 2) {
    std::snprintf(buffer, sizeof buffer, " at %s (%lld, %lld) (x = %.6g, %.6g)",
                  bad.stagger >= 0 ? "face" : "cell", static_cast<long long>(bad.i),
                  static_cast<long long>(bad.j), bad.x[0], bad.x[1]);
  } else {
    std::snprintf(buffer, sizeof buffer, " at %s (%lld, %lld, %lld) (x = %.6g, %.6g, %.6g)",
                  bad.stagger >= 0 ? "face" : "cell", static_cast<long long>(bad.i),
                  static_cast<long long>(bad.j), static_cast<long long>(bad.k), bad.x[0],
                  bad.x[1], bad.x[2]);
  }
  return text + buffer;
}

}  // namespace sf
