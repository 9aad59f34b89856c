// Matrix-free pressure operator and geometric multigrid (the method: poisson_multigrid.hpp).
#include "poisson_multigrid.hpp"

#include <algorithm>
#include <cstddef>
#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "krylov_setup.hpp"

namespace sf {

namespace {

// Coarsening stops once a level has at most this many cells: its direct solve is then cheap.
constexpr PetscInt kCoarsestCells = 512;
// Largest coarsest grid solved with a direct LU factorisation; above it (a grid with few factors
// of two) an algebraic multigrid cycle takes its place.
constexpr PetscInt kDirectCoarseCells = 4096;

/// A level's index space: the cells it owns and the ghosted box of its DMDA's local vectors
/// (one layer), with the strides of the local layout (x fastest).
struct Layout {
  int dim = 3;
  std::array<PetscInt, 3> cells{1, 1, 1};
  std::array<bool, 3> periodic{false, false, false};
  IndexBox owned, ghosted;
  std::array<PetscInt, 3> stride{1, 1, 1};

  size_t local(PetscInt i, PetscInt j, PetscInt k) const {
    return static_cast<size_t>((i - ghosted.lo[0]) + (j - ghosted.lo[1]) * stride[1] +
                               (k - ghosted.lo[2]) * stride[2]);
  }
  size_t global(PetscInt i, PetscInt j, PetscInt k) const {
    return static_cast<size_t>(((k - owned.lo[2]) * owned.size(1) + (j - owned.lo[1])) *
                                   owned.size(0) +
                               (i - owned.lo[0]));
  }
};

PetscErrorCode read_layout(DM dm, int dim, Layout* layout) {
  PetscFunctionBeginUser;
  PetscInt lo[3], size[3], glo[3], gsize[3], cells[3];
  DMBoundaryType bt[3];
  PetscCall(DMDAGetCorners(dm, &lo[0], &lo[1], &lo[2], &size[0], &size[1], &size[2]));
  PetscCall(DMDAGetGhostCorners(dm, &glo[0], &glo[1], &glo[2], &gsize[0], &gsize[1], &gsize[2]));
  PetscCall(DMDAGetInfo(dm, nullptr, &cells[0], &cells[1], &cells[2], nullptr, nullptr, nullptr,
                        nullptr, nullptr, &bt[0], &bt[1], &bt[2], nullptr));
  layout->dim = dim;
  for (int a = 0; a < 3; ++a) {
    const bool used = a < dim;
    layout->cells[a] = used ? cells[a] : 1;
    layout->periodic[a] = used && bt[a] == DM_BOUNDARY_PERIODIC;
    layout->owned.lo[a] = used ? lo[a] : 0;
    layout->owned.hi[a] = used ? lo[a] + size[a] : 1;
    layout->ghosted.lo[a] = used ? glo[a] : 0;
    layout->ghosted.hi[a] = used ? glo[a] + gsize[a] : 1;
  }
  layout->stride = {1, layout->ghosted.size(0), layout->ghosted.size(0) * layout->ghosted.size(1)};
  PetscFunctionReturn(0);
}

/// A level's DMDA: one dof, stencil width 1, the given process grid and ownership ranges.
PetscErrorCode create_level_dm(MPI_Comm comm, int dim, const std::array<PetscInt, 3>& cells,
                               const DMBoundaryType bt[3], const PetscInt procs[3],
                               const std::array<const PetscInt*, 3>& ranges,
                               DMDAStencilType stencil, DM* dm) {
  PetscFunctionBeginUser;
  if (dim == 2) {
    PetscCall(DMDACreate2d(comm, bt[0], bt[1], stencil, cells[0], cells[1], procs[0], procs[1],
                           1, 1, ranges[0], ranges[1], dm));
  } else {
    PetscCall(DMDACreate3d(comm, bt[0], bt[1], bt[2], stencil, cells[0], cells[1], cells[2],
                           procs[0], procs[1], procs[2], 1, 1, ranges[0], ranges[1], ranges[2],
                           dm));
  }
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(0);
}

/// The same DMDA with a box stencil: its exchange also fills the edge and corner ghosts, which
/// the set-up of the next coarser level reads (the stencils themselves need only the star).
PetscErrorCode box_stencil_copy(DM dm, int dim, DM* box) {
  PetscFunctionBeginUser;
  std::array<PetscInt, 3> cells{1, 1, 1};
  PetscInt procs[3] = {1, 1, 1};
  DMBoundaryType bt[3];
  PetscCall(DMDAGetInfo(dm, nullptr, &cells[0], &cells[1], &cells[2], &procs[0], &procs[1],
                        &procs[2], nullptr, nullptr, &bt[0], &bt[1], &bt[2], nullptr));
  std::array<const PetscInt*, 3> ranges{nullptr, nullptr, nullptr};
  PetscCall(DMDAGetOwnershipRanges(dm, &ranges[0], &ranges[1], &ranges[2]));
  PetscCall(create_level_dm(PetscObjectComm(reinterpret_cast<PetscObject>(dm)), dim, cells, bt,
                            procs, ranges, DMDA_STENCIL_BOX, box));
  PetscFunctionReturn(0);
}

/// Read access to a level vector at global cell indices: its owned array, or a ghosted local
/// copy when the reader needs one layer beyond the owned cells.
struct CellReader {
  const PetscScalar* data = nullptr;
  IndexBox box;
  PetscInt sy = 0, sz = 0;
  CellReader(const PetscScalar* d, const IndexBox& b)
      : data(d), box(b), sy(b.size(0)), sz(b.size(0) * b.size(1)) {}
  double operator()(PetscInt i, PetscInt j, PetscInt k) const {
    return data[(i - box.lo[0]) + (j - box.lo[1]) * sy + (k - box.lo[2]) * sz];
  }
};

}  // namespace

struct PoissonMultigrid::Impl {
  /// One level of the hierarchy. levels[0] is the coarsest, as in PCMG.
  struct Level {
    Layout layout;
    OwnedDM owned_dm;       // coarse levels; the finest borrows the pressure DM
    DM dm = nullptr;
    std::array<double, 3> open_weight{0.0, 0.0, 0.0};  // weight of a fully open face, per axis
    double decoupled_diagonal = 0.0;  // the row d p = 0 of a cell no open face couples
    std::vector<std::uint8_t> open;   // finest: bit a set = the lower face on axis a is open
    // 1 where some face of the cell is open, 0 for a decoupled row (a solid cell, or one closed
    // all round): owned cells, and the ghosts that restriction reads where it exchanges.
    std::vector<std::uint8_t> coupled;
    std::array<std::vector<double>, 3> weight;  // coarser: weight of the lower face on axis a
    bool transfer_exchanges = false;  // to and from the finer level: ownership not nested
    // The DM whose exchange the transfers use: the level's own (star stencil), or a box-stencil
    // copy where ranges are not nested on two axes or more, so that transfers read edge ghosts.
    OwnedDM box_dm;
    DM transfer_dm = nullptr;
    OwnedMat op;        // A on this level, for smoothers and residuals
    OwnedMat to_finer;  // piecewise-constant interpolation to the next finer level
    OwnedMat assembled; // coarsest: A as an AIJ matrix for the direct solve
  };

