// Job file parsing and validation. The job is read once, checked completely here, and only then
// handed to the solver, so that a typo never surfaces as a crash or a hang deep inside a
// collective. Every message starts with "<file>:<line>: <dotted.key>: ", the form compilers use,
// so that editors and terminals can jump straight to the offending line.
#include "config.hpp"

#include <yaml-cpp/yaml.h>

// yaml-cpp recurses once per level of YAML nesting. Before 0.7 nothing bounds that recursion, so
// a job of a few hundred kilobytes of "[[[[..." overflows the stack; 0.7 added a depth guard,
// which this header declares.
#if !__has_include(<yaml-cpp/depthguard.h>)
#error "yaml-cpp 0.7 or newer is needed: older versions crash on deeply nested YAML"
#endif
#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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

namespace {

// PETSc in this project is built with 32-bit indices, so every count that ends up as a global
// index has to stay at or below this value.
constexpr long long kMaxIndex = 2147483647LL;

constexpr int kMinHalo = 1;
constexpr int kMaxHalo = 16;

// ---------------------------------------------------------------------------------------------
// Limits on what a job may ask for (jobs/README.md "Limits"). Each keeps a job that passes
// validation from failing at its first step or never ending; the reasoning is given with each.

/// Largest magnitude of a physical value (lengths, positions, times, velocities, coefficients,
/// scalar values), and kMinPositive, its reciprocal, the smallest value of one that must be > 0
/// (lengths, steps, times, rates). A step multiplies up to two such values by reciprocals of the
/// cell size h, the largest product being the implicit diffusion number nu dt / h^2 of
/// (I - nu dt lap). With every value in [1e-30, 1e30] and h >= 1e-30 / 2^31 (the smallest size
/// cut into the most cells), nu dt / h^2 <= 1e30 * 1e30 / (4.7e-40)^2 = 4.6e138, and even its
/// square summed over the 2^31 unknowns of the largest grid, as a 2-norm does, is 4.5e286 <
/// DBL_MAX = 1.8e308. With 1e100 instead, that product alone would overflow. The lower bound also
/// keeps out subnormal numbers (below 2.2e-308), which carry fewer digits. The SI values of any
/// continuum flow, from nanofluidics to galaxies, lie well inside [1e-30, 1e30].
constexpr double kMaxMagnitude = 1e30;
constexpr double kMinPositive = 1e-30;

/// A cell must be at least this fraction of the largest |coordinate| on its axis. Departure
/// points and interpolation weights are computed from coordinates, which a double resolves to
/// 2.2e-16 of their magnitude, so this keeps about 4500 distinct positions in every cell. As
/// h / size >= 1 / 2^31 anyway, only an origin far from 0 compared with the size can break it.
constexpr double kMinCellFraction = 1e-12;

/// Frames are numbered with 6 digits, <name>_NNNNNN.h5 (io/hdf5_writer.cpp): 000000 to 999999.
/// A 7-digit frame would still be written, but out of order for every tool that sorts names.
constexpr long long kMaxFrames = 1000000;

/// NAME_MAX of Linux file systems (ext4, XFS, Lustre, GPFS): the bytes of one path component.
constexpr std::size_t kMaxFileNameBytes = 255;
/// What the longest file name a run derives from its name adds to it: a failure dump's frame
/// while it is being written, <name>_failed_step<step>_000000.h5.tmp (src/simulation.cpp,
/// io/hdf5_writer.cpp), with a step of up to 10 digits (under an adaptive step the step count is
/// not bounded in advance, so the 32-bit counter's 2147483647 is assumed). The others are
/// shorter: _checkpoint_NNNNNNNN.h5.tmp (27), _timings.json.tmp (18), _NNNNNN.h5.tmp (14),
/// _steps.csv (10), .xmf.tmp (8).
constexpr std::size_t kLongestNameSuffix =
    sizeof("_failed_step") - 1 + 10 + sizeof("_000000.h5.tmp") - 1;
constexpr std::size_t kMaxNameBytes = kMaxFileNameBytes - kLongestNameSuffix;

/// Largest job file read, in bytes (1 MiB); the jobs shipped are under 5 KB. It bounds yaml-cpp's
/// load, which builds the whole document before a key is checked. With yaml-cpp 0.7.0, in a fresh
/// process (best of 5, this project's 2-core machine), 1 MiB took 0.45 s as 87381 unknown keys,
/// 0.70 s as a block list of 262143 entries, 1.2 s as a flow list of 524286 numbers (the slowest
/// form found), and 0.44 to 0.53 s as `{a: {a: ...` or `[[[...` until yaml-cpp's depth guard
/// stopped it at 500 levels (indented nesting: 0.01 s). The parser adds under 0.02 s to that.
constexpr long long kMaxJobFileBytes = 1 << 20;

constexpr const char* kAxisNames[3] = {"x", "y", "z"};
constexpr const char* kSideNames[2] = {"lower", "upper"};

/// A node together with everything needed to report an error about it.
struct Field {
  YAML::Node node;
  std::string path;  // dotted key, e.g. "scalars.density.initial[1].radius"
  int line = 0;      // 1-based; 0 when unknown
};

int line_of(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? 0 : mark.line + 1;
}

/// A short, single-line rendering of a node for "got ..." clauses. Long or multi-line scalars are
/// cut so that a stray block literal cannot flood the message.
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

/// The shortest text that reads back as exactly `value`, so that messages quote 0.3 as "0.3"
/// rather than as its 17-digit binary approximation.
std::string format_number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

enum class NumberStatus { Ok, NotANumber, NonFinite, OutOfRange };

/// Strict, locale-independent parse of a YAML number. std::from_chars is used instead of
/// yaml-cpp's as<double>() because the latter accepts trailing garbage in some versions and
/// depends on the stream locale. YAML's spellings of infinity and NaN (".inf", ".nan", and the
/// bare forms from_chars itself accepts) are recognised so that they can be reported as
/// non-finite rather than as "not a number", which would confuse a user who wrote one on purpose.
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

enum class IntegerStatus { Ok, NotAnInteger, OutOfRange };

/// Strict decimal integer parse: "2.5", "1e3" and "0x10" are all rejected rather than silently
/// truncated or reinterpreted, because a cell count that is not what the user wrote is worse than
/// an error.
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

bool is_name_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == '-'; }

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

/// The default run name: the job file's name without directory and extension. Characters that
/// are not allowed in a run name are replaced, so that an odd file name still yields usable
/// output file names instead of an error about a key the user never wrote.
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

/// "declared scalars: a, b" or "no scalars are declared", for unknown-scalar messages. A long
/// list is cut after a few names, so that the message stays one readable line.
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

/// What is wrong with the cells along axis `a` if they are too small for a double to tell
/// positions within them apart at their distance from 0 (kMinCellFraction); empty if nothing.
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

