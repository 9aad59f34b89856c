// Steering a running job (steering.hpp): force regions and sources written to the steering file
// between steps act from the next step on, a file that does not parse changes nothing, and an
// emptied or removed file stops them; at every rank count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "field_test_util.hpp"
#include "mpi_test_util.hpp"
#include "simulation.hpp"

namespace sf {
namespace {

std::string steering_file() {
  return "steer_np" + std::to_string(test::comm_size()) + ".yaml";
}

/// Writes (or with text == nullptr removes) the steering file on rank 0; every rank waits.
void steer(const char* text) {
  if (test::comm_rank() == 0) {
    if (text)
      std::ofstream(steering_file()) << text;
    else
      std::remove(steering_file().c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/// The smoke in the cell whose centre is nearest (x, y), on every rank.
double smoke_at(Simulation& simulation, double x, double y) {
  const Grid& grid = simulation.grid();
  const PetscInt i = static_cast<PetscInt>(x / grid.spacing(0));
  const PetscInt j = static_cast<PetscInt>(y / grid.spacing(1));
  const Field& smoke = simulation.scalars()[0];
  const PetscScalar* data;
  ArrayView s;
  EXPECT_EQ(VecGetArrayRead(smoke.global(), &data), 0);
  EXPECT_EQ(grid.global_view(smoke.dm(), const_cast<PetscScalar*>(data), &s), 0);
  const double mine = grid.owned_cells().contains(i, j, 0) ? s(i, j, 0) : -HUGE_VAL;
  EXPECT_EQ(VecRestoreArrayRead(smoke.global(), &data), 0);
  double value = 0.0;
  MPI_Allreduce(&mine, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return value;
}

TEST(Steering, ForcesAndSourcesFromTheFileActUntilItIsEmptiedAndABadFileChangesNothing) {
  steer(nullptr);
  const std::string text =
      "name: steered\n"
      "grid: {cells: [16, 16]}\n"
      "boundary: {x: periodic, y: periodic}\n"
      "scalars: {smoke: {}}\n"
      "steering: {file: " + steering_file() + "}\n"
      "time: {dt: 0.1, end: 10}\n"
      "output: {directory: steered_np" + std::to_string(test::comm_size()) +
      ", overwrite: true, initial_frame: false}\n";
  const JobConfig job = parse_job(text, "steered.yaml");
  Simulation simulation;
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  const double dt = job.time.dt;
  const auto step = [&] {
    StepReport report;
    ASSERT_EQ(simulation.step(dt, &report), 0);
  };
  step();  // no file: nothing moves
  EXPECT_EQ(test::uniform_flow_departure(simulation.velocity(), 0.0), 0.0);

  // A uniform push over the whole periodic box: the projection leaves a uniform velocity as it
  // is, so after n steps u = n dt a exactly.
  steer("forces: [{shape: box, lower: [-1, -1], upper: [2, 2], acceleration: [1, 0]}]\n");
  for (int n = 1; n <= 3; ++n) {
    step();
    EXPECT_LT(test::uniform_flow_departure(simulation.velocity(), n * dt), 1e-12)
        << "step " << n;
  }
  steer("forces: [{shape: box, lower: [-1, -1]}]\n");  // no upper, no acceleration: refused
  step();
  // The push goes on as it was.
  EXPECT_LT(test::uniform_flow_departure(simulation.velocity(), 4 * dt), 1e-12);
  steer("");                                          // emptied: nothing steered
  step();
  EXPECT_LT(test::uniform_flow_departure(simulation.velocity(), 4 * dt), 1e-12);

  // A source holds the smoke at 1 in its box (which the flow, uniform at 0.4, carries on).
  steer("sources: {smoke: [{shape: box, lower: [0.25, 0.25], upper: [0.5, 0.5], value: 1}]}\n");
  step();
  EXPECT_EQ(smoke_at(simulation, 0.375, 0.375), 1.0);
  EXPECT_EQ(smoke_at(simulation, 0.875, 0.875), 0.0);
  steer(nullptr);  // removed: the source stops, the smoke it left drifts away
  for (int n = 0; n < 5; ++n) step();
  EXPECT_LT(smoke_at(simulation, 0.375, 0.375), 1.0);
  EXPECT_LT(test::uniform_flow_departure(simulation.velocity(), 4 * dt), 1e-12);
}

TEST(Steering, AFileNamingAScalarTheJobLacksIsRefusedWithTheKey) {
  const JobConfig job = parse_job(
      "grid: {cells: [8, 8]}\nscalars: {smoke: {}}\ntime: {dt: 0.1, end: 1}\n", "job.yaml");
  try {
    (void)parse_steering("sources:\n  dust: [{shape: sphere, center: [0, 0], radius: 1, value: 1}]\n",
                         "steer.yaml", job);
    ADD_FAILURE() << "no JobError";
  } catch (const JobError& error) {
    EXPECT_NE(std::string(error.what()).find("steer.yaml:2: sources.dust: the job has no scalar "
                                             "of this name"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(parse_steering("# nothing yet\n", "steer.yaml", job).count(), 0u);
}

}  // namespace
}  // namespace sf
