// The command line (src/app/command_line.hpp) and --set overrides of job keys (sf::parse_job with
// overrides). Both are pure functions of their input, so one rank suffices.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "job.hpp"

namespace {

sf::CommandLine parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"stablefluids"};
  argv.insert(argv.end(), args.begin(), args.end());
  return sf::parse_command_line(static_cast<int>(argv.size()), argv.data());
}

std::vector<std::string> petsc(std::initializer_list<const char*> args) {
  std::vector<std::string> out{"stablefluids"};
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

TEST(CommandLine, JobFirstRestIsPetsc) {
  const sf::CommandLine line = parse({"job.yaml", "-log_view", "-pressure_ksp_rtol", "1e-9"});
  EXPECT_EQ(line.job, "job.yaml");
  EXPECT_EQ(line.error, "");
  EXPECT_EQ(line.petsc_arguments, petsc({"-log_view", "-pressure_ksp_rtol", "1e-9"}));
}

// The defect: PETSc read the job after -log_view as -log_view's viewer ("Unsupported viewer").
TEST(CommandLine, JobAfterAnOptionWithoutValueIsStillTheJob) {
  const sf::CommandLine line = parse({"-log_view", "jobs/plume_3d.YAML", "-ksp_type", "cg"});
  EXPECT_EQ(line.job, "jobs/plume_3d.YAML");
  EXPECT_EQ(line.petsc_arguments, petsc({"-log_view", "-ksp_type", "cg"}));
  EXPECT_EQ(parse({"-pressure_ksp_monitor", "a.yml"}).job, "a.yml");
}

TEST(CommandLine, FilesThatBelongToPetscOptionsAreNotTheJob) {
  const sf::CommandLine line =
      parse({"-options_file_yaml", "solver.yaml", "-log_view", ":log.yaml", "job.yaml"});
  EXPECT_EQ(line.job, "job.yaml");
  EXPECT_EQ(line.petsc_arguments,
            petsc({"-options_file_yaml", "solver.yaml", "-log_view", ":log.yaml"}));
}

TEST(CommandLine, JobWithoutYamlSuffixMustNotFollowAnOption) {
  EXPECT_EQ(parse({"myjob", "-ksp_type", "cg"}).job, "myjob");
  EXPECT_EQ(parse({"-ksp_type", "cg", "myjob"}).job, "myjob");
  // Here "myjob" can only be -log_view's value: there is no job.
  EXPECT_EQ(parse({"-log_view", "myjob"}).job, "");
}

TEST(CommandLine, RestartInEverySpelling) {
  for (const auto& args : {std::vector<const char*>{"--restart", "latest"},
                           std::vector<const char*>{"--restart=latest"},
                           std::vector<const char*>{"-restart", "latest"}}) {
    std::vector<const char*> argv{"stablefluids", "job.yaml"};
    argv.insert(argv.end(), args.begin(), args.end());
    const sf::CommandLine line = sf::parse_command_line(static_cast<int>(argv.size()), argv.data());
    EXPECT_EQ(line.restart, "latest");
    EXPECT_EQ(line.job, "job.yaml");
    EXPECT_EQ(line.petsc_arguments, petsc({}));  // PETSc never sees it, so never lists it unused
  }
  // A checkpoint file ending in .h5 after --restart is its value, not a second job.
  EXPECT_EQ(parse({"--restart", "out/a_checkpoint_00000010.h5", "job.yaml"}).restart,
            "out/a_checkpoint_00000010.h5");
}

TEST(CommandLine, MissingValuesAreErrors) {
  EXPECT_NE(parse({"job.yaml", "--restart"}).error.find("--restart needs"), std::string::npos);
  EXPECT_NE(parse({"job.yaml", "--restart", "-log_view"}).error.find("--restart needs"),
            std::string::npos);
  EXPECT_NE(parse({"job.yaml", "--restart="}).error.find("--restart needs"), std::string::npos);
  EXPECT_NE(parse({"job.yaml", "--set", "time.end"}).error.find("--set needs <key>=<value>"),
            std::string::npos);
  EXPECT_NE(parse({"job.yaml", "--set", "=2"}).error.find("--set needs"), std::string::npos);
  EXPECT_NE(parse({"job.yaml", "--set"}).error.find("--set needs"), std::string::npos);
  EXPECT_NE(parse({"a.yaml", "b.yml"}).error.find("two job files given, 'a.yaml' and 'b.yml'"),
            std::string::npos);
}

TEST(CommandLine, SetsKeepTheirOrderAndSplitAtTheFirstEquals) {
  const sf::CommandLine line =
      parse({"--set", "grid.cells=[64,128,64]", "job.yaml", "--set=time.end=2",
             "--set", "name=a=b"});
  ASSERT_EQ(line.overrides.size(), 3u);
  EXPECT_EQ(line.overrides[0].key, "grid.cells");
  EXPECT_EQ(line.overrides[0].value, "[64,128,64]");
  EXPECT_EQ(line.overrides[1].text(), "time.end=2");
  EXPECT_EQ(line.overrides[2].key, "name");
  EXPECT_EQ(line.overrides[2].value, "a=b");
  EXPECT_EQ(line.job, "job.yaml");
  EXPECT_EQ(line.error, "");
}

TEST(CommandLine, HelpAndVersion) {
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"-h"}).help);
  EXPECT_TRUE(parse({"--version"}).version);
  // PETSc's own -help is PETSc's.
  const sf::CommandLine petsc_help = parse({"job.yaml", "-help"});
  EXPECT_FALSE(petsc_help.help);
  EXPECT_EQ(petsc_help.petsc_arguments, petsc({"-help"}));
}

