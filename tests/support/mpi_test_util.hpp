// Helpers for tests that run on several ranks. An assertion that fails on one rank only must
// not leave the others waiting in a collective, so tests count problems locally, agree on the
// total with one reduction, and then assert the same thing on every rank.
#pragma once

#include <mpi.h>

namespace sf::test {

inline long global_sum(long local, MPI_Comm comm = MPI_COMM_WORLD) {
  long total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, comm);
  return total;
}

inline double global_max(double local, MPI_Comm comm = MPI_COMM_WORLD) {
  double result = 0.0;
  MPI_Allreduce(&local, &result, 1, MPI_DOUBLE, MPI_MAX, comm);
  return result;
}

inline double global_total(double local, MPI_Comm comm = MPI_COMM_WORLD) {
  double result = 0.0;
  MPI_Allreduce(&local, &result, 1, MPI_DOUBLE, MPI_SUM, comm);
  return result;
}

inline int comm_rank(MPI_Comm comm = MPI_COMM_WORLD) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

inline int comm_size(MPI_Comm comm = MPI_COMM_WORLD) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

}  // namespace sf::test
