// Setting fields from functions of position, which many tests do the same way.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "field.hpp"
#include "mpi_test_util.hpp"
#include "vec_array.hpp"

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
  WriteArray u;
  ASSERT_EQ(u.get_global(field), 0);
  for (int c = 0; c < field.components(); ++c) {
    const int s = field.stagger(c);
    for_each_index(owned_box(field, c), [&](PetscInt i, PetscInt j, PetscInt k) {
      u(i, j, k, c) = f(c, grid.sample_position(0, i, s), grid.sample_position(1, j, s),
                        grid.sample_position(2, k, s));
    });
  }
}

/// max over owned samples of |q_c - f(c, x, y, z)| for the samples where f is not NaN (those the
/// caller does not check), over all ranks of the grid's communicator. Collective.
template <typename F>
double max_error(const Field& field, F&& f) {
  const Grid& grid = field.grid();
  ReadArray u;
  EXPECT_EQ(u.get_global(field), 0);
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
  EXPECT_EQ(u.restore(), 0);
  double result = 0.0;
  MPI_Allreduce(&error, &result, 1, MPI_DOUBLE, MPI_MAX, grid.comm());
  return result;
}

/// The largest departure, over every owned face of every rank, of a 2D face velocity from the
/// uniform flow (ux, 0): |u_x - ux| and |u_y|. Collective.
inline double uniform_flow_departure(const Field& velocity, double ux) {
  const Grid& grid = velocity.grid();
  ReadArray u;
  EXPECT_EQ(u.get_global(velocity), 0);
  double worst = 0.0;
  for (int c = 0; c < 2; ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      worst = std::max(worst, std::abs(u(i, j, k, c) - (c == 0 ? ux : 0.0)));
    });
  EXPECT_EQ(u.restore(), 0);
  double all = 0.0;
  MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, grid.comm());
  return all;
}

/// Writes `value` at global index (i, j, k), component c, of a global vector of `dm`, on the
/// rank whose storage holds it (any slot of the DM, so unused tangential slots can be hit too).
/// Returns the number of ranks that wrote it (so a test can check the index was reachable).
/// Collective.
inline long poke(Vec vec, DM dm, int c, PetscInt i, PetscInt j, PetscInt k, double value) {
  WriteArray v;
  EXPECT_EQ(v.get_global(dm, vec), 0);
  const PetscInt index[3] = {i, j, k};
  bool mine = true;
  for (int a = 0; a < 3; ++a)
    mine = mine && index[a] >= v.start[a] && index[a] < v.start[a] + v.width[a];
  if (mine) v(i, j, k, c) = value;
  EXPECT_EQ(v.restore(), 0);
  return global_sum(mine ? 1 : 0);
}

}  // namespace sf::test
