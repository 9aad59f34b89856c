// The job parser: the helpers of parser.hpp, the map reader, the top level of a job (its
// sections in order, the --set overrides). The combinations of features a job may not have are
// the table of compatibility.cpp, checked once at the end.
#include "parser.hpp"

namespace sf::job_detail {

int line_of(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? 0 : mark.line + 1;
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: {
      std::string text = node.Scalar();
      const std::size_t cut = std::min(text.find('\n'), std::size_t{40});
      if (cut < text.size()) text = text.substr(0, cut) + "...";
      return "got \"" + text + "\"";
    }
    case YAML::NodeType::Sequence: {
      const std::size_t n = node.size();
      return "got a list of " + std::to_string(n) + (n == 1 ? " entry" : " entries");
    }
    case YAML::NodeType::Map:
      return "got a map";
    default:
      return "got nothing";
  }
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  return out;
}

std::string format_number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

NumberStatus parse_double(const std::string& text, double& out) {
  if (text.empty()) return NumberStatus::NotANumber;
  std::string_view body = text;
  if (body.front() == '+' || body.front() == '-') body.remove_prefix(1);
  std::string lowered(body);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lowered == ".inf" || lowered == "inf" || lowered == "infinity" || lowered == ".nan" ||
      lowered == "nan") {
    return NumberStatus::NonFinite;
  }
  // from_chars rejects a leading '+', which YAML allows, so it is skipped here; a second sign
  // after it ("+-1") must still be rejected.
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') {
    ++first;
    if (first == last || *first == '+' || *first == '-') return NumberStatus::NotANumber;
  }
  const auto result = std::from_chars(first, last, out, std::chars_format::general);
  if (result.ec == std::errc::result_out_of_range) return NumberStatus::OutOfRange;
  if (result.ec != std::errc() || result.ptr != last) return NumberStatus::NotANumber;
  if (!std::isfinite(out)) return NumberStatus::NonFinite;
  return NumberStatus::Ok;
}

IntegerStatus parse_integer(const std::string& text, long long& out) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') {
    ++first;
    if (first != last && (*first == '+' || *first == '-')) return IntegerStatus::NotAnInteger;
  }
  if (first == last) return IntegerStatus::NotAnInteger;
  const auto result = std::from_chars(first, last, out, 10);
  if (result.ec == std::errc::result_out_of_range && result.ptr == last) {
    return IntegerStatus::OutOfRange;
  }
  if (result.ec != std::errc() || result.ptr != last) return IntegerStatus::NotAnInteger;
  return IntegerStatus::Ok;
}

bool is_identifier(const std::string& name) {
  if (name.empty()) return false;
  const auto first = static_cast<unsigned char>(name.front());
  if (!(std::isalpha(first) || first == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_';
  });
}

bool is_run_name(const std::string& name) {
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) { return is_name_char(c); });
}

bool ends_with_ignoring_case(const std::string& text, const std::string& suffix) {
  if (text.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), text.rbegin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
}

std::string default_name(const std::string& source) {
  std::string stem = source.substr(source.find_last_of('/') + 1);
  for (const char* extension : {".yaml", ".yml"}) {
    if (ends_with_ignoring_case(stem, extension)) {
      stem.resize(stem.size() - std::strlen(extension));
      break;
    }
  }
  for (char& c : stem) {
    if (!is_name_char(static_cast<unsigned char>(c))) c = '_';
  }
  return stem.empty() ? "job" : stem;
}

bool is_declared(const std::vector<ScalarConfig>& scalars, const std::string& name) {
  return std::any_of(scalars.begin(), scalars.end(),
                     [&](const ScalarConfig& s) { return s.name == name; });
}

std::string declared_scalars(const std::vector<ScalarConfig>& scalars) {
  if (scalars.empty()) return "no scalars are declared";
  constexpr std::size_t kShown = 10;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < scalars.size() && i < kShown; ++i) names.push_back(scalars[i].name);
  if (scalars.size() > kShown) {
    names.push_back("and " + std::to_string(scalars.size() - kShown) + " more");
  }
  return "declared scalars: " + join(names);
}

