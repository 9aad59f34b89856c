// Implicit variable viscosity (Carlson et al. 2002; Cline et al. §7), backward Euler for the whole
// face velocity at once:
//
//   u - dt div( nu (grad u + grad u^T) ) = u*,      nu = nu(s) from a scalar s (ViscosityLaw),
//
// all components coupled in one symmetric positive definite system on the face DM
// (variable_viscosity.cpp explains the rows). Stable at any nu dt / h^2: the explicit step's
// limit h^2 / (2 dim nu) does not apply.
#pragma once

#include <memory>

#include "job.hpp"
#include "solids.hpp"

namespace sf {

/// The diffusion stage's velocity solve when the job's viscosity varies (options prefix
/// "viscosity_": -viscosity_ksp_monitor, -viscosity_pc_type gamg). Scalars keep the
/// Diffusion strategy.
class VariableViscosity {
public:
  VariableViscosity();
  ~VariableViscosity();
  VariableViscosity(const VariableViscosity&) = delete;  // owns PETSc objects through impl_
  VariableViscosity& operator=(const VariableViscosity&) = delete;

  /// Records the grid, the mask, the stopping rule and the law; creates the DM and the matrix
  /// (its nonzero structure, once). Refuses cut obstacles, whose faces it has no rows for.
  /// Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const SolverConfig& config,
                       const ViscosityLaw& law);

  /// Solves in place on the global vector of `velocity`, nu at each cell from the same cell of
  /// `scalar` (whose ghosts this fills). The matrix is refilled, and its KSP made anew, only
  /// when nu, dt or the mask changed since the last solve. `iterations` receives the solver's
  /// iterations. Collective.
  PetscErrorCode diffuse(Field& velocity, Field& scalar, double dt, PetscInt* iterations);

  /// The matrix of the last solve (owned by this object), for tests of its symmetry.
  Mat matrix() const;

  /// The least and largest nu over the cells of the last solve (for tests and reports).
  double min_viscosity() const;
  double max_viscosity() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sf
