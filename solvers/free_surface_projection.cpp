// The free-surface projection (see free_surface_projection.hpp for the rows and their sources).
#include "free_surface_projection.hpp"
#include "free_surface_projection_impl.hpp"

#include <petscksp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "health.hpp"
#include "krylov_setup.hpp"
#include "vec_array.hpp"

namespace sf {

PetscErrorCode FreeSurfaceProjection::Impl::assemble(const ConstArrayView& level,
                                                     PetscInt* dirichlet) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  const int dim = g.dim();
  PetscCall(MatZeroEntries(matrix));
  PetscInt open_to_air = 0;
  PetscErrorCode status = 0;
  for_each_index(g.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (status) return;
    StencilRow row(i, j, k);
    PetscScalar& diagonal = row.diagonal();
    if (solids->liquid(level, i, j, k)) {
      for (int a = 0; a < dim; ++a)
        for (int side = 0; side < 2; ++side) {
          PetscInt face[3] = {i, j, k}, n[3] = {i, j, k};
          face[a] += side;
          n[a] += side == 0 ? -1 : 1;
          if (solids->fixed_face(a, face[0], face[1], face[2])) {
            // A wall the liquid leaves: air enters between, p = 0 on the wall's face.
            if (open_walls[box_offset(g.owned_cells(), i, j, k)] >> (2 * a + side) & 1u) {
              diagonal += 2.0 * inv_h2[a];
              ++open_to_air;
            }
            continue;
          }
          if (!g.periodic(a) && (n[a] < 0 || n[a] >= g.cells(a))) {
            diagonal += 2.0 * inv_h2[a];  // an outflow face: open air, p = 0 on the face
            ++open_to_air;
          } else if (solids->liquid(level, n[0], n[1], n[2])) {
            diagonal += inv_h2[a];
            row.add_neighbour(n[0], n[1], n[2], -inv_h2[a]);
          } else {
            diagonal += inv_h2[a] / theta(level(i, j, k), level(n[0], n[1], n[2]));
            ++open_to_air;
          }
        }
    }
    // Air, solid, and liquid sealed in on every side: p = 0.
    if (diagonal == 0.0) diagonal = decoupled;
    status = row.add_to(matrix);
  });
  PetscCall(status);
  PetscCall(MatAssemblyBegin(matrix, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(matrix, MAT_FINAL_ASSEMBLY));
  PetscCallMPI(MPI_Allreduce(&open_to_air, dirichlet, 1, MPIU_INT, MPI_SUM, g.comm()));
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::Impl::compute_rhs(Field& velocity,
                                                        const ConstArrayView& level, double dt) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  std::array<double, 3> inv_h{1.0, 1.0, 1.0};
  for (int a = 0; a < g.dim(); ++a) inv_h[a] = 1.0 / g.spacing(a);
  ReadArray u, wanted;
  WriteArray b, guess;
  PetscCall(u.get_local(velocity));
  PetscCall(b.get_global(dm, rhs));
  PetscCall(guess.get_global(dm, pressure));
  if (source) PetscCall(wanted.get_global(dm, source));
  const IndexBox owned = g.owned_cells();
  for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!solids->liquid(level, i, j, k)) {
      b(i, j, k) = 0.0;
      guess(i, j, k) = 0.0;  // the row's solution
      return;
    }
    const double target = source ? wanted(i, j, k) : 0.0;
    b(i, j, k) = -(cell_divergence(u, inv_h, g.dim(), i, j, k) - target) / dt;
    if (air.empty()) return;
    // The air's pressure where the row has the surface (assemble()'s Dirichlet terms), moved
    // to the right-hand side.
    for (int a = 0; a < g.dim(); ++a)
      for (int side = 0; side < 2; ++side) {
        PetscInt face[3] = {i, j, k}, n[3] = {i, j, k};
        face[a] += side;
        n[a] += side == 0 ? -1 : 1;
        if (solids->fixed_face(a, face[0], face[1], face[2])) {
          if (open_walls[box_offset(owned, i, j, k)] >> (2 * a + side) & 1u)
            b(i, j, k) += 2.0 * inv_h2[a] * surface_pressure(i, j, k, a, side, 0.5);
        } else if (!g.periodic(a) && (n[a] < 0 || n[a] >= g.cells(a))) {
          b(i, j, k) += 2.0 * inv_h2[a] * surface_pressure(i, j, k, a, side, 0.5);
        } else if (!solids->liquid(level, n[0], n[1], n[2])) {
          const double t = theta(level(i, j, k), level(n[0], n[1], n[2]));
          b(i, j, k) += inv_h2[a] / t * surface_pressure(i, j, k, a, side, t);
        }
      }
  });
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::Impl::start_from_the_better_guess(Mat op) {
  PetscFunctionBeginUser;
  BorrowedVec residual;
  PetscCall(residual.get_global(dm));
  PetscCall(MatMult(op, pressure, residual));
  PetscCall(VecAYPX(residual, -1.0, rhs));
  PetscReal from_last = 0.0, from_zero = 0.0;
  PetscCall(VecNorm(residual, NORM_2, &from_last));
  PetscCall(VecNorm(rhs, NORM_2, &from_zero));
  if (from_last > from_zero) PetscCall(VecSet(pressure, 0.0));
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::Impl::subtract_gradient(Field& velocity,
                                                              const ConstArrayView& level,
                                                              double dt) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  PetscCall(DMGlobalToLocalBegin(dm, pressure, INSERT_VALUES, pressure_local));
  PetscCall(DMGlobalToLocalEnd(dm, pressure, INSERT_VALUES, pressure_local));
  ReadArray p;
  WriteArray u;
  PetscCall(p.get_local(dm, pressure_local));
  PetscCall(u.get_global(velocity));
  for (int c = 0; c < g.dim(); ++c) {
    const double h = g.spacing(c);
    for_each_index(g.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (solids->fixed_face(c, i, j, k)) return;
      const PetscInt at[3] = {i, j, k};
      const PetscInt lo[3] = {i - (c == 0), j - (c == 1), k - (c == 2)};
      // Beyond an outflow face of the domain: open air.
      const bool lo_inside = g.periodic(c) || at[c] > 0;
      const bool hi_inside = g.periodic(c) || at[c] < g.cells(c);
      const bool lo_liquid = lo_inside && solids->liquid(level, lo[0], lo[1], lo[2]);
      const bool hi_liquid = hi_inside && solids->liquid(level, i, j, k);
      double gradient = 0.0;
      if (lo_liquid && hi_liquid) {
        gradient = (p(i, j, k) - p(lo[0], lo[1], lo[2])) / h;
      } else if (lo_liquid) {
        const double t = hi_inside ? theta(level(lo[0], lo[1], lo[2]), level(i, j, k)) : 0.5;
        const double air_p = surface_pressure(lo[0], lo[1], lo[2], c, 1, t);
        gradient = (air_p - p(lo[0], lo[1], lo[2])) / (t * h);
      } else if (hi_liquid) {
        const double t = lo_inside ? theta(level(i, j, k), level(lo[0], lo[1], lo[2])) : 0.5;
        gradient = (p(i, j, k) - surface_pressure(i, j, k, c, 0, t)) / (t * h);
      } else {
        return;  // air on both sides: the velocity extension's
      }
      u(i, j, k, c) -= dt * gradient;
    });
  }
  // Open walls: p = 0 on the wall's face, h / 2 from the centre of the liquid cell.
  const IndexBox owned = g.owned_cells();
  for_each_wall([&](PetscInt i, PetscInt j, PetscInt k, int a, int side, const PetscInt* wall,
                    const PetscInt*) {
    if (!(open_walls[box_offset(owned, i, j, k)] >> (2 * a + side) & 1u)) return;
    const double gradient = (side == 0 ? 2.0 : -2.0) *
                            (p(i, j, k) - surface_pressure(i, j, k, a, side, 0.5)) / g.spacing(a);
    // Points away from the wall: the active set ended with no open wall that would close.
    u(wall[0], wall[1], wall[2], a) -= dt * gradient;
  });
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::Impl::set_null_space(const ConstArrayView& level,
                                                           PetscInt dirichlet) {
  PetscFunctionBeginUser;
  null_space.reset();
  PetscCall(MatSetNullSpace(matrix, nullptr));
  if (dirichlet != 0) PetscFunctionReturn(0);
  const Grid& g = *grid;
  // A vector of its own: the null space keeps a reference to it, so one borrowed from the DM's
  // pool would be handed out again and overwritten while the null space still uses it.
  OwnedVec constant;
  PetscCall(DMCreateGlobalVector(dm, constant.replace()));
  WriteArray view;
  PetscCall(view.get_global(dm, constant));
  for_each_index(g.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    view(i, j, k) = solids->liquid(level, i, j, k) ? 1.0 : 0.0;
  });
  PetscCall(view.restore());
  PetscReal norm = 0.0;
  PetscCall(VecNormalize(constant, &norm));
  if (norm > 0.0) {
    const Vec basis = constant;  // MatNullSpaceCreate takes an array of vectors
    PetscCall(MatNullSpaceCreate(g.comm(), PETSC_FALSE, 1, &basis, null_space.replace()));
    PetscCall(MatSetNullSpace(matrix, null_space));
    PetscCall(MatNullSpaceRemove(null_space, rhs));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::Impl::has_free_surface(const ConstArrayView& level,
                                                              bool* result) const {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  int local = 0;
  for_each_index(g.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (local || solids->solid(i, j, k)) return;
    if (!solids->liquid(level, i, j, k)) {
      local = 1;  // air
      return;
    }
    const PetscInt at[3] = {i, j, k};
    for (int a = 0; a < g.dim(); ++a)
      for (int side = 0; side < 2; ++side)
        if (!g.periodic(a) && at[a] == (side == 0 ? 0 : g.cells(a) - 1) &&
            g.boundary(a, side) == BoundaryKind::Outflow)
          local = 1;
  });
  int any = 0;
  PetscCallMPI(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, g.comm()));
  *result = any != 0;
  PetscFunctionReturn(0);
}

