// Fire (job.hpp FireConfig): fuel burns into heat and soot where it is hot enough, and the burnt
// gas may expand. Per fluid cell and step, with F the fuel, T the temperature, S the soot:
//
//   b = F (1 - exp(-k dt))  where T >= T_ignition, else 0     (dF/dt = -k F, integrated exactly)
//   F -= b,   T += heat b,   S += soot_yield b,
//   D = expansion b / dt                                      (the divergence the projection gives)
//
// so F + S / soot_yield is kept to rounding, and the fuel never goes negative however large dt.
// The reaction reads only its own cell: the same bits on any rank count. D is a global vector of
// the cell DM that the projection reads (Projection::set_divergence_source); the burnt gas flows
// out through the domain's outflow faces.
#pragma once

#include <vector>

#include "field.hpp"
#include "job.hpp"
#include "solids.hpp"

namespace sf {

class Fire {
public:
  /// Resolves the scalars by name and, with an expansion, creates the divergence source (zero
  /// until the first burn). Collective.
  PetscErrorCode setup(const Grid& grid, const SolidMask& solids, const FireConfig& config,
                       const std::vector<ScalarConfig>& scalars);
  bool enabled() const { return config_.enabled; }
  /// Burns over a step of dt on the global vectors of `scalars`; sets the divergence source.
  /// `burnt`, if given, receives the fuel burnt over the whole domain (the sum over cells of b
  /// times the cell volume). Collective (the sum).
  PetscErrorCode burn(std::vector<Field>& scalars, double dt, double* burnt = nullptr);
  /// The divergence source D (cell DM, global), or null without expansion.
  Vec divergence_source() const { return source_; }

private:
  const Grid* grid_ = nullptr;
  const SolidMask* solids_ = nullptr;
  FireConfig config_;
  int fuel_ = -1, temperature_ = -1, soot_ = -1;  // indices into the scalars; soot -1: none
  OwnedVec source_;
};

}  // namespace sf
