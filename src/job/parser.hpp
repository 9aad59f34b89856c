// The job parser's own vocabulary, shared by its files and by no one else: the limits a job must
// keep (jobs/README.md "Limits"), a YAML node with its dotted key and line, the value readers
// that check type and range and name the key on failure, and the map reader that refuses
// duplicate and unknown keys. One parse_<section>.cpp file per section of the job uses them;
// reader.cpp holds the rest of the parser, load.cpp the file reading and broadcast.
#pragma once

#include "job.hpp"

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

namespace sf::job_detail {

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

/// Frames are numbered with 6 digits, <name>_NNNNNN.h5 (io/frame_writer.cpp): 000000 to 999999.
/// A 7-digit frame would still be written, but out of order for every tool that sorts names.
constexpr long long kMaxFrames = 1000000;

/// NAME_MAX of Linux file systems (ext4, XFS, Lustre, GPFS): the bytes of one path component.
constexpr std::size_t kMaxFileNameBytes = 255;

/// What the longest file name a run derives from its name adds to it: a failure dump's frame
/// while it is being written, <name>_failed_step<step>_000000.h5.tmp (src/app/simulation.cpp,
/// io/frame_writer.cpp), with a step of up to 10 digits (under an adaptive step the step count is
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

enum class NumberStatus { Ok, NotANumber, NonFinite, OutOfRange };

enum class IntegerStatus { Ok, NotAnInteger, OutOfRange };

int line_of(const YAML::Node& node);

/// A short, single-line rendering of a node for "got ..." clauses. Long or multi-line scalars are
/// cut so that a stray block literal cannot flood the message.
std::string describe(const YAML::Node& node);

std::string join(const std::vector<std::string>& items);

/// The shortest text that reads back as exactly `value`, so that messages quote 0.3 as "0.3"
/// rather than as its 17-digit binary approximation.
std::string format_number(double value);

/// Strict, locale-independent parse of a YAML number. std::from_chars is used instead of
/// yaml-cpp's as<double>() because the latter accepts trailing garbage in some versions and
/// depends on the stream locale. YAML's spellings of infinity and NaN (".inf", ".nan", and the
/// bare forms from_chars itself accepts) are recognised so that they can be reported as
/// non-finite rather than as "not a number", which would confuse a user who wrote one on purpose.
NumberStatus parse_double(const std::string& text, double& out);

/// Strict decimal integer parse: "2.5", "1e3" and "0x10" are all rejected rather than silently
/// truncated or reinterpreted, because a cell count that is not what the user wrote is worse than
/// an error.
IntegerStatus parse_integer(const std::string& text, long long& out);

bool is_identifier(const std::string& name);

inline bool is_name_char(unsigned char c) {
  return std::isalnum(c) || c == '_' || c == '.' || c == '-';
}

bool is_run_name(const std::string& name);

bool ends_with_ignoring_case(const std::string& text, const std::string& suffix);

/// The default run name: the job file's name without directory and extension. Characters that
/// are not allowed in a run name are replaced, so that an odd file name still yields usable
/// output file names instead of an error about a key the user never wrote.
std::string default_name(const std::string& source);

bool is_declared(const std::vector<ScalarConfig>& scalars, const std::string& name);

/// "declared scalars: a, b" or "no scalars are declared", for unknown-scalar messages. A long
/// list is cut after a few names, so that the message stays one readable line.
std::string declared_scalars(const std::vector<ScalarConfig>& scalars);

/// What is wrong with the cells along axis `a` if they are too small for a double to tell
/// positions within them apart at their distance from 0 (kMinCellFraction); empty if nothing.
std::string cell_size_problem(const GridConfig& grid, int a);

class JobParser;

/// Where in the parser's source a map is read, for the key census below. Its defaults are the
/// caller's file and line (as std::source_location, which C++17 lacks), so a MapReader records
/// its call site without the call naming it.
class CallSite {
public:
  static CallSite here(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return CallSite(file, line);
  }
  const char* file;
  int line;

private:
  CallSite(const char* file_name, int line_number) : file(file_name), line(line_number) {}
};

/// The key census: while it is on, every map the parser reads records its dotted path, the keys
/// it accepts there (with the context of a narrowing allow_only, such as " for type 'inflow'"),
/// and the line of the parser that decides them. jobs/README.md's key index and `--help keys`
/// are generated from it (key_census_tool.cpp parses a corpus of jobs with it on, and
/// tests/job/key_index.py checks that the corpus reaches every such line). The solver never
/// turns it on; then a record costs one test of a flag.
struct CensusRecord {
  std::string document;  // "job" or "steering": the two kinds of file the parser reads
  std::string path;      // e.g. "boundary.x.lower" or "obstacles[2]"; "" for the top level
  std::string context;   // allow_only's context, "" for the map's own list
  std::vector<std::string> keys;
  bool named_entries = false;  // a map of names the user chooses (scalars, probes, ...)
  std::string file;
  int line = 0;
};

void census_start(const std::string& document);
void census_stop();
bool census_on();
void census_record(CensusRecord record);
/// The records since the last census_start(), one per distinct (path, context, keys, call site).
std::vector<CensusRecord> census_records();

/// A YAML map whose keys have been checked to be plain, unique scalars. Lookups go through this
/// class rather than YAML::Node::operator[] because yaml-cpp silently keeps duplicate keys and
/// its lookup would then quietly pick one of them. Reading a map takes time linear in its size.
class MapReader {
public:
  struct Entry {
    std::string key;
    Field value;
  };

