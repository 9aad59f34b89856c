// Pressure projection (Stam §2.2 step 4) on the MAC grid (Harlow & Welch; Foster & Metaxas):
//
//   A p = b,   A = -lap (SPD),   b = -div u* / dt        at fluid cell centres,
//   u = u* - dt grad p                                  on every free face,
//
// so that div u = div u* - dt lap p = 0 in every fluid cell up to the solver tolerance.
//
// Where the quantities live on the MAC cell (i, j, k), spacing h_a per axis:
//   p(i,j,k), b(i,j,k)  cell centre;
//   u_c(i,j,k)          centre of the lower face of the cell in direction c;
//   div u(i,j,k) = sum_c (u_c(i + e_c) - u_c(i)) / h_c;
//   (grad p)_c(i,j,k) = (p(i) - p(i - e_c)) / h_c, on the face between the two cells.
//
// Row of A for a fluid cell, per axis a and side: a free face to a fluid neighbour (interior,
// periodic wrap or rank boundary) couples with weight F/h_a^2 on the diagonal and -F/h_a^2 off
// it, F the face's open fraction (1, or less where a cut obstacle crosses it: then the rows are
// Batty, Bertails & Bridson's, A = D F G, and b the divergence of the open flux F u*; A stays
// symmetric positive definite); a prescribed face (wall, inflow, solid face: SolidMask::fixed_face) carries a known flux,
// already in b, so it adds nothing (Neumann); an outflow domain face fixes p = 0 on the face, the
// ghost is -p and the diagonal gains 2/h_a^2 (Dirichlet). Solid cells, and fluid cells with no
// free face at all, get a decoupled row d p = 0 (d the fluid diagonal, so the rows look alike to
// the smoothers). Without an outflow face the constant over the coupled fluid cells spans the
// null space; it is attached to A and removed from b, which makes the system consistent.
//
// By default the operator is not stored: A is a shell whose MatMult reads the pressure and one
// byte of open faces per cell, preconditioned by PETSc's geometric multigrid over matrix-free
// levels (poisson_multigrid.hpp); that is -pressure_pc_type mg. Any other preconditioner
// (-pressure_pc_type pfmg, gamg, hypre, ...) gets the operator assembled, as a hyprestruct matrix
// for hypre's PFMG and as AIJ otherwise. solvers/README.md has the measurements behind the
// choice, in time and in bytes per cell. The operator is rebuilt only when the solid mask
// changes. Every solve starts from the previous pressure (warm start, rescaled by the ratio of
// the time steps), and a u* that is already divergence-free to the tolerance (||b|| <= rtol
// times the norm of its uncancelled face fluxes) is left as it is, without a solve.
#include "krylov_projection.hpp"

#include <petscksp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "health.hpp"
#include "krylov_setup.hpp"
#include "poisson_multigrid.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

using OwnedNullSpace = Owned<MatNullSpace, MatNullSpaceDestroy>;

constexpr const char* kPrefix = "pressure_";

// The default preconditioner, chosen from the measurements in solvers/README.md: PCMG over the
// matrix-free levels of PoissonMultigrid.
constexpr const char* kDefaultPreconditioner = PCMG;

}  // namespace

struct KrylovProjection::Impl {
  const Grid* grid = nullptr;
  const SolidMask* solids = nullptr;
  // The pressure's DM: the grid's cell DM for the matrix-free multigrid (no DM of its own, so no
  // second copy of PETSc's per-cell index structures), a DM of its own for an assembled matrix.
  OwnedDM own_dm;
  DM dm = nullptr;
  HaloExchange pressure_halo;  // the one ghost layer the gradient reads, on either DM
  // With the default preconditioner the operator is matrix-free and `matrix` is the multigrid's
  // finest shell; otherwise it is assembled here.
  std::unique_ptr<PoissonMultigrid> multigrid;
  OwnedMat matrix;
  OwnedKSP ksp;
  OwnedNullSpace null_space;
  OwnedVec pressure;
  OwnedVec rhs;
  // The divergence the velocity is to have (set_divergence_source), the caller's; null: none.
  Vec source = nullptr;
  int assembled_version = -1;
  double last_dt = 0.0;  // time step of the last solve, to rescale its pressure as a guess
  // The job's divergence target (pressure.max_divergence; 0: the KSP's rtol/atol rule) and the
  // residual bound it means for the solve under way, target / dt.
  double max_divergence = 0.0;
  double residual_bound = 0.0;

