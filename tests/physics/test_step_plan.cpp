// The anchors of a step and the registry of physics modules (src/physics/module.hpp), without a
// Simulation: stages at an anchor run in the order they were attached, each between the start
// and the stop of its own clock; a scheme that lacks an anchor a stage was attached to is refused
// naming both; the job's modules come in the order of modules.def, only those it names.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "module.hpp"
#include "petsc_test_util.hpp"

namespace sf {
namespace {

TEST(StepPlan, RunsAnAnchorsStagesInOrderEachOnItsClock) {
  StepPlan plan;
  std::vector<std::string> log;
  const auto stage = [&log](const char* name, std::optional<Stage> clock) -> StepStage {
    return {name, clock, [&log, name](double dt) {
              log.push_back(std::string(name) + "@" + std::to_string(dt));
              return PetscErrorCode(0);
            }};
  };
  plan.attach(Anchor::AfterForces, stage("burn", Stage::Forces));
  plan.attach(Anchor::EndOfStep, stage("texture", std::nullopt));
  plan.attach(Anchor::AfterForces, stage("elastic", Stage::Forces));
  const auto timed = [&log](std::optional<Stage> clock, bool begin) -> PetscErrorCode {
    if (clock) log.push_back(std::string(begin ? "begin " : "end ") + stage_name(*clock));
    return 0;
  };
  ASSERT_EQ(plan.run(Anchor::AfterForces, 0.5, timed), 0);
  ASSERT_EQ(plan.run(Anchor::Sources, 0.5, timed), 0);  // nothing there
  ASSERT_EQ(plan.run(Anchor::EndOfStep, 0.25, timed), 0);
  const std::vector<std::string> want = {"begin forces", "burn@0.500000",  "end forces",
                                         "begin forces", "elastic@0.500000", "end forces",
                                         "texture@0.250000"};
  EXPECT_EQ(log, want);
}

TEST(StepPlan, KnowsWhichAnchorsLeaveTheScalarsGhostsStale) {
  StepPlan plan;
  const auto nothing = [](double) { return PetscErrorCode(0); };
  plan.attach(Anchor::AfterForces, {"elastic", Stage::Forces, nothing, false});
  EXPECT_FALSE(plan.stales_scalars({Anchor::AfterForces}));
  plan.attach(Anchor::AfterForces, {"burn", Stage::Forces, nothing, true});
  EXPECT_TRUE(plan.stales_scalars({Anchor::AfterForces}));
  EXPECT_FALSE(plan.stales_scalars({Anchor::Sources, Anchor::EndOfStep}));
}

TEST(StepPlan, RefusesAStageAtAnAnchorTheSchemeLacks) {
  StepPlan plan;
  plan.attach(Anchor::EndOfStep, {"texture", std::nullopt, [](double) { return 0; }});
  std::string message;
  EXPECT_EQ(test::catching_errors(
                [&] {
                  return plan.check_scheme(PETSC_COMM_WORLD, "BDF2",
                                           {Anchor::StepStart, Anchor::Sources, Anchor::Forces});
                },
                &message),
            PETSC_ERR_SUP);
  EXPECT_NE(message.find("\"texture\" acts at \"end of step\", which the BDF2 step does not have"),
            std::string::npos)
      << message;
  EXPECT_EQ(plan.check_scheme(PETSC_COMM_WORLD, "Stam", {Anchor::EndOfStep}), 0);
}

std::vector<std::string> module_names(const std::string& sections) {
  const JobConfig job = parse_job("grid: {cells: [8, 8]}\nboundary: {x: periodic, y: periodic}\n"
                                      "time: {dt: 0.1, end: 1}\n" +
                                      sections,
                                  "modules.yaml");
  std::vector<std::string> names;
  for (const std::unique_ptr<PhysicsModule>& module : make_modules(job))
    names.push_back(module->name());
  return names;
}

TEST(Modules, AreTheJobsOwnInTheOrderOfTheRegistry) {
  EXPECT_EQ(module_names(""), (std::vector<std::string>{"diagnostics", "forcing"}));
  // Texture is registered after fire: its reset ends the step, after fire's burn.
  EXPECT_EQ(module_names("scalars: {fuel: {}, temperature: {}}\n"
                         "fire: {fuel: fuel, temperature: temperature, burn_rate: 8, ignition_temperature: 0.25,\n"
                         "       heat: 1.5}\n"
                         "texture: {period: 1}\n"),
            (std::vector<std::string>{"diagnostics", "forcing", "fire", "texture"}));
}

}  // namespace
}  // namespace sf