template <typename F>
void FreeSurfaceProjection::Impl::for_each_wall(F&& f) const {
  const Grid& g = *grid;
  for_each_index(g.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const unsigned sides = solids->wall_sides(i, j, k);
    if (!sides) return;
    for (int a = 0; a < g.dim(); ++a)
      for (int side = 0; side < 2; ++side) {
        if (!(sides >> (2 * a + side) & 1u)) continue;
        PetscInt wall[3] = {i, j, k}, other[3] = {i, j, k};
        (side == 0 ? other : wall)[a] += 1;
        f(i, j, k, a, side, wall, other);
      }
  });
}

PetscErrorCode FreeSurfaceProjection::Impl::open_walls_from_velocity(const ConstArrayView& level,
                                                                     Field& velocity) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  const IndexBox owned = g.owned_cells();
  std::fill(open_walls.begin(), open_walls.end(), 0);
  ReadArray u;
  PetscCall(u.get_global(velocity));
  for_each_wall([&](PetscInt i, PetscInt j, PetscInt k, int a, int side, const PetscInt* wall,
                    const PetscInt*) {
    const double w = u(wall[0], wall[1], wall[2], a);
    if (solids->liquid(level, i, j, k) && (side == 0 ? w > 0.0 : w < 0.0))
      open_walls[box_offset(owned, i, j, k)] |= static_cast<unsigned char>(1u << (2 * a + side));
  });
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::Impl::set_wall_velocity(Field& velocity) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  const IndexBox owned = g.owned_cells();
  WriteArray u;
  PetscCall(u.get_global(velocity));
  for_each_wall([&](PetscInt i, PetscInt j, PetscInt k, int a, int side, const PetscInt* wall,
                    const PetscInt* other) {
    const bool open = open_walls[box_offset(owned, i, j, k)] >> (2 * a + side) & 1u;
    u(wall[0], wall[1], wall[2], a) = open ? u(other[0], other[1], other[2], a) : 0.0;
  });
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::Impl::update_open_walls(const ConstArrayView& level,
                                                              Field& velocity, double dt,
                                                              bool may_open, PetscInt* changed) {
  PetscFunctionBeginUser;
  const Grid& g = *grid;
  const IndexBox owned = g.owned_cells();
  ReadArray p, u;
  PetscCall(p.get_global(dm, pressure));
  PetscCall(u.get_global(velocity));
  PetscInt local = 0;
  for_each_wall([&](PetscInt i, PetscInt j, PetscInt k, int a, int side, const PetscInt*,
                    const PetscInt* other) {
    unsigned char& bits = open_walls[box_offset(owned, i, j, k)];
    const unsigned char bit = static_cast<unsigned char>(1u << (2 * a + side));
    bool open = bits & bit;
    // The velocity the wall's face gets open (p = 0 on the face, h / 2 from the centre; u* the
    // other face's, which set_wall_velocity() gave the open ones), and whether the gap it opens
    // in this step is more than kLeastGap of a cell: a liquid merely at rest against a wall,
    // p = 0 to the solver's tolerance (a stream without gravity, a film), must not open it on
    // the sign of that noise.
    const double air_p = surface_pressure(i, j, k, a, side, 0.5);
    const double gradient = (side == 0 ? 2.0 : -2.0) * (p(i, j, k) - air_p) / g.spacing(a);
    const double u_star = u(other[0], other[1], other[2], a);
    const double away = (side == 0 ? 1.0 : -1.0) * (u_star - dt * gradient);
    const bool leaves = away * dt > kLeastGap * g.spacing(a);
    if (!solids->liquid(level, i, j, k))
      open = false;
    else if (!open)
      open = may_open && SolidMask::separates(p(i, j, k) - air_p) && leaves;
    else
      open = leaves;
    if (open != static_cast<bool>(bits & bit)) ++local;
    bits = static_cast<unsigned char>(open ? bits | bit : bits & ~bit);
  });
  PetscCall(u.restore());
  PetscCall(p.restore());
  PetscCallMPI(MPI_Allreduce(&local, changed, 1, MPIU_INT, MPI_SUM, g.comm()));
  PetscFunctionReturn(0);
}

