// Detection of a bad state: NaN or Inf in any field.
//
// Why this exists: a single non-finite value does not stay where it appeared. The next pressure
// solve couples every cell of the domain, so within a step or two the whole velocity and pressure
// field is NaN, and a frame written then says nothing about where or when things went wrong.
// Catching the value in the step it appears, and naming the field, the component and the sample
// index (with its physical position), is what makes such a failure debuggable: it points at the
// stage, the boundary or the obstacle that produced it.
//
// The scan is one pass over the owned values with std::isfinite and one reduction when the state
// is clean, so it can run after every step. Every rank reports the same value: the first bad one
// in a fixed global order, which does not depend on the number of ranks or the decomposition.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "field.hpp"

namespace sf {

/// A non-finite value found in the state: the field, its component, the global index of the
/// sample (cell (i,j,k) for scalars and pressure, face (i,j,k) of component c for velocity),
/// the physical position of that sample (entries beyond the grid's dimension are 0), and the
/// value (NaN or +-Inf). `stagger` is the axis on which the component is face-centred (-1 for
/// cell-centred values), so that describe() can say "face" or "cell".
struct BadValue {
  std::string field;
  int component = 0;
  int stagger = -1;
  PetscInt i = 0, j = 0, k = 0;
  double x[3] = {0.0, 0.0, 0.0};
  double value = 0.0;
};

/// Scans the owned values of every given field (global vectors; the velocity's unused tangential
/// slots in the face DM's extra layer are skipped) and then `pressure` for NaN and Inf.
/// Collective: every rank learns whether any rank found one, and all ranks agree on which one is
/// reported: the first in a fixed global order (field order as given with the pressure last, then
/// component, then k, j, i), so the message does not depend on the rank count. `found` is false
/// (and `bad` untouched) when the state is clean.
/// `pressure` may be null; otherwise it is a global vector of grid.cell_dm()'s layout, reported
/// as "pressure". Every field must live on `grid`; a field of another grid or a pressure vector
/// of the wrong size on any rank is an error on every rank (PETSC_ERR_ARG_INCOMP).
/// With a finite `limit`, a finite value larger than it in magnitude counts as bad too (the
/// blown-up velocity check in Simulation).
PetscErrorCode find_bad_value(const Grid& grid, const std::vector<const Field*>& fields,
                              Vec pressure, bool* found, BadValue* bad,
                              double limit = HUGE_VAL);

/// The NaN/Inf stop for a linear solve that met NaN or Inf (a Krylov solve that ended with
/// KSP_DIVERGED_NANORINF, a right-hand side whose norm overflows): raises, on every rank,
/// PETSC_ERR_FP naming the first non-finite value of `input` (the field whose values made the
/// right-hand side) or else of `solution` (a cell-layout vector, may be null), and if both are
/// finite, says that the values are too large. `solve` names it ("pressure solve"), `symptom`
/// says what happened ("stopped with DIVERGED_NANORINF"). Collective; always returns an error.
PetscErrorCode stop_non_finite_solve(const Grid& grid, const char* solve, const char* symptom,
                                     const Field& input, Vec solution);

/// "NaN in density at cell (12, 40, 7) (x = 0.39, 1.27, 0.23)", or for a staggered component
/// "Inf in velocity component 1 at face (3, 0, 5) (x = ...)" ("-Inf" for negative infinity),
/// or for a finite value over a limit "velocity component 1 = 5.6e+206 at face (3, 0, 5) ...";
/// in 2D the index and the position have two entries. The one-line description used in the
/// error message (the caller adds the step).
std::string describe(const BadValue& bad, int dim);

}  // namespace sf
