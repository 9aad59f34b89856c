// The memory estimate of a job (memory_estimate.hpp): the measured bytes of each of its
// features, added up.
#include "memory_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace sf {

double MemoryEstimate::per_rank() const {
  double sum = 0.0;
  for (const MemoryTerm& term : terms) sum += term.per_rank;
  return sum;
}

double MemoryEstimate::per_cell() const {
  const double columns_per_cell =
      static_cast<double>(columns) / static_cast<double>(std::max(cells, 1LL));
  double sum = 0.0;
  for (const MemoryTerm& term : terms) sum += term.per_cell + term.per_column * columns_per_cell;
  return sum;
}

double MemoryEstimate::share(int ranks_here, int ranks) const {
  return ranks_here * (per_rank() + per_cell() * static_cast<double>(cells) / ranks);
}

MemoryEstimate estimate_memory(const JobConfig& job) {
  using namespace memory_table;
  MemoryEstimate estimate;
  const int dim = job.grid.dim;
  estimate.cells = 1;
  for (int a = 0; a < dim; ++a) estimate.cells *= job.grid.cells[a];
  // The liquid's surface lies across gravity (along y when there is none), so it has about as
  // many cells as a plane normal to it: one per column of cells along gravity.
  int up = 1;
  for (int a = 0; a < dim; ++a)
    if (std::abs(job.forces.gravity[a]) > std::abs(job.forces.gravity[up])) up = a;
  estimate.columns = estimate.cells / job.grid.cells[up];

  auto add = [&](const std::string& what, const ByDim& figure, double times = 1.0) {
    const Measured& m = figure[dim == 3 ? 1 : 0];
    estimate.terms.push_back(
        {what, times * m.per_rank_mb * 1e6, times * m.per_cell, times * m.per_column});
  };
  add("program, libraries, grid, velocity, pressure projection, frames", kBase);
  // Every scalar of the run counts, the ones the parser adds included (texture coordinates,
  // the strain components of a viscoelastic fluid).
  const int scalars = static_cast<int>(job.scalars.size());
  const std::string counted = std::to_string(scalars) + (scalars == 1 ? " scalar" : " scalars");
  const std::string each = " (" + counted + ")";
  if (scalars > 0) add(counted, kScalar, scalars);

  // Diffusion: one Krylov solver for the scalars' cell location, one per velocity component,
  // or the FFT solver for all of them; a variable viscosity has its own coupled solve.
  const bool scalars_diffuse = std::any_of(job.scalars.begin(), job.scalars.end(),
                                           [](const ScalarConfig& s) { return s.diffusion > 0; });
  const bool variable_viscosity = !job.fluid.variable.scalar.empty();
  const bool viscous = job.fluid.viscosity > 0.0 && !variable_viscosity;
  if (job.diffusion.method == SolverConfig::Method::Fft) {
    if (scalars_diffuse || viscous) add("FFT diffusion", kFftDiffusion);
  } else {
    if (scalars_diffuse) add("scalar diffusion", kScalarDiffusion);
    if (viscous) add("viscosity", kViscosity);
  }
  if (variable_viscosity) add("variable viscosity", kVariableViscosity);
  if (job.pressure.method == SolverConfig::Method::Fft) add("FFT projection", kFftProjection);

  if (job.forces.vorticity_confinement > 0.0) add("vorticity confinement", kConfinement);
  if (!job.obstacles.empty()) add("obstacles", kObstacle);
  if (std::any_of(job.obstacles.begin(), job.obstacles.end(), [](const ObstacleConfig& o) {
        return o.surface == ObstacleConfig::Surface::Cut;
      })) {
    add("cut faces", kCutFaces);
  }

  if (job.advection.scheme == AdvectionScheme::MacCormack) {
    add("MacCormack", kMacCormack);
    if (scalars > 0) add("MacCormack" + each, kMacCormackPerScalar, scalars);
  } else if (job.advection.scheme == AdvectionScheme::BFECC) {
    add("BFECC", kBfecc);
    if (scalars > 0) add("BFECC" + each, kBfeccPerScalar, scalars);
  }
  if (job.time.scheme == TimeScheme::BDF2) {
    add("BDF2", kBdf2);
    if (scalars > 0) add("BDF2" + each, kBdf2PerScalar, scalars);
  }

  if (job.liquid.enabled) {
    if (job.liquid.surface == LiquidConfig::Surface::HeightField) {
      add("liquid (height field)", kHeightField);
    } else {
      add("liquid (level set)", kLiquid);
      if (job.liquid.interface == LiquidConfig::Interface::Vof) add("volume fraction", kVof);
      if (job.liquid.volume_control.enabled) add("volume controller", kVolumeControl);
      const LiquidConfig::Particles& p = job.liquid.particles;
      // Measured at 16 a cell in a band of 3 cells either side: the count scales with both.
      if (p.per_cell > 0)
        add("marker particles", kParticles, (p.per_cell / 16.0) * (p.band / 3.0));
    }
  }
  if (job.viscoelastic.enabled) add("viscoelastic", kViscoelastic);
  if (job.fire.enabled) add("fire", kFire);

  if (!job.catalyst.scripts.empty()) {
    // The scripts share one ParaView; the most expensive one decides.
    const ByDim* figure = nullptr;
    auto bytes = [&](const ByDim* f) {
      const Measured& m = (*f)[dim == 3 ? 1 : 0];
      return m.per_rank_mb * 1e6 + m.per_cell * static_cast<double>(estimate.cells);
    };
    for (const CatalystScript& script : job.catalyst.scripts) {
      const std::string file = std::filesystem::path(script.path).filename().string();
      const ByDim* kind = file == "volume_png.py"    ? &kCatalystVolume
                          : file == "contour_png.py" ? &kCatalystContour
                                                     : &kCatalyst;
      if (figure == nullptr || bytes(kind) > bytes(figure)) figure = kind;
    }
    add("ParaView Catalyst", *figure);
  }
  return estimate;
}

}  // namespace sf
