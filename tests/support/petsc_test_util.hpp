// Helpers for tests of any layer: comparing vectors, catching PETSc's errors.
#pragma once

#include <gtest/gtest.h>
#include <petscsys.h>
#include <petscvec.h>

#include <cstring>
#include <string>

#include "vec_array.hpp"

namespace sf::test {

/// 0 if this rank's owned values of x and y are the same bits, 1 if not (sum over ranks with
/// global_sum).
inline long differs_bitwise(Vec x, Vec y) {
  PetscInt n = 0, m = 0;
  ReadArray p, q;
  if (VecGetLocalSize(x, &n) || VecGetLocalSize(y, &m) || n != m || p.get(x) || q.get(y))
    return 1;
  return std::memcmp(p.data, q.data, static_cast<size_t>(n) * sizeof(PetscScalar)) == 0 ? 0 : 1;
}

/// Runs `f` (returning a PetscErrorCode) with PETSc's error handler replaced by one that keeps
/// the first error's message in *message; returns what f returned.
template <typename F>
PetscErrorCode catching_errors(F&& f, std::string* message) {
  const auto remember = [](MPI_Comm, int, const char*, const char*, PetscErrorCode code,
                           PetscErrorType, const char* text, void* context) -> PetscErrorCode {
    auto* first = static_cast<std::string*>(context);
    if (first->empty() && text) *first = text;
    return code;
  };
  if (PetscPushErrorHandler(remember, message)) return PETSC_ERR_LIB;
  const PetscErrorCode status = f();
  PetscPopErrorHandler();
  return status;
}

/// max |v| over a whole global vector. Collective.
inline double max_abs(Vec v) {
  PetscReal norm = 0.0;
  EXPECT_EQ(VecNorm(v, NORM_INFINITY, &norm), 0);
  return static_cast<double>(norm);
}

/// max |a - b| over two vectors of one layout, after removing each one's mean when `mean_free`.
inline double max_difference(Vec a, Vec b, bool mean_free) {
  Vec d;
  EXPECT_EQ(VecDuplicate(a, &d), 0);
  EXPECT_EQ(VecWAXPY(d, -1.0, b, a), 0);
  if (mean_free) {
    PetscScalar sum = 0.0;
    PetscInt size = 0;
    EXPECT_EQ(VecSum(d, &sum), 0);
    EXPECT_EQ(VecGetSize(d, &size), 0);
    EXPECT_EQ(VecShift(d, -sum / static_cast<double>(size)), 0);
  }
  const double result = max_abs(d);
  EXPECT_EQ(VecDestroy(&d), 0);
  return result;
}

}  // namespace sf::test