FreeSurfaceProjection::FreeSurfaceProjection() : impl_(std::make_unique<Impl>()) {}

FreeSurfaceProjection::~FreeSurfaceProjection() = default;

PetscErrorCode FreeSurfaceProjection::setup(const Grid& grid, const SolidMask& solids,
                                            const SolverConfig& config, Field& phi,
                                            const std::vector<AirPressure>& air,
                                            bool walls_may_open) {
  PetscFunctionBeginUser;
  Impl& s = *impl_;
  s.air = air;
  s.walls_may_open = walls_may_open;
  s.grid = &grid;
  s.solids = &solids;
  s.phi = &phi;
  PetscCheck(!solids.cut(), grid.comm(), PETSC_ERR_SUP,
             "a liquid with cut obstacles (surface: cut) is not supported yet: use staircase "
             "obstacles");
  PetscCheck(config.max_divergence == 0.0, grid.comm(), PETSC_ERR_SUP,
             "pressure.max_divergence is not supported with a liquid yet: use pressure.tolerance");
  s.decoupled = 0.0;
  for (int a = 0; a < grid.dim(); ++a) {
    s.inv_h2[a] = 1.0 / (grid.spacing(a) * grid.spacing(a));
    s.decoupled += 2.0 * s.inv_h2[a];
  }
  s.open_walls.assign(static_cast<size_t>(grid.owned_cells().count()), 0);
  PetscCall(create_sample_dm(grid, -1, false, s.dm.replace()));
  PetscCall(DMCreateMatrix(s.dm, s.matrix.replace()));
  PetscCall(MatSetOption(s.matrix, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(s.matrix, MAT_SPD, PETSC_TRUE));
  PetscCall(DMCreateGlobalVector(s.dm, s.pressure.replace()));
  PetscCall(DMCreateLocalVector(s.dm, s.pressure_local.replace()));
  PetscCall(DMCreateGlobalVector(s.dm, s.rhs.replace()));
  PetscCall(PetscObjectSetName(reinterpret_cast<PetscObject>(s.pressure.get()), "pressure"));
  PetscCall(create_krylov_solver(grid.comm(), kFreeSurfacePrefix, config, s.ksp.replace()));
  PC pc;
  PetscCall(KSPGetPC(s.ksp, &pc));
#if defined(PETSC_HAVE_HYPRE)
  // BoomerAMG: GAMG's Chebyshev smoothing reported an indefinite preconditioner on the dam
  // break once the surface's 1 / theta terms varied by orders of magnitude.
  PetscCall(PCSetType(pc, PCHYPRE));
#else
  PetscCall(PCSetType(pc, PCGAMG));
#endif
  PetscCall(KSPSetFromOptions(s.ksp));
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::project(Field& velocity, double dt,
                                              ProjectionStats* stats) {
  PetscFunctionBeginUser;
  Impl& s = *impl_;
  const Grid& grid = *s.grid;
  PetscCall(velocity.fill_ghosts());
  PetscCall(s.phi->fill_ghosts());
  ReadArray level;
  PetscCall(level.get_local(*s.phi));

  // The walls the liquid leaves are an active set (see update_open_walls()): start from those
  // it was leaving after the last step, solve, update them from the new pressure, and solve
  // again while any changed. Most steps solve once. After kOpeningSweeps solves walls
  // only close: the set shrinks at every further solve, so the loop ends, and it ends on a
  // pressure with which no open wall's velocity points into the wall. (Stopping at the cap
  // instead and setting such a velocity to 0 left the liquid cell beside it with a divergence
  // of up to 42 / s in the 3D dam break: liquid made from nothing at the floor and ceiling.)
  bool free_surface = false;
  if (s.walls_may_open) PetscCall(s.has_free_surface(level, &free_surface));
  if (free_surface)
    PetscCall(s.open_walls_from_velocity(level, velocity));
  else
    std::fill(s.open_walls.begin(), s.open_walls.end(), 0);
  PetscInt iterations = 0;
  KrylovOutcome outcome;
  if (s.bodies) PetscCall(s.build_coupling(level));
  for (int sweep = 1;; ++sweep) {
    PetscCall(s.set_wall_velocity(velocity));
    PetscCall(velocity.fill_ghosts());
    PetscCall(s.compute_rhs(velocity, level, dt));
    PetscInt dirichlet = 0;
    PetscCall(s.assemble(level, &dirichlet));
    PetscCall(s.set_null_space(level, dirichlet));
    if (s.bodies) {
      // The constant stays in the coupled operator's null space where the bodies' sums over it
      // vanish (build_coupling()).
      const bool constant = s.null_space && s.constant_free_of_bodies;
      PetscCall(MatSetNullSpace(s.coupled, constant ? s.null_space.get() : nullptr));
      PetscCall(KSPSetOperators(s.ksp, s.coupled, s.matrix));
    } else {
      PetscCall(KSPSetOperators(s.ksp, s.matrix, s.matrix));
    }
    // The last pressure is the solve's start (a few iterations fewer while the liquid moves
    // smoothly), unless starting from 0 is better: where the liquid changed under it, it can be
    // far worse. A pocket of air the liquid closed in is liquid for a step (its pressure rose
    // to 995 in a 2D dam break at 384 x 192), then air again, where the pressure is 0; a cell
    // whose surface came close gains up to 1 / kLeastTheta on its diagonal. Started from that,
    // the first residual was 5.9e10 against |b| = 1.3e6, and PETSc's divergence test stopped
    // the solve (DIVERGED_DTOL) before its first iteration.
    PetscCall(s.start_from_the_better_guess(s.bodies ? s.coupled.get() : s.matrix.get()));
    PetscCall(solve_krylov(s.ksp, s.rhs, s.pressure, &outcome));
    iterations += outcome.iterations;
    if (outcome.reason == KSP_DIVERGED_NANORINF)
      PetscCall(stop_non_finite_solve(grid, "pressure solve", "stopped with DIVERGED_NANORINF",
                                      velocity, s.pressure));
    PetscCheck(outcome.reason > 0, grid.comm(), PETSC_ERR_NOT_CONVERGED,
               "the free-surface pressure solve did not converge: %s after %" PetscInt_FMT
               " iterations, residual norm %g (see -pressure_ksp_monitor, -pressure_ksp_max_it, "
               "-pressure_pc_type)",
               KSPConvergedReasons[outcome.reason], outcome.iterations,
               static_cast<double>(outcome.residual_norm));
    if (!free_surface) break;
    PetscInt changed = 0;
    PetscCall(s.update_open_walls(level, velocity, dt, sweep < kOpeningSweeps, &changed));
    if (changed == 0) break;
  }
  PetscCall(s.subtract_gradient(velocity, level, dt));
  if (s.bodies) {
    // The bodies' faces take the velocities the solve gave them, which make the liquid beside
    // them divergence-free.
    PetscCall(s.update_bodies(dt));
    PetscCall(s.solids->hold_solid_faces(velocity));
  }
  s.last_dt = dt;
  stats->iterations = iterations;
  stats->residual_norm = outcome.residual_norm;
  PetscCall(max_divergence(velocity, *s.solids, &stats->max_divergence, &level, s.source));
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::set_divergence_source(Vec source) {
  PetscFunctionBeginUser;
  impl_->source = source;
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::subtract_pressure_gradient(Field&, double) {
  PetscFunctionBeginUser;
  SETERRQ(impl_->grid->comm(), PETSC_ERR_SUP,
          "the incremental projection (time.scheme: bdf2) is not available with a liquid");
}

PetscErrorCode FreeSurfaceProjection::project_increment(Field&, double, ProjectionStats*) {
  PetscFunctionBeginUser;
  SETERRQ(impl_->grid->comm(), PETSC_ERR_SUP,
          "the incremental projection (time.scheme: bdf2) is not available with a liquid");
}

Vec FreeSurfaceProjection::pressure() const { return impl_->pressure; }

void FreeSurfaceProjection::set_time(double time) { impl_->time = time; }

double FreeSurfaceProjection::last_dt() const { return impl_->last_dt; }

void FreeSurfaceProjection::set_last_dt(double dt) { impl_->last_dt = dt; }

}  // namespace sf
