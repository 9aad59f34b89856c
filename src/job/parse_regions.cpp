// Regions (boxes, spheres, cylinders) and the obstacles made of them.
#include "parser.hpp"

namespace sf::job_detail {

namespace {

/// The keys of a region's `shape_keys` plus the item's own `extra` keys.
std::vector<std::string> with_extra(std::vector<std::string> shape_keys,
                                    const std::vector<std::string>& extra) {
  shape_keys.insert(shape_keys.end(), extra.begin(), extra.end());
  return shape_keys;
}

}  // namespace

MapReader JobParser::region_reader(const Field& field,
                                   const std::vector<std::string>& extra) const {
  return MapReader(*this, field, false,
                   with_extra({"shape", "center", "radius", "axis", "lower", "upper"}, extra));
}

Region JobParser::parse_region(const MapReader& map, int dim,
                               const std::vector<std::string>& extra) const {
  // The keys of one shape plus the item's own keys; every other key is an error, including one
  // that only another shape takes (a radius on a box would otherwise be silently ignored).
  const auto keys = [&extra](std::vector<std::string> shape_keys) {
    return with_extra(std::move(shape_keys), extra);
  };
  const Field shape = map.require("shape");
  using Shape = Region::Shape;
  const Shape kind = read_choice<Shape>(
      shape, "shape",
      {{"sphere", Shape::Sphere}, {"box", Shape::Box}, {"cylinder", Shape::Cylinder}});

  Region region;
  if (kind == Shape::Sphere) {
    map.allow_only(keys({"shape", "center", "radius"}), " for shape 'sphere'");
    region.shape = Region::Shape::Sphere;
    region.center = read_vector(map.require("center"), dim);
    region.radius = read_positive(map.require("radius"));
  } else if (kind == Shape::Cylinder) {
    map.allow_only(keys({"shape", "center", "radius", "axis"}), " for shape 'cylinder'");
    region.shape = Region::Shape::Cylinder;
    region.center = read_vector(map.require("center"), dim);
    region.radius = read_positive(map.require("radius"));
    if (auto axis = map.find("axis")) {
      region.axis = read_choice<int>(*axis, "axis", {{"x", 0}, {"y", 1}, {"z", 2}});
      // A 2-D job is a slice normal to z, so only a cylinder along z cuts it in a disc.
      if (dim == 2 && region.axis != 2) {
        fail(*axis, "a cylinder in a 2-D job must run along z (it is then a disc), " +
                        describe(axis->node));
      }
    }
  } else {
    map.allow_only(keys({"shape", "lower", "upper"}), " for shape 'box'");
    region.shape = Region::Shape::Box;
    region.lower = read_vector(map.require("lower"), dim);
    const Field upper = map.require("upper");
    region.upper = read_vector(upper, dim);
    for (int a = 0; a < dim; ++a) {
      if (!(region.lower[a] < region.upper[a])) {
        const Field entry = element(upper, a);
        fail(entry, "must be greater than lower[" + std::to_string(a) + "] = " +
                        format_number(region.lower[a]) + ", " + describe(entry.node));
      }
    }
  }
  return region;
}

std::vector<ObstacleConfig> JobParser::parse_obstacles(
    const std::optional<Field>& field, int dim, const std::vector<ScalarConfig>& scalars) const {
  std::vector<ObstacleConfig> obstacles;
  for (const Field& item : list_items(field, "obstacles")) {
    const std::vector<std::string> own = {"boundary", "surface", "scalars", "fluxes", "motion"};
    const MapReader map = region_reader(item, own);
    ObstacleConfig obstacle;
    obstacle.region = parse_region(map, dim, own);
    if (auto boundary = map.find("boundary")) {
      obstacle.boundary = read_choice<BoundaryKind>(*boundary, "obstacle boundary",
                                      {{"no-slip", BoundaryKind::NoSlip},
                                       {"free-slip", BoundaryKind::FreeSlip}});
    }
    if (auto surface = map.find("surface")) {
      obstacle.surface = read_choice<ObstacleConfig::Surface>(
          *surface, "obstacle surface",
          {{"staircase", ObstacleConfig::Surface::Staircase},
           {"cut", ObstacleConfig::Surface::Cut}});
    }
    read_scalar_values(map, scalars, obstacle.scalar_values);
    read_scalar_fluxes(map, scalars, obstacle.scalar_values, "obstacle", obstacle.scalar_gradients);
    if (auto motion = map.find("motion")) {
      // A tow (velocity), a swing (amplitude and period), a turn (angular_velocity about
      // pivot), or a sum of them.
      const MapReader keys(*this, *motion, false,
                           {"velocity", "amplitude", "period", "angular_velocity", "pivot"});
      ObstacleConfig::Motion& m = obstacle.motion;
      if (auto velocity = keys.find("velocity")) m.velocity = read_vector(*velocity, dim);
      if (auto turn = keys.find("angular_velocity")) {
        // In 2D the one axis a turn can have is z: a number; in 3D a vector.
        if (dim == 2) {
          if (!turn->node.IsScalar()) {
            fail(*turn, "expected a number in 2D (radians per unit time about z), " +
                            describe(turn->node));
          }
          m.angular_velocity[2] = read_number(*turn);
        } else {
          m.angular_velocity = read_vector(*turn, dim);
        }
      }
      // The pivot: the region's centre unless given.
      const Region& r = obstacle.region;
      for (int a = 0; a < 3; ++a)
        m.pivot[a] = r.shape == Region::Shape::Box ? 0.5 * (r.lower[a] + r.upper[a]) : r.center[a];
      if (auto pivot = keys.find("pivot")) {
        if (!m.turns()) {
          fail(*pivot, "a pivot needs an angular_velocity (it is what the body turns about)");
        }
        m.pivot = read_vector(*pivot, dim);
      }
      if (auto amplitude = keys.find("amplitude")) {
        m.amplitude = read_vector(*amplitude, dim);
        m.period = read_positive(keys.require("period"));
      } else if (auto period = keys.find("period")) {
        fail(*period, "a period needs an amplitude (the swing d(t) = amplitude sin(2 pi t / "
                      "period))");
      }
      if (!m.moves()) {
        fail(*motion, "moves nothing: give a non-zero velocity, amplitude or "
                      "angular_velocity, " + describe(motion->node));
      }
      if (obstacle.surface == ObstacleConfig::Surface::Cut) {
        fail(*motion, "a moving obstacle is a staircase for now (its cut faces would have to be "
                      "recomputed every step): give surface: staircase");
      }
    }
    obstacles.push_back(obstacle);
  }
  return obstacles;
}

}  // namespace sf::job_detail
