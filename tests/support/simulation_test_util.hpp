// Helpers for tests that drive a whole Simulation step by step.
#pragma once

#include <cstring>
#include <string>

#include "simulation.hpp"

namespace sf::test {

/// Takes `steps` steps of dt. Collective.
inline PetscErrorCode run_steps(Simulation& simulation, double dt, int steps) {
  PetscFunctionBeginUser;
  for (int s = 0; s < steps; ++s) {
    StepReport report;
    PetscCall(simulation.step(dt, &report));
  }
  PetscFunctionReturn(0);
}

/// 0 if this rank's owned values of x and y are the same bits, 1 if not (sum over ranks with
/// global_sum).
inline long differs_bitwise(Vec x, Vec y) {
  const PetscScalar *p = nullptr, *q = nullptr;
  PetscInt n = 0, m = 0;
  if (VecGetLocalSize(x, &n) || VecGetLocalSize(y, &m) || n != m) return 1;
  if (VecGetArrayRead(x, &p)) return 1;
  if (VecGetArrayRead(y, &q)) {
    VecRestoreArrayRead(x, &p);
    return 1;
  }
  const bool equal = std::memcmp(p, q, static_cast<size_t>(n) * sizeof(PetscScalar)) == 0;
  const bool restored = !VecRestoreArrayRead(y, &q) && !VecRestoreArrayRead(x, &p);
  return equal && restored ? 0 : 1;
}

/// Runs `f` (returning a PetscErrorCode) with PETSc's error handler replaced by one that keeps
/// the first error's message in *message; returns what f returned.
template <typename F>
PetscErrorCode catching_errors(F&& f, std::string* message) {
  const auto remember = [](MPI_Comm, int, const char*, const char*, PetscErrorCode code,
                           PetscErrorType, const char* text, void* context) -> PetscErrorCode {
    auto* first = static_cast<std::string*>(context);
    if (first->empty() && text) *first = text;
    return code;
  };
  if (PetscPushErrorHandler(remember, message)) return PETSC_ERR_LIB;
  const PetscErrorCode status = f();
  PetscPopErrorHandler();
  return status;
}

/// Takes up to `steps` steps of dt, stopping at the first that fails; returns its error code
/// (0 if none failed) and the first error's message in *message.
inline PetscErrorCode run_until_failure(Simulation& simulation, double dt, int steps,
                                        std::string* message) {
  return catching_errors(
      [&]() -> PetscErrorCode {
        PetscErrorCode code = 0;
        for (int s = 0; s < steps && !code; ++s) code = run_steps(simulation, dt, 1);
        return code;
      },
      message);
}

}  // namespace sf::test
