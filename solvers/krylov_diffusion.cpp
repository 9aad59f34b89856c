// Implicit diffusion (Stam §2.2 step 3), backward Euler for every component q of a field:
//
//   (I - k dt lap) q = q*,      k = nu (velocity) or kappa (scalars),
//
// each component on its own sample location of the MAC cell (i, j, k), spacing h_a per axis:
//   scalars                  at the cell centre;
//   velocity component c     at the centre of the lower face of the cell in direction c, so
//                            along axis c the samples run over the faces 0..n (n + 1 of them on a
//                            non-periodic axis) and along the other axes over the cells.
//
// Row of a free sample, with a = k dt:
//   (1 + a sum_a 2 / h_a^2) q - sum over the 2 dim neighbours (a / h_a^2) q_neighbour = q*.
// A neighbour beyond a non-periodic domain side is a ghost given by the component's GhostFill
// on that side (field.hpp): Even g = q(mirror), Odd g = 2 v - q(mirror), Gradient (scalars)
// g = q(mirror) + h G, the mirror being index 1
// (staggered on that axis) or 0 below the domain and n - 1 above it; the ghost's coefficient
// folds onto the mirror sample (or the diagonal, when the mirror is the sample itself) and the
// 2 v term moves to the right-hand side. A neighbour whose value is prescribed (a fixed face,
// SolidMask::fixed_face) is a known value and moves to the right-hand side too, which keeps the
// matrix symmetric. A scalar's cell that is solid, or whose centre lies inside a cut obstacle,
// keeps its value; a free neighbour sees the obstacle's surface where it crosses the line
// between them, at theta h (SolidMask::surface_crossing: 1/2 for a staircase), with the
// obstacle's condition for that scalar: no flux (the neighbour and its share of the diagonal
// drop out); a value v held there, the ghost q_s + (v - q_s) / theta (Gibou, Fedkiw, Cheng &
// Kang 2002; only the diagonal and the right-hand side change); or a flux, the ghost
// q_s + h G |n_a|. A velocity component sees the solid's face velocity (a known value,
// 0 for static obstacles), except across a free-slip obstacle, where the tangential neighbour
// mirrors the sample itself (no flux). A prescribed sample keeps its value: identity row.
// A velocity sample whose centre lies inside a cut obstacle (solids.hpp) is kept as well, and a
// free neighbour of it sees the obstacle's surface where it crosses the line between them:
// 0 there (no-slip, Gibou, Fedkiw, Cheng & Kang 2002: only the diagonal changes) or no flux
// (free slip).
//
// Symmetry: the only folded coefficient that lands off the diagonal is the Even mirror of a free
// boundary face (an outflow face of the normal component), whose row gets 2 a / h^2 on q(1)
// (or q(n - 1)) against a / h^2 in the neighbour's row. That row is scaled by 1/2, which makes
// the matrix symmetric and, being strictly diagonally dominant, positive definite: CG applies
// at every location.
#include "krylov_diffusion.hpp"

#include <petscksp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "health.hpp"
#include "krylov_setup.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

constexpr const char* kPrefix = "diffusion_";

// The default preconditioner, chosen from the measurements in solvers/README.md.
constexpr const char* kDefaultPreconditioner = PCSOR;

// Locations 0..2 are the faces normal to x, y, z; location 3 the cell centres.
constexpr int kCellLocation = 3;

using Index = std::array<PetscInt, 3>;
using SideFills = std::array<std::array<GhostFill, 2>, 3>;

/// One term of a row of the backward-Euler system.
enum class Term {
  Unknown,   // coefficient of an unknown sample (the diagonal included)
  Known,     // coefficient of a prescribed sample: its value moves to the right-hand side
  Constant,  // a constant on the left-hand side (the 2 v of an Odd ghost or the h G of a
             // Gradient one, times its weight)
};

/// What a sample of a location is, over the location DM's ghosted extent (width 1), so rows
/// can ask about neighbours owned by other ranks. A face's status depends on both cells it
/// touches, one of which may lie beyond the solid mask's halo for a ghost face; the flags are
/// therefore computed where the face is owned and exchanged like any field.
enum SampleKind : std::uint8_t {
  kFree = 0,
  kPrescribed = 1,
  kPrescribedFreeSlip = 2,  // a prescribed face touching a free-slip solid cell
  kInsideCut = 3,           // a face whose centre lies inside a no-slip cut obstacle
  kInsideCutFreeSlip = 4,   // the same inside a free-slip cut obstacle
};

