// Checkpoint and restart: a run continued from a checkpoint on the same number of ranks is the
// same bits as one that never stopped (fields and every later frame); a checkpoint restarts on
// any number of ranks with identical fields; a job whose physics changed is refused. Damage is
// found: bytes changed in any dataset or restart attribute fail the checksum that names it, on
// every rank and whatever the rank counts that wrote and read; `latest` falls back past damaged
// checkpoints and says which; pruning never removes the checkpoint just written.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "checksum.hpp"
#include "errors.hpp"
#include "mpi_test_util.hpp"
#include "simulation.hpp"
#include "particle_level_set.hpp"

namespace sf {
namespace {

namespace fs = std::filesystem;

/// A 2D smoke job with every stage active; `end`, `directory` and `extra` vary per run.
std::string job_text(double end, const std::string& directory, const std::string& extra = "",
                     const std::string& scheme = "stam", const std::string& obstacle_keys = "") {
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
         "obstacles: [{shape: sphere, center: [0.375, 0.55], radius: 0.1" + obstacle_keys +
         "}]\n"
         "time: {scheme: " + scheme + ", cfl: 3.0, dt_max: 0.05, end: " + std::to_string(end) +
         "}\n"
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
// bit, and the index lists each frame once. With time.scheme `scheme`, and `extra` added to the
// job (its fields listed in `more_datasets`).
void expect_restart_bit_for_bit(const std::string& scheme, const std::string& extra = "",
                                const std::vector<std::string>& more_datasets = {},
                                const std::string& obstacle_keys = "",
                                const std::string& floor = "", const std::string& fluid = "") {
  const std::string dir = scratch() + "/same_" + scheme + (extra.empty() ? "" : "_extra") +
                          (obstacle_keys.empty() ? "" : "_moving") +
                          (floor.empty() ? "" : "_floor") + (fluid.empty() ? "" : "_fluid");
  if (test::comm_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  int straight_steps = 0, resumed_steps = 0;
  const auto text = [&](double end, const std::string& run) {
    std::string job = job_text(end, dir + run, extra, scheme, obstacle_keys);
    // Another lower y side than the no-slip floor.
    if (!floor.empty()) job.replace(job.find("lower: no-slip"), 14, "lower: " + floor);
    // Another fluid section than the constant viscosity.
    const std::string constant = "fluid: {viscosity: 0.001}";
    if (!fluid.empty()) job.replace(job.find(constant), constant.size(), fluid);
    return job;
  };
  ASSERT_EQ(run_job(PETSC_COMM_WORLD, text(1.0, "/straight"), "", &straight_steps), 0);
  ASSERT_EQ(run_job(PETSC_COMM_WORLD, text(0.5, "/resumed"), ""), 0);
  ASSERT_EQ(run_job(PETSC_COMM_WORLD, text(1.0, "/resumed"), "latest", &resumed_steps), 0);
  EXPECT_EQ(resumed_steps, straight_steps);

  long failures = 0;
  if (test::comm_rank() == 0) {
    for (int frame = 5; frame <= 10; ++frame) {
      char name[32];
      std::snprintf(name, sizeof name, "/restart_%06d.h5", frame);
      std::vector<std::string> datasets = {"velocity", "density", "temperature", "pressure"};
      datasets.insert(datasets.end(), more_datasets.begin(), more_datasets.end());
      for (const std::string& dataset : datasets)
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

TEST(Restart, ContinuesBitForBitOnTheSameRankCount) { expect_restart_bit_for_bit("stam"); }

// The second-order step needs the step before: the checkpoint keeps it (/previous_step), and
// without it the first step after the restart would be a first-order one and differ.
TEST(Restart, ContinuesBitForBitWithTheSecondOrderStep) { expect_restart_bit_for_bit("bdf2"); }

// A liquid's level set is checkpointed with the scalars, and its reinitialisation (every second
// step, counted from the run's start) resumes on the same steps; its marker particles continue
// from the checkpoint's (their corrections would change phi otherwise). Frames hold the liquid
// fraction beside phi.
TEST(Restart, ContinuesBitForBitWithALiquid) {
  expect_restart_bit_for_bit(
      "stam",
      "liquid: {interface: level_set, initial: [{shape: sphere, center: [0.3, 0.7], radius: 0.12}],"
      " reinitialise_every: 2}\n",
      {"phi", "liquid_fraction"});
}

// With the vof interface the volume fraction is a scalar of the checkpoint and phi is rebuilt
// from it each step; the sweeps' order follows the step count, which the restart resumes.
TEST(Restart, ContinuesBitForBitWithAVolumeOfFluid) {
  expect_restart_bit_for_bit(
      "stam",
      "liquid: {initial: [{shape: sphere, center: [0.3, 0.7], radius: 0.12}],"
      " interface: vof}\n",
      {"phi", "liquid_fraction"});
}

// A moving (towed, swinging and turning) obstacle's place is a function of time: the restart
// rebuilds the mask at the checkpoint's time, and the checkpoint's velocity holds its faces, so
// the run goes on as if never stopped (the mask in the frames too).
TEST(Restart, ContinuesBitForBitWithAMovingObstacle) {
  expect_restart_bit_for_bit("stam", "", {"solid"},
                             ", motion: {velocity: [0, 0.1], amplitude: [0.1, 0], period: 0.6,"
                             " angular_velocity: 2}");
}

// Fire and texture coordinates keep their state in scalars (the texture sets' resets are a
// function of time), and the expansion's divergence source is made anew by each step's burn:
// a restart goes on bit for bit, the coordinates and the burnt fuel included.
TEST(Restart, ContinuesBitForBitWithFireAndTextureCoordinates) {
  expect_restart_bit_for_bit("stam",
                             "texture: {period: 0.3}\n"
                             "fire: {fuel: density, temperature: temperature, burn_rate: 2, "
                             "ignition_temperature: 0.5, heat: 0.5, expansion: 0.2}\n",
                             {"texture_a_x", "texture_b_y"});
}

// A viscoelastic material's strain is scalars of the run, checkpointed with the others.
TEST(Restart, ContinuesBitForBitWithAViscoelasticMaterial) {
  expect_restart_bit_for_bit("stam",
                             "viscoelastic: {elastic_modulus: 0.1, yield_point: 0.05, "
                             "yield_rate: 5, material: density, threshold: 0.2}\n",
                             {"strain_xx", "strain_xy"});
}

// An inflow that varies in time (keyframes and a pulsation) is a function of time too: the
// restart gives the face its value at the checkpoint's time.
TEST(Restart, ContinuesBitForBitWithAnInflowThatVaries) {
  expect_restart_bit_for_bit("stam", "", {}, "",
                             "{type: inflow, keyframes: [{time: 0, velocity: [0, 0.2]}, "
                             "{time: 0.7, velocity: [0.05, 0.5]}], "
                             "pulsation: {amplitude: [0, 0.1], period: 0.3}}");
}

// The FFT solvers of a periodic box keep no state but the pressure, which the checkpoint holds
// (the incremental projection of the second-order step starts from it), so a restart goes on
// bit for bit with them too.
TEST(Restart, ContinuesBitForBitWithTheFftSolvers) {
  for (const std::string scheme : {"stam", "bdf2"}) {
    SCOPED_TRACE(scheme);
    const std::string dir = scratch() + "/fft_" + scheme;
    if (test::comm_rank() == 0) fs::remove_all(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    const auto text = [&](double end, const std::string& run) {
      return "name: restart\n"
             "grid: {cells: [24, 32], size: [0.75, 1.0], halo: 2}\n"
             "boundary: {x: periodic, y: periodic}\n"
             "velocity:\n"
             "  initial: {type: vortex, center: [0.4, 0.5], radius: 0.15, strength: 0.5}\n"
             "scalars:\n"
             "  density:\n"
             "    diffusion: 0.001\n"
             "    sources: [{shape: sphere, center: [0.375, 0.15], radius: 0.08, value: 1.0}]\n"
             "fluid: {viscosity: 0.001}\n"
             "forces: {buoyancy: {alpha: 0.05, beta: 0.0}}\n"
             "time: {scheme: " + scheme + ", cfl: 3.0, dt_max: 0.05, end: " +
             std::to_string(end) + "}\n"
             "pressure: {solver: fft}\n"
             "diffusion: {solver: fft}\n"
             "output: {directory: " + dir + run + ", interval: 0.1}\n"
             "checkpoint: {every_steps: 4, keep: 2}\n";
    };
    int straight_steps = 0, resumed_steps = 0;
    ASSERT_EQ(run_job(PETSC_COMM_WORLD, text(1.0, "/straight"), "", &straight_steps), 0);
    ASSERT_EQ(run_job(PETSC_COMM_WORLD, text(0.5, "/resumed"), ""), 0);
    ASSERT_EQ(run_job(PETSC_COMM_WORLD, text(1.0, "/resumed"), "latest", &resumed_steps), 0);
    EXPECT_EQ(resumed_steps, straight_steps);
    long failures = 0;
    if (test::comm_rank() == 0) {
      for (int frame = 5; frame <= 10; ++frame) {
        char name[32];
        std::snprintf(name, sizeof name, "/restart_%06d.h5", frame);
        for (const std::string dataset : {"velocity", "density", "pressure"})
          EXPECT_TRUE(same_bits(read_all(dir + "/straight" + name, dataset),
                                read_all(dir + "/resumed" + name, dataset)))
              << "frame " << frame << " " << dataset;
      }
      failures += testing::Test::HasFailure() ? 1 : 0;
    }
    EXPECT_EQ(test::global_sum(failures), 0);
    if (test::comm_rank() == 0) fs::remove_all(dir);
  }
}

// A viscosity that follows the temperature (solvers/variable_viscosity.hpp): its matrix is
// refilled every step the temperature moves, and each refill gets a fresh solver whose
// preconditioner depends on the matrix alone, so the restarted run repeats the straight one.
TEST(Restart, ContinuesBitForBitWithAVariableViscosity) {
  expect_restart_bit_for_bit("stam", "", {}, "", "",
                             "fluid: {viscosity: {from: temperature, values: [[0, 0.001], "
                             "[1, 0.1]]}}");
}

/// Clears `dir` and runs `text` on the first two ranks (one when the test runs alone); returns
/// how many ran it. Collective.
int run_on_two_ranks(const std::string& dir, const std::string& text) {
  const int writers = std::min(2, test::comm_size());
  if (test::comm_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm part;
  MPI_Comm_split(MPI_COMM_WORLD, test::comm_rank() < writers ? 0 : MPI_UNDEFINED,
                 test::comm_rank(), &part);
  if (part != MPI_COMM_NULL) {
    EXPECT_EQ(run_job(part, text, ""), 0);
    MPI_Comm_free(&part);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return writers;
}

// A checkpoint written by two ranks (one when the test runs alone) restarts on all ranks with the
// same fields: a checkpoint written immediately after the restart equals the original bitwise.
TEST(Restart, RestartsOnAnotherRankCountWithIdenticalFields) {
  const std::string dir = scratch() + "/other";
  const int writers = run_on_two_ranks(dir, job_text(0.3, dir + "/written"));

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
    std::vector<std::string> paths;
    ASSERT_EQ(finder.list(&paths), 0);
    ASSERT_FALSE(paths.empty());
    original = paths.back();
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
  EXPECT_EQ(code, kErrorBadJob);  // exit status 2: the job, not the run, is at fault

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
  // Planted before the step, it is found by the check before advection.
  EXPECT_NE(failure.message.find("after the sources and forces of step 1 "), std::string::npos)
      << failure.message;
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

/// The fields a checkpoint restores and a Checkpointer for `job` on `comm`, without the solvers
/// a Simulation would build.
struct Restorable {
  Grid grid;
  Field velocity;
  std::vector<Field> scalars;
  OwnedVec pressure;
  Checkpointer checkpointer;
  // The step before, read when the job takes the second-order step (history() is then given).
  Field previous_velocity;
  std::vector<Field> previous_scalars;
  StepHistory step_history;

  StepHistory* history() { return step_history.velocity ? &step_history : nullptr; }

  PetscErrorCode setup(MPI_Comm comm, const JobConfig& job) {
    PetscFunctionBeginUser;
    PetscCall(grid.setup(comm, job.grid, job.boundary, job.grid.processes));
    PetscCall(velocity.setup_velocity(grid));
    scalars.resize(job.scalars.size());
    for (size_t s = 0; s < job.scalars.size(); ++s)
      PetscCall(scalars[s].setup_scalar(grid, job.scalars[s].name));
    if (job.time.scheme == TimeScheme::BDF2) {
      PetscCall(previous_velocity.setup_velocity(grid));
      previous_scalars.resize(job.scalars.size());
      for (size_t s = 0; s < job.scalars.size(); ++s)
        PetscCall(previous_scalars[s].setup_scalar(grid, job.scalars[s].name));
      step_history.velocity = &previous_velocity;
      step_history.scalars = &previous_scalars;
    }
    PetscCall(DMCreateGlobalVector(grid.cell_dm(), pressure.replace()));
    PetscCall(checkpointer.setup(grid, job));
    PetscFunctionReturn(0);
  }
};

/// What a collective call that is expected to fail returned, and its message on this rank.
template <typename Call>
Failure expect_failure(Call&& call) {
  Failure failure;
  PetscCallAbort(PETSC_COMM_WORLD, PetscPushErrorHandler(remember_message, &failure));
  failure.code = call();
  PetscCallAbort(PETSC_COMM_WORLD, PetscPopErrorHandler());
  return failure;
}

/// Reads `path` as the given job would (`--restart <path>`), on `comm`.
PetscErrorCode restore(MPI_Comm comm, const JobConfig& job, const std::string& path) {
  PetscFunctionBeginUser;
  Restorable r;
  PetscCall(r.setup(comm, job));
  RunState state;
  PetscCall(r.checkpointer.read(path, r.velocity, r.scalars, r.pressure, &state, r.history()));
  PetscFunctionReturn(0);
}

/// `--restart latest` for the given job, on every rank.
PetscErrorCode restore_latest(const JobConfig& job, std::string* path,
                              std::vector<SkippedCheckpoint>* skipped) {
  PetscFunctionBeginUser;
  Restorable r;
  PetscCall(r.setup(PETSC_COMM_WORLD, job));
  RunState state;
  PetscCall(r.checkpointer.read_latest(r.velocity, r.scalars, r.pressure, &state, path, skipped,
                                       r.history()));
  PetscFunctionReturn(0);
}

/// The checkpoint files in `dir`, oldest first. Collective: rank 0 prunes old checkpoints after
/// the others have left write(), so every rank waits for it before looking, and rank 0 waits
/// for every rank to have looked before it changes the directory again.
std::vector<std::string> checkpoints_in(const std::string& dir) {
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find("_checkpoint_") != std::string::npos && entry.path().extension() == ".h5")
      paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  MPI_Barrier(MPI_COMM_WORLD);
  return paths;
}

// Damage, done by rank 0 with plain file I/O (the caller then waits at a barrier).

/// Inverts 8 bytes in the middle of the first `used` bytes (all if 0) of `dataset`'s storage.
void flip_bytes_in(const std::string& file, const std::string& dataset, hsize_t used = 0) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  const haddr_t offset = H5Dget_offset(d);  // defined for contiguous datasets, as these are
  const hsize_t bytes = used > 0 ? used : H5Dget_storage_size(d);
  H5Dclose(d);
  H5Fclose(f);
  ASSERT_NE(offset, HADDR_UNDEF) << dataset;
  ASSERT_GE(bytes, 8u) << dataset;
  std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
  const auto at = static_cast<std::streamoff>(offset + bytes / 2 - 4);
  char buffer[8];
  io.seekg(at);
  io.read(buffer, 8);
  for (char& c : buffer) c = static_cast<char>(~c);
  io.seekp(at);
  io.write(buffer, 8);
  ASSERT_TRUE(io.good()) << file;
}

/// Overwrites `count` bytes at `at` (or the whole file when count is 0) with pseudo-random bytes.
void scribble(const std::string& file, std::uintmax_t at, std::uintmax_t count) {
  if (count == 0) count = fs::file_size(file) - at;
  std::mt19937 random(12345);
  std::string bytes(count, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
  io.seekp(static_cast<std::streamoff>(at));
  io.write(bytes.data(), static_cast<std::streamsize>(count));
}

/// The kinds of damage a newest checkpoint suffers when a run or a file system fails.
enum class Damage { Truncated, Empty, Header, Garbage, Data };

void damage(const std::string& file, Damage how) {
  switch (how) {
    case Damage::Truncated: fs::resize_file(file, fs::file_size(file) / 2); break;
    case Damage::Empty: fs::resize_file(file, 0); break;
    case Damage::Header: scribble(file, 8, 88); break;  // the superblock after its signature
    case Damage::Garbage: scribble(file, 0, 0); break;
    case Damage::Data: flip_bytes_in(file, "pressure"); break;
  }
}

/// Words the reason for skipping a checkpoint damaged in this way must contain.
const char* expected_reason(Damage how) {
  switch (how) {
    case Damage::Truncated: return "truncated file";
    case Damage::Empty: return "the file is empty";
    case Damage::Header: return "not a readable HDF5 file";
    case Damage::Garbage: return "file signature not found";
    case Damage::Data: return "checksum mismatch in dataset pressure:";
  }
  return "?";
}

/// The smoke job with `checkpoint` as its checkpoint settings.
std::string with_checkpoints(std::string text, const std::string& checkpoint) {
  const size_t at = text.find("checkpoint: {");
  text.replace(at, text.find('\n', at) - at, "checkpoint: " + checkpoint);
  return text;
}

/// Runs `job` in its output directory, made fresh, and returns its checkpoints.
std::vector<std::string> checkpointed_run(const JobConfig& job) {
  if (test::comm_rank() == 0) fs::remove_all(job.output.directory);
  MPI_Barrier(MPI_COMM_WORLD);
  Simulation simulation;
  EXPECT_EQ(simulation.setup(PETSC_COMM_WORLD, job), 0);
  EXPECT_EQ(simulation.run(), 0);
  return checkpoints_in(job.output.directory);
}

std::vector<std::string> checkpointed_run(const std::string& text) {
  return checkpointed_run(parse_job(text, "restart.yaml"));
}

// Bytes changed in the middle of any dataset, or a changed restart attribute, fail the read
// with a message naming the file and what was damaged, on every rank.
TEST(Checksum, DamageInEveryDatasetAndRestartAttributeIsFoundAndNamed) {
  const std::string dir = scratch() + "/checksums";
  // With a --set, so that the checkpoint holds job_overrides too, and the second-order step, so
  // that it holds the step before.
  const std::vector<JobOverride> overrides = {{"fluid.viscosity", "0.002"}};
  const std::vector<std::string> paths =
      checkpointed_run(parse_job(job_text(0.25, dir, "", "bdf2"), "restart.yaml", overrides));
  ASSERT_FALSE(paths.empty());
  const std::string file = paths.back(), pristine = dir + "/pristine.h5.keep";
  const JobConfig job = parse_job(job_text(1.0, dir, "", "bdf2"), "restart.yaml", overrides);
  long frames = 0;
  if (test::comm_rank() == 0) {
    fs::copy_file(file, pristine);
    frames = static_cast<long>(read_all(file, "frame_times").size());
  }
  ASSERT_GE(test::global_sum(frames), 2);  // frame_times holds frames in use, so they are covered
  ASSERT_EQ(restore(PETSC_COMM_WORLD, job, file), 0);

  struct Case {
    std::string damaged;   // a dataset, or an attribute when it starts with '@'
    std::string expected;  // in the message
  };
  std::vector<Case> cases;
  for (const char* d : {"face_velocity/x", "face_velocity/y", "density", "temperature", "pressure",
                        "job", "job_overrides", "frame_times", "previous_step/face_velocity/x",
                        "previous_step/face_velocity/y", "previous_step/density",
                        "previous_step/temperature", "previous_step/dt"})
    cases.push_back({d, std::string("checksum mismatch in dataset ") + d + ":"});
  for (const char* a : {"@time", "@step", "@last_dt", "@next_frame", "@frames"})
    cases.push_back({a, "checksum mismatch in the run state attributes"});

  long failures = 0;
  for (const Case& c : cases) {
    if (test::comm_rank() == 0) {
      fs::copy_file(pristine, file, fs::copy_options::overwrite_existing);
      if (c.damaged[0] != '@') {
        // frame_times: in its values in use (all of them here, checked above).
        flip_bytes_in(file, c.damaged);
      } else {
        // An attribute lives in an object header that HDF5 1.10's default format does not
        // checksum; a value changed there is what a flipped bit would do.
        const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        const hid_t a = H5Aopen(f, c.damaged.c_str() + 1, H5P_DEFAULT);
        const hid_t type = H5Aget_type(a);
        unsigned char value[8];
        H5Aread(a, type, value);
        value[0] ^= 0x01;  // the lowest bit of a little-endian value
        H5Awrite(a, type, value);
        H5Tclose(type);
        H5Aclose(a);
        H5Fclose(f);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const Failure failure = expect_failure([&] { return restore(PETSC_COMM_WORLD, job, file); });
    EXPECT_EQ(failure.code, PETSC_ERR_FILE_READ) << c.damaged;
    EXPECT_NE(failure.message.find("cannot restart from checkpoint '" + file + "'"),
              std::string::npos)
        << c.damaged << ": " << failure.message;
    EXPECT_NE(failure.message.find(c.expected), std::string::npos)
        << c.damaged << ": " << failure.message;
  }
  failures += testing::Test::HasFailure() ? 1 : 0;
  EXPECT_EQ(test::global_sum(failures), 0);
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// A checkpoint as written before checksums (no format attribute, no crc32 attributes) is refused
// with a message saying why, not read unverified.
TEST(Checksum, ACheckpointWithoutChecksumsIsRefused) {
  const std::string dir = scratch() + "/format1";
  const std::vector<std::string> paths = checkpointed_run(job_text(0.15, dir));
  ASSERT_FALSE(paths.empty());
  const std::string file = paths.back();
  if (test::comm_rank() == 0) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(f, "format");
    H5Adelete(f, "state_crc32");
    for (const char* d : {"face_velocity/x", "face_velocity/y", "density", "temperature",
                          "pressure", "job", "frame_times"})
      H5Adelete_by_name(f, d, "crc32", H5P_DEFAULT);
    H5Fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const JobConfig job = parse_job(job_text(1.0, dir), "restart.yaml");
  const Failure failure = expect_failure([&] { return restore(PETSC_COMM_WORLD, job, file); });
  EXPECT_EQ(failure.code, PETSC_ERR_FILE_READ);
  EXPECT_NE(failure.message.find("it has no checksums (written by stablefluids"),
            std::string::npos)
      << failure.message;
  EXPECT_NE(failure.message.find(file), std::string::npos) << failure.message;
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

/// Rewrites a checkpoint as format 2 wrote it: the job and the version as arrays of int8, no
/// provenance and no job_overrides. Rank 0, plain HDF5.
void downgrade_to_format_2(const std::string& file) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0) << file;
  auto text_of = [&](hid_t object, bool attribute) {
    const hid_t type = attribute ? H5Aget_type(object) : H5Dget_type(object);
    std::string text(H5Tget_size(type), '\0');
    if (attribute) H5Aread(object, type, text.data());
    else H5Dread(object, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data());
    H5Tclose(type);
    return text.substr(0, text.find('\0'));
  };
  auto char_space = [](const std::string& text) {
    const hsize_t n = text.size();
    return H5Screate_simple(1, &n, nullptr);
  };
  // The job: same bytes, same checksum, as int8.
  const hid_t old_job = H5Dopen2(f, "job", H5P_DEFAULT);
  const std::string job = text_of(old_job, false);
  std::uint32_t crc = 0;
  const hid_t old_crc = H5Aopen(old_job, "crc32", H5P_DEFAULT);
  H5Aread(old_crc, H5T_NATIVE_UINT32, &crc);
  H5Aclose(old_crc);
  H5Dclose(old_job);
  H5Ldelete(f, "job", H5P_DEFAULT);
  H5Ldelete(f, "job_overrides", H5P_DEFAULT);
  hid_t space = char_space(job);
  const hid_t new_job = H5Dcreate2(f, "job", H5T_NATIVE_CHAR, space, H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT);
  H5Dwrite(new_job, H5T_NATIVE_CHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, job.data());
  const hid_t scalar = H5Screate(H5S_SCALAR);
  const hsize_t one = 1;
  const hid_t one_space = H5Screate_simple(1, &one, nullptr);
  const hid_t crc_attribute = H5Acreate2(new_job, "crc32", H5T_NATIVE_UINT32, one_space,
                                         H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(crc_attribute, H5T_NATIVE_UINT32, &crc);
  H5Aclose(crc_attribute);
  H5Dclose(new_job);
  H5Sclose(space);
  H5Sclose(scalar);
  for (const char* name : {"version", "job_hash"}) {
    const hid_t old = H5Aopen(f, name, H5P_DEFAULT);
    const std::string value = text_of(old, true);
    H5Aclose(old);
    H5Adelete(f, name);
    space = char_space(value);
    const hid_t a = H5Acreate2(f, name, H5T_NATIVE_CHAR, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_CHAR, value.data());
    H5Aclose(a);
    H5Sclose(space);
  }
  for (const char* name :
       {"program", "commit", "written", "command_line", "petsc_options", "libraries"})
    H5Adelete(f, name);
  const long long format = 2;
  const hid_t format_attribute = H5Aopen(f, "format", H5P_DEFAULT);
  H5Awrite(format_attribute, H5T_NATIVE_LLONG, &format);
  H5Aclose(format_attribute);
  H5Sclose(one_space);
  ASSERT_GE(H5Fclose(f), 0);
}

// A checkpoint of format 2 (text as int8 arrays, before provenance) still restarts, with the
// same fields as the format 3 file it was made from; damage in its job is still found.
TEST(Checksum, AFormat2CheckpointIsStillRead) {
  const std::string dir = scratch() + "/format2";
  const std::vector<std::string> paths = checkpointed_run(job_text(0.15, dir));
  ASSERT_FALSE(paths.empty());
  const std::string file = paths.back(), old = dir + "/old_format.h5";
  if (test::comm_rank() == 0) {
    fs::copy_file(file, old);
    downgrade_to_format_2(old);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const JobConfig job = parse_job(job_text(1.0, dir), "restart.yaml");
  Restorable now, before;
  ASSERT_EQ(now.setup(PETSC_COMM_WORLD, job), 0);
  ASSERT_EQ(before.setup(PETSC_COMM_WORLD, job), 0);
  RunState now_state, before_state;
  ASSERT_EQ(now.checkpointer.read(file, now.velocity, now.scalars, now.pressure, &now_state), 0);
  ASSERT_EQ(before.checkpointer.read(old, before.velocity, before.scalars, before.pressure,
                                     &before_state), 0);
  EXPECT_EQ(before_state.step, now_state.step);
  EXPECT_EQ(before_state.frame_times, now_state.frame_times);
  PetscBool same_velocity = PETSC_FALSE, same_pressure = PETSC_FALSE;
  ASSERT_EQ(VecEqual(now.velocity.global(), before.velocity.global(), &same_velocity), 0);
  ASSERT_EQ(VecEqual(now.pressure, before.pressure, &same_pressure), 0);
  EXPECT_TRUE(same_velocity && same_pressure);

  if (test::comm_rank() == 0) flip_bytes_in(old, "job");
  MPI_Barrier(MPI_COMM_WORLD);
  const Failure failure = expect_failure([&] { return restore(PETSC_COMM_WORLD, job, old); });
  EXPECT_EQ(failure.code, PETSC_ERR_FILE_READ);
  EXPECT_NE(failure.message.find("checksum mismatch in dataset job:"), std::string::npos)
      << failure.message;
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// A run whose physics came partly from --set restarts with the same --set (the checkpoint keeps
// them beside the job text), and one without them is refused, naming the key.
TEST(Restart, KeepsTheCommandLineOverridesOfTheRunThatWroteIt) {
  const std::string dir = scratch() + "/overrides";
  const std::vector<JobOverride> overrides = {{"fluid.viscosity", "0.002"},
                                              {"forces.vorticity_confinement", "0.2"}};
  const std::vector<std::string> paths =
      checkpointed_run(parse_job(job_text(0.15, dir), "restart.yaml", overrides));
  ASSERT_FALSE(paths.empty());
  EXPECT_EQ(restore(PETSC_COMM_WORLD, parse_job(job_text(1.0, dir), "restart.yaml", overrides),
                    paths.back()),
            0);
  const JobConfig plain = parse_job(job_text(1.0, dir), "restart.yaml");
  const Failure failure =
      expect_failure([&] { return restore(PETSC_COMM_WORLD, plain, paths.back()); });
  EXPECT_EQ(failure.code, kErrorBadJob);
  EXPECT_NE(failure.message.find("fluid.viscosity: checkpoint has 0.002, job has 0.001"),
            std::string::npos)
      << failure.message;
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// Written on all ranks with every rank a slab along x (rows cut between ranks), the checkpoint
// verifies on every smaller number of ranks, in PETSc's layout and in slabs along y.
TEST(Checksum, WrittenOnNRanksVerifiesOnAnyM) {
  const std::string dir = scratch() + "/n_to_m";
  const int size = test::comm_size();
  JobConfig written = parse_job(job_text(0.15, dir), "restart.yaml");
  written.grid.processes = {size, 1, 1};
  const std::vector<std::string> paths = checkpointed_run(written);
  ASSERT_FALSE(paths.empty());

  for (int m = 1; m <= size; ++m) {
    MPI_Comm part;
    MPI_Comm_split(MPI_COMM_WORLD, test::comm_rank() < m ? 0 : MPI_UNDEFINED, test::comm_rank(),
                   &part);
    if (part != MPI_COMM_NULL) {
      for (const std::array<PetscInt, 3>& processes :
           {std::array<PetscInt, 3>{PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE},
            std::array<PetscInt, 3>{1, m, 1}}) {
        JobConfig job = parse_job(job_text(1.0, dir), "restart.yaml");
        job.grid.processes = processes;
        EXPECT_EQ(restore(part, job, paths.back()), 0)
            << "written on " << size << " ranks, read on " << m << " (y split " << processes[1]
            << ")";
      }
      MPI_Comm_free(&part);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  long failures = testing::Test::HasFailure() ? 1 : 0;
  EXPECT_EQ(test::global_sum(failures), 0);
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// --- latest ----------------------------------------------------------------------------------

// The newest checkpoints truncated, emptied, with a damaged header, overwritten with garbage and
// with changed data: `latest` restores the newest good one and names each one it skipped, with
// its reason, newest first. With every one damaged it fails; a damaged file named explicitly is
// not fallen back from.
TEST(Latest, FallsBackPastDamagedCheckpointsAndNamesThem) {
  const std::string dir = scratch() + "/fallback";
  const std::vector<std::string> paths =
      checkpointed_run(with_checkpoints(job_text(0.6, dir), "{every_steps: 1, keep: 9}"));
  const std::vector<Damage> kinds = {Damage::Truncated, Damage::Empty, Damage::Header,
                                     Damage::Garbage, Damage::Data};
  ASSERT_GE(paths.size(), kinds.size() + 2);
  // The newest is truncated, the next emptied, and so on.
  if (test::comm_rank() == 0)
    for (size_t n = 0; n < kinds.size(); ++n) damage(paths[paths.size() - 1 - n], kinds[n]);
  MPI_Barrier(MPI_COMM_WORLD);

  const JobConfig job = parse_job(job_text(1.0, dir), "restart.yaml");
  std::string used;
  std::vector<SkippedCheckpoint> skipped;
  ASSERT_EQ(restore_latest(job, &used, &skipped), 0);
  EXPECT_EQ(used, paths[paths.size() - 1 - kinds.size()]);
  ASSERT_EQ(skipped.size(), kinds.size());
  for (size_t n = 0; n < kinds.size(); ++n) {
    EXPECT_EQ(skipped[n].path, paths[paths.size() - 1 - n]);
    EXPECT_NE(skipped[n].reason.find(expected_reason(kinds[n])), std::string::npos)
        << skipped[n].path << ": " << skipped[n].reason;
  }

  // A damaged checkpoint named explicitly: no fallback, the file is named.
  const Failure named = expect_failure([&] { return restore(PETSC_COMM_WORLD, job, paths.back()); });
  EXPECT_EQ(named.code, PETSC_ERR_FILE_READ);
  EXPECT_NE(named.message.find("cannot restart from checkpoint '" + paths.back() + "'"),
            std::string::npos)
      << named.message;

  // A job whose physics changed stops the search with the differences: the job changed, the
  // older checkpoints are no better.
  std::string changed = job_text(1.0, dir);
  changed.replace(changed.find("viscosity: 0.001"), 16, "viscosity: 0.002");
  const Failure mismatch = expect_failure([&] {
    return restore_latest(parse_job(changed, "restart.yaml"), &used, &skipped);
  });
  EXPECT_EQ(mismatch.code, kErrorBadJob);
  EXPECT_NE(mismatch.message.find("fluid.viscosity"), std::string::npos) << mismatch.message;

  // None usable: every older one damaged too.
  if (test::comm_rank() == 0)
    for (size_t n = 0; n + kinds.size() < paths.size(); ++n)
      damage(paths[n], kinds[n % kinds.size()]);
  MPI_Barrier(MPI_COMM_WORLD);
  skipped.clear();
  const Failure none = expect_failure([&] { return restore_latest(job, &used, &skipped); });
  EXPECT_EQ(none.code, PETSC_ERR_FILE_READ);
  EXPECT_NE(none.message.find("no usable checkpoint of job 'restart' in '" + dir + "'"),
            std::string::npos)
      << none.message;
  EXPECT_EQ(skipped.size(), paths.size());
  long failures = testing::Test::HasFailure() ? 1 : 0;
  EXPECT_EQ(test::global_sum(failures), 0);
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// keep: 1, and the newest checkpoint damaged, with a later step than any this run will write
// before the end: --restart latest skips it and continues from the one before; each checkpoint
// the run then writes stays until the next one is complete, the damaged one is left alone, and
// `latest` afterwards finds the run's own newest checkpoint.
TEST(Latest, PruningNeverRemovesTheCheckpointJustWritten) {
  const std::string dir = scratch() + "/prune";
  const std::string text = with_checkpoints(job_text(0.3, dir), "{every_steps: 2, keep: 1}");
  const std::vector<std::string> first = checkpointed_run(text);
  ASSERT_EQ(first.size(), 1u);
  const std::string damaged = dir + "/restart_checkpoint_00009999.h5";
  if (test::comm_rank() == 0) std::ofstream(damaged) << "left half-written by a crash\n";
  MPI_Barrier(MPI_COMM_WORLD);

  ASSERT_EQ(run_job(PETSC_COMM_WORLD,
                    with_checkpoints(job_text(0.5, dir), "{every_steps: 2, keep: 1}"), "latest"),
            0);
  const std::vector<std::string> paths = checkpoints_in(dir);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_GT(paths.front(), first.front());  // the continued run's own, newer than the first's
  EXPECT_EQ(paths.back(), damaged);
  std::string used;
  std::vector<SkippedCheckpoint> skipped;
  ASSERT_EQ(restore_latest(parse_job(job_text(1.0, dir), "restart.yaml"), &used, &skipped), 0);
  EXPECT_EQ(used, paths.front());
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].path, damaged);
  long failures = testing::Test::HasFailure() ? 1 : 0;
  EXPECT_EQ(test::global_sum(failures), 0);
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// A liquid's marker particles are in its checkpoint (/particles), written on two ranks (one
// when the test runs alone) and read back on every rank in even shares, then handed to the
// ranks that own them: all of them and no more (the count and the sum of ids written), and the
// run goes on. A flipped byte among them is found and named.
TEST(Restart, MarkerParticlesComeBackOnAnyRankCount) {
  const std::string dir = scratch() + "/particles";
  const std::string liquid =
      "liquid: {interface: level_set,"
      " initial: [{shape: sphere, center: [0.3, 0.7], radius: 0.12}]}\n";
  run_on_two_ranks(dir, job_text(0.3, dir, liquid));
  const std::vector<std::string> paths = checkpoints_in(dir);
  ASSERT_FALSE(paths.empty());
  const std::string file = paths.back();
  long written = 0, written_ids = 0;
  if (test::comm_rank() == 0) {
    const std::vector<double> rows = read_all(file, "particles");
    written = static_cast<long>(rows.size() / 6);
    for (size_t p = 5; p < rows.size(); p += 6) written_ids += static_cast<long>(rows[p]);
  }
  written = test::global_sum(written);
  written_ids = test::global_sum(written_ids);
  EXPECT_GT(written, 100);
  // The frame at the same time holds the same particles, for ParaView.
  long in_frame = 0;
  if (test::comm_rank() == 0)
    in_frame = static_cast<long>(read_all(dir + "/restart_000003.h5", "particles/position").size() / 3);
  EXPECT_EQ(test::global_sum(in_frame), written);

  const JobConfig job = parse_job(job_text(0.5, dir, liquid), "restart.yaml");
  {
    Simulation simulation;
    ASSERT_EQ(simulation.setup(PETSC_COMM_WORLD, job, file), 0);
    PetscInt count = 0;
    std::int64_t ids = 0;
    ASSERT_EQ(simulation.part<ParticleLevelSet>()->census(&count, &ids), 0);
    EXPECT_EQ(count, written);
    EXPECT_EQ(ids, written_ids);
    EXPECT_EQ(simulation.run(), 0);
  }
  // The newest checkpoint, which the continued run wrote (it removed the older ones).
  const std::string newest = checkpoints_in(dir).back();
  if (test::comm_rank() == 0) flip_bytes_in(newest, "particles");
  MPI_Barrier(MPI_COMM_WORLD);
  const Failure failure = expect_failure([&] {
    Simulation simulation;
    return simulation.setup(PETSC_COMM_WORLD, job, newest);
  });
  EXPECT_EQ(failure.code, PETSC_ERR_FILE_READ);
  EXPECT_NE(failure.message.find("checksum mismatch in dataset particles"), std::string::npos)
      << failure.message;
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

}  // namespace
}  // namespace sf
