// What the variable-viscosity solve (variable_viscosity.hpp; its rows are derived at the top of
// variable_viscosity.cpp) shares between its two files: variable_viscosity_setup.cpp (the DM,
// the matrix's pattern, the solver, the kinds of the samples) and variable_viscosity.cpp (the
// viscosity, the rows, the solve).
#pragma once

#include <petscksp.h>

#include <array>
#include <cstdint>
#include <vector>

#include "krylov_setup.hpp"
#include "variable_viscosity.hpp"
#include "vec_array.hpp"

namespace sf {

namespace viscous {

inline constexpr const char* kPrefix = "viscosity_";

// A PETSc log event around the whole solve (refill, KSPSolve, copy back), so that -log_view
// shows its count and seconds apart from the scalars' diffusion in the same stage.
inline PetscLogEvent solve_event = 0;

// Algebraic multigrid: at 1e6 times the explicit limit with nu random over three decades
// (tests/solvers/test_variable_viscosity.cpp, 20 x 16 cells, first solve, one rank) SOR alone
// took 134 iterations where hypre's BoomerAMG took 19 and PETSc's GAMG 44, and SOR's count grows
// with the grid where multigrid's does not (solvers/README.md, "Variable viscosity", has the
// measurements). BoomerAMG is also the default because its set-up depends on the matrix alone:
// with GAMG, even with a fresh KSP per refill, a run restarted from a checkpoint differed from an
// uninterrupted one by 3e-13 in the velocity (docs/design.md, "Restart", promises the same bits;
// presumably GAMG's coarsening has a random ordering whose sequence runs on from one set-up to
// the next). A PETSc
// built without hypre gets GAMG.
#if defined(PETSC_HAVE_HYPRE)
inline constexpr const char* kDefaultPreconditioner = PCHYPRE;
#else
inline constexpr const char* kDefaultPreconditioner = PCGAMG;
#endif

// With GAMG (the fallback, or -viscosity_pc_type gamg) the levels are smoothed by SOR sweeps
// (Richardson) unless the options say otherwise: its default, Chebyshev with estimated
// eigenvalues, let CG break down (DIVERGED_INDEFINITE_PC) on that test at 2 and 4 ranks once the
// velocity had decayed by many orders, and took more iterations where it did not (61 against 44
// in that test's first solve on one rank).
inline constexpr const char* kLevelSmoother[][2] = {{"mg_levels_ksp_type", KSPRICHARDSON},
                                             {"mg_levels_pc_type", PCSOR}};

using Index = std::array<PetscInt, 3>;

enum SampleKind : std::uint8_t {
  kFree = 0,
  kPrescribed = 1,
  kPrescribedFreeSlip = 2,  // a prescribed face touching a free-slip solid cell
  kOutside = 3,             // a tangential component on the face DM's extra upper layer
};

/// One sample of the face DM: component c at index m.
struct Sample {
  int c = 0;
  Index m{0, 0, 0};
};

/// A strain as an affine function of the unknowns: sum coef[n] u(sample[n]) + constant, ghosts
/// folded in. `direct` holds each unknown's own coefficient in the strain's difference, without
/// what a ghost folded onto it: the weight with which the stress enters that unknown's row.
struct Strain {
  int count = 0;
  std::array<Sample, 4> sample;
  std::array<double, 4> coef{};
  std::array<double, 4> direct{};
  double constant = 0.0;
};

/// Per-cell data over a box, x fastest.
struct CellArray {
  std::vector<double> data;
  Index lo{0, 0, 0};
  Index width{1, 1, 1};
  double operator()(const Index& m) const {
    return data[static_cast<size_t>(((m[2] - lo[2]) * width[1] + (m[1] - lo[1])) * width[0] +
                                    (m[0] - lo[0]))];
  }
};

}  // namespace viscous


struct VariableViscosity::Impl {
  const Grid* grid = nullptr;
  const SolidMask* solids = nullptr;
  SolverConfig config;
  ViscosityLaw law;
  int dim = 2;

  OwnedDM dm;
  OwnedMat matrix;
  OwnedKSP ksp;
  OwnedVec solution;
  OwnedVec rhs;
  IndexBox rows;  // the owned samples of the DM (every component; the extra layer included)

  // The kinds over the DM's ghosted extent (width 1), dof interleaved.
  std::vector<std::uint8_t> kinds;
  viscous::Index kinds_lo{0, 0, 0};
  viscous::Index kinds_width{1, 1, 1};
  int kinds_version = -1;

  // nu and log nu at the cells one layer around the owned cells; what the matrix holds.
  viscous::CellArray nu, log_nu;
  std::vector<double> assembled_nu;
  double assembled_dt = -1.0;
  int assembled_version = -1;
  double nu_min = 0.0, nu_max = 0.0;

  // What the row visitor reads during one solve.
  const Field* velocity = nullptr;
  ReadArray u_local;

  std::uint8_t kind(int c, const viscous::Index& m) const {
    return kinds[static_cast<size_t>(
        (((m[2] - kinds_lo[2]) * kinds_width[1] + (m[1] - kinds_lo[1])) * kinds_width[0] +
         (m[0] - kinds_lo[0])) *
            dim +
        c)];
  }

  /// The side (0 lower, 1 upper) of the domain that index m of component c lies beyond on the
  /// non-periodic axis a, or -1 if it lies within.
  int beyond(int c, const viscous::Index& m, int a) const {
    if (grid->periodic(a)) return -1;
    const PetscInt last = c == a ? grid->cells(a) : grid->cells(a) - 1;
    return m[a] < 0 ? 0 : (m[a] > last ? 1 : -1);
  }

  /// True if the edge e lies on an outflow side of axis a: the fluid there is free of
  /// tangential stress (the natural condition), so the edge is no part of the energy.
  bool on_outflow(const viscous::Index& e, int a) const {
    if (grid->periodic(a)) return false;
    if (e[a] == 0) return grid->boundary(a, 0) == BoundaryKind::Outflow;
    return e[a] == grid->cells(a) && grid->boundary(a, 1) == BoundaryKind::Outflow;
  }

  bool in_domain(int c, const viscous::Index& m) const {
    for (int a = 0; a < dim; ++a)
      if (beyond(c, m, a) >= 0) return false;
    return true;
  }

  PetscErrorCode create();
  PetscErrorCode create_matrix();
  PetscErrorCode make_solver();
  PetscErrorCode classify();
  PetscErrorCode evaluate_viscosity(Field& scalar, PetscBool* changed);
  void add(viscous::Strain& strain, int c, viscous::Index m, double coef) const;
  double edge_viscosity(const viscous::Index& e, int a, int b) const;
  template <typename Visit>
  void visit_stresses(int c, const viscous::Index& m, Visit&& visit) const;
  PetscErrorCode fill(double dt, bool assemble);
  PetscErrorCode take_solution(Field& field);
};

}  // namespace sf
