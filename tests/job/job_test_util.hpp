// What the job tests (tests/job/) share: a minimal valid job to append malformed sections to,
// the message a job is refused with, and the wording of the limits (jobs/README.md "Limits")
// that both the table of refused jobs and the limit tests expect.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "job.hpp"

namespace sf::test {

// A minimal valid job: five lines, so text appended to it starts on line 6.
inline const std::string kHead =
    "grid:\n"            // line 1
    "  cells: [8, 8]\n"  // line 2
    "time:\n"            // line 3
    "  dt: 0.1\n"        // line 4
    "  end: 1.0\n";      // line 5

/// The JobError message for `text`, or a marker that no error was thrown.
inline std::string error_of(const std::string& text, const std::string& source = "job.yaml") {
  try {
    sf::parse_job(text, source);
  } catch (const sf::JobError& e) {
    return e.what();
  }
  return "<no JobError thrown>";
}

inline ::testing::AssertionResult Contains(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "message \"" << message << "\"\n  lacks \"" << part
                                       << "\"";
}

// --- the limits' messages (jobs/README.md "Limits")

inline const std::string kTooLarge =
    " in magnitude (larger values overflow in the products a step forms, such as viscosity * dt "
    "/ h^2), got ";
inline const std::string kTooSmall =
    " (smaller values underflow, or overflow as reciprocals, in the products a step forms, such as "
    "viscosity * dt / h^2), got ";
inline const std::string kAtMost = "must be at most 1e+30" + kTooLarge;
inline const std::string kAtLeast = "must be at least 1e-30" + kTooSmall;
inline const std::string kZeroOr = "must be 0 or at least 1e-30" + kTooSmall;
inline const std::string kStepsAllow =
    ", more than the 99999999 that 8-digit step numbers in checkpoint names "
    "(<name>_checkpoint_NNNNNNNN.h5) allow, got ";
// 255 bytes less "_failed_step" + 10 digits + "_000000.h5.tmp".
inline const std::string kLongestName(219, 'n');

}  // namespace sf::test
