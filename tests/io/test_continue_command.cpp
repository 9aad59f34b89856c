// The command a stopped run prints to continue it: the whole command line as given, with its
// launcher, and `--restart latest` in place of any earlier --restart.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "build_info.hpp"

namespace {

using sf::continue_command;

TEST(ContinueCommand, KeepsTheLauncherTheJobAndItsSetFlags) {
  EXPECT_EQ(continue_command("mpiexec -n 4", {"build/stablefluids", "jobs/plume_3d.yaml", "--set",
                                              "time.end=2", "-log_view"}),
            "mpiexec -n 4 build/stablefluids jobs/plume_3d.yaml --set time.end=2 -log_view "
            "--restart latest");
  EXPECT_EQ(continue_command("", {"./stablefluids", "job.yaml"}),
            "./stablefluids job.yaml --restart latest");
}

TEST(ContinueCommand, ReplacesAnEarlierRestartInEverySpelling) {
  const std::string expected = "srun -n 8 sf job.yaml --set a=1 --restart latest";
  EXPECT_EQ(continue_command("srun -n 8", {"sf", "job.yaml", "--restart", "out/c_000010.h5",
                                           "--set", "a=1"}),
            expected);
  EXPECT_EQ(continue_command("srun -n 8", {"sf", "--restart=latest", "job.yaml", "--set", "a=1"}),
            expected);
  EXPECT_EQ(continue_command("srun -n 8", {"sf", "job.yaml", "-restart", "latest", "--set", "a=1"}),
            expected);
  // A --restart without a value (an option follows) takes nothing else with it.
  EXPECT_EQ(continue_command("srun -n 8", {"sf", "job.yaml", "--restart", "--set", "a=1"}),
            expected);
}

TEST(ContinueCommand, QuotesWhatTheShellWouldSplit) {
  EXPECT_EQ(continue_command("mpiexec -n 2", {"sf", "my job.yaml", "--set", "name=it's"}),
            "mpiexec -n 2 sf 'my job.yaml' --set 'name=it'\\''s' --restart latest");
}

TEST(ContinueCommand, NamesTheRanksOfAnyRunOfSeveral) {
  // Whatever the environment says of the launcher, several ranks need one that starts them.
  EXPECT_NE(sf::launcher_prefix(3).find("-n 3"), std::string::npos);
}

TEST(ContinueCommand, GoesThroughTheScriptThatStartedTheRun) {
  // jobs/run names itself with its ranks, in place of launcher and program: it starts the
  // display a rendering job needs, which a bare mpiexec would not.
  ASSERT_EQ(setenv("STABLEFLUIDS_CONTINUE_WITH", "jobs/run -n 2", 1), 0);
  EXPECT_EQ(sf::continue_this_run(2, "plume.yaml"), "jobs/run -n 2 plume.yaml --restart latest");
  ASSERT_EQ(unsetenv("STABLEFLUIDS_CONTINUE_WITH"), 0);
  // jobs/slurm/with_display, in front of each rank under srun, goes between launcher and program.
  ASSERT_EQ(setenv("STABLEFLUIDS_RANK_WRAPPER", "jobs/slurm/with_display", 1), 0);
  const std::string command = sf::continue_this_run(3, "plume.yaml");
  EXPECT_NE(command.find("-n 3 jobs/slurm/with_display stablefluids plume.yaml --restart latest"),
            std::string::npos)
      << command;
  ASSERT_EQ(unsetenv("STABLEFLUIDS_RANK_WRAPPER"), 0);
}

}  // namespace