class JobParser;

/// A YAML map whose keys have been checked to be plain, unique scalars. Lookups go through this
/// class rather than YAML::Node::operator[] because yaml-cpp silently keeps duplicate keys and
/// its lookup would then quietly pick one of them. Reading a map takes time linear in its size.
class MapReader {
public:
  struct Entry {
    std::string key;
    Field value;
  };

  /// A map that may hold any keys (scalar names, for example).
  MapReader(const JobParser& parser, const Field& field, bool allow_null)
      : MapReader(parser, field, allow_null, nullptr) {}
  /// A map whose keys must all be in `allowed`: the first that is not is reported as it is met,
  /// so parsing stops at the first error, however many entries follow it.
  MapReader(const JobParser& parser, const Field& field, bool allow_null,
            const std::vector<std::string>& allowed)
      : MapReader(parser, field, allow_null, &allowed) {}

  /// Rejects every key not in `allowed`; `context` refines the message for maps whose valid keys
  /// depend on their `type`.
  void allow_only(const std::vector<std::string>& allowed, const std::string& context = "") const;

  std::optional<Field> find(const std::string& key) const;
  Field require(const std::string& key) const;
  const std::vector<Entry>& entries() const { return entries_; }
  const Field& field() const { return field_; }

private:
  MapReader(const JobParser& parser, const Field& field, bool allow_null,
            const std::vector<std::string>* allowed);
  void fail_unknown(const Entry& entry, const std::vector<std::string>& allowed,
                    const std::string& context) const;

  const JobParser& parser_;
  Field field_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::size_t> index_;  // key -> position in entries_
};

class JobParser {
public:
  explicit JobParser(std::string source, std::vector<JobOverride> overrides = {})
      : source_(std::move(source)), overrides_(std::move(overrides)) {}

  /// A problem at `path`: "<file>:<line>: <path>: <message>", or, when the value there came
  /// from the command line, "<file>: --set <key>=<value>: <path>: <message>" (its line would
  /// be that of the --set text, not of the file).
  [[noreturn]] void fail(int line, const std::string& path, const std::string& message) const {
    std::string text = source_;
    if (const JobOverride* set = override_at(path)) {
      text += ": --set " + set->text();
    } else if (line > 0) {
      text += ":" + std::to_string(line);
    }
    text += ": ";
    if (!path.empty()) text += path + ": ";
    throw JobError(text + message);
  }

  [[noreturn]] void fail(const Field& field, const std::string& message) const {
    fail(field.line, field.path, message);
  }

  JobConfig parse(const std::string& text) const;

  // Value readers. Each checks the node's type and range and reports the field on failure.

  std::string read_string(const Field& field) const {
    if (!field.node.IsScalar()) fail(field, "expected a string, " + describe(field.node));
    return field.node.Scalar();
  }

  /// A finite number in no particular range. Only forces.buoyancy.up is read this way, because
  /// only its direction is used; every other number goes through read_number.
  double read_finite(const Field& field) const {
    if (!field.node.IsScalar()) fail(field, "expected a number, " + describe(field.node));
    double value = 0.0;
    switch (parse_double(field.node.Scalar(), value)) {
      case NumberStatus::Ok:
        return value;
      case NumberStatus::NonFinite:
        fail(field, "must be finite, " + describe(field.node));
      case NumberStatus::OutOfRange:
        fail(field, "is out of the range of a double, " + describe(field.node));
      case NumberStatus::NotANumber:
        break;
    }
    fail(field, "expected a number, " + describe(field.node));
  }

  /// The values a numeric key takes. All are bounded by kMaxMagnitude, for the reason given there.
  enum class Range {
    Any,             // a physical value of either sign
    NonNegative,     // a coefficient, where 0 switches its term off
    Positive,        // a length, step, time or rate: at least kMinPositive
    ZeroOrPositive,  // 0, which switches something off, or as Positive
  };

  /// The one reader of numbers: finite, of the right sign, and within the limits of `range`.
  double read_number(const Field& field, Range range = Range::Any) const {
    const double value = read_finite(field);
    const std::string got = ", " + describe(field.node);
    const bool positive = range == Range::Positive;
    const bool zero_or_positive = range == Range::ZeroOrPositive;
    if (positive && !(value > 0.0)) fail(field, "must be > 0" + got);
    if ((range == Range::NonNegative || zero_or_positive) && !(value >= 0.0)) {
      fail(field, "must be >= 0" + got);
    }
    if (std::abs(value) > kMaxMagnitude) {
      fail(field, "must be at most " + format_number(kMaxMagnitude) +
                      " in magnitude (larger values overflow in the products a step forms, such "
                      "as viscosity * dt / h^2)" + got);
    }
    if ((positive || zero_or_positive) && value != 0.0 && value < kMinPositive) {
      fail(field, std::string(positive ? "must be" : "must be 0 or") + " at least " +
                      format_number(kMinPositive) +
                      " (smaller values underflow, or overflow as reciprocals, in the products "
                      "a step forms, such as viscosity * dt / h^2)" + got);
    }
    return value;
  }

  double read_positive(const Field& field) const { return read_number(field, Range::Positive); }

  double read_non_negative(const Field& field) const {
    return read_number(field, Range::NonNegative);
  }

  double read_zero_or_positive(const Field& field) const {
    return read_number(field, Range::ZeroOrPositive);
  }

  long long read_integer(const Field& field, const char* expectation) const {
    if (!field.node.IsScalar()) fail(field, std::string(expectation) + ", " + describe(field.node));
    long long value = 0;
    switch (parse_integer(field.node.Scalar(), value)) {
      case IntegerStatus::Ok:
        return value;
      case IntegerStatus::OutOfRange:
        fail(field, "is out of range, " + describe(field.node));
      case IntegerStatus::NotAnInteger:
        break;
    }
    fail(field, std::string(expectation) + ", " + describe(field.node));
  }

  bool read_bool(const Field& field) const {
    bool value = false;
    if (!field.node.IsScalar() || !YAML::convert<bool>::decode(field.node, value)) {
      fail(field, "expected true or false, " + describe(field.node));
    }
    return value;
  }

  /// Reads a list of exactly `dim` numbers; `check` reads each entry (read_number by default).
  template <typename Check>
  std::array<double, 3> read_vector(const Field& field, int dim, Check check) const {
    const std::string expectation = "expected a list of " + std::to_string(dim) + " numbers";
    if (!field.node.IsSequence() || static_cast<int>(field.node.size()) != dim) {
      fail(field, expectation + ", " + describe(field.node));
    }
    std::array<double, 3> out{0.0, 0.0, 0.0};
    for (int i = 0; i < dim; ++i) out[i] = check(element(field, i));
    return out;
  }

