// How the run goes: the solvers' stopping rules, time, output, checkpoints, debug, Catalyst.
#include "parser.hpp"

namespace sf::job_detail {

SolverConfig JobParser::parse_solver(const std::optional<Field>& field, SolverConfig solver,
                                     bool projection) const {
  if (!field) return solver;
  std::vector<std::string> keys{"solver", "tolerance", "absolute_tolerance", "max_iterations"};
  if (projection) keys.push_back("max_divergence");
  const MapReader map(*this, *field, true, keys);
  if (auto method = map.find("solver")) {
    solver.method = read_choice<SolverConfig::Method>(
        *method, "solver",
        {{"krylov", SolverConfig::Method::Krylov}, {"fft", SolverConfig::Method::Fft}});
    // A direct solve has no stopping rule: a tolerance given with it would be silently ignored.
    if (solver.method == SolverConfig::Method::Fft)
      for (const std::string& key : keys)
        if (key != "solver")
          if (auto other = map.find(key))
            fail(*other, "has no effect with solver: fft (given on line " +
                             std::to_string(method->line) + "), a direct solve to rounding");
  }
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
  if (auto target = map.find("max_divergence")) {
    // One stopping rule: the divergence target replaces rtol/atol, so a job that gives both
    // would have one of them silently ignored.
    for (const char* key : {"tolerance", "absolute_tolerance"}) {
      if (auto other = map.find(key)) {
        fail(*target, std::string("give either ") + key + " or max_divergence, not both (" +
                          map.field().path + "." + key + " is given on line " +
                          std::to_string(other->line) + ")");
      }
    }
    solver.max_divergence = read_positive(*target);
  }
  return solver;
}

TimeConfig JobParser::parse_time(const MapReader& top) const {
  const MapReader map(*this, top.require("time"), false,
                      {"scheme", "dt", "cfl", "dt_min", "dt_max", "end", "steady"});
  const std::string& path = map.field().path;
  TimeConfig time;
  if (auto steady = map.find("steady")) {
    const MapReader criterion(*this, *steady, false, {"tolerance"});
    time.steady_tolerance = read_positive(criterion.require("tolerance"));
  }
  if (auto scheme = map.find("scheme")) {
    time.scheme = read_choice<TimeScheme>(*scheme, "scheme",
                                          {{"stam", TimeScheme::Stam}, {"bdf2", TimeScheme::BDF2}});
  }
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
                                         const OutputConfig& output) const {
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
  const std::string job_directory = directory_.empty() ? "." : directory_;
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
  return catalyst;
}

// diagnostics: {probes: {name: [x, y(, z)]}}: each point inside the domain (its closed box),
// each name an identifier, so that the CSV's probe_<name>_<quantity> columns are unambiguous.
DiagnosticsConfig JobParser::parse_diagnostics(const std::optional<Field>& field,
                                               const GridConfig& grid) const {
  DiagnosticsConfig diagnostics;
  if (!field) return diagnostics;
  const MapReader map(*this, *field, true, {"probes", "reference"});
  if (auto reference = map.find("reference")) {
    const MapReader values(*this, *reference, false, {"velocity", "area"});
    diagnostics.reference_velocity = read_positive(values.require("velocity"));
    diagnostics.reference_area = read_positive(values.require("area"));
  }
  const auto probes = map.find("probes");
  if (!probes) return diagnostics;
  const MapReader list(*this, *probes, true);
  for (const MapReader::Entry& entry : list.named_entries()) {
    ProbeConfig probe;
    probe.name = entry.key;
    if (!is_identifier(probe.name)) {
      fail(entry.value, "invalid probe name '" + probe.name +
                            "' (use letters, digits and '_', not starting with a digit)");
    }
    probe.point = read_vector(entry.value, grid.dim);
    for (int a = 0; a < grid.dim; ++a) {
      const double lo = grid.origin[a], hi = grid.origin[a] + grid.size[a];
      if (!(probe.point[a] >= lo && probe.point[a] <= hi)) {
        fail(entry.value, "the point lies outside the domain (" + std::string(1, "xyz"[a]) +
                              " = " + format_number(probe.point[a]) + ", the domain spans " +
                              format_number(lo) + " to " + format_number(hi) + ")");
      }
    }
    diagnostics.probes.push_back(probe);
  }
  return diagnostics;
}

}  // namespace sf::job_detail
