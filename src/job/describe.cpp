// What a restart may not change: a job's physics as "key: value" lines, and the keys in which two
// jobs differ, for the message that refuses a checkpoint of another job.
#include "parser.hpp"  // the job's axis names, kAxisNames

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sf {

namespace {

std::string format(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string format(const std::array<double, 3>& v, int dim) {
  std::string s = "[";
  for (int a = 0; a < dim; ++a) s += (a ? ", " : "") + format(v[a]);
  return s + "]";
}

std::string format(const Region& r, int dim) {
  switch (r.shape) {
    case Region::Shape::Box:
      return "box " + format(r.lower, dim) + " " + format(r.upper, dim);
    case Region::Shape::Sphere:
      return "sphere " + format(r.center, dim) + " r " + format(r.radius);
    case Region::Shape::Cylinder:
      return "cylinder " + format(r.center, dim) + " r " + format(r.radius) + " axis " +
             std::to_string(r.axis);
    case Region::Shape::Mesh:
      return "mesh";  // the obstacle's line says which (a checkpoint's job has no mesh read)
  }
  return "?";
}

/// A source's or force region's time profile; empty for one that always acts at full strength,
/// so that the lines of jobs written before profiles existed stay what they were.
std::string format(const TimeProfile& when, int dim) {
  std::string s;
  if (when.start != 0.0 || when.end != std::numeric_limits<double>::infinity())
    s += " from " + format(when.start) + " to " + format(when.end);
  for (const TimeProfile::Keyframe& key : when.keyframes)
    s += " key " + format(key.time) + " x" + format(key.factor) + " " + format(key.offset, dim);
  return s;
}

}  // namespace

std::vector<std::string> physics_description(const JobConfig& job) {
  const int dim = job.grid.dim;
  std::vector<std::string> lines;
  auto add = [&](const std::string& key, const std::string& value) {
    lines.push_back(key + ": " + value);
  };
  add("grid.dim", std::to_string(dim));
  std::array<double, 3> cells{};
  for (int a = 0; a < 3; ++a) cells[a] = static_cast<double>(job.grid.cells[a]);
  add("grid.cells", format(cells, dim));
  add("grid.origin", format(job.grid.origin, dim));
  add("grid.size", format(job.grid.size, dim));
  add("grid.halo", std::to_string(job.grid.halo));
  for (int a = 0; a < dim; ++a)
    for (int s = 0; s < 2; ++s) {
      const FaceBoundary& f = job.boundary[a][s];
      std::string value = to_string(f.kind);
      if (f.kind == BoundaryKind::Inflow || f.kind == BoundaryKind::NoSlip)
        value += " velocity " + format(f.velocity, dim);
      if (f.kind == BoundaryKind::Inflow) {
        value += f.profile == InflowProfile::Parabolic ? " parabolic" : " uniform";
        for (const FaceBoundary::Keyframe& key : f.keyframes)
          value += " key " + format(key.time) + " " + format(key.velocity, dim);
        if (f.pulsation_period > 0.0)
          value += " pulsation " + format(f.pulsation, dim) + " period " +
                   format(f.pulsation_period);
      }
      // Inflow and walls: the scalars' values; walls: their fixed gradients.
      for (const auto& [name, v] : f.scalar_values) value += " " + name + "=" + format(v);
      for (const auto& [name, g] : f.scalar_gradients)
        value += " " + name + " gradient " + format(g);
      // Inflow with a liquid: where the liquid crosses the face.
      for (const Region& region : f.liquid) value += " liquid " + format(region, dim);
      add(std::string("boundary.") + job_detail::kAxisNames[a] + (s ? ".upper" : ".lower"), value);
    }
  add("velocity.initial", std::to_string(static_cast<int>(job.velocity.kind)) + " " +
                              format(job.velocity.value, dim) + " " +
                              format(job.velocity.center, dim) + " " + format(job.velocity.radius) +
                              " " + format(job.velocity.strength));
  for (const ScalarConfig& s : job.scalars) {
    const std::string key = "scalars." + s.name;
    add(key + ".background", format(s.background));
    std::string initial;
    for (const ScalarBlob& b : s.initial)
      initial += format(b.region, dim) + " = " + format(b.value) + "; ";
    add(key + ".initial", initial);
    add(key + ".diffusion", format(s.diffusion));
    add(key + ".dissipation", format(s.dissipation));
    std::string sources;
    for (const ScalarSource& src : s.sources)
      sources += format(src.region, dim) +
                 (src.mode == ScalarSource::Mode::Add ? " add " : " set ") + format(src.value) +
                 (src.has_velocity ? " velocity " + format(src.velocity, dim) : "") +
                 format(src.when, dim) + "; ";
    add(key + ".sources", sources);
  }
  // A variable viscosity extends the constant's entry, so that every job without one describes
  // itself as before and its checkpoints still restart.
  std::string viscosity = format(job.fluid.viscosity);
  if (const ViscosityLaw& law = job.fluid.variable; law.enabled()) {
    viscosity += " from " + law.scalar;
    for (size_t n = 0; n < law.at.size(); ++n)
      viscosity += " " + format(law.at[n]) + ":" + format(std::exp(law.log_nu[n]));
    viscosity += law.average == ViscosityAverage::Harmonic ? " harmonic" : " geometric";
  }
  add("fluid.viscosity", viscosity);
  add("advection.scheme", std::to_string(static_cast<int>(job.advection.scheme)));
  add("advection.interpolation", std::to_string(static_cast<int>(job.advection.interpolation)));
  const ForcesConfig& f = job.forces;
  add("forces.gravity", format(f.gravity, dim));
  add("forces.buoyancy",
      f.buoyancy.enabled ? f.buoyancy.density_scalar + " " + f.buoyancy.temperature_scalar + " " +
                               format(f.buoyancy.alpha) + " " + format(f.buoyancy.beta) + " " +
                               format(f.buoyancy.ambient_temperature) + " " +
                               format(f.buoyancy.up, dim)
                         : "off");
  add("forces.vorticity_confinement", format(f.vorticity_confinement));
  add("forces.wind",
      f.wind.enabled ? format(f.wind.velocity, dim) + " rate " + format(f.wind.rate) +
                           (f.wind.has_region ? " in " + format(f.wind.region, dim) : "")
                     : "off");
  std::string regions;
  for (const ForceRegion& r : f.regions)
    regions += format(r.region, dim) + " " + format(r.acceleration, dim) + format(r.when, dim) +
               "; ";
  add("forces.regions", regions);
  if (job.fire.enabled) {
    const FireConfig& fire = job.fire;
    add("fire", fire.fuel + " " + fire.temperature + " " + fire.soot + " rate " +
                    format(fire.burn_rate) + " ignition " + format(fire.ignition_temperature) +
                    " heat " + format(fire.heat) + " soot " + format(fire.soot_yield) +
                    " expansion " + format(fire.expansion));
  }
  if (job.texture.enabled) add("texture.period", format(job.texture.period));
  // Only a job with noise has the line: a checkpoint from before it existed still matches.
  if (f.noise.enabled)
    add("forces.noise", f.noise.scalar + " " + format(f.noise.amplitude) + " scale " +
                            format(f.noise.scale) + " period " + format(f.noise.period) +
                            " seed " + std::to_string(f.noise.seed));
  std::string obstacles;
  for (const ObstacleConfig& o : job.obstacles) {
    obstacles += format(o.region, dim) + " " + to_string(o.boundary) +
                 (o.surface == ObstacleConfig::Surface::Cut ? " cut" : "");
    for (const auto& [name, v] : o.scalar_values) obstacles += " " + name + "=" + format(v);
    for (const auto& [name, g] : o.scalar_gradients)
      obstacles += " " + name + " gradient " + format(g);
    if (o.region.shape == Region::Shape::Mesh) {
      const ObstacleConfig::MeshFile& m = o.mesh_file;
      obstacles += " '" + m.given + "' scale " + format(m.scale);
      if (m.centred) obstacles += " center " + format(m.center, dim);
    }
    if (o.motion.moves()) {
      obstacles += " moving " + format(o.motion.velocity, dim);
      if (o.motion.period > 0.0)
        obstacles += " swing " + format(o.motion.amplitude, dim) + " period " +
                     format(o.motion.period);
      if (o.motion.turns())
        obstacles += " turning " + format(o.motion.angular_velocity, 3) + " about " +
                     format(o.motion.pivot, dim);
      for (const ObstacleConfig::Keyframe& key : o.motion.keyframes)
        obstacles += " key " + format(key.time) + " " + format(key.position, dim) + " " +
                     format(key.angle);
      if (!o.motion.keyframes.empty() && dim == 3) obstacles += " axis " + format(o.motion.axis, 3);
    }
    if (o.floating.enabled) {
      obstacles += " floating density " + format(o.floating.density) +
                   (o.floating.turns ? "" : " not turning") + " from " +
                   format(o.floating.velocity, dim);
      if (o.floating.turns) obstacles += " turning " + format(o.floating.angular_velocity, 3);
    }
    obstacles += "; ";
  }
  add("obstacles", obstacles);
  if (job.liquid.enabled) {
    std::string liquid;
    for (const Region& region : job.liquid.initial) liquid += format(region, dim) + "; ";
    add("liquid.initial", liquid);
    add("liquid.band", std::to_string(job.liquid.band));
    add("liquid.reinitialise_every", std::to_string(job.liquid.reinitialise_every));
    std::string air;
    for (const AirPressure& patch : job.liquid.air_pressure)
      air += format(patch.region, dim) + " pressure " + format(patch.pressure) + " moving " +
             format(patch.velocity, dim) + " from " + format(patch.start) + " to " +
             format(patch.end) + "; ";
    if (!air.empty()) add("liquid.air_pressure", air);
    if (job.liquid.surface == LiquidConfig::Surface::HeightField)
      add("liquid.surface", "height_field");
    if (job.liquid.interface == LiquidConfig::Interface::Vof) add("liquid.interface", "vof");
    const LiquidConfig::Spray& spray = job.liquid.spray;
    if (spray.enabled)
      add("liquid.spray", "threshold " + format(spray.threshold) + " rate " +
                              format(spray.rate) + " radius " + format(spray.radius) +
                              " spread " + format(spray.spread) + " drag " +
                              format(spray.drag) + " split_time " + format(spray.split_time) +
                              " foam_life " + format(spray.foam_life));
  }
  if (job.viscoelastic.enabled) {
    const ViscoelasticConfig& v = job.viscoelastic;
    add("viscoelastic", "elastic_modulus " + format(v.elastic_modulus) + " yield_point " +
                            format(v.yield_point) + " yield_rate " + format(v.yield_rate) +
                            " material " + (v.material.empty() ? std::string("liquid")
                                                               : v.material + " >= " +
                                                                     format(v.threshold)));
  }
  add("time.scheme", job.time.scheme == TimeScheme::BDF2 ? "bdf2" : "stam");
  add("time.dt", format(job.time.dt));
  add("time.cfl", format(job.time.cfl));
  add("time.dt_min", format(job.time.dt_min));
  add("time.dt_max", format(job.time.dt_max));
  return lines;
}

std::string physics_differences(const JobConfig& before_job, const JobConfig& now_job) {
  const std::vector<std::string> before = physics_description(before_job);
  const std::vector<std::string> now = physics_description(now_job);
  std::string differences;
  for (const std::string& line : before)
    if (std::find(now.begin(), now.end(), line) == now.end()) {
      const std::string key = line.substr(0, line.find(':'));
      auto match = std::find_if(now.begin(), now.end(), [&](const std::string& l) {
        return l.compare(0, key.size() + 1, key + ":") == 0;
      });
      differences += "\n  " + key + ": checkpoint has" + line.substr(key.size() + 1) + ", job has" +
                     (match == now.end() ? " nothing" : match->substr(key.size() + 1));
    }
  for (const std::string& line : now) {
    const std::string key = line.substr(0, line.find(':'));
    if (std::none_of(before.begin(), before.end(), [&](const std::string& l) {
          return l.compare(0, key.size() + 1, key + ":") == 0;
        }))
      differences +=
          "\n  " + key + ": not in the checkpoint's job, job has" + line.substr(key.size() + 1);
  }
  return differences;
}

}  // namespace sf
