// Whole steps through the Simulation with the solvers a job chooses (the solvers themselves are
// tested in tests/solvers): the periodic FFT projection and diffusion against the Krylov ones
// over Taylor-Green steps, and a viscosity that follows a job's scalar through the whole step.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "field_test_util.hpp"
#include "mpi_test_util.hpp"
#include "petsc_test_util.hpp"
#include "simulation.hpp"
#include "viscosity_jump_channel.hpp"

namespace sf {
namespace {

using test::channel;
using test::kHeight;
using test::kJump;
using test::kNuAbove;
using test::kNuBelow;
using test::max_abs;
using test::max_difference;
using test::max_error;
using test::poiseuille;
using test::two_viscosities;

// Whole steps of the Taylor-Green vortex (advection, viscosity, projection) with both solves
// by FFT against both by Krylov with rtol 1e-13. A Krylov solve leaves a relative residual of
// 1e-13, which the pressure error can amplify by at most the condition number of -L on the
// mean-free modes, lambda_max / lambda_min ~ 80 on this grid; over three steps (advection does
// not amplify a smooth difference) that is 3e-11 of the velocity. (Measured: 3e-14, the initial
// field being divergence-free.) The FFT steps report no iterations and leave the divergence at
// rounding.
TEST(FftSolvers, TaylorGreenStepsAgreeWithKrylov) {
  const std::string size = std::to_string(test::comm_size());
  auto job_text = [&](const std::string& solver, const std::string& tolerances) {
    return "name: tg_" + solver + "_np" + size +
           "\n"
           "grid: {cells: [16, 12, 10], size: [6.283185307179586, 6.283185307179586, "
           "6.283185307179586], halo: 2}\n"
           "boundary: {x: periodic, y: periodic, z: periodic}\n"
           "velocity: {initial: {type: taylor_green, strength: 1.0}}\n"
           "fluid: {viscosity: 0.05}\n"
           "time: {dt: 0.1, end: 0.3}\n"
           "pressure: {solver: " + solver + tolerances + "}\n"
           "diffusion: {solver: " + solver + tolerances + "}\n"
           "output: {directory: test_fft_projection_output, interval: 1.0, overwrite: true}\n";
  };
  const JobConfig fft_job = parse_job(job_text("fft", ""), "fft.yaml");
  const JobConfig krylov_job =
      parse_job(job_text("krylov", ", tolerance: 1e-13, absolute_tolerance: 0"), "krylov.yaml");
  Simulation fft, krylov;
  ASSERT_EQ(fft.setup(PETSC_COMM_WORLD, fft_job), 0);
  ASSERT_EQ(krylov.setup(PETSC_COMM_WORLD, krylov_job), 0);
  const double h = 6.283185307179586 / 16.0;
  for (int step = 0; step < 3; ++step) {
    StepReport fft_report, krylov_report;
    ASSERT_EQ(fft.step(0.1, &fft_report), 0);
    ASSERT_EQ(krylov.step(0.1, &krylov_report), 0);
    EXPECT_EQ(fft_report.pressure_iterations, 0);
    EXPECT_EQ(fft_report.diffusion_iterations, 0);
    EXPECT_GT(krylov_report.pressure_iterations, 0);
    EXPECT_LE(fft_report.max_divergence, 1e-13 * max_abs(fft.velocity().global()) / h);
  }
  EXPECT_LE(max_difference(fft.velocity().global(), krylov.velocity().global(), false),
            3e-11 * max_abs(krylov.velocity().global()));
}

// The whole step with fluid.viscosity: {from: wax, ...}: Poiseuille flow through the jump, driven
// by gravity along x, with the wax second among the job's scalars (the step must pick the one
// the law names). Advection along x of fields constant in x and the projection of a flow without
// divergence change nothing, so the steady state is the solve's: the exact profile up to the
// no-slip ghost's g h^2 / (8 nu1).
TEST(VariableViscositySimulation, PoiseuilleThroughTheWholeStep) {
  const double g = 8.0;
  const long n = 32;
  JobConfig job;
  job.name = "poiseuille";
  job.grid.dim = 2;
  job.grid.cells = {4, n, 1};
  job.grid.size = {0.5, kHeight, 1.0};
  job.boundary = channel(2);
  for (const char* name : {"dye", "wax"}) {
    ScalarConfig scalar;
    scalar.name = name;
    job.scalars.push_back(scalar);
  }
  ScalarBlob upper;
  upper.region.lower = {-1.0, kJump, 0.0};
  upper.region.upper = {2.0, 2.0, 1.0};
  upper.value = 1.0;
  job.scalars[1].initial.push_back(upper);
  job.scalars[0].initial.push_back(upper);
  job.scalars[0].initial.back().value = 0.5;  // not the law's scalar: it must not matter
  job.fluid.variable = two_viscosities(kNuBelow, kNuAbove, ViscosityAverage::Harmonic);
  job.forces.gravity = {g, 0.0, 0.0};
  job.diffusion.rtol = 1e-12;
  job.diffusion.atol = 1e-50;
  job.diffusion.max_iterations = 1000;
  job.time.dt = 2.0;
  job.time.end = 40.0;
  job.output.directory = "test_variable_viscosity_np" + std::to_string(test::comm_size());
  job.output.overwrite = true;
  {
    Simulation simulation;
    ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
    // Each step divides the distance to the steady state by 1 + dt lambda_min, about 20.
    for (int step = 0; step < 20; ++step) {
      StepReport report;
      ASSERT_EQ(simulation.step(job.time.dt, &report), 0);
      EXPECT_LT(report.max_divergence, 1e-9);
    }
    const double error = max_error(simulation.velocity(), [&](int c, double, double y, double) {
      return c == 1 ? 0.0 : poiseuille(g, y);
    });
    const double h = kHeight / static_cast<double>(n);
    EXPECT_NEAR(error, g * h * h / (8.0 * kNuBelow), 1e-6 * g * h * h);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (test::comm_rank() == 0) std::filesystem::remove_all(job.output.directory);
}

}  // namespace
}  // namespace sf
