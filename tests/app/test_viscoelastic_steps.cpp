// Viscoelastic fluids (viscoelastic.hpp; Goktekin et al. 2004, Cline et al. §8) in whole steps
// through the Simulation, with the projection and the viscosity: a deformed blob of material
// springs back when it is elastic and keeps its new shape when it yields. The module's stages
// (strain rate, yield, force, the liquid's cells, rank invariance) are tested on a grid:
// tests/physics/test_viscoelastic.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "mpi_test_util.hpp"
#include "simulation.hpp"
#include "simulation_test_util.hpp"
#include "vec_array.hpp"
#include "viscoelastic_case.hpp"

namespace sf {
namespace {

using test::viscoelastic::box_job;

// Elastic recovery and plastic set, what the material is for. A disc of material (radius 0.25,
// the scalar `material`) in the middle of a closed box is stretched by a Taylor-Green flow, whose
// centre is a pure strain: u = 2 pi A (x - 1/2), v = -2 pi A (y - 1/2) near it. Its shape is
// measured by the anisotropy of its second moments, (I_xx - I_yy) / (I_xx + I_yy), weighted by the
// material scalar: 0 for the disc (the grid is symmetric under x <-> y), tanh(2 s) for an ellipse
// stretched by e^s.
/// The anisotropy of the material's second moments about its centroid. Collective.
double anisotropy(Simulation& simulation) {
  const Grid& grid = simulation.grid();
  // sum s, s x, s y, s x^2, s y^2
  double local[5] = {0, 0, 0, 0, 0};
  ReadArray material;
  EXPECT_EQ(material.get_global(simulation.scalars()[0]), 0);
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const double s = material(i, j, k);
    const double x = grid.cell_center(0, i), y = grid.cell_center(1, j);
    local[0] += s;
    local[1] += s * x;
    local[2] += s * y;
    local[3] += s * x * x;
    local[4] += s * y * y;
  });
  double total[5];
  MPI_Allreduce(local, total, 5, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
  const double xc = total[1] / total[0], yc = total[2] / total[0];
  const double ixx = total[3] / total[0] - xc * xc, iyy = total[4] / total[0] - yc * yc;
  return (ixx - iyy) / (ixx + iyy);
}

/// Runs the stretched disc to t = `end` (dt = 0.01) and returns its anisotropy then, and the
/// largest it had on the way in *peak.
double stretch(const std::string& name, const std::string& viscoelastic, double end,
               double* peak) {
  const std::string flow =
      "velocity: {initial: {type: taylor_green, strength: 0.05}}\n"
      "fluid: {viscosity: 0.01}\n";
  const JobConfig job = parse_job(box_job(name, 2, 32, viscoelastic, flow), name + ".yaml");
  Simulation simulation;
  EXPECT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  *peak = 0.0;
  const int steps = static_cast<int>(std::lround(end / 0.01));
  double shape = 0.0;
  for (int s = 0; s < steps; ++s) {
    EXPECT_EQ(test::run_steps(simulation, 0.01, 1), 0);
    shape = anisotropy(simulation);
    *peak = std::max(*peak, std::abs(shape));
  }
  return shape;
}

// Three runs of the same flow to t = 4: the plain fluid (no viscoelastic section), an elastic
// material (k_em = 1, no yield) and a plastic one (k_em = 1, k_yp = 0.01, k_yr = 50: strain
// beyond 1 % is given up within a few steps, as dt k_yr = 0.5). On 32^2 cells at dt = 0.01 they
// give (1 to 4 ranks alike, to the digits shown): the fluid's disc is stretched on and on by the
// Taylor-Green flow as it decays (nu = 0.01), anisotropy 0.41 at t = 4; the elastic one is
// stretched to 0.08 by t = 0.4, springs back through its rest shape and oscillates about it
// (period about 1.6, the swings damped by the viscosity and the advection's smoothing: 0.038
// at t = 1.2, 0.012 at t = 2.8, under 0.006 after t = 3.2); the plastic one is stretched to
// 0.19 by t = 1.2 and keeps 0.17 to the end. The thresholds sit a factor of two or more from
// those numbers.
TEST(Viscoelastic, DeformedBlobRecoversWhenElasticAndKeepsItsShapeWhenPlastic) {
  const double end = 4.0;
  double peak_fluid = 0, peak_elastic = 0, peak_plastic = 0;
  const double fluid = stretch("fluid", "", end, &peak_fluid);
  const double elastic = stretch("elastic", "elastic_modulus: 1", end, &peak_elastic);
  const double plastic =
      stretch("plastic", "elastic_modulus: 1, yield_point: 0.01, yield_rate: 50", end,
              &peak_plastic);
  if (test::comm_rank() == 0)
    std::printf("anisotropy at t = %g (largest on the way): fluid %.4f (%.4f), elastic %.4f "
                "(%.4f), plastic %.4f (%.4f)\n",
                end, fluid, peak_fluid, elastic, peak_elastic, plastic, peak_plastic);
  // The flow deforms every disc: a stretch by e^s along x gives tanh(2 s), so 0.04 is a 2 %
  // stretch at least.
  EXPECT_GT(fluid, 0.3);
  EXPECT_GT(peak_elastic, 0.04);
  EXPECT_GT(peak_plastic, 0.1);
  // Elastic: back near the disc, within a quarter of its largest deformation (measured 5 %) and
  // far closer than the fluid without elasticity (measured 1 % of it).
  EXPECT_LT(std::abs(elastic), 0.25 * peak_elastic);
  EXPECT_LT(std::abs(elastic), 0.05 * fluid);
  // Plastic: it keeps its new shape, giving back less than a quarter of its largest
  // deformation (measured 8 %), and stays deformed 10 times more than the elastic one.
  EXPECT_GT(plastic, 0.75 * peak_plastic);
  EXPECT_GT(plastic, 10.0 * std::abs(elastic));
}

}  // namespace
}  // namespace sf