std::string cell_size_problem(const GridConfig& grid, int a) {
  const double h = grid.size[a] / static_cast<double>(grid.cells[a]);
  const double largest =
      std::max(std::abs(grid.origin[a]), std::abs(grid.origin[a] + grid.size[a]));
  if (h >= kMinCellFraction * largest) return "";
  return std::string("the cells along ") + kAxisNames[a] + " are " + format_number(h) +
         " wide (size / cells), less than " + format_number(kMinCellFraction) +
         " of the largest |coordinate| on that axis, " + format_number(largest) +
         ": a double could not tell positions within a cell apart";
}

MapReader::MapReader(const JobParser& parser, const Field& field, bool allow_null,
                     const std::vector<std::string>* allowed, CallSite site)
    : parser_(parser), field_(field) {
  if (allowed != nullptr && census_on()) {
    census_record({"", field.path, "", *allowed, false, site.file, site.line});
  }
  // An optional section left empty (often with its contents commented out) is a null node; it
  // is read as an empty map so that its defaults apply.
  if (allow_null && field.node.IsNull()) return;
  if (!field.node.IsMap()) parser.fail(field, "expected a map, " + describe(field.node));
  for (auto it = field.node.begin(); it != field.node.end(); ++it) {
    const YAML::Node key_node = it->first;
    const YAML::Node value = it->second;
    const int key_line = line_of(key_node) > 0 ? line_of(key_node) : field.line;
    if (!key_node.IsScalar()) {
      parser.fail(key_line, field.path, "keys must be plain names, " + describe(key_node));
    }
    const std::string key = key_node.Scalar();
    const std::string path = field.path.empty() ? key : field.path + "." + key;
    parser.count_entry(key_line, path);
    // A null value has no content of its own, and yaml-cpp marks it at the start of whatever
    // follows; the key's line is where the user has to look.
    const int value_line = value.IsNull() || line_of(value) == 0 ? key_line : line_of(value);
    Entry entry{key, Field{value, path, value_line}};
    if (allowed != nullptr &&
        std::find(allowed->begin(), allowed->end(), key) == allowed->end()) {
      fail_unknown(entry, *allowed, "");
    }
    const auto [seen, inserted] = index_.emplace(key, entries_.size());
    if (!inserted) {
      parser.fail(key_line, path,
                  "duplicate key (first given on line " +
                      std::to_string(entries_[seen->second].value.line) + ")");
    }
    entries_.push_back(std::move(entry));
  }
}

void MapReader::fail_unknown(const Entry& entry, const std::vector<std::string>& allowed,
                             const std::string& context) const {
  parser_.fail(entry.value.line, entry.value.path,
               "unknown key" + context + " (expected one of: " + join(allowed) + ")");
}

void MapReader::allow_only(const std::vector<std::string>& allowed, const std::string& context,
                           CallSite site) const {
  if (census_on()) census_record({"", field_.path, context, allowed, false, site.file, site.line});
  for (const Entry& entry : entries_) {
    if (std::find(allowed.begin(), allowed.end(), entry.key) == allowed.end()) {
      fail_unknown(entry, allowed, context);
    }
  }
}

const std::vector<MapReader::Entry>& MapReader::named_entries(CallSite site) const {
  if (census_on()) census_record({"", field_.path, "", {}, true, site.file, site.line});
  return entries_;
}

std::optional<Field> MapReader::find(const std::string& key) const {
  const auto found = index_.find(key);
  if (found == index_.end()) return std::nullopt;
  return entries_[found->second].value;
}

Field MapReader::require(const std::string& key) const {
  if (auto found = find(key)) return *found;
  parser_.fail(field_.line, field_.path.empty() ? key : field_.path + "." + key,
               "missing required key");
}

