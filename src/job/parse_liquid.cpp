// The liquid section: the liquid's initial body and how its level set is kept.
#include "parser.hpp"

namespace sf::job_detail {

LiquidConfig JobParser::parse_liquid(const std::optional<Field>& field, int dim) const {
  LiquidConfig liquid;
  if (!field) return liquid;
  const MapReader map(*this, *field, false,
                      {"initial", "band", "reinitialise_every", "particles", "sources", "sinks",
                       "air_pressure", "spray", "surface", "interface", "volume_control"});
  liquid.enabled = true;
  const Field initial = map.require("initial");
  for (const Field& item : list_items(initial, "regions")) {
    const MapReader region = region_reader(item, {});
    liquid.initial.push_back(parse_region(region, dim, {}));
  }
  if (liquid.initial.empty()) {
    fail(initial, "needs at least one region (the liquid at the start), " +
                      describe(initial.node));
  }
  auto read_count = [&](const char* key, int least, int* out) {
    const auto value = map.find(key);
    if (!value) return;
    const std::string expectation = "expected an integer >= " + std::to_string(least);
    const long long n = read_integer(*value, expectation.c_str());
    if (n < least || n > 1000) {
      fail(*value, expectation + " and <= 1000, " + describe(value->node));
    }
    *out = static_cast<int>(n);
  };
  // Reinitialisation needs the band's inner cells on both sides of the surface: 2 at least.
  read_count("band", 2, &liquid.band);
  read_count("reinitialise_every", 1, &liquid.reinitialise_every);
  if (const auto surface = map.find("surface")) {
    liquid.surface = read_choice<LiquidConfig::Surface>(
        *surface, "liquid surface",
        {{"level_set", LiquidConfig::Surface::LevelSet},
         {"height_field", LiquidConfig::Surface::HeightField}});
  }
  // The volume fraction is the default interface: it keeps the liquid's volume to rounding,
  // where the particle level set loses some in every splash. A height field keeps its own
  // surface and has no interface to choose.
  const bool height_field = liquid.surface == LiquidConfig::Surface::HeightField;
  const auto interface = map.find("interface");
  using Interface = LiquidConfig::Interface;
  liquid.interface = height_field ? Interface::LevelSet : Interface::Vof;
  if (interface) {
    liquid.interface = read_choice<Interface>(
        *interface, "liquid interface",
        {{"level_set", Interface::LevelSet}, {"vof", Interface::Vof}});
  }
  const bool vof = liquid.interface == Interface::Vof;
  // The fraction is moved by its own fluxes: marker particles have no level set to correct.
  if (vof)
    if (const auto given = map.find("particles"))
      fail(*given, interface ? "is for liquid.interface: level_set; the vof interface has no "
                               "marker particles"
                             : "is for liquid.interface: level_set (the particle level set); the "
                               "default interface, vof, has no marker particles: add "
                               "`interface: level_set` to the liquid section, or remove "
                               "`particles`");
  // What a height field (height_field.hpp) cannot have: it keeps no level set of its own to
  // correct, and liquid that appears or vanishes in a region is not a column's height.
  for (const char* key : {"particles", "reinitialise_every", "sources", "sinks"}) {
    if (!height_field) break;
    if (const auto given = map.find(key))
      fail(*given, "is for a level-set surface; liquid.surface: height_field has none");
  }
  // Marker particles: on unless per_cell is 0. 16 a cell in 3D too (Enright et al. used 64):
  // a band 7 cells thick round a surface of 40 thousand cells is then 4.5 million particles.
  liquid.particles.per_cell = height_field || vof ? 0 : 16;
  if (const auto particles = map.find("particles")) {
    const MapReader reader(*this, *particles, false, {"per_cell", "band", "reseed_every"});
    auto read = [&](const char* key, int least, int most, int* out) {
      const auto value = reader.find(key);
      if (!value) return;
      const std::string expectation =
          "expected an integer from " + std::to_string(least) + " to " + std::to_string(most);
      const long long n = read_integer(*value, expectation.c_str());
      if (n < least || n > most) fail(*value, expectation + ", " + describe(value->node));
      *out = static_cast<int>(n);
    };
    read("per_cell", 0, 1024, &liquid.particles.per_cell);
    read("band", 1, 10, &liquid.particles.band);
    read("reseed_every", 1, 100000, &liquid.particles.reseed_every);
  }
  if (const auto spray = map.find("spray")) {
    const MapReader reader(*this, *spray, false,
                           {"threshold", "rate", "radius", "spread", "drag", "split_time",
                            "foam_life"});
    LiquidConfig::Spray& s = liquid.spray;
    s.enabled = true;
    s.threshold = read_positive(reader.require("threshold"));
    if (const auto rate = reader.find("rate")) s.rate = read_positive(*rate);
    if (const auto radius = reader.find("radius")) s.radius = read_positive(*radius);
    if (const auto foam_life = reader.find("foam_life")) s.foam_life = read_positive(*foam_life);
    const auto read_not_negative = [&](const char* key, double* out) {
      const auto value = reader.find(key);
      if (!value) return;
      *out = read_number(*value);
      if (!(*out >= 0.0)) fail(*value, "must be >= 0, " + describe(value->node));
    };
    read_not_negative("spread", &s.spread);
    read_not_negative("drag", &s.drag);
    read_not_negative("split_time", &s.split_time);
  }
  if (const auto control = map.find("volume_control")) {
    const MapReader reader(*this, *control, true, {"response_time"});
    liquid.volume_control.enabled = true;
    if (const auto time = reader.find("response_time"))
      liquid.volume_control.response_time = read_positive(*time);
  }
  // Sources and sinks: regions with an active time span, a source optionally with a velocity.
  auto read_flows = [&](const char* key, bool with_velocity, std::vector<LiquidConfig::Flow>* out) {
    const auto list = map.find(key);
    if (!list) return;
    std::vector<std::string> own = {"start", "end"};
    if (with_velocity) own.push_back("velocity");
    for (const Field& item : list_items(*list, "regions")) {
      const MapReader reader = region_reader(item, own);
      LiquidConfig::Flow flow;
      flow.region = parse_region(reader, dim, own);
      read_active_span(reader, &flow.start, &flow.end);
      if (with_velocity) {
        if (const auto velocity = reader.find("velocity")) {
          flow.velocity = read_vector(*velocity, dim);
          flow.has_velocity = true;
        }
      }
      out->push_back(flow);
    }
  };
  read_flows("sources", true, &liquid.sources);
  read_flows("sinks", false, &liquid.sinks);
  // Patches of the surface the air presses on, each moving at its velocity.
  if (const auto list = map.find("air_pressure")) {
    const std::vector<std::string> own = {"pressure", "velocity", "start", "end"};
    for (const Field& item : list_items(*list, "regions")) {
      const MapReader reader = region_reader(item, own);
      AirPressure patch;
      patch.region = parse_region(reader, dim, own);
      patch.pressure = read_number(reader.require("pressure"));
      if (const auto velocity = reader.find("velocity")) patch.velocity = read_vector(*velocity, dim);
      read_active_span(reader, &patch.start, &patch.end);
      liquid.air_pressure.push_back(patch);
    }
  }
  return liquid;
}

}  // namespace sf::job_detail
