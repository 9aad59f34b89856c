// The texture section: how often the texture coordinates are reset; the coordinates themselves
// become scalars of the job (a scalar of the job's own by one of their names is refused in
// compatibility.cpp).
#include "parser.hpp"

namespace sf::job_detail {

TextureConfig JobParser::parse_texture(const Field& field, JobConfig& job) const {
  TextureConfig texture;
  texture.enabled = true;
  const MapReader map(*this, field, false, {"period"});
  texture.period = read_positive(map.require("period"));
  for (int set = 0; set < 2; ++set)
    for (int axis = 0; axis < job.grid.dim; ++axis) {
      ScalarConfig coordinate;
      coordinate.name = texture_coordinate_name(set, axis);
      coordinate.generated = true;
      job.scalars.push_back(coordinate);
    }
  return texture;
}

}  // namespace sf::job_detail