Steered JobParser::parse_steering(const std::string& text, const JobConfig& job) const {
  entries_read_ = 0;
  max_entries_ = std::max(text.size(), static_cast<std::size_t>(kMaxJobFileBytes));
  Steered steered;
  steered.sources.resize(job.scalars.size());
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    fail(e.mark.is_null() ? 0 : e.mark.line + 1, "", "YAML syntax error: " + e.msg);
  }
  if (documents.size() > 1)
    fail(line_of(documents[1]), "", "expected a single YAML document, found a second one here");
  if (documents.empty() || documents.front().IsNull()) return steered;  // empty: nothing
  const YAML::Node& document = documents.front();
  const Field root{document, "", line_of(document)};
  const MapReader top(*this, root, false, {"forces", "sources"});
  const int dim = job.grid.dim;
  for (const Field& item : list_items(top.find("forces"), "force regions"))
    steered.forces.push_back(parse_force_region(item, dim));
  if (auto sources = top.find("sources")) {
    const MapReader names(*this, *sources, false);
    for (const auto& entry : names.named_entries()) {
      const auto scalar = std::find_if(job.scalars.begin(), job.scalars.end(),
                                       [&](const ScalarConfig& s) { return s.name == entry.key; });
      if (scalar == job.scalars.end()) fail(entry.value, "the job has no scalar of this name");
      if (scalar->generated)
        fail(entry.value, "is kept by the solver (texture coordinates, a viscoelastic strain), "
                          "not a scalar sources may change");
      auto& list = steered.sources[static_cast<size_t>(scalar - job.scalars.begin())];
      for (const Field& item : list_items(entry.value, "sources"))
        list.push_back(parse_source(item, dim));
    }
  }
  return steered;
}

