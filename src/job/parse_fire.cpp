// The fire section: which scalars burn into which, how fast, and how much the gas expands.
#include "parser.hpp"

namespace sf::job_detail {

FireConfig JobParser::parse_fire(const Field& field, const JobConfig& job) const {
  FireConfig fire;
  fire.enabled = true;
  const MapReader map(*this, field, false,
                      {"fuel", "temperature", "soot", "burn_rate", "ignition_temperature", "heat",
                       "soot_yield", "expansion"});
  // Each role's scalar: the default name, or the one given; it must be declared.
  const auto read_scalar = [&](const char* role, std::string* name) {
    const auto given = map.find(role);
    if (given) *name = read_string(*given);
    if (is_declared(job.scalars, *name)) return;
    if (given)
      fail(*given, "unknown scalar '" + *name + "' (" + declared_scalars(job.scalars) + ")");
    fail(map.field(), std::string("the fire's ") + role + " is the scalar '" + *name +
                          "' (the default of fire." + role + "), which is not declared (" +
                          declared_scalars(job.scalars) + "); declare it under scalars, or name "
                          "another with fire." + role);
  };
  read_scalar("fuel", &fire.fuel);
  read_scalar("temperature", &fire.temperature);
  if (const auto soot = map.find("soot")) read_scalar("soot", &fire.soot);
  if (fire.fuel == fire.temperature || fire.fuel == fire.soot || fire.temperature == fire.soot)
    fail(map.field(), "fuel, temperature and soot must be three different scalars (fuel '" +
                          fire.fuel + "', temperature '" + fire.temperature + "', soot '" +
                          fire.soot + "')");
  fire.burn_rate = read_positive(map.require("burn_rate"));
  if (const auto ignition = map.find("ignition_temperature"))
    fire.ignition_temperature = read_number(*ignition);
  if (const auto heat = map.find("heat")) fire.heat = read_non_negative(*heat);
  if (const auto yield = map.find("soot_yield")) {
    fire.soot_yield = read_non_negative(*yield);
    if (fire.soot.empty() && fire.soot_yield > 0.0)
      fail(*yield, "is not 0, so it needs a scalar for the soot (give fire.soot)");
  }
  if (const auto expansion = map.find("expansion")) fire.expansion = read_non_negative(*expansion);
  return fire;
}

}  // namespace sf::job_detail