  std::array<double, 3> read_vector(const Field& field, int dim) const {
    return read_vector(field, dim, [this](const Field& f) { return read_number(f); });
  }

  static Field element(const Field& sequence, std::size_t index) {
    const YAML::Node node = sequence.node[index];
    const int line = line_of(node);
    return Field{node, sequence.path + "[" + std::to_string(index) + "]",
                 line > 0 ? line : sequence.line};
  }

private:
  /// The entries of an optional list; a list that is left out or left empty has none.
  std::vector<Field> list_items(const std::optional<Field>& field, const std::string& what) const;
  /// Reads the map of an item that describes a region (a blob, a source, an obstacle, ...): its
  /// keys must be region keys (shape and the keys of any shape) or the item's own `extra` keys.
  MapReader region_reader(const Field& field, const std::vector<std::string>& extra) const;
  /// The region described by `map`, read by region_reader with the same `extra` keys.
  Region parse_region(const MapReader& map, int dim, const std::vector<std::string>& extra) const;

  GridSection parse_grid(const MapReader& top) const;
  std::vector<ScalarConfig> parse_scalars(const std::optional<Field>& field, int dim) const;
  ScalarBlob parse_blob(const Field& field, int dim) const;
  ScalarSource parse_source(const Field& field, int dim) const;
  void parse_boundary(const std::optional<Field>& field, const GridConfig& grid,
                      const std::vector<ScalarConfig>& scalars, JobConfig& job) const;
  FaceBoundary parse_side(const Field& field, int axis, int side, int dim,
                          const std::vector<ScalarConfig>& scalars) const;
  BoundaryKind parse_kind(const Field& field) const;
  VelocityInit parse_velocity(const std::optional<Field>& field, int dim) const;
  FluidConfig parse_fluid(const std::optional<Field>& field) const;
  AdvectionConfig parse_advection(const std::optional<Field>& field, const GridConfig& grid) const;
  ForcesConfig parse_forces(const std::optional<Field>& field, const GridConfig& grid,
                            const std::vector<ScalarConfig>& scalars) const;
  BuoyancyConfig parse_buoyancy(const Field& field, int dim,
                                const std::vector<ScalarConfig>& scalars) const;
  void check_buoyancy_scalar(const MapReader& map, const char* name_key,
                             const char* coefficient_key, const std::string& name,
                             double coefficient, const std::vector<ScalarConfig>& scalars) const;
  WindConfig parse_wind(const Field& field, int dim) const;
  std::vector<ObstacleConfig> parse_obstacles(const std::optional<Field>& field, int dim) const;
  SolverConfig parse_solver(const std::optional<Field>& field, SolverConfig solver) const;
  TimeConfig parse_time(const MapReader& top) const;
  OutputConfig parse_output(const std::optional<Field>& field) const;
  CheckpointConfig parse_checkpoint(const std::optional<Field>& field,
                                    const OutputConfig& output) const;
  DebugConfig parse_debug(const std::optional<Field>& field) const;
  CatalystConfig parse_catalyst(const std::optional<Field>& field, const OutputConfig& output,
                                const GridConfig& grid) const;

  /// Checks that the frames and steps the job implies fit the numbers in their file names
  /// (kMaxFrames, kMaxSteps).
  void check_run_length(const MapReader& top, const JobConfig& job) const;

  /// The --set that gave the value at `path` (the last one whose key is `path` or contains it),
  /// or nullptr.
  const JobOverride* override_at(const std::string& path) const {
    for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
      const std::string& key = it->key;
      if (path.compare(0, key.size(), key) == 0 &&
          (path.size() == key.size() || path[key.size()] == '.' || path[key.size()] == '[')) {
        return &*it;
      }
    }
    return nullptr;
  }

  /// Puts each --set value into the document, creating the maps on its way.
  void apply_overrides(YAML::Node& root) const;

  std::string source_;
  std::vector<JobOverride> overrides_;
  mutable std::size_t entries_read_ = 0;
  mutable std::size_t max_entries_ = 0;

public:
  /// Counts one map entry or list item read, at `line` and `path`. Each takes at least one byte
  /// of text, so a job without YAML aliases holds fewer of them than it has bytes. An alias
  /// (*name) repeats a whole anchored list or map, though, and nested ones could make a file
  /// well under the size limit expand into billions of blobs or obstacles; the parser stops
  /// once it has read more entries than the text (at least kMaxJobFileBytes) has bytes.
  void count_entry(int line, const std::string& path) const {
    if (++entries_read_ > max_entries_) {
      fail(line, path, "YAML aliases (*name) expand the job beyond " +
                           std::to_string(max_entries_) + " map entries and list items, more "
                           "than a job file of at most " + std::to_string(max_entries_) +
                           " bytes holds without them");
    }
  }
};