  /// True if the face of component c at (i, j, k) is free, i.e. its velocity is computed here.
  bool free_face(int c, PetscInt i, PetscInt j, PetscInt k) const {
    return !solids->fixed_face(c, i, j, k);
  }

  /// True if the pressure of cell (i, j, k) is an unknown: a fluid cell with a free face.
  bool coupled(PetscInt i, PetscInt j, PetscInt k) const {
    if (solids->solid(i, j, k)) return false;
    for (int c = 0; c < grid->dim(); ++c) {
      const PetscInt up[3] = {i + (c == 0), j + (c == 1), k + (c == 2)};
      if (free_face(c, i, j, k) || free_face(c, up[0], up[1], up[2])) return true;
    }
    return false;
  }

  PetscErrorCode setup(const Grid& g, const SolidMask& s, const SolverConfig& config);
  PetscErrorCode configure_preconditioner(const std::string& type);
  PetscErrorCode clear_matrix();
  PetscErrorCode assemble();
  PetscErrorCode assemble_matrix();
  PetscInt outflow_faces() const;
  PetscErrorCode attach_null_space(PetscInt dirichlet_faces);
  PetscErrorCode compute_rhs(Field& velocity, double dt, double* flux_scale);
  PetscErrorCode max_residual(KSP solver, double* result);
  static PetscErrorCode divergence_reached(KSP solver, PetscInt iteration, PetscReal norm,
                                           KSPConvergedReason* reason, void* context);
  PetscErrorCode subtract_gradient(Field& velocity, double dt);
};

// The stopping rule of pressure.max_divergence. After the projection div u = -dt r in every
// coupled cell (r = b - A p, the unpreconditioned residual CG reports), so the target holds when
// dt max |r| <= target, i.e. max |r| <= residual_bound. The 2-norm the solver hands over brackets
// the maximum, ||r||_2 / sqrt(N) <= max |r| <= ||r||_2, which decides most iterations for free;
// only between the two is r formed (one MatMult) and its maximum taken. No other rule applies:
// -pressure_ksp_rtol/atol are not consulted, max_it still ends a solve that cannot get there.
PetscErrorCode KrylovProjection::Impl::divergence_reached(KSP solver, PetscInt, PetscReal norm,
                                                          KSPConvergedReason* reason,
                                                          void* context) {
  PetscFunctionBeginUser;
  auto* s = static_cast<Impl*>(context);
  *reason = KSP_CONVERGED_ITERATING;
  if (!std::isfinite(static_cast<double>(norm))) {
    *reason = KSP_DIVERGED_NANORINF;
    PetscFunctionReturn(0);
  }
  PetscInt size = 0;
  PetscCall(VecGetSize(s->rhs, &size));
  if (norm <= s->residual_bound) {
    *reason = KSP_CONVERGED_ATOL;
  } else if (norm <= s->residual_bound * std::sqrt(static_cast<double>(size))) {
    double largest = 0.0;
    PetscCall(s->max_residual(solver, &largest));
    if (largest <= s->residual_bound) *reason = KSP_CONVERGED_ATOL;
  }
  PetscFunctionReturn(0);
}

