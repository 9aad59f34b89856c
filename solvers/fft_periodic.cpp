// The Fourier solves of a fully periodic box: FFTW's MPI transforms behind one PETSc scatter
// (fft_periodic.hpp has the symbol and the layout).
//
// FFTW's order of the axes is the storage order read slowest first: (z, y, x) in 3D and (y, x)
// in 2D, the real array of this rank being local_n0 whole planes of the slowest axis, each row of
// x padded to 2 (n_x / 2 + 1) reals, the room the in-place real-to-complex transform needs for
// its n_x / 2 + 1 complex modes. The complex output is transposed: this rank holds local_n1
// entries of the complex array's second axis (y in 3D, the x modes in 2D), then all n0 of the
// first, then (3D) the n_x / 2 + 1 modes of x.
#include "fft_periodic.hpp"

#include <algorithm>
#include <cmath>

#include "vec_array.hpp"

namespace sf {

PeriodicFft::~PeriodicFft() {
  if (forward_) fftw_destroy_plan(forward_);
  if (backward_) fftw_destroy_plan(backward_);
  // The Vec over the buffer goes first: it only borrows the memory.
  slab_.reset();
  if (buffer_) fftw_free(buffer_);
}

PetscErrorCode PeriodicFft::setup(const Grid& grid, const char* prefix) {
  PetscFunctionBeginUser;
  PetscCheck(!forward_, grid.comm(), PETSC_ERR_ORDER, "PeriodicFft::setup() called twice");
  for (int a = 0; a < grid.dim(); ++a)
    PetscCheck(grid.periodic(a), grid.comm(), PETSC_ERR_ARG_WRONG,
               "the FFT solvers need a grid periodic on every axis (axis %d is not)", a);
  grid_ = &grid;
  // Idempotent; FFTW's MPI planner needs it once after MPI_Init.
  fftw_mpi_init();
  const int dim = grid.dim();
  rank_count_ = dim;
  for (int d = 0; d < dim; ++d) n_[d] = static_cast<ptrdiff_t>(grid.cells(dim - 1 - d));
  const ptrdiff_t n_last = n_[dim - 1];
  const ptrdiff_t complex_last = n_last / 2 + 1;
  const ptrdiff_t padded_row = 2 * complex_last;
  // The distribution of a real transform is that of the complex array's dimensions.
  std::array<ptrdiff_t, 3> complex_n = n_;
  complex_n[dim - 1] = complex_last;
  ptrdiff_t local_n0 = 0, local_0_start = 0;
  const ptrdiff_t alloc_complex = fftw_mpi_local_size_many_transposed(
      dim, complex_n.data(), 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, grid.comm(),
      &local_n0, &local_0_start, &local_n1_, &local_1_start_);
  // A rank with no plane still needs a valid pointer for the plans.
  buffer_ = fftw_alloc_real(static_cast<size_t>(std::max<ptrdiff_t>(2 * alloc_complex, 1)));
  PetscCheck(buffer_, PETSC_COMM_SELF, PETSC_ERR_MEM, "fftw_alloc_real failed for the FFT slab");

  PetscBool measure = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(nullptr, prefix, "-fft_measure", &measure, nullptr));
  const unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
  auto* spectrum = reinterpret_cast<fftw_complex*>(buffer_);
  forward_ = fftw_mpi_plan_many_dft_r2c(dim, n_.data(), 1, FFTW_MPI_DEFAULT_BLOCK,
                                        FFTW_MPI_DEFAULT_BLOCK, buffer_, spectrum, grid.comm(),
                                        flags | FFTW_MPI_TRANSPOSED_OUT);
  backward_ = fftw_mpi_plan_many_dft_c2r(dim, n_.data(), 1, FFTW_MPI_DEFAULT_BLOCK,
                                         FFTW_MPI_DEFAULT_BLOCK, spectrum, buffer_, grid.comm(),
                                         flags | FFTW_MPI_TRANSPOSED_IN);
  PetscCheck(forward_ && backward_, PETSC_COMM_SELF, PETSC_ERR_LIB,
             "FFTW could not plan the periodic transforms");