// ---------------------------------------------------------------------------------------------
// --set on a job

const std::string kJob =
    "grid:\n"
    "  cells: [8, 8]\n"
    "time:\n"
    "  dt: 0.1\n"
    "  end: 1.0\n"
    "obstacles:\n"
    "  - {shape: sphere, center: [0.5, 0.5], radius: 0.1}\n";

sf::JobConfig with(std::initializer_list<sf::JobOverride> overrides) {
  return sf::parse_job(kJob, "job.yaml", overrides);
}

std::string error_with(std::initializer_list<sf::JobOverride> overrides) {
  try {
    with(overrides);
  } catch (const sf::JobError& e) {
    return e.what();
  }
  return "<no JobError thrown>";
}

TEST(JobOverride, ReplacesAndAddsKeys) {
  const sf::JobConfig job = with({{"grid.cells", "[16, 32]"},
                                  {"time.end", "2"},
                                  {"fluid.viscosity", "0.001"},
                                  {"obstacles[0].radius", "0.2"},
                                  {"output", "{directory: elsewhere, interval: 0.5}"},
                                  {"forces.gravity", "[0, -1]"}});
  EXPECT_EQ(job.grid.cells[0], 16);
  EXPECT_EQ(job.grid.cells[1], 32);
  EXPECT_EQ(job.time.end, 2.0);
  EXPECT_EQ(job.fluid.viscosity, 0.001);
  ASSERT_EQ(job.obstacles.size(), 1u);
  EXPECT_EQ(job.obstacles[0].region.radius, 0.2);
  EXPECT_EQ(job.output.directory, "elsewhere");
  EXPECT_EQ(job.output.interval, 0.5);
  EXPECT_EQ(job.forces.gravity[1], -1.0);  // forces was not in the job: made on the way
  EXPECT_EQ(job.overrides.size(), 6u);
}

TEST(JobOverride, LaterOverridesWin) {
  EXPECT_EQ(with({{"time.end", "2"}, {"time.end", "3"}}).time.end, 3.0);
  EXPECT_EQ(with({{"time.end", "2"}, {"time", "{dt: 0.5, end: 4}"}}).time.end, 4.0);
}

// A value is checked exactly like the file's, and the message names the --set, not a line.
TEST(JobOverride, ValuesAreValidatedLikeTheFile) {
  EXPECT_EQ(error_with({{"time.end", "-1"}}),
            "job.yaml: --set time.end=-1: time.end: must be > 0, got \"-1\"");
  EXPECT_EQ(error_with({{"grid.cells", "[8, 0]"}}).rfind(
                "job.yaml: --set grid.cells=[8, 0]: grid.cells[1]: ", 0),
            0u);
  EXPECT_EQ(error_with({{"grid.cellz", "[3, 3]"}}).rfind(
                "job.yaml: --set grid.cellz=[3, 3]: grid.cellz: unknown key", 0),
            0u);
  EXPECT_EQ(error_with({{"time", "{dt: 0.1}"}}),
            "job.yaml: --set time={dt: 0.1}: time.end: missing required key");
  // An error elsewhere still names its line in the file.
  EXPECT_EQ(error_with({{"grid.cells", "[8, 8, 8]"}}).rfind("job.yaml:7: obstacles[0].center", 0),
            0u);
}

TEST(JobOverride, MalformedOverridesAreRefusedNamingThem) {
  EXPECT_EQ(error_with({{"time.end", "[1"}}).rfind(
                "job.yaml: --set time.end=[1: time.end: YAML syntax error in the value", 0),
            0u);
  EXPECT_EQ(error_with({{"time..end", "1"}}).rfind("job.yaml: --set time..end=1: ", 0), 0u);
  EXPECT_NE(error_with({{"time..end", "1"}}).find("malformed key"), std::string::npos);
  EXPECT_NE(error_with({{"time.end.x", "1"}}).find("inside time.end, which is not a map"),
            std::string::npos);
  EXPECT_NE(error_with({{"obstacles[1].radius", "1"}}).find("obstacles has no entry [1]"),
            std::string::npos);
  EXPECT_NE(error_with({{"obstacles[x].radius", "1"}}).find("malformed index"),
            std::string::npos);
}

// --help lists every section a job may have, each on a line of its own ("  <section>  what"),
// from the parser's own list: a section added to the parser and not to --help fails here.
TEST(CommandLine, HelpListsEverySectionTheParserAccepts) {
  const std::string help = sf::command_line_help();
  for (const std::string& section : sf::job_sections())
    EXPECT_NE(help.find("\n  " + section + " "), std::string::npos)
        << "--help does not list the job section '" << section << "'";
}

}  // namespace