// The least distance to a cut surface, in spacings, that a row's no-slip term divides by: a
// sample closer than this is held near 0 all the same (the term is then 1000 times the usual
// one), without an unbounded coefficient.
constexpr double kLeastSurfaceFraction = 1e-3;

struct SampleKinds {
  std::vector<std::uint8_t> data;
  Index start{0, 0, 0};
  Index width{1, 1, 1};
  std::uint8_t operator()(const Index& m) const {
    return data[static_cast<size_t>(((m[2] - start[2]) * width[1] + (m[1] - start[1])) *
                                        width[0] +
                                    (m[0] - start[0]))];
  }
};

/// What an obstacle imposes on the scalar being diffused.
struct ObstacleScalar {
  enum class Kind { Insulated, Value, Gradient };
  Kind kind = Kind::Insulated;
  double value = 0.0;  // Value: the value held on the surface; Gradient: ds/dn into the obstacle
};

/// Everything a row needs to know about its component.
struct RowContext {
  const Grid* grid = nullptr;
  const SolidMask* solids = nullptr;
  const SampleKinds* kinds = nullptr;
  const Field* field = nullptr;
  int component = 0;
  int stagger = -1;            // axis the samples are staggered on, -1 for cell centres
  const SideFills* fills = nullptr;
  std::vector<ObstacleScalar> obstacles;  // scalars: each obstacle's condition, in job order
  bool holds_values = false;              // some obstacle holds the scalar at a value
  std::array<double, 3> weight{0.0, 0.0, 0.0};  // k dt / h_a^2
  double diagonal = 1.0;                        // 1 + sum_a 2 k dt / h_a^2

  /// True if the value of sample m is prescribed (kept, not solved for).
  bool prescribed(const Index& m) const { return (*kinds)(m) != kFree; }

  /// The kind of sample m.
  std::uint8_t kind(const Index& m) const { return (*kinds)(m); }

  /// True if the prescribed face sample m touches a free-slip solid cell.
  bool touches_free_slip(const Index& m) const { return (*kinds)(m) == kPrescribedFreeSlip; }

  /// Free samples on a non-periodic boundary face of their own axis: the rows scaled by 1/2.
  double row_scale(const Index& s) const {
    if (stagger < 0 || grid->periodic(stagger)) return 1.0;
    const PetscInt along = s[stagger];
    return along == 0 || along == grid->cells(stagger) ? 0.5 : 1.0;
  }
};

/// The condition obstacle n (-1: none) imposes on the context's scalar.
inline ObstacleScalar scalar_condition(const RowContext& ctx, int n) {
  return n < 0 ? ObstacleScalar{} : ctx.obstacles[static_cast<size_t>(n)];
}

/// The term of a scalar's row for its neighbour m across an obstacle's surface (m is held, s is
/// free), `coefficient` being the neighbour's: the ghost that takes q_m's place (see the top).
template <typename Visit>
inline void visit_scalar_surface(const RowContext& ctx, const Index& s, const Index& m, int axis,
                                 double coefficient, Visit&& visit) {
  const int n = ctx.solids->obstacle_of_cell(m[0], m[1], m[2]);
  const ObstacleScalar condition = scalar_condition(ctx, n);
  if (condition.kind == ObstacleScalar::Kind::Insulated) {
    visit(Term::Unknown, s, coefficient);  // the ghost is q_s: no flux
    return;
  }
  double normal = 1.0;
  const double theta = ctx.solids->surface_crossing(static_cast<size_t>(n), s.data(), m.data(),
                                                    &normal);
  if (condition.kind == ObstacleScalar::Kind::Value) {
    visit(Term::Unknown, s, coefficient * (1.0 - 1.0 / theta));
    visit(Term::Constant, s, coefficient * condition.value / theta);
  } else {
    visit(Term::Unknown, s, coefficient);
    visit(Term::Constant, s, coefficient * ctx.grid->spacing(axis) * condition.value * normal);
  }
}

