// time.steady: the largest change of the velocity and every scalar over one step, from copies
// of the fields taken before it.
#pragma once

#include <vector>

#include "field.hpp"

namespace sf {

class ChangeWatch {
public:
  /// Copies the fields into vectors borrowed from their DMs' pools. Collective.
  PetscErrorCode begin(const Field& velocity, const std::vector<Field>& scalars);
  /// max over the fields of max |q_now - q_before|; returns the copies to their pools.
  /// Collective.
  PetscErrorCode end(const Field& velocity, const std::vector<Field>& scalars, double* change);

private:
  std::vector<Vec> copies_;
  std::vector<DM> dms_;
};

}  // namespace sf
