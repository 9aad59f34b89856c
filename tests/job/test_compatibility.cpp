// The table of refused combinations (src/job/compatibility.*): one job per row that has both of
// its features, refused with the row's message at its key and line, and accepted once one of the
// two features is taken out. The cases are keyed by the rows' names, and a test walks the table,
// so a row added without a job here fails the suite.
#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "compatibility.hpp"
#include "job.hpp"
#include "job_test_util.hpp"

namespace {

using sf::test::error_of;
using sf::test::kHead;

// kHead in 3D (a mesh obstacle needs one), also five lines.
const std::string kHead3 = "grid:\n  cells: [8, 8, 8]\ntime:\n  dt: 0.1\n  end: 1.0\n";
// A liquid, on one line.
const std::string kLiquid = "liquid: {interface: level_set,"
                            " initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}]}\n";
// A periodic box, on one line.
const std::string kPeriodic = "boundary: {x: periodic, y: periodic}\n";
// Fire's two scalars, on one line.
const std::string kFireScalars = "scalars: {fuel: {}, temperature: {}}\n";
// The Catalyst job is parsed as a job in jobs/, so that its script resolves to jobs/catalyst/.
const std::string kCatalystSource = std::string(STABLEFLUIDS_SOURCE_DIR) + "/jobs/job.yaml";

/// The job of one row: refused at `key` on `line`, with `detail` (empty if the row has none)
/// in the message; replacing `from` by `to` takes one of the two features out.
struct Case {
  std::string row;
  std::string job;
  int line;
  std::string key;
  std::string detail;
  std::string from;
  std::string to;
  std::string source = "job.yaml";
};

const std::vector<Case> kCases = {
    {"inflow_liquid_without_liquid",
     kHead + "boundary:\n  x:\n    lower: {type: inflow, velocity: [1, 0],\n"
             "            liquid: [{shape: box, lower: [-1, -1], upper: [0, 0.2]}]}\n"
             "    upper: outflow\n",
     9, "boundary.x.lower.liquid", "", "    upper: outflow\n", "    upper: outflow\n" + kLiquid},
    {"cubic_halo",
     "grid: {cells: [8, 8], halo: 1}\ntime: {dt: 1, end: 1}\nadvection:\n"
     "  interpolation: cubic\n",
     4, "advection.interpolation", "", "halo: 1", "halo: 2"},
    {"monotone_cubic_halo",
     "grid: {cells: [8, 8], halo: 1}\ntime: {dt: 1, end: 1}\nadvection:\n"
     "  interpolation: monotone_cubic\n",
     4, "advection.interpolation", "", "monotone_cubic", "linear"},
    {"vorticity_confinement_halo",
     "grid: {cells: [8, 8], halo: 1}\ntime: {dt: 1, end: 1}\nforces:\n"
     "  vorticity_confinement: 0.5\n",
     4, "forces.vorticity_confinement", "", "halo: 1", "halo: 2"},
    {"catalyst_halo",
     "grid: {cells: [8, 8, 8], halo: 1}\ntime: {dt: 0.1, end: 1}\n"
     "catalyst:\n  scripts:\n    - {script: catalyst/live.py}\n",
     4, "catalyst", "", "halo: 1", "halo: 2", kCatalystSource},
    {"mesh_cut", kHead3 + "obstacles:\n  - {shape: mesh, file: body.stl, surface: cut}\n", 7,
     "obstacles[0].surface", "", "surface: cut", "surface: staircase"},
    {"moving_cut",
     kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [1, 1], surface: cut,\n"
             "     motion: {velocity: [1, 0]}}\n",
     8, "obstacles[0].motion", "", "surface: cut", "surface: staircase"},
    {"floating_cut",
     kHead + kLiquid + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [0.5, 0.5],"
                       " surface: cut, floating: {density: 1}}\n",
     8, "obstacles[0].floating", "", " surface: cut,", ""},
    {"floating_motion",
     kHead + kLiquid + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [0.5, 0.5],"
                       " floating: {density: 0.5}, motion: {velocity: [1, 0]}}\n",
     8, "obstacles[0].motion", "", ", motion: {velocity: [1, 0]}", ""},
    {"floating_without_liquid",
     kHead + "obstacles:\n  - {shape: box, lower: [0, 0], upper: [0.5, 0.5],"
             " floating: {density: 0.5}}\n",
     7, "obstacles[0].floating", "", "obstacles:", kLiquid + "obstacles:"},
    {"floating_periodic",
     kHead + "boundary: {x: periodic}\n" + kLiquid +
         "obstacles:\n  - {shape: box, lower: [0, 0], upper: [0.5, 0.5], floating: {density: 1}}\n",
     9, "obstacles[0].floating", "x is periodic", "boundary: {x: periodic}\n", ""},
    {"variable_viscosity_cut",
     kHead + "scalars: {t: {}}\nfluid:\n  viscosity: {from: t, values: [[0, 1]]}\n"
             "obstacles:\n  - {shape: sphere, center: [0.5, 0.5], radius: 0.2, surface: cut}\n",
     10, "obstacles[0].surface", "fluid.viscosity on line 8", "surface: cut",
     "surface: staircase"},
    {"variable_viscosity_floating",
     kHead + "scalars: {t: {}}\nfluid: {viscosity: {from: t, values: [[0, 1]]}}\n" + kLiquid +
         "obstacles:\n  - {shape: box, lower: [0, 0], upper: [0.5, 0.5], floating: {density: 1}}\n",
     10, "obstacles[0].floating", "fluid.viscosity on line 7", "{from: t, values: [[0, 1]]}",
     "0.1"},
    {"liquid_scalar_phi", kHead + "scalars: {phi: {}}\n" + kLiquid, 7, "liquid", "", "phi", "psi"},
    {"vof_height_field",
     kHead + "forces: {gravity: [0, -1]}\n"
             "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}],"
             " surface: height_field, interface: vof}\n",
     7, "liquid.interface", "", "interface: vof", "interface: level_set"},
    {"vof_halo_one",
     "grid: {cells: [8, 8], halo: 1}\ntime: {dt: 1, end: 1}\n"
     "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}], interface: vof}\n",
     1, "grid.halo", "", "halo: 1", "halo: 2"},
    {"vof_inflow_liquid",
     kHead + "boundary:\n  x:\n    lower: {type: inflow, velocity: [1, 0],\n"
             "            liquid: [{shape: box, lower: [-1, -1], upper: [0, 0.2]}]}\n"
             "    upper: outflow\n"
             "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}], interface: vof}\n",
     9, "boundary.x.lower.liquid", "", "interface: vof", "interface: level_set"},
    {"vof_liquid_flows",
     kHead + "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}], interface: vof,"
             " sources: [{shape: box, lower: [0, 0.8], upper: [0.1, 0.9]}]}\n",
     6, "liquid.sources", "", "interface: vof", "interface: level_set"},
    {"volume_control_vof",
     kHead + "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}], interface: vof"
             ", volume_control: {}}\n",
     6, "liquid.volume_control", "", ", volume_control: {}", ""},
    {"volume_control_height_field",
     kHead + "forces: {gravity: [0, -1]}\n"
             "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}],"
             " surface: height_field, volume_control: {}}\n",
     7, "liquid.volume_control", "", ", volume_control: {}", ""},
    {"volume_control_liquid_flows",
     kHead + "liquid: {interface: level_set,"
             " initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}], volume_control: {},"
             " sources: [{shape: box, lower: [0, 0.8], upper: [0.1, 0.9]}]}\n",
     6, "liquid.volume_control", "", " volume_control: {},", ""},
    {"volume_control_inflow_liquid",
     kHead + "boundary:\n  x:\n    lower: {type: inflow, velocity: [1, 0],\n"
             "            liquid: [{shape: box, lower: [-1, -1], upper: [0, 0.2]}]}\n"
             "    upper: outflow\n"
             "liquid: {interface: level_set,"
             " initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}],"
             " volume_control: {}}\n",
     9, "boundary.x.lower.liquid", "", ", volume_control: {}", ""},
    {"height_field_gravity",
     kHead + "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}],"
             " surface: height_field}\n",
     6, "liquid.surface", "", "liquid:", "forces: {gravity: [0, -1]}\nliquid:"},
    {"height_field_periodic_y",
     kHead + "forces: {gravity: [0, -1]}\nboundary: {y: periodic}\n"
             "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}],"
             " surface: height_field}\n",
     8, "liquid.surface", "", "boundary: {y: periodic}\n", ""},
    {"height_field_moving_obstacle",
     kHead + "forces: {gravity: [0, -1]}\n"
             "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}],"
             " surface: height_field}\n"
             "obstacles: [{shape: box, lower: [0, 0], upper: [0.2, 0.2],"
             " motion: {velocity: [1, 0]}}]\n",
     8, "obstacles[0].motion", "", "height_field", "level_set"},
    {"height_field_floating",
     kHead + "forces: {gravity: [0, -1]}\n"
             "liquid: {initial: [{shape: box, lower: [0, 0], upper: [1, 0.5]}],"
             " surface: height_field}\n"
             "obstacles: [{shape: box, lower: [0, 0], upper: [0.2, 0.2],"
             " floating: {density: 1}}]\n",
     8, "obstacles[0].floating", "", "height_field", "level_set"},
    {"liquid_cut",
     kHead + "obstacles:\n  - {shape: sphere, center: [0, 0], radius: 1}\n"
             "  - {shape: sphere, center: [1, 0], radius: 1, surface: cut}\n" + kLiquid,
     8, "obstacles[1].surface", "", ", surface: cut", ""},
    {"liquid_max_divergence", kHead + "pressure: {max_divergence: 1e-6}\n" + kLiquid, 6,
     "pressure.max_divergence", "", "max_divergence", "tolerance"},
    {"fire_liquid", kHead + kFireScalars + "fire: {burn_rate: 1}\n" + kLiquid, 7, "fire", "",
     kLiquid, ""},
    {"fire_expansion_closed", kHead + kFireScalars + "fire: {burn_rate: 1, expansion: 0.5}\n", 7,
     "fire.expansion", "", "fire:", "boundary: {y: {lower: no-slip, upper: outflow}}\nfire:"},
    {"texture_inflow",
     kHead + "boundary: {x: {lower: {type: inflow, velocity: [1, 0]}, upper: outflow}}\n"
             "texture: {period: 1}\n",
     7, "texture", "boundary.x.lower", "{type: inflow, velocity: [1, 0]}", "no-slip"},
    {"texture_scalar_name", kHead + "scalars: {texture_b_y: {}}\ntexture: {period: 1}\n", 7,
     "texture", "the job declares a scalar 'texture_b_y' itself", "texture_b_y", "texture_c_y"},
    {"viscoelastic_without_material", kHead + "viscoelastic: {elastic_modulus: 1}\n", 6,
     "viscoelastic", "", "viscoelastic:", kLiquid + "viscoelastic:"},
    {"viscoelastic_scalar_name",
     kHead + "scalars: {strain_xy: {}}\nviscoelastic: {material: strain_xy, elastic_modulus: 1}\n",
     7, "viscoelastic", "the job declares a scalar 'strain_xy' itself", "strain_xy", "dye"},
    {"bdf2_maccormack",
     "grid: {cells: [8, 8]}\nadvection: {scheme: maccormack}\ntime:\n  scheme: bdf2\n"
     "  dt: 0.1\n  end: 1\n",
     4, "time.scheme", "", "maccormack", "semi_lagrangian"},
    {"bdf2_bfecc",
     "grid: {cells: [8, 8]}\nadvection: {scheme: bfecc}\ntime:\n  scheme: bdf2\n"
     "  dt: 0.1\n  end: 1\n",
     4, "time.scheme", "", "bfecc", "semi_lagrangian"},
    {"liquid_bdf2", "grid: {cells: [8, 8]}\ntime: {scheme: bdf2, dt: 0.1, end: 1}\n" + kLiquid, 2,
     "time.scheme", "", "bdf2", "stam"},
    {"viscoelastic_bdf2",
     "grid: {cells: [8, 8]}\ntime: {scheme: bdf2, dt: 0.1, end: 1}\nscalars: {dye: {}}\n"
     "viscoelastic: {material: dye, elastic_modulus: 1}\n",
     2, "time.scheme", "", "bdf2", "stam"},
    {"fire_bdf2",
     "grid: {cells: [8, 8]}\ntime: {scheme: bdf2, dt: 0.1, end: 1}\n" + kFireScalars +
         "fire: {burn_rate: 1}\n",
     2, "time.scheme", "", "bdf2", "stam"},
    {"texture_bdf2",
     "grid: {cells: [8, 8]}\ntime: {scheme: bdf2, dt: 0.1, end: 1}\ntexture: {period: 1}\n", 2,
     "time.scheme", "", "bdf2", "stam"},
    {"moving_obstacle_bdf2",
     "grid: {cells: [8, 8]}\ntime: {scheme: bdf2, dt: 0.1, end: 1}\n"
     "obstacles:\n  - {shape: box, lower: [0, 0], upper: [0.2, 0.2], motion: {velocity: [1, 0]}}\n",
     4, "obstacles[0].motion", "", "bdf2", "stam"},
    {"inflow_keyframes_bdf2",
     "grid: {cells: [8, 8]}\ntime: {scheme: bdf2, dt: 0.1, end: 1}\nboundary:\n  x:\n"
     "    lower: {type: inflow,\n"
     "            keyframes: [{time: 0, velocity: [1, 0]}, {time: 1, velocity: [2, 0]}]}\n"
     "    upper: outflow\n",
     6, "boundary.x.lower.keyframes", "", "bdf2", "stam"},
    {"inflow_pulsation_bdf2",
     "grid: {cells: [8, 8]}\ntime: {scheme: bdf2, dt: 0.1, end: 1}\nboundary:\n  x:\n"
     "    lower: {type: inflow, velocity: [1, 0],\n"
     "            pulsation: {amplitude: [0.1, 0], period: 1}}\n"
     "    upper: outflow\n",
     6, "boundary.x.lower.pulsation", "", "bdf2", "stam"},
    {"pressure_fft_walls", kHead + "pressure: {solver: fft}\n", 6, "pressure.solver",
     "boundary.x.lower is no-slip", "pressure:", kPeriodic + "pressure:"},
    {"pressure_fft_obstacles",
     kHead + kPeriodic + "obstacles:\n  - {shape: sphere, center: [0.5, 0.5], radius: 0.1}\n"
                         "pressure: {solver: fft}\n",
     9, "pressure.solver", "obstacles[0] on line 8", "fft", "krylov"},
    {"pressure_fft_liquid", kHead + kPeriodic + kLiquid + "pressure: {solver: fft}\n", 8,
     "pressure.solver", "", "fft", "krylov"},
    {"diffusion_fft_walls",
     kHead + "boundary: {x: periodic, y: {lower: no-slip, upper: outflow}}\n"
             "diffusion:\n  solver: fft\n",
     8, "diffusion.solver", "boundary.y.lower is no-slip", "fft", "krylov"},
    {"diffusion_fft_obstacles",
     kHead + kPeriodic + "obstacles:\n  - {shape: sphere, center: [0.5, 0.5], radius: 0.1}\n"
                         "diffusion: {solver: fft}\n",
     9, "diffusion.solver", "obstacles[0] on line 8", "fft", "krylov"},
    {"diffusion_fft_liquid", kHead + kPeriodic + kLiquid + "diffusion: {solver: fft}\n", 8,
     "diffusion.solver", "", "fft", "krylov"},
    {"diffusion_fft_variable_viscosity",
     kHead + kPeriodic + "scalars: {heat: {}}\nfluid: {viscosity: {from: heat, values: [[0, 1]]}}\n"
                         "diffusion: {solver: fft}\n",
     9, "diffusion.solver", "fluid.viscosity on line 8", "fft", "krylov"},
};

// Failures print the row, not the bytes of the case.
void PrintTo(const Case& c, std::ostream* os) { *os << c.row; }

const sf::Refusal* row_named(const std::string& name) {
  for (const sf::Refusal& row : sf::refusals())
    if (row.name == name) return &row;
  return nullptr;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// Every row has a job here, every job here is of a row, and neither list names one twice.
TEST(RefusedCombinations, EveryRowHasItsJob) {
  std::set<std::string> rows;
  for (const sf::Refusal& row : sf::refusals()) {
    EXPECT_TRUE(rows.insert(row.name).second) << "the table names row " << row.name << " twice";
  }
  std::set<std::string> cases;
  for (const Case& c : kCases) {
    EXPECT_TRUE(cases.insert(c.row).second) << "two jobs for row " << c.row;
    EXPECT_NE(row_named(c.row), nullptr) << "a job for row " << c.row << ", which the table lacks";
  }
  for (const std::string& row : rows)
    EXPECT_EQ(cases.count(row), 1u) << "row " << row << " has no job in test_compatibility.cpp";
  EXPECT_FALSE(rows.empty());
}

class RefusedCombination : public ::testing::TestWithParam<Case> {};

// The job with both features is refused with its row's message, naming the key at its line;
// without one of them (`from` replaced by `to`) it is accepted.
TEST_P(RefusedCombination, IsRefusedNamingKeyAndLineAndAcceptedWithoutOneOfThem) {
  const Case& c = GetParam();
  const sf::Refusal* row = row_named(c.row);
  ASSERT_NE(row, nullptr) << c.row;
  std::string expected = c.source + ":" + std::to_string(c.line) + ": " + c.key + ": " + row->why;
  if (!c.detail.empty()) expected += " (" + c.detail + ")";
  if (row->fix[0] != '\0') expected += std::string(": ") + row->fix;
  EXPECT_EQ(error_of(c.job, c.source), expected) << c.job;

  const std::string without = replaced(c.job, c.from, c.to);
  ASSERT_NE(without, c.job) << "'" << c.from << "' is not in the job";
  EXPECT_EQ(error_of(without, c.source), "<no JobError thrown>") << without;
}

INSTANTIATE_TEST_SUITE_P(Table, RefusedCombination, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.row; });

// A key the command line gave is named as the --set that gave it, both as the key of the message
// and as the other key its detail points at.
TEST(RefusedCombinations, NameTheSetThatGaveAKey) {
  const std::string liquid = "grid: {cells: [8, 8]}\ntime: {dt: 0.1, end: 1}\n" + kLiquid;
  try {
    sf::parse_job(liquid, "job.yaml", {{"time.scheme", "bdf2"}});
    ADD_FAILURE() << "a liquid with time.scheme: bdf2 set on the command line was accepted";
  } catch (const sf::JobError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("job.yaml: --set time.scheme=bdf2: time.scheme: "
                                              "a liquid runs with Stam's step only",
                                              0),
              0u)
        << error.what();
  }
  const std::string periodic =
      kHead + kPeriodic + "scalars: {heat: {}}\ndiffusion: {solver: fft}\n";
  try {
    sf::parse_job(periodic, "job.yaml", {{"fluid.viscosity", "{from: heat, values: [[0, 1]]}"}});
    ADD_FAILURE() << "fft with a viscosity that follows a scalar was accepted";
  } catch (const sf::JobError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("(fluid.viscosity given by --set fluid.viscosity={from: heat, values: "
                        "[[0, 1]]}): use solver: krylov"),
              std::string::npos)
        << error.what();
  }
}

// The names a section takes for the scalars it adds are those of the grid's axes only: a 2-D
// job may call a scalar of its own texture_a_z or strain_zz.
TEST(RefusedCombinations, TakenNamesFollowTheDimension) {
  EXPECT_EQ(error_of(kHead + "scalars: {texture_a_z: {}}\ntexture: {period: 1}\n"),
            "<no JobError thrown>");
  EXPECT_EQ(error_of(kHead + "scalars: {strain_zz: {}}\n"
                             "viscoelastic: {material: strain_zz, elastic_modulus: 1}\n"),
            "<no JobError thrown>");
}

}  // namespace