/// Calls visit(term, sample, value) for every term of the row of the free sample s (before the
/// row scale). Unknown and Known terms carry a coefficient, Constant terms a left-hand-side
/// value. Indices across a periodic axis are left unwrapped: DMDA stencils and local vectors
/// resolve them.
template <typename Visit>
inline void visit_row(const RowContext& ctx, const Index& s, Visit&& visit) {
  const Grid& grid = *ctx.grid;
  visit(Term::Unknown, s, ctx.diagonal);
  for (int a = 0; a < grid.dim(); ++a) {
    const PetscInt n = grid.cells(a);
    const bool staggered = ctx.stagger == a;
    for (int side = 0; side < 2; ++side) {
      Index m = s;
      m[a] += side == 0 ? -1 : 1;
      double coefficient = -ctx.weight[a];
      if (!grid.periodic(a)) {
        const PetscInt last = staggered ? n : n - 1;
        if (m[a] < 0 || m[a] > last) {
          const GhostFill& fill = (*ctx.fills)[a][side];
          m[a] = side == 0 ? (staggered ? 1 : 0) : n - 1;
          if (fill.rule == GhostRule::Odd) {
            const double v =
                ctx.field->boundary_value(fill, a, s[0], s[1], s[2], ctx.component);
            visit(Term::Constant, s, 2.0 * coefficient * v);
            coefficient = -coefficient;
          } else if (fill.rule == GhostRule::Gradient) {
            // g = q(mirror) + h G: the first ghost of a cell-centred sample lies one spacing
            // beyond its mirror, the sample itself.
            visit(Term::Constant, s, coefficient * grid.spacing(a) * fill.value);
          }
        }
      }
      if (m == s) {
        visit(Term::Unknown, s, coefficient);
      } else if (!ctx.prescribed(m)) {
        visit(Term::Unknown, m, coefficient);
      } else if (ctx.kind(m) == kInsideCut) {
        // No-slip on a cut surface between s and m (Gibou, Fedkiw, Cheng & Kang 2002): at
        // theta h from s, from the distances at both, the difference (0 - q_s) / (theta h)
        // takes the place of (q_m - q_s) / h. Only the diagonal changes: symmetric.
        const double here = ctx.solids->cut_distance(ctx.stagger, s[0], s[1], s[2]);
        const double there = ctx.solids->cut_distance(ctx.stagger, m[0], m[1], m[2]);
        const double theta = std::max(here / (here - there), kLeastSurfaceFraction);
        visit(Term::Unknown, s, -coefficient * (1.0 / theta - 1.0));
      } else if (ctx.kind(m) == kInsideCutFreeSlip) {
        visit(Term::Unknown, s, coefficient);  // free slip: no flux across the surface
      } else if (ctx.stagger < 0) {
        visit_scalar_surface(ctx, s, m, a, coefficient, visit);
      } else if (a != ctx.stagger && ctx.touches_free_slip(m)) {
        visit(Term::Unknown, s, coefficient);  // free slip: the tangential mirror is q itself
      } else {
        visit(Term::Known, m, coefficient);
      }
    }
  }
}

/// A location's solver state.
struct Location {
  int stagger = -1;
  OwnedDM dm;
  OwnedMat matrix;
  OwnedKSP ksp;
  OwnedVec solution;
  OwnedVec rhs;
  IndexBox owned;
  SampleKinds kinds;
  // What the matrix holds: k dt, the solid mask, the ghost rules and (scalars) which obstacles
  // hold the scalar at a value, as assembled.
  double alpha = -1.0;
  int solids_version = -1;
  std::array<std::array<GhostRule, 2>, 3> rules{};
  std::vector<bool> held_values;
};

}  // namespace

struct KrylovDiffusion::Impl {
  const Grid* grid = nullptr;
  const SolidMask* solids = nullptr;
  SolverConfig config;
  std::array<Location, 4> locations;

  PetscErrorCode create(Location& location, int stagger);
  PetscErrorCode classify(Location& location);
  PetscErrorCode assemble(Location& location, const RowContext& ctx);
  PetscErrorCode solve_component(Field& field, int component, double alpha, PetscInt* its);
  PetscErrorCode update_operator(Location& location, const RowContext& ctx, double alpha);
  PetscErrorCode fill_system(Location& location, const RowContext& ctx, Field& field);
  PetscErrorCode take_solution(Location& location, const RowContext& ctx, Field& field);
};

