// The height-field surface (see height_field.hpp for the coupling and its source).
#include "height_field.hpp"

#include <petscdmda.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "vec_array.hpp"

namespace sf {

namespace {

constexpr int kUp = 1;  // the vertical axis, y

/// The part of a cell of height dy whose centre is at level phi (a vertical distance to the
/// surface, negative below it) that lies below the surface.
double below_surface(double phi, double dy) { return std::clamp(0.5 - phi / dy, 0.0, 1.0); }

}  // namespace

HeightField::~HeightField() {
  if (column_comm_ != MPI_COMM_NULL) MPI_Comm_free(&column_comm_);
}

PetscErrorCode HeightField::setup(const Grid& grid, const SolidMask& solids) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  // The DMDA numbers ranks x fastest: rank = px + m (py + n pz). The ranks of one column share
  // px and pz.
  PetscInt m = 1, n = 1;
  PetscCall(DMDAGetInfo(grid.cell_dm(), nullptr, nullptr, nullptr, nullptr, &m, &n, nullptr,
                        nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
  PetscMPIInt rank = 0;
  PetscCallMPI(MPI_Comm_rank(grid.comm(), &rank));
  const PetscMPIInt px = rank % static_cast<PetscMPIInt>(m);
  const PetscMPIInt py = (rank / static_cast<PetscMPIInt>(m)) % static_cast<PetscMPIInt>(n);
  const PetscMPIInt pz = rank / static_cast<PetscMPIInt>(m * n);
  if (column_comm_ != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&column_comm_));
  PetscCallMPI(MPI_Comm_split(grid.comm(), px + static_cast<PetscMPIInt>(m) * pz, py,
                              &column_comm_));
  PetscFunctionReturn(0);
}

PetscErrorCode HeightField::initialise(Field& phi) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const IndexBox owned = grid.owned_cells();
  const PetscInt nx = owned.hi[0] - owned.lo[0], nz = owned.hi[2] - owned.lo[2];
  const double dy = grid.spacing(kUp);
  // Each column's liquid, counted from the floor: the depth of water it holds.
  std::vector<double> depth(static_cast<size_t>(nx * nz), 0.0);
  WriteArray level;
  PetscCall(level.get_global(phi));
  const auto column = [&](PetscInt i, PetscInt k) {
    return static_cast<size_t>((k - owned.lo[2]) * nx + (i - owned.lo[0]));
  };
  for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    depth[column(i, k)] += dy * below_surface(level(i, j, k), dy);
  });
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, depth.data(), static_cast<int>(depth.size()),
                             MPI_DOUBLE, MPI_SUM, column_comm_));
  for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    level(i, j, k) = grid.cell_center(kUp, j) - (grid.origin(kUp) + depth[column(i, k)]);
  });
  PetscFunctionReturn(0);
}

PetscErrorCode HeightField::advance(Field& velocity, Field& phi, double dt) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  const IndexBox owned = grid.owned_cells();
  const PetscInt nx = owned.hi[0] - owned.lo[0], nz = owned.hi[2] - owned.lo[2];
  const double dy = grid.spacing(kUp);
  PetscCall(velocity.fill_ghosts());
  PetscCall(phi.fill_ghosts());
  ReadArray u, level;
  PetscCall(u.get_local(velocity));
  PetscCall(level.get_local(phi));
  // The flux under the surface through every vertical face of the owned columns, this rank's
  // rows of it: x faces i = lo..hi (nx + 1 per row of columns), then in 3D z faces k = lo..hi.
  const size_t x_faces = static_cast<size_t>((nx + 1) * nz);
  std::vector<double> flux(x_faces + (dim == 3 ? static_cast<size_t>(nx * (nz + 1)) : 0), 0.0);
  for (int a = 0; a < dim; a += 2) {  // x, and z in 3D
    const double area = grid.spacing(kUp) * (dim == 3 ? grid.spacing(2 - a) : 1.0);
    const PetscInt wide = a == 0 ? nx + 1 : nx;
    for (PetscInt k = owned.lo[2]; k < owned.hi[2] + (a == 2 ? 1 : 0); ++k)
      for (PetscInt i = owned.lo[0]; i < owned.hi[0] + (a == 0 ? 1 : 0); ++i) {
        double sum = 0.0;
        for (PetscInt j = owned.lo[1]; j < owned.hi[1]; ++j) {
          const PetscInt lo[3] = {i - (a == 0), j, k - (a == 2)};
          const double phi_face = 0.5 * (level(lo[0], lo[1], lo[2]) + level(i, j, k));
          sum += u(i, j, k, a) * area * below_surface(phi_face, dy);
        }
        const size_t at = (a == 0 ? 0 : x_faces) +
                          static_cast<size_t>((k - owned.lo[2]) * wide + (i - owned.lo[0]));
        flux[at] = sum;
      }
  }
  PetscCall(level.restore());
  PetscCall(u.restore());
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, flux.data(), static_cast<int>(flux.size()),
                             MPI_DOUBLE, MPI_SUM, column_comm_));

  // Each column rises by what flows in over dt, over its area; every cell of it moves phi.
  const double column_area = grid.spacing(0) * (dim == 3 ? grid.spacing(2) : 1.0);
  WriteArray out;
  PetscCall(out.get_global(phi));
  double shallowest = HUGE_VAL, highest = -HUGE_VAL;
  for (PetscInt k = owned.lo[2]; k < owned.hi[2]; ++k)
    for (PetscInt i = owned.lo[0]; i < owned.hi[0]; ++i) {
      const size_t x0 = static_cast<size_t>((k - owned.lo[2]) * (nx + 1) + (i - owned.lo[0]));
      double inflow = flux[x0] - flux[x0 + 1];
      if (dim == 3) {
        const size_t z0 = x_faces + static_cast<size_t>((k - owned.lo[2]) * nx + (i - owned.lo[0]));
        inflow += flux[z0] - flux[z0 + static_cast<size_t>(nx)];
      }
      const double rise = dt * inflow / column_area;
      for (PetscInt j = owned.lo[1]; j < owned.hi[1]; ++j) out(i, j, k) -= rise;
      const double height = grid.cell_center(kUp, owned.lo[1]) - out(i, owned.lo[1], k);
      shallowest = std::min(shallowest, height - grid.origin(kUp));
      highest = std::max(highest, height);
    }
  PetscCall(out.restore());
  // The water must cover the floor and stay under the lid: a dry column or one that reaches
  // the top is not a height field any more.
  double limits[2] = {-shallowest, highest};
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, limits, 2, MPI_DOUBLE, MPI_MAX, grid.comm()));
  const double top = grid.origin(kUp) + grid.length(kUp);
  PetscCheck(-limits[0] > 0.5 * dy && limits[1] < top - 0.5 * dy, grid.comm(),
             PETSC_ERR_NOT_CONVERGED,
             "the height-field surface left the domain (the shallowest water %g deep, the "
             "highest surface at y = %g, the domain from y = %g to %g; it must stay half a cell "
             "inside): a height field needs water over the whole floor and room above it",
             -limits[0], limits[1], grid.origin(kUp), top);
  PetscFunctionReturn(0);
}

}  // namespace sf
