// One body force of step 2 in docs/design.md, "One step" (Stam §2.2 step 1): an acceleration f_c
// evaluated on the faces of the MAC grid from the state at the start of the step, added as
// u_c += dt f_c straight into the velocity's global vector on the free faces. Every force reads
// the ghosted local vectors, which no force writes, so no force sees another's increment; Forces
// (forces.hpp) runs them in a fixed order, which fixes the bits on any number of ranks. A new
// force (fire's expansion, a liquid's gravity on marker cells) is a class behind this interface
// and one line in Forces::setup (forces.cpp).
#pragma once

#include <array>
#include <vector>

#include "field.hpp"
#include "solids.hpp"

namespace sf {

/// The owned faces of every velocity component that are free, i.e. not prescribed by a wall, an
/// inflow or a solid (SolidMask::fixed_face), as runs of consecutive faces along x. Built once per
/// mask, so a force visits its faces without looking the mask up per face and force (that lookup
/// in every force's pass cost ~13 % of the forces stage, commit 69bd608). About 16 bytes per run,
/// one run per row of faces plus one per obstacle crossing: ~0.1 byte per cell at 128^3.
class FreeFaces {
public:
  /// Finds the runs of `solids` on this rank's owned faces. No communication.
  void setup(const Grid& grid, const SolidMask& solids);
  /// The mask version the runs were built from (SolidMask::version).
  int version() const { return version_; }

  /// Calls visit(c, i, j, k) for every free face of component c in face plane k (z index).
  template <class Visit>
  void for_each_in_plane(int c, PetscInt k, Visit&& visit) const {
    const std::vector<size_t>& first = plane_first_[c];
    const PetscInt p = k - plane_lo_[c];
    if (p < 0 || p + 1 >= static_cast<PetscInt>(first.size())) return;
    for (size_t r = first[static_cast<size_t>(p)]; r < first[static_cast<size_t>(p) + 1]; ++r) {
      const Run& run = runs_[c][r];
      for (PetscInt i = run.begin; i < run.end; ++i) visit(c, i, run.j, k);
    }
  }
  /// Calls visit(j, begin, end) for every run of free faces (begin .. end-1, j, k) of
  /// component c in face plane k.
  template <class Visit>
  void for_each_run_in_plane(int c, PetscInt k, Visit&& visit) const {
    const std::vector<size_t>& first = plane_first_[c];
    const PetscInt p = k - plane_lo_[c];
    if (p < 0 || p + 1 >= static_cast<PetscInt>(first.size())) return;
    for (size_t r = first[static_cast<size_t>(p)]; r < first[static_cast<size_t>(p) + 1]; ++r)
      visit(runs_[c][r].j, runs_[c][r].begin, runs_[c][r].end);
  }
  /// Calls visit(j, k, begin, end) for every run of free faces (begin .. end-1, j, k) of
  /// component c: for forces that walk a row with pointers.
  template <class Visit>
  void for_each_run(int c, Visit&& visit) const {
    for (const Run& run : runs_[c]) visit(run.j, run.k, run.begin, run.end);
  }
  /// Calls visit(c, i, j, k) for every free face of component c.
  template <class Visit>
  void for_each(int c, Visit&& visit) const {
    for (const Run& run : runs_[c])
      for (PetscInt i = run.begin; i < run.end; ++i) visit(c, i, run.j, run.k);
  }
  /// Calls visit(c, i, j, k) for every free face of every component.
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (int c = 0; c < dim_; ++c) for_each(c, visit);
  }

private:
  struct Run {
    PetscInt j, k, begin, end;  // faces (begin..end-1, j, k)
  };
  int dim_ = 0;
  int version_ = -1;
  std::array<std::vector<Run>, 3> runs_;                // per component, ordered by (k, j, i)
  std::array<std::vector<size_t>, 3> plane_first_;      // first run of each face plane, + end
  std::array<PetscInt, 3> plane_lo_{0, 0, 0};           // the first face plane per component
};

/// What a force reads: the state on entry to the step, ghosts filled, and the faces it may change.
struct ForceState {
  const Field& velocity;
  const std::vector<Field>& scalars;
  const FreeFaces& faces;
  double dt;
  double time;  // when the step begins: what forces that vary in time are evaluated at
};

/// u += dt f on one face, except that a zero force is no update: the face keeps its bits, a
/// signed zero included.
inline void accelerate(PetscScalar& u, double dt, double f) {
  if (f != 0.0) u += dt * f;
}

class Force {
public:
  virtual ~Force() = default;
  /// Adds dt f_c to u(i, j, k, c) on every free face of state.faces (`u` views the owned faces of
  /// the velocity's global vector), through accelerate(). Reads the state from the ghosted local
  /// vectors only. Collective where the force exchanges a halo.
  virtual PetscErrorCode add_to(const ForceState& state, const ArrayView& u) = 0;
  /// The PETSc log event of this force (-log_view, inside the "forces" stage).
  virtual const char* event_name() const = 0;
};

}  // namespace sf
