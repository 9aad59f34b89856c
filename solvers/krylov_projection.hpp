// Krylov + multigrid pressure projection with PETSc: the Projection of solvers/projection.hpp
// as a CG solve on the cell-centred Poisson matrix (krylov_projection.cpp explains the rows).
#pragma once

#include <memory>

#include "projection.hpp"

namespace sf {

/// Krylov + multigrid projection with PETSc (options prefix "pressure_").
class KrylovProjection : public Projection {
public:
  KrylovProjection();
  ~KrylovProjection() override;
  KrylovProjection(const KrylovProjection&) = delete;  // owns PETSc objects through impl_
  KrylovProjection& operator=(const KrylovProjection&) = delete;
  /// Builds the pressure DM (cell-centred, stencil width 1, the cell DM's ownership ranges),
  /// the KSP with its defaults (see solvers/README.md) and assembles the operator. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const SolverConfig& config);
  PetscErrorCode project(Field& velocity, double dt, ProjectionStats* stats) override;
  PetscErrorCode subtract_pressure_gradient(Field& velocity, double dt) override;
  PetscErrorCode project_increment(Field& velocity, double dt, ProjectionStats* stats) override;
  PetscErrorCode set_divergence_source(Vec source) override;
  Vec pressure() const override;
  double last_dt() const override;
  void set_last_dt(double dt) override;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sf