// max |b - A x| for the solver's current iterate x (KSPBuildSolution: CG's own vector, no copy),
// through one scratch vector from the DM's pool.
PetscErrorCode KrylovProjection::Impl::max_residual(KSP solver, double* result) {
  PetscFunctionBeginUser;
  Vec x = nullptr;
  BorrowedVec ax;
  PetscCall(KSPBuildSolution(solver, nullptr, &x));
  PetscCall(ax.get_global(dm));
  PetscCall(MatMult(matrix, x, ax));
  PetscCall(VecAYPX(ax, -1.0, rhs));
  PetscReal largest = 0.0;
  PetscCall(VecNorm(ax, NORM_INFINITY, &largest));
  *result = static_cast<double>(largest);
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovProjection::Impl::setup(const Grid& g, const SolidMask& s,
                                             const SolverConfig& config) {
  PetscFunctionBeginUser;
  grid = &g;
  solids = &s;
  // The preconditioner decides the matrix format (hypre's structured multigrid needs a
  // hyprestruct matrix), so the run-time choice is read before the DM and matrix exist.
  char buffer[256] = "";
  PetscBool set = PETSC_FALSE;
  PetscCall(PetscOptionsGetString(nullptr, kPrefix, "-pc_type", buffer, sizeof(buffer), &set));
  const std::string pc_type = set ? buffer : kDefaultPreconditioner;
  if (pc_type == PCMG) {
    // The outflow ghosts of the matrix-free stencil need ghost points beyond the domain, which
    // the cell DM has (DM_BOUNDARY_GHOSTED); the levels exchange one layer of its halo.
    dm = g.cell_dm();
    multigrid = std::make_unique<PoissonMultigrid>();
    PetscCall(multigrid->setup(g, s, dm));
    Mat shell = multigrid->fine_operator();
    PetscCall(PetscObjectReference(reinterpret_cast<PetscObject>(shell)));
    *matrix.replace() = shell;
  } else {
    PetscCall(
        PetscOptionsGetString(nullptr, kPrefix, "-dm_mat_type", buffer, sizeof(buffer), &set));
    std::string mat_type = set ? buffer : "";
    if (mat_type.empty() && (pc_type == PCPFMG || pc_type == PCSYSPFMG))
      mat_type = MATHYPRESTRUCT;
    // PETSc builds hyprestruct matrices on 3D DMDAs only; a 2D grid is then one layer of cells.
    PetscCall(create_sample_dm(g, -1, mat_type == MATHYPRESTRUCT, own_dm.replace()));
    dm = own_dm;
    if (!mat_type.empty()) PetscCall(DMSetMatType(dm, mat_type.c_str()));
    PetscCall(DMCreateMatrix(dm, matrix.replace()));
    PetscCall(MatSetOption(matrix, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatSetOption(matrix, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  }
  PetscCall(pressure_halo.setup(dm, 1, HaloShape::Star));
  PetscCall(DMCreateGlobalVector(dm, pressure.replace()));
  PetscCall(DMCreateGlobalVector(dm, rhs.replace()));
  PetscCall(PetscObjectSetName(reinterpret_cast<PetscObject>(pressure.get()), "pressure"));
  PetscCall(VecSet(pressure, 0.0));
  PetscCall(assemble());

  // rtol bounds ||b - A p|| <= rtol ||b||, hence max |div u| <= dt ||b - A p|| <= rtol ||div u*||_2.
  PetscCall(create_krylov_solver(g.comm(), kPrefix, config, ksp.replace()));
  PetscCall(KSPSetOperators(ksp, matrix, matrix));
  PetscCall(configure_preconditioner(pc_type));
  PetscCall(KSPSetFromOptions(ksp));
  max_divergence = config.max_divergence;
  // Set after KSPSetFromOptions, which would otherwise put back the default test.
  if (max_divergence > 0.0)
    PetscCall(KSPSetConvergenceTest(ksp, divergence_reached, this, nullptr));
  // Building the preconditioner here keeps its cost out of the first time step's timing.
  PetscCall(KSPSetUp(ksp));
  PetscFunctionReturn(0);
}

// Defaults for the preconditioner the run will use, set before KSPSetFromOptions so that every
// -pressure_pc_* option still overrides them.
PetscErrorCode KrylovProjection::Impl::configure_preconditioner(const std::string& type) {
  PetscFunctionBeginUser;
  PC pc;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, type.c_str()));
  if (type == PCHYPRE) PetscCall(PCHYPRESetType(pc, "boomeramg"));
  if (type == PCMG) PetscCall(multigrid->configure(pc));
  PetscFunctionReturn(0);
}

// Zeroes every coefficient before the rows are summed into the matrix. A hypre structured
// matrix stores all seven stencil coefficients of every cell, including those that reach out of
// the domain, which PFMG reads; PETSc 3.18's MatZeroEntries for that format does not reliably
// clear them, but its MatZeroRowsLocal sets all seven of each row, so that is used instead.
PetscErrorCode KrylovProjection::Impl::clear_matrix() {
  PetscFunctionBeginUser;
  PetscBool structured = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(matrix.get()), MATHYPRESTRUCT,
                                   &structured));
  if (!structured) {
    PetscCall(MatZeroEntries(matrix));
    PetscFunctionReturn(0);
  }
  PetscInt xs, ys, zs, xm, ym, zm;
  PetscCall(DMDAGetGhostCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  std::vector<PetscInt> rows;
  rows.reserve(static_cast<size_t>(grid->owned_cells().count()));
  for_each_index(grid->owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    rows.push_back(((k - zs) * ym + (j - ys)) * xm + (i - xs));
  });
  PetscCall(MatAssemblyBegin(matrix, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(matrix, MAT_FINAL_ASSEMBLY));
  PetscCall(MatZeroRowsLocal(matrix, static_cast<PetscInt>(rows.size()), rows.data(), 0.0,
                             nullptr, nullptr));
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovProjection::Impl::assemble() {
  PetscFunctionBeginUser;
  if (multigrid) PetscCall(multigrid->update());
  else PetscCall(assemble_matrix());
  PetscCall(attach_null_space(outflow_faces()));
  assembled_version = solids->version();
  PetscFunctionReturn(0);
}

// The free faces on the domain boundary of this rank (outflow faces not closed by a solid):
// each fixes p = 0 on itself, so where there is one anywhere the pressure level is not free.
PetscInt KrylovProjection::Impl::outflow_faces() const {
  const Grid& g = *grid;
  PetscInt count = 0;
  for (int a = 0; a < g.dim(); ++a) {
    if (g.periodic(a)) continue;
    for (const PetscInt boundary : {PetscInt{0}, g.cells(a)}) {
      IndexBox faces = g.owned_faces(a);
      if (boundary < faces.lo[a] || boundary >= faces.hi[a]) continue;
      faces.lo[a] = boundary;
      faces.hi[a] = boundary + 1;
      for_each_index(faces, [&](PetscInt i, PetscInt j, PetscInt k) {
        if (free_face(a, i, j, k)) ++count;
      });
    }
  }
  return count;
}

// The assembled operator, row by row (the rules at the top of this file).
PetscErrorCode KrylovProjection::Impl::assemble_matrix() {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  const int dim = g.dim();
  std::array<double, 3> inv_h2{0.0, 0.0, 0.0};
  double decoupled_diagonal = 0.0;
  for (int a = 0; a < dim; ++a) {
    inv_h2[a] = 1.0 / (g.spacing(a) * g.spacing(a));
    decoupled_diagonal += 2.0 * inv_h2[a];
  }
  PetscCall(clear_matrix());
  PetscErrorCode status = 0;
  for_each_index(g.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (status) return;
    StencilRow row(i, j, k);
    if (!coupled(i, j, k)) {
      row.diagonal() = decoupled_diagonal;
    } else {
      const std::array<PetscInt, 3> index{i, j, k};
      for (int a = 0; a < dim; ++a) {
        for (int side = 0; side < 2; ++side) {
          // The face between this cell and its neighbour across `side` of axis a.
          std::array<PetscInt, 3> face = index;
          face[a] += side;
          if (!free_face(a, face[0], face[1], face[2])) continue;
          const double weight = solids->face_fraction(a, face[0], face[1], face[2]) * inv_h2[a];
          if (!g.periodic(a) && (face[a] == 0 || face[a] == g.cells(a))) {
            row.diagonal() += 2.0 * weight;  // outflow: the ghost is -p, p = 0 on the face
            continue;
          }
          std::array<PetscInt, 3> neighbour = index;
          neighbour[a] += side == 0 ? -1 : 1;
          row.diagonal() += weight;
          row.add_neighbour(neighbour[0], neighbour[1], neighbour[2], -weight);
        }
      }
    }
    status = row.add_to(matrix);
  });
  PetscCall(status);
  PetscCall(MatAssemblyBegin(matrix, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(matrix, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

// Without an outflow face the pressure level is free: the constant over the coupled cells spans
// the null space of A.
PetscErrorCode KrylovProjection::Impl::attach_null_space(PetscInt dirichlet_faces) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  PetscInt any_dirichlet = 0;
  PetscCallMPI(MPI_Allreduce(&dirichlet_faces, &any_dirichlet, 1, MPIU_INT, MPI_SUM, g.comm()));
  null_space.reset();
  if (any_dirichlet == 0) {
    // The pressure level is free: constant over the coupled cells, zero on the decoupled rows.
    OwnedVec constant;
    PetscCall(VecDuplicate(pressure, constant.replace()));
    WriteArray v;
    PetscCall(v.get_global(dm, constant));
    for_each_index(g.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      v(i, j, k) = coupled(i, j, k) ? 1.0 : 0.0;
    });
    PetscCall(v.restore());
    PetscReal norm = 0.0;
    PetscCall(VecNormalize(constant, &norm));
    PetscCheck(norm > 0.0, g.comm(), PETSC_ERR_ARG_WRONG,
               "the pressure equation has no unknown: every cell is solid or enclosed");
    Vec basis = constant.get();
    PetscCall(MatNullSpaceCreate(g.comm(), PETSC_FALSE, 1, &basis, null_space.replace()));
  }
  PetscCall(MatSetNullSpace(matrix, null_space.get()));
  PetscFunctionReturn(0);
}

// b = (D - div u*) / dt on coupled cells, D the divergence source (0 without one). `flux_scale`
// receives the same norm taken over the terms without their cancellation,
// || (|D| + sum_c (|u_c(i + e_c)| + |u_c(i)|) / h_c) / dt ||_2: the size b would have if nothing
// cancelled, against which "already divergence-free" is judged.
PetscErrorCode KrylovProjection::Impl::compute_rhs(Field& velocity, double dt,
                                                   double* flux_scale) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  // The divergence of a rank's last cells needs the upper faces owned by the next rank.
  PetscCall(velocity.fill_ghosts());
  std::array<double, 3> inv_h{1.0, 1.0, 1.0};
  for (int a = 0; a < g.dim(); ++a) inv_h[a] = 1.0 / g.spacing(a);
  const double inv_dt = 1.0 / dt;

  ReadArray u;
  WriteArray b;
  PetscCall(u.get_local(velocity));
  PetscCall(b.get_global(dm, rhs));
  ReadArray d;
  if (source) PetscCall(d.get_global(g.cell_dm(), source));
  double local_scale = 0.0;
  for_each_index(g.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!coupled(i, j, k)) {
      b(i, j, k) = 0.0;
      return;
    }
    b(i, j, k) = -open_divergence(u, *solids, inv_h, g.dim(), i, j, k) * inv_dt;
    if (d) b(i, j, k) += d(i, j, k) * inv_dt;
    double flux = (std::abs(u(i + 1, j, k, 0)) + std::abs(u(i, j, k, 0))) * inv_h[0] +
                  (std::abs(u(i, j + 1, k, 1)) + std::abs(u(i, j, k, 1))) * inv_h[1];
    if (g.dim() == 3) flux += (std::abs(u(i, j, k + 1, 2)) + std::abs(u(i, j, k, 2))) * inv_h[2];
    if (d) flux += std::abs(d(i, j, k));
    local_scale += flux * flux * inv_dt * inv_dt;
  });
  PetscCall(d.restore());
  PetscCall(b.restore());
  PetscCall(u.restore());
  PetscCallMPI(MPI_Allreduce(&local_scale, flux_scale, 1, MPI_DOUBLE, MPI_SUM, g.comm()));
  *flux_scale = std::sqrt(*flux_scale);
  // The net flux through the prescribed faces is not exactly zero in general (inflow without an
  // outflow face, round-off); the part of b along the null space is what no p can match.
  if (null_space) PetscCall(MatNullSpaceRemove(null_space, rhs));
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovProjection::Impl::subtract_gradient(Field& velocity, double dt) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  // Borrowed from the DM's pool, which the matrix-free operator's exchanges share.
  BorrowedVec pressure_local;
  PetscCall(pressure_local.get_local(dm));
  PetscCall(pressure_halo.global_to_local(pressure, pressure_local));
  ReadArray p;
  WriteArray u;
  PetscCall(p.get_local(dm, pressure_local));
  PetscCall(u.get_global(velocity));
  for (int c = 0; c < g.dim(); ++c) {
    const double scale = dt / g.spacing(c);
    const PetscInt n = g.cells(c);
    const bool bounded = !g.periodic(c);
    for_each_index(g.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (!free_face(c, i, j, k)) return;
      const PetscInt index[3] = {i, j, k};
      const PetscInt below[3] = {i - (c == 0), j - (c == 1), k - (c == 2)};
      // A free face on the domain boundary is an outflow face: the ghost cell holds -p.
      double p_above, p_below;
      if (bounded && index[c] == n) {
        p_below = p(below[0], below[1], below[2]);
        p_above = -p_below;
      } else if (bounded && index[c] == 0) {
        p_above = p(i, j, k);
        p_below = -p_above;
      } else {
        p_above = p(i, j, k);
        p_below = p(below[0], below[1], below[2]);
      }
      u(i, j, k, c) -= scale * (p_above - p_below);
    });
  }
  PetscFunctionReturn(0);
}

