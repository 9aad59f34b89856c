// The viscoelastic section: the material's elastic modulus, yield point and yield rate, where
// the material is, and the strain scalars the run carries for it (viscoelastic.hpp).
#include "parser.hpp"

namespace sf::job_detail {

ViscoelasticConfig JobParser::parse_viscoelastic(const std::optional<Field>& field, int dim,
                                                 std::vector<ScalarConfig>& scalars) const {
  ViscoelasticConfig config;
  if (!field) return config;
  const MapReader map(*this, *field, false,
                      {"elastic_modulus", "yield_point", "yield_rate", "material", "threshold"});
  config.enabled = true;
  config.elastic_modulus = read_positive(map.require("elastic_modulus"));
  if (const auto yield_point = map.find("yield_point"))
    config.yield_point = read_non_negative(*yield_point);
  if (const auto yield_rate = map.find("yield_rate"))
    config.yield_rate = read_non_negative(*yield_rate);
  if (const auto threshold = map.find("threshold")) config.threshold = read_number(*threshold);
  if (const auto material = map.find("material")) {
    config.material = read_string(*material);
    const bool known = std::any_of(scalars.begin(), scalars.end(), [&](const ScalarConfig& s) {
      return s.name == config.material && !s.generated;
    });
    if (!known)
      fail(*material, "\"" + config.material + "\" is not one of the job's scalars (the "
                      "material is where that scalar is >= threshold)");
  } else if (map.find("threshold")) {
    // Without a material the liquid is the material (a job with neither is refused in
    // compatibility.cpp), and a threshold would be silently ignored.
    fail(*map.find("threshold"), "is the threshold of a `material` scalar, and none is given "
                                 "(a liquid as the material is its cells with phi < 0)");
  }
  // The strain's components: the three of a symmetric 2x2 tensor in 2D, the six of a 3x3 one in
  // 3D. As scalars of the run they are advected, written to frames and checkpoints and read
  // back on a restart like any other.
  config.first_strain = static_cast<int>(scalars.size());
  for (const char* name : ViscoelasticConfig::kStrainNames) {
    const std::string component = name;
    if (dim == 2 && component.find('z') != std::string::npos) continue;
    ScalarConfig strain;
    strain.name = component;
    strain.generated = true;
    scalars.push_back(strain);
  }
  return config;
}

}  // namespace sf::job_detail
