// The steps CSV's flow measures (src/physics/diagnostics.cpp) against values known in closed form
// on the discrete grid, at every rank count and process layout:
// * the Taylor-Green vortex u = sin x cos y, v = -cos x sin y on the periodic box [0, 2 pi)^2:
//   every sum of sin^2 / cos^2 over a full period of N >= 3 equally spaced samples is N / 2, and
//   every MAC difference of a sine is the sine's derivative times sigma = sin(h/2) / (h/2), so
//   E = L_x L_y / 4, Z = (sigma_x + sigma_y)^2 L_x L_y / 8, eps = nu (sigma_x^2 + sigma_y^2)
//   L_x L_y / 2, and the total of s = 2 + cos x sin y is 2 L_x L_y;
// * a uniform stream through an inflow and an outflow face between free-slip walls: the
//   trapezoid weights of the two boundary faces make E = u^2 L_x L_y / 2 exactly, and nothing
//   in it rotates or shears (Z = eps = 0);
// * probes in an affine field, which linear interpolation reproduces to rounding, in 2D and 3D.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "diagnostics.hpp"
#include "field_test_util.hpp"
#include "mpi_test_util.hpp"
#include "test_boundaries.hpp"

namespace sf {
namespace {

using test::all;
using test::Boundaries;
using test::face;
using test::set_field;

/// Grid, mask, fields and diagnostics of one case; held by pointer since they keep addresses.
struct Case {
  JobConfig job;
  Grid grid;
  SolidMask solids;
  Field velocity;
  std::vector<Field> scalars;
  FlowDiagnostics diagnostics;
};

std::unique_ptr<Case> make_case(const JobConfig& job, const std::array<PetscInt, 3>& processes) {
  auto c = std::make_unique<Case>();
  c->job = job;
  EXPECT_EQ(c->grid.setup(PETSC_COMM_WORLD, c->job.grid, c->job.boundary, processes), 0);
  EXPECT_EQ(c->solids.setup(c->grid, c->job.obstacles), 0);
  EXPECT_EQ(c->velocity.setup_velocity(c->grid), 0);
  c->scalars.resize(c->job.scalars.size());
  for (size_t s = 0; s < c->scalars.size(); ++s)
    EXPECT_EQ(c->scalars[s].setup_scalar(c->grid, c->job.scalars[s].name), 0);
  EXPECT_EQ(c->diagnostics.setup(c->grid, c->solids, c->job), 0);
  return c;
}

double column(const Case& c, const std::vector<double>& values, const std::string& name) {
  const auto& names = c.diagnostics.columns();
  for (size_t n = 0; n < names.size(); ++n)
    if (names[n] == name) return values[n];
  ADD_FAILURE() << "no column " << name;
  return NAN;
}

ScalarConfig scalar(const std::string& name) {
  ScalarConfig s;
  s.name = name;
  return s;
}

TEST(Diagnostics, TaylorGreenMeasuresAreTheDiscreteClosedForms) {
  JobConfig job;
  job.grid.dim = 2;
  job.grid.cells = {24, 20, 1};
  job.grid.size = {2.0 * M_PI, 2.0 * M_PI, 1.0};
  job.grid.halo = 2;
  job.boundary = all(BoundaryKind::Periodic);
  job.fluid.viscosity = 0.03;
  job.scalars = {scalar("dye")};
  for (const test::Layout& layout : test::layouts(2)) {
    auto c = make_case(job, layout.processes);
    set_field(c->velocity, [](int comp, double x, double y, double) {
      return comp == 0 ? std::sin(x) * std::cos(y) : -std::cos(x) * std::sin(y);
    });
    set_field(c->scalars[0],
              [](int, double x, double y, double) { return 2.0 + std::cos(x) * std::sin(y); });
    std::vector<double> values;
    ASSERT_EQ(c->diagnostics.measure(c->velocity, c->scalars, nullptr, &values), 0);
    ASSERT_EQ(values.size(), c->diagnostics.columns().size());
    const double area = 4.0 * M_PI * M_PI;
    const double hx = c->grid.spacing(0), hy = c->grid.spacing(1);
    const double sx = std::sin(hx / 2.0) / (hx / 2.0), sy = std::sin(hy / 2.0) / (hy / 2.0);
    const double energy = area / 4.0;
    const double enstrophy = (sx + sy) * (sx + sy) * area / 8.0;
    const double dissipation = job.fluid.viscosity * (sx * sx + sy * sy) * area / 2.0;
    EXPECT_NEAR(column(*c, values, "kinetic_energy"), energy, 1e-13 * energy) << layout.name;
    EXPECT_NEAR(column(*c, values, "enstrophy"), enstrophy, 1e-13 * enstrophy) << layout.name;
    EXPECT_NEAR(column(*c, values, "dissipation"), dissipation, 1e-13 * dissipation)
        << layout.name;
    EXPECT_NEAR(column(*c, values, "dye_total"), 2.0 * area, 1e-13 * area) << layout.name;
  }
}

TEST(Diagnostics, UniformStreamUsesTrapezoidWeightsAndHasNoShear) {
  JobConfig job;
  job.grid.dim = 2;
  job.grid.cells = {10, 7, 1};
  job.grid.size = {2.5, 1.75, 1.0};
  job.grid.halo = 1;
  job.boundary = all(BoundaryKind::FreeSlip);
  job.boundary[0][0] = face(BoundaryKind::Inflow);
  job.boundary[0][0].velocity = {3.0, 0.0, 0.0};
  job.boundary[0][1] = face(BoundaryKind::Outflow);
  job.fluid.viscosity = 0.1;
  for (const test::Layout& layout : test::layouts(2)) {
    auto c = make_case(job, layout.processes);
    set_field(c->velocity,
              [](int comp, double, double, double) { return comp == 0 ? 3.0 : 0.0; });
    std::vector<double> values;
    ASSERT_EQ(c->diagnostics.measure(c->velocity, c->scalars, nullptr, &values), 0);
    const double energy = 0.5 * 9.0 * 2.5 * 1.75;
    EXPECT_NEAR(column(*c, values, "kinetic_energy"), energy, 1e-14 * energy) << layout.name;
    EXPECT_EQ(column(*c, values, "enstrophy"), 0.0) << layout.name;
    EXPECT_EQ(column(*c, values, "dissipation"), 0.0) << layout.name;
  }
}

TEST(Diagnostics, ProbesReproduceAnAffineField) {
  for (int dim : {2, 3}) {
    JobConfig job;
    job.grid.dim = dim;
    job.grid.cells = {9, 8, dim == 3 ? 7 : 1};
    job.grid.size = {1.0, 2.0, dim == 3 ? 1.5 : 1.0};
    job.grid.origin = {-0.5, 0.25, 0.0};
    job.grid.halo = 1;
    job.boundary = all(BoundaryKind::NoSlip);
    job.scalars = {scalar("a"), scalar("b")};
    // Between samples on every axis, on sample planes, on rank boundaries of some layouts, and
    // in the last cells before the upper walls; every stencil stays off the prescribed wall
    // faces and the ghosts, whose values no-slip sets instead of the affine field's.
    const std::vector<std::array<double, 3>> points = {
        {-0.2, 0.6, 0.4}, {0.013, 1.25, 0.75}, {0.37, 1.9, 1.1}, {0.0, 1.0, 0.5}};
    for (size_t p = 0; p < points.size(); ++p)
      job.diagnostics.probes.push_back({"p" + std::to_string(p), points[p]});
    auto affine = [](int q, double x, double y, double z) {
      return 0.25 + 0.5 * q + (1.0 + q) * x - 2.0 * y + (q == 1 ? 0.75 : -0.5) * z;
    };
    for (const test::Layout& layout : test::layouts(dim)) {
      auto c = make_case(job, layout.processes);
      set_field(c->velocity, affine);
      for (int s = 0; s < 2; ++s)
        set_field(c->scalars[s], [&](int, double x, double y, double z) {
          return affine(3 + s, x, y, z);
        });
      std::vector<double> values;
      ASSERT_EQ(c->diagnostics.measure(c->velocity, c->scalars, nullptr, &values), 0);
      const char* names[3] = {"u", "v", "w"};
      for (size_t p = 0; p < points.size(); ++p) {
        // A 2D grid's samples sit at the middle of its one cell along z.
        double x[3] = {points[p][0], points[p][1],
                       dim == 3 ? points[p][2] : c->grid.cell_center(2, 0)};
        const std::string probe = "probe_p" + std::to_string(p) + "_";
        for (int q = 0; q < dim; ++q)
          EXPECT_NEAR(column(*c, values, probe + names[q]), affine(q, x[0], x[1], x[2]), 1e-13)
              << layout.name << " " << probe << names[q];
        for (int s = 0; s < 2; ++s)
          EXPECT_NEAR(column(*c, values, probe + "ab"[s]), affine(3 + s, x[0], x[1], x[2]),
                      1e-13)
              << layout.name << " " << probe << "ab"[s];
      }
    }
  }
}

// Walls that hold a scalar at a value report the diffusive flux through them and, since the two
// walls' values differ, their Nusselt numbers. The one-sided difference from two cells is exact
// for a quadratic profile, so with s = 2 - 3 x + 0.8 x^2 on [0, 1.5] (walls: s(0) = 2 at x lower,
// s(1.5) = -0.7 at x upper; the y walls insulate and report nothing) and kappa = 0.4:
//   lower: ds/dn = s'(0) = -3,               F = -kappa s'(0) L_y = 1.2 L_y
//   upper: ds/dn = -s'(1.5) = -(-3 + 2.4),   F = kappa (-0.6) L_y = -0.24 L_y
// and Nu = (F / kappa) / L_y * L_x / dT with dT = 2.7.
TEST(Diagnostics, DirichletWallsReportExactFluxAndNusseltForAQuadratic) {
  JobConfig job;
  job.grid.dim = 2;
  job.grid.cells = {12, 10, 1};
  job.grid.size = {1.5, 2.0, 1.0};
  job.grid.halo = 1;
  job.boundary = all(BoundaryKind::NoSlip);
  job.boundary[0][0].scalar_values["heat"] = 2.0;
  job.boundary[0][1] = face(BoundaryKind::FreeSlip);
  job.boundary[0][1].scalar_values["heat"] = 2.0 - 3.0 * 1.5 + 0.8 * 1.5 * 1.5;
  job.scalars = {scalar("heat"), scalar("dye")};
  job.scalars[0].diffusion = 0.4;
  for (const test::Layout& layout : test::layouts(2)) {
    auto c = make_case(job, layout.processes);
    EXPECT_EQ(c->diagnostics.columns().back(), "heat_nusselt_x_upper");
    set_field(c->scalars[0],
              [](int, double x, double, double) { return 2.0 - 3.0 * x + 0.8 * x * x; });
    std::vector<double> values;
    ASSERT_EQ(c->diagnostics.measure(c->velocity, c->scalars, nullptr, &values), 0);
    const double ly = 2.0, lx = 1.5, dt = 2.7;
    EXPECT_NEAR(column(*c, values, "heat_flux_x_lower"), 1.2 * ly, 1e-12) << layout.name;
    EXPECT_NEAR(column(*c, values, "heat_flux_x_upper"), -0.24 * ly, 1e-12) << layout.name;
    EXPECT_NEAR(column(*c, values, "heat_nusselt_x_lower"), 3.0 * lx / dt, 1e-12) << layout.name;
    EXPECT_NEAR(column(*c, values, "heat_nusselt_x_upper"), -0.6 * lx / dt, 1e-12)
        << layout.name;
  }
}

/// A periodic channel (10 x 16 cells of h = 0.125, viscosity 0.07) whose bottom up to y0 is an
/// obstacle with the given surface.
JobConfig floor_job(double y0, ObstacleConfig::Surface surface) {
  JobConfig job;
  job.grid.dim = 2;
  job.grid.cells = {10, 16, 1};
  job.grid.size = {1.25, 2.0, 1.0};
  job.grid.halo = 1;
  job.boundary = all(BoundaryKind::NoSlip);
  job.boundary[0] = {face(BoundaryKind::Periodic), face(BoundaryKind::Periodic)};
  job.fluid.viscosity = 0.07;
  ObstacleConfig floor;
  floor.region.shape = Region::Shape::Box;
  floor.region.lower = {-1.0, -1.0, -1.0};
  floor.region.upper = {2.0, y0, 2.0};
  floor.surface = surface;
  job.obstacles = {floor};
  return job;
}

/// The measures of the case with the shear flow u = gamma (y - y0) and the pressure p = 2 + 3 y.
std::vector<double> measure_shear_over_floor(Case& c, double gamma, double y0) {
  set_field(c.velocity, [&](int comp, double, double y, double) {
    return comp == 0 ? gamma * (y - y0) : 0.0;
  });
  OwnedVec pressure;
  EXPECT_EQ(DMCreateGlobalVector(c.grid.cell_dm(), pressure.replace()), 0);
  PetscScalar* data;
  ArrayView p;
  EXPECT_EQ(VecGetArray(pressure, &data), 0);
  EXPECT_EQ(c.grid.global_view(c.grid.cell_dm(), data, &p), 0);
  for_each_index(c.grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    p(i, j, k) = 2.0 + 3.0 * c.grid.cell_center(1, j);
  });
  EXPECT_EQ(VecRestoreArray(pressure, &data), 0);
  std::vector<double> values;
  EXPECT_EQ(c.diagnostics.measure(c.velocity, c.scalars, pressure, &values), 0);
  return values;
}

// An obstacle filling the bottom of a periodic channel under the shear flow u = g (y - y0) and
// the pressure p = 2 + 3 y: its top face carries the shear nu g L_x along x and the pressure
// -p(y0) L_x along y, and the one-sided difference and the extrapolation from two cells are
// exact for these linear profiles. With the reference U = 2, A = 0.5, c = 2 F / (U^2 A) = F.
TEST(Diagnostics, ObstacleForcesAreExactForLinearShearAndPressure) {
  const double gamma = 1.5, y0 = 0.5, lx = 1.25;  // y0: the top of cells 0-3
  JobConfig job = floor_job(y0, ObstacleConfig::Surface::Staircase);
  job.diagnostics.reference_velocity = 2.0;
  job.diagnostics.reference_area = 0.5;
  for (const test::Layout& layout : test::layouts(2)) {
    auto c = make_case(job, layout.processes);
    const std::vector<double> values = measure_shear_over_floor(*c, gamma, y0);
    const double fx = job.fluid.viscosity * gamma * lx, fy = -(2.0 + 3.0 * y0) * lx;
    EXPECT_NEAR(column(*c, values, "obstacle0_fx"), fx, 1e-13) << layout.name;
    EXPECT_NEAR(column(*c, values, "obstacle0_fy"), fy, 1e-12) << layout.name;
    EXPECT_NEAR(column(*c, values, "obstacle0_cx"), fx, 1e-13) << layout.name;
    EXPECT_NEAR(column(*c, values, "obstacle0_cy"), fy, 1e-12) << layout.name;
  }
}

// The same flow over a cut floor whose surface lies inside a row of cells: the closed part of
// the cut cells' faces is the surface, the pressure extrapolated to it and the shear from the
// quadratic through it (or from one cell, where the first centre lies inside the floor) are
// exact for linear fields, on every layout.
TEST(Diagnostics, CutObstacleForcesAreExactForLinearShearAndPressure) {
  const double gamma = 1.5, lx = 1.25;
  for (double y0 : {0.51, 0.6}) {
    const JobConfig job = floor_job(y0, ObstacleConfig::Surface::Cut);
    for (const test::Layout& layout : test::layouts(2)) {
      auto c = make_case(job, layout.processes);
      const std::vector<double> values = measure_shear_over_floor(*c, gamma, y0);
      EXPECT_NEAR(column(*c, values, "obstacle0_fx"), job.fluid.viscosity * gamma * lx, 1e-13)
          << layout.name << ", y0 " << y0;
      EXPECT_NEAR(column(*c, values, "obstacle0_fy"), -(2.0 + 3.0 * y0) * lx, 1e-12)
          << layout.name << ", y0 " << y0;
    }
  }
}

// A floor that holds "heat" at 2 under the linear profile s = 2 + g (y - y0): the flux into the
// fluid through its surface is -kappa g L_x, which the segments from the first free centres to
// the surface give exactly wherever it lies (theta h cancels), on every layout; the staircase's
// surface is its top face (y0 = 0.5 there).
TEST(Diagnostics, ObstacleScalarFluxIsExactForALinearProfile) {
  const double g = -1.5, lx = 1.25, kappa = 0.3;
  for (double y0 : {0.5, 0.51, 0.6}) {
    for (auto surface : {ObstacleConfig::Surface::Staircase, ObstacleConfig::Surface::Cut}) {
      if (surface == ObstacleConfig::Surface::Staircase && y0 != 0.5) continue;
      JobConfig job = floor_job(y0, surface);
      job.scalars = {scalar("heat")};
      job.scalars[0].diffusion = kappa;
      job.obstacles[0].scalar_values["heat"] = 2.0;
      for (const test::Layout& layout : test::layouts(2)) {
        auto c = make_case(job, layout.processes);
        set_field(c->scalars[0], [&](int, double, double y, double) { return 2.0 + g * (y - y0); });
        const std::vector<double> values = measure_shear_over_floor(*c, 0.0, y0);
        EXPECT_NEAR(column(*c, values, "obstacle0_heat_flux"), -kappa * g * lx, 1e-12)
            << layout.name << ", y0 " << y0;
      }
    }
  }
}

}  // namespace
}  // namespace sf