  /// The context of a red-black smoother: its level and which colour it sweeps first.
  struct Smoother {
    Impl* impl = nullptr;
    int level = 0;
    int first_colour = 0;
  };

  /// The context of an operator or a transfer.
  struct LevelRef {
    Impl* impl = nullptr;
    int level = 0;
  };

  const Grid* grid = nullptr;
  const SolidMask* solids = nullptr;
  std::vector<Level> levels;
  std::vector<LevelRef> refs;                   // one per level, stable addresses
  std::vector<std::array<Smoother, 2>> smoothers;  // per level: down (red first), up (black first)
  OwnedMat fine_operator;  // the finest A for the Krylov solver (it attaches its null space)

  PetscErrorCode build_levels(DM fine_dm);
  PetscErrorCode coarsen(Level* fine, Level* coarse);
  PetscErrorCode compute_open_faces(Level* fine);
  PetscErrorCode compute_coarse_weights(const Level& fine, Level* coarse);
  PetscErrorCode assemble_coarsest(Level* level);
  PetscErrorCode compute_coupled(Level* level, bool with_ghosts);
  PetscErrorCode create_shells();

  double face_weight(const Level& l, PetscInt i, PetscInt j, PetscInt k, int a) const {
    const size_t n = l.layout.local(i, j, k);
    if (!l.open.empty()) return ((l.open[n] >> a) & 1u) ? l.open_weight[a] : 0.0;
    return l.weight[a][n];
  }