JobConfig JobParser::parse(const std::string& text) const {
  entries_read_ = 0;
  max_entries_ = std::max(text.size(), static_cast<std::size_t>(kMaxJobFileBytes));
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's parser recurses once per level of nesting; from 0.7 on it stops at a fixed
    // depth rather than overflow the stack (see the #error above), with the message "bad file".
    const int line = e.mark.is_null() ? 0 : e.mark.line + 1;
    fail(line, "", "YAML nesting too deep: yaml-cpp reads lists and maps nested at most " +
                       std::to_string(e.depth() - 1) + " levels deep (a job needs fewer than 10)");
  } catch (const YAML::Exception& e) {
    const int line = e.mark.is_null() ? 0 : e.mark.line + 1;
    fail(line, "", "YAML syntax error: " + e.msg);
  }
  // An empty file, or one of comments only, has no document (or a null one) and no line of its
  // own; line 1 is where to look.
  if (documents.empty()) {
    fail(1, "", "expected a map of job settings at the top level, got nothing");
  }
  if (!documents.front().IsMap()) {
    fail(std::max(line_of(documents.front()), 1), "",
         "expected a map of job settings at the top level, " + describe(documents.front()));
  }
  // yaml-cpp's Load() would silently ignore everything after a "---"; a second document is far
  // more likely a pasting accident than intent.
  if (documents.size() > 1) {
    fail(line_of(documents[1]), "", "expected a single YAML document, found a second one here");
  }

  apply_overrides(documents.front());
  const Field root{documents.front(), "", line_of(documents.front())};
  const MapReader top(*this, root, false, job_sections());

  JobConfig job;
  job.source = source_;
  job.text = text;
  job.overrides = overrides_;

  if (auto name = top.find("name")) {
    job.name = read_string(*name);
    if (!is_run_name(job.name)) {
      fail(*name, "must be a non-empty name of letters, digits, '_', '.' and '-', " +
                      describe(name->node));
    }
  } else {
    job.name = default_name(source_);
  }
  if (job.name.size() > kMaxNameBytes) {
    const auto name = top.find("name");
    const std::string which =
        name ? "is " : "the run name taken from the job file's name (no name is given) is ";
    fail(name ? name->line : root.line, "name",
         which + std::to_string(job.name.size()) + " characters long, more than " +
             std::to_string(kMaxNameBytes) + ": the longest file name a run derives from it, " +
             "<name>_failed_step<step>_000000.h5.tmp, must fit in " +
             std::to_string(kMaxFileNameBytes) + " bytes");
  }

  // The grid fixes the dimension that every vector below is checked against, and the scalars
  // must be known before inflow faces and buoyancy can name them, hence this order.
  job.grid = parse_grid(top);
  const int dim = job.grid.dim;
  job.scalars = parse_scalars(top.find("scalars"), dim);
  parse_boundary(top.find("boundary"), job.grid, job.scalars, job);
  job.velocity = parse_velocity(top.find("velocity"), dim);
  job.fluid = parse_fluid(top.find("fluid"), job.scalars);
  job.advection = parse_advection(top.find("advection"));
  job.forces = parse_forces(top.find("forces"), job.grid, job.scalars);
  job.obstacles = parse_obstacles(top.find("obstacles"), dim, job.scalars);
  job.liquid = parse_liquid(top.find("liquid"), dim);
  if (const auto fire = top.find("fire")) job.fire = parse_fire(*fire, job);
  if (const auto texture = top.find("texture")) job.texture = parse_texture(*texture, job);
  // Last of the scalars' sections: the strain components it adds come after every scalar the
  // job names, and the liquid's level set after them (Simulation::setup).
  job.viscoelastic = parse_viscoelastic(top.find("viscoelastic"), dim, job.scalars);
  job.time = parse_time(top);
  job.pressure = parse_solver(top.find("pressure"), job.pressure, true);
  job.diffusion = parse_solver(top.find("diffusion"), job.diffusion, false);
  job.output = parse_output(top.find("output"));
  job.checkpoint = parse_checkpoint(top.find("checkpoint"), job.output);
  job.debug = parse_debug(top.find("debug"));
  job.catalyst = parse_catalyst(top.find("catalyst"), job.output);
  job.diagnostics = parse_diagnostics(top.find("diagnostics"), job.grid);
  if (auto options = top.find("petsc_options")) job.petsc_options = read_string(*options);
  if (auto steering = top.find("steering")) {
    const MapReader keys(*this, *steering, false, {"file", "every_steps"});
    const Field file = keys.require("file");
    job.steering.file = read_string(file);
    if (job.steering.file.empty()) fail(file, "must not be empty");
    job.steering.file = beside_job(job.steering.file);
    if (auto every = keys.find("every_steps")) {
      const long long n = read_integer(*every, "expected an integer from 1 to 1000000");
      if (n < 1 || n > 1000000) fail(*every, "expected an integer from 1 to 1000000, " +
                                                 describe(every->node));
      job.steering.every_steps = static_cast<PetscInt>(n);
    }
  }
  // With every section read: the combinations of features the job may not have, then whether
  // its frames and steps fit their file names.
  check_compatibility(root, job);
  check_run_length(top, job);
  return job;
}