  // The per-dimension parts of the discrete Laplacian's symbol. A 2D transform has no third
  // dimension: its part is 0, which adds nothing to the sum exactly.
  for (int d = 0; d < 3; ++d) {
    symbol_[d].assign(static_cast<size_t>(n_[d]), 0.0);
    if (d >= dim) continue;
    const int axis = dim - 1 - d;
    const double inv_h2 = 1.0 / (grid.spacing(axis) * grid.spacing(axis));
    for (ptrdiff_t m = 0; m < n_[d]; ++m) {
      const double s = std::sin(M_PI * static_cast<double>(m) / static_cast<double>(n_[d]));
      symbol_[d][static_cast<size_t>(m)] = 4.0 * inv_h2 * s * s;
    }
  }

  // The slab as a PETSc Vec: its real entries, padding included (the scatter never names it).
  const ptrdiff_t plane = dim == 3 ? n_[1] * padded_row : padded_row;
  PetscCall(VecCreateMPIWithArray(grid.comm(), 1, static_cast<PetscInt>(local_n0 * plane),
                                  PETSC_DECIDE, buffer_, slab_.replace()));
  PetscInt slab_start = 0;
  PetscCall(VecGetOwnershipRange(slab_, &slab_start, nullptr));

  // Where each cell of this rank's slab sits in the cell DM's global vector: ranks in the DMDA's
  // order (x fastest), each holding its box with x fastest. Built from the ownership ranges, so
  // it needs O(n) memory per axis, not an application ordering of the whole grid on every rank.
  DM dm = grid.cell_dm();
  PetscInt processes[3] = {1, 1, 1};
  PetscCall(DMDAGetInfo(dm, nullptr, nullptr, nullptr, nullptr, &processes[0], &processes[1],
                        &processes[2], nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
  const PetscInt* ranges[3] = {nullptr, nullptr, nullptr};
  PetscCall(DMDAGetOwnershipRanges(dm, &ranges[0], &ranges[1], &ranges[2]));
  const PetscInt one = 1;
  if (dim == 2) ranges[2] = &one;
  std::array<std::vector<PetscInt>, 3> owner, start;
  for (int a = 0; a < 3; ++a) {
    owner[a].resize(static_cast<size_t>(grid.cells(a)));
    start[a].resize(static_cast<size_t>(processes[a]));
    PetscInt at = 0;
    for (PetscInt p = 0; p < processes[a]; ++p) {
      start[a][static_cast<size_t>(p)] = at;
      for (PetscInt c = 0; c < ranges[a][p]; ++c) owner[a][static_cast<size_t>(at + c)] = p;
      at += ranges[a][p];
    }
  }
  std::vector<PetscInt> base(static_cast<size_t>(processes[0] * processes[1] * processes[2]));
  PetscInt offset = 0;
  for (PetscInt pk = 0; pk < processes[2]; ++pk)
    for (PetscInt pj = 0; pj < processes[1]; ++pj)
      for (PetscInt pi = 0; pi < processes[0]; ++pi) {
        base[static_cast<size_t>((pk * processes[1] + pj) * processes[0] + pi)] = offset;
        offset += ranges[0][pi] * ranges[1][pj] * ranges[2][pk];
      }
  IndexBox slab;  // this rank's cells in grid indices
  for (int a = 0; a < dim; ++a) slab.hi[a] = grid.cells(a);
  slab.lo[dim - 1] = static_cast<PetscInt>(local_0_start);
  slab.hi[dim - 1] = static_cast<PetscInt>(local_0_start + local_n0);
  std::vector<PetscInt> from, to;
  from.reserve(static_cast<size_t>(slab.count()));
  to.reserve(static_cast<size_t>(slab.count()));
  const PetscInt row = static_cast<PetscInt>(padded_row);
  for_each_index(slab, [&](PetscInt i, PetscInt j, PetscInt k) {
    const PetscInt at[3] = {i, j, k};
    PetscInt p[3];
    for (int a = 0; a < 3; ++a) p[a] = owner[a][static_cast<size_t>(at[a])];
    const PetscInt rank = (p[2] * processes[1] + p[1]) * processes[0] + p[0];
    const PetscInt xs = start[0][static_cast<size_t>(p[0])];
    const PetscInt ys = start[1][static_cast<size_t>(p[1])];
    const PetscInt zs = start[2][static_cast<size_t>(p[2])];
    from.push_back(base[static_cast<size_t>(rank)] +
                   ((k - zs) * ranges[1][p[1]] + (j - ys)) * ranges[0][p[0]] + (i - xs));
    const PetscInt line = dim == 3 ? (k - slab.lo[2]) * grid.cells(1) + j : j - slab.lo[1];
    to.push_back(slab_start + line * row + i);
  });
  Owned<IS, ISDestroy> from_is, to_is;
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, static_cast<PetscInt>(from.size()), from.data(),
                            PETSC_USE_POINTER, from_is.replace()));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, static_cast<PetscInt>(to.size()), to.data(),
                            PETSC_USE_POINTER, to_is.replace()));
  BorrowedVec cells;
  PetscCall(cells.get_global(dm));
  PetscCall(VecScatterCreate(cells, from_is, slab_, to_is, scatter_.replace()));
  PetscFunctionReturn(0);
}