  static PetscErrorCode apply(Mat A, Vec x, Vec y);
  static PetscErrorCode diagonal(Mat A, Vec d);
  static PetscErrorCode interpolate(Mat P, Vec coarse, Vec fine);
  static PetscErrorCode interpolate_add(Mat P, Vec coarse, Vec add, Vec fine);
  static PetscErrorCode restrict_sum(Mat P, Vec fine, Vec coarse);
  static PetscErrorCode restrict_sum_add(Mat P, Vec fine, Vec add, Vec coarse);
  static PetscErrorCode transfer(Mat P, Vec in, Vec add, Vec out, bool interpolating);
  static PetscErrorCode smooth(PC pc, Vec b, Vec x, Vec w, PetscReal rtol, PetscReal abstol,
                               PetscReal dtol, PetscInt sweeps, PetscBool zero_guess,
                               PetscInt* done, PCRichardsonConvergedReason* reason);
  static PetscErrorCode smooth_once(PC pc, Vec b, Vec x);
  PetscErrorCode sweeps(int level, int first_colour, Vec b, Vec x, PetscInt count,
                        bool zero_guess);
};

namespace {

/// The weights of a level's faces, as the kernels read them: open bits on the finest level,
/// stored weights on the coarser ones.
struct OpenBits {
  const std::uint8_t* open;
  std::array<double, 3> w;
  double operator()(size_t n, int a) const { return ((open[n] >> a) & 1u) ? w[a] : 0.0; }
};

struct StoredWeights {
  std::array<const double*, 3> w;
  double operator()(size_t n, int a) const { return w[a][n]; }
};

/// Calls f(std::integral_constant<int, dim>, weights) for the level, so that every kernel is
/// compiled for its dimension and weight kind, with no per-cell branch on either.
template <typename Level, typename F>
void dispatch(const Level& l, F&& f) {
  if (!l.open.empty()) {
    const OpenBits w{l.open.data(), l.open_weight};
    if (l.layout.dim == 3) f(std::integral_constant<int, 3>(), w);
    else f(std::integral_constant<int, 2>(), w);
  } else {
    const StoredWeights w{{l.weight[0].data(), l.weight[1].data(), l.weight[2].data()}};
    if (l.layout.dim == 3) f(std::integral_constant<int, 3>(), w);
    else f(std::integral_constant<int, 2>(), w);
  }
}

/// The stencil of the cell at local index n: the sum of its face weights (the diagonal before
/// the outflow ghosts act) and the weighted sum of its neighbours.
template <int Dim, typename Weights>
inline void stencil(const Weights& w, const std::array<PetscInt, 3>& stride, const double* x,
                    size_t n, double* sum, double* neighbours) {
  double d = 0.0, o = 0.0;
  for (int a = 0; a < Dim; ++a) {
    const double lower = w(n, a), upper = w(n + stride[a], a);
    d += lower + upper;
    o += lower * x[n - stride[a]] + upper * x[n + stride[a]];
  }
  *sum = d;
  *neighbours = o;
}

/// Calls f(n, m, i, j, k) for every owned cell: n its local index, m its global one.
template <typename F>
inline void for_each_owned(const Layout& layout, F&& f) {
  const IndexBox& box = layout.owned;
  size_t m = 0;
  for (PetscInt k = box.lo[2]; k < box.hi[2]; ++k)
    for (PetscInt j = box.lo[1]; j < box.hi[1]; ++j) {
      size_t n = layout.local(box.lo[0], j, k);
      for (PetscInt i = box.lo[0]; i < box.hi[0]; ++i, ++n, ++m) f(n, m, i, j, k);
    }
}

// An outflow face has p = 0 on it: the ghost beyond it is -p of the cell inside, which makes
// w (p - ghost) = 2 w p, the Dirichlet row. Behind a closed face the weight is 0 and the ghost
// only has to be finite, which the same rule gives. (The level DMDAs are DM_BOUNDARY_GHOSTED, so
// their local vectors hold these ghosts.)
void fill_boundary_ghosts(const Layout& layout, PetscScalar* x) {
  for (int a = 0; a < layout.dim; ++a) {
    if (layout.periodic[a]) continue;
    for (int side = 0; side < 2; ++side) {
      if ((side == 0 && layout.owned.lo[a] != 0) ||
          (side == 1 && layout.owned.hi[a] != layout.cells[a]))
        continue;
      IndexBox plane = layout.owned;
      plane.lo[a] = side == 0 ? 0 : layout.cells[a] - 1;
      plane.hi[a] = plane.lo[a] + 1;
      const std::ptrdiff_t step = (side == 0 ? -1 : 1) * layout.stride[a];
      for_each_index(plane, [&](PetscInt i, PetscInt j, PetscInt k) {
        const size_t n = layout.local(i, j, k);
        x[static_cast<std::ptrdiff_t>(n) + step] = -x[n];
      });
    }
  }
}

/// The local (ghosted) copy of a level vector, filled by the DMDA's exchange and the boundary
/// ghosts, held for the duration of one kernel (borrowed from the DM's pool of local vectors,
/// which every kernel of the level shares).
class GhostedCopy {
public:
  PetscErrorCode open(DM dm, const Layout& layout, Vec global) {
    PetscFunctionBeginUser;
    dm_ = dm;
    PetscCall(DMGetLocalVector(dm, &local_));
    PetscCall(DMGlobalToLocalBegin(dm, global, INSERT_VALUES, local_));
    PetscCall(DMGlobalToLocalEnd(dm, global, INSERT_VALUES, local_));
    PetscCall(VecGetArray(local_, &data_));
    fill_boundary_ghosts(layout, data_);
    PetscFunctionReturn(0);
  }
  PetscErrorCode close() {
    PetscFunctionBeginUser;
    PetscCall(VecRestoreArray(local_, &data_));
    PetscCall(DMRestoreLocalVector(dm_, &local_));
    PetscFunctionReturn(0);
  }
  const PetscScalar* data() const { return data_; }

private:
  DM dm_ = nullptr;
  Vec local_ = nullptr;
  PetscScalar* data_ = nullptr;
};

}  // namespace

// ----------------------------------------------------------------------------------------------
// Levels

PetscErrorCode PoissonMultigrid::Impl::coarsen(Level* fine_level, Level* coarse) {
  PetscFunctionBeginUser;
  Level& fine = *fine_level;
  const Layout& f = fine.layout;
  PetscInt procs[3] = {1, 1, 1};
  PetscCall(DMDAGetInfo(fine.dm, nullptr, nullptr, nullptr, nullptr, &procs[0], &procs[1],
                        &procs[2], nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
  const PetscInt* fine_ranges[3] = {nullptr, nullptr, nullptr};
  PetscCall(DMDAGetOwnershipRanges(fine.dm, &fine_ranges[0], &fine_ranges[1], &fine_ranges[2]));
  // A rank owns the coarse cells whose first fine cell it owns: [ceil(s/2), ceil(e/2)).
  std::array<std::vector<PetscInt>, 3> ranges;
  DMBoundaryType bt[3] = {DM_BOUNDARY_GHOSTED, DM_BOUNDARY_GHOSTED, DM_BOUNDARY_GHOSTED};
  for (int a = 0; a < f.dim; ++a) {
    PetscInt start = 0;
    for (PetscInt r = 0; r < procs[a]; ++r) {
      const PetscInt end = start + fine_ranges[a][r];
      ranges[a].push_back((end + 1) / 2 - (start + 1) / 2);
      start = end;
    }
    if (f.periodic[a]) bt[a] = DM_BOUNDARY_PERIODIC;
  }
  const std::array<PetscInt, 3> cells{f.cells[0] / 2, f.cells[1] / 2, f.cells[2] / 2};
  PetscCall(create_level_dm(grid->comm(), f.dim, cells, bt, procs,
                            {ranges[0].data(), ranges[1].data(), ranges[2].data()},
                            DMDA_STENCIL_STAR, coarse->owned_dm.replace()));
  coarse->dm = coarse->owned_dm;
  PetscCall(read_layout(coarse->dm, f.dim, &coarse->layout));
  // Half the sum of 2^(dim-1) fine faces: a fully open face weighs 2^(dim-2) times the fine one.
  const double scale = f.dim == 3 ? 2.0 : 1.0;
  coarse->decoupled_diagonal = 0.0;
  for (int a = 0; a < f.dim; ++a) {
    coarse->open_weight[a] = scale * fine.open_weight[a];
    coarse->decoupled_diagonal += 2.0 * coarse->open_weight[a];
  }
  // Transfers read the fine cells of an owned coarse cell, or the coarse cell of an owned fine
  // cell; both are owned by the same rank unless some rank's range has an odd end. Where that
  // happens on two axes, the cells read lie across an edge of the owned box.
  int odd_axes = 0;
  for (int a = 0; a < f.dim; ++a)
    odd_axes += !(2 * coarse->layout.owned.lo[a] == f.owned.lo[a] &&
                  2 * coarse->layout.owned.hi[a] == f.owned.hi[a]);
  int most = 0;
  PetscCallMPI(MPI_Allreduce(&odd_axes, &most, 1, MPI_INT, MPI_MAX, grid->comm()));
  coarse->transfer_exchanges = most > 0;
  coarse->transfer_dm = coarse->dm;
  if (!fine.transfer_dm) fine.transfer_dm = fine.dm;
  if (most >= 2) {
    PetscCall(box_stencil_copy(coarse->dm, f.dim, coarse->box_dm.replace()));
    coarse->transfer_dm = coarse->box_dm;
    if (!fine.box_dm) {
      PetscCall(box_stencil_copy(fine.dm, f.dim, fine.box_dm.replace()));
      fine.transfer_dm = fine.box_dm;
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PoissonMultigrid::Impl::build_levels(DM fine_dm) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  std::vector<Level> finest_first(1);
  Level& fine = finest_first[0];
  fine.dm = fine_dm;
  PetscCall(read_layout(fine_dm, g.dim(), &fine.layout));
  for (int a = 0; a < g.dim(); ++a) {
    fine.open_weight[a] = 1.0 / (g.spacing(a) * g.spacing(a));
    fine.decoupled_diagonal += 2.0 * fine.open_weight[a];
  }
  for (;;) {
    Level& last = finest_first.back();
    const Layout& l = last.layout;
    const PetscInt total = l.cells[0] * l.cells[1] * l.cells[2];
    // Halving needs an even count on every axis and at least two cells on every rank (so that
    // each keeps a coarse cell: DMDA ranks own at least one).
    int halvable = total > kCoarsestCells;
    for (int a = 0; a < l.dim; ++a)
      halvable = halvable && l.cells[a] % 2 == 0 && l.owned.size(a) >= 2;
    int everywhere = 0;
    PetscCallMPI(MPI_Allreduce(&halvable, &everywhere, 1, MPI_INT, MPI_LAND, g.comm()));
    if (!everywhere) break;
    Level coarse;
    PetscCall(coarsen(&last, &coarse));
    finest_first.push_back(std::move(coarse));
  }
  levels.clear();
  for (auto it = finest_first.rbegin(); it != finest_first.rend(); ++it)
    levels.push_back(std::move(*it));
  PetscFunctionReturn(0);
}

// The finest level's faces from the mask: open = the face's velocity is free (not prescribed).
// Every owned cell needs its lower faces and, through the cell above it, its upper ones, so the
// bits cover the owned cells plus one layer above on each axis (within the domain, or across a
// periodic wrap).
PetscErrorCode PoissonMultigrid::Impl::compute_open_faces(Level* fine) {
  PetscFunctionBeginUser;
  const Layout& l = fine->layout;
  fine->open.assign(static_cast<size_t>(l.ghosted.count()), 0);
  IndexBox box = l.owned;
  for (int a = 0; a < l.dim; ++a) box.hi[a] = std::min(l.owned.hi[a] + 1, l.ghosted.hi[a]);
  for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
    const PetscInt index[3] = {i, j, k};
    std::uint8_t bits = 0;
    for (int a = 0; a < l.dim; ++a) {
      bool inside = index[a] <= l.cells[a];
      for (int b = 0; b < l.dim; ++b)
        if (b != a) inside = inside && (l.periodic[b] || index[b] < l.cells[b]);
      if (inside && !solids->fixed_face(a, i, j, k)) bits |= static_cast<std::uint8_t>(1u << a);
    }
    fine->open[l.local(i, j, k)] = bits;
  });
  PetscFunctionReturn(0);
}

// A coarse face's weight is half the sum of the fine faces it covers. The owned coarse cells are
// computed from the finer level (whose ghosts hold what they need, edges and corners included),
// and their ghost layer is then exchanged.
PetscErrorCode PoissonMultigrid::Impl::compute_coarse_weights(const Level& fine, Level* coarse) {
  PetscFunctionBeginUser;
  const Layout& c = coarse->layout;
  const int dim = c.dim;
  auto covered = [&](PetscInt i, PetscInt j, PetscInt k, int a) {
    const PetscInt index[3] = {i, j, k};
    PetscInt lo[3], hi[3];
    for (int b = 0; b < 3; ++b) {
      lo[b] = b < dim ? 2 * index[b] : 0;
      hi[b] = b < dim && b != a ? lo[b] + 2 : lo[b] + 1;
    }
    double sum = 0.0;
    for (PetscInt z = lo[2]; z < hi[2]; ++z)
      for (PetscInt y = lo[1]; y < hi[1]; ++y)
        for (PetscInt x = lo[0]; x < hi[0]; ++x) sum += face_weight(fine, x, y, z, a);
    return 0.5 * sum;
  };
  OwnedDM box;
  PetscCall(box_stencil_copy(coarse->dm, dim, box.replace()));
  OwnedVec owned, local;
  PetscCall(DMCreateGlobalVector(box, owned.replace()));
  PetscCall(DMCreateLocalVector(box, local.replace()));
  // Fills `owned` with f(i, j, k) on the owned cells and exchanges it into `local`.
  auto exchange = [&](auto&& f) -> PetscErrorCode {
    PetscFunctionBeginUser;
    PetscScalar* data;
    PetscCall(VecGetArray(owned, &data));
    for_each_owned(c, [&](size_t, size_t m, PetscInt i, PetscInt j, PetscInt k) {
      data[m] = f(i, j, k);
    });
    PetscCall(VecRestoreArray(owned, &data));
    PetscCall(VecZeroEntries(local));
    PetscCall(DMGlobalToLocalBegin(box, owned, INSERT_VALUES, local));
    PetscCall(DMGlobalToLocalEnd(box, owned, INSERT_VALUES, local));
    PetscFunctionReturn(0);
  };
  for (int a = 0; a < dim; ++a) {
    PetscCall(exchange([&](PetscInt i, PetscInt j, PetscInt k) { return covered(i, j, k, a); }));
    const PetscScalar* ghosted;
    PetscCall(VecGetArrayRead(local, &ghosted));
    coarse->weight[a].assign(ghosted, ghosted + c.ghosted.count());
    PetscCall(VecRestoreArrayRead(local, &ghosted));
    if (c.periodic[a]) continue;
    // The upper domain face of the last cells: no rank owns the cell beyond it, so its owner is
    // taken to be the cell below, and its neighbours' values arrive with the same exchange.
    const PetscInt last = c.cells[a] - 1;
    PetscCall(exchange([&](PetscInt i, PetscInt j, PetscInt k) {
      std::array<PetscInt, 3> index{i, j, k};
      if (index[a] != last) return 0.0;
      index[a] = c.cells[a];
      return covered(index[0], index[1], index[2], a);
    }));
    if (c.ghosted.hi[a] <= last + 1) continue;  // no top row here
    PetscCall(VecGetArrayRead(local, &ghosted));
    IndexBox top = c.ghosted;
    top.lo[a] = last;
    top.hi[a] = last + 1;
    for_each_index(top, [&](PetscInt i, PetscInt j, PetscInt k) {
      const size_t below = c.local(i, j, k);
      coarse->weight[a][below + static_cast<size_t>(c.stride[a])] = ghosted[below];
    });
    PetscCall(VecRestoreArrayRead(local, &ghosted));
  }
  PetscFunctionReturn(0);
}

// Which cells are decoupled rows. Interpolation leaves them alone and restriction skips them:
// a coarse correction spread over a solid cell would put there a value that no smoother on the
// finer level is obliged to remove (damped Jacobi keeps part of it), and in a closed box the
// coarse solve's shifted pivot makes that value large. P and P^T skip the same cells, so the
// V-cycle stays symmetric.
PetscErrorCode PoissonMultigrid::Impl::compute_coupled(Level* level, bool with_ghosts) {
  PetscFunctionBeginUser;
  const Layout& l = level->layout;
  level->coupled.assign(static_cast<size_t>(l.ghosted.count()), 0);
  OwnedVec owned, local;
  if (with_ghosts) PetscCall(DMCreateGlobalVector(level->transfer_dm, owned.replace()));
  PetscScalar* data = nullptr;
  if (with_ghosts) PetscCall(VecGetArray(owned, &data));
  dispatch(*level, [&](auto dim, const auto& w) {
    for_each_owned(l, [&](size_t n, size_t m, PetscInt, PetscInt, PetscInt) {
      double sum = 0.0;
      for (int a = 0; a < decltype(dim)::value; ++a) sum += w(n, a) + w(n + l.stride[a], a);
      level->coupled[n] = sum > 0.0;
      if (data) data[m] = sum > 0.0;
    });
  });
  if (!with_ghosts) PetscFunctionReturn(0);
  PetscCall(VecRestoreArray(owned, &data));
  PetscCall(DMCreateLocalVector(level->transfer_dm, local.replace()));
  PetscCall(DMGlobalToLocalBegin(level->transfer_dm, owned, INSERT_VALUES, local));
  PetscCall(DMGlobalToLocalEnd(level->transfer_dm, owned, INSERT_VALUES, local));
  const PetscScalar* ghosted;
  PetscCall(VecGetArrayRead(local, &ghosted));
  for (size_t n = 0; n < level->coupled.size(); ++n) level->coupled[n] = ghosted[n] > 0.5;
  PetscCall(VecRestoreArrayRead(local, &ghosted));
  PetscFunctionReturn(0);
}

// The coarsest operator as an AIJ matrix, row by row the same as the shell's MatMult: the
// outflow ghost -p becomes a second copy of the face weight on the diagonal.
PetscErrorCode PoissonMultigrid::Impl::assemble_coarsest(Level* level) {
  PetscFunctionBeginUser;
  const Layout& l = level->layout;
  // Created once and refilled after a mask change, so that the coarse solver keeps its matrix.
  if (!level->assembled) {
    PetscCall(DMSetMatType(level->dm, MATAIJ));
    PetscCall(DMCreateMatrix(level->dm, level->assembled.replace()));
  }
  PetscCall(MatZeroEntries(level->assembled));
  PetscErrorCode status = 0;
  for_each_owned(l, [&](size_t, size_t, PetscInt i, PetscInt j, PetscInt k) {
    if (status) return;
    const PetscInt index[3] = {i, j, k};
    MatStencil row{k, j, i, 0}, columns[7];
    PetscScalar values[7];
    PetscInt count = 1;
    columns[0] = row;
    double sum = 0.0, boundary = 0.0;
    for (int a = 0; a < l.dim; ++a) {
      for (int side = 0; side < 2; ++side) {
        PetscInt face[3] = {i, j, k};
        face[a] += side;
        const double w = face_weight(*level, face[0], face[1], face[2], a);
        sum += w;
        const bool domain_face = !l.periodic[a] && (side == 0 ? index[a] == 0
                                                              : index[a] == l.cells[a] - 1);
        if (domain_face) {
          boundary += w;
          continue;
        }
        if (w == 0.0) continue;
        PetscInt neighbour[3] = {i, j, k};
        neighbour[a] += side == 0 ? -1 : 1;
        columns[count] = MatStencil{neighbour[2], neighbour[1], neighbour[0], 0};
        values[count] = -w;
        ++count;
      }
    }
    values[0] = sum > 0.0 ? sum + boundary : level->decoupled_diagonal;
    status = MatSetValuesStencil(level->assembled, 1, &row, count, columns, values, ADD_VALUES);
  });
  PetscCall(status);
  PetscCall(MatAssemblyBegin(level->assembled, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(level->assembled, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(level->assembled, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
}

// ----------------------------------------------------------------------------------------------
// Kernels

PetscErrorCode PoissonMultigrid::Impl::apply(Mat A, Vec x, Vec y) {
  PetscFunctionBeginUser;
  LevelRef* ref;
  PetscCall(MatShellGetContext(A, &ref));
  const Level& l = ref->impl->levels[static_cast<size_t>(ref->level)];
  GhostedCopy xl;
  PetscCall(xl.open(l.dm, l.layout, x));
  PetscScalar* out;
  PetscCall(VecGetArray(y, &out));
  const double* in = xl.data();
  dispatch(l, [&](auto dim, const auto& w) {
    for_each_owned(l.layout, [&](size_t n, size_t m, PetscInt, PetscInt, PetscInt) {
      double sum, neighbours;
      stencil<decltype(dim)::value>(w, l.layout.stride, in, n, &sum, &neighbours);
      out[m] = (sum > 0.0 ? sum : l.decoupled_diagonal) * in[n] - neighbours;
    });
  });
  PetscCall(VecRestoreArray(y, &out));
  PetscCall(xl.close());
  PetscCall(PetscLogFlops(10.0 * l.layout.owned.count()));
  PetscFunctionReturn(0);
}

PetscErrorCode PoissonMultigrid::Impl::diagonal(Mat A, Vec d) {
  PetscFunctionBeginUser;
  LevelRef* ref;
  PetscCall(MatShellGetContext(A, &ref));
  const Level& l = ref->impl->levels[static_cast<size_t>(ref->level)];
  PetscScalar* out;
  PetscCall(VecGetArray(d, &out));
  for_each_owned(l.layout, [&](size_t, size_t m, PetscInt i, PetscInt j, PetscInt k) {
    const PetscInt index[3] = {i, j, k};
    double sum = 0.0, boundary = 0.0;
    for (int a = 0; a < l.layout.dim; ++a) {
      PetscInt up[3] = {i, j, k};
      ++up[a];
      const double lower = ref->impl->face_weight(l, i, j, k, a);
      const double upper = ref->impl->face_weight(l, up[0], up[1], up[2], a);
      sum += lower + upper;
      if (!l.layout.periodic[a] && index[a] == 0) boundary += lower;
      if (!l.layout.periodic[a] && index[a] == l.layout.cells[a] - 1) boundary += upper;
    }
    out[m] = sum > 0.0 ? sum + boundary : l.decoupled_diagonal;
  });
  PetscCall(VecRestoreArray(d, &out));
  PetscFunctionReturn(0);
}

// Red-black Gauss-Seidel: each half sweep sets the cells of one colour from their neighbours,
// which all have the other colour. On an outflow face the ghost -p holds the value from before
// the half sweep, so those cells take a Jacobi-like step there; the fixed point is the same and
// each half sweep is still a symmetric block update, so red-black before and black-red after
// keep the V-cycle symmetric.
PetscErrorCode PoissonMultigrid::Impl::sweeps(int level, int first_colour, Vec b, Vec x,
                                              PetscInt count, bool zero_guess) {
  PetscFunctionBeginUser;
  const Level& l = levels[static_cast<size_t>(level)];
  const Layout& layout = l.layout;
  const PetscScalar* rhs;
  PetscCall(VecGetArrayRead(b, &rhs));
  for (PetscInt sweep = 0; sweep < count; ++sweep) {
    for (int half = 0; half < 2; ++half) {
      const int colour = (first_colour + half) % 2;
      PetscScalar* out;
      if (zero_guess && sweep == 0 && half == 0) {
        // From x = 0 the neighbours contribute nothing: p = b / diagonal, and 0 elsewhere.
        PetscCall(VecGetArray(x, &out));
        dispatch(l, [&](auto dim, const auto& w) {
          for_each_owned(layout, [&](size_t n, size_t m, PetscInt i, PetscInt j, PetscInt k) {
            if (((i + j + k) & 1) != colour) {
              out[m] = 0.0;
              return;
            }
            double sum = 0.0;
            for (int a = 0; a < decltype(dim)::value; ++a)
              sum += w(n, a) + w(n + layout.stride[a], a);
            out[m] = rhs[m] / (sum > 0.0 ? sum : l.decoupled_diagonal);
          });
        });
        PetscCall(VecRestoreArray(x, &out));
        continue;
      }
      GhostedCopy xl;
      PetscCall(xl.open(l.dm, layout, x));
      const double* in = xl.data();
      PetscCall(VecGetArray(x, &out));
      dispatch(l, [&](auto dim, const auto& w) {
        const IndexBox& box = layout.owned;
        for (PetscInt k = box.lo[2]; k < box.hi[2]; ++k)
          for (PetscInt j = box.lo[1]; j < box.hi[1]; ++j) {
            const PetscInt i0 = box.lo[0] + ((box.lo[0] + j + k + colour) & 1);
            size_t n = layout.local(i0, j, k), m = layout.global(i0, j, k);
            for (PetscInt i = i0; i < box.hi[0]; i += 2, n += 2, m += 2) {
              double sum, neighbours;
              stencil<decltype(dim)::value>(w, layout.stride, in, n, &sum, &neighbours);
              out[m] = sum > 0.0 ? (rhs[m] + neighbours) / sum : rhs[m] / l.decoupled_diagonal;
            }
          }
      });
      PetscCall(VecRestoreArray(x, &out));
      PetscCall(xl.close());
    }
  }
  PetscCall(VecRestoreArrayRead(b, &rhs));
  PetscCall(PetscLogFlops(12.0 * count * layout.owned.count()));
  PetscFunctionReturn(0);
}

PetscErrorCode PoissonMultigrid::Impl::smooth(PC pc, Vec b, Vec x, Vec, PetscReal, PetscReal,
                                              PetscReal, PetscInt count, PetscBool zero_guess,
                                              PetscInt* done,
                                              PCRichardsonConvergedReason* reason) {
  PetscFunctionBeginUser;
  Smoother* s;
  PetscCall(PCShellGetContext(pc, &s));
  PetscCall(s->impl->sweeps(s->level, s->first_colour, b, x, count, zero_guess == PETSC_TRUE));
  *done = count;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  PetscFunctionReturn(0);
}

// PCApply of the smoother (used when Richardson cannot take the fast path, e.g. with a monitor
// on the level): one sweep from zero.
PetscErrorCode PoissonMultigrid::Impl::smooth_once(PC pc, Vec b, Vec x) {
  PetscFunctionBeginUser;
  Smoother* s;
  PetscCall(PCShellGetContext(pc, &s));
  PetscCall(s->impl->sweeps(s->level, s->first_colour, b, x, 1, true));
  PetscFunctionReturn(0);
}

namespace {

/// The vector a transfer reads: its owned array, or a ghosted copy when some rank's cells are
/// not nested with the other level's.
template <typename Level>
PetscErrorCode transfer_source(const Level& l, Vec v, bool ghosted, GhostedCopy* copy,
                               const PetscScalar** data, IndexBox* box) {
  PetscFunctionBeginUser;
  if (ghosted) {
    PetscCall(copy->open(l.transfer_dm, l.layout, v));
    *data = copy->data();
    *box = l.layout.ghosted;
  } else {
    PetscCall(VecGetArrayRead(v, data));
    *box = l.layout.owned;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode transfer_done(Vec v, bool ghosted, GhostedCopy* copy, const PetscScalar** data) {
  PetscFunctionBeginUser;
  if (ghosted) PetscCall(copy->close());
  else PetscCall(VecRestoreArrayRead(v, data));
  PetscFunctionReturn(0);
}

}  // namespace

// The transfers between a level and the next finer one:
//   interpolation  every fine cell takes the value of its coarse cell,  out = add + P in;
//   restriction    every coarse cell gets the sum of its fine cells,    out = add + P^T in;
// `add` may be null or the output itself.
PetscErrorCode PoissonMultigrid::Impl::transfer(Mat P, Vec in, Vec add, Vec out,
                                                bool interpolating) {
  PetscFunctionBeginUser;
  LevelRef* ref;
  PetscCall(MatShellGetContext(P, &ref));
  const Level& c = ref->impl->levels[static_cast<size_t>(ref->level)];
  const Level& f = ref->impl->levels[static_cast<size_t>(ref->level) + 1];
  const Level& from = interpolating ? c : f;
  const Level& to = interpolating ? f : c;
  if (add && add != out) PetscCall(VecCopy(add, out));
  GhostedCopy copy;
  const PetscScalar* source;
  IndexBox box;
  PetscCall(transfer_source(from, in, c.transfer_exchanges, &copy, &source, &box));
  const CellReader read(source, box);
  const bool three_d = c.layout.dim == 3;
  PetscScalar* target;
  PetscCall(VecGetArray(out, &target));
  for_each_owned(to.layout, [&](size_t n, size_t m, PetscInt i, PetscInt j, PetscInt k) {
    double value = 0.0;
    if (interpolating) {
      if (f.coupled[n]) value = read(i / 2, j / 2, three_d ? k / 2 : 0);
    } else {
      for (PetscInt z = 0; z < (three_d ? 2 : 1); ++z)
        for (PetscInt y = 0; y < 2; ++y)
          for (PetscInt x = 0; x < 2; ++x) {
            const PetscInt fi = 2 * i + x, fj = 2 * j + y, fk = three_d ? 2 * k + z : 0;
            if (f.coupled[f.layout.local(fi, fj, fk)]) value += read(fi, fj, fk);
          }
    }
    target[m] = add ? target[m] + value : value;
  });
  PetscCall(VecRestoreArray(out, &target));
  PetscCall(transfer_done(in, c.transfer_exchanges, &copy, &source));
  PetscFunctionReturn(0);
}

PetscErrorCode PoissonMultigrid::Impl::interpolate_add(Mat P, Vec coarse, Vec add, Vec fine) {
  return transfer(P, coarse, add, fine, true);
}

PetscErrorCode PoissonMultigrid::Impl::interpolate(Mat P, Vec coarse, Vec fine) {
  return transfer(P, coarse, nullptr, fine, true);
}

PetscErrorCode PoissonMultigrid::Impl::restrict_sum_add(Mat P, Vec fine, Vec add, Vec coarse) {
  return transfer(P, fine, add, coarse, false);
}

PetscErrorCode PoissonMultigrid::Impl::restrict_sum(Mat P, Vec fine, Vec coarse) {
  return transfer(P, fine, nullptr, coarse, false);
}

// ----------------------------------------------------------------------------------------------
// PETSc objects

PetscErrorCode PoissonMultigrid::Impl::create_shells() {
  PetscFunctionBeginUser;
  const MPI_Comm comm = grid->comm();
  refs.assign(levels.size(), LevelRef{});
  for (size_t n = 0; n < levels.size(); ++n) {
    refs[n] = LevelRef{this, static_cast<int>(n)};
    Level& l = levels[n];
    const PetscInt owned = l.layout.owned.count();
    PetscCall(MatCreateShell(comm, owned, owned, PETSC_DETERMINE, PETSC_DETERMINE, &refs[n],
                             l.op.replace()));
    PetscCall(MatShellSetOperation(l.op, MATOP_MULT, reinterpret_cast<void (*)(void)>(apply)));
    PetscCall(MatShellSetOperation(l.op, MATOP_GET_DIAGONAL,
                                   reinterpret_cast<void (*)(void)>(diagonal)));
    PetscCall(MatSetOption(l.op, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatSetOption(l.op, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
    if (n + 1 == levels.size()) continue;
    const PetscInt fine_owned = levels[n + 1].layout.owned.count();
    PetscCall(MatCreateShell(comm, fine_owned, owned, PETSC_DETERMINE, PETSC_DETERMINE, &refs[n],
                             l.to_finer.replace()));
    PetscCall(MatShellSetOperation(l.to_finer, MATOP_MULT,
                                   reinterpret_cast<void (*)(void)>(interpolate)));
    PetscCall(MatShellSetOperation(l.to_finer, MATOP_MULT_ADD,
                                   reinterpret_cast<void (*)(void)>(interpolate_add)));
    PetscCall(MatShellSetOperation(l.to_finer, MATOP_MULT_TRANSPOSE,
                                   reinterpret_cast<void (*)(void)>(restrict_sum)));
    PetscCall(MatShellSetOperation(l.to_finer, MATOP_MULT_TRANSPOSE_ADD,
                                   reinterpret_cast<void (*)(void)>(restrict_sum_add)));
  }
  // The Krylov solver's copy of the finest operator: the projection attaches the null space to
  // it. The smoothers keep their own, without one, because Richardson takes its fast path (the
  // smoother's own sweep) only on an operator without a null space.
  Level& finest = levels.back();
  const PetscInt owned = finest.layout.owned.count();
  PetscCall(MatCreateShell(comm, owned, owned, PETSC_DETERMINE, PETSC_DETERMINE, &refs.back(),
                           fine_operator.replace()));
  PetscCall(MatShellSetOperation(fine_operator, MATOP_MULT,
                                 reinterpret_cast<void (*)(void)>(apply)));
  PetscCall(MatShellSetOperation(fine_operator, MATOP_GET_DIAGONAL,
                                 reinterpret_cast<void (*)(void)>(diagonal)));
  PetscCall(MatSetOption(fine_operator, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(fine_operator, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PoissonMultigrid::PoissonMultigrid() : impl_(std::make_unique<Impl>()) {}

PoissonMultigrid::~PoissonMultigrid() = default;

PetscErrorCode PoissonMultigrid::setup(const Grid& grid, const SolidMask& solids, DM fine_dm) {
  PetscFunctionBeginUser;
  Impl& s = *impl_;
  s.grid = &grid;
  s.solids = &solids;
  PetscCall(s.build_levels(fine_dm));
  PetscCall(s.create_shells());
  PetscFunctionReturn(0);
}

PetscErrorCode PoissonMultigrid::update() {
  PetscFunctionBeginUser;
  Impl& s = *impl_;
  PetscCall(s.compute_open_faces(&s.levels.back()));
  for (size_t n = s.levels.size() - 1; n > 0; --n)
    PetscCall(s.compute_coarse_weights(s.levels[n], &s.levels[n - 1]));
  for (size_t n = 0; n < s.levels.size(); ++n)
    PetscCall(s.compute_coupled(&s.levels[n], n > 0 && s.levels[n - 1].transfer_exchanges));
  PetscCall(s.assemble_coarsest(&s.levels.front()));
  PetscFunctionReturn(0);
}

Mat PoissonMultigrid::fine_operator() const { return impl_->fine_operator; }

int PoissonMultigrid::levels() const { return static_cast<int>(impl_->levels.size()); }

Mat PoissonMultigrid::level_operator(int level) const {
  return impl_->levels[static_cast<size_t>(level)].op;
}

Mat PoissonMultigrid::interpolation(int level) const {
  return impl_->levels[static_cast<size_t>(level) - 1].to_finer;
}

PetscErrorCode PoissonMultigrid::configure(PC pc) {
  PetscFunctionBeginUser;
  Impl& s = *impl_;
  const PetscInt count = static_cast<PetscInt>(s.levels.size());
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PCMGSetLevels(pc, count, nullptr));
  PetscCall(PCMGSetType(pc, PC_MG_MULTIPLICATIVE));
  PetscCall(PCMGSetCycleType(pc, PC_MG_CYCLE_V));
  PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_NONE));
  s.smoothers.assign(s.levels.size(), {});
  for (PetscInt n = 1; n < count; ++n) {
    PetscCall(PCMGSetInterpolation(pc, n, s.levels[static_cast<size_t>(n) - 1].to_finer));
    Mat op = s.levels[static_cast<size_t>(n)].op;
    KSP down, up;
    PetscCall(PCMGGetSmootherDown(pc, n, &down));
    PetscCall(PCMGGetSmootherUp(pc, n, &up));
    KSP pair[2] = {down, up};
    for (int side = 0; side < 2; ++side) {
      Impl::Smoother& smoother = s.smoothers[static_cast<size_t>(n)][static_cast<size_t>(side)];
      smoother = Impl::Smoother{&s, static_cast<int>(n), side};
      PetscCall(KSPSetOperators(pair[side], op, op));
      // Pre-smoothing starts from zero, so it is the smoother applied once (preonly, which
      // allocates nothing); post-smoothing continues from the corrected x: Richardson, whose
      // fast path calls the smoother's own sweep (it still allocates two work vectors).
      PetscCall(KSPSetType(pair[side], side == 0 ? KSPPREONLY : KSPRICHARDSON));
      PetscCall(KSPSetTolerances(pair[side], PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 1));
      PC shell;
      PetscCall(KSPGetPC(pair[side], &shell));
      PetscCall(PCSetType(shell, PCSHELL));
      PetscCall(PCShellSetContext(shell, &smoother));
      PetscCall(PCShellSetApplyRichardson(shell, Impl::smooth));
      PetscCall(PCShellSetApply(shell, Impl::smooth_once));
      PetscCall(PCShellSetName(shell, side == 0 ? "red-black Gauss-Seidel"
                                                : "black-red Gauss-Seidel"));
    }
  }
  KSP coarse;
  PC coarse_pc;
  PetscCall(PCMGGetCoarseSolve(pc, &coarse));
  PetscCall(KSPSetOperators(coarse, s.levels.front().assembled, s.levels.front().assembled));
  PetscCall(KSPSetType(coarse, KSPPREONLY));
  PetscCall(KSPGetPC(coarse, &coarse_pc));
  const Layout& coarsest = s.levels.front().layout;
  if (coarsest.cells[0] * coarsest.cells[1] * coarsest.cells[2] > kDirectCoarseCells) {
    PetscCall(PCSetType(coarse_pc, PCHYPRE));
    PetscCall(PCHYPRESetType(coarse_pc, "boomeramg"));
  } else {
    int size = 1;
    PetscCallMPI(MPI_Comm_size(s.grid->comm(), &size));
    PC factor_pc = coarse_pc;
    if (size > 1) {
      KSP inner;
      PetscCall(PCSetType(coarse_pc, PCREDUNDANT));
      PetscCall(PCRedundantGetKSP(coarse_pc, &inner));
      PetscCall(KSPGetPC(inner, &factor_pc));
    }
    PetscCall(PCSetType(factor_pc, PCLU));
    // Without an outflow face the coarse operator is singular like the fine one. Its
    // right-hand side is consistent up to round-off, so replacing the zero pivot by a small
    // shift only adds a multiple of the null vector, which the fine operator annihilates.
    // A regular coarse operator has no zero pivot, and the shift never acts.
    PetscCall(PCFactorSetShiftType(factor_pc, MAT_SHIFT_NONZERO));
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