void JobParser::apply_overrides(YAML::Node& root) const {
  for (const JobOverride& set : overrides_) {
    // The key: map keys joined by '.', each followed by any number of [index] into a list.
    // "set" errors name only the --set; the path is not a path of the job yet.
    auto refuse = [&](const std::string& why) -> void { fail(0, set.key, why); };
    YAML::Node value;
    try {
      value = YAML::Load(set.value);
    } catch (const YAML::Exception& e) {
      refuse("YAML syntax error in the value: " + e.msg);
    }
    YAML::Node node;
    node.reset(root);
    std::string walked;
    std::size_t at = 0;
    while (at <= set.key.size()) {
      const std::size_t dot = std::min(set.key.find('.', at), set.key.size());
      const std::string segment = set.key.substr(at, dot - at);
      const std::size_t bracket = std::min(segment.find('['), segment.size());
      const std::string name = segment.substr(0, bracket);
      if (name.empty()) refuse("malformed key: expected names joined by '.', as in time.end");
      if (node.IsDefined() && !node.IsMap() && !node.IsNull()) {
        refuse("cannot set a key inside " + walked + ", which is not a map (" + describe(node) +
               ")");
      }
      walked += (walked.empty() ? "" : ".") + name;
      YAML::Node child = node[name];
      node.reset(child);
      // Indices into a list that must already have that entry.
      std::size_t pos = bracket;
      while (pos < segment.size()) {
        const std::size_t close = segment.find(']', pos);
        long long index = -1;
        if (segment[pos] != '[' || close == std::string::npos ||
            parse_integer(segment.substr(pos + 1, close - pos - 1), index) != IntegerStatus::Ok ||
            index < 0) {
          refuse("malformed index in '" + segment + "': expected [<entry number from 0>]");
        }
        if (!node.IsSequence() || static_cast<long long>(node.size()) <= index) {
          refuse(walked + " has no entry [" + std::to_string(index) + "] (" +
                 (node.IsDefined() ? describe(node) : "it is not in the job") + ")");
        }
        walked += "[" + std::to_string(index) + "]";
        YAML::Node item = node[static_cast<std::size_t>(index)];
        node.reset(item);
        pos = close + 1;
      }
      at = dot + 1;
    }
    node = value;  // assignment (not reset) replaces the value inside the document
  }
}

void JobParser::check_run_length(const MapReader& top, const JobConfig& job) const {
  const TimeConfig& time = job.time;
  // Output times k * interval count as reached within a billionth of the interval, as
  // Simulation::run counts them.
  const double interval = job.output.interval;
  const double output_times = interval > 0.0 ? std::floor(time.end / interval + 1e-9) : 0.0;
  const double frames = output_times + (job.output.initial_frame ? 1.0 : 0.0);
  if (frames > static_cast<double>(kMaxFrames)) {
    const Field field = *MapReader(*this, *top.find("output"), true).find("interval");
    fail(field, "time.end / output.interval gives " + format_number(frames) + " frames" +
                    (job.output.initial_frame ? " (with the initial one)" : "") +
                    ", more than the " + std::to_string(kMaxFrames) + " that 6-digit frame "
                    "numbers (<name>_NNNNNN.h5) allow, " + describe(field.node));
  }

  // A step is stretched onto an output time or the end when it falls short by less than a
  // millionth of itself (Simulation::run), hence the 1e-6. A fixed step takes exactly this many
  // steps, plus at most one per output time where a step is cut short to land on it; an adaptive
  // step takes at least end / dt_max steps.
  const MapReader map(*this, top.require("time"), false);
  const bool fixed = time.dt > 0.0;
  const double step = fixed ? time.dt : time.dt_max;
  const double steps = std::max(1.0, std::ceil(time.end / step - 1e-6));
  const double most = fixed ? steps + output_times : steps;
  if (most > static_cast<double>(kMaxSteps)) {
    const Field field = *map.find(fixed ? "dt" : "dt_max");
    std::string count = fixed ? "time.end / time.dt gives " + format_number(steps) + " steps"
                              : "time.end / time.dt_max gives at least " +
                                    format_number(steps) + " steps";
    if (fixed && output_times > 0.0 && steps <= static_cast<double>(kMaxSteps)) {
      count += " and up to " + format_number(output_times) + " more cut short at output times";
    }
    fail(field, count + ", more than the " + std::to_string(kMaxSteps) + " that 8-digit step "
                "numbers in checkpoint names (<name>_checkpoint_NNNNNNNN.h5) allow, " +
                describe(field.node));
  }
}

std::vector<Field> JobParser::list_items(const std::optional<Field>& field,
                                         const std::string& what) const {
  std::vector<Field> items;
  if (!field || field->node.IsNull()) return items;
  if (!field->node.IsSequence()) {
    fail(*field, "expected a list of " + what + ", " + describe(field->node));
  }
  for (std::size_t i = 0; i < field->node.size(); ++i) {
    items.push_back(element(*field, i));
    count_entry(items.back().line, items.back().path);
  }
  return items;
}

}  // namespace sf::job_detail
