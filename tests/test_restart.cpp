// Checkpoint and restart: a run continued from a checkpoint on the same number of ranks is the
// same bits as one that never stopped (fields and every later frame); a checkpoint restarts on
// any number of ranks with identical fields; a job whose physics changed is refused.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "checksum.hpp"
#include "mpi_test_util.hpp"
#include "simulation.hpp"

namespace sf {
namespace {

namespace fs = std::filesystem;

/// A 2D smoke job with every stage active; `end`, `directory` and `extra` vary per run.
std::string job_text(double end, const std::string& directory, const std::string& extra = "") {
  return "name: restart\n"
         "grid: {cells: [24, 32], size: [0.75, 1.0], halo: 2}\n"
         "boundary:\n"
         "  x: free-slip\n"
         "  y: {lower: no-slip, upper: outflow}\n"
         "velocity:\n"
         "  initial: {type: vortex, center: [0.4, 0.5], radius: 0.15, strength: 0.5}\n"
         "scalars:\n"
         "  density:\n"
         "    dissipation: 0.1\n"
         "    sources: [{shape: sphere, center: [0.375, 0.15], radius: 0.08, value: 1.0,"
         " velocity: [0.0, 0.5]}]\n"
         "  temperature:\n"
         "    diffusion: 0.001\n"
         "    sources: [{shape: sphere, center: [0.375, 0.15], radius: 0.08, value: 1.0}]\n"
         "fluid: {viscosity: 0.001}\n"
         "forces:\n"
         "  buoyancy: {alpha: 0.05, beta: 1.0}\n"
         "  vorticity_confinement: 0.1\n"
         "obstacles: [{shape: sphere, center: [0.375, 0.55], radius: 0.1}]\n"
         "time: {cfl: 3.0, dt_max: 0.05, end: " + std::to_string(end) + "}\n"
         "output: {directory: " + directory + ", interval: 0.1}\n"
         "checkpoint: {every_steps: 4, keep: 2}\n" + extra;
}

std::string scratch() { return "test_restart_np" + std::to_string(test::comm_size()); }

std::vector<double> read_all(const std::string& file, const std::string& dataset) {
  std::vector<double> values;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return values;
  const hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  if (d >= 0) {
    const hid_t space = H5Dget_space(d);
    values.resize(static_cast<size_t>(H5Sget_simple_extent_npoints(space)));
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Sclose(space);
    H5Dclose(d);
  }
  H5Fclose(f);
  return values;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && !a.empty() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

const char* const kDatasets[] = {"face_velocity/x", "face_velocity/y", "density", "temperature",
                                 "pressure"};

PetscErrorCode run_job(MPI_Comm comm, const std::string& text, const std::string& restart,
                       int* steps = nullptr) {
  PetscFunctionBeginUser;
  const JobConfig job = parse_job(text, "restart.yaml");
  Simulation simulation;
  PetscCall(simulation.setup(comm, job, restart));
  PetscCall(simulation.run());
  if (steps) *steps = static_cast<int>(simulation.step_count());
  PetscFunctionReturn(0);
}

// Stop at t = 0.5 (a checkpoint is written at the end), continue to t = 1.0 from it, and compare
// with a run straight to t = 1.0: every frame after the restart and the final state agree bit for
// bit, and the index lists each frame once.
TEST(Restart, ContinuesBitForBitOnTheSameRankCount) {
  const std::string dir = scratch() + "/same";
  if (test::comm_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  int straight_steps = 0, resumed_steps = 0;
  ASSERT_EQ(run_job(PETSC_COMM_WORLD, job_text(1.0, dir + "/straight"), "", &straight_steps), 0);
  ASSERT_EQ(run_job(PETSC_COMM_WORLD, job_text(0.5, dir + "/resumed"), ""), 0);
  ASSERT_EQ(run_job(PETSC_COMM_WORLD, job_text(1.0, dir + "/resumed"), "latest", &resumed_steps),
            0);
  EXPECT_EQ(resumed_steps, straight_steps);

  long failures = 0;
  if (test::comm_rank() == 0) {
    for (int frame = 5; frame <= 10; ++frame) {
      char name[32];
      std::snprintf(name, sizeof name, "/restart_%06d.h5", frame);
      for (const char* dataset : {"velocity", "density", "temperature", "pressure"})
        EXPECT_TRUE(same_bits(read_all(dir + "/straight" + name, dataset),
                              read_all(dir + "/resumed" + name, dataset)))
            << "frame " << frame << " " << dataset;
    }
    // The index names frames 0..10 once each.
    std::ifstream index(dir + "/resumed/restart.xmf");
    const std::string text((std::istreambuf_iterator<char>(index)), std::istreambuf_iterator<char>());
    size_t count = 0;
    for (size_t at = text.find("<Time "); at != std::string::npos; at = text.find("<Time ", at + 1))
      ++count;
    EXPECT_EQ(count, 11u);
    failures += testing::Test::HasFailure() ? 1 : 0;
  }
  EXPECT_EQ(test::global_sum(failures), 0);
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// A checkpoint written by two ranks (one when the test runs alone) restarts on all ranks with the
// same fields: a checkpoint written immediately after the restart equals the original bitwise.
TEST(Restart, RestartsOnAnotherRankCountWithIdenticalFields) {
  const std::string dir = scratch() + "/other";
  const int writers = std::min(2, test::comm_size());
  if (test::comm_rank() == 0) fs::remove_all(dir);
  MPI_Comm part;
  MPI_Comm_split(MPI_COMM_WORLD, test::comm_rank() < writers ? 0 : MPI_UNDEFINED,
                 test::comm_rank(), &part);
  if (part != MPI_COMM_NULL) {
    EXPECT_EQ(run_job(part, job_text(0.3, dir + "/written"), ""), 0);
    MPI_Comm_free(&part);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  const JobConfig job = parse_job(job_text(1.0, dir + "/written",
                                           "# restarted on more ranks\n"),
                                  "restart.yaml");
  JobConfig moved = job;
  moved.checkpoint.directory = dir + "/rewritten";
  Simulation simulation;
  std::string original;
  {
    Checkpointer finder;
    Grid grid;
    ASSERT_EQ(grid.setup(PETSC_COMM_WORLD, job.grid, job.boundary), 0);
    ASSERT_EQ(finder.setup(grid, job), 0);
    ASSERT_EQ(finder.latest(&original), 0);
  }
  ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, moved, original), 0);
  std::string copy;
  ASSERT_EQ(simulation.write_checkpoint(&copy), 0);

  long failures = 0;
  if (test::comm_rank() == 0) {
    for (const char* dataset : kDatasets)
      EXPECT_TRUE(same_bits(read_all(original, dataset), read_all(copy, dataset)))
          << dataset << " written on " << writers << " ranks, re-read on " << test::comm_size();
    EXPECT_TRUE(same_bits(read_all(original, "frame_times"), read_all(copy, "frame_times")));
    failures += testing::Test::HasFailure() ? 1 : 0;
  }
  EXPECT_EQ(test::global_sum(failures), 0);
  // And the run goes on from there on this rank count.
  EXPECT_EQ(simulation.run(), 0);
  EXPECT_GE(simulation.time(), 1.0);
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// Physics may not change across a restart; output, end time and solver settings may.
TEST(Restart, RefusesAJobWhosePhysicsChanged) {
  const std::string dir = scratch() + "/refuse";
  if (test::comm_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(run_job(PETSC_COMM_WORLD, job_text(0.2, dir), ""), 0);

  std::string changed = job_text(0.4, dir);
  changed.replace(changed.find("viscosity: 0.001"), 16, "viscosity: 0.002");
  PetscCallVoid(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  PetscErrorCode code;
  {
    const JobConfig job = parse_job(changed, "restart.yaml");
    Simulation simulation;
    code = simulation.setup(PETSC_COMM_WORLD, job, "latest");
  }
  PetscCallVoid(PetscPopErrorHandler());
  EXPECT_EQ(code, PETSC_ERR_ARG_INCOMP);

  // Allowed changes: end time, output interval, solver tolerance.
  std::string allowed = job_text(0.4, dir, "pressure: {tolerance: 1e-9}\n");
  allowed.replace(allowed.find("interval: 0.1"), 13, "interval: 0.2");
  EXPECT_EQ(run_job(PETSC_COMM_WORLD, allowed, "latest"), 0);
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

/// Runs `text` and returns the PETSc error code and the first error message raised.
struct Failure {
  PetscErrorCode code = 0;
  std::string message;
};

PetscErrorCode remember_message(MPI_Comm, int, const char*, const char*, PetscErrorCode code,
                                PetscErrorType, const char* message, void* context) {
  auto* failure = static_cast<Failure*>(context);
  if (failure->message.empty() && message) failure->message = message;
  return code;  // what the handler returns is what propagates
}

template <typename Prepare>
Failure run_expecting_failure(const std::string& text, Prepare&& prepare) {
  Failure failure;
  const JobConfig job = parse_job(text, "restart.yaml");
  Simulation simulation;
  EXPECT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  prepare(simulation);
  PetscCallAbort(PETSC_COMM_WORLD, PetscPushErrorHandler(remember_message, &failure));
  failure.code = simulation.run();
  PetscCallAbort(PETSC_COMM_WORLD, PetscPopErrorHandler());
  return failure;
}

// A NaN in a passive scalar is caught after the step it is in, with the field, the step and a
// cell, the failing state goes to a debug file, and no checkpoint is written over the last good
// one.
TEST(BadState, NanStopsTheRunAfterOneStepNamingFieldAndCell) {
  const std::string dir = scratch() + "/nan";
  if (test::comm_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  std::string text = job_text(1.0, dir, "debug: {dump_on_failure: true}\n");
  text.replace(text.find("scalars:\n"), 9, "scalars:\n  dye:\n    background: 0.0\n");
  const Failure failure = run_expecting_failure(text, [](Simulation& simulation) {
    Field& dye = simulation.scalars()[0];
    PetscScalar* data;
    ArrayView s;
    EXPECT_EQ(VecGetArray(dye.global(), &data), 0);
    EXPECT_EQ(simulation.grid().global_view(dye.dm(), data, &s), 0);
    if (simulation.grid().owned_cells().contains(5, 20, 0)) s(5, 20, 0) = NAN;
    EXPECT_EQ(VecRestoreArray(dye.global(), &data), 0);
  });
  EXPECT_EQ(failure.code, PETSC_ERR_FP);
  EXPECT_NE(failure.message.find("NaN in dye at cell ("), std::string::npos) << failure.message;
  EXPECT_NE(failure.message.find("after step 1 "), std::string::npos) << failure.message;
  long missing = 0;
  if (test::comm_rank() == 0) {
    missing += !fs::exists(dir + "/restart_failed_step1_000000.h5");
    missing += fs::exists(dir + "/restart_checkpoint_00000001.h5");
  }
  EXPECT_EQ(test::global_sum(missing), 0);
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// A pressure solve that hits its iteration cap stops the run, naming the solver.
TEST(BadState, SolverAtItsCapStopsTheRunNamingTheSolver) {
  const std::string dir = scratch() + "/cap";
  if (test::comm_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  const Failure failure = run_expecting_failure(
      job_text(1.0, dir, "pressure: {tolerance: 1e-12, max_iterations: 1}\n"),
      [](Simulation&) {});
  EXPECT_EQ(failure.code, PETSC_ERR_NOT_CONVERGED);
  EXPECT_NE(failure.message.find("pressure solve did not converge"), std::string::npos)
      << failure.message;
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// --- Checksums -------------------------------------------------------------------------------

// The distributed CRC-32 is zlib's CRC of the whole array in file order, whatever the slabs: cut
// along each axis into uneven parts (some empty when there are more ranks than layers).
TEST(Checksum, DistributedCrc32IsZlibsOfTheWholeArrayForAnySlabs) {
  const int rank = test::comm_rank(), size = test::comm_size();
  long failures = 0;
  for (const std::vector<hsize_t>& global :
       {std::vector<hsize_t>{7, 5, 9}, std::vector<hsize_t>{3, 11}, std::vector<hsize_t>{13},
        std::vector<hsize_t>{2, 6, 1}}) {
    hsize_t total = 1;
    for (hsize_t n : global) total *= n;
    std::vector<double> whole(total);
    for (hsize_t n = 0; n < total; ++n) whole[n] = std::sin(1.0 + static_cast<double>(n));
    const std::uint32_t expected = crc32_of(whole.data(), whole.size() * sizeof(double));
    for (size_t axis = 0; axis < global.size(); ++axis) {
      // Rank r owns layers cut[r] to cut[r + 1] of `axis`: even shares, every odd rank's
      // boundary moved up by one, so parts differ in size and may be empty.
      std::vector<hsize_t> cut(static_cast<size_t>(size) + 1, global[axis]);
      for (int r = 0; r < size; ++r)
        cut[r] = std::max(r > 0 ? cut[r - 1] : 0,
                          std::min<hsize_t>(global[axis], static_cast<hsize_t>(r) * global[axis] /
                                                              static_cast<hsize_t>(size) + r % 2));
      Slab slab{global, std::vector<hsize_t>(global.size(), 0), global};
      slab.offset[axis] = cut[rank];
      slab.count[axis] = cut[rank + 1] - cut[rank];
      std::vector<double> mine;
      std::vector<hsize_t> index(global.size(), 0);
      hsize_t owned = 1;
      for (hsize_t n : slab.count) owned *= n;
      for (hsize_t n = 0; n < owned; ++n) {
        hsize_t linear = 0;
        for (size_t a = 0; a < global.size(); ++a)
          linear = linear * global[a] + slab.offset[a] + index[a];
        mine.push_back(whole[linear]);
        for (size_t a = global.size(); a-- > 0;) {
          if (++index[a] < slab.count[a]) break;
          index[a] = 0;
        }
      }
      std::uint32_t crc = 0;
      EXPECT_EQ(distributed_crc32(PETSC_COMM_WORLD, slab, mine.data(), &crc), 0);
      EXPECT_EQ(crc, expected) << global.size() << "D array cut along axis " << axis;
    }
  }
  failures += testing::Test::HasFailure() ? 1 : 0;
  EXPECT_EQ(test::global_sum(failures), 0);
}

}  // namespace
}  // namespace sf
