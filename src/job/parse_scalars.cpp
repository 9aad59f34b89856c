// The scalars section: each scalar's initial blobs, sources, diffusion and dissipation.
#include "parser.hpp"

namespace sf::job_detail {

std::vector<ScalarConfig> JobParser::parse_scalars(const std::optional<Field>& field,
                                                   int dim) const {
  std::vector<ScalarConfig> scalars;
  if (!field) return scalars;
  const MapReader map(*this, *field, true);
  for (const MapReader::Entry& entry : map.named_entries()) {
    ScalarConfig scalar;
    scalar.name = entry.key;
    if (!is_identifier(scalar.name)) {
      fail(entry.value, "invalid scalar name '" + scalar.name +
                            "' (use letters, digits and '_', not starting with a digit)");
    }
    const MapReader settings(*this, entry.value, true,
                             {"background", "initial", "diffusion", "dissipation", "sources"});
    if (auto background = settings.find("background")) {
      scalar.background = read_number(*background);
    }
    for (const Field& blob : list_items(settings.find("initial"), "blobs")) {
      scalar.initial.push_back(parse_blob(blob, dim));
    }
    if (auto diffusion = settings.find("diffusion")) {
      scalar.diffusion = read_non_negative(*diffusion);
    }
    if (auto dissipation = settings.find("dissipation")) {
      scalar.dissipation = read_non_negative(*dissipation);
    }
    for (const Field& source : list_items(settings.find("sources"), "sources")) {
      scalar.sources.push_back(parse_source(source, dim));
    }
    scalars.push_back(std::move(scalar));
  }
  return scalars;
}

ScalarBlob JobParser::parse_blob(const Field& field, int dim) const {
  const std::vector<std::string> own = {"value"};
  const MapReader map = region_reader(field, own);
  ScalarBlob blob;
  blob.region = parse_region(map, dim, own);
  blob.value = read_number(map.require("value"));
  return blob;
}

ScalarSource JobParser::parse_source(const Field& field, int dim) const {
  std::vector<std::string> own = {"mode", "value", "velocity"};
  own.insert(own.end(), time_profile_keys().begin(), time_profile_keys().end());
  const MapReader map = region_reader(field, own);
  ScalarSource source;
  source.region = parse_region(map, dim, own);
  if (auto mode = map.find("mode")) {
    source.mode = read_choice<ScalarSource::Mode>(*mode, "mode",
                              {{"set", ScalarSource::Mode::Set}, {"add", ScalarSource::Mode::Add}});
  }
  source.value = read_number(map.require("value"));
  if (auto velocity = map.find("velocity")) {
    source.velocity = read_vector(*velocity, dim);
    source.has_velocity = true;
  }
  source.when = parse_time_profile(map, dim);
  return source;
}

}  // namespace sf::job_detail
