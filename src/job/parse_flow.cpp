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
  const std::string name = read_string(type);
  if (name == "zero") {
    map.allow_only({"type"}, " for type 'zero'");
    velocity.kind = VelocityInit::Kind::Zero;
  } else if (name == "uniform") {
    map.allow_only({"type", "value"}, " for type 'uniform'");
    velocity.kind = VelocityInit::Kind::Uniform;
    velocity.value = read_vector(map.require("value"), dim);
  } else if (name == "vortex") {
    map.allow_only({"type", "center", "radius", "strength"}, " for type 'vortex'");
    velocity.kind = VelocityInit::Kind::Vortex;
    velocity.center = read_vector(map.require("center"), dim);
    velocity.radius = read_positive(map.require("radius"));
    velocity.strength = read_number(map.require("strength"));
  } else if (name == "taylor_green") {
    map.allow_only({"type", "strength"}, " for type 'taylor_green'");
    velocity.kind = VelocityInit::Kind::TaylorGreen;
    const auto strength = map.find("strength");
    velocity.strength = strength ? read_number(*strength) : 1.0;
  } else {
    fail(type, "unknown type (expected one of: zero, uniform, vortex, taylor_green), " +
                   describe(type.node));
  }
  return velocity;
}

FluidConfig JobParser::parse_fluid(const std::optional<Field>& field) const {
  FluidConfig fluid;
  if (!field) return fluid;
  const MapReader map(*this, *field, true, {"viscosity"});
  if (auto viscosity = map.find("viscosity")) fluid.viscosity = read_non_negative(*viscosity);
  return fluid;
}

AdvectionConfig JobParser::parse_advection(const std::optional<Field>& field,
                                           const GridConfig& grid) const {
  AdvectionConfig advection;
  if (!field) return advection;
  const MapReader map(*this, *field, true, {"scheme", "interpolation"});
  if (auto scheme = map.find("scheme")) {
    const std::string name = read_string(*scheme);
    if (name == "semi_lagrangian") {
      advection.scheme = AdvectionScheme::SemiLagrangian;
    } else if (name == "maccormack") {
      advection.scheme = AdvectionScheme::MacCormack;
    } else if (name == "bfecc") {
      advection.scheme = AdvectionScheme::BFECC;
    } else {
      fail(*scheme, "unknown scheme (expected one of: semi_lagrangian, maccormack, bfecc), " +
                        describe(scheme->node));
    }
  }
  if (auto interpolation = map.find("interpolation")) {
    const std::string name = read_string(*interpolation);
    if (name == "linear") {
      advection.interpolation = Interpolation::Linear;
    } else if (name == "monotone_cubic") {
      advection.interpolation = Interpolation::MonotoneCubic;
      // The 4-point stencil reaches 2 cells beyond the cell a departure point lies in.
      if (grid.halo < 2) {
        fail(*interpolation, "monotone_cubic needs grid.halo >= 2, but grid.halo is " +
                                 std::to_string(grid.halo));
      }
    } else {
      fail(*interpolation, "unknown interpolation (expected one of: linear, monotone_cubic), " +
                               describe(interpolation->node));
    }
  }
  return advection;
}

}  // namespace sf::job_detail
