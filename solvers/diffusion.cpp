// The diffusion stage's strategy table.
#include "diffusion.hpp"

#include "fft_diffusion.hpp"
#include "krylov_diffusion.hpp"

namespace sf {

PetscErrorCode make_diffusion(const Grid& grid, const SolidMask& solids, const SolverConfig& config,
                              std::unique_ptr<Diffusion>* diffusion) {
  PetscFunctionBeginUser;
  if (config.method == SolverConfig::Method::Fft) {
    auto fft = std::make_unique<FftDiffusion>();
    PetscCall(fft->setup(grid, solids));
    *diffusion = std::move(fft);
    PetscFunctionReturn(0);
  }
  auto krylov = std::make_unique<KrylovDiffusion>();
  PetscCall(krylov->setup(grid, solids, config));
  *diffusion = std::move(krylov);
  PetscFunctionReturn(0);
}

}  // namespace sf