PetscErrorCode KrylovDiffusion::Impl::create(Location& location, int stagger) {
  PetscFunctionBeginUser;
  location.stagger = stagger;
  location.owned = stagger < 0 ? grid->owned_cells() : grid->owned_faces(stagger);
  PetscCall(create_sample_dm(*grid, stagger, false, location.dm.replace()));
  PetscCall(DMCreateMatrix(location.dm, location.matrix.replace()));
  PetscCall(MatSetOption(location.matrix, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(location.matrix, MAT_SPD, PETSC_TRUE));
  PetscCall(DMCreateGlobalVector(location.dm, location.solution.replace()));
  PetscCall(DMCreateGlobalVector(location.dm, location.rhs.replace()));

  // q* is the natural first guess (the solver starts from the vector it is given): the step
  // changes it by O(k dt).
  PetscCall(create_krylov_solver(grid->comm(), kPrefix, config, location.ksp.replace()));
  PC pc;
  PetscCall(KSPGetPC(location.ksp, &pc));
  PetscCall(PCSetType(pc, kDefaultPreconditioner));
  PetscCall(KSPSetFromOptions(location.ksp));
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovDiffusion::Impl::classify(Location& location) {
  PetscFunctionBeginUser;
  const int stagger = location.stagger;
  OwnedVec owned, ghosted;
  PetscCall(DMCreateGlobalVector(location.dm, owned.replace()));
  PetscCall(DMCreateLocalVector(location.dm, ghosted.replace()));
  WriteArray view;
  PetscCall(view.get_global(location.dm, owned));
  for_each_index(location.owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    std::uint8_t kind = kFree;
    if (stagger < 0) {
      kind = solids->scalar_held(i, j, k) ? kPrescribed : kFree;
    } else {
      // A face whose centre a cut obstacle holds, whether the projection sets it (the obstacle
      // crosses it) or it is closed: the diffusion keeps its value, and its neighbours see the
      // surface in front of it rather than the value.
      BoundaryKind boundary = BoundaryKind::NoSlip;
      const bool fixed = solids->fixed_face(stagger, i, j, k);
      if (solids->cut() && solids->cut_distance(stagger, i, j, k, &boundary) < 0.0) {
        kind = boundary == BoundaryKind::FreeSlip ? kInsideCutFreeSlip : kInsideCut;
      } else if (fixed) {
        const PetscInt below[3] = {i - (stagger == 0), j - (stagger == 1), k - (stagger == 2)};
        const bool free_slip = solids->cell(i, j, k) == SolidMask::FreeSlipSolid ||
                               solids->cell(below[0], below[1], below[2]) ==
                                   SolidMask::FreeSlipSolid;
        kind = free_slip ? kPrescribedFreeSlip : kPrescribed;
      }
    }
    view(i, j, k) = kind;
  });
  PetscCall(view.restore());
  PetscCall(DMGlobalToLocalBegin(location.dm, owned, INSERT_VALUES, ghosted));
  PetscCall(DMGlobalToLocalEnd(location.dm, owned, INSERT_VALUES, ghosted));
  ReadArray local;
  PetscCall(local.get_local(location.dm, ghosted));
  location.kinds.start = local.start;
  location.kinds.width = local.width;
  location.kinds.data.resize(
      static_cast<size_t>(local.width[0] * local.width[1] * local.width[2]));
  for (size_t n = 0; n < location.kinds.data.size(); ++n)
    location.kinds.data[n] = static_cast<std::uint8_t>(local[n]);
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovDiffusion::Impl::assemble(Location& location, const RowContext& ctx) {
  PetscFunctionBeginUser;
  PetscCall(MatZeroEntries(location.matrix));
  PetscErrorCode status = 0;
  for_each_index(location.owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    if (status) return;
    const Index s{i, j, k};
    const MatStencil row{k, j, i, 0};
    MatStencil columns[7];
    PetscScalar values[7];
    PetscInt count = 0;
    if (ctx.prescribed(s)) {
      columns[count] = row;
      values[count++] = ctx.diagonal;
    } else {
      const double scale = ctx.row_scale(s);
      visit_row(ctx, s, [&](Term term, const Index& m, double value) {
        if (term != Term::Unknown) return;
        // A mirror can coincide with a neighbour (or the sample itself): merge them.
        for (PetscInt e = 0; e < count; ++e) {
          if (columns[e].i == m[0] && columns[e].j == m[1] && columns[e].k == m[2]) {
            values[e] += scale * value;
            return;
          }
        }
        columns[count] = MatStencil{m[2], m[1], m[0], 0};
        values[count++] = scale * value;
      });
    }
    status = MatSetValuesStencil(location.matrix, 1, &row, count, columns, values, ADD_VALUES);
  });
  PetscCall(status);
  PetscCall(MatAssemblyBegin(location.matrix, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(location.matrix, MAT_FINAL_ASSEMBLY));
  PetscCall(KSPSetOperators(location.ksp, location.matrix, location.matrix));
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovDiffusion::Impl::solve_component(Field& field, int component, double alpha,
                                                PetscInt* its) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  const int stagger = field.stagger(component);
  Location& location = locations[stagger < 0 ? kCellLocation : stagger];
  if (!location.ksp) PetscCall(create(location, stagger));

  // The sample kinds depend on the mask only; the matrix below is reassembled after them, as
  // its recorded mask version is still the old one.
  if (location.solids_version != solids->version()) PetscCall(classify(location));
  RowContext ctx;
  ctx.grid = grid;
  ctx.solids = solids;
  ctx.kinds = &location.kinds;
  ctx.field = &field;
  ctx.component = component;
  ctx.stagger = stagger;
  ctx.fills = &field.boundary()[component];
  if (stagger < 0) {
    for (const ObstacleConfig& obstacle : solids->obstacles()) {
      ObstacleScalar condition;
      if (const auto held = obstacle.scalar_values.find(field.name());
          held != obstacle.scalar_values.end()) {
        condition = {ObstacleScalar::Kind::Value, held->second};
      } else if (const auto gradient = obstacle.scalar_gradients.find(field.name());
                 gradient != obstacle.scalar_gradients.end()) {
        condition = {ObstacleScalar::Kind::Gradient, gradient->second};
      }
      ctx.obstacles.push_back(condition);
      ctx.holds_values |= condition.kind == ObstacleScalar::Kind::Value;
    }
  }
  ctx.diagonal = 1.0;
  for (int a = 0; a < g.dim(); ++a) {
    ctx.weight[a] = alpha / (g.spacing(a) * g.spacing(a));
    ctx.diagonal += 2.0 * ctx.weight[a];
  }
  PetscCall(update_operator(location, ctx, alpha));
  PetscCall(fill_system(location, ctx, field));
  KrylovOutcome outcome;
  PetscCall(solve_krylov(location.ksp, location.rhs, location.solution, &outcome));
  const KSPConvergedReason reason = outcome.reason;
  const PetscInt iterations = outcome.iterations;
  if (reason == KSP_DIVERGED_NANORINF)
    PetscCall(stop_non_finite_solve(g, "diffusion solve", "stopped with DIVERGED_NANORINF",
                                    field, nullptr));
  PetscCheck(reason > 0, g.comm(), PETSC_ERR_NOT_CONVERGED,
             "diffusion of '%s' (component %d) did not converge: %s after %" PetscInt_FMT
             " iterations (see -diffusion_ksp_monitor, -diffusion_ksp_max_it)",
             field.name().c_str(), component, KSPConvergedReasons[reason], iterations);
  *its += iterations;

  PetscCall(take_solution(location, ctx, field));
  PetscFunctionReturn(0);
}

// Reassembles the matrix when k dt, the solid mask or the component's ghost rules changed since
// it was last assembled.
PetscErrorCode KrylovDiffusion::Impl::update_operator(Location& location, const RowContext& ctx,
                                                      double alpha) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  const Field& field = *ctx.field;
  const int stagger = ctx.stagger;
  const int component = ctx.component;
  std::array<std::array<GhostRule, 2>, 3> rules{};
  // A Gradient ghost folds into the matrix as an Even one does (it only adds a constant), so the
  // two are one for deciding whether to reassemble.
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      const GhostRule rule = (*ctx.fills)[a][side].rule;
      rules[a][side] = rule == GhostRule::Gradient ? GhostRule::Even : rule;
    }
  // An Odd rule on a free face of the staggered axis would leave a row no scaling symmetrises;
  // the boundary conditions never produce one (Odd normal faces are prescribed).
  if (stagger >= 0 && !g.periodic(stagger)) {
    for (int side = 0; side < 2; ++side)
      PetscCheck(rules[stagger][side] != GhostRule::Odd ||
                     g.boundary(stagger, side) != BoundaryKind::Outflow,
                 g.comm(), PETSC_ERR_SUP,
                 "diffusion of '%s': component %d has a Dirichlet (Odd) rule on a free outflow "
                 "face",
                 field.name().c_str(), component);
  }
  // A value held on an obstacle changes the diagonal next to it; a flux only the right side.
  std::vector<bool> held_values;
  for (const ObstacleScalar& condition : ctx.obstacles)
    held_values.push_back(condition.kind == ObstacleScalar::Kind::Value);
  if (location.alpha != alpha || location.solids_version != solids->version() ||
      location.rules != rules || location.held_values != held_values) {
    PetscCall(assemble(location, ctx));
    location.alpha = alpha;
    location.solids_version = solids->version();
    location.rules = rules;
    location.held_values = held_values;
  }
  PetscFunctionReturn(0);
}

