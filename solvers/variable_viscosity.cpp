// Implicit variable viscosity (Carlson et al. 2002; Cline et al. §7; the staggering of Batty &
// Bridson 2008), backward Euler with rho = 1 (nu kinematic):
//
//   u - dt div tau = u*,      tau = nu (grad u + grad u^T),
//
// for all velocity components at once, on the MAC grid (spacing h_a per axis):
//   u_a            on the lower face of cell m along a (the face DM's component a at m);
//   nu             at the cell centres, nu = exp(log nu(s)) from the law and the scalar s there;
//   tau_aa         at the cell centres:  tau_aa(m) = 2 nu(m) e_a(m),
//                                        e_a(m) = (u_a[m + e_a] - u_a[m]) / h_a;
//   tau_ab (a!=b)  on the cell edges (2D: the nodes) at the lower a and lower b corner of cell m:
//                                        tau_ab(m) = nu_e(m) g_ab(m),
//                  g_ab(m) = (u_a[m] - u_a[m - e_b]) / h_b + (u_b[m] - u_b[m - e_a]) / h_a,
//                  nu_e the geometric (Carlson) or harmonic mean of nu over the 4 cells around
//                  the edge: m, m - e_a, m - e_b, m - e_a - e_b.
// Then (div tau)_a at u_a[m] = (tau_aa(m) - tau_aa(m - e_a)) / h_a
//                              + sum_b (tau_ab(m + e_b) - tau_ab(m)) / h_b.
// Written per stress, the system is
//   A = I + dt sum over stresses S of w_S nu_S d_S g_S^T,    w = 2 (normal) or 1 (shear),
// g_S the coefficients of the stress's strain e_a or g_ab on the unknowns once the ghosts are
// folded in (below), d_S the same without the folding: the stress enters a row with the
// sample's own coefficient in the difference. Away from the boundary d_S = g_S, and A is the
// matrix of the viscous energy (Batty & Bridson's variational form): symmetric, and positive
// definite for any nu >= 0 and dt, so CG applies and no time step is too long. At the boundary a
// ghost only ever folds onto the one unknown of its strain (the other samples of a stress on a
// wall or inflow plane are the prescribed normal faces), so only the diagonal differs from
// d_S d_S^T and A stays symmetric (the tests check it with MatIsSymmetric). Each row is assembled
// from the stresses that touch its sample (it needs no other rank's rows): the normal stresses
// of the two cells the face separates and the shear stresses of the two edges along every other
// axis.
//
// Boundary conditions, as Field::boundary() gives them and as the component-wise diffusion
// (krylov_diffusion.cpp) applies them:
//   - a sample whose value is prescribed (SolidMask::fixed_face: walls', inflow's and solid
//     faces, moving ones at their body's velocity) keeps it (identity row); in another row's
//     strain it is a known value, whose term moves to the right-hand side;
//   - a sample beyond a non-periodic side (a tangential component's ghost) is the component's
//     GhostFill there: Odd g = 2 v - q(mirror) (no-slip, a moving wall's v, inflow), Even
//     g = q(mirror) (free slip, outflow), folded onto the mirror and the right-hand side. Every
//     strain is an affine function of the unknowns, so the folding keeps A symmetric;
//   - across a free-slip obstacle the tangential difference next to it is dropped (no shear
//     flux), as the component-wise diffusion mirrors the sample itself there;
//   - the normal stress of a cell beyond the domain, and the shear stress of an edge on an
//     outflow side, are not part of the energy: an outflow face sees no viscous stress from
//     outside (the natural, traction-free condition; the ghost of a tangential component
//     there, Even, would otherwise fold onto one unknown of a strain that has others);
//   - periodic axes wrap through the DMDA stencil;
//   - the tangential components on the face DM's extra upper layer (not faces of the domain,
//     kept at 0) are identity rows.
// Cut obstacles have no rows here yet: the job refuses them with a variable viscosity.
// With a liquid the whole velocity is solved, the extension into the air included, exactly as
// the constant-viscosity diffusion does; nu in the air comes from the scalar there.
//
// For constant nu and divergence-free u on a periodic box, the shear terms' cross parts sum to
// d_a (div u) = 0 and the operator is the component-wise Laplacian (tests check this).
#include "variable_viscosity.hpp"
#include "variable_viscosity_impl.hpp"

#include <petscksp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "health.hpp"
#include "krylov_setup.hpp"
#include "vec_array.hpp"

