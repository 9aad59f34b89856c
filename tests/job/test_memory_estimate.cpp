// The memory estimate (src/job/memory_estimate.hpp) adds up the measured table's figures for
// exactly the features a job has, each as often as it occurs: per rank for every rank, per cell
// for every cell, the marker particles per column along gravity. Whether the table itself is
// right is for the benchmark, which sets the sum against measured peaks (tests/bench/run
// memory); here the arithmetic is checked, job by job, against sums written out from the table.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "job.hpp"
#include "memory_estimate.hpp"

namespace {

namespace table = sf::memory_table;
using table::ByDim;

constexpr int k2D = 0, k3D = 1;

double rank_bytes(const ByDim& figure, int dim) { return figure[dim].per_rank_mb * 1e6; }
double cell_bytes(const ByDim& figure, int dim) { return figure[dim].per_cell; }

/// Expects `estimate` to hold `per_rank` bytes per rank and `per_cell` per cell, to rounding.
void expect_sums(const sf::MemoryEstimate& estimate, double per_rank, double per_cell,
                 int ranks) {
  EXPECT_NEAR(estimate.per_rank(), per_rank, 1e-9 * per_rank);
  EXPECT_NEAR(estimate.per_cell(), per_cell, 1e-9 * per_cell);
  const double total = ranks * per_rank + per_cell * static_cast<double>(estimate.cells);
  EXPECT_NEAR(estimate.total(ranks), total, 1e-9 * total);
}

TEST(MemoryEstimate, SmokeAddsEachScalarAndEachFeatureOnce) {
  const sf::JobConfig job = sf::parse_job(
      "grid: {cells: [64, 128, 64], size: [1, 2, 1]}\ntime: {dt: 0.1, end: 1}\n"
      "scalars: {density: {}, temperature: {}}\n"
      "forces: {vorticity_confinement: 2.5, buoyancy: {alpha: 0.05, beta: 1}}\n"
      "obstacles:\n  - {shape: sphere, center: [0.5, 0.9, 0.5], radius: 0.15}\n"
      "  - {shape: box, lower: [0, 0, 0], upper: [0.1, 0.1, 0.1]}\n",
      "smoke.yaml");
  const sf::MemoryEstimate estimate = sf::estimate_memory(job);
  EXPECT_EQ(estimate.cells, 64LL * 128 * 64);
  // Two obstacles cost what one does: the mask and the solvers' state, not the bodies.
  const double per_cell = cell_bytes(table::kBase, k3D) + 2 * cell_bytes(table::kScalar, k3D) +
                          cell_bytes(table::kConfinement, k3D) +
                          cell_bytes(table::kObstacle, k3D);
  const double per_rank = rank_bytes(table::kBase, k3D) + 2 * rank_bytes(table::kScalar, k3D) +
                          rank_bytes(table::kConfinement, k3D) +
                          rank_bytes(table::kObstacle, k3D);
  expect_sums(estimate, per_rank, per_cell, 2);
  // The per-rank part is paid by every rank, the grid's only once.
  EXPECT_NEAR(estimate.total(8) - estimate.total(2), 6 * per_rank, 1e-6 * per_rank);
  // One node's share of the ranks holds its share of the grid.
  EXPECT_NEAR(estimate.share(3, 8), 3 * per_rank + 3.0 / 8 * per_cell * estimate.cells,
              1e-6 * estimate.total(8));
}

TEST(MemoryEstimate, LiquidParticlesScaleWithTheSurfaceAcrossGravity) {
  // A viscoelastic liquid in 2D: its three strain components are scalars of the run, counted as
  // scalars; gravity along y makes a column of 48 cells, so the surface has 96 cells.
  const sf::JobConfig job = sf::parse_job(
      "grid: {cells: [96, 48], size: [2, 1]}\ntime: {dt: 0.01, end: 1}\n"
      "forces: {gravity: [0, -9.81]}\nfluid: {viscosity: 0.01}\n"
      "advection: {interpolation: monotone_cubic}\n"
      "liquid:\n  initial: [{shape: box, lower: [-1, -1], upper: [0.5, 0.5]}]\n"
      "  interface: level_set\n  particles: {per_cell: 32, band: 3}\n"
      "viscoelastic: {elastic_modulus: 30}\n",
      "jelly.yaml");
  const sf::MemoryEstimate estimate = sf::estimate_memory(job);
  ASSERT_EQ(job.scalars.size(), 3u);
  EXPECT_EQ(estimate.columns, 96);
  // 32 particles a cell are twice the measured 16; their bytes per column are spread over the
  // 48 cells of each column.
  const double particles_per_cell = 2.0 * (cell_bytes(table::kParticles, k2D) +
                                           table::kParticles[k2D].per_column / 48.0);
  const double per_cell = cell_bytes(table::kBase, k2D) + 3 * cell_bytes(table::kScalar, k2D) +
                          cell_bytes(table::kViscosity, k2D) + cell_bytes(table::kLiquid, k2D) +
                          particles_per_cell + cell_bytes(table::kViscoelastic, k2D);
  const double per_rank = rank_bytes(table::kBase, k2D) + 3 * rank_bytes(table::kScalar, k2D) +
                          rank_bytes(table::kViscosity, k2D) + rank_bytes(table::kLiquid, k2D) +
                          2.0 * rank_bytes(table::kParticles, k2D) +
                          rank_bytes(table::kViscoelastic, k2D);
  expect_sums(estimate, per_rank, per_cell, 2);

  // Gravity along x turns the columns: the surface has as many cells as the grid has rows.
  sf::JobConfig sideways = job;
  sideways.forces.gravity = {-9.81, 0.0, 0.0};
  EXPECT_EQ(sf::estimate_memory(sideways).columns, 48);
  // A height field has no particles and no level-set solver of its own.
  sf::JobConfig height = job;
  height.viscoelastic.enabled = false;
  height.scalars.clear();
  height.liquid.surface = sf::LiquidConfig::Surface::HeightField;
  expect_sums(sf::estimate_memory(height),
              rank_bytes(table::kBase, k2D) + rank_bytes(table::kViscosity, k2D) +
                  rank_bytes(table::kHeightField, k2D),
              cell_bytes(table::kBase, k2D) + cell_bytes(table::kViscosity, k2D) +
                  cell_bytes(table::kHeightField, k2D),
              2);
  // The volume fraction has no particles and adds its own term to the level set's; the level
  // set's controller adds one.
  sf::JobConfig fraction = height;
  fraction.liquid.surface = sf::LiquidConfig::Surface::LevelSet;
  fraction.liquid.interface = sf::LiquidConfig::Interface::Vof;
  fraction.liquid.particles.per_cell = 0;
  const double base_rank = rank_bytes(table::kBase, k2D) + rank_bytes(table::kViscosity, k2D) +
                           rank_bytes(table::kLiquid, k2D);
  const double base_cell = cell_bytes(table::kBase, k2D) + cell_bytes(table::kViscosity, k2D) +
                           cell_bytes(table::kLiquid, k2D);
  expect_sums(sf::estimate_memory(fraction), base_rank + rank_bytes(table::kVof, k2D),
              base_cell + cell_bytes(table::kVof, k2D), 2);
  sf::JobConfig controlled = fraction;
  controlled.liquid.interface = sf::LiquidConfig::Interface::LevelSet;
  controlled.liquid.volume_control.enabled = true;
  expect_sums(sf::estimate_memory(controlled), base_rank + rank_bytes(table::kVolumeControl, k2D),
              base_cell + cell_bytes(table::kVolumeControl, k2D), 2);
}

TEST(MemoryEstimate, FftSolversReplaceTheKrylovOnes) {
  const std::string periodic =
      "grid: {cells: [64, 64, 64]}\ntime: {dt: 0.1, end: 1}\n"
      "boundary: {x: periodic, y: periodic, z: periodic}\nfluid: {viscosity: 0.001}\n"
      "scalars: {dye: {diffusion: 0.001}}\n";
  const sf::MemoryEstimate krylov = sf::estimate_memory(sf::parse_job(periodic, "a.yaml"));
  expect_sums(krylov,
              rank_bytes(table::kBase, k3D) + rank_bytes(table::kScalar, k3D) +
                  rank_bytes(table::kScalarDiffusion, k3D) + rank_bytes(table::kViscosity, k3D),
              cell_bytes(table::kBase, k3D) + cell_bytes(table::kScalar, k3D) +
                  cell_bytes(table::kScalarDiffusion, k3D) + cell_bytes(table::kViscosity, k3D),
              2);
  const sf::MemoryEstimate fft = sf::estimate_memory(
      sf::parse_job(periodic + "pressure: {solver: fft}\ndiffusion: {solver: fft}\n", "b.yaml"));
  expect_sums(fft,
              rank_bytes(table::kBase, k3D) + rank_bytes(table::kScalar, k3D) +
                  rank_bytes(table::kFftDiffusion, k3D) + rank_bytes(table::kFftProjection, k3D),
              cell_bytes(table::kBase, k3D) + cell_bytes(table::kScalar, k3D) +
                  cell_bytes(table::kFftDiffusion, k3D) + cell_bytes(table::kFftProjection, k3D),
              2);
}

TEST(MemoryEstimate, SchemesCountTheirCopiesOfEveryField) {
  const std::string head = "grid: {cells: [128, 128], halo: 2}\nscalars: {a: {}, b: {}}\n";
  const auto per_cell = [&](const std::string& tail) {
    const std::string time = tail.find("time:") == std::string::npos
                                 ? "time: {dt: 0.01, end: 1}\n"
                                 : "";
    return sf::estimate_memory(sf::parse_job(head + time + tail, "s.yaml")).per_cell();
  };
  const double plain = per_cell("");
  EXPECT_NEAR(per_cell("advection: {scheme: maccormack}\n") - plain,
              cell_bytes(table::kMacCormack, k2D) +
                  2 * cell_bytes(table::kMacCormackPerScalar, k2D),
              1e-9 * plain);
  EXPECT_NEAR(per_cell("advection: {scheme: bfecc}\n") - plain,
              cell_bytes(table::kBfecc, k2D) + 2 * cell_bytes(table::kBfeccPerScalar, k2D),
              1e-9 * plain);
  EXPECT_NEAR(per_cell("advection: {interpolation: cubic}\ntime: {scheme: bdf2, dt: 0.01, "
                       "end: 1}\n") - plain,
              cell_bytes(table::kBdf2, k2D) + 2 * cell_bytes(table::kBdf2PerScalar, k2D),
              1e-9 * plain);
  // Cut faces come on top of the obstacle's own cost.
  EXPECT_NEAR(per_cell("obstacles: [{shape: sphere, center: [0.5, 0.5], radius: 0.1, "
                       "surface: cut}]\n") - plain,
              cell_bytes(table::kObstacle, k2D) + cell_bytes(table::kCutFaces, k2D),
              1e-9 * plain);
}

TEST(MemoryEstimate, CatalystCountsItsMostExpensiveScript) {
  const std::string head = "grid: {cells: [64, 64, 64]}\ntime: {dt: 0.1, end: 1}\n"
                           "scalars: {density: {}}\n";
  const sf::MemoryEstimate plain = sf::estimate_memory(sf::parse_job(head, "p.yaml"));
  const auto with = [&](const std::string& scripts) {
    sf::JobConfig job = sf::parse_job(head, "c.yaml");
    for (const char* path : {"slice_png.py", "volume_png.py", "contour_png.py"}) {
      if (scripts.find(path) == std::string::npos) continue;
      sf::CatalystScript script;
      script.path = std::string("jobs/catalyst/") + path;
      job.catalyst.scripts.push_back(script);
    }
    return sf::estimate_memory(job);
  };
  const auto catalyst_bytes = [&](const ByDim& figure) {
    return 2 * rank_bytes(figure, k3D) + cell_bytes(figure, k3D) * plain.cells;
  };
  EXPECT_NEAR(with("slice_png.py").total(2) - plain.total(2), catalyst_bytes(table::kCatalyst),
              1e-9 * plain.total(2));
  // The larger of the two, as one rank's part and the grid's make it.
  const auto one_rank = [&](const ByDim& figure) {
    return rank_bytes(figure, k3D) + cell_bytes(figure, k3D) * plain.cells;
  };
  const ByDim& larger = one_rank(table::kCatalystVolume) > one_rank(table::kCatalyst)
                            ? table::kCatalystVolume
                            : table::kCatalyst;
  EXPECT_NEAR(with("slice_png.py volume_png.py").total(2) - plain.total(2),
              catalyst_bytes(larger), 1e-9 * plain.total(2));
  EXPECT_NEAR(with("contour_png.py").total(2) - plain.total(2),
              catalyst_bytes(table::kCatalystContour), 1e-9 * plain.total(2));
}

}  // namespace
