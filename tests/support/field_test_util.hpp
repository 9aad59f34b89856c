// Setting fields from functions of position, which many tests do the same way.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "field.hpp"

namespace sf::test {

/// The owned samples of component c of `field`: its faces, or the cells for a scalar.
inline IndexBox owned_box(const Field& field, int c) {
  return field.stagger(c) >= 0 ? field.grid().owned_faces(field.stagger(c))
                               : field.grid().owned_cells();
}

/// Sets every owned sample of every component to f(c, x, y, z) at its sample position (the
/// global vector; the ghosts are the caller's to fill).
template <typename F>
void set_field(Field& field, F&& f) {
  const Grid& grid = field.grid();
  PetscScalar* data;
  ArrayView u;
  ASSERT_EQ(VecGetArray(field.global(), &data), 0);
  ASSERT_EQ(grid.global_view(field.dm(), data, &u), 0);
  for (int c = 0; c < field.components(); ++c) {
    const int s = field.stagger(c);
    for_each_index(owned_box(field, c), [&](PetscInt i, PetscInt j, PetscInt k) {
      u(i, j, k, c) = f(c, grid.sample_position(0, i, s), grid.sample_position(1, j, s),
                        grid.sample_position(2, k, s));
    });
  }
  ASSERT_EQ(VecRestoreArray(field.global(), &data), 0);
}

/// max over owned samples of |q_c - f(c, x, y, z)| for the samples where f is not NaN (those the
/// caller does not check), over all ranks of the grid's communicator. Collective.
template <typename F>
double max_error(const Field& field, F&& f) {
  const Grid& grid = field.grid();
  const PetscScalar* data;
  ArrayView u;
  EXPECT_EQ(VecGetArrayRead(field.global(), &data), 0);
  EXPECT_EQ(grid.global_view(field.dm(), const_cast<PetscScalar*>(data), &u), 0);
  double error = 0.0;
  for (int c = 0; c < field.components(); ++c) {
    const int s = field.stagger(c);
    for_each_index(owned_box(field, c), [&](PetscInt i, PetscInt j, PetscInt k) {
      const double want = f(c, grid.sample_position(0, i, s), grid.sample_position(1, j, s),
                            grid.sample_position(2, k, s));
      if (std::isnan(want)) return;
      error = std::max(error, std::abs(u(i, j, k, c) - want));
    });
  }
  EXPECT_EQ(VecRestoreArrayRead(field.global(), &data), 0);
  double result = 0.0;
  MPI_Allreduce(&error, &result, 1, MPI_DOUBLE, MPI_MAX, grid.comm());
  return result;
}

/// The largest departure, over every owned face of every rank, of a 2D face velocity from the
/// uniform flow (ux, 0): |u_x - ux| and |u_y|. Collective.
inline double uniform_flow_departure(const Field& velocity, double ux) {
  const Grid& grid = velocity.grid();
  const PetscScalar* data;
  ArrayView u;
  EXPECT_EQ(VecGetArrayRead(velocity.global(), &data), 0);
  EXPECT_EQ(grid.global_view(velocity.dm(), const_cast<PetscScalar*>(data), &u), 0);
  double worst = 0.0;
  for (int c = 0; c < 2; ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      worst = std::max(worst, std::abs(u(i, j, k, c) - (c == 0 ? ux : 0.0)));
    });
  EXPECT_EQ(VecRestoreArrayRead(velocity.global(), &data), 0);
  double all = 0.0;
  MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, grid.comm());
  return all;
}

}  // namespace sf::test
