// The step's own check of the state, through a whole Simulation (the scan itself is tested in
// tests/mac/test_health.cpp): a velocity that is infinite, or finite but fast enough to carry a
// departure point more than a million domain lengths in one step, stops the step before the
// advection traces it, on every rank, naming the face, with the failing state dumped.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

#include "field_test_util.hpp"
#include "mpi_test_util.hpp"
#include "simulation_test_util.hpp"
#include "test_boundaries.hpp"

namespace sf {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A small smoke job in `directory` that dumps its state when it fails.
JobConfig small_job(const std::string& directory) {
  JobConfig job;
  job.name = "health";
  job.grid.dim = 2;
  job.grid.cells = {16, 12, 1};
  job.grid.halo = 2;
  job.boundary = test::all(BoundaryKind::FreeSlip);
  job.time.dt = 0.01;
  job.time.end = 0.1;
  job.output.directory = directory;
  job.output.overwrite = true;
  job.debug.dump_on_failure = true;
  return job;
}

/// Runs one step of `simulation`; returns the error code and the message of the failure.
PetscErrorCode one_step(Simulation& simulation, double dt, std::string* text) {
  text->clear();
  const PetscErrorCode code = test::run_until_failure(simulation, dt, 1, text);
  EXPECT_EQ(test::global_sum(code != 0 ? 1 : 0), code != 0 ? test::comm_size() : 0);
  return code;
}

// An infinite velocity is stopped before advection (which would trace its departure points to
// nowhere) as the NaN/Inf stop, with the failing state dumped; so is a finite one that would
// carry a departure point more than a million domain lengths in one step.
TEST(StepChecks, TheStepStopsABlownUpVelocityBeforeAdvection) {
  const std::string dir = "test_step_checks_np" + std::to_string(test::comm_size());
  const JobConfig job = small_job(dir);
  for (const double bad : {kInf, 2e8}) {
    Simulation simulation;
    ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
    EXPECT_GE(test::poke(simulation.velocity().global(), simulation.grid().face_dm(), 1, 7, 5, 0,
                         bad),
              1);
    std::string text;
    EXPECT_EQ(one_step(simulation, 0.01, &text), PETSC_ERR_FP);
    const char* want = std::isinf(bad) ? "Inf in velocity component 1 at face (7, 5) (x ="
                                       : "velocity component 1 = 2e+08 at face (7, 5) (x =";
    EXPECT_NE(text.find(want), std::string::npos) << text;
    EXPECT_NE(text.find("after the sources and forces of step 1 "), std::string::npos) << text;
    if (!std::isinf(bad)) {
      EXPECT_NE(text.find("more than 1e+06 domain lengths in one step"), std::string::npos) << text;
    }
    EXPECT_NE(text.find("The failing state is in " + dir + "/health_failed_step1_000000.h5"),
              std::string::npos)
        << text;
    long dumped = test::comm_rank() == 0 &&
                  std::filesystem::exists(dir + "/health_failed_step1_000000.h5");
    EXPECT_EQ(test::global_sum(dumped), 1);
    // Just under the limit the step runs (the projection makes what it can of it).
    EXPECT_GE(test::poke(simulation.velocity().global(), simulation.grid().face_dm(), 1, 7, 5, 0,
                         0.9e8),
              1);
    EXPECT_EQ(one_step(simulation, 0.01, &text), 0);
  }
  if (test::comm_rank() == 0) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sf