// Right-hand side and initial guess from the field; known neighbours come from the local vector,
// whose halo holds the values owned by the neighbouring ranks.
PetscErrorCode KrylovDiffusion::Impl::fill_system(Location& location, const RowContext& ctx,
                                                  Field& field) {
  PetscFunctionBeginUser;
  ReadArray ql;
  WriteArray qg, x, b;
  PetscCall(ql.get_local(field));
  PetscCall(qg.get_global(field));
  PetscCall(x.get_global(location.dm, location.solution));
  PetscCall(b.get_global(location.dm, location.rhs));
  const int c = ctx.component;
  for_each_index(location.owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    const Index s{i, j, k};
    double q = qg(i, j, k, c);
    if (ctx.prescribed(s)) {
      // A scalar's cell that an obstacle holds at a value takes it (and keeps it).
      if (ctx.holds_values) {
        const ObstacleScalar condition =
            scalar_condition(ctx, ctx.solids->obstacle_of_cell(i, j, k));
        if (condition.kind == ObstacleScalar::Kind::Value) q = qg(i, j, k, c) = condition.value;
      }
      x(i, j, k) = q;
      b(i, j, k) = ctx.diagonal * q;
      return;
    }
    x(i, j, k) = q;
    double rhs = q;
    visit_row(ctx, s, [&](Term term, const Index& m, double value) {
      if (term == Term::Known) rhs -= value * ql(m[0], m[1], m[2], c);
      if (term == Term::Constant) rhs -= value;
    });
    b(i, j, k) = ctx.row_scale(s) * rhs;
  });
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovDiffusion::Impl::take_solution(Location& location, const RowContext& ctx,
                                                    Field& field) {
  PetscFunctionBeginUser;
  const int c = ctx.component;
  // Only the free samples take the solution: prescribed values stay bit for bit.
  ReadArray x;
  WriteArray qg;
  PetscCall(qg.get_global(field));
  PetscCall(x.get_global(location.dm, location.solution));
  for_each_index(location.owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!ctx.prescribed(Index{i, j, k})) qg(i, j, k, c) = x(i, j, k);
  });
  PetscFunctionReturn(0);
}

