// The two viscous steps of the velocity behind one interface (velocity_diffusion.hpp).
#include "velocity_diffusion.hpp"

#include <algorithm>

#include "variable_viscosity.hpp"

namespace sf {
namespace {

/// A constant viscosity: the component-wise diffusion the scalars use too.
class ConstantViscosity final : public VelocityDiffusion {
public:
  ConstantViscosity(Diffusion* diffusion, double viscosity)
      : diffusion_(diffusion), viscosity_(viscosity) {}
  PetscErrorCode diffuse(Field& velocity, std::vector<Field>&, double dt,
                         PetscInt* iterations) override {
    return diffusion_->diffuse(velocity, viscosity_, dt, iterations);
  }

private:
  Diffusion* diffusion_;
  double viscosity_;
};

/// A viscosity that follows a scalar: one coupled solve for all components.
class ViscosityOfAScalar final : public VelocityDiffusion {
public:
  explicit ViscosityOfAScalar(size_t scalar) : scalar_(scalar) {}
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const JobConfig& job) {
    return solve_.setup(grid, solids, job.diffusion, job.fluid.variable);
  }
  PetscErrorCode diffuse(Field& velocity, std::vector<Field>& scalars, double dt,
                         PetscInt* iterations) override {
    return solve_.diffuse(velocity, scalars[scalar_], dt, iterations);
  }

private:
  size_t scalar_;  // its index among the job's scalars
  VariableViscosity solve_;
};

}  // namespace

PetscErrorCode make_velocity_diffusion(const Grid& grid, const SolidMask& solids,
                                       const JobConfig& job, Diffusion* diffusion,
                                       std::unique_ptr<VelocityDiffusion>* result) {
  PetscFunctionBeginUser;
  if (!job.fluid.variable.enabled()) {
    *result = std::make_unique<ConstantViscosity>(diffusion, job.fluid.viscosity);
    PetscFunctionReturn(0);
  }
  // The parser checked that the scalar is declared.
  const auto named = std::find_if(job.scalars.begin(), job.scalars.end(),
                                  [&](const ScalarConfig& s) {
                                    return s.name == job.fluid.variable.scalar;
                                  });
  PetscCheck(named != job.scalars.end(), grid.comm(), PETSC_ERR_ARG_WRONG,
             "the viscosity follows \"%s\", which is not a scalar of the job",
             job.fluid.variable.scalar.c_str());
  auto variable =
      std::make_unique<ViscosityOfAScalar>(static_cast<size_t>(named - job.scalars.begin()));
  PetscCall(variable->setup(grid, solids, job));
  *result = std::move(variable);
  PetscFunctionReturn(0);
}

}  // namespace sf
