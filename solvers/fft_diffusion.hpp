// Backward-Euler diffusion on a fully periodic box by FFT (Stam 1999, §2.3 and the appendix):
// the Diffusion of solvers/diffusion.hpp solved exactly in Fourier space,
//
//   (I - k dt L) q = q*,      q^(m) = q*^(m) / (1 + k dt sum_a 4 / h_a^2 sin^2(pi m_a / n_a)),
//
// for every component on its own sample location: a periodic grid shifted by half a cell has the
// same modes and the same symbol, so cell-centred scalars and each velocity component on its
// faces take the same solve (PeriodicFft::solve_helmholtz, fft_periodic.hpp).
#pragma once

#include "diffusion.hpp"
#include "fft_periodic.hpp"

namespace sf {

/// FFT diffusion for periodic boxes without obstacles (options prefix "diffusion_").
class FftDiffusion : public Diffusion {
public:
  /// Checks the box (periodic on every axis, no solid cell), plans the FFTs and builds the
  /// scatters. Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids);
  /// `iterations` receives 0: the solve is direct.
  PetscErrorCode diffuse(Field& field, double coefficient, double dt,
                         PetscInt* iterations) override;

private:
  const Grid* grid_ = nullptr;
  PeriodicFft fft_;
};

}  // namespace sf