KrylovDiffusion::KrylovDiffusion() : impl_(std::make_unique<Impl>()) {}

KrylovDiffusion::~KrylovDiffusion() = default;

PetscErrorCode KrylovDiffusion::setup(const Grid& grid, const SolidMask& solids,
                                const SolverConfig& config) {
  PetscFunctionBeginUser;
  impl_->grid = &grid;
  impl_->solids = &solids;
  impl_->config = config;
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovDiffusion::diffuse(Field& field, double coefficient, double dt,
                                  PetscInt* iterations) {
  PetscFunctionBeginUser;
  PetscInt total = 0;
  if (iterations) *iterations = 0;
  if (coefficient == 0.0) PetscFunctionReturn(0);
  Impl& s = *impl_;
  PetscCheck(s.grid, PETSC_COMM_SELF, PETSC_ERR_ORDER, "KrylovDiffusion::setup() was not called");
  PetscCheck(&field.grid() == s.grid, s.grid->comm(), PETSC_ERR_ARG_WRONG,
             "diffuse(): field '%s' lives on another grid", field.name().c_str());
  PetscCheck(coefficient > 0.0 && dt > 0.0, s.grid->comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "diffuse(): coefficient %g and time step %g must be positive", coefficient, dt);
  // Dirichlet faces take their boundary values and the halo is exchanged once for all
  // components; every component then reads its known neighbours from the local vector.
  PetscCall(field.fill_ghosts());
  for (int c = 0; c < field.components(); ++c)
    PetscCall(s.solve_component(field, c, coefficient * dt, &total));
  if (iterations) *iterations = total;
  PetscFunctionReturn(0);
}

}  // namespace sf
