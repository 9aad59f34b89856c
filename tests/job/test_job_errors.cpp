// Malformed jobs (src/job/): each is refused with a JobError whose message names the file, the
// line and the dotted key. Most are one table, a row per job: the job's text, the fragments its
// message must contain, and the name it is parsed under ("job.yaml" unless the row says). Every
// row is a test of its own, named after its group and its place in it (CheckpointErrors_3 is
// the fourth row of CheckpointErrors), so a failure names the row and the job it parsed.
// Refusals that need more than "contains" are TESTs of their own: exact messages and weak scaling
// below the table; the reader's bounds (many keys, aliases, nesting) in test_job_limits.cpp.
#include <gtest/gtest.h>

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "job.hpp"
#include "job_test_util.hpp"

namespace {

using sf::JobConfig;
using sf::test::Contains;
using sf::test::error_of;
using sf::test::kAtLeast;
using sf::test::kAtMost;
using sf::test::kHead;
using sf::test::kLongestName;
using sf::test::kStepsAllow;
using sf::test::kZeroOr;

// kHead with the second-order step, six lines (time.scheme on line 6).
const std::string kBdf2Head =
    "grid:\n  cells: [8, 8]\ntime:\n  dt: 0.1\n  end: 1.0\n  scheme: bdf2\n";

// kHead in 3D (a mesh obstacle needs one), also five lines.
const std::string kHead3 = "grid:\n  cells: [8, 8, 8]\ntime:\n  dt: 0.1\n  end: 1.0\n";

// The catalyst rows are parsed as a job in jobs/, so that their scripts resolve to
// jobs/catalyst/, where the real ones are.
const std::string kCatalystSource = std::string(STABLEFLUIDS_SOURCE_DIR) + "/jobs/job.yaml";
const std::string kCatalystHead = "grid: {cells: [8, 8, 8]}\ntime: {dt: 0.1, end: 1}\ncatalyst:\n";

/// One malformed job: parsed as `source`, its message must contain every one of `parts`.
struct Row {
  std::string job;
  std::vector<std::string> parts;
  std::string source = "job.yaml";
};

/// Rows that check one rule, under the name of the test they were before the table.
struct Group {
  std::string name;
  std::vector<Row> rows;
};

const std::vector<Group> kRefusedJobs = {
    // --- sections, keys and values
    {"CheckpointErrors", {
        {kHead + "checkpoint: 5\n", {"job.yaml:6: checkpoint: expected a map, got \"5\""}},
        {kHead + "checkpoint:\n  every_step: 10\n",
         {"job.yaml:7: checkpoint.every_step: unknown key (expected one of: directory, "
          "every_steps, every_time, every_wall_seconds, keep)"}},
        {kHead + "checkpoint:\n  directory: \"\"\n",
         {"job.yaml:7: checkpoint.directory: must not be empty"}},
        {kHead + "checkpoint:\n  directory: [a]\n",
         {"job.yaml:7: checkpoint.directory: expected a string, got a list of 1 entry"}},
        {kHead + "checkpoint:\n  every_steps: -1\n",
         {"job.yaml:7: checkpoint.every_steps: expected an integer >= 0, got \"-1\""}},
        {kHead + "checkpoint:\n  every_steps: 2.5\n",
         {"job.yaml:7: checkpoint.every_steps: expected an integer >= 0, got \"2.5\""}},
        {kHead + "checkpoint:\n  every_steps: 99999999999\n",
         {"job.yaml:7: checkpoint.every_steps: is out of range (at most 2147483647)"}},
        {kHead + "checkpoint:\n  every_time: -0.5\n",
         {"job.yaml:7: checkpoint.every_time: must be >= 0, got \"-0.5\""}},
        {kHead + "checkpoint:\n  every_time: .nan\n",
         {"job.yaml:7: checkpoint.every_time: must be finite"}},
        {kHead + "checkpoint:\n  every_wall_seconds: -600\n",
         {"job.yaml:7: checkpoint.every_wall_seconds: must be >= 0, got \"-600\""}},
        {kHead + "checkpoint:\n  every_wall_seconds: .inf\n",
         {"job.yaml:7: checkpoint.every_wall_seconds: must be finite"}},
        {kHead + "checkpoint:\n  every_wall_seconds: soon\n",
         {"job.yaml:7: checkpoint.every_wall_seconds: expected a number, got \"soon\""}},
        {kHead + "checkpoint:\n  keep: 0\n",
         {"job.yaml:7: checkpoint.keep: expected a positive integer, got \"0\""}},
        {kHead + "checkpoint:\n  keep: two\n",
         {"job.yaml:7: checkpoint.keep: expected a positive integer, got \"two\""}},
        {kHead + "checkpoint:\n  keep: 1\n  keep: 2\n",
         {"job.yaml:8: checkpoint.keep: duplicate key (first given on line 7)"}},
    }},
    {"ProgressEvery", {
        {kHead + "output: {progress_every: 0}\n",
         {"job.yaml:6: output.progress_every: expected an integer from 1 to"}},
        {kHead + "output: {progress_every: 2.5}\n",
         {"job.yaml:6: output.progress_every: expected an integer >= 1, got \"2.5\""}},
    }},
    {"DebugErrors", {
        {kHead + "debug: [true]\n", {"job.yaml:6: debug: expected a map, got a list"}},
        {kHead + "debug:\n  dump_on_failure: sometimes\n",
         {"job.yaml:7: debug.dump_on_failure: expected true or false, got \"sometimes\""}},
        {kHead + "debug:\n  dump: true\n",
         {"job.yaml:7: debug.dump: unknown key (expected one of: dump_on_failure)"}},
    }},
    {"UnknownTopLevelKey", {
        {kHead + "gird: {}\n",
         {"job.yaml:6: gird: unknown key (expected one of: name, grid, boundary, velocity, "
          "scalars, fluid, advection, forces, obstacles, liquid, viscoelastic, fire, texture, "
          "time, pressure, diffusion, output, checkpoint, debug, catalyst, diagnostics, "
          "petsc_options, steering)"}},
    }},
    {"UnknownNestedKey", {
        {"grid:\n  cells: [8, 8]\n  cels: 3\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:3: grid.cels: unknown key (expected one of: cells, cells_per_rank, size, "
          "origin, halo)"}},
        {kHead + "scalars:\n  density:\n    initial:\n"
         "      - {shape: sphere, center: [0, 0], radus: 1, value: 1}\n",
         {"job.yaml:9: scalars.density.initial[0].radus: unknown key"}},
        // A key that exists for another type is unknown for this one.
        {kHead + "boundary:\n  y:\n    lower: {type: free-slip, velocity: [1, 0]}\n",
         {"job.yaml:8: boundary.y.lower.velocity: unknown key for type 'free-slip' "
          "(expected one of: type, scalars, fluxes)"}},
        {kHead + "boundary:\n  x:\n    upper: {type: outflow, scalars: {}}\n",
         {"job.yaml:8: boundary.x.upper.scalars: unknown key for type 'outflow' "
          "(expected one of: type)"}},
        // ... and so is a key that another shape takes.
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], radius: 1}\n",
         {"job.yaml:7: obstacles[0].radius: unknown key for shape 'box' (expected one of: "
          "shape, lower, upper, boundary, surface, scalars, fluxes, motion, floating)"}},
        {kHead + "obstacles:\n  - {shape: sphere, center: [0, 0], radius: 1, axis: z}\n",
         {"job.yaml:7: obstacles[0].axis: unknown key for shape 'sphere' (expected one of: "
          "shape, center, radius, boundary, surface, scalars, fluxes, motion, floating)"}},
        {kHead + "forces: {gravty: [0, -1]}\n",
         {"job.yaml:6: forces.gravty: unknown key (expected one of: gravity, buoyancy, "
          "vorticity_confinement, wind, regions, noise)"}},
        {kHead + "forces:\n  buoyancy: {alpha: 0, gamma: 1}\n",
         {"job.yaml:7: forces.buoyancy.gamma: unknown key"}},
        {kHead + "pressure: {rtol: 1e-6}\n",
         {"job.yaml:6: pressure.rtol: unknown key (expected one of: solver, tolerance, "
          "absolute_tolerance, max_iterations, max_divergence)"}},
        {kHead + "diffusion: {max_divergence: 1e-6}\n",
         {"job.yaml:6: diffusion.max_divergence: unknown key (expected one of: solver, "
          "tolerance, absolute_tolerance, max_iterations)"}},
        {kHead + "fluid: {nu: 0.1}\n",
         {"job.yaml:6: fluid.nu: unknown key (expected one of: viscosity)"}},
        {kHead + "scalars:\n  s:\n    sources:\n"
         "      - {shape: sphere, center: [0, 0], radius: 1, value: 1, rate: 2}\n",
         {"job.yaml:9: scalars.s.sources[0].rate: unknown key"}},
    }},
    {"DuplicateKey", {
        {kHead + "time: {dt: 1, end: 2}\n", {"job.yaml:6: time: duplicate key"}},
        {kHead + "velocity:\n  initial: {type: zero, type: vortex}\n",
         {"job.yaml:7: velocity.initial.type: duplicate key"}},
        {kHead + "scalars:\n  a: {}\n  a: {}\n", {"job.yaml:8: scalars.a: duplicate key"}},
    }},
    {"TheFirstErrorInAMapStopsParsing", {
        // An unknown key is reported where it stands, before a duplicate key further down.
        {kHead + "fluid:\n  viscosty: 1\n  viscosity: 1\n  viscosity: 2\n",
         {"job.yaml:7: fluid.viscosty: unknown key (expected one of: viscosity)"}},
        {kHead + "fluid:\n  viscosity: 1\n  viscosity: 2\n  viscosty: 1\n",
         {"job.yaml:8: fluid.viscosity: duplicate key (first given on line 7)"}},
        // Keys another shape takes are reported after the keys no shape takes.
        {kHead + "obstacles:\n  - {shape: box, radius: 1, lower: [0, 0], upper: [1, 1], size: 2}\n",
         {"job.yaml:7: obstacles[0].size: unknown key (expected one of: shape, center, "
          "radius, axis, lower, upper, file, scale, boundary, surface, scalars, fluxes, "
          "motion, floating)"}},
    }},
    {"WrongNodeType", {
        {"grid: {cells: [8, 8]}\ntime: 5\n", {"job.yaml:2: time: expected a map"}},
        {"grid:\n  cells: 8\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.cells: expected a list of 2 or 3 integers, got \"8\""}},
        {"grid: {cells: [8]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.cells: expected a list of 2 or 3 integers, got a list of 1 entry"}},
        {"grid: {cells: [8, 8, 8, 8]}\ntime: {dt: 1, end: 1}\n",
         {"grid.cells: expected a list of 2 or 3 integers"}},
        {"grid: {cells: [8, [8]]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.cells[1]: expected a positive integer, got a list"}},
        {kHead + "output: {initial_frame: maybe}\n",
         {"job.yaml:6: output.initial_frame: expected true or false, got \"maybe\""}},
        {kHead + "name: [a]\n", {"job.yaml:6: name: expected a string"}},
        {kHead + "scalars:\n  dye: {initial: {shape: box}}\n",
         {"job.yaml:7: scalars.dye.initial: expected a list of blobs"}},
        {kHead + "output:\n  interval:\n",
         {"job.yaml:7: output.interval: expected a number, got nothing"}},
    }},
    {"NegativeCellCount", {
        {"grid:\n  cells: [8, -4]\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.cells[1]: expected a positive integer, got \"-4\""}},
        {"grid:\n  cells: [0, 4]\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.cells[0]: expected a positive integer, got \"0\""}},
    }},
    {"NonIntegerCellCount", {
        {"grid:\n  cells: [8, 2.5]\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.cells[1]: expected a positive integer, got \"2.5\""}},
        {"grid:\n  cells: [1e3, 8]\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.cells[0]: expected a positive integer, got \"1e3\""}},
        {"grid:\n  cells: [8, 8abc]\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.cells[1]: expected a positive integer, got \"8abc\""}},
        {"grid:\n  cells: [8, 2147483648]\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.cells[1]: is out of range", "2147483648"}},
        {"grid:\n  cells: [8, 99999999999999999999]\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.cells[1]: is out of range", "99999999999999999999"}},
    }},
    {"NanAndInfinityAreRejected", {
        {"grid: {cells: [8, 8]}\ntime:\n  dt: .nan\n  end: 1\n",
         {"job.yaml:3: time.dt: must be finite, got \".nan\""}},
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  end: .inf\n",
         {"job.yaml:4: time.end: must be finite, got \".inf\""}},
        {"grid: {cells: [8, 8], origin: [-.Inf, 0]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.origin[0]: must be finite, got \"-.Inf\""}},
        {kHead + "scalars: {s: {background: nan}}\n",
         {"job.yaml:6: scalars.s.background: must be finite, got \"nan\""}},
        {kHead + "scalars: {s: {background: -infinity}}\n",
         {"scalars.s.background: must be finite"}},
        {kHead + "scalars: {s: {background: 1e999}}\n",
         {"scalars.s.background: is out of the range of a double, got \"1e999\""}},
        {kHead + "scalars: {s: {background: 1.0abc}}\n",
         {"job.yaml:6: scalars.s.background: expected a number, got \"1.0abc\""}},
        {kHead + "scalars: {s: {background: 0x10}}\n",
         {"scalars.s.background: expected a number, got \"0x10\""}},
    }},
    {"OtherOutOfRangeNumbers", {
        {"grid: {cells: [8, 8], size: [1, 0]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.size[1]: must be > 0, got \"0\""}},
        {"grid: {cells: [8, 8]}\ntime:\n  dt: -0.1\n  end: 1\n",
         {"job.yaml:3: time.dt: must be > 0, got \"-0.1\""}},
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 0.5\n  end: 0.25\n",
         {"job.yaml:4: time.end: must be at least time.dt = 0.5, got \"0.25\""}},
        {kHead + "output:\n  interval: -1\n",
         {"job.yaml:7: output.interval: must be >= 0, got \"-1\""}},
        {kHead + "velocity:\n  initial: {type: vortex, center: [0, 0], radius: 0, strength: 1}\n",
         {"job.yaml:7: velocity.initial.radius: must be > 0, got \"0\""}},
    }},
    {"HaloOutOfRange", {
        {"grid:\n  cells: [32, 32]\n  halo: 0\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:3: grid.halo: must be between 1 and 16, got \"0\""}},
        {"grid:\n  cells: [32, 32]\n  halo: 17\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:3: grid.halo: must be between 1 and 16, got \"17\""}},
        {"grid:\n  cells: [32, 32]\n  halo: 2.0\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:3: grid.halo: expected an integer, got \"2.0\""}},
    }},
    {"HaloLargerThanCells", {
        {"grid:\n  cells: [8, 4]\n  halo: 5\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:3: grid.halo: halo 5 exceeds the smallest cell count 4"}},
        {"grid:\n  cells: [8, 2, 8]\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.halo: halo 3 (the default) exceeds the smallest cell count 2"}},
    }},
    {"PeriodicOnOneSideOnly", {
        {kHead + "boundary:\n  x:\n    lower: periodic\n    upper: no-slip\n",
         {"job.yaml:8: boundary.x: periodic must be on both sides (lower is periodic, upper "
          "is no-slip)"}},
        {kHead + "boundary:\n  y: {upper: periodic}\n",
         {"job.yaml:7: boundary.y: periodic must be on both sides"}},
    }},
    {"UnknownBoundaryType", {
        {kHead + "boundary:\n  x: noslip\n",
         {"job.yaml:7: boundary.x: unknown boundary type (expected one of: periodic, "
          "no-slip, free-slip, inflow, outflow), got \"noslip\""}},
    }},
    {"PlainInflowNeedsAMap", {
        {kHead + "boundary:\n  x: inflow\n", {"job.yaml:7: boundary.x: inflow needs a map"}},
        {kHead + "boundary:\n  x:\n    lower: inflow\n",
         {"job.yaml:8: boundary.x.lower: inflow needs a map"}},
        {kHead + "boundary:\n  x:\n    lower: {type: inflow}\n",
         {"job.yaml:8: boundary.x.lower.velocity: missing required key"}},
    }},
    {"InflowMustPointIntoTheDomain", {
        {kHead + "boundary:\n  y:\n    upper: {type: inflow, velocity: [0.0, 1.0]}\n",
         {"job.yaml:8: boundary.y.upper.velocity: inflow velocity must point into the domain"}},
        // A purely tangential velocity would blow fluid along a wall, not into the domain.
        {kHead + "boundary:\n  x:\n    lower: {type: inflow, velocity: [0, 1]}\n",
         {"job.yaml:8: boundary.x.lower.velocity: inflow velocity must point into the domain"}},
        {kHead + "boundary:\n  x:\n    lower: {type: inflow, velocity: [-1, 0]}\n",
         {"boundary.x.lower.velocity: inflow velocity must point into the domain"}},
    }},
    {"InflowWithUnknownScalar", {
        {kHead + "scalars: {density: {}}\nboundary:\n  y:\n"
         "    upper: {type: inflow, velocity: [0, -1], scalars: {smoke: 1}}\n",
         {"job.yaml:9: boundary.y.upper.scalars.smoke: unknown scalar 'smoke' (declared "
          "scalars: density)"}},
        {kHead + "boundary:\n  y:\n"
         "    upper: {type: inflow, velocity: [0, -1], scalars: {smoke: 1}}\n",
         {"boundary.y.upper.scalars.smoke: unknown scalar 'smoke' (no scalars are declared)"}},
    }},
    {"InflowWithUnknownProfile", {
        {kHead + "boundary:\n  y:\n    upper: {type: inflow, velocity: [0, -1], profile: cubic}\n",
         {"job.yaml:8: boundary.y.upper.profile: unknown profile (expected one of: "
          "uniform, parabolic), got \"cubic\""}},
    }},
    {"ZBoundaryIn2D", {
        {kHead + "boundary:\n  x: periodic\n  z: periodic\n",
         {"job.yaml:8: boundary.z: the grid is 2-D"}},
    }},
    {"VectorOfWrongLength", {
        {"grid: {cells: [8, 8], size: [1, 1, 1]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.size: expected a list of 2 numbers, got a list of 3 entries"}},
        {"grid: {cells: [8, 8, 8], origin: [0, 0]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.origin: expected a list of 3 numbers, got a list of 2 entries"}},
        {kHead + "velocity:\n  initial: {type: vortex, center: [0.5], radius: 1, strength: 1}\n",
         {"job.yaml:7: velocity.initial.center: expected a list of 2 numbers"}},
        {kHead + "boundary:\n  y:\n    upper: {type: inflow, velocity: [0, -1, 0]}\n",
         {"job.yaml:8: boundary.y.upper.velocity: expected a list of 2 numbers"}},
        {kHead + "scalars:\n  s:\n    initial:\n"
         "      - {shape: box, lower: [0, 0], upper: 1, value: 1}\n",
         {"job.yaml:9: scalars.s.initial[0].upper: expected a list of 2 numbers, got \"1\""}},
    }},
    {"BoxWithLowerNotBelowUpper", {
        {kHead + "scalars:\n  density:\n    initial:\n"
         "      - {shape: sphere, center: [0, 0], radius: 1, value: 1}\n"
         "      - {shape: box, lower: [0.1, 0.3], upper: [0.2, 0.3], value: 1}\n",
         {"job.yaml:10: scalars.density.initial[1].upper[1]: must be greater than "
          "lower[1] = 0.3, got \"0.3\""}},
    }},
    {"UnknownShapeAndVelocityType", {
        {kHead + "scalars: {s: {initial: [{shape: cone, value: 1}]}}\n",
         {"job.yaml:6: scalars.s.initial[0].shape: unknown shape (expected one of: sphere, "
          "box, cylinder), got \"cone\""}},
        {kHead + "velocity: {initial: {type: swirl}}\n",
         {"job.yaml:6: velocity.initial.type: unknown type (expected one of: zero, "
          "uniform, vortex, taylor_green), got \"swirl\""}},
        {kHead + "scalars: {s: {initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}}\n",
         {"job.yaml:6: scalars.s.initial[0].value: missing required key"}},
    }},
    {"MissingRequiredKeys", {
        {"grid:\n  cells: [8, 8]\ntime:\n  end: 1.0\n",
         {"job.yaml:4: time.dt: missing required key (give dt for a fixed step, or cfl and "
          "dt_max for an adaptive one)"}},
        {"name: x\ngrid:\n  cells: [8, 8]\n", {"job.yaml:1: time: missing required key"}},
        {"time: {dt: 1, end: 1}\n", {"job.yaml:1: grid: missing required key"}},
        {"grid: {size: [1, 1]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.cells: missing required key"}},
    }},
    {"YamlSyntaxError", {
        {"grid:\n  cells: [8, 8\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:", ": YAML syntax error: end of sequence flow not found"}},
        {"grid:\n  cells: [8, 8]\n bad: 1\n",
         {"job.yaml:3: YAML syntax error: end of map not found"}},
    }},
    {"SecondYamlDocument", {
        {kHead + "---\nname: other\n", {"job.yaml:7: expected a single YAML document"}},
    }},
    {"TotalCellsOverflow", {
        // 3 x 1024 x 1024 x 683 = 2148532224 >= 2^31.
        {"grid:\n  cells: [1024, 1024, 683]\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.cells: 1024 x 1024 x 683 cells times 3 velocity components is "
          "2148532224 unknowns"}},
        {"grid:\n  cells: [46341, 46341]\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:2: grid.cells:", "4294976562 unknowns"}},
        // Beyond 64 bits the count is only printed approximately, but it must still be rejected.
        {"grid: {cells: [2000000000, 2000000000, 2000000000]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.cells: 2000000000 x 2000000000 x 2000000000 cells", "2.4e+28"}},
    }},

    // --- limits (jobs/README.md "Limits")
    {"EveryPhysicalValueIsAtMost1e30InMagnitude", {
        // Every kind of numeric key, each through the one reader they share.
        {kHead + "scalars: {s: {}}\nboundary: {x: {lower: {type: inflow, velocity: [1, 0], "
         "scalars: {s: 1e31}}}}\n",
         {"job.yaml:7: boundary.x.lower.scalars.s: " + kAtMost + "\"1e31\""}},
        {"grid: {cells: [8, 8], origin: [-1e31, 0]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.origin[0]: " + kAtMost + "\"-1e31\""}},
        {"grid: {cells: [8, 8], size: [1e31, 1]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.size[0]: " + kAtMost + "\"1e31\""}},
        {"grid: {cells: [8, 8]}\ntime: {dt: 1, end: 1e31}\n",
         {"job.yaml:2: time.end: " + kAtMost + "\"1e31\""}},
        {"grid: {cells: [8, 8]}\ntime: {cfl: 1e31, dt_max: 1, end: 1}\n",
         {"job.yaml:2: time.cfl: " + kAtMost + "\"1e31\""}},
        // The sign is checked before the size.
        {kHead + "fluid: {viscosity: -1e308}\n",
         {"job.yaml:6: fluid.viscosity: must be >= 0, got \"-1e308\""}},
    }},
    {"LengthsStepsTimesAndRatesAreAtLeast1e30th", {
        // 4.9e-324 is the smallest subnormal double.
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 4.9e-324\n  end: 1e-320\n",
         {"job.yaml:3: time.dt: " + kAtLeast + "\"4.9e-324\""}},
        {"grid: {cells: [8, 8], size: [1, 4.9e-324]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.size[1]: " + kAtLeast + "\"4.9e-324\""}},
        {"grid: {cells: [8, 8]}\ntime: {dt: 1e-31, end: 1}\n",
         {"job.yaml:2: time.dt: " + kAtLeast + "\"1e-31\""}},
        {"grid: {cells: [8, 8]}\ntime: {cfl: 1, dt_max: 1, end: 1e-31}\n",
         {"job.yaml:2: time.end: " + kAtLeast + "\"1e-31\""}},
        {"grid: {cells: [8, 8]}\ntime: {cfl: 1e-31, dt_max: 1, end: 1}\n",
         {"job.yaml:2: time.cfl: " + kAtLeast + "\"1e-31\""}},
        {"grid: {cells: [8, 8]}\ntime: {cfl: 1, dt_max: 2.2e-308, end: 1}\n",
         {"job.yaml:2: time.dt_max: " + kAtLeast + "\"2.2e-308\""}},
        {"grid: {cells: [8, 8]}\ntime: {cfl: 1, dt_min: 1e-300, dt_max: 1, end: 1}\n",
         {"job.yaml:2: time.dt_min: " + kZeroOr + "\"1e-300\""}},
        {kHead + "output: {interval: 1e-300}\n",
         {"job.yaml:6: output.interval: " + kZeroOr + "\"1e-300\""}},
        {kHead + "checkpoint: {every_time: 1e-300}\n",
         {"job.yaml:6: checkpoint.every_time: " + kZeroOr + "\"1e-300\""}},
        {kHead + "forces: {wind: {velocity: [1, 0], rate: 1e-31}}\n",
         {"job.yaml:6: forces.wind.rate: " + kAtLeast + "\"1e-31\""}},
        {kHead + "velocity: {initial: {type: vortex, center: [0, 0], radius: 1e-31, "
         "strength: 1}}\n",
         {"job.yaml:6: velocity.initial.radius: " + kAtLeast + "\"1e-31\""}},
        {kHead + "obstacles: [{shape: sphere, center: [0, 0], radius: 5e-324}]\n",
         {"job.yaml:6: obstacles[0].radius: " + kAtLeast + "\"5e-324\""}},
    }},
    {"CellsMustBeResolvableAtTheirCoordinates", {
        // 1 / 8 = 0.125 per cell, 1e-12 of 1e20 is 1e8.
        {"grid: {cells: [8, 8], origin: [1e20, 0]}\ntime: {dt: 1, end: 1}\n",
         {"job.yaml:1: grid.origin[0]: the cells along x are 0.125 wide (size / cells), less "
          "than 1e-12 of the largest |coordinate| on that axis, 1e+20: a double could not "
          "tell positions within a cell apart"}},
        {"grid:\n  cells: [8, 8, 8]\n  size: [1, 1, 1]\n  origin: [0, 0, -2e11]\n"
         "time: {dt: 1, end: 1}\n",
         {"job.yaml:4: grid.origin[2]: the cells along z are 0.125 wide (size / cells), less "
          "than 1e-12 of the largest |coordinate| on that axis, 2e+11: a double could not "
          "tell positions within a cell apart"}},
    }},
    {"FramesFitTheirSixDigitNumbers", {
        // 1 / 1e-6 = 10^6 output times, and the initial frame: 000000 to 1000000.
        {kHead + "output:\n  interval: 1e-6\n",
         {"job.yaml:7: output.interval: time.end / output.interval gives 1000001 frames "
          "(with the initial one), more than the 1000000 that 6-digit frame numbers "
          "(<name>_NNNNNN.h5) allow, got \"1e-6\""}},
        {kHead + "output:\n  interval: 1e-12\n  initial_frame: false\n",
         {"job.yaml:7: output.interval: time.end / output.interval gives 1e+12 frames, "
          "more than the 1000000 that 6-digit frame numbers (<name>_NNNNNN.h5) allow, got "
          "\"1e-12\""}},
    }},
    {"StepsFitTheirEightDigitNumbers", {
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 1e-9\n  end: 1\n",
         {"job.yaml:3: time.dt: time.end / time.dt gives 1e+09 steps" + kStepsAllow + "\"1e-9\""}},
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 1e-8\n  end: 1\n",
         {"job.yaml:3: time.dt: time.end / time.dt gives 1e+08 steps" + kStepsAllow + "\"1e-8\""}},
        // A step cut short to land on an output time may add one more per output time.
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 1e-8\n  end: 0.99999999\noutput: {interval: 0.1}\n",
         {"job.yaml:3: time.dt: time.end / time.dt gives 99999999 steps and up to 9 more cut "
          "short at output times" + kStepsAllow + "\"1e-8\""}},
        // An adaptive step is at most dt_max, so it takes at least end / dt_max steps.
        {"grid: {cells: [8, 8]}\ntime:\n  cfl: 1\n  dt_max: 1e-9\n  end: 1\n",
         {"job.yaml:4: time.dt_max: time.end / time.dt_max gives at least 1e+09 steps" +
          kStepsAllow + "\"1e-9\""}},
    }},
    {"NameLeavesRoomForTheFileNamesDerivedFromIt", {
        // 255 bytes less "_failed_step" + 10 digits + "_000000.h5.tmp".
        {kHead + "name: " + kLongestName + "x\n",
         {"job.yaml:6: name: is 220 characters long, more than 219: the longest file name a "
          "run derives from it, <name>_failed_step<step>_000000.h5.tmp, must fit in 255 bytes"}},
    }},

    // --- names
    {"BadScalarName", {
        {kHead + "scalars:\n  2fast: {}\n",
         {"job.yaml:7: scalars.2fast: invalid scalar name '2fast'"}},
        {kHead + "scalars:\n  my-dye: {}\n", {"scalars.my-dye: invalid scalar name"}},
    }},
    {"BadRunName", {
        {kHead + "name: a/b\n", {"job.yaml:6: name: must be a non-empty name", "\"a/b\""}},
        {kHead + "name: \"\"\n", {"job.yaml:6: name: must be a non-empty name"}},
    }},
    {"SourceAppearsVerbatim", {
        {kHead + "gird: 1\n", {"some/dir/plume 3d.yaml:6: gird: unknown key"},
         "some/dir/plume 3d.yaml"},
    }},

    // --- time
    {"TimeScheme", {
        {"grid: {cells: [8, 8]}\ntime:\n  scheme: bdf3\n  dt: 0.1\n  end: 1\n",
         {"job.yaml:3: time.scheme: unknown scheme (expected one of: stam, bdf2), got "
          "\"bdf3\""}},
        {"grid: {cells: [8, 8]}\nadvection: {scheme: bfecc}\n"
         "time:\n  scheme: bdf2\n  dt: 0.1\n  end: 1\n",
         {"job.yaml:4: time.scheme: bdf2 needs advection.scheme: semi_lagrangian (for second "
          "order in space use advection.interpolation: cubic), but advection.scheme is bfecc"}},
    }},
    {"SteadyStop", {
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  end: 1\n  steady: {tolerance: 0}\n",
         {"job.yaml:5: time.steady.tolerance: must be > 0, got \"0\""}},
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  end: 1\n  steady: {}\n",
         {"job.yaml:5: time.steady.tolerance: missing required key"}},
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  end: 1\n  steady: {tolerence: 1}\n",
         {"job.yaml:5: time.steady.tolerence: unknown key"}},
    }},
    {"DtAndCflTogether", {
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  cfl: 1\n  dt_max: 1\n  end: 1\n",
         {"job.yaml:4: time.cfl: give either dt (a fixed step) or cfl (an adaptive step), "
          "not both (time.dt is given on line 3)"}},
    }},
    {"NeitherDtNorCfl", {
        {"grid: {cells: [8, 8]}\ntime:\n  dt_max: 0.1\n  end: 1\n",
         {"job.yaml:3: time.dt: missing required key (give dt for a fixed step, or cfl "
          "and dt_max for an adaptive one)"}},
    }},
    {"CflWithoutDtMax", {
        {"grid: {cells: [8, 8]}\ntime:\n  cfl: 2\n  end: 1\n",
         {"job.yaml:3: time.dt_max: missing required key (an adaptive step, time.cfl, "
          "needs dt_max"}},
    }},
    {"DtMinAboveDtMax", {
        {"grid: {cells: [8, 8]}\ntime:\n  cfl: 2\n  dt_min: 0.1\n  dt_max: 0.05\n  end: 1\n",
         {"job.yaml:4: time.dt_min: must be at most time.dt_max = 0.05, got \"0.1\""}},
    }},
    {"StepBoundsWithFixedDt", {
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  dt_min: 0.01\n  end: 1\n",
         {"job.yaml:4: time.dt_min: is only used with an adaptive step (time.cfl), not "
          "with a fixed time.dt"}},
        {"grid: {cells: [8, 8]}\ntime:\n  dt: 0.1\n  dt_max: 0.2\n  end: 1\n",
         {"job.yaml:4: time.dt_max: is only used with an adaptive step"}},
    }},
    {"AdaptiveStepOutOfRange", {
        {"grid: {cells: [8, 8]}\ntime:\n  cfl: 0\n  dt_max: 1\n  end: 1\n",
         {"job.yaml:3: time.cfl: must be > 0, got \"0\""}},
        {"grid: {cells: [8, 8]}\ntime:\n  cfl: .inf\n  dt_max: 1\n  end: 1\n",
         {"job.yaml:3: time.cfl: must be finite, got \".inf\""}},
        {"grid: {cells: [8, 8]}\ntime:\n  cfl: 1\n  dt_max: 0\n  end: 1\n",
         {"job.yaml:4: time.dt_max: must be > 0, got \"0\""}},
        {"grid: {cells: [8, 8]}\ntime:\n  cfl: 1\n  dt_min: -1\n  dt_max: 1\n  end: 1\n",
         {"job.yaml:4: time.dt_min: must be >= 0, got \"-1\""}},
        {"grid: {cells: [8, 8]}\ntime:\n  cfl: 1\n  dt_max: 1\n  end: 0\n",
         {"job.yaml:5: time.end: must be > 0, got \"0\""}},
        {"grid: {cells: [8, 8]}\ntime:\n  cfl: 1\n  dt_max: 1\n",
         {"job.yaml:3: time.end: missing required key"}},
    }},

    // --- fluid and advection
    {"NegativeViscosity", {
        {kHead + "fluid:\n  viscosity: -0.001\n",
         {"job.yaml:7: fluid.viscosity: must be >= 0, got \"-0.001\""}},
    }},
    {"VariableViscosity", {
        {kHead + "fluid:\n  viscosity: {from: heat, values: [[0, 1]]}\n",
         {"job.yaml:7: fluid.viscosity.from: unknown scalar 'heat' (no scalars are declared)"}},
        {kHead + "scalars: {t: {}}\nfluid:\n  viscosity: {from: t}\n",
         {"job.yaml:8: fluid.viscosity.values: missing required key"}},
        {kHead + "scalars: {t: {}}\nfluid:\n  viscosity: {from: t, value: 1}\n",
         {"job.yaml:8: fluid.viscosity.value: unknown key (expected one of: from, values, "
          "average)"}},
        {kHead + "scalars: {t: {}}\nfluid:\n  viscosity: {from: t, values: []}\n",
         {"job.yaml:8: fluid.viscosity.values: expected a list of [value, viscosity] pairs"}},
        {kHead + "scalars: {t: {}}\nfluid:\n  viscosity: {from: t, values: [[0, 1, 2]]}\n",
         {"job.yaml:8: fluid.viscosity.values[0]: expected a pair [value of t, viscosity]"}},
        {kHead + "scalars: {t: {}}\nfluid:\n  viscosity:\n    from: t\n    values:\n"
                 "      - [1, 100]\n      - [1, 1]\n",
         {"job.yaml:12: fluid.viscosity.values[1][0]: the values of t must increase from pair "
          "to pair, got \"1\""}},
        {kHead + "scalars: {t: {}}\nfluid:\n  viscosity: {from: t, values: [[0, 0]]}\n",
         {"job.yaml:8: fluid.viscosity.values[0][1]: must be > 0, got \"0\""}},
        {kHead + "scalars: {t: {}}\nfluid:\n  viscosity: {from: t, values: [[0, 1]], "
                 "average: arithmetic}\n",
         {"job.yaml:8: fluid.viscosity.average: unknown average (expected one of: geometric, "
          "harmonic), got \"arithmetic\""}},
        {kHead + "scalars: {t: {}}\nfluid:\n  viscosity: {from: t, values: [[0, 1]]}\n"
                 "obstacles:\n  - {shape: sphere, center: [0.5, 0.5], radius: 0.2, "
                 "surface: cut}\n",
         {"job.yaml:10: obstacles[0].surface: a viscosity that follows a scalar has no cut faces "
          "yet (fluid.viscosity on line 8): give this obstacle surface: staircase"}},
        {kHead + "scalars: {t: {}}\nfluid: {viscosity: {from: t, values: [[0, 1]]}}\n"
                 "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}\n"
                 "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
                 " floating: {density: 0.5}}\n",
         {"job.yaml:10: obstacles[0].floating: a floating body's drag needs a constant "
          "viscosity, but this one follows a scalar (fluid.viscosity on line 7)"}},
    }},
    {"UnknownAdvectionSchemeOrInterpolation", {
        {kHead + "advection:\n  scheme: maccormak\n",
         {"job.yaml:7: advection.scheme: unknown scheme (expected one of: semi_lagrangian, "
          "maccormack, bfecc), got \"maccormak\""}},
        {kHead + "advection:\n  interpolation: quintic\n",
         {"job.yaml:7: advection.interpolation: unknown interpolation (expected one of: "
          "linear, monotone_cubic, cubic), got \"quintic\""}},
    }},
    {"MonotoneCubicNeedsHaloTwo", {
        {"grid: {cells: [8, 8], halo: 1}\ntime: {dt: 1, end: 1}\n"
         "advection:\n  interpolation: monotone_cubic\n",
         {"job.yaml:4: advection.interpolation: monotone_cubic needs grid.halo >= 2, but "
          "grid.halo is 1"}},
        {"grid: {cells: [8, 8], halo: 1}\ntime: {dt: 1, end: 1}\n"
         "advection:\n  interpolation: cubic\n",
         {"job.yaml:4: advection.interpolation: cubic needs grid.halo >= 2, but "
          "grid.halo is 1"}},
    }},

    // --- forces
    {"VorticityConfinementNeedsHaloTwo", {
        {"grid: {cells: [8, 8], halo: 1}\ntime: {dt: 1, end: 1}\n"
         "forces:\n  vorticity_confinement: 0.5\n",
         {"job.yaml:4: forces.vorticity_confinement: vorticity confinement needs "
          "grid.halo >= 2, but grid.halo is 1"}},
        {kHead + "forces: {vorticity_confinement: -1}\n",
         {"job.yaml:6: forces.vorticity_confinement: must be >= 0, got \"-1\""}},
    }},
    {"BuoyancyNamesUndeclaredScalar", {
        // A name the job gives is reported where it is given...
        {kHead + "scalars: {smoke: {}}\nforces:\n  buoyancy:\n    density: soot\n    alpha: 0.1\n",
         {"job.yaml:9: forces.buoyancy.density: unknown scalar 'soot' (declared scalars: "
          "smoke); it is needed because forces.buoyancy.alpha is not 0"}},
        // ... and a default name at the coefficient that makes it needed.
        {kHead + "forces:\n  buoyancy:\n    beta: 2\n",
         {"job.yaml:8: forces.buoyancy.beta: is not 0, so it needs the scalar "
          "'temperature' (the default of forces.buoyancy.temperature), which is not "
          "declared (no scalars are declared); declare it under scalars, or name another "
          "scalar with forces.buoyancy.temperature"}},
        {kHead + "scalars: {temperature: {}}\nforces:\n  buoyancy:\n    alpha: -1\n",
         {"job.yaml:9: forces.buoyancy.alpha: is not 0, so it needs the scalar 'density'",
          "declared scalars: temperature"}},
    }},
    {"BuoyancyBadValues", {
        {kHead + "forces:\n  buoyancy:\n    up: [0, 0]\n",
         {"job.yaml:8: forces.buoyancy.up: must not be the zero vector"}},
        {kHead + "forces:\n  buoyancy:\n    up: [0, 0, 1]\n",
         {"job.yaml:8: forces.buoyancy.up: expected a list of 2 numbers"}},
        {kHead + "forces:\n  buoyancy:\n    beta: .nan\n",
         {"job.yaml:8: forces.buoyancy.beta: must be finite"}},
        {kHead + "forces:\n  buoyancy:\n    density: [a]\n",
         {"job.yaml:8: forces.buoyancy.density: expected a string"}},
        {kHead + "forces:\n  buoyancy: 1\n", {"job.yaml:7: forces.buoyancy: expected a map"}},
    }},
    {"WindNeedsAPositiveRate", {
        {kHead + "forces:\n  wind:\n    velocity: [1, 0]\n",
         {"job.yaml:8: forces.wind.rate: missing required key"}},
        {kHead + "forces:\n  wind:\n    velocity: [1, 0]\n    rate: 0\n",
         {"job.yaml:9: forces.wind.rate: must be > 0, got \"0\""}},
        {kHead + "forces:\n  wind:\n    velocity: [1, 0]\n    rate: -2\n",
         {"job.yaml:9: forces.wind.rate: must be > 0, got \"-2\""}},
        {kHead + "forces:\n  wind:\n    rate: 1\n",
         {"job.yaml:8: forces.wind.velocity: missing required key"}},
        {kHead + "forces:\n  wind:\n", {"job.yaml:7: forces.wind.velocity: missing required key"}},
        {kHead + "forces:\n  wind:\n    velocity: [1, 0]\n    rate: 1\n"
         "    region: {shape: sphere, center: [0, 0]}\n",
         {"job.yaml:10: forces.wind.region.radius: missing required key"}},
    }},
    {"ForceRegionWithoutAcceleration", {
        {kHead + "forces:\n  regions:\n    - {shape: sphere, center: [0, 0], radius: 1}\n",
         {"job.yaml:8: forces.regions[0].acceleration: missing required key"}},
        {kHead + "forces:\n  regions:\n"
         "    - {shape: sphere, center: [0, 0], radius: 1, acceleration: [1]}\n",
         {"job.yaml:8: forces.regions[0].acceleration: expected a list of 2 numbers"}},
        {kHead + "forces:\n  regions: {shape: sphere}\n",
         {"job.yaml:7: forces.regions: expected a list of force regions, got a map"}},
        {kHead + "forces:\n  gravity: [0, -9.81, 0]\n",
         {"job.yaml:7: forces.gravity: expected a list of 2 numbers"}},
    }},

    {"ScriptedSourceOrForceOutOfOrder", {
        {kHead + "forces:\n  regions:\n    - {shape: sphere, center: [0, 0], radius: 1, "
         "acceleration: [1, 0], start: 2, end: 1}\n",
         {"job.yaml:8: forces.regions[0].end: must be after start (2), got \"1\""}},
        {kHead + "forces:\n  regions:\n    - shape: sphere\n      center: [0, 0]\n"
         "      radius: 1\n      acceleration: [1, 0]\n      keyframes:\n"
         "        - {time: 1, factor: 0}\n",
         {"job.yaml:13: forces.regions[0].keyframes: needs at least two keyframes"}},
        {kHead + "forces:\n  regions:\n    - shape: sphere\n      center: [0, 0]\n"
         "      radius: 1\n      acceleration: [1, 0]\n      keyframes:\n"
         "        - {time: 1, factor: 0}\n        - {time: 1, factor: 2}\n",
         {"job.yaml:14: forces.regions[0].keyframes[1].time: must be later than the keyframe "
          "before it (t = 1)"}},
        {kHead + "scalars:\n  smoke:\n    sources:\n      - shape: sphere\n        center: [0, 0]\n"
         "        radius: 1\n        value: 1\n        keyframes:\n"
         "          - {time: 0, value: 1}\n          - {time: 1, value: 0}\n",
         {"job.yaml:14: scalars.smoke.sources[0].keyframes[0].value: unknown key (expected one "
          "of: time, factor, offset)"}},
        {kHead + "scalars:\n  smoke:\n    sources:\n      - shape: sphere\n        center: [0, 0]\n"
         "        radius: 1\n        value: 1\n        keyframes:\n"
         "          - {time: 0, offset: [1, 2, 3]}\n          - {time: 1}\n",
         {"job.yaml:14: scalars.smoke.sources[0].keyframes[0].offset: expected a list of 2 "
          "numbers"}},
    }},
    {"NoiseWithoutItsScalarOrScales", {
        {kHead + "forces:\n  noise: {amplitude: 1, scale: 0.1, period: 1}\n",
         {"job.yaml:7: forces.noise.amplitude: the noise is proportional to the scalar "
          "'density', which is not declared (no scalars are declared); name one with "
          "forces.noise.scalar"}},
        {kHead + "scalars:\n  smoke: {}\nforces:\n  noise: {scalar: soot, amplitude: 1, "
         "scale: 0.1, period: 1}\n",
         {"job.yaml:9: forces.noise.scalar: the noise is proportional to the scalar 'soot', "
          "which is not declared"}},
        {kHead + "scalars:\n  density: {}\nforces:\n  noise: {amplitude: 1, period: 1}\n",
         {"job.yaml:9: forces.noise.scale: missing required key"}},
        {kHead + "scalars:\n  density: {}\nforces:\n  noise: {amplitude: 1, scale: 0, "
         "period: 1}\n",
         {"job.yaml:9: forces.noise.scale: must be > 0, got \"0\""}},
        {kHead + "scalars:\n  density: {}\nforces:\n  noise: {amplitude: 1, scale: 1, "
         "period: 1, seed: -3}\n",
         {"job.yaml:9: forces.noise.seed: expected a non-negative integer"}},
        {kHead + "scalars:\n  density: {}\nforces:\n  noise: {amplitude: -1, scale: 1, "
         "period: 1}\n",
         {"job.yaml:9: forces.noise.amplitude: must be >= 0"}},
    }},

    {"FireWithoutItsScalarsOrAWayOut", {
        {kHead + "fire: {burn_rate: 1}\n",
         {"job.yaml:6: fire: the fire's fuel is the scalar 'fuel' (the default of fire.fuel), "
          "which is not declared (no scalars are declared)"}},
        {kHead + "scalars: {fuel: {}, temperature: {}}\nfire: {burn_rate: 1, soot: smoke}\n",
         {"job.yaml:7: fire.soot: unknown scalar 'smoke' (declared scalars: fuel, temperature)"}},
        {kHead + "scalars: {fuel: {}, temperature: {}}\nfire: {burn_rate: 1, soot_yield: 1}\n",
         {"job.yaml:7: fire.soot_yield: is not 0, so it needs a scalar for the soot"}},
        {kHead + "scalars: {fuel: {}, temperature: {}}\nfire: {burn_rate: 1, fuel: temperature}\n",
         {"job.yaml:7: fire: fuel, temperature and soot must be three different scalars"}},
        {kHead + "scalars: {fuel: {}, temperature: {}}\nfire: {heat: 1}\n",
         {"job.yaml:7: fire.burn_rate: missing required key"}},
        {kHead + "scalars: {fuel: {}, temperature: {}}\nfire: {burn_rate: 0}\n",
         {"job.yaml:7: fire.burn_rate: must be > 0"}},
        {kHead + "scalars: {fuel: {}, temperature: {}}\nfire: {burn_rate: 1, expansion: 0.5}\n",
         {"job.yaml:7: fire.expansion: the expanding gas needs a way out (with every side closed "
          "or periodic the projection would drop the expansion): give one side an outflow "
          "boundary, or set fire.expansion to 0"}},
        {kBdf2Head + "scalars: {fuel: {}, temperature: {}}\nfire: {burn_rate: 1}\n",
         {"job.yaml:6: time.scheme: fire runs with Stam's step only"}},
        {kHead + "boundary: {x: periodic, y: periodic}\nscalars: {heat: {}}\n"
         "fluid: {viscosity: {from: heat, values: [[0, 1]]}}\ndiffusion: {solver: fft}\n",
         {"job.yaml:9: diffusion.solver: a viscosity that follows a scalar is solved by Krylov "
          "iterations, and fft would diffuse the scalars only (fluid.viscosity on line 8): use "
          "solver: krylov"}},
        {kHead + "scalars: {fuel: {}, temperature: {}}\nfire: {burn_rate: 1, flame: 2}\n",
         {"job.yaml:7: fire.flame: unknown key (expected one of: fuel, temperature, soot, "
          "burn_rate, ignition_temperature, heat, soot_yield, expansion)"}},
        {kHead + "scalars: {fuel: {}, temperature: {}}\nfire: {burn_rate: 1}\n"
         "liquid: {interface: level_set, initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}\n",
         {"job.yaml:7: fire: fire burns in a gas: a job with a liquid cannot have one"}},
    }},
    {"TextureWithoutAPeriodOrWithATakenName", {
        {kHead + "texture: {}\n", {"job.yaml:6: texture.period: missing required key"}},
        {kHead + "texture: {period: -1}\n", {"job.yaml:6: texture.period: must be > 0"}},
        {kBdf2Head + "texture: {period: 1}\n",
         {"job.yaml:6: time.scheme: texture coordinates run with Stam's step only"}},
        {kHead + "boundary: {x: {lower: {type: inflow, velocity: [1, 0]}, upper: outflow}}\n"
         "texture: {period: 1}\n",
         {"job.yaml:7: texture: texture coordinates cannot enter through an inflow "
          "(boundary.x.lower)"}},
        {kHead + "scalars: {texture_b_y: {}}\ntexture: {period: 1}\n",
         {"job.yaml:7: texture: the texture coordinates are the scalars texture_a_* and "
          "texture_b_* (the job declares a scalar 'texture_b_y' itself): rename the job's "
          "scalar"}},
    }},

    // --- obstacles and regions
    {"ObstacleWithUnknownBoundary", {
        {kHead + "obstacles:\n  - {shape: sphere, center: [0, 0], radius: 1, boundary: outflow}\n",
         {"job.yaml:7: obstacles[0].boundary: unknown obstacle boundary (expected one of: "
          "no-slip, free-slip), got \"outflow\""}},
        {kHead + "obstacles: {shape: sphere}\n",
         {"job.yaml:6: obstacles: expected a list of obstacles, got a map"}},
        {kHead + "obstacles:\n  - {shape: sphere, center: [0, 0], radius: 1, surface: round}\n",
         {"job.yaml:7: obstacles[0].surface: unknown obstacle surface (expected one of: "
          "staircase, cut), got \"round\""}},
    }},
    {"CylinderAxis", {
        {kHead + "obstacles:\n  - {shape: cylinder, center: [0.5, 0.5], radius: 0.1, axis: x}\n",
         {"job.yaml:7: obstacles[0].axis: a cylinder in a 2-D job must run along z (it is "
          "then a disc), got \"x\""}},
        {"grid: {cells: [4, 4, 4]}\ntime: {dt: 1, end: 1}\nobstacles:\n"
         "  - {shape: cylinder, center: [0.5, 0.5, 0.5], radius: 0.1, axis: w}\n",
         {"job.yaml:4: obstacles[0].axis: unknown axis (expected one of: x, y, z), got \"w\""}},
        {kHead + "obstacles:\n  - {shape: cylinder, center: [0.5, 0.5], radius: 0}\n",
         {"job.yaml:7: obstacles[0].radius: must be > 0, got \"0\""}},
        {kHead + "obstacles:\n  - {shape: cylinder, radius: 1}\n",
         {"job.yaml:7: obstacles[0].center: missing required key"}},
    }},
    {"RegionsShareTheirChecks", {
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0.5], upper: [1, 0.5]}\n",
         {"job.yaml:7: obstacles[0].upper[1]: must be greater than lower[1] = 0.5"}},
        {kHead + "obstacles:\n  - {center: [0, 0], radius: 1}\n",
         {"job.yaml:7: obstacles[0].shape: missing required key"}},
        {kHead + "forces:\n  regions:\n    - {shape: cone, acceleration: [0, 1]}\n",
         {"job.yaml:8: forces.regions[0].shape: unknown shape (expected one of: sphere, "
          "box, cylinder), got \"cone\""}},
        {kHead + "obstacles:\n  - {shape: cone, center: [0, 0], radius: 1}\n",
         {"job.yaml:7: obstacles[0].shape: unknown obstacle shape (expected one of: sphere, "
          "box, cylinder, mesh), got \"cone\""}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], motion: "
                 "{keyframes: [{time: 0}]}}\n",
         {"job.yaml:7: obstacles[0].motion.keyframes: needs at least two keyframes"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], motion: "
                 "{keyframes: [{time: 1}, {time: 1}]}}\n",
         {"job.yaml:7: obstacles[0].motion.keyframes[1].time: must be later than the keyframe "
          "before it (t = 1)"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], motion: "
                 "{keyframes: [{time: 0}, {time: 1, angle: 1}], angular_velocity: 2}}\n",
         {"job.yaml:7: obstacles[0].motion.angular_velocity: turns the body as well as the "
          "keyframes' angles"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], motion: "
                 "{keyframes: [{time: 0}, {time: 1}], axis: [0, 0, 1]}}\n",
         {"job.yaml:7: obstacles[0].motion.axis: a 2-D body turns about z: no axis to give"}},
        {kHead3 + "obstacles:\n  - {shape: box, lower: [0, 0, 0], upper: [1, 1, 1], motion: "
                  "{keyframes: [{time: 0}, {time: 1, angle: 1}]}}\n",
         {"job.yaml:7: obstacles[0].motion.keyframes: keyframes with angles in 3D need an axis"}},
        {kHead3 + "obstacles:\n  - {shape: box, lower: [0, 0, 0], upper: [1, 1, 1], motion: "
                  "{velocity: [1, 0, 0], axis: [1, 0, 0]}}\n",
         {"job.yaml:7: obstacles[0].motion.axis: an axis needs keyframes"}},
        {kHead3 + "obstacles:\n  - {shape: mesh, center: [0, 0, 0]}\n",
         {"job.yaml:7: obstacles[0].file: missing required key"}},
        {kHead3 + "obstacles:\n  - {shape: mesh, file: a.stl, scale: -1}\n",
         {"job.yaml:7: obstacles[0].scale: must be > 0"}},
        {kHead3 + "obstacles:\n  - {shape: mesh, file: a.stl, radius: 1}\n",
         {"job.yaml:7: obstacles[0].radius: unknown key for shape 'mesh' (expected one of: "
          "shape, file, scale, center, boundary, surface, scalars, fluxes, motion, floating)"}},
        {kHead + "obstacles:\n  - {shape: sphere, center: [0, 0], radius: 1, value: 1}\n",
         {"job.yaml:7: obstacles[0].value: unknown key (expected one of: shape, center, "
          "radius, axis, lower, upper, file, scale, boundary, surface, scalars, fluxes, "
          "motion, floating)"}},
    }},

    // --- scalars
    {"SourceWithBadMode", {
        {kHead + "scalars:\n  s:\n    sources:\n"
         "      - {shape: sphere, center: [0, 0], radius: 1, mode: multiply, value: 1}\n",
         {"job.yaml:9: scalars.s.sources[0].mode: unknown mode (expected one of: set, "
          "add), got \"multiply\""}},
    }},
    {"SourceBadValues", {
        {kHead + "scalars:\n  s:\n    sources:\n"
         "      - {shape: sphere, center: [0, 0], radius: 1}\n",
         {"job.yaml:9: scalars.s.sources[0].value: missing required key"}},
        {kHead + "scalars:\n  s:\n    sources:\n"
         "      - {shape: sphere, center: [0, 0], radius: 1, value: .inf}\n",
         {"job.yaml:9: scalars.s.sources[0].value: must be finite"}},
        {kHead + "scalars:\n  s:\n    sources:\n"
         "      - {shape: sphere, center: [0, 0], radius: 1, value: 1, velocity: [0, 1, 0]}\n",
         {"job.yaml:9: scalars.s.sources[0].velocity: expected a list of 2 numbers"}},
        {kHead + "scalars:\n  s:\n    sources: 1\n",
         {"job.yaml:8: scalars.s.sources: expected a list of sources, got \"1\""}},
    }},
    {"NegativeScalarDiffusionOrDissipation", {
        {kHead + "scalars:\n  s:\n    diffusion: -1e-3\n",
         {"job.yaml:8: scalars.s.diffusion: must be >= 0, got \"-1e-3\""}},
        {kHead + "scalars:\n  s:\n    dissipation: -0.5\n",
         {"job.yaml:8: scalars.s.dissipation: must be >= 0, got \"-0.5\""}},
    }},

    // --- solvers
    {"SolverToleranceOutOfRange", {
        {kHead + "pressure:\n  tolerance: 1\n",
         {"job.yaml:7: pressure.tolerance: must be > 0 and < 1, got \"1\""}},
        {kHead + "pressure:\n  tolerance: 0\n",
         {"job.yaml:7: pressure.tolerance: must be > 0 and < 1, got \"0\""}},
        {kHead + "diffusion:\n  tolerance: 2.5\n",
         {"job.yaml:7: diffusion.tolerance: must be > 0 and < 1, got \"2.5\""}},
        {kHead + "diffusion:\n  absolute_tolerance: -1e-20\n",
         {"job.yaml:7: diffusion.absolute_tolerance: must be >= 0, got \"-1e-20\""}},
    }},
    {"PressureDivergenceTarget", {
        {kHead + "pressure:\n  max_divergence: 0\n",
         {"job.yaml:7: pressure.max_divergence: must be > 0, got \"0\""}},
        {kHead + "pressure:\n  tolerance: 1e-6\n  max_divergence: 1e-4\n",
         {"job.yaml:8: pressure.max_divergence: give either tolerance or max_divergence, not "
          "both (pressure.tolerance is given on line 7)"}},
        {kHead + "pressure:\n  max_divergence: 1e-4\n  absolute_tolerance: 0\n",
         {"job.yaml:7: pressure.max_divergence: give either absolute_tolerance or "
          "max_divergence, not both (pressure.absolute_tolerance is given on line 8)"}},
    }},
    {"FftSolver", {
        {kHead + "pressure: {solver: fft}\n",
         {"job.yaml:6: pressure.solver: fft needs a box periodic on every axis (boundary.x.lower "
          "is no-slip): use solver: krylov"}},
        {kHead + "boundary: {x: periodic, y: {lower: no-slip, upper: outflow}}\n"
                 "diffusion:\n  solver: fft\n",
         {"job.yaml:8: diffusion.solver: fft needs a box periodic on every axis "
          "(boundary.y.lower is no-slip)"}},
        {kHead + "diffusion:\n  solver: spectral\n",
         {"job.yaml:7: diffusion.solver: unknown solver (expected one of: krylov, fft), got "
          "\"spectral\""}},
        {kHead + "boundary: {x: periodic, y: periodic}\npressure:\n  solver: fft\n"
                 "  tolerance: 1e-6\n",
         {"job.yaml:9: pressure.tolerance: has no effect with solver: fft (given on line 8), a "
          "direct solve to rounding"}},
        {kHead + "boundary: {x: periodic, y: periodic}\npressure:\n  max_divergence: 1e-4\n"
                 "  solver: fft\n",
         {"job.yaml:8: pressure.max_divergence: has no effect with solver: fft (given on line 9)"}},
        {kHead + "boundary: {x: periodic, y: periodic}\nobstacles:\n"
                 "  - {shape: sphere, center: [0.5, 0.5], radius: 0.1}\n"
                 "diffusion: {solver: fft}\n",
         {"job.yaml:9: diffusion.solver: fft needs a box without obstacles (obstacles[0] on line "
          "8): use solver: krylov"}},
    }},
    {"DiagnosticsProbes", {
        {kHead + "diagnostics:\n  probes:\n    2nd: [0.5, 0.5]\n",
         {"job.yaml:8: diagnostics.probes.2nd: invalid probe name '2nd'"}},
        {kHead + "diagnostics:\n  probes:\n    far: [0.5, 1.5]\n",
         {"job.yaml:8: diagnostics.probes.far: the point lies outside the domain (y = 1.5, the "
          "domain spans 0 to 1)"}},
        {kHead + "diagnostics:\n  probes:\n    flat: [0.5, 0.5, 0.5]\n",
         {"job.yaml:8: diagnostics.probes.flat: expected a list of 2 numbers"}},
        {kHead + "diagnostics: {points: {a: [0, 0]}}\n",
         {"job.yaml:6: diagnostics.points: unknown key (expected one of: probes, reference)"}},
    }},
    {"DiagnosticsForceReference", {
        {kHead + "diagnostics:\n  reference: {velocity: 1}\n",
         {"job.yaml:7: diagnostics.reference.area: missing required key"}},
        {kHead + "diagnostics:\n  reference: {velocity: 0, area: 0.1}\n",
         {"job.yaml:7: diagnostics.reference.velocity: must be > 0, got \"0\""}},
    }},
    {"SolverMaxIterations", {
        {kHead + "pressure:\n  max_iterations: 0\n",
         {"job.yaml:7: pressure.max_iterations: expected a positive integer, got \"0\""}},
        {kHead + "diffusion:\n  max_iterations: 2.5\n",
         {"job.yaml:7: diffusion.max_iterations: expected a positive integer, got \"2.5\""}},
        {kHead + "pressure:\n  max_iterations: 3000000000\n",
         {"job.yaml:7: pressure.max_iterations: is out of range (at most 2147483647), got "
          "\"3000000000\""}},
    }},

    // --- walls
    {"WallVelocityWithNormalComponent", {
        {kHead + "boundary:\n  y:\n    upper: {type: no-slip, velocity: [1, 0.5]}\n",
         {"job.yaml:8: boundary.y.upper.velocity: a wall's velocity must be tangential "
          "(its y component, normal to the wall, must be 0, got 0.5)"}},
        {"grid: {cells: [4, 4, 4]}\ntime: {dt: 1, end: 1}\nboundary:\n"
         "  x: {lower: {type: no-slip, velocity: [-2, 1, 1]}}\n",
         {"job.yaml:4: boundary.x.lower.velocity: a wall's velocity must be tangential "
          "(its x component"}},
        {kHead + "boundary:\n  y:\n    upper: {type: no-slip, velocity: [1, 0, 0]}\n",
         {"job.yaml:8: boundary.y.upper.velocity: expected a list of 2 numbers"}},
    }},
    {"InflowKeysOnAWall", {
        {kHead + "boundary:\n  y:\n    upper: {type: no-slip, velocity: [1, 0], "
         "profile: parabolic}\n",
         {"job.yaml:8: boundary.y.upper.profile: unknown key for type 'no-slip' (expected "
          "one of: type, velocity, scalars, fluxes)"}},
    }},
    {"WallScalarValues", {
        // A wall holds named scalars at a value; the name must be a declared scalar.
        {kHead + "scalars: {s: {}}\nboundary:\n  y:\n    upper: {type: no-slip, scalars: {t: 1}}\n",
         {"job.yaml:9: boundary.y.upper.scalars.t: unknown scalar 't'"}},
        {kHead + "scalars: {s: {}}\nboundary:\n  y:\n    upper: {type: free-slip, scalars: {s: hot}}\n",
         {"job.yaml:9: boundary.y.upper.scalars.s: expected a number"}},
        // ... or lets it through at a fixed flux, which needs the scalar to diffuse.
        {kHead + "scalars: {s: {}}\nboundary:\n  y:\n    upper: {type: no-slip, fluxes: {s: 1}}\n",
         {"job.yaml:9: boundary.y.upper.fluxes.s: a flux through a wall needs diffusion, but "
          "scalars.s.diffusion is 0"}},
        {kHead + "scalars: {s: {diffusion: 1}}\nboundary:\n  y:\n"
         "    upper: {type: no-slip, scalars: {s: 1}, fluxes: {s: 1}}\n",
         {"job.yaml:9: boundary.y.upper.fluxes.s: 's' is also held at a value on this wall "
          "(scalars); give it a value or a flux, not both"}},
        {kHead + "scalars: {s: {diffusion: 1}}\nboundary:\n  x:\n    lower: {type: outflow, fluxes: {s: 1}}\n",
         {"job.yaml:9: boundary.x.lower.fluxes: unknown key for type 'outflow'"}},
    }},
    {"MovingObstacle", {
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], motion: {period: 2}}\n",
         {"job.yaml:7: obstacles[0].motion.period: a period needs an amplitude"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " motion: {amplitude: [0.1, 0]}}\n",
         {"job.yaml:7: obstacles[0].motion.period: missing required key"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " motion: {amplitude: [0.1, 0], period: 0}}\n",
         {"job.yaml:7: obstacles[0].motion.period: must be > 0"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " motion: {velocity: [0, 0]}}\n",
         {"job.yaml:7: obstacles[0].motion: moves nothing: give a non-zero velocity, "
          "amplitude or angular_velocity"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " motion: {velocity: [1, 0], spin: 2}}\n",
         {"job.yaml:7: obstacles[0].motion.spin: unknown key (expected one of: velocity, "
          "amplitude, period, angular_velocity, pivot, keyframes, axis)"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " motion: {angular_velocity: [0, 0, 1]}}\n",
         {"job.yaml:7: obstacles[0].motion.angular_velocity: expected a number in 2D (radians "
          "per unit time about z)"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " motion: {angular_velocity: 1, pivot: [0.5]}}\n",
         {"job.yaml:7: obstacles[0].motion.pivot:"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " motion: {velocity: [1, 0], pivot: [0.5, 0.5]}}\n",
         {"job.yaml:7: obstacles[0].motion.pivot: a pivot needs an angular_velocity"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], surface: cut,"
         " motion: {velocity: [1, 0]}}\n",
         {"job.yaml:7: obstacles[0].motion: a moving obstacle is a staircase for now"}},
        {"grid: {cells: [8, 8], halo: 3}\ntime: {dt: 0.1, end: 1, scheme: bdf2}\n"
         "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " motion: {velocity: [1, 0]}}\n",
         {"job.yaml:4: obstacles[0].motion: a moving obstacle runs with Stam's step only"}},
        {kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " floating: {density: 0.5}}\n",
         {"job.yaml:7: obstacles[0].floating: a floating body needs a liquid to float in"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}\n"
         "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " floating: {density: 0.5}, motion: {velocity: [1, 0]}}\n",
         {"job.yaml:8: obstacles[0].motion: a floating body is moved by gravity and the liquid: "
          "give it no motion"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}\n"
         "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], floating: {density: 0}}\n",
         {"job.yaml:8: obstacles[0].floating.density: must be > 0"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}\n"
         "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], floating: {mass: 2}}\n",
         {"job.yaml:8: obstacles[0].floating.mass: unknown key (expected one of: density, turns, "
          "velocity, angular_velocity)"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}\n"
         "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1],"
         " floating: {density: 1, turns: false, angular_velocity: 1}}\n",
         {"job.yaml:8: obstacles[0].floating.angular_velocity: a body that does not turn "
          "(turns: false) has no angular velocity"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}\n"
         "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], surface: cut,"
         " floating: {density: 1}}\n",
         {"job.yaml:8: obstacles[0].floating: a floating body is a staircase for now"}},
        {kHead + "boundary: {x: periodic}\n"
         "liquid: {interface: level_set, initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}\n"
         "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], floating: {density: 1}}\n",
         {"job.yaml:9: obstacles[0].floating: a floating body in a domain with periodic axes is "
          "not supported yet (x is periodic)"}},
    }},
    {"LiquidSection", {
        {kHead + "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 1]}],"
         " surface: height_field}\n",
         {"job.yaml:6: liquid.surface: a height field needs gravity straight down along -y"}},
        {kHead + "forces: {gravity: [0, -1]}\nliquid: {initial: [{shape: box, lower: [0, 0],"
         " upper: [1, 1]}], surface: height_field, particles: {per_cell: 4}}\n",
         {"job.yaml:7: liquid.particles: is for a level-set surface; liquid.surface: height_field "
          "has none"}},
        {kHead + "forces: {gravity: [0, -1]}\nliquid: {initial: [{shape: box, lower: [0, 0],"
         " upper: [1, 1]}], surface: height_field, sinks: [{shape: sphere, center: [0, 0],"
         " radius: 1}]}\n",
         {"job.yaml:7: liquid.sinks: is for a level-set surface"}},
        {kHead + "forces: {gravity: [0, -1]}\nliquid: {initial: [{shape: box, lower: [0, 0],"
         " upper: [1, 1]}], surface: height_field}\nobstacles: [{shape: box, lower: [0, 0],"
         " upper: [1, 1], motion: {velocity: [1, 0]}}]\n",
         {"job.yaml:8: obstacles[0].motion: a moving or floating obstacle displaces the water of a "
          "height field's columns"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}],"
         " surface: sheet}\n",
         {"job.yaml:6: liquid.surface: "}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}],"
         " spray: {rate: 10}}\n",
         {"job.yaml:6: liquid.spray.threshold: missing required key"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}],"
         " spray: {threshold: 1, drag: -1}}\n",
         {"job.yaml:6: liquid.spray.drag: must be >= 0"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}],"
         " spray: {threshold: 1, foam_life: 0}}\n",
         {"job.yaml:6: liquid.spray.foam_life: must be > 0"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}],"
         " spray: {threshold: 1, size: 2}}\n",
         {"job.yaml:6: liquid.spray.size: unknown key (expected one of: threshold, rate, radius, "
          "spread, drag, split_time, foam_life)"}},
        {kHead + "liquid: {band: 3}\n",
         {"job.yaml:6: liquid.initial: missing required key"}},
        {kHead + "liquid: {interface: level_set, initial: []}\n",
         {"job.yaml:6: liquid.initial: needs at least one region (the liquid at the start)"}},
        {kHead + "liquid: {interface: level_set, initial: [{shape: sphere, center: [0, 0]}]}\n",
         {"job.yaml:6: liquid.initial[0].radius: missing required key"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}], band: 1}\n",
         {"job.yaml:6: liquid.band: expected an integer >= 2 and <= 1000, got \"1\""}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " reinitialise_every: 0}\n",
         {"job.yaml:6: liquid.reinitialise_every: expected an integer >= 1"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}],\n"
                 "  air_pressure: [{shape: box, lower: [0, 0], upper: [1, 1]}]}\n",
         {"job.yaml:7: liquid.air_pressure[0].pressure: missing required key"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}],\n"
                 "  air_pressure: [{shape: box, lower: [0, 0], upper: [1, 1], pressure: 1,"
                 " start: 2, end: 1}]}\n",
         {"job.yaml:7: liquid.air_pressure[0].end: must be after start (2)"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}], depth: 1}\n",
         {"job.yaml:6: liquid.depth: unknown key (expected one of: initial, band, "
          "reinitialise_every, particles, sources, sinks, air_pressure, spray, surface, interface, volume_control)"}},
        {kHead + "liquid: {initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " interface: vof, particles: {per_cell: 4}}\n",
         {"job.yaml:6: liquid.particles: is for liquid.interface: level_set; the vof interface "
          "has no marker particles"}},
        {kHead + "liquid: {initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " particles: {per_cell: 4}}\n",
         {"job.yaml:6: liquid.particles: is for liquid.interface: level_set (the particle level "
          "set); the default interface, vof, has no marker particles: add `interface: level_set` "
          "to the liquid section, or remove `particles`"}},
        // The default interface (vof) names what to set for what only the level set does.
        {kHead + "liquid: {initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " sources: [{shape: box, lower: [0, 0.8], upper: [0.1, 0.9]}]}\n",
         {"job.yaml:6: liquid.sources: the vof interface does not add or remove liquid in regions "
          "yet: use liquid.interface: level_set"}},
        {kHead + "liquid: {initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " interface: volume}\n",
         {"job.yaml:6: liquid.interface:"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " particles: {per_cell: -1}}\n",
         {"job.yaml:6: liquid.particles.per_cell: expected an integer from 0 to 1024"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " particles: {band: 11}}\n",
         {"job.yaml:6: liquid.particles.band: expected an integer from 1 to 10"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " particles: {reseed_every: 0}}\n",
         {"job.yaml:6: liquid.particles.reseed_every: expected an integer from 1 to 100000"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " particles: {count: 3}}\n",
         {"job.yaml:6: liquid.particles.count: unknown key (expected one of: per_cell, band, "
          "reseed_every)"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " sources: [{shape: sphere, center: [0, 0], radius: 1, start: 2, end: 1}]}\n",
         {"job.yaml:6: liquid.sources[0].end: must be after start (2"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " sinks: [{shape: sphere, center: [0, 0], radius: 1, velocity: [0, 1]}]}\n",
         {"job.yaml:6: liquid.sinks[0].velocity: unknown key"}},
        // An inflow face carries liquid only into a job that has one, and only an inflow does.
        {kHead + "boundary:\n  x:\n    lower: {type: inflow, velocity: [1, 0],\n"
         "            liquid: [{shape: box, lower: [-1, -1], upper: [0, 0.2]}]}\n"
         "    upper: outflow\n",
         {"job.yaml:9: boundary.x.lower.liquid: an inflow carries liquid only in a job with a "
          "liquid"}},
        {kHead + "boundary:\n  y:\n    lower: {type: free-slip, liquid: []}\n"
         "liquid: {interface: level_set, initial: [{shape: sphere, center: [0, 0], radius: 1}]}\n",
         {"job.yaml:8: boundary.y.lower.liquid: unknown key for type 'free-slip'"}},
        {kHead + "boundary:\n  x:\n    lower: {type: inflow, velocity: [1, 0], liquid: []}\n"
         "    upper: outflow\n"
         "liquid: {interface: level_set, initial: [{shape: sphere, center: [0, 0], radius: 1}]}\n",
         {"job.yaml:8: boundary.x.lower.liquid: needs at least one region"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: sphere, center: [0, 0], radius: 1}],"
         " sources: [{shape: sphere, center: [0, 0], radius: 1, velocity: [0]}]}\n",
         {"job.yaml:6: liquid.sources[0].velocity"}},
        {"grid: {cells: [8, 8], halo: 2}\ntime: {scheme: bdf2, dt: 0.1, end: 1}\n"
         "advection: {interpolation: cubic}\n"
         "liquid: {interface: level_set, initial: [{shape: sphere, center: [0, 0], radius: 1}]}\n",
         {"job.yaml:2: time.scheme: a liquid runs with Stam's step only (time.scheme: stam)"}},
        {kHead + "pressure: {max_divergence: 1e-6}\n"
         "liquid: {interface: level_set, initial: [{shape: sphere, center: [0, 0], radius: 1}]}\n",
         {"job.yaml:6: pressure.max_divergence: the free-surface projection of a liquid stops "
          "on pressure.tolerance only"}},
        {kHead + "obstacles:\n  - {shape: sphere, center: [0, 0], radius: 1}\n"
         "  - {shape: sphere, center: [1, 0], radius: 1, surface: cut}\n"
         "liquid: {interface: level_set, initial: [{shape: sphere, center: [0, 0], radius: 1}]}\n",
         {"job.yaml:8: obstacles[1].surface: a liquid's projection has no cut faces yet"}},
        {kHead + "scalars: {phi: {}}\nliquid: {interface: level_set, initial: [{shape: sphere, center: [0, 0],"
         " radius: 1}]}\n",
         {"job.yaml:7: liquid: a liquid's level set is the field 'phi': rename the scalar of "
          "that name"}},
    }},
    {"ObstacleScalarValues", {
        // An obstacle holds scalars or lets them through as a wall does, with the same checks.
        {kHead + "scalars: {s: {}}\nobstacles:\n  - {shape: sphere, center: [0, 0], radius: 1,"
         " scalars: {t: 1}}\n",
         {"job.yaml:8: obstacles[0].scalars.t: unknown scalar 't'"}},
        {kHead + "scalars: {s: {}}\nobstacles:\n  - {shape: sphere, center: [0, 0], radius: 1,"
         " fluxes: {s: 1}}\n",
         {"job.yaml:8: obstacles[0].fluxes.s: a flux through an obstacle needs diffusion"}},
        {kHead + "scalars: {s: {diffusion: 1}}\nobstacles:\n  - {shape: sphere, center: [0, 0],"
         " radius: 1, scalars: {s: 0}, fluxes: {s: 1}}\n",
         {"job.yaml:8: obstacles[0].fluxes.s: 's' is also held at a value on this obstacle "
          "(scalars); give it a value or a flux, not both"}},
    }},

    // --- weak scaling
    // --- viscoelastic: a material to hold the strain, a modulus, Stam's step, free names
    {"ViscoelasticSection", {
        {kHead + "viscoelastic: {elastic_modulus: 1}\n",
         {"job.yaml:6: viscoelastic: needs `material: <scalar>`"}},
        {kHead + "scalars: {dye: {}}\nviscoelastic: {material: dye}\n",
         {"job.yaml:7: viscoelastic.elastic_modulus: missing required key"}},
        {kHead + "scalars: {dye: {}}\nviscoelastic: {material: dye, elastic_modulus: 0}\n",
         {"job.yaml:7: viscoelastic.elastic_modulus: "}},
        {kHead + "scalars: {dye: {}}\nviscoelastic: {material: ink, elastic_modulus: 1}\n",
         {"job.yaml:7: viscoelastic.material: \"ink\" is not one of the job's scalars"}},
        {kHead + "scalars: {dye: {}}\nviscoelastic: {material: dye, elastic_modulus: 1, "
         "yield_rate: -1}\n",
         {"job.yaml:7: viscoelastic.yield_rate: "}},
        {kHead + "scalars: {dye: {}}\nviscoelastic: {material: dye, elastic_modulus: 1, "
         "modulus: 1}\n",
         {"job.yaml:7: viscoelastic.modulus: unknown key"}},
        {kHead + "scalars: {strain_xy: {}}\nviscoelastic: {material: strain_xy, "
         "elastic_modulus: 1}\n",
         {"job.yaml:7: viscoelastic: its strain is held in the run's scalars strain_xx, "
          "strain_yy, strain_xy, and in 3D strain_zz, strain_xz, strain_yz (the job declares a "
          "scalar 'strain_xy' itself): rename the job's scalar"}},
        {kHead + "liquid: {interface: level_set,"
                 " initial: [{shape: box, lower: [0, 0], upper: [1, 1]}]}\n"
         "viscoelastic: {elastic_modulus: 1, threshold: 0.5}\n",
         {"job.yaml:7: viscoelastic.threshold: is the threshold of a `material` scalar"}},
        {"grid: {cells: [8, 8], halo: 3}\ntime: {dt: 0.1, end: 1, scheme: bdf2}\n"
         "scalars: {dye: {}}\n"
         "viscoelastic: {material: dye, elastic_modulus: 1}\n",
         {"job.yaml:2: time.scheme: a viscoelastic material runs with Stam's step only"}},
    }},
    {"CellsAndCellsPerRankTogether", {
        {"grid: {cells: [8, 8], cells_per_rank: [4, 4]}\ntime: {dt: 0.1, end: 1}\n",
         {"job.yaml:1: grid.cells_per_rank: give either cells or cells_per_rank, not both"}},
    }},

    // --- catalyst: script paths resolve beside the job file, here jobs/
    {"CatalystScripts", {
        {kCatalystHead + "  scripts:\n    - {script: catalyst/nope.py}\n",
         {"job.yaml:5: catalyst.scripts[0].script: cannot read Catalyst script"}, kCatalystSource},
        {kCatalystHead + "  scripts:\n    - {script: catalyst/live.py, every_steps: 2, "
                         "every_time: 1}\n",
         {"give either every_steps or every_time, not both"}, kCatalystSource},
        {kCatalystHead + "  scripts:\n    - {script: catalyst/live.py, every_steps: 0}\n",
         {"every_steps: expected a positive integer"}, kCatalystSource},
        {kCatalystHead + "  scripts:\n    - {script: catalyst/live.py, every_wall_seconds: 0}\n",
         {"job.yaml:5: catalyst.scripts[0].every_wall_seconds: must be"}, kCatalystSource},
        {kCatalystHead + "  scripts:\n    - {script: catalyst/live.py, args: [[1]]}\n",
         {"args[0]: expected a string"}, kCatalystSource},
        {kCatalystHead + "  scripts:\n    - {script: catalyst/live.py, how_often: 2}\n",
         {"how_often: unknown key"}, kCatalystSource},
        {"grid: {cells: [8, 8, 8], halo: 1}\ntime: {dt: 0.1, end: 1}\n"
         "catalyst:\n  scripts:\n    - {script: catalyst/live.py}\n",
         {"job.yaml:4: catalyst: Catalyst output needs grid.halo >= 2"}, kCatalystSource},
    }},
};

/// One row of the table, with the test name it runs under.
struct JobErrorCase {
  std::string name;
  Row row;
};

void PrintTo(const JobErrorCase& c, std::ostream* os) { *os << c.name; }

std::vector<JobErrorCase> job_error_cases() {
  std::vector<JobErrorCase> cases;
  for (const Group& group : kRefusedJobs) {
    for (std::size_t i = 0; i < group.rows.size(); ++i) {
      cases.push_back({group.name + "_" + std::to_string(i), group.rows[i]});
    }
  }
  return cases;
}

class MalformedJob : public ::testing::TestWithParam<JobErrorCase> {};

TEST_P(MalformedJob, IsRefusedNamingFileLineAndKey) {
  const Row& row = GetParam().row;
  const std::string message = error_of(row.job, row.source);
  for (const std::string& part : row.parts) {
    EXPECT_TRUE(Contains(message, part)) << "job:\n" << row.job;
  }
}

INSTANTIATE_TEST_SUITE_P(ConfigError, MalformedJob, ::testing::ValuesIn(job_error_cases()),
                         [](const ::testing::TestParamInfo<JobErrorCase>& info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------------------------------------
// Refusals that need more than a table row.

TEST(ConfigError, EmptyOrNonMapText) {
  // The line of the node found instead of the map; an empty file has none, and line 1 is where
  // to look.
  const std::string expected = "job.yaml:1: expected a map of job settings at the top level, ";
  EXPECT_EQ(error_of(""), expected + "got nothing");
  EXPECT_EQ(error_of("# only a comment\n"), expected + "got nothing");
  EXPECT_EQ(error_of("- grid\n- time\n"), expected + "got a list of 2 entries");
  EXPECT_EQ(error_of("just words\n"), expected + "got \"just words\"");
  EXPECT_EQ(error_of("42"), expected + "got \"42\"");
  EXPECT_EQ(error_of("# a job\n\n[grid, time]\n"),
            "job.yaml:3: expected a map of job settings at the top level, got a list of 2 entries");
  EXPECT_EQ(error_of("\n\n  42\n"),
            "job.yaml:3: expected a map of job settings at the top level, got \"42\"");
}

TEST(ConfigError, CellsPerRankBeyondTheIndexRangeOnManyRanks) {
  JobConfig job = sf::parse_job(
      "grid: {cells_per_rank: [1024, 1024, 512]}\ntime: {dt: 0.1, end: 1}\n", "big.yaml");
  try {
    sf::resolve_ranks(job, 8);
    ADD_FAILURE() << "8 ranks of 1024 x 1024 x 512 cells must exceed 32-bit indices";
  } catch (const sf::JobError& error) {
    EXPECT_NE(std::string(error.what()).find("big.yaml:1: grid.cells_per_rank: 1024 x 1024 x "
                                             "512 cells per rank on 8 ranks"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
