// The forces section: gravity, buoyancy, vorticity confinement, wind, force regions, noise; and
// the time profile that scripts force regions and scalar sources.
#include "parser.hpp"

namespace sf::job_detail {

ForcesConfig JobParser::parse_forces(const std::optional<Field>& field, const GridConfig& grid,
                                     const std::vector<ScalarConfig>& scalars) const {
  ForcesConfig forces;
  if (!field) return forces;
  const int dim = grid.dim;
  const MapReader map(*this, *field, true,
                      {"gravity", "buoyancy", "vorticity_confinement", "wind", "regions", "noise"});
  if (auto gravity = map.find("gravity")) forces.gravity = read_vector(*gravity, dim);
  if (auto buoyancy = map.find("buoyancy")) {
    forces.buoyancy = parse_buoyancy(*buoyancy, dim, scalars);
  }
  if (auto confinement = map.find("vorticity_confinement"))
    forces.vorticity_confinement = read_non_negative(*confinement);
  if (auto wind = map.find("wind")) forces.wind = parse_wind(*wind, dim);
  for (const Field& item : list_items(map.find("regions"), "force regions"))
    forces.regions.push_back(parse_force_region(item, dim));
  if (auto noise = map.find("noise")) forces.noise = parse_noise(*noise, scalars);
  return forces;
}

ForceRegion JobParser::parse_force_region(const Field& item, int dim) const {
  std::vector<std::string> own = {"acceleration"};
  own.insert(own.end(), time_profile_keys().begin(), time_profile_keys().end());
  const MapReader region_map = region_reader(item, own);
  ForceRegion region;
  region.region = parse_region(region_map, dim, own);
  region.acceleration = read_vector(region_map.require("acceleration"), dim);
  region.when = parse_time_profile(region_map, dim);
  return region;
}

const std::vector<std::string>& JobParser::time_profile_keys() {
  static const std::vector<std::string> keys = {"start", "end", "keyframes"};
  return keys;
}

void JobParser::read_active_span(const MapReader& map, double* start, double* end) const {
  if (const auto given = map.find("start")) *start = read_number(*given);
  if (const auto given = map.find("end")) {
    *end = read_number(*given);
    if (!(*end > *start))
      fail(*given, "must be after start (" + format_number(*start) + "), " + describe(given->node));
  }
}

TimeProfile JobParser::parse_time_profile(const MapReader& map, int dim) const {
  TimeProfile when;
  read_active_span(map, &when.start, &when.end);
  const auto keyframes = map.find("keyframes");
  if (!keyframes) return when;
  for (const Field& item : list_items(keyframes, "keyframes")) {
    const MapReader key(*this, item, false, {"time", "factor", "offset"});
    TimeProfile::Keyframe frame;
    const Field time = key.require("time");
    frame.time = read_number(time);
    if (!when.keyframes.empty() && !(frame.time > when.keyframes.back().time)) {
      fail(time, "must be later than the keyframe before it (t = " +
                     format_number(when.keyframes.back().time) + "), " + describe(time.node));
    }
    if (const auto factor = key.find("factor")) frame.factor = read_number(*factor);
    if (const auto offset = key.find("offset")) frame.offset = read_vector(*offset, dim);
    when.keyframes.push_back(frame);
  }
  if (when.keyframes.size() < 2)
    fail(*keyframes, "needs at least two keyframes (the strength and place run between them), " +
                         describe(keyframes->node));
  return when;
}

NoiseConfig JobParser::parse_noise(const Field& field,
                                   const std::vector<ScalarConfig>& scalars) const {
  NoiseConfig noise;
  noise.enabled = true;
  const MapReader map(*this, field, false, {"scalar", "amplitude", "scale", "period", "seed"});
  if (const auto scalar = map.find("scalar")) noise.scalar = read_string(*scalar);
  noise.amplitude = read_non_negative(map.require("amplitude"));
  noise.scale = read_positive(map.require("scale"));
  noise.period = read_positive(map.require("period"));
  if (const auto seed = map.find("seed")) {
    const long long n = read_integer(*seed, "expected a non-negative integer");
    if (n < 0) fail(*seed, "expected a non-negative integer, " + describe(seed->node));
    noise.seed = static_cast<std::uint64_t>(n);
  }
  if (noise.amplitude > 0.0 && !is_declared(scalars, noise.scalar)) {
    const auto given = map.find("scalar");
    fail(given ? *given : map.require("amplitude"),
         "the noise is proportional to the scalar '" + noise.scalar + "', which is not declared (" +
             declared_scalars(scalars) + ")" +
             (given ? "" : "; name one with " + map.field().path + ".scalar"));
  }
  return noise;
}

BuoyancyConfig JobParser::parse_buoyancy(const Field& field, int dim,
                                         const std::vector<ScalarConfig>& scalars) const {
  BuoyancyConfig buoyancy;
  buoyancy.enabled = true;
  const MapReader map(*this, field, true,
                      {"density", "temperature", "alpha", "beta", "ambient_temperature", "up"});
  if (auto density = map.find("density")) buoyancy.density_scalar = read_string(*density);
  if (auto temperature = map.find("temperature")) {
    buoyancy.temperature_scalar = read_string(*temperature);
  }
  if (auto alpha = map.find("alpha")) buoyancy.alpha = read_number(*alpha);
  if (auto beta = map.find("beta")) buoyancy.beta = read_number(*beta);
  if (auto ambient = map.find("ambient_temperature")) {
    buoyancy.ambient_temperature = read_number(*ambient);
  }
  if (auto up = map.find("up")) {
    const std::array<double, 3> v =
        read_vector(*up, dim, [this](const Field& f) { return read_finite(f); });
    // Scaled by the largest entry first, so that squaring cannot overflow or underflow.
    double scale = 0.0;
    for (double c : v) scale = std::max(scale, std::abs(c));
    if (scale == 0.0) {
      fail(*up, "must not be the zero vector (it is the direction hot fluid rises in)");
    }
    double norm = 0.0;
    for (double c : v) norm += (c / scale) * (c / scale);
    norm = std::sqrt(norm);
    for (int a = 0; a < 3; ++a) buoyancy.up[a] = (v[a] / scale) / norm;
  }
  // A term whose coefficient is 0 is never evaluated, so its scalar need not exist.
  check_buoyancy_scalar(map, "density", "alpha", buoyancy.density_scalar, buoyancy.alpha, scalars);
  check_buoyancy_scalar(map, "temperature", "beta", buoyancy.temperature_scalar, buoyancy.beta,
                        scalars);
  return buoyancy;
}

void JobParser::check_buoyancy_scalar(const MapReader& map, const char* name_key,
                                      const char* coefficient_key, const std::string& name,
                                      double coefficient,
                                      const std::vector<ScalarConfig>& scalars) const {
  if (coefficient == 0.0 || is_declared(scalars, name)) return;
  const std::string& path = map.field().path;
  if (auto given = map.find(name_key)) {
    fail(*given, "unknown scalar '" + name + "' (" + declared_scalars(scalars) + "); it is needed "
                 "because " + path + "." + coefficient_key + " is not 0");
  }
  // The name is the default; the coefficient, which the user did write, is what to point at.
  fail(*map.find(coefficient_key),
       "is not 0, so it needs the scalar '" + name + "' (the default of " + path + "." + name_key +
           "), which is not declared (" + declared_scalars(scalars) + "); declare it under "
           "scalars, or name another scalar with " + path + "." + name_key);
}

WindConfig JobParser::parse_wind(const Field& field, int dim) const {
  WindConfig wind;
  wind.enabled = true;
  const MapReader map(*this, field, true, {"velocity", "rate", "region"});
  wind.velocity = read_vector(map.require("velocity"), dim);
  wind.rate = read_positive(map.require("rate"));
  if (auto region = map.find("region")) {
    const MapReader region_map = region_reader(*region, {});
    wind.region = parse_region(region_map, dim, {});
    wind.has_region = true;
  }
  return wind;
}

}  // namespace sf::job_detail
