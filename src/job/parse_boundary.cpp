// The boundary section: the kind of each face, and what an inflow or a moving wall carries.
#include "parser.hpp"

#include <cmath>

namespace sf::job_detail {

BoundaryKind JobParser::parse_kind(const Field& field) const {
  return read_choice<BoundaryKind>(field, "boundary type",
                     {{"periodic", BoundaryKind::Periodic},
                      {"no-slip", BoundaryKind::NoSlip},
                      {"free-slip", BoundaryKind::FreeSlip},
                      {"inflow", BoundaryKind::Inflow},
                      {"outflow", BoundaryKind::Outflow}});
}

void JobParser::parse_boundary(const std::optional<Field>& field, const GridConfig& grid,
                               const std::vector<ScalarConfig>& scalars, JobConfig& job) const {
  // Axes beyond the grid's dimension are treated as periodic, which makes the unused direction
  // of a 2-D run behave as if it did not exist.
  for (int a = 0; a < 3; ++a) {
    const BoundaryKind kind = a < grid.dim ? BoundaryKind::NoSlip : BoundaryKind::Periodic;
    job.boundary[a][0].kind = kind;
    job.boundary[a][1].kind = kind;
  }
  if (!field) return;

  const MapReader map(*this, *field, true, {"x", "y", "z"});
  for (int a = 0; a < 3; ++a) {
    const auto axis = map.find(kAxisNames[a]);
    if (!axis) continue;
    if (a >= grid.dim) {
      fail(*axis, "the grid is " + std::to_string(grid.dim) + "-D (grid.cells has " +
                      std::to_string(grid.dim) + " entries), so there is no " + kAxisNames[a] +
                      " boundary");
    }
    if (axis->node.IsScalar()) {
      const BoundaryKind kind = parse_kind(*axis);
      // One inflow velocity cannot point into the domain on both sides of an axis.
      if (kind == BoundaryKind::Inflow) {
        fail(*axis, "inflow needs a map per side, e.g. upper: {type: inflow, velocity: [...]}");
      }
      job.boundary[a][0].kind = kind;
      job.boundary[a][1].kind = kind;
    } else if (axis->node.IsMap()) {
      const MapReader sides(*this, *axis, false, {"lower", "upper"});
      for (int s = 0; s < 2; ++s) {
        if (auto side = sides.find(kSideNames[s])) {
          job.boundary[a][s] = parse_side(*side, a, s, grid.dim, scalars);
        }
      }
    } else {
      fail(*axis, "expected a boundary type or a map with lower and upper, " +
                      describe(axis->node));
    }
    // A periodic side wraps around to the opposite side, so it means nothing unless the
    // opposite side wraps back.
    const BoundaryKind lower = job.boundary[a][0].kind;
    const BoundaryKind upper = job.boundary[a][1].kind;
    if ((lower == BoundaryKind::Periodic) != (upper == BoundaryKind::Periodic)) {
      fail(*axis, std::string("periodic must be on both sides (lower is ") + to_string(lower) +
                      ", upper is " + to_string(upper) + ")");
    }
  }
}

void JobParser::read_scalar_values(const MapReader& map, const std::vector<ScalarConfig>& scalars,
                                   std::map<std::string, double>& values) const {
  const auto carried = map.find("scalars");
  if (!carried) return;
  const MapReader entries(*this, *carried, true);
  // A set, so that many scalars named here against many declared cost linear time.
  std::unordered_set<std::string> declared;
  for (const ScalarConfig& scalar : scalars) declared.insert(scalar.name);
  for (const MapReader::Entry& entry : entries.named_entries()) {
    if (declared.count(entry.key) == 0) {
      fail(entry.value, "unknown scalar '" + entry.key + "' (" + declared_scalars(scalars) + ")");
    }
    values[entry.key] = read_number(entry.value);
  }
}

void JobParser::read_scalar_fluxes(const MapReader& map, const std::vector<ScalarConfig>& scalars,
                                   const std::map<std::string, double>& values,
                                   const std::string& what,
                                   std::map<std::string, double>& gradients) const {
  const auto fluxes = map.find("fluxes");
  if (!fluxes) return;
  const MapReader entries(*this, *fluxes, true);
  for (const MapReader::Entry& entry : entries.named_entries()) {
    const auto scalar = std::find_if(scalars.begin(), scalars.end(),
                                     [&](const ScalarConfig& s) { return s.name == entry.key; });
    if (scalar == scalars.end()) {
      fail(entry.value, "unknown scalar '" + entry.key + "' (" + declared_scalars(scalars) + ")");
    }
    if (values.count(entry.key)) {
      fail(entry.value, "'" + entry.key + "' is also held at a value on this " + what +
                            " (scalars); give it a value or a flux, not both");
    }
    if (!(scalar->diffusion > 0.0)) {
      const std::string article = what == "obstacle" ? "an " : "a ";
      fail(entry.value, "a flux through " + article + what + " needs diffusion, but scalars." +
                            entry.key + ".diffusion is 0");
    }
    gradients[entry.key] = read_number(entry.value) / scalar->diffusion;
  }
}

FaceBoundary JobParser::parse_side(const Field& field, int axis, int side, int dim,
                                   const std::vector<ScalarConfig>& scalars) const {
  FaceBoundary face;
  if (field.node.IsScalar()) {
    face.kind = parse_kind(field);
    if (face.kind == BoundaryKind::Inflow) {
      fail(field, "inflow needs a map with its velocity, e.g. {type: inflow, velocity: [...]}");
    }
    return face;
  }
  if (!field.node.IsMap()) {
    fail(field, "expected a boundary type or a map with type, " + describe(field.node));
  }
  const MapReader map(*this, field, false,
                      {"type", "velocity", "profile", "scalars", "fluxes", "liquid", "keyframes",
                       "pulsation"});
  face.kind = parse_kind(map.require("type"));
  const std::string for_type = std::string(" for type '") + to_string(face.kind) + "'";
  if (face.kind == BoundaryKind::FreeSlip) {
    map.allow_only({"type", "scalars", "fluxes"}, for_type);
    read_scalar_values(map, scalars, face.scalar_values);
    read_scalar_fluxes(map, scalars, face.scalar_values, "wall", face.scalar_gradients);
    return face;
  }
  if (face.kind == BoundaryKind::NoSlip) {
    // A moving wall, such as the lid of a lid-driven cavity. It slides along itself: a normal
    // component would make it a source or sink of fluid, which is what inflow and outflow are for.
    map.allow_only({"type", "velocity", "scalars", "fluxes"}, for_type);
    read_scalar_values(map, scalars, face.scalar_values);
    read_scalar_fluxes(map, scalars, face.scalar_values, "wall", face.scalar_gradients);
    if (auto velocity = map.find("velocity")) {
      face.velocity = read_vector(*velocity, dim);
      const double normal = face.velocity[axis];
      if (normal != 0.0) {
        fail(*velocity, std::string("a wall's velocity must be tangential (its ") +
                            kAxisNames[axis] + " component, normal to the wall, must be 0, got " +
                            format_number(normal) + ")");
      }
    }
    return face;
  }
  if (face.kind != BoundaryKind::Inflow) {
    map.allow_only({"type"}, for_type);
    return face;
  }

  // Inflow: a fixed flux through an open face means nothing (the flow carries the scalars in).
  map.allow_only({"type", "velocity", "profile", "scalars", "liquid", "keyframes", "pulsation"},
                 for_type);
  // The velocity must point into the domain at every time: checked for `velocity` or each
  // keyframe, less the pulsation's swing against it.
  double swing = 0.0;
  if (auto pulsation = map.find("pulsation")) {
    const MapReader keys(*this, *pulsation, false, {"amplitude", "period"});
    face.pulsation = read_vector(keys.require("amplitude"), dim);
    face.pulsation_period = read_positive(keys.require("period"));
    swing = std::abs(face.pulsation[axis]);
  }
  const auto check_inward = [&](const Field& where, const std::array<double, 3>& v) {
    const double normal = v[axis];
    const bool inward = side == 0 ? normal - swing > 0.0 : normal + swing < 0.0;
    if (inward) return;
    fail(where, std::string("inflow velocity must point into the domain at all times (the ") +
                    kAxisNames[axis] + " component on the " + kSideNames[side] + " side must be " +
                    (side == 0 ? "> 0" : "< 0") + ", got " + format_number(normal) +
                    (swing > 0.0 ? " with a pulsation of +-" + format_number(swing) : "") + ")");
  };
  const auto velocity = map.find("velocity");
  const auto keyframes = map.find("keyframes");
  if (velocity && keyframes) {
    fail(*keyframes, "give either velocity (a steady inflow) or keyframes (one that changes), "
                     "not both");
  }
  if (keyframes) {
    for (const Field& item : list_items(keyframes, "keyframes")) {
      const MapReader key(*this, item, false, {"time", "velocity"});
      FaceBoundary::Keyframe frame;
      const Field time = key.require("time");
      frame.time = read_number(time);
      if (!face.keyframes.empty() && !(frame.time > face.keyframes.back().time)) {
        fail(time, "must be later than the keyframe before it (t = " +
                       format_number(face.keyframes.back().time) + "), " + describe(time.node));
      }
      const Field value = key.require("velocity");
      frame.velocity = read_vector(value, dim);
      check_inward(value, frame.velocity);
      face.keyframes.push_back(frame);
    }
    if (face.keyframes.size() < 2)
      fail(*keyframes, "needs at least two keyframes (the inflow runs between them), " +
                           describe(keyframes->node));
    face.velocity = face.keyframes.front().velocity;
  } else {
    const Field steady = map.require("velocity");
    face.velocity = read_vector(steady, dim);
    check_inward(steady, face.velocity);
  }

  if (auto profile = map.find("profile")) {
    face.profile = read_choice<InflowProfile>(*profile, "profile",
                               {{"uniform", InflowProfile::Uniform},
                                {"parabolic", InflowProfile::Parabolic}});
  }
  read_scalar_values(map, scalars, face.scalar_values);
  if (const auto liquid = map.find("liquid")) {
    for (const Field& item : list_items(*liquid, "regions"))
      face.liquid.push_back(parse_region(region_reader(item, {}), dim, {}));
    if (face.liquid.empty()) {
      fail(*liquid, "needs at least one region (where the liquid crosses the face), " +
                        describe(liquid->node));
    }
  }
  return face;
}

}  // namespace sf::job_detail

namespace sf {

const char* to_string(BoundaryKind kind) {
  switch (kind) {
    case BoundaryKind::Periodic:
      return "periodic";
    case BoundaryKind::NoSlip:
      return "no-slip";
    case BoundaryKind::FreeSlip:
      return "free-slip";
    case BoundaryKind::Inflow:
      return "inflow";
    case BoundaryKind::Outflow:
      return "outflow";
  }
  // Only a value cast from an out-of-range integer gets here; it still gets a printable name.
  return "unknown";
}

}  // namespace sf