namespace sf {

using namespace viscous;  // the helpers shared with variable_viscosity_setup.cpp

PetscErrorCode VariableViscosity::Impl::evaluate_viscosity(Field& scalar, PetscBool* changed) {
  PetscFunctionBeginUser;
  PetscCall(scalar.fill_ghosts());
  const IndexBox& cells = grid->owned_cells();
  for (int a = 0; a < 3; ++a) {
    const PetscInt reach = a < dim ? 1 : 0;
    nu.lo[a] = log_nu.lo[a] = cells.lo[a] - reach;
    nu.width[a] = log_nu.width[a] = cells.size(a) + 2 * reach;
  }
  const size_t count = static_cast<size_t>(nu.width[0] * nu.width[1] * nu.width[2]);
  nu.data.resize(count);
  log_nu.data.resize(count);
  ReadArray s;
  PetscCall(s.get_local(scalar));
  double least = std::numeric_limits<double>::infinity(), most = 0.0;
  size_t n = 0;
  for (PetscInt k = nu.lo[2]; k < nu.lo[2] + nu.width[2]; ++k)
    for (PetscInt j = nu.lo[1]; j < nu.lo[1] + nu.width[1]; ++j)
      for (PetscInt i = nu.lo[0]; i < nu.lo[0] + nu.width[0]; ++i, ++n) {
        log_nu.data[n] = law.log_viscosity(s(i, j, k));
        nu.data[n] = std::exp(log_nu.data[n]);
        if (cells.contains(i, j, k)) {
          least = std::min(least, nu.data[n]);
          most = std::max(most, nu.data[n]);
        }
      }
  PetscCall(s.restore());
  PetscCallMPI(MPI_Allreduce(&least, &nu_min, 1, MPI_DOUBLE, MPI_MIN, grid->comm()));
  PetscCallMPI(MPI_Allreduce(&most, &nu_max, 1, MPI_DOUBLE, MPI_MAX, grid->comm()));
  PetscBool differs = nu.data != assembled_nu ? PETSC_TRUE : PETSC_FALSE;
  PetscCallMPI(MPI_Allreduce(&differs, changed, 1, MPIU_BOOL, MPI_LOR, grid->comm()));
  PetscFunctionReturn(0);
}

// Adds coef u(c, m) to the strain: a ghost beyond a non-periodic side folds onto its mirror
// (and the right-hand side), a prescribed sample becomes a constant, an unknown merges with an
// entry for the same sample if there is one.
void VariableViscosity::Impl::add(Strain& strain, int c, Index m, double coef) const {
  bool ghost = false;
  for (int a = 0; a < dim; ++a) {
    const int side = beyond(c, m, a);
    if (side < 0) continue;
    ghost = true;
    const GhostFill& fill = velocity->boundary()[c][a][side];
    const PetscInt n = grid->cells(a);
    m[a] = side == 0 ? (c == a ? 1 : 0) : n - 1;
    if (fill.rule == GhostRule::Odd) {
      strain.constant += 2.0 * coef * velocity->boundary_value(fill, a, m[0], m[1], m[2], c);
      coef = -coef;
    }
  }
  if (kind(c, m) != kFree) {
    strain.constant += coef * u_local(m[0], m[1], m[2], c);
    return;
  }
  for (int e = 0; e < strain.count; ++e) {
    if (strain.sample[e].c == c && strain.sample[e].m == m) {
      strain.coef[e] += coef;
      if (!ghost) strain.direct[e] += coef;
      return;
    }
  }
  strain.sample[strain.count] = Sample{c, m};
  strain.coef[strain.count] = coef;
  strain.direct[strain.count++] = ghost ? 0.0 : coef;
}

// The viscosity on the edge at the lower a, lower b corner of cell e, from its 4 cells.
double VariableViscosity::Impl::edge_viscosity(const Index& e, int a, int b) const {
  Index m[4] = {e, e, e, e};
  m[1][a] -= 1;
  m[2][b] -= 1;
  m[3][a] -= 1;
  m[3][b] -= 1;
  if (law.average == ViscosityAverage::Geometric)
    return std::exp(0.25 * (log_nu(m[0]) + log_nu(m[1]) + log_nu(m[2]) + log_nu(m[3])));
  return 4.0 / (1.0 / nu(m[0]) + 1.0 / nu(m[1]) + 1.0 / nu(m[2]) + 1.0 / nu(m[3]));
}

// Calls visit(weight w nu, strain) for every stress that u_c at m takes part in.
template <typename Visit>
void VariableViscosity::Impl::visit_stresses(int c, const Index& m, Visit&& visit) const {
  const double hc = grid->spacing(c);
  // The normal stresses of the cells below and above the face, where they lie in the domain.
  for (int side = 0; side < 2; ++side) {
    Index cell = m;
    cell[c] -= 1 - side;
    if (!grid->periodic(c) && (cell[c] < 0 || cell[c] >= grid->cells(c))) continue;
    Strain strain;
    Index upper = cell;
    upper[c] += 1;
    add(strain, c, cell, -1.0 / hc);
    add(strain, c, upper, 1.0 / hc);
    visit(2.0 * nu(cell), strain);
  }
  // The shear stresses of the edges below and above the sample along every other axis.
  for (int b = 0; b < dim; ++b) {
    if (b == c) continue;
    const double hb = grid->spacing(b);
    for (int side = 0; side < 2; ++side) {
      Index edge = m;
      edge[b] += side;
      if (on_outflow(edge, c) || on_outflow(edge, b)) continue;
      Index below_b = edge, below_c = edge;
      below_b[b] -= 1;
      below_c[c] -= 1;
      Strain strain;
      // Next to a free-slip obstacle a difference across its face carries no shear.
      const auto free_slip = [&](int component, const Index& sample) {
        return in_domain(component, sample) && kind(component, sample) == kPrescribedFreeSlip;
      };
      if (!free_slip(c, edge) && !free_slip(c, below_b)) {
        add(strain, c, edge, 1.0 / hb);
        add(strain, c, below_b, -1.0 / hb);
      }
      if (!free_slip(b, edge) && !free_slip(b, below_c)) {
        add(strain, b, edge, 1.0 / hc);
        add(strain, b, below_c, -1.0 / hc);
      }
      visit(edge_viscosity(edge, c, b), strain);
    }
  }
}

// The right-hand side and first guess of every owned row and, with `assemble`, the matrix's
// rows: row r of A is e_r + dt sum_S w nu_S g_S[r] g_S, its right-hand side
// u*_r - dt sum_S w nu_S g_S[r] constant_S.
PetscErrorCode VariableViscosity::Impl::fill(double dt, bool assemble) {
  PetscFunctionBeginUser;
  if (assemble) PetscCall(MatZeroEntries(matrix));
  ReadArray ug;
  WriteArray x, b;
  PetscCall(x.get_global(dm, solution));
  PetscCall(b.get_global(dm, rhs));
  PetscCall(ug.get_global(*velocity));
  constexpr int kMaxColumns = 32;  // 3D: 1 + 2 x 2 + 4 x 4 distinct samples at most
  MatStencil columns[kMaxColumns];
  PetscScalar values[kMaxColumns];
  PetscErrorCode status = 0;
  for_each_index(rows, [&](PetscInt i, PetscInt j, PetscInt k) {
    const Index m{i, j, k};
    for (int c = 0; c < dim && !status; ++c) {
      const double q = ug(i, j, k, c);
      x(i, j, k, c) = q;
      const MatStencil row{k, j, i, c};
      PetscInt count = 1;
      columns[0] = row;
      values[0] = 1.0;
      if (kind(c, m) != kFree) {
        b(i, j, k, c) = q;
      } else {
        double rhs_value = q;
        visit_stresses(c, m, [&](double weight, const Strain& strain) {
          double own = 0.0;
          for (int e = 0; e < strain.count; ++e)
            if (strain.sample[e].c == c && strain.sample[e].m == m) own = strain.direct[e];
          if (own == 0.0) return;
          const double factor = dt * weight * own;
          rhs_value -= factor * strain.constant;
          if (!assemble) return;
          for (int e = 0; e < strain.count; ++e) {
            const Sample& s = strain.sample[e];
            const MatStencil column{s.m[2], s.m[1], s.m[0], s.c};
            PetscInt at = 0;
            while (at < count && !(columns[at].i == column.i && columns[at].j == column.j &&
                                   columns[at].k == column.k && columns[at].c == column.c))
              ++at;
            if (at == count) {
              columns[count] = column;
              values[count++] = 0.0;
            }
            values[at] += factor * strain.coef[e];
          }
        });
        b(i, j, k, c) = rhs_value;
      }
      if (assemble)
        status = MatSetValuesStencil(matrix, 1, &row, count, columns, values, INSERT_VALUES);
    }
  });
  PetscCall(status);
  PetscCall(ug.restore());
  PetscCall(b.restore());
  PetscCall(x.restore());
  if (assemble) {
    PetscCall(MatAssemblyBegin(matrix, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(matrix, MAT_FINAL_ASSEMBLY));
    PetscCall(make_solver());
  }
  PetscFunctionReturn(0);
}

PetscErrorCode VariableViscosity::Impl::take_solution(Field& field) {
  PetscFunctionBeginUser;
  // Only the free samples take the solution: prescribed values stay bit for bit.
  ReadArray x;
  WriteArray ug;
  PetscCall(ug.get_global(field));
  PetscCall(x.get_global(dm, solution));
  for_each_index(rows, [&](PetscInt i, PetscInt j, PetscInt k) {
    for (int c = 0; c < dim; ++c)
      if (kind(c, Index{i, j, k}) == kFree) ug(i, j, k, c) = x(i, j, k, c);
  });
  PetscFunctionReturn(0);
}

VariableViscosity::VariableViscosity() : impl_(std::make_unique<Impl>()) {}

VariableViscosity::~VariableViscosity() = default;

PetscErrorCode VariableViscosity::setup(const Grid& grid, const SolidMask& solids,
                                        const SolverConfig& config, const ViscosityLaw& law) {
  PetscFunctionBeginUser;
  PetscCheck(law.enabled() && !law.at.empty() && law.at.size() == law.log_nu.size(), grid.comm(),
             PETSC_ERR_ARG_WRONG, "VariableViscosity: the law needs a scalar and its points");
  PetscCheck(!solids.cut(), grid.comm(), PETSC_ERR_SUP,
             "the variable viscosity has no cut faces yet: give obstacles surface: staircase");
  Impl& s = *impl_;
  s.grid = &grid;
  s.solids = &solids;
  s.config = config;
  s.law = law;
  s.dim = grid.dim();
  if (!solve_event) PetscCall(PetscLogEventRegister("ViscositySolve", KSP_CLASSID, &solve_event));
  PetscCall(s.create());
  PetscFunctionReturn(0);
}

PetscErrorCode VariableViscosity::diffuse(Field& velocity, Field& scalar, double dt,
                                          PetscInt* iterations) {
  PetscFunctionBeginUser;
  Impl& s = *impl_;
  PetscCheck(s.grid, PETSC_COMM_SELF, PETSC_ERR_ORDER, "VariableViscosity::setup() was not called");
  PetscCheck(&velocity.grid() == s.grid && &scalar.grid() == s.grid, s.grid->comm(),
             PETSC_ERR_ARG_WRONG, "VariableViscosity::diffuse(): a field lives on another grid");
  PetscCheck(dt > 0.0, s.grid->comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "VariableViscosity::diffuse(): time step %g must be positive", dt);
  if (iterations) *iterations = 0;
  PetscCall(PetscLogEventBegin(solve_event, 0, 0, 0, 0));
  if (s.kinds_version != s.solids->version()) PetscCall(s.classify());
  PetscBool changed = PETSC_FALSE;
  PetscCall(s.evaluate_viscosity(scalar, &changed));
  // Refill the matrix only when what it holds changed: nu (a scalar that moves), dt (an
  // adaptive step) or the mask (moving obstacles). The mask version and dt are the same on
  // every rank; nu's change was reduced over all ranks.
  const bool assemble =
      changed || dt != s.assembled_dt || s.assembled_version != s.solids->version();
  // Dirichlet faces take their boundary values and the halo is exchanged: known neighbours
  // are read from the local vector.
  PetscCall(velocity.fill_ghosts());
  s.velocity = &velocity;
  PetscCall(s.u_local.get_local(velocity));
  const PetscErrorCode filled = s.fill(dt, assemble);
  PetscCall(s.u_local.restore());
  PetscCall(filled);
  if (assemble) {
    s.assembled_nu = s.nu.data;
    s.assembled_dt = dt;
    s.assembled_version = s.solids->version();
  }
  KrylovOutcome outcome;
  PetscCall(solve_krylov(s.ksp, s.rhs, s.solution, &outcome));
  if (outcome.reason == KSP_DIVERGED_NANORINF)
    PetscCall(stop_non_finite_solve(*s.grid, "viscosity solve", "stopped with DIVERGED_NANORINF",
                                    velocity, nullptr));
  PetscCheck(outcome.reason > 0, s.grid->comm(), PETSC_ERR_NOT_CONVERGED,
             "the variable-viscosity solve did not converge: %s after %" PetscInt_FMT
             " iterations (see -viscosity_ksp_monitor, -viscosity_ksp_max_it)",
             KSPConvergedReasons[outcome.reason], outcome.iterations);
  if (iterations) *iterations = outcome.iterations;
  PetscCall(s.take_solution(velocity));
  PetscCall(PetscLogEventEnd(solve_event, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

Mat VariableViscosity::matrix() const { return impl_->matrix; }

double VariableViscosity::min_viscosity() const { return impl_->nu_min; }

double VariableViscosity::max_viscosity() const { return impl_->nu_max; }

}  // namespace sf