MapReader::MapReader(const JobParser& parser, const Field& field, bool allow_null,
                     const std::vector<std::string>* allowed)
    : parser_(parser), field_(field) {
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

void MapReader::allow_only(const std::vector<std::string>& allowed,
                           const std::string& context) const {
  for (const Entry& entry : entries_) {
    if (std::find(allowed.begin(), allowed.end(), entry.key) == allowed.end()) {
      fail_unknown(entry, allowed, context);
    }
  }
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
  const MapReader top(*this, root, false,
                      {"name", "grid", "boundary", "velocity", "scalars", "fluid", "advection",
                       "forces", "obstacles", "time", "pressure", "diffusion", "output",
                       "checkpoint", "debug", "catalyst", "petsc_options"});

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

  // The grid fixes the dimension that every vector below is checked against and the halo that
  // some schemes need, and the scalars must be known before inflow faces and buoyancy can name
  // them, hence this order.
  job.grid = parse_grid(top);
  const int dim = job.grid.dim;
  job.scalars = parse_scalars(top.find("scalars"), dim);
  parse_boundary(top.find("boundary"), job.grid, job.scalars, job);
  job.velocity = parse_velocity(top.find("velocity"), dim);
  job.fluid = parse_fluid(top.find("fluid"));
  job.advection = parse_advection(top.find("advection"), job.grid);
  job.forces = parse_forces(top.find("forces"), job.grid, job.scalars);
  job.obstacles = parse_obstacles(top.find("obstacles"), dim);
  job.time = parse_time(top);
  job.pressure = parse_solver(top.find("pressure"), job.pressure);
  job.diffusion = parse_solver(top.find("diffusion"), job.diffusion);
  job.output = parse_output(top.find("output"));
  job.checkpoint = parse_checkpoint(top.find("checkpoint"), job.output);
  job.debug = parse_debug(top.find("debug"));
  job.catalyst = parse_catalyst(top.find("catalyst"), job.output, job.grid);
  if (auto options = top.find("petsc_options")) job.petsc_options = read_string(*options);
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

GridSection JobParser::parse_grid(const MapReader& top) const {
  const MapReader map(*this, top.require("grid"), false,
                      {"cells", "cells_per_rank", "size", "origin", "halo"});

  GridSection grid;
  // Exactly one of `cells` (the whole grid) and `cells_per_rank` (weak scaling).
  const auto whole = map.find("cells");
  const auto per_rank = map.find("cells_per_rank");
  if (whole && per_rank) fail(*per_rank, "give either cells or cells_per_rank, not both");
  const Field cells = per_rank ? *per_rank : map.require("cells");
  grid.cells_per_rank = per_rank.has_value();
  grid.cells_line = cells.line;
  if (!cells.node.IsSequence() || (cells.node.size() != 2 && cells.node.size() != 3)) {
    fail(cells, "expected a list of 2 or 3 integers, " + describe(cells.node));
  }
  grid.dim = static_cast<int>(cells.node.size());
  for (int a = 0; a < grid.dim; ++a) {
    const Field entry = element(cells, a);
    const long long n = read_integer(entry, "expected a positive integer");
    if (n < 1) fail(entry, "expected a positive integer, " + describe(entry.node));
    if (n > kMaxIndex) {
      fail(entry, "is out of range (at most " + std::to_string(kMaxIndex) + "), " +
                      describe(entry.node));
    }
    grid.cells[a] = static_cast<long>(n);
  }

  // Each velocity component is one unknown per cell, so cells x dim is the largest global index
  // the solver creates. Every factor is below 2^31, and the running product is checked before
  // each multiplication, so the 64-bit arithmetic below cannot overflow.
  long long unknowns = grid.dim;
  bool too_many = false;
  for (int a = 0; a < grid.dim && !too_many; ++a) {
    unknowns *= grid.cells[a];
    too_many = unknowns > kMaxIndex;
  }
  if (too_many) {
    std::string product;
    for (int a = 0; a < grid.dim; ++a) {
      product += (a > 0 ? " x " : "") + std::to_string(grid.cells[a]);
    }
    // The full count can exceed 64 bits (three factors near 2^31), so it is printed exactly
    // only when it fits and approximately otherwise.
    long long exact = grid.dim;
    bool fits = true;
    for (int a = 0; a < grid.dim && fits; ++a) {
      fits = exact <= LLONG_MAX / grid.cells[a];
      if (fits) exact *= grid.cells[a];
    }
    std::ostringstream count;
    if (fits) {
      count << exact;
    } else {
      count.precision(4);
      count << static_cast<double>(grid.cells[0]) * static_cast<double>(grid.cells[1]) *
                   static_cast<double>(grid.cells[2]) * grid.dim;
    }
    fail(cells, product + " cells times " + std::to_string(grid.dim) + " velocity components is " +
                    count.str() + " unknowns, but PETSc here uses 32-bit indices and allows at "
                    "most " + std::to_string(kMaxIndex));
  }

  if (auto size = map.find("size")) {
    grid.size = read_vector(*size, grid.dim, [this](const Field& f) { return read_positive(f); });
    for (int a = grid.dim; a < 3; ++a) grid.size[a] = 1.0;
  }
  if (auto origin = map.find("origin")) {
    grid.origin = read_vector(*origin, grid.dim);
    grid.origin_line = origin->line;
  }
  for (int a = 0; a < grid.dim; ++a) {
    // Only an origin far from 0 can make cells too small for their coordinates (see
    // kMinCellFraction), and then origin is given.
    const std::string problem = cell_size_problem(grid, a);
    if (!problem.empty()) fail(element(*map.find("origin"), a), problem);
  }

  if (auto halo = map.find("halo")) {
    const long long h = read_integer(*halo, "expected an integer");
    if (h < kMinHalo || h > kMaxHalo) {
      fail(*halo, "must be between " + std::to_string(kMinHalo) + " and " +
                      std::to_string(kMaxHalo) + ", " + describe(halo->node));
    }
    grid.halo = static_cast<int>(h);
  }
  // A halo wider than the grid would need ghost cells from beyond a periodic neighbour's
  // neighbour, which the field exchange does not provide.
  const long smallest = *std::min_element(grid.cells.begin(), grid.cells.begin() + grid.dim);
  if (grid.halo > smallest) {
    const auto halo = map.find("halo");
    fail(halo ? halo->line : map.field().line, map.field().path + ".halo",
         "halo " + std::to_string(grid.halo) + (halo ? "" : " (the default)") +
             " exceeds the smallest cell count " + std::to_string(smallest) + " in grid.cells");
  }
  return grid;
}

std::vector<ScalarConfig> JobParser::parse_scalars(const std::optional<Field>& field,
                                                   int dim) const {
  std::vector<ScalarConfig> scalars;
  if (!field) return scalars;
  const MapReader map(*this, *field, true);
  for (const MapReader::Entry& entry : map.entries()) {
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

/// The keys of a region's `shape_keys` plus the item's own `extra` keys.
std::vector<std::string> with_extra(std::vector<std::string> shape_keys,
                                    const std::vector<std::string>& extra) {
  shape_keys.insert(shape_keys.end(), extra.begin(), extra.end());
  return shape_keys;
}

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
  const std::string name = read_string(shape);

  Region region;
  if (name == "sphere") {
    map.allow_only(keys({"shape", "center", "radius"}), " for shape 'sphere'");
    region.shape = Region::Shape::Sphere;
    region.center = read_vector(map.require("center"), dim);
    region.radius = read_positive(map.require("radius"));
  } else if (name == "cylinder") {
    map.allow_only(keys({"shape", "center", "radius", "axis"}), " for shape 'cylinder'");
    region.shape = Region::Shape::Cylinder;
    region.center = read_vector(map.require("center"), dim);
    region.radius = read_positive(map.require("radius"));
    if (auto axis = map.find("axis")) {
      const std::string axis_name = read_string(*axis);
      const auto* found = std::find_if(std::begin(kAxisNames), std::end(kAxisNames),
                                       [&](const char* n) { return axis_name == n; });
      if (found == std::end(kAxisNames)) {
        fail(*axis, "unknown axis (expected one of: x, y, z), " + describe(axis->node));
      }
      region.axis = static_cast<int>(found - std::begin(kAxisNames));
      // A 2-D job is a slice normal to z, so only a cylinder along z cuts it in a disc.
      if (dim == 2 && region.axis != 2) {
        fail(*axis, "a cylinder in a 2-D job must run along z (it is then a disc), " +
                        describe(axis->node));
      }
    }
  } else if (name == "box") {
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
  } else {
    fail(shape, "unknown shape (expected one of: sphere, box, cylinder), " + describe(shape.node));
  }
  return region;
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
  const std::vector<std::string> own = {"mode", "value", "velocity"};
  const MapReader map = region_reader(field, own);
  ScalarSource source;
  source.region = parse_region(map, dim, own);
  if (auto mode = map.find("mode")) {
    const std::string name = read_string(*mode);
    if (name == "set") {
      source.mode = ScalarSource::Mode::Set;
    } else if (name == "add") {
      source.mode = ScalarSource::Mode::Add;
    } else {
      fail(*mode, "unknown mode (expected one of: set, add), " + describe(mode->node));
    }
  }
  source.value = read_number(map.require("value"));
  if (auto velocity = map.find("velocity")) {
    source.velocity = read_vector(*velocity, dim);
    source.has_velocity = true;
  }
  return source;
}

BoundaryKind JobParser::parse_kind(const Field& field) const {
  const std::string name = read_string(field);
  if (name == "periodic") return BoundaryKind::Periodic;
  if (name == "no-slip") return BoundaryKind::NoSlip;
  if (name == "free-slip") return BoundaryKind::FreeSlip;
  if (name == "inflow") return BoundaryKind::Inflow;
  if (name == "outflow") return BoundaryKind::Outflow;
  fail(field, "unknown boundary type (expected one of: periodic, no-slip, free-slip, inflow, "
              "outflow), " + describe(field.node));
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
  const MapReader map(*this, field, false, {"type", "velocity", "profile", "scalars"});
  face.kind = parse_kind(map.require("type"));
  const std::string for_type = std::string(" for type '") + to_string(face.kind) + "'";
  if (face.kind == BoundaryKind::NoSlip) {
    // A moving wall, such as the lid of a lid-driven cavity. It slides along itself: a normal
    // component would make it a source or sink of fluid, which is what inflow and outflow are for.
    map.allow_only({"type", "velocity"}, for_type);
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

  const Field velocity = map.require("velocity");
  face.velocity = read_vector(velocity, dim);
  const double normal = face.velocity[axis];
  const bool inward = side == 0 ? normal > 0.0 : normal < 0.0;
  if (!inward) {
    fail(velocity, std::string("inflow velocity must point into the domain (the ") +
                       kAxisNames[axis] + " component on the " + kSideNames[side] +
                       " side must be " + (side == 0 ? "> 0" : "< 0") + ", got " +
                       format_number(normal) + ")");
  }

  if (auto profile = map.find("profile")) {
    const std::string name = read_string(*profile);
    if (name == "uniform") {
      face.profile = InflowProfile::Uniform;
    } else if (name == "parabolic") {
      face.profile = InflowProfile::Parabolic;
    } else {
      fail(*profile, "unknown profile (expected one of: uniform, parabolic), " +
                         describe(profile->node));
    }
  }

  if (auto carried = map.find("scalars")) {
    const MapReader values(*this, *carried, true);
    // A set, so that many scalars named here against many declared cost linear time.
    std::unordered_set<std::string> declared;
    for (const ScalarConfig& scalar : scalars) declared.insert(scalar.name);
    for (const MapReader::Entry& entry : values.entries()) {
      if (declared.count(entry.key) == 0) {
        fail(entry.value, "unknown scalar '" + entry.key + "' (" + declared_scalars(scalars) + ")");
      }
      face.scalar_values[entry.key] = read_number(entry.value);
    }
  }
  return face;
}

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

ForcesConfig JobParser::parse_forces(const std::optional<Field>& field, const GridConfig& grid,
                                     const std::vector<ScalarConfig>& scalars) const {
  ForcesConfig forces;
  if (!field) return forces;
  const int dim = grid.dim;
  const MapReader map(*this, *field, true,
                      {"gravity", "buoyancy", "vorticity_confinement", "wind", "regions"});
  if (auto gravity = map.find("gravity")) forces.gravity = read_vector(*gravity, dim);
  if (auto buoyancy = map.find("buoyancy")) {
    forces.buoyancy = parse_buoyancy(*buoyancy, dim, scalars);
  }
  if (auto confinement = map.find("vorticity_confinement")) {
    forces.vorticity_confinement = read_non_negative(*confinement);
    // The confinement force is a difference of the vorticity, itself a difference of the
    // velocity: its stencil reaches 2 cells out.
    if (forces.vorticity_confinement > 0.0 && grid.halo < 2) {
      fail(*confinement, "vorticity confinement needs grid.halo >= 2, but grid.halo is " +
                             std::to_string(grid.halo));
    }
  }
  if (auto wind = map.find("wind")) forces.wind = parse_wind(*wind, dim);
  for (const Field& item : list_items(map.find("regions"), "force regions")) {
    const std::vector<std::string> own = {"acceleration"};
    const MapReader region_map = region_reader(item, own);
    ForceRegion region;
    region.region = parse_region(region_map, dim, own);
    region.acceleration = read_vector(region_map.require("acceleration"), dim);
    forces.regions.push_back(region);
  }
  return forces;
}

BuoyancyConfig JobParser::parse_buoyancy(const Field& field, int dim,
                                         const std::vector<ScalarConfig>& scalars) const {
  BuoyancyConfig buoyancy;
  buoyancy.enabled = true;
  const MapReader map(*this, field, true,
                      {"density", "temperature", "alpha", "beta", "ambient_temperature", "up"});
  if (auto density = map.find("density")) buoyancy.density_scalar = read_string(*density);
  if (auto temperature = map.find("temperature")) {
    buoyancy.temperature_scalar = read_string(*temperature);
  }
  if (auto alpha = map.find("alpha")) buoyancy.alpha = read_number(*alpha);
  if (auto beta = map.find("beta")) buoyancy.beta = read_number(*beta);
  if (auto ambient = map.find("ambient_temperature")) {
    buoyancy.ambient_temperature = read_number(*ambient);
  }
  if (auto up = map.find("up")) {
    const std::array<double, 3> v =
        read_vector(*up, dim, [this](const Field& f) { return read_finite(f); });
    // Scaled by the largest entry first, so that squaring cannot overflow or underflow.
    double scale = 0.0;
    for (double c : v) scale = std::max(scale, std::abs(c));
    if (scale == 0.0) {
      fail(*up, "must not be the zero vector (it is the direction hot fluid rises in)");
    }
    double norm = 0.0;
    for (double c : v) norm += (c / scale) * (c / scale);
    norm = std::sqrt(norm);
    for (int a = 0; a < 3; ++a) buoyancy.up[a] = (v[a] / scale) / norm;
  }
  // A term whose coefficient is 0 is never evaluated, so its scalar need not exist.
  check_buoyancy_scalar(map, "density", "alpha", buoyancy.density_scalar, buoyancy.alpha, scalars);
  check_buoyancy_scalar(map, "temperature", "beta", buoyancy.temperature_scalar, buoyancy.beta,
                        scalars);
  return buoyancy;
}

void JobParser::check_buoyancy_scalar(const MapReader& map, const char* name_key,
                                      const char* coefficient_key, const std::string& name,
                                      double coefficient,
                                      const std::vector<ScalarConfig>& scalars) const {
  if (coefficient == 0.0 || is_declared(scalars, name)) return;
  const std::string& path = map.field().path;
  if (auto given = map.find(name_key)) {
    fail(*given, "unknown scalar '" + name + "' (" + declared_scalars(scalars) + "); it is needed "
                 "because " + path + "." + coefficient_key + " is not 0");
  }
  // The name is the default; the coefficient, which the user did write, is what to point at.
  fail(*map.find(coefficient_key),
       "is not 0, so it needs the scalar '" + name + "' (the default of " + path + "." + name_key +
           "), which is not declared (" + declared_scalars(scalars) + "); declare it under "
           "scalars, or name another scalar with " + path + "." + name_key);
}

WindConfig JobParser::parse_wind(const Field& field, int dim) const {
  WindConfig wind;
  wind.enabled = true;
  const MapReader map(*this, field, true, {"velocity", "rate", "region"});
  wind.velocity = read_vector(map.require("velocity"), dim);
  wind.rate = read_positive(map.require("rate"));
  if (auto region = map.find("region")) {
    const MapReader region_map = region_reader(*region, {});
    wind.region = parse_region(region_map, dim, {});
    wind.has_region = true;
  }
  return wind;
}

std::vector<ObstacleConfig> JobParser::parse_obstacles(const std::optional<Field>& field,
                                                       int dim) const {
  std::vector<ObstacleConfig> obstacles;
  for (const Field& item : list_items(field, "obstacles")) {
    const std::vector<std::string> own = {"boundary"};
    const MapReader map = region_reader(item, own);
    ObstacleConfig obstacle;
    obstacle.region = parse_region(map, dim, own);
    if (auto boundary = map.find("boundary")) {
      const std::string name = read_string(*boundary);
      if (name == "no-slip") {
        obstacle.boundary = BoundaryKind::NoSlip;
      } else if (name == "free-slip") {
        obstacle.boundary = BoundaryKind::FreeSlip;
      } else {
        fail(*boundary, "unknown obstacle boundary (expected one of: no-slip, free-slip), " +
                            describe(boundary->node));
      }
    }
    obstacles.push_back(obstacle);
  }
  return obstacles;
}

SolverConfig JobParser::parse_solver(const std::optional<Field>& field, SolverConfig solver) const {
  if (!field) return solver;
  const MapReader map(*this, *field, true, {"tolerance", "absolute_tolerance", "max_iterations"});
  if (auto tolerance = map.find("tolerance")) {
    solver.rtol = read_finite(*tolerance);
    if (!(solver.rtol > 0.0 && solver.rtol < 1.0)) {
      fail(*tolerance, "must be > 0 and < 1, " + describe(tolerance->node));
    }
  }
  if (auto atol = map.find("absolute_tolerance")) solver.atol = read_non_negative(*atol);
  if (auto iterations = map.find("max_iterations")) {
    const long long n = read_integer(*iterations, "expected a positive integer");
    if (n < 1) fail(*iterations, "expected a positive integer, " + describe(iterations->node));
    if (n > INT_MAX) {
      fail(*iterations, "is out of range (at most " + std::to_string(INT_MAX) + "), " +
                            describe(iterations->node));
    }
    solver.max_iterations = static_cast<int>(n);
  }
  return solver;
}

TimeConfig JobParser::parse_time(const MapReader& top) const {
  const MapReader map(*this, top.require("time"), false, {"dt", "cfl", "dt_min", "dt_max", "end"});
  const std::string& path = map.field().path;
  TimeConfig time;
  const auto dt = map.find("dt");
  const auto cfl = map.find("cfl");
  if (dt && cfl) {
    fail(*cfl, "give either dt (a fixed step) or cfl (an adaptive step), not both (" + path +
                   ".dt is given on line " + std::to_string(dt->line) + ")");
  }
  if (dt) {
    for (const char* key : {"dt_min", "dt_max"}) {
      if (auto bound = map.find(key)) {
        fail(*bound, "is only used with an adaptive step (" + path + ".cfl), not with a fixed " +
                         path + ".dt");
      }
    }
    time.dt = read_positive(*dt);
    const Field end = map.require("end");
    time.end = read_positive(end);
    if (time.end < time.dt) {
      fail(end, "must be at least " + path + ".dt = " + format_number(time.dt) + ", " +
                    describe(end.node));
    }
  } else if (cfl) {
    time.cfl = read_positive(*cfl);
    const auto dt_max = map.find("dt_max");
    if (!dt_max) {
      fail(map.field().line, path + ".dt_max",
           "missing required key (an adaptive step, " + path + ".cfl, needs dt_max: the largest "
           "step, and the one taken while the fluid is at rest)");
    }
    time.dt_max = read_positive(*dt_max);
    if (auto dt_min = map.find("dt_min")) {
      time.dt_min = read_zero_or_positive(*dt_min);
      if (time.dt_min > time.dt_max) {
        fail(*dt_min, "must be at most " + path + ".dt_max = " + format_number(time.dt_max) +
                          ", " + describe(dt_min->node));
      }
    }
    time.end = read_positive(map.require("end"));
  } else {
    fail(map.field().line, path + ".dt",
         "missing required key (give dt for a fixed step, or cfl and dt_max for an adaptive one)");
  }
  return time;
}

OutputConfig JobParser::parse_output(const std::optional<Field>& field) const {
  OutputConfig output;
  if (!field) return output;
  const MapReader map(*this, *field, true,
                      {"directory", "interval", "initial_frame", "overwrite", "progress_every"});
  if (auto directory = map.find("directory")) {
    output.directory = read_string(*directory);
    if (output.directory.empty()) fail(*directory, "must not be empty");
  }
  if (auto interval = map.find("interval")) output.interval = read_zero_or_positive(*interval);
  if (auto initial = map.find("initial_frame")) output.initial_frame = read_bool(*initial);
  if (auto overwrite = map.find("overwrite")) output.overwrite = read_bool(*overwrite);
  if (auto every = map.find("progress_every")) {
    const long long n = read_integer(*every, "expected an integer >= 1");
    if (n < 1 || n > std::numeric_limits<PetscInt>::max()) {
      fail(*every, "expected an integer from 1 to " +
                       std::to_string(std::numeric_limits<PetscInt>::max()) + ", " +
                       describe(every->node));
    }
    output.progress_every = static_cast<PetscInt>(n);
  }
  return output;
}

CheckpointConfig JobParser::parse_checkpoint(const std::optional<Field>& field,
                                            const OutputConfig& output) const {
  CheckpointConfig checkpoint;
  checkpoint.directory = output.directory;
  if (!field) return checkpoint;
  const MapReader map(*this, *field, true,
                      {"directory", "every_steps", "every_time", "every_wall_seconds", "keep"});
  if (auto directory = map.find("directory")) {
    checkpoint.directory = read_string(*directory);
    if (checkpoint.directory.empty()) fail(*directory, "must not be empty");
  }
  if (auto steps = map.find("every_steps")) {
    const long long n = read_integer(*steps, "expected an integer >= 0");
    if (n < 0) fail(*steps, "expected an integer >= 0, " + describe(steps->node));
    const long long most = std::numeric_limits<PetscInt>::max();
    if (n > most) {
      fail(*steps, "is out of range (at most " + std::to_string(most) + "), " +
                       describe(steps->node));
    }
    checkpoint.every_steps = static_cast<PetscInt>(n);
  }
  if (auto time = map.find("every_time")) checkpoint.every_time = read_zero_or_positive(*time);
  if (auto wall = map.find("every_wall_seconds")) {
    checkpoint.every_wall_seconds = read_non_negative(*wall);
  }
  if (auto keep = map.find("keep")) {
    const long long n = read_integer(*keep, "expected a positive integer");
    if (n < 1) fail(*keep, "expected a positive integer, " + describe(keep->node));
    if (n > INT_MAX) {
      fail(*keep, "is out of range (at most " + std::to_string(INT_MAX) + "), " +
                      describe(keep->node));
    }
    checkpoint.keep = static_cast<int>(n);
  }
  return checkpoint;
}

DebugConfig JobParser::parse_debug(const std::optional<Field>& field) const {
  DebugConfig debug;
  if (!field) return debug;
  const MapReader map(*this, *field, true, {"dump_on_failure"});
  if (auto dump = map.find("dump_on_failure")) debug.dump_on_failure = read_bool(*dump);
  return debug;
}

CatalystConfig JobParser::parse_catalyst(const std::optional<Field>& field,
                                         const OutputConfig& output,
                                         const GridConfig& grid) const {
  CatalystConfig catalyst;
  catalyst.directory = output.directory + "/catalyst";
  if (!field) return catalyst;
  const MapReader map(*this, *field, true, {"directory", "scripts"});
  if (auto directory = map.find("directory")) {
    catalyst.directory = read_string(*directory);
    if (catalyst.directory.empty()) fail(*directory, "must not be empty");
  }
  // Scripts are named relative to the job file, so a job and its scripts move together and the
  // job runs from any working directory.
  const std::string job_directory =
      source_.find('/') == std::string::npos ? "." : source_.substr(0, source_.rfind('/'));
  for (const Field& item : list_items(map.find("scripts"), "scripts")) {
    const MapReader entry(*this, item, false,
                          {"script", "every_steps", "every_time", "every_wall_seconds", "args"});
    CatalystScript script;
    const Field path = entry.require("script");
    script.path = read_string(path);
    script.line = path.line;
    if (script.path.empty()) fail(path, "must not be empty");
    if (script.path[0] != '/') script.path = job_directory + "/" + script.path;
    // Checked here (every rank reads the same file system entry) so that a typo stops the run
    // before anything is set up, with the job line that names the script.
    // (A script may also be a directory or .zip holding a Python package, as ParaView allows.)
    std::error_code code;
    const bool readable = std::filesystem::is_directory(script.path, code) ||
                          static_cast<bool>(std::ifstream(script.path));
    if (!readable) fail(path, "cannot read Catalyst script '" + script.path + "'");
    const auto steps = entry.find("every_steps");
    const auto time = entry.find("every_time");
    if (steps && time) fail(*time, "give either every_steps or every_time, not both");
    if (steps) {
      const long long n = read_integer(*steps, "expected a positive integer");
      if (n < 1 || n > std::numeric_limits<PetscInt>::max()) {
        fail(*steps, "expected a positive integer, " + describe(steps->node));
      }
      script.every_steps = static_cast<PetscInt>(n);
    }
    if (time) script.every_time = read_positive(*time);
    if (auto wall = entry.find("every_wall_seconds")) script.every_wall_seconds = read_positive(*wall);
    for (const Field& arg : list_items(entry.find("args"), "strings")) {
      script.args.push_back(read_string(arg));
    }
    catalyst.scripts.push_back(std::move(script));
  }
  // The adaptor hands ParaView one ghost layer of cell-centred velocity; its upper ghost cell
  // averages a face one layer further out.
  if (!catalyst.scripts.empty() && grid.halo < 2) {
    fail(field->line, field->path, "Catalyst output needs grid.halo >= 2, but grid.halo is " +
                                       std::to_string(grid.halo));
  }
  return catalyst;
}

/// Why a file system entry of type `mode`, not a regular file, is refused as a job file.
std::string not_regular_file(mode_t mode) {
  const char* kind = S_ISDIR(mode)    ? "a directory"
                     : S_ISFIFO(mode) ? "a FIFO"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : nullptr;
  if (kind == nullptr) return "it is not a regular file";
  return std::string("it is ") + kind + ", not a regular file";
}

/// Reads a job file of at most kMaxJobFileBytes. On failure returns false and puts the reason in
/// `error`. Only a regular file is read: a FIFO can block forever, a device such as /dev/zero
/// never ends, and a directory has no text. The size is checked before reading, and again while
/// reading (at most one byte beyond the limit is read), so a file that grows meanwhile is caught.
bool read_file(const std::string& path, std::string& text, std::string& error) {
  const std::string limit = "the " + std::to_string(kMaxJobFileBytes) + " bytes (1 MiB) a job " +
                            "file may have";
  // O_NONBLOCK, because opening a FIFO for reading waits for a writer, perhaps forever; it has no
  // effect on reading a regular file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    error = std::strerror(errno);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = not_regular_file(info.st_mode);
    return false;
  }
  if (info.st_size > kMaxJobFileBytes) {
    error = "it is " + std::to_string(info.st_size) + " bytes, more than " + limit;
    return false;
  }
  text.clear();
  char buffer[1 << 16];
  const auto most = static_cast<std::size_t>(kMaxJobFileBytes);
  while (true) {
    const std::size_t wanted = std::min(sizeof buffer, most + 1 - text.size());
    const ssize_t count = ::read(fd, buffer, wanted);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      error = std::strerror(errno);
      return false;
    }
    if (count == 0) return true;
    text.append(buffer, static_cast<std::size_t>(count));
    if (text.size() > most) {
      error = "it grew to more than " + limit + " while it was read";
      return false;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Memory estimate (load_job). A grid far too large for the machine would otherwise fail deep in
// PETSc's allocation on one rank, or drive the node into swap or the OOM killer, long after the
// job was accepted; it is cheaper to refuse it up front with the numbers.

/// Bytes a run needs per grid cell, an estimate from measurement: the 128^3 plume_3d job peaked
/// at 642 bytes of resident memory per cell, about 65 of them PETSc/MPI/HDF5 overhead; 700 leaves
/// some headroom for other jobs' settings (more scalars, BFECC). Most of the storage is held per
/// unknown (a velocity component or the pressure, with its halo, work vectors and matrix row), so
/// a 2D job, with 3 unknowns per cell instead of 4, is scaled by 3/4: 525 bytes per cell.
constexpr double kBytesPerCell3D = 700.0;

double bytes_per_cell(int dim) { return kBytesPerCell3D * (dim + 1) / 4.0; }

/// Test hook: when set to a number of bytes, it replaces MemAvailable (documented in
/// jobs/README.md).
constexpr const char* kMemoryHook = "STABLEFLUIDS_MEMORY_AVAILABLE_BYTES";

/// Bytes this node can still hand out without swapping (MemAvailable), or < 0 when unknown.
double available_bytes() {
  if (const char* hook = std::getenv(kMemoryHook); hook != nullptr && *hook != '\0') {
    double value = 0.0;
    if (parse_double(hook, value) == NumberStatus::Ok && value >= 0.0) return value;
  }
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(std::strlen("MemAvailable:")));
      double kib = 0.0;
      if (fields >> kib && kib >= 0.0) return kib * 1024.0;  // the kernel writes "kB": KiB
    }
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) return static_cast<double>(pages) * page_size;
  return -1.0;
}

std::string format_gigabytes(double bytes) {
  std::ostringstream out;
  out.precision(3);
  out << bytes / 1e9 << " GB";
  return out.str();
}

/// Collective on `comm`: throws the same JobError on every rank when the ranks sharing some node
/// would need more memory than that node has available.
void check_memory(MPI_Comm comm, const JobParser& parser, const JobConfig& job, int cells_line) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  long long cells = 1;
  for (int a = 0; a < job.grid.dim; ++a) cells *= job.grid.cells[a];  // < 2^31 (parse_grid)
  const double per_cell = bytes_per_cell(job.grid.dim);
  const double total = static_cast<double>(cells) * per_cell;
  const double per_rank = total / size;

  // The ranks that share this node's memory, and the least any of them sees available.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size = 1;
  MPI_Comm_size(node, &node_size);
  const double local_available = available_bytes();
  double node_available = 0.0;
  MPI_Allreduce(&local_available, &node_available, 1, MPI_DOUBLE, MPI_MIN, node);
  MPI_Comm_free(&node);

  const bool short_of_memory = node_available >= 0.0 && per_rank * node_size > node_available;
  // Every rank learns the same verdict and the same node to name: the lowest-ranked one among
  // those with the least memory available, of the nodes that are short.
  struct {
    double available;
    int rank;
  } mine{short_of_memory ? node_available : std::numeric_limits<double>::max(), rank}, worst{};
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
  if (worst.available == std::numeric_limits<double>::max()) return;

  char host[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int host_length = 0;
  MPI_Get_processor_name(host, &host_length);
  int worst_node_size = node_size;
  MPI_Bcast(host, MPI_MAX_PROCESSOR_NAME + 1, MPI_CHAR, worst.rank, comm);
  MPI_Bcast(&worst_node_size, 1, MPI_INT, worst.rank, comm);
  host[MPI_MAX_PROCESSOR_NAME] = '\0';

  std::string message = "the grid needs about " + format_gigabytes(total) + " (" +
                        std::to_string(cells) + " cells at ~" +
                        std::to_string(static_cast<long>(per_cell)) + " bytes per cell)";
  if (worst_node_size < size) {
    message += ", about " + format_gigabytes(per_rank * worst_node_size) + " of it on the " +
               std::to_string(worst_node_size) + " ranks of node " + host + ",";
  }
  message += " but the ranks on node " + std::string(host) + " have only " +
             format_gigabytes(worst.available) + " available; use more nodes or a smaller grid";
  parser.fail(cells_line, "grid.cells", message);
}

}  // namespace

JobConfig parse_job(const std::string& text, const std::string& source,
                    const std::vector<JobOverride>& overrides) {
  return JobParser(source, overrides).parse(text);
}

void resolve_ranks(JobConfig& job, int ranks) {
  GridSection& grid = job.grid;
  if (!grid.cells_per_rank) return;
  // MPI's own balanced factorisation; every rank computes the same one.
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(ranks, grid.dim, dims);
  long long unknowns = grid.dim;
  std::string block, layout;
  for (int a = 0; a < grid.dim; ++a) {
    block += (a ? " x " : "") + std::to_string(grid.cells[a]);
    layout += (a ? " x " : "") + std::to_string(dims[a]);
    grid.cells[a] *= dims[a];
    grid.processes[a] = dims[a];
    unknowns *= grid.cells[a];
  }
  if (unknowns > kMaxIndex) {
    JobParser(job.source, job.overrides)
        .fail(grid.cells_line, "grid.cells_per_rank",
              block + " cells per rank on " + std::to_string(ranks) + " ranks (" + layout +
                  ") is " + std::to_string(unknowns) +
                  " unknowns, but PETSc here uses 32-bit indices and allows at most " +
                  std::to_string(kMaxIndex));
  }
  for (int a = 0; a < grid.dim; ++a) {
    const std::string problem = cell_size_problem(grid, a);
    if (!problem.empty()) {
      JobParser(job.source, job.overrides)
          .fail(grid.origin_line, "grid.origin[" + std::to_string(a) + "]",
                "on " + std::to_string(ranks) + " ranks, " + problem);
    }
  }
}

JobConfig load_job(MPI_Comm comm, const std::string& path,
                   const std::vector<JobOverride>& overrides) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);

  // Only rank 0 touches the file system, so a thousand ranks do not hammer a shared file
  // system, and a failure there is known everywhere through the broadcast length (-1), so no
  // rank is left waiting in a collective that the others skipped.
  std::string text;
  std::string error;
  long long length = -1;
  if (rank == 0 && read_file(path, text, error)) length = static_cast<long long>(text.size());
  MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm);

  if (length < 0) {
    // The reason is broadcast too, because errno only means something on rank 0.
    int error_length = static_cast<int>(error.size());
    MPI_Bcast(&error_length, 1, MPI_INT, 0, comm);
    error.resize(static_cast<std::size_t>(error_length));
    MPI_Bcast(error.data(), error_length, MPI_CHAR, 0, comm);
    throw JobError("cannot read job file '" + path + "': " + error);
  }

  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, comm);
  // Every rank parses the same text, so every rank throws the same JobError or none does, and
  // the memory check below, which is collective, is reached by all ranks or by none.
  const JobParser parser(path, overrides);
  JobConfig job = parser.parse(text);
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  resolve_ranks(job, ranks);
  check_memory(comm, parser, job, job.grid.cells_line);
  return job;
}

}  // namespace sf