  /// A map that may hold any keys: one read only with find(), or a map of names the user
  /// chooses (scalar names, probe names), read with named_entries().
  MapReader(const JobParser& parser, const Field& field, bool allow_null,
            CallSite site = CallSite::here())
      : MapReader(parser, field, allow_null, nullptr, site) {}
  /// A map whose keys must all be in `allowed`: the first that is not is reported as it is met,
  /// so parsing stops at the first error, however many entries follow it.
  MapReader(const JobParser& parser, const Field& field, bool allow_null,
            const std::vector<std::string>& allowed, CallSite site = CallSite::here())
      : MapReader(parser, field, allow_null, &allowed, site) {}

  /// Rejects every key not in `allowed`; `context` refines the message for maps whose valid keys
  /// depend on their `type`.
  void allow_only(const std::vector<std::string>& allowed, const std::string& context = "",
                  CallSite site = CallSite::here()) const;

  std::optional<Field> find(const std::string& key) const;
  Field require(const std::string& key) const;
  /// The entries of a map whose keys are names the user chooses; the census records it as such.
  const std::vector<Entry>& named_entries(CallSite site = CallSite::here()) const;
  const Field& field() const { return field_; }

private:
  MapReader(const JobParser& parser, const Field& field, bool allow_null,
            const std::vector<std::string>* allowed, CallSite site);
  void fail_unknown(const Entry& entry, const std::vector<std::string>& allowed,
                    const std::string& context) const;

  const JobParser& parser_;
  Field field_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::size_t> index_;  // key -> position in entries_
};

class JobParser {
public:
  /// `source` names the text in messages; relative paths in it (Catalyst scripts, mesh files,
  /// the steering file) are taken from the directory of `relative_to`, or of `source` when that
  /// is empty.
  explicit JobParser(std::string source, std::vector<JobOverride> overrides = {},
                     const std::string& relative_to = "")
      : source_(std::move(source)), overrides_(std::move(overrides)),
        directory_(directory_of(relative_to.empty() ? source_ : relative_to)) {}

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
  /// A steering file's text (parse_steering in job.hpp).
  Steered parse_steering(const std::string& text, const JobConfig& job) const;

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

