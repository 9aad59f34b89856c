// Regions (boxes, spheres, cylinders) and the obstacles made of them.
#include "parser.hpp"

#include <algorithm>
#include <cmath>

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

std::array<double, 3> JobParser::read_angular_velocity(const Field& turn, int dim) const {
  // In 2D the one axis a turn can have is z: a number; in 3D a vector.
  if (dim == 3) return read_vector(turn, dim);
  if (!turn.node.IsScalar())
    fail(turn, "expected a number in 2D (radians per unit time about z), " + describe(turn.node));
  return {0.0, 0.0, read_number(turn)};
}

void JobParser::read_keyframes(const MapReader& keys, int dim, ObstacleConfig::Motion* m) const {
  const auto axis = keys.find("axis");
  const auto list = keys.find("keyframes");
  if (axis && !list) fail(*axis, "an axis needs keyframes (their angles turn about it)");
  if (!list) return;
  for (const Field& item : list_items(list, "keyframes")) {
    const MapReader key(*this, item, false, {"time", "position", "angle"});
    ObstacleConfig::Keyframe frame;
    const Field time = key.require("time");
    frame.time = read_number(time);
    if (!m->keyframes.empty() && !(frame.time > m->keyframes.back().time)) {
      fail(time, "must be later than the keyframe before it (t = " +
                     format_number(m->keyframes.back().time) + "), " + describe(time.node));
    }
    if (auto position = key.find("position")) frame.position = read_vector(*position, dim);
    if (auto angle = key.find("angle")) frame.angle = read_number(*angle);
    m->keyframes.push_back(frame);
  }
  if (m->keyframes.size() < 2)
    fail(*list, "needs at least two keyframes (the path runs between them), " +
                    describe(list->node));
  if (axis) {
    if (dim == 2) fail(*axis, "a 2-D body turns about z: no axis to give");
    m->axis = read_vector(*axis, dim);
    const double length = std::sqrt(m->axis[0] * m->axis[0] + m->axis[1] * m->axis[1] +
                                    m->axis[2] * m->axis[2]);
    if (!(length > 0.0)) fail(*axis, "must not be zero, " + describe(axis->node));
    for (double& c : m->axis) c /= length;
  } else if (dim == 3 && std::any_of(m->keyframes.begin(), m->keyframes.end(),
                                     [](const ObstacleConfig::Keyframe& k) { return k.angle != 0.0; })) {
    fail(*list, "keyframes with angles in 3D need an axis to turn about");
  }
}

ObstacleConfig::MeshFile JobParser::parse_mesh_file(const MapReader& map, int dim,
                                                    const std::vector<std::string>& extra) const {
  map.allow_only(with_extra({"shape", "file", "scale", "center"}, extra), " for shape 'mesh'");
  const Field shape = map.require("shape");
  if (dim != 3) fail(shape, "a mesh obstacle needs a 3-D grid");
  ObstacleConfig::MeshFile mesh;
  const Field file = map.require("file");
  mesh.given = mesh.path = read_string(file);
  if (mesh.path.empty()) fail(file, "must not be empty");
  // Named relative to the job file, as Catalyst scripts are, so a job and its meshes move
  // together.
  mesh.path = beside_job(mesh.path);
  mesh.line = file.line;
  mesh.key = file.path;
  if (auto scale = map.find("scale")) mesh.scale = read_positive(*scale);
  if (auto center = map.find("center")) {
    mesh.centred = true;
    mesh.center = read_vector(*center, dim);
  }
  return mesh;
}

std::vector<ObstacleConfig> JobParser::parse_obstacles(
    const std::optional<Field>& field, int dim, const std::vector<ScalarConfig>& scalars) const {
  std::vector<ObstacleConfig> obstacles;
  for (const Field& item : list_items(field, "obstacles")) {
    const std::vector<std::string> own = {"boundary", "surface", "scalars", "fluxes", "motion",
                                          "floating"};
    ObstacleConfig obstacle;
    const MapReader map = region_reader(item, with_extra({"file", "scale"}, own));
    const Field shape = map.require("shape");
    if (shape.node.IsScalar() && shape.node.Scalar() == "mesh") {
      obstacle.region.shape = Region::Shape::Mesh;
      obstacle.mesh_file = parse_mesh_file(map, dim, own);
    } else {
      // The regions' own choice of shapes, with the one only obstacles have.
      (void)read_choice<int>(shape, "obstacle shape",
                             {{"sphere", 0}, {"box", 1}, {"cylinder", 2}, {"mesh", 3}});
      obstacle.region = parse_region(map, dim, own);
    }
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
                           {"velocity", "amplitude", "period", "angular_velocity", "pivot",
                            "keyframes", "axis"});
      ObstacleConfig::Motion& m = obstacle.motion;
      if (auto velocity = keys.find("velocity")) m.velocity = read_vector(*velocity, dim);
      read_keyframes(keys, dim, &m);
      if (auto turn = keys.find("angular_velocity"))
        m.angular_velocity = read_angular_velocity(*turn, dim);
      // The pivot: the region's centre unless given.
      const Region& r = obstacle.region;
      for (int a = 0; a < 3; ++a)
        m.pivot[a] = r.shape == Region::Shape::Box    ? 0.5 * (r.lower[a] + r.upper[a])
                     : r.shape == Region::Shape::Mesh ? obstacle.mesh_file.center[a]
                                                      : r.center[a];
      const bool keyed_angle =
          std::any_of(m.keyframes.begin(), m.keyframes.end(),
                      [](const ObstacleConfig::Keyframe& k) { return k.angle != 0.0; });
      if (keyed_angle && (m.angular_velocity[0] != 0.0 || m.angular_velocity[1] != 0.0 ||
                          m.angular_velocity[2] != 0.0)) {
        fail(*keys.find("angular_velocity"),
             "turns the body as well as the keyframes' angles; give one or the other (a body "
             "turns about one axis here)");
      }
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
                      "angular_velocity, or keyframes, " + describe(motion->node));
      }
      if (r.shape == Region::Shape::Mesh && m.turns() && !keys.find("pivot") &&
          !obstacle.mesh_file.centred) {
        fail(*motion, "a turning mesh obstacle needs a pivot (or a center for the mesh, which "
                      "is then the pivot)");
      }
    }
    if (auto floating = map.find("floating")) {
      // Moved by the liquid (floating_bodies.hpp); compatibility.cpp refuses a motion of its own.
      const MapReader keys(*this, *floating, false,
                           {"density", "turns", "velocity", "angular_velocity"});
      ObstacleConfig::Floating& f = obstacle.floating;
      f.enabled = true;
      f.density = read_positive(keys.require("density"));
      if (auto turns = keys.find("turns")) f.turns = read_bool(*turns);
      if (auto velocity = keys.find("velocity")) f.velocity = read_vector(*velocity, dim);
      if (auto turn = keys.find("angular_velocity")) {
        f.angular_velocity = read_angular_velocity(*turn, dim);
        if (!f.turns) fail(*turn, "a body that does not turn (turns: false) has no angular "
                                  "velocity");
      }
    }
    obstacles.push_back(obstacle);
  }
  return obstacles;
}

}  // namespace sf::job_detail
