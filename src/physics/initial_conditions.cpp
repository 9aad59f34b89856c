// Initial conditions (formulas in job.hpp, VelocityInit).
#include "initial_conditions.hpp"

#include "region.hpp"
#include "vec_array.hpp"

#include <cmath>

namespace sf {

namespace {

/// Component `c` of the initial velocity at point x.
double initial_velocity(const VelocityInit& init, const Grid& grid, int c, const double x[3]) {
  switch (init.kind) {
    case VelocityInit::Kind::Zero:
      return 0.0;
    case VelocityInit::Kind::Uniform:
      return init.value[c];
    case VelocityInit::Kind::Vortex: {
      // u_theta = S (r/R) exp((1 - r^2/R^2)/2); u = -u_theta dy/r, v = u_theta dx/r.
      const double dx = x[0] - init.center[0], dy = x[1] - init.center[1];
      const double r2 = (dx * dx + dy * dy) / (init.radius * init.radius);
      const double scale = init.strength / init.radius * std::exp(0.5 * (1.0 - r2));
      return c == 0 ? -scale * dy : c == 1 ? scale * dx : 0.0;
    }
    case VelocityInit::Kind::TaylorGreen: {
      double s[3], co[3];
      for (int a = 0; a < 3; ++a) {
        const double k = 2.0 * M_PI / grid.length(a);
        const double phase = a < grid.dim() ? k * (x[a] - grid.origin(a)) : 0.0;
        s[a] = std::sin(phase);
        co[a] = std::cos(phase);
      }
      if (c == 0) return init.strength * s[0] * co[1] * co[2];
      if (c == 1) return -init.strength * co[0] * s[1] * co[2];
      return 0.0;
    }
  }
  return 0.0;
}

}  // namespace

PetscErrorCode set_initial_velocity(const VelocityInit& init, Field& velocity) {
  PetscFunctionBeginUser;
  const Grid& grid = velocity.grid();
  WriteArray u;
  PetscCall(u.get_global(velocity));
  for (int c = 0; c < grid.dim(); ++c) {
    const IndexBox box = grid.owned_faces(c);
    for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
      const double x[3] = {grid.sample_position(0, i, c), grid.sample_position(1, j, c),
                           grid.sample_position(2, k, c)};
      u(i, j, k, c) = initial_velocity(init, grid, c, x);
    });
  }
  PetscFunctionReturn(0);
}

PetscErrorCode set_initial_scalar(const ScalarConfig& config, Field& scalar) {
  PetscFunctionBeginUser;
  const Grid& grid = scalar.grid();
  WriteArray s;
  PetscCall(s.get_global(scalar));
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const double x[3] = {grid.cell_center(0, i), grid.cell_center(1, j), grid.cell_center(2, k)};
    double value = config.background;
    for (const ScalarBlob& blob : config.initial)
      if (region_contains(blob.region, x, grid.dim())) value = blob.value;
    s(i, j, k) = value;
  });
  PetscFunctionReturn(0);
}

PetscErrorCode set_up_initial_fields(const JobConfig& job, const Grid& grid,
                                     const SolidMask& solids, double time, Field* velocity,
                                     std::vector<Field>* scalars) {
  PetscFunctionBeginUser;
  PetscCall(velocity->setup_velocity(grid));
  velocity->set_time(time);  // inflows that vary in time (a restart sets its own time)
  PetscCall(set_initial_velocity(job.velocity, *velocity));
  PetscCall(solids.hold_solid_faces(*velocity));
  scalars->reserve(job.scalars.size() + 1);
  scalars->resize(job.scalars.size());
  for (size_t s = 0; s < job.scalars.size(); ++s) {
    PetscCall((*scalars)[s].setup_scalar(grid, job.scalars[s].name));
    PetscCall(set_initial_scalar(job.scalars[s], (*scalars)[s]));
    PetscCall(solids.hold_scalar_values((*scalars)[s]));
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