  /// The value a word stands for, from a fixed list of choices: the one place the job turns
  /// words into enums. Any other word is "unknown <what> (expected one of: <the words>)".
  template <typename Value>
  Value read_choice(const Field& field, const char* what,
                    std::initializer_list<std::pair<const char*, Value>> choices) const {
    const std::string name = read_string(field);
    for (const auto& [word, value] : choices)
      if (name == word) return value;
    std::vector<std::string> words;
    for (const auto& choice : choices) words.emplace_back(choice.first);
    fail(field, std::string("unknown ") + what + " (expected one of: " + join(words) + "), " +
                    describe(field.node));
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
  /// One force region: a region with an `acceleration` (forces.regions, a steering file).
  ForceRegion parse_force_region(const Field& item, int dim) const;
  /// The keys a TimeProfile is read from, which an item lists among its own.
  static const std::vector<std::string>& time_profile_keys();
  /// `start` and `end` (both optional; end > start) into *start and *end: when a source, a
  /// sink, a force region or a patch of air pressure acts.
  void read_active_span(const MapReader& map, double* start, double* end) const;
  /// The `start`, `end` and `keyframes` of a source or force region (TimeProfile).
  TimeProfile parse_time_profile(const MapReader& map, int dim) const;
  /// forces.noise (NoiseConfig); the scalar it names must be declared.
  NoiseConfig parse_noise(const Field& field, const std::vector<ScalarConfig>& scalars) const;
  /// An obstacle motion's `keyframes` and `axis`, if given, into *m.
  void read_keyframes(const MapReader& keys, int dim, ObstacleConfig::Motion* m) const;
  /// An angular velocity: in 2D a number (about z), in 3D a vector.
  std::array<double, 3> read_angular_velocity(const Field& turn, int dim) const;
  /// An obstacle's `shape: mesh` keys (file, scale, center) besides `extra`.
  ObstacleConfig::MeshFile parse_mesh_file(const MapReader& map, int dim,
                                           const std::vector<std::string>& extra) const;

  GridSection parse_grid(const MapReader& top) const;
  std::vector<ScalarConfig> parse_scalars(const std::optional<Field>& field, int dim) const;
  ScalarBlob parse_blob(const Field& field, int dim) const;
  ScalarSource parse_source(const Field& field, int dim) const;
  void parse_boundary(const std::optional<Field>& field, const GridConfig& grid,
                      const std::vector<ScalarConfig>& scalars, JobConfig& job) const;
  FaceBoundary parse_side(const Field& field, int axis, int side, int dim,
                          const std::vector<ScalarConfig>& scalars) const;
  BoundaryKind parse_kind(const Field& field) const;
  /// A wall's or an obstacle's `scalars` (the values it holds named scalars at) into `values`.
  void read_scalar_values(const MapReader& map, const std::vector<ScalarConfig>& scalars,
                          std::map<std::string, double>& values) const;
  /// Its `fluxes` (per unit area, into the fluid) into `gradients` as ds/dn = flux / kappa;
  /// `what` ("wall", "obstacle") names the surface in errors.
  void read_scalar_fluxes(const MapReader& map, const std::vector<ScalarConfig>& scalars,
                          const std::map<std::string, double>& values, const std::string& what,
                          std::map<std::string, double>& gradients) const;
  VelocityInit parse_velocity(const std::optional<Field>& field, int dim) const;
  FluidConfig parse_fluid(const std::optional<Field>& field,
                          const std::vector<ScalarConfig>& scalars) const;
  /// The fire section; `job` is the job so far, whose scalars it names.
  FireConfig parse_fire(const Field& field, const JobConfig& job) const;
  /// The texture section; adds the texture coordinates to job.scalars.
  TextureConfig parse_texture(const Field& field, JobConfig& job) const;
  AdvectionConfig parse_advection(const std::optional<Field>& field) const;
  ForcesConfig parse_forces(const std::optional<Field>& field, const GridConfig& grid,
                            const std::vector<ScalarConfig>& scalars) const;
  BuoyancyConfig parse_buoyancy(const Field& field, int dim,
                                const std::vector<ScalarConfig>& scalars) const;
  void check_buoyancy_scalar(const MapReader& map, const char* name_key,
                             const char* coefficient_key, const std::string& name,
                             double coefficient, const std::vector<ScalarConfig>& scalars) const;
  WindConfig parse_wind(const Field& field, int dim) const;
  std::vector<ObstacleConfig> parse_obstacles(const std::optional<Field>& field, int dim,
                                              const std::vector<ScalarConfig>& scalars) const;
  LiquidConfig parse_liquid(const std::optional<Field>& field, int dim) const;
  /// The viscoelastic section; appends the strain scalars to `scalars`. Without `material`, the
  /// job's liquid is the material (compatibility.cpp refuses a job with neither).
  ViscoelasticConfig parse_viscoelastic(const std::optional<Field>& field, int dim,
                                        std::vector<ScalarConfig>& scalars) const;
  /// A solver's stopping rule; `projection` admits the pressure's divergence target.
  SolverConfig parse_solver(const std::optional<Field>& field, SolverConfig solver,
                            bool projection) const;
  TimeConfig parse_time(const MapReader& top) const;
  OutputConfig parse_output(const std::optional<Field>& field) const;
  CheckpointConfig parse_checkpoint(const std::optional<Field>& field,
                                    const OutputConfig& output) const;
  DebugConfig parse_debug(const std::optional<Field>& field) const;
  DiagnosticsConfig parse_diagnostics(const std::optional<Field>& field,
                                      const GridConfig& grid) const;
  CatalystConfig parse_catalyst(const std::optional<Field>& field,
                                const OutputConfig& output) const;

  /// Checks that the frames and steps the job implies fit the numbers in their file names
  /// (kMaxFrames, kMaxSteps).
  void check_run_length(const MapReader& top, const JobConfig& job) const;

  /// Refuses the job at the first row of the table of refused combinations it breaks
  /// (compatibility.cpp), naming the row's key at its line in the job under `root`.
  void check_compatibility(const Field& root, const JobConfig& job) const;

  /// The value of a dotted key under `root` ("obstacles[1].motion"), or, where the job does not
  /// give it, of the deepest map or list on its way; the path is `key` either way.
  Field field_at(const Field& root, const std::string& key) const;

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

  /// The directory part of a file's path, empty when it has none.
  static std::string directory_of(const std::string& path) {
    return path.find('/') == std::string::npos ? "" : path.substr(0, path.rfind('/'));
  }

  /// `path` as the job names it: relative paths are relative to the job file's directory.
  std::string beside_job(const std::string& path) const {
    return path[0] == '/' || directory_.empty() ? path : directory_ + "/" + path;
  }

  std::string source_;
  std::vector<JobOverride> overrides_;
  std::string directory_;  // where relative paths in the job start from (see the constructor)
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

/// Collective on `comm`: throws the same JobError (of grid.cells at `cells_line`) on every rank
/// when the ranks sharing some node would need more memory than that node has available
/// (memory_check.cpp).
void check_memory(MPI_Comm comm, const JobParser& parser, const JobConfig& job, int cells_line);

/// Reads every mesh obstacle's file (rank 0 reads, every rank gets the triangles), scales and
/// places it, and refuses a surface that is not closed, naming the job's key. Collective.
void load_meshes(MPI_Comm comm, const JobParser& parser, JobConfig& job);

}  // namespace sf::job_detail
