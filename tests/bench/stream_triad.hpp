// STREAM's triad, a[i] = b[i] + s c[i] (McCalpin), run by every rank at once: the memory bandwidth
// a rank can count on while all ranks of the job stream, the bound a memory-bound stage is
// measured against. Bytes counted as STREAM counts them: 24 per element (two reads, one write;
// write-allocate traffic not included).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace sf::bench {

/// Per-rank triad bandwidth in bytes per second: the best of `repeats` runs over arrays of
/// `elements` doubles each (use at least 4x the last-level cache), timed from a barrier to the
/// slowest rank's finish. Collective.
inline double stream_triad_per_rank(MPI_Comm comm, std::size_t elements, int repeats = 10) {
  std::vector<double> a(elements, 0.0), b(elements, 1.0), c(elements, 2.0);
  const double s = 3.0;
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(comm);
    const double start = MPI_Wtime();
    double* __restrict pa = a.data();
    const double* __restrict pb = b.data();
    const double* __restrict pc = c.data();
    for (std::size_t i = 0; i < elements; ++i) pa[i] = pb[i] + s * pc[i];
    // To the last rank's finish: timing each rank's own loop would let ranks that share a core
    // (oversubscribed) each look as fast as one running alone.
    MPI_Barrier(comm);
    double seconds = MPI_Wtime() - start, slowest = 0.0;
    MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    best = std::min(best, slowest);
    // Keep the result observable so the loop is not optimised away.
    b[r % elements] += a[(r * 7919) % elements] * 1e-300;
  }
  return 24.0 * static_cast<double>(elements) / best;
}

}  // namespace sf::bench
