// time.steady: how much one step changed the fields (change_watch.hpp).
#include "change_watch.hpp"

#include <algorithm>

namespace sf {

PetscErrorCode ChangeWatch::begin(const Field& velocity, const std::vector<Field>& scalars) {
  PetscFunctionBeginUser;
  // Pooled copies: borrowed for the step, as the stages borrow theirs.
  copies_.resize(1 + scalars.size());
  dms_.resize(copies_.size());
  for (size_t q = 0; q < copies_.size(); ++q) {
    const Field& field = q == 0 ? velocity : scalars[q - 1];
    dms_[q] = field.dm();
    PetscCall(DMGetGlobalVector(dms_[q], &copies_[q]));
    PetscCall(VecCopy(field.global(), copies_[q]));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ChangeWatch::end(const Field& velocity, const std::vector<Field>& scalars,
                                double* change) {
  PetscFunctionBeginUser;
  *change = 0.0;
  for (size_t q = 0; q < copies_.size(); ++q) {
    const Field& field = q == 0 ? velocity : scalars[q - 1];
    PetscReal largest = 0.0;
    PetscCall(VecAYPX(copies_[q], -1.0, field.global()));
    PetscCall(VecNorm(copies_[q], NORM_INFINITY, &largest));
    *change = std::max(*change, static_cast<double>(largest));
    PetscCall(DMRestoreGlobalVector(dms_[q], &copies_[q]));
  }
  copies_.clear();
  PetscFunctionReturn(0);
}

}  // namespace sf
