// The velocity (initial field), fluid and advection sections.
#include "parser.hpp"

namespace sf::job_detail {

VelocityInit JobParser::parse_velocity(const std::optional<Field>& field, int dim) const {
  VelocityInit velocity;
  if (!field) return velocity;
  const MapReader section(*this, *field, true, {"initial"});
  const auto initial = section.find("initial");
  if (!initial) return velocity;

  const MapReader map(*this, *initial, false, {"type", "value", "center", "radius", "strength"});
  const Field type = map.require("type");
  using Kind = VelocityInit::Kind;
  const Kind kind = read_choice<Kind>(type, "type",
                                {{"zero", Kind::Zero},
                                 {"uniform", Kind::Uniform},
                                 {"vortex", Kind::Vortex},
                                 {"taylor_green", Kind::TaylorGreen}});
  if (kind == Kind::Zero) {
    map.allow_only({"type"}, " for type 'zero'");
    velocity.kind = VelocityInit::Kind::Zero;
  } else if (kind == Kind::Uniform) {
    map.allow_only({"type", "value"}, " for type 'uniform'");
    velocity.kind = VelocityInit::Kind::Uniform;
    velocity.value = read_vector(map.require("value"), dim);
  } else if (kind == Kind::Vortex) {
    map.allow_only({"type", "center", "radius", "strength"}, " for type 'vortex'");
    velocity.kind = VelocityInit::Kind::Vortex;
    velocity.center = read_vector(map.require("center"), dim);
    velocity.radius = read_positive(map.require("radius"));
    velocity.strength = read_number(map.require("strength"));
  } else {
    map.allow_only({"type", "strength"}, " for type 'taylor_green'");
    velocity.kind = VelocityInit::Kind::TaylorGreen;
    const auto strength = map.find("strength");
    velocity.strength = strength ? read_number(*strength) : 1.0;
  }
  return velocity;
}

FluidConfig JobParser::parse_fluid(const std::optional<Field>& field,
                                   const std::vector<ScalarConfig>& scalars) const {
  FluidConfig fluid;
  if (!field) return fluid;
  const MapReader map(*this, *field, true, {"viscosity"});
  const auto viscosity = map.find("viscosity");
  if (!viscosity) return fluid;
  // A number is today's constant viscosity, solved component by component; a map is a law.
  if (!viscosity->node.IsMap()) {
    fluid.viscosity = read_non_negative(*viscosity);
    return fluid;
  }
  ViscosityLaw& law = fluid.variable;
  const MapReader keys(*this, *viscosity, false, {"from", "values", "average"});
  const Field from = keys.require("from");
  law.scalar = read_string(from);
  if (!is_declared(scalars, law.scalar))
    fail(from, "unknown scalar '" + law.scalar + "' (" + declared_scalars(scalars) + ")");
  const Field values = keys.require("values");
  if (!values.node.IsSequence() || values.node.size() == 0)
    fail(values, "expected a list of [value, viscosity] pairs, " + describe(values.node));
  for (std::size_t n = 0; n < values.node.size(); ++n) {
    const Field pair = element(values, n);
    if (!pair.node.IsSequence() || pair.node.size() != 2)
      fail(pair, "expected a pair [value of " + law.scalar + ", viscosity], " +
                     describe(pair.node));
    const double s = read_number(element(pair, 0));
    if (n > 0 && !(s > law.at.back()))
      fail(element(pair, 0), "the values of " + law.scalar + " must increase from pair to pair, " +
                                 describe(pair.node[0]));
    law.at.push_back(s);
    law.log_nu.push_back(std::log(read_positive(element(pair, 1))));
  }
  if (auto average = keys.find("average")) {
    law.average = read_choice<ViscosityAverage>(*average, "average",
                                                {{"geometric", ViscosityAverage::Geometric},
                                                 {"harmonic", ViscosityAverage::Harmonic}});
  }
  return fluid;
}

AdvectionConfig JobParser::parse_advection(const std::optional<Field>& field) const {
  AdvectionConfig advection;
  if (!field) return advection;
  const MapReader map(*this, *field, true, {"scheme", "interpolation"});
  if (auto scheme = map.find("scheme")) {
    advection.scheme = read_choice<AdvectionScheme>(*scheme, "scheme",
                                   {{"semi_lagrangian", AdvectionScheme::SemiLagrangian},
                                    {"maccormack", AdvectionScheme::MacCormack},
                                    {"bfecc", AdvectionScheme::BFECC}});
  }
  if (auto interpolation = map.find("interpolation")) {
    advection.interpolation = read_choice<Interpolation>(*interpolation, "interpolation",
                                          {{"linear", Interpolation::Linear},
                                           {"monotone_cubic", Interpolation::MonotoneCubic},
                                           {"cubic", Interpolation::Cubic}});
  }
  return advection;
}

}  // namespace sf::job_detail
