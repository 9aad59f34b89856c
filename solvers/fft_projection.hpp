// Pressure projection on a fully periodic box by FFT (Stam 1999, §2.3 and the appendix): the
// Projection of solvers/projection.hpp with the Poisson solve done exactly in Fourier space.
//
//   L p = div u* / dt   at cell centres,   u = u* - dt grad p   on every face,
//
// with div, grad and L = div grad the MAC grid's discrete operators (projection.hpp), so that
// div u = 0 to rounding after the projection rather than to a solver tolerance. The solve is
// PeriodicFft::solve_poisson (fft_periodic.hpp): one forward and one inverse real FFT of the
// divergence, divided by the discrete Laplacian's symbol per mode; the mean of p is 0.
#pragma once

#include "fft_periodic.hpp"
#include "projection.hpp"

namespace sf {

/// FFT projection for periodic boxes without obstacles (options prefix "pressure_").
class FftProjection : public Projection {
public:
  /// Checks that the box is periodic on every axis and has no solid cell, plans the FFTs and
  /// builds the scatters. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids);
  PetscErrorCode project(Field& velocity, double dt, ProjectionStats* stats) override;
  PetscErrorCode subtract_pressure_gradient(Field& velocity, double dt) override;
  PetscErrorCode project_increment(Field& velocity, double dt, ProjectionStats* stats) override;
  Vec pressure() const override { return pressure_; }
  double last_dt() const override { return last_dt_; }
  void set_last_dt(double dt) override { last_dt_ = dt; }

private:
  PetscErrorCode subtract_gradient(Field& velocity, double dt);

  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  PeriodicFft fft_;
  OwnedVec pressure_;  // a global vector of the grid's cell DM
  // Kept for the checkpoint only: a direct solve needs no initial guess to rescale.
  double last_dt_ = 0.0;
};

}  // namespace sf
