// Matrix-free pressure operator and geometric multigrid: the levels and their set-up, and the
// PETSc objects (the method: poisson_multigrid.hpp; the kernels: poisson_multigrid_kernels.cpp).
#include <algorithm>

#include "poisson_multigrid_levels.hpp"
#include "vec_array.hpp"

namespace sf {

namespace mg {

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

}  // namespace mg

using namespace mg;

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
  PetscCall(coarse->star.setup(coarse->dm, 1, HaloShape::Star));
  PetscCall(coarse->box.setup(coarse->dm, 1, HaloShape::Box));
  if (most >= 2) {
    coarse->transfer_box = true;
    fine.transfer_box = true;
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
  PetscCall(fine.star.setup(fine_dm, 1, HaloShape::Star));
  PetscCall(fine.box.setup(fine_dm, 1, HaloShape::Box));
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
// periodic wrap). Where an obstacle is cut, the faces carry their open fraction too, so this
// level stores weights like the coarser ones (one double per axis and cell instead of a byte).
PetscErrorCode PoissonMultigrid::Impl::compute_open_faces(Level* fine) {
  PetscFunctionBeginUser;
  const Layout& l = fine->layout;
  const bool fractional = solids->cut();
  fine->open.assign(fractional ? 0 : static_cast<size_t>(l.ghosted.count()), 0);
  for (int a = 0; a < 3; ++a)
    fine->weight[a].assign(fractional && a < l.dim ? static_cast<size_t>(l.ghosted.count()) : 0,
                           0.0);
  IndexBox box = l.owned;
  for (int a = 0; a < l.dim; ++a) box.hi[a] = std::min(l.owned.hi[a] + 1, l.ghosted.hi[a]);
  for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
    const PetscInt index[3] = {i, j, k};
    const size_t n = l.local(i, j, k);
    std::uint8_t bits = 0;
    for (int a = 0; a < l.dim; ++a) {
      bool inside = index[a] <= l.cells[a];
      for (int b = 0; b < l.dim; ++b)
        if (b != a) inside = inside && (l.periodic[b] || index[b] < l.cells[b]);
      if (!inside || solids->fixed_face(a, i, j, k)) continue;
      bits |= static_cast<std::uint8_t>(1u << a);
      if (fractional) fine->weight[a][n] = fine->open_weight[a] * solids->face_fraction(a, i, j, k);
    }
    if (!fractional) fine->open[n] = bits;
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
  OwnedVec owned, local;
  PetscCall(DMCreateGlobalVector(coarse->dm, owned.replace()));
  PetscCall(DMCreateLocalVector(coarse->dm, local.replace()));
  // Fills `owned` with f(i, j, k) on the owned cells and exchanges it into `local`.
  auto exchange = [&](auto&& f) -> PetscErrorCode {
    PetscFunctionBeginUser;
    WriteArray data;
    PetscCall(data.get(owned));
    for_each_owned(c, [&](size_t, size_t m, PetscInt i, PetscInt j, PetscInt k) {
      data[m] = f(i, j, k);
    });
    PetscCall(data.restore());
    PetscCall(VecZeroEntries(local));
    PetscCall(coarse->box.global_to_local(owned, local));
    PetscFunctionReturn(0);
  };
  for (int a = 0; a < dim; ++a) {
    PetscCall(exchange([&](PetscInt i, PetscInt j, PetscInt k) { return covered(i, j, k, a); }));
    ReadArray ghosted;
    PetscCall(ghosted.get(local));
    coarse->weight[a].assign(ghosted.data, ghosted.data + c.ghosted.count());
    PetscCall(ghosted.restore());
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
    PetscCall(ghosted.get(local));
    IndexBox top = c.ghosted;
    top.lo[a] = last;
    top.hi[a] = last + 1;
    for_each_index(top, [&](PetscInt i, PetscInt j, PetscInt k) {
      const size_t below = c.local(i, j, k);
      coarse->weight[a][below + static_cast<size_t>(c.stride[a])] = ghosted[below];
    });
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
  if (with_ghosts) PetscCall(DMCreateGlobalVector(level->dm, owned.replace()));
  WriteArray data;
  if (with_ghosts) PetscCall(data.get(owned));
  dispatch(*level, [&](auto dim, const auto& w) {
    for_each_owned(l, [&](size_t n, size_t m, PetscInt, PetscInt, PetscInt) {
      double sum = 0.0;
      for (int a = 0; a < decltype(dim)::value; ++a) sum += w(n, a) + w(n + l.stride[a], a);
      level->coupled[n] = sum > 0.0;
      if (data) data[m] = sum > 0.0;
    });
  });
  if (!with_ghosts) PetscFunctionReturn(0);
  PetscCall(data.restore());
  PetscCall(DMCreateLocalVector(level->dm, local.replace()));
  PetscCall(level->transfer().global_to_local(owned, local));
  ReadArray ghosted;
  PetscCall(ghosted.get(local));
  for (size_t n = 0; n < level->coupled.size(); ++n) level->coupled[n] = ghosted[n] > 0.5;
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
    for (int a = 0; a < l.dim; ++a) {
      for (int side = 0; side < 2; ++side) {
        PetscInt face[3] = {i, j, k};
        face[a] += side;
        const double w = face_weight(*level, face[0], face[1], face[2], a);
        const bool domain_face = !l.periodic[a] && (side == 0 ? index[a] == 0
                                                              : index[a] == l.cells[a] - 1);
        if (domain_face || w == 0.0) continue;
        PetscInt neighbour[3] = {i, j, k};
        neighbour[a] += side == 0 ? -1 : 1;
        columns[count] = MatStencil{neighbour[2], neighbour[1], neighbour[0], 0};
        values[count] = -w;
        ++count;
      }
    }
    values[0] = row_diagonal(*level, i, j, k);
    status = MatSetValuesStencil(level->assembled, 1, &row, count, columns, values, ADD_VALUES);
  });
  PetscCall(status);
  PetscCall(MatAssemblyBegin(level->assembled, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(level->assembled, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(level->assembled, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
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
