// Reads back the XDMF index that render_xdmf (io/xdmf.cpp) writes. The reader scans elements
// and their attributes and does not need a general XML parser: the index is our own output, a
// temporal collection of uniform grids, each with a <Time>, a 3DCoRectMesh <Topology>, an
// ORIGIN_DXDYDZ <Geometry> (two inline DataItems, slowest axis first) and one <Attribute> per
// dataset whose DataItem text is "<frame file>:<dataset path>". Anything else is refused with a
// message that says what the file is not, rather than guessed at.
#include "frame_index.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

namespace sf::exporter {

namespace {

/// One element tag: <Name key="value" ...>, </Name> or <Name .../>, and the text after it up
/// to the next tag (a DataItem's contents).
struct Tag {
  std::string name;
  bool closing = false;
  std::map<std::string, std::string> attributes;
  std::string text;
  std::string get(const std::string& key) const {
    const auto found = attributes.find(key);
    return found == attributes.end() ? std::string() : found->second;
  }
};

/// The next element tag at or after *pos, skipping the prolog (<?xml ... ?>), the DOCTYPE and
/// comments. False at the end of the text or on a tag that does not close.
bool next_tag(const std::string& text, size_t* pos, Tag* tag) {
  for (;;) {
    const size_t open = text.find('<', *pos);
    if (open == std::string::npos) return false;
    if (text.compare(open, 4, "<!--") == 0) {
      const size_t end = text.find("-->", open);
      if (end == std::string::npos) return false;
      *pos = end + 3;
      continue;
    }
    const size_t close = text.find('>', open);
    if (close == std::string::npos) return false;
    *pos = close + 1;
    if (text[open + 1] == '?' || text[open + 1] == '!') continue;
    std::string body = text.substr(open + 1, close - open - 1);
    *tag = Tag{};
    if (!body.empty() && body[0] == '/') {
      tag->closing = true;
      body.erase(0, 1);
    }
    if (!body.empty() && body.back() == '/') body.pop_back();
    size_t at = body.find_first_of(" \t\r\n");
    tag->name = body.substr(0, at);
    // key="value" pairs
    while (at != std::string::npos) {
      const size_t key_start = body.find_first_not_of(" \t\r\n", at);
      if (key_start == std::string::npos) break;
      const size_t equals = body.find('=', key_start);
      const size_t quote = equals == std::string::npos ? equals : body.find('"', equals);
      const size_t end_quote = quote == std::string::npos ? quote : body.find('"', quote + 1);
      if (end_quote == std::string::npos) return false;
      std::string key = body.substr(key_start, equals - key_start);
      while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
      tag->attributes[key] = body.substr(quote + 1, end_quote - quote - 1);
      at = end_quote + 1;
    }
    const size_t next = text.find('<', *pos);
    tag->text = text.substr(*pos, (next == std::string::npos ? text.size() : next) - *pos);
    return true;
  }
}

/// The numbers of a space-separated list ("25 25 65"); false if any is not a number.
bool parse_numbers(const std::string& text, std::vector<double>* numbers) {
  numbers->clear();
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const double value = std::strtod(word.c_str(), &end);
    if (end == word.c_str() || *end != '\0') return false;
    numbers->push_back(value);
  }
  return true;
}

/// What one <Grid Name="frame"> holds.
struct ParsedFrame {
  double time = 0.0;
  std::vector<double> nodes, origin, spacing;  // slowest axis first, as XDMF lists them
  std::vector<IndexedDataset> datasets;
  std::vector<std::vector<double>> shapes;     // each dataset's Dimensions
  std::string file;
};

/// The grid a frame's topology, geometry and dataset shapes describe; false if they disagree
/// with each other.
bool frame_grid(const ParsedFrame& frame, FrameGrid* grid, std::string* error) {
  if (frame.nodes.size() != 3 || frame.origin.size() != 3 || frame.spacing.size() != 3) {
    *error = "a frame's grid is not a 3DCoRectMesh with ORIGIN_DXDYDZ geometry";
    return false;
  }
  if (frame.datasets.empty()) {
    *error = "a frame names no datasets";
    return false;
  }
  // Always three axes: a 2-D run's index shows its grid as a 3-D one a cell thick
  // (io/xdmf.cpp), so only its frames know it is 2-D (the root attribute `dimension`, which
  // main.cpp reads from the first frame).
  const IndexedDataset& first = frame.datasets.front();
  if (frame.shapes.front().size() != (first.components > 1 ? 4u : 3u)) {
    *error = "dataset " + first.path + " is not on a 3-D grid";
    return false;
  }
  grid->dim = 3;
  for (int a = 0; a < 3; ++a) {
    grid->cells[a] = static_cast<long long>(frame.nodes[2 - a]) - 1;
    grid->origin[a] = frame.origin[2 - a];
    grid->spacing[a] = frame.spacing[2 - a];
    if (grid->cells[a] < 1 || !(grid->spacing[a] > 0.0)) {
      *error = "a frame's grid has no cells or no spacing along an axis";
      return false;
    }
  }
  for (size_t d = 0; d < frame.datasets.size(); ++d) {
    std::vector<double> expected;
    for (int a = 2; a >= 0; --a) expected.push_back(static_cast<double>(grid->cells[a]));
    if (frame.datasets[d].components > 1) expected.push_back(frame.datasets[d].components);
    if (frame.shapes[d] != expected) {
      *error = "dataset " + frame.datasets[d].path + " does not have the grid's shape";
      return false;
    }
  }
  return true;
}

bool same_grid(const FrameGrid& a, const FrameGrid& b) {
  return a.dim == b.dim && a.cells == b.cells && a.origin == b.origin && a.spacing == b.spacing;
}

bool same_datasets(const std::vector<IndexedDataset>& a, const std::vector<IndexedDataset>& b) {
  if (a.size() != b.size()) return false;
  for (size_t n = 0; n < a.size(); ++n)
    if (a[n].name != b[n].name || a[n].path != b[n].path || a[n].components != b[n].components)
      return false;
  return true;
}

}  // namespace

