// The Fourier solves of a fully periodic box (Stam 1999, §2.3 and the appendix "FFT-based
// solver"): on a periodic grid the discrete Laplacian of the MAC grid is diagonal in the discrete
// Fourier basis, so a Poisson or a backward-Euler diffusion solve is one forward transform, one
// division per mode and one inverse transform.
//
// The operator is the discrete one the Krylov solvers assemble, not the continuous one: the
// 5/7-point Laplacian (L q)(i) = sum_a (q(i + e_a) - 2 q(i) + q(i - e_a)) / h_a^2 has the symbol
//
//   lambda(m) = -sum_a 4 / h_a^2 sin^2(pi m_a / n_a),     m_a = 0 .. n_a - 1,
//
// for the mode exp(2 pi i m_a x_a / (n_a h_a)), the same on the cell centres and on the faces of
// any axis (a shifted periodic grid has the same modes). For the MAC pair D G = L exactly, so a
// velocity projected with this pressure is discretely divergence-free to rounding.
//
// Distribution. FFTW's MPI interface (fftw3-mpi) owns slabs of whole planes along the slowest
// axis (z in 3D, y in 2D); the DMDA owns boxes. A PETSc VecScatter built once in setup() moves
// a cell-layout global vector into a Vec wrapped around FFTW's slab buffer and back
// (SCATTER_REVERSE), so the redistribution is PETSc's all-to-all, not one of our own. The forward real-to-complex
// transform leaves its output transposed (FFTW_MPI_TRANSPOSED_OUT) and the inverse reads it that
// way (FFTW_MPI_TRANSPOSED_IN): the multiplication by a diagonal symbol does not care about the
// order of the modes, and each direction saves FFTW one global transpose.
#pragma once

#include <fftw3-mpi.h>

#include <array>
#include <vector>

#include "grid.hpp"

namespace sf {

using OwnedVecScatter = Owned<VecScatter, VecScatterDestroy>;

/// The real-to-complex FFTs of one periodic grid over its communicator, and the scatters between
/// the grid's cell layout and FFTW's slabs. Plans, buffer and scatter are made once in setup().
class PeriodicFft {
public:
  PeriodicFft() = default;
  ~PeriodicFft();
  PeriodicFft(const PeriodicFft&) = delete;  // owns FFTW plans and buffer
  PeriodicFft& operator=(const PeriodicFft&) = delete;

  /// Plans the transforms of the grid's cells (every axis must be periodic) and builds the
  /// scatter from a global vector of grid.cell_dm() to FFTW's slabs. `prefix` is the options
  /// prefix of the solver ("pressure_", "diffusion_"): -<prefix>fft_measure lets FFTW time
  /// candidate plans (FFTW_MEASURE) instead of choosing by its estimate, which may be faster
  /// but makes the plan, hence the last bits of every result, depend on timings: two runs, or a
  /// run and its restart, would no longer agree bit for bit. Collective.
  PetscErrorCode setup(const Grid& grid, const char* prefix);

  /// Replaces q by the mean-free solution p of L p = q (the zero mode of p is 0, whatever that
  /// of q). `q` is a global vector of grid.cell_dm(). Collective.
  PetscErrorCode solve_poisson(Vec q);

  /// Replaces q by the solution of (I - alpha L) q_new = q, alpha >= 0. Collective.
  PetscErrorCode solve_helmholtz(Vec q, double alpha);

private:
  /// q -> F^-1 [ multiplier(lambda) F q ] / N, with the multiplier inlined into the loop over
  /// this rank's modes.
  template <typename Multiplier>
  PetscErrorCode apply(Vec q, const Multiplier& multiplier);

  const Grid* grid_ = nullptr;
  int rank_count_ = 0;                  // FFTW's rank of the transform: the grid's dimension
  std::array<ptrdiff_t, 3> n_{1, 1, 1};  // real dimensions in FFTW's order (slowest first)
  ptrdiff_t local_n1_ = 0, local_1_start_ = 0;  // this rank's part of the transposed output
  // 4 / h^2 sin^2(pi m / n) per FFTW dimension and mode m: the symbol is minus their sum.
  std::array<std::vector<double>, 3> symbol_;
  double* buffer_ = nullptr;            // fftw_alloc_real: the slab, transformed in place
  fftw_plan forward_ = nullptr, backward_ = nullptr;
  OwnedVec slab_;                       // a Vec over buffer_'s real entries
  OwnedVecScatter scatter_;             // cell DM global vector -> slab_
};

}  // namespace sf