template <typename Multiplier>
PetscErrorCode PeriodicFft::apply(Vec q, const Multiplier& multiplier) {
  PetscFunctionBeginUser;
  PetscCheck(forward_, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PeriodicFft::setup() was not called");
  PetscCall(VecScatterBegin(scatter_, q, slab_, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(scatter_, q, slab_, INSERT_VALUES, SCATTER_FORWARD));
  // The transforms write the slab's memory while its array is held for writing, so that PETSc
  // knows the Vec changed when it is given back (its array is buffer_ itself, nothing is copied).
  WriteArray slab;
  PetscCall(slab.get(slab_));
  fftw_execute(forward_);
  // FFTW's transforms are unnormalised: the round trip multiplies by the number of cells.
  const double scale = 1.0 / static_cast<double>(n_[0] * n_[1] * n_[2]);
  const ptrdiff_t n0 = n_[0];
  const ptrdiff_t inner = rank_count_ == 3 ? n_[2] / 2 + 1 : 1;
  auto* spectrum = reinterpret_cast<fftw_complex*>(buffer_);
  const double* s0 = symbol_[0].data();
  const double* s1 = symbol_[1].data();
  const double* s2 = symbol_[2].data();
  for (ptrdiff_t a = 0; a < local_n1_; ++a) {
    const double part1 = s1[local_1_start_ + a];
    for (ptrdiff_t b = 0; b < n0; ++b) {
      const double part01 = s0[b] + part1;
      fftw_complex* mode = spectrum + (a * n0 + b) * inner;
      for (ptrdiff_t c = 0; c < inner; ++c) {
        // The same sum in the same order on every rank count, so the symbol is the same bits.
        const double factor = multiplier(-(part01 + s2[c])) * scale;
        mode[c][0] *= factor;
        mode[c][1] *= factor;
      }
    }
  }
  fftw_execute(backward_);
  PetscCall(slab.restore());
  PetscCall(VecScatterBegin(scatter_, slab_, q, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(scatter_, slab_, q, INSERT_VALUES, SCATTER_REVERSE));
  PetscFunctionReturn(0);
}

PetscErrorCode PeriodicFft::solve_poisson(Vec q) {
  PetscFunctionBeginUser;
  // lambda = 0 only for the constant mode (sin(pi m / n) > 0 for 0 < m < n): the pressure's
  // level is free on a periodic box, and the mean of a periodic divergence is zero anyway.
  PetscCall(apply(q, [](double lambda) { return lambda != 0.0 ? 1.0 / lambda : 0.0; }));
  PetscFunctionReturn(0);
}

PetscErrorCode PeriodicFft::solve_helmholtz(Vec q, double alpha) {
  PetscFunctionBeginUser;
  PetscCheck(alpha >= 0.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "the diffusion solve needs alpha = k dt >= 0, got %g", alpha);
  PetscCall(apply(q, [alpha](double lambda) { return 1.0 / (1.0 - alpha * lambda); }));
  PetscFunctionReturn(0);
}

}  // namespace sf