const IndexedDataset* FrameIndex::find(const std::string& wanted) const {
  for (const IndexedDataset& dataset : datasets)
    if (dataset.name == wanted) return &dataset;
  return nullptr;
}

std::string FrameIndex::dataset_names() const {
  std::string names;
  for (const IndexedDataset& dataset : datasets)
    names += (names.empty() ? "" : ", ") + dataset.name;
  return names;
}

bool parse_frame_index(const std::string& path, const std::string& text, FrameIndex* index,
                       std::string* error) {
  const std::string not_index =
      path + " is not a stablefluids frame index (the <name>.xmf a run writes beside its "
             "<name>_NNNNNN.h5 frames)";
  *index = FrameIndex{};
  index->path = path;
  index->name = std::filesystem::path(path).stem().string();
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();

  std::vector<ParsedFrame> frames;
  bool xdmf = false, in_frame = false, in_geometry = false, in_attribute = false;
  ParsedFrame frame;
  IndexedDataset dataset;
  Tag tag;
  size_t pos = 0;
  while (next_tag(text, &pos, &tag)) {
    if (tag.name == "Xdmf" && !tag.closing) xdmf = true;
    if (!xdmf) continue;
    if (tag.name == "Grid" && !tag.closing && tag.get("Name") == "particles") {
      *error = path + " is the index of a run's marker particles; give the index of its frames, " +
               (directory / (index->name.substr(0, index->name.rfind("_particles")) + ".xmf"))
                   .string();
      return false;
    }
    if (tag.name == "Grid" && !tag.closing && tag.get("Name") == "frame") {
      in_frame = true;
      frame = ParsedFrame{};
    } else if (tag.name == "Grid" && tag.closing && in_frame) {
      in_frame = false;
      frames.push_back(frame);
    } else if (!in_frame) {
      continue;
    } else if (tag.name == "Time" && !tag.closing) {
      std::vector<double> value;
      if (!parse_numbers(tag.get("Value"), &value) || value.size() != 1) {
        *error = path + ": a frame's time is not a number";
        return false;
      }
      frame.time = value[0];
    } else if (tag.name == "Topology" && !tag.closing) {
      if (tag.get("TopologyType") != "3DCoRectMesh" ||
          !parse_numbers(tag.get("Dimensions"), &frame.nodes)) {
        *error = not_index + ": its grids are not 3DCoRectMesh";
        return false;
      }
    } else if (tag.name == "Geometry") {
      in_geometry = !tag.closing;
    } else if (tag.name == "Attribute") {
      in_attribute = !tag.closing;
      if (in_attribute) {
        dataset = IndexedDataset{};
        dataset.name = tag.get("Name");
        dataset.components = tag.get("AttributeType") == "Vector" ? 3 : 1;
      }
    } else if (tag.name == "DataItem" && !tag.closing && in_geometry) {
      std::vector<double>* into = frame.origin.empty() ? &frame.origin : &frame.spacing;
      if (!parse_numbers(tag.text, into)) {
        *error = path + ": a frame's origin or spacing is not numbers";
        return false;
      }
    } else if (tag.name == "DataItem" && !tag.closing && in_attribute) {
      // "<file>:<dataset>", the file relative to the index
      std::string item = tag.text;
      const size_t first = item.find_first_not_of(" \t\r\n");
      const size_t last = item.find_last_not_of(" \t\r\n");
      item = first == std::string::npos ? std::string() : item.substr(first, last - first + 1);
      const size_t colon = item.rfind(":/");
      std::vector<double> shape;
      if (tag.get("Format") != "HDF" || colon == std::string::npos ||
          !parse_numbers(tag.get("Dimensions"), &shape)) {
        *error = not_index + ": attribute " + dataset.name + " is not an HDF5 dataset";
        return false;
      }
      const std::string file = item.substr(0, colon);
      if (!frame.file.empty() && file != frame.file) {
        *error = path + ": a frame's datasets lie in two files, " + frame.file + " and " + file;
        return false;
      }
      frame.file = file;
      dataset.path = item.substr(colon + 1);
      frame.datasets.push_back(dataset);
      frame.shapes.push_back(shape);
    }
  }
  if (!xdmf || frames.empty()) {
    *error = not_index + (xdmf ? ": it lists no frames" : ": it is not XDMF");
    return false;
  }
  for (size_t n = 0; n < frames.size(); ++n) {
    FrameGrid grid;
    std::string why;
    if (!frame_grid(frames[n], &grid, &why)) {
      *error = path + ": frame " + std::to_string(n) + ": " + why;
      return false;
    }
    if (n == 0) {
      index->grid = grid;
      index->datasets = frames[0].datasets;
    } else if (!same_grid(grid, index->grid) || !same_datasets(frames[n].datasets,
                                                               index->datasets)) {
      // Every frame of a run has the same grid and datasets; an index that says otherwise was
      // not written by one run.
      *error = path + ": frame " + std::to_string(n) + " (" + frames[n].file +
               ") has another grid or other datasets than frame 0";
      return false;
    }
    IndexedFrame indexed;
    indexed.file = (directory / frames[n].file).string();
    indexed.stem = std::filesystem::path(frames[n].file).stem().string();
    indexed.time = frames[n].time;
    index->frames.push_back(indexed);
  }
  return true;
}

}  // namespace sf::exporter
