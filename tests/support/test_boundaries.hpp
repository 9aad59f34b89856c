// Boundary descriptions that tests build again and again.
#pragma once

#include <petscsys.h>

#include <array>
#include <vector>

#include "boundary.hpp"
#include "mpi_test_util.hpp"

namespace sf::test {

using Boundaries = std::array<std::array<FaceBoundary, 2>, 3>;

/// A face of the given kind with no inflow data.
inline FaceBoundary face(BoundaryKind kind) {
  FaceBoundary f;
  f.kind = kind;
  return f;
}

/// The same kind on every side of every axis.
inline Boundaries all(BoundaryKind kind) {
  Boundaries b;
  for (auto& axis : b) axis = {face(kind), face(kind)};
  return b;
}

/// A process layout to force on a grid (Grid::setup's `processes`).
struct Layout {
  const char* name;
  std::array<PetscInt, 3> processes;
};

/// PETSc's choice, and every rank stacked along one axis (uneven splits of odd cell counts).
inline std::vector<Layout> layouts(int dim) {
  const PetscInt size = comm_size();
  std::vector<Layout> result = {{"default", {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}},
                                {"slabs along x", {size, 1, 1}},
                                {"slabs along y", {1, size, 1}}};
  if (dim == 3) result.push_back({"slabs along z", {1, 1, size}});
  return result;
}

}  // namespace sf::test
