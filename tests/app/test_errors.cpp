// Exit statuses (src/app/errors.hpp): only the project's own bad-job code maps to status 2, every
// PETSc code to 1, PETSc's "user input" error included; and a CPU without the build's
// instructions on any rank stops every rank with one agreed error.
#include <gtest/gtest.h>

#include <string>

#include "error_codes.hpp"
#include "errors.hpp"
#include "mpi_test_util.hpp"
#include "simulation_test_util.hpp"

namespace sf {
namespace {

// Every rank fails with the same code here, as rule 1 has them do, so each gets the status
// straight away.
TEST(ExitStatus, OnlyTheProjectsBadJobCodeIsStatus2) {
  EXPECT_GT(kErrorBadJob, PETSC_ERR_MAX_VALUE);  // outside every code PETSc raises
  EXPECT_EQ(settle_failure(kErrorBadJob), kExitBadJob);
  EXPECT_EQ(settle_failure(0, true), kExitBadJob);  // a JobError, an exception
  // PETSc raises PETSC_ERR_USER_INPUT itself in places that say nothing of the job.
  EXPECT_EQ(settle_failure(PETSC_ERR_USER_INPUT), kExitFailed);
  for (PetscErrorCode code = PETSC_ERR_MIN_VALUE + 1; code < PETSC_ERR_MAX_VALUE; ++code)
    EXPECT_EQ(settle_failure(code), kExitFailed) << "PETSc code " << code;
}

// The CPU check: when one rank's CPU lacks the instructions (the last rank here), every rank
// raises the same error on the communicator, which names how many lack them; when none does,
// none raises anything.
TEST(ExitStatus, ACpuWithoutTheInstructionsStopsEveryRankTogether) {
  std::string message;
  EXPECT_EQ(test::catching_errors([] { return agree_on_cpu(PETSC_COMM_WORLD, true); }, &message),
            0);
  EXPECT_EQ(message, "");
  const bool supported = test::comm_rank() != test::comm_size() - 1;
  const PetscErrorCode code = test::catching_errors(
      [&] { return agree_on_cpu(PETSC_COMM_WORLD, supported); }, &message);
  EXPECT_EQ(code, PETSC_ERR_SUP_SYS);
  EXPECT_NE(message.find("the CPU of 1 of the " + std::to_string(test::comm_size()) +
                         " ranks lacks AVX2, FMA or BMI2"),
            std::string::npos)
      << message;
  EXPECT_EQ(settle_failure(code), kExitFailed);
  // This machine runs the tests, so it has what the build needs.
  EXPECT_TRUE(cpu_supported());
}

}  // namespace
}  // namespace sf
