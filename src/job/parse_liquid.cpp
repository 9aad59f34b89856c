// The liquid section: the liquid's initial body and how its level set is kept.
#include "parser.hpp"

namespace sf::job_detail {

LiquidConfig JobParser::parse_liquid(const std::optional<Field>& field, int dim,
                                     const std::vector<ScalarConfig>& scalars) const {
  LiquidConfig liquid;
  if (!field) return liquid;
  const MapReader map(*this, *field, false, {"initial", "band", "reinitialise_every"});
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
  // The level set is a field of the run like the scalars, in the same files under its name.
  for (const ScalarConfig& scalar : scalars) {
    if (scalar.name == LiquidConfig::kLevelSetName) {
      fail(*field, std::string("a liquid's level set is the field '") +
                       LiquidConfig::kLevelSetName + "': rename the scalar of that name");
    }
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
  return liquid;
}

}  // namespace sf::job_detail
