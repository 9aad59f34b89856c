// Internal to solvers/poisson_multigrid*.cpp: the levels of PoissonMultigrid, what each stores,
// and the helpers that its set-up (poisson_multigrid.cpp) and its kernels
// (poisson_multigrid_kernels.cpp) share. The method is described in poisson_multigrid.hpp.
#pragma once

#include <petscksp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "krylov_setup.hpp"
#include "poisson_multigrid.hpp"
#include "vec_array.hpp"

namespace sf {
namespace mg {

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

PetscErrorCode read_layout(DM dm, int dim, Layout* layout);

/// A level's DMDA: one dof, stencil width 1, the given process grid and ownership ranges.
PetscErrorCode create_level_dm(MPI_Comm comm, int dim, const std::array<PetscInt, 3>& cells,
                               const DMBoundaryType bt[3], const PetscInt procs[3],
                               const std::array<const PetscInt*, 3>& ranges,
                               DMDAStencilType stencil, DM* dm);

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
inline void fill_boundary_ghosts(const Layout& layout, PetscScalar* x) {
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

/// The local (ghosted) copy of a level vector, filled by one of the level's halo exchanges and
/// the boundary ghosts, held for the duration of one kernel (borrowed from the DM's pool of
/// local vectors, which every kernel of the level shares).
class GhostedCopy {
public:
  PetscErrorCode open(DM dm, const HaloExchange& exchange, const Layout& layout, Vec global) {
    PetscFunctionBeginUser;
    PetscCall(local_.get_local(dm));
    PetscCall(exchange.global_to_local(global, local_));
    PetscCall(array_.get(local_));
    fill_boundary_ghosts(layout, array_.data);
    PetscFunctionReturn(0);
  }
  PetscErrorCode close() {
    PetscFunctionBeginUser;
    PetscCall(array_.restore());
    PetscCall(local_.give_back());
    PetscFunctionReturn(0);
  }
  const PetscScalar* data() const { return array_.data; }

private:
  BorrowedVec local_;
  WriteArray array_;  // declared after local_: restored before local_ is given back
};

}  // namespace mg

struct PoissonMultigrid::Impl {
  /// One level of the hierarchy. levels[0] is the coarsest, as in PCMG.
  struct Level {
    mg::Layout layout;
    OwnedDM owned_dm;       // coarse levels; the finest borrows the pressure's DM
    DM dm = nullptr;
    // One ghost layer: the faces of the owned box (the operator and the smoothers), or the box
    // with its edges and corners (halo_exchange.hpp). The finest level's DM may have a wider
    // halo (the grid's cell DM); the exchanges fill only the layer the kernels read.
    HaloExchange star, box;
    std::array<double, 3> open_weight{0.0, 0.0, 0.0};  // weight of a fully open face, per axis
    double decoupled_diagonal = 0.0;  // the row d p = 0 of a cell no open face couples
    std::vector<std::uint8_t> open;   // finest: bit a set = the lower face on axis a is open
    // 1 where some face of the cell is open, 0 for a decoupled row (a solid cell, or one closed
    // all round): owned cells, and the ghosts that restriction reads where it exchanges.
    std::vector<std::uint8_t> coupled;
    std::array<std::vector<double>, 3> weight;  // coarser: weight of the lower face on axis a
    bool transfer_exchanges = false;  // to and from the finer level: ownership not nested
    // The exchange the transfers use: the star, or the box where ranges are not nested on two
    // axes or more, so that transfers read edge ghosts.
    bool transfer_box = false;
    const HaloExchange& transfer() const { return transfer_box ? box : star; }
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

  /// The diagonal of the row of cell (i, j, k): its face weights, an outflow face's counted
  /// twice (its ghost is -p), or the decoupled diagonal where no face is open.
  double row_diagonal(const Level& l, PetscInt i, PetscInt j, PetscInt k) const {
    const PetscInt index[3] = {i, j, k};
    double sum = 0.0, boundary = 0.0;
    for (int a = 0; a < l.layout.dim; ++a) {
      PetscInt up[3] = {i, j, k};
      ++up[a];
      const double lower = face_weight(l, i, j, k, a);
      const double upper = face_weight(l, up[0], up[1], up[2], a);
      sum += lower + upper;
      if (!l.layout.periodic[a] && index[a] == 0) boundary += lower;
      if (!l.layout.periodic[a] && index[a] == l.layout.cells[a] - 1) boundary += upper;
    }
    return sum > 0.0 ? sum + boundary : l.decoupled_diagonal;
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

}  // namespace sf
