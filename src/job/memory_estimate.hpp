// The memory a job needs, estimated before anything is allocated: a sum of measured terms, one
// per feature of the job, each the bytes it adds on every rank (the program and its libraries,
// PETSc's and MPI's own structures, ParaView), per grid cell, or per cell of the liquid's surface.
// The total predicts the run's peak resident memory, summed over its ranks (the timings JSON's
// peak_memory_bytes_total): the figure that decides whether a job fits a node, since the kernel
// has to find a page for every resident byte. memory_check.cpp sets it against what the nodes
// have available; `tests/bench/run memory` against the measured peak of every example job, and
// `tests/bench/run features` measures the table below.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "job.hpp"

namespace sf {

/// What one feature of a job adds to its peak resident memory.
struct MemoryTerm {
  std::string what;
  double per_rank = 0.0;    // bytes on every rank, whatever the grid
  double per_cell = 0.0;    // bytes per grid cell, over all ranks together
  double per_column = 0.0;  // bytes per column of cells along gravity (per cell of the surface)
};

struct MemoryEstimate {
  std::vector<MemoryTerm> terms;
  long long cells = 0;    // the grid's cells
  long long columns = 0;  // the cells of one plane normal to gravity: cells / cells along it

  /// The bytes every rank holds whatever the grid.
  double per_rank() const;
  /// The grid's bytes (the per-cell terms and the per-column ones) over its cells.
  double per_cell() const;
  /// The bytes of all `ranks` ranks together, each with an even share of the grid.
  double total(int ranks) const { return share(ranks, ranks); }
  /// The bytes of `ranks_here` of the job's `ranks` ranks (the ones on one node).
  double share(int ranks_here, int ranks) const;
};

/// The estimate for `job`, whose grid must be resolved (resolve_ranks) for weak scaling.
MemoryEstimate estimate_memory(const JobConfig& job);

/// The measured table the estimate adds up (public for its test): what each feature adds to the
/// peak resident memory of a run, megabytes (1e6 bytes) on every rank, bytes per grid cell and
/// (the marker particles) bytes per column of cells along gravity; [0] in 2D and [1] in 3D.
namespace memory_table {

struct Measured {
  double per_rank_mb = 0.0;
  double per_cell = 0.0;
  double per_column = 0.0;
};
using ByDim = std::array<Measured, 2>;

// Measured on 2026-11-28 on a 2-core AMD EPYC VM (Debian 12, 25 GB; bytes do not depend on how
// busy the machine is) with
//   tests/bench/run --dims 2,3 features
// after the halo exchange left PETSc's DMGlobalToLocal and the pressure moved onto the cell DM;
// the marker particles, the volume fraction and its volume controller, which that change does
// not touch, keep their figures of 2026-11-27 and the morning of 2026-11-28, measured with
//   tests/bench/run --dims 2,3 --features particles features
//   tests/bench/run --dims 2,3 --features liquid,vof,volume_control features
// Each feature's job (tests/bench/bench.py, feature_jobs()) runs on 2 ranks for 3 steps and
// writes one frame, at two sizes: 32^3 and 80^3 cells in 3D, 192^2 and 768^2 in 2D. A feature's
// figures are its peak resident memory, all ranks together, less that of the job it is
// measured against ("over" below), fitted as ranks x per rank + cells x per cell; the rows of
// the benchmark's table are features.<dim>d.<feature>.per_cell and .per_rank. Per-rank parts
// within 2 MB of 0, about the scatter between two runs of one job, are given as 0, and so is
// a fit's negative per-rank part (the variable viscosity's in 3D, -7 MB).

/// The program and its libraries (42 MB a rank of the 56), the grid's DMs, the velocity, the
/// pressure projection (matrix-free multigrid on the cell DM) and one frame's buffers (base).
inline constexpr ByDim kBase{{{54.4, 187.4}, {55.7, 201}}};
/// Each scalar (scalar_each: two scalars over the base, halved).
inline constexpr ByDim kScalar{{{0, 14.9}, {0, 18.3}}};
/// Any scalar diffusing: the cell location's matrix, preconditioner and work vectors, shared by
/// all scalars (scalar_diffusion, over two scalars without diffusion).
inline constexpr ByDim kScalarDiffusion{{{0, 190.1}, {0, 215.1}}};
/// A constant viscosity: a matrix and solver for each velocity component's faces (viscosity).
inline constexpr ByDim kViscosity{{{0, 382.7}, {0, 655.1}}};
/// A viscosity that follows a scalar: the coupled solve with BoomerAMG, in place of the above
/// (variable_viscosity, over one scalar).
inline constexpr ByDim kVariableViscosity{{{0, 1355}, {0, 3686}}};
/// Vorticity confinement: |omega| on the cells (confinement).
inline constexpr ByDim kConfinement{{{0, 56.3}, {0, 8.5}}};
/// Any obstacles: the solvers' state for solid faces (obstacle, one sphere).
inline constexpr ByDim kObstacle{{{0, 3.2}, {0, 0.1}}};
/// Any obstacle with cut faces: the face fractions and the multigrid's weights (cut, over the
/// same obstacle staircase).
inline constexpr ByDim kCutFaces{{{0, 21.2}, {0, 44.9}}};
/// MacCormack and BFECC keep copies of every advected field: the velocity's (maccormack,
/// bfecc) and each scalar's (maccormack_per_scalar, bfecc_per_scalar).
inline constexpr ByDim kMacCormack{{{0, 84}, {0, 130.6}}};
inline constexpr ByDim kMacCormackPerScalar{{{0, 30.2}, {0, 31.6}}};
inline constexpr ByDim kBfecc{{{0, 84.2}, {0, 129.8}}};
inline constexpr ByDim kBfeccPerScalar{{{0, 30.2}, {0, 32.3}}};
/// The BDF2 step keeps the fields of the step before: the velocity's and the old pressure
/// (bdf2, with cubic interpolation), and each scalar's (bdf2_per_scalar).
inline constexpr ByDim kBdf2{{{0, 77.3}, {0, 125.2}}};
inline constexpr ByDim kBdf2PerScalar{{{0, 18.7}, {0, 20.1}}};
/// The FFT projection in place of the Krylov one (fft, over a periodic box with the Krylov
/// projection, which itself is within 10 bytes per cell of the base).
inline constexpr ByDim kFftProjection{{{0, -40.9}, {0, -20.5}}};
/// The FFT diffusion of everything that diffuses, in place of the Krylov solvers (fft_diffusion,
/// over a periodic box without viscosity).
inline constexpr ByDim kFftDiffusion{{{0, 50.1}, {0, 57.9}}};
/// A liquid: the level set, the free-surface projection and the velocity extension (liquid,
/// over monotone cubic interpolation, which a liquid needs and which costs nothing itself).
inline constexpr ByDim kLiquid{{{0, 324.6}, {0, 533.3}}};
/// Its marker particles at 16 per cell of a band 3 cells either side of the surface, a flat one
/// across the box: per cell of the grid and per column of cells along gravity (particles;
/// scaled by per_cell / 16 and band / 3).
inline constexpr ByDim kParticles{{{0, 37.1, 6272}, {0, 25.2, 6565}}};
/// The volume fraction in place of the level set's own surface (vof, over a liquid without
/// particles): the fraction, its planes and each sweep's fluxes, the redistribution's offers and
/// the solve in the band of air about the liquid. Measured on 2026-11-28 with
///   tests/bench/run --dims 2,3 --features liquid,vof,volume_control features
inline constexpr ByDim kVof{{{0, 312.2}, {2.3, 357.3}}};
/// The level set's volume controller (volume_control, over a liquid; the same run).
inline constexpr ByDim kVolumeControl{{{0, 8.7}, {0, 5.3}}};
/// A liquid by height field instead of a level set (height_field, over cubic interpolation).
inline constexpr ByDim kHeightField{{{0, 323.3}, {0, 533.1}}};
/// Viscoelasticity besides its strain components, which count as scalars (viscoelastic_net:
/// over a liquid, less 3 scalars in 2D and 6 in 3D).
inline constexpr ByDim kViscoelastic{{{0, 16.5}, {0, 0.9}}};
/// Fire besides its three scalars (fire_net: over a box with an outflow face, less 3 scalars).
inline constexpr ByDim kFire{{{0, 11.4}, {0, 6.8}}};
/// ParaView Catalyst: its libraries and Python on every rank, and what a script copies of the
/// grid. With a slice image (catalyst, over the base; also any script not named below), a
/// volume rendering (volume_png.py: catalyst_volume, over the base; in 2D not measured, the
/// slice's figure) and a contour of a liquid's surface (contour_png.py: catalyst_contour, over
/// a liquid). A job with several scripts counts the largest.
inline constexpr ByDim kCatalyst{{{470.6, 608.7}, {469.3, 114}}};
inline constexpr ByDim kCatalystVolume{{{470.6, 608.7}, {479.7, 218.5}}};
inline constexpr ByDim kCatalystContour{{{485, 141.8}, {482.2, 141.9}}};

}  // namespace memory_table

}  // namespace sf