KrylovProjection::KrylovProjection() : impl_(std::make_unique<Impl>()) {}

KrylovProjection::~KrylovProjection() = default;

PetscErrorCode KrylovProjection::setup(const Grid& grid, const SolidMask& solids,
                                       const SolverConfig& config) {
  PetscFunctionBeginUser;
  PetscCall(impl_->setup(grid, solids, config));
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovProjection::set_divergence_source(Vec source) {
  PetscFunctionBeginUser;
  impl_->source = source;
  PetscFunctionReturn(0);
}

Vec KrylovProjection::pressure() const { return impl_->pressure; }

double KrylovProjection::last_dt() const { return impl_->last_dt; }

void KrylovProjection::set_last_dt(double dt) { impl_->last_dt = dt; }

PetscErrorCode KrylovProjection::subtract_pressure_gradient(Field& velocity, double dt) {
  PetscFunctionBeginUser;
  PetscCheck(impl_->ksp, PETSC_COMM_SELF, PETSC_ERR_ORDER,
             "KrylovProjection::setup() was not called");
  PetscCall(impl_->subtract_gradient(velocity, dt));
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovProjection::project_increment(Field& velocity, double dt,
                                                   ProjectionStats* stats) {
  PetscFunctionBeginUser;
  Impl& s = *impl_;
  // p^n waits in a pooled vector while the solve's unknown is the increment. The increment
  // starts from zero: it is O(dt) of the pressure, and the last one is no better a guess once
  // dt changes. No warm start also means nothing beyond p for a checkpoint to keep.
  BorrowedVec base;
  PetscCall(base.get_global(s.dm));
  PetscCall(VecCopy(s.pressure, base));
  PetscCall(VecSet(s.pressure, 0.0));
  s.last_dt = 0.0;
  PetscCall(project(velocity, dt, stats));
  PetscCall(VecAXPY(s.pressure, 1.0, base));
  PetscFunctionReturn(0);
}

PetscErrorCode KrylovProjection::project(Field& velocity, double dt, ProjectionStats* stats) {
  PetscFunctionBeginUser;
  Impl& s = *impl_;
  PetscCheck(s.ksp, PETSC_COMM_SELF, PETSC_ERR_ORDER, "KrylovProjection::setup() was not called");
  const Grid& grid = *s.grid;
  PetscCheck(velocity.dm() == grid.face_dm() && velocity.components() == grid.dim(),
             grid.comm(), PETSC_ERR_ARG_WRONG,
             "project() needs the face velocity of the grid the projection was set up on");
  PetscCheck(dt > 0.0, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE, "projection time step %g <= 0",
             dt);
  if (s.solids->version() != s.assembled_version) {
    PetscCall(s.assemble());
    PetscCall(KSPSetOperators(s.ksp, s.matrix, s.matrix));
  }
  double flux_scale = 0.0;
  PetscCall(s.compute_rhs(velocity, dt, &flux_scale));
  PetscReal rhs_norm = 0.0, rtol = 0.0, rhs_max = 0.0;
  PetscCall(VecNorm(s.rhs, NORM_2, &rhs_norm));
  PetscCall(KSPGetTolerances(s.ksp, &rtol, nullptr, nullptr, nullptr));
  PetscInt iterations = 0;
  PetscReal residual = rhs_norm;
  // An overflowing norm would make the test below pass (Inf <= Inf) and skip the projection.
  if (!std::isfinite(flux_scale) || !std::isfinite(static_cast<double>(rhs_norm)))
    PetscCall(stop_non_finite_solve(grid, "pressure solve",
                                    "cannot measure its right-hand side (the norm overflows)",
                                    velocity, nullptr));
  s.residual_bound = s.max_divergence / dt;
  if (s.max_divergence > 0.0) PetscCall(VecNorm(s.rhs, NORM_INFINITY, &rhs_max));
  const bool already_free = s.max_divergence > 0.0 ? rhs_max <= s.residual_bound
                                                   : rhs_norm <= rtol * flux_scale;
  if (already_free) {
    // u* is already divergence-free to the solver tolerance (measured against the fluxes that
    // make up its divergence), or within the divergence target: the pressure of this projection
    // is zero and u stays as it is. Solving would only chase round-off, from a previous
    // pressure that is no guess for zero.
    PetscCall(VecSet(s.pressure, 0.0));
  } else {
    // The pressure scales with 1/dt for a given u*, so the previous one is rescaled to the
    // current step before it serves as the initial guess.
    if (s.last_dt > 0.0 && s.last_dt != dt) PetscCall(VecScale(s.pressure, s.last_dt / dt));
    KrylovOutcome outcome;
    PetscCall(solve_krylov(s.ksp, s.rhs, s.pressure, &outcome));
    const KSPConvergedReason reason = outcome.reason;
    iterations = outcome.iterations;
    residual = outcome.residual_norm;
    if (reason == KSP_DIVERGED_NANORINF)
      PetscCall(stop_non_finite_solve(grid, "pressure solve", "stopped with DIVERGED_NANORINF",
                                      velocity, s.pressure));
    // A pressure that did not converge leaves a divergent velocity behind, which the following
    // steps would advect as if it were physical; stopping is the honest outcome.
    PetscCheck(reason > 0, grid.comm(), PETSC_ERR_NOT_CONVERGED,
               "the pressure solve did not converge%s: %s after %" PetscInt_FMT
               " iterations, residual norm %g (see -pressure_ksp_monitor, -pressure_ksp_max_it, "
               "-pressure_pc_type)",
               s.max_divergence > 0.0 ? " to pressure.max_divergence" : "",
               KSPConvergedReasons[reason], iterations, static_cast<double>(residual));
    PetscCall(s.subtract_gradient(velocity, dt));
  }
  s.last_dt = dt;
  if (stats) {
    stats->iterations = iterations;
    stats->residual_norm = residual;
    PetscCall(max_divergence(velocity, *s.solids, &stats->max_divergence, nullptr, s.source));
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
