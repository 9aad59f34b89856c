// The air band's projection (see air_band_projection.hpp for the equations and their reasons).
#include "air_band_projection.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "divergence.hpp"
#include "health.hpp"
#include "krylov_setup.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

/// The options prefix of the band's solve.
constexpr const char* kPrefix = "air_band_";

/// -log_view's events: the whole correction, and the marking of its cells in it.
PetscLogEvent project_event = 0, mark_event = 0;

/// What a cell is to the solve (kept as doubles in a cell vector, so that PETSc exchanges
/// them): not the band's, a band cell that reaches the Dirichlet edge, a pocket's cell, a
/// pocket's core (its cells of its deepest layer: q = 0 there).
constexpr double kNotBand = 0.0;
constexpr double kReached = 1.0;
constexpr double kPocket = 2.0;
constexpr double kCore = 3.0;

bool unknown(double role) { return role == kReached || role == kPocket; }

bool in_band(const SolidMask& solids, const ConstArrayView& layer, int band, PetscInt i,
             PetscInt j, PetscInt k) {
  const double l = layer(i, j, k);
  return !solids.solid(i, j, k) && l >= 1.0 && l <= band;
}

/// Calls f(a, side, n, boundary) for each free face of cell `at`: n its neighbour's index, or,
/// when `boundary`, the face is an outflow face of the domain (n is outside it).
template <typename F>
void for_each_free_face(const Grid& grid, const SolidMask& solids, const PetscInt at[3], F&& f) {
  for (int a = 0; a < grid.dim(); ++a)
    for (int side = 0; side < 2; ++side) {
      PetscInt face[3] = {at[0], at[1], at[2]}, n[3] = {at[0], at[1], at[2]};
      face[a] += side;
      n[a] += side == 0 ? -1 : 1;
      if (solids.fixed_face(a, face[0], face[1], face[2])) continue;
      const bool boundary = !grid.periodic(a) && (n[a] < 0 || n[a] >= grid.cells(a));
      f(a, side, n, boundary);
    }
}

}  // namespace

PetscErrorCode AirBandProjection::setup(const Grid& grid, const SolidMask& solids) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  if (!project_event) {
    PetscCall(PetscLogEventRegister("AirBandProject", KSP_CLASSID, &project_event));
    PetscCall(PetscLogEventRegister("AirBandMark", KSP_CLASSID, &mark_event));
  }
  for (int a = 0; a < grid.dim(); ++a) inv_h2_[a] = 1.0 / (grid.spacing(a) * grid.spacing(a));
  PetscCall(create_sample_dm(grid, -1, false, dm_.replace()));
  PetscCall(DMCreateMatrix(dm_, matrix_.replace()));
  PetscCall(MatSetOption(matrix_, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(matrix_, MAT_SPD, PETSC_TRUE));
  PetscCall(DMCreateGlobalVector(dm_, q_.replace()));
  PetscCall(DMCreateLocalVector(dm_, q_local_.replace()));
  PetscCall(DMCreateGlobalVector(dm_, rhs_.replace()));
  PetscCall(DMCreateGlobalVector(dm_, role_.replace()));
  PetscCall(DMCreateGlobalVector(dm_, label_.replace()));
  PetscCall(DMCreateLocalVector(dm_, label_local_.replace()));
  PetscCall(DMCreateLocalVector(dm_, role_local_.replace()));
  SolverConfig config;
  config.rtol = 1e-14;  // the absolute rule decides (see the top)
  config.atol = kTolerance;
  config.max_iterations = 1000;
  PetscCall(create_krylov_solver(grid.comm(), kPrefix, config, ksp_.replace()));
  PC pc;
  PetscCall(KSPGetPC(ksp_, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetFromOptions(ksp_));
  PetscFunctionReturn(0);
}

template <typename F>
PetscErrorCode AirBandProjection::settle(Vec global, Vec local, F&& update) {
  PetscFunctionBeginUser;
  const IndexBox owned = grid_->owned_cells();
  for (;;) {
    PetscCall(DMGlobalToLocalBegin(dm_, global, INSERT_VALUES, local));
    PetscCall(DMGlobalToLocalEnd(dm_, global, INSERT_VALUES, local));
    PetscInt changed = 0;
    {
      WriteArray values;
      PetscCall(values.get_local(dm_, local));
      for (int pass = 0;; ++pass) {
        PetscInt here = 0;
        if (pass % 2 == 0) {
          for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
            here += update(values, i, j, k);
          });
        } else {
          for (PetscInt k = owned.hi[2] - 1; k >= owned.lo[2]; --k)
            for (PetscInt j = owned.hi[1] - 1; j >= owned.lo[1]; --j)
              for (PetscInt i = owned.hi[0] - 1; i >= owned.lo[0]; --i)
                here += update(values, i, j, k);
        }
        changed += here;
        if (here == 0 && pass > 0) break;
      }
    }
    PetscCall(DMLocalToGlobal(dm_, local, INSERT_VALUES, global));
    PetscInt any = 0;
    PetscCallMPI(MPI_Allreduce(&changed, &any, 1, MPIU_INT, MPI_SUM, grid_->comm()));
    if (any == 0) break;
  }
  // The last pass changed nothing: `local`'s ghosts are the neighbours' final values.
  PetscFunctionReturn(0);
}

PetscErrorCode AirBandProjection::mark_roles(const ConstArrayView& layer, int band,
                                             PetscInt* pockets) {
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(mark_event, 0, 0, 0, 0));
  const Grid& grid = *grid_;
  const SolidMask& solids = *solids_;
  const IndexBox owned = grid.owned_cells();
  // The band cells beside the air beyond the band or an outflow face reach the edge, and so
  // does every band cell connected to one through free faces.
  {
    WriteArray role;
    PetscCall(role.get_global(dm_, role_));
    for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
      role(i, j, k) = kNotBand;
      if (!in_band(solids, layer, band, i, j, k)) return;
      role(i, j, k) = kPocket;
      const PetscInt at[3] = {i, j, k};
      for_each_free_face(grid, solids, at, [&](int, int, const PetscInt* n, bool boundary) {
        if (boundary || layer(n[0], n[1], n[2]) > band) role(i, j, k) = kReached;
      });
    });
  }
  PetscCall(settle(role_, role_local_, [&](WriteArray& role, PetscInt i, PetscInt j, PetscInt k) {
    if (role(i, j, k) != kPocket) return 0;
    const PetscInt at[3] = {i, j, k};
    bool reached = false;
    for_each_free_face(grid, solids, at, [&](int, int, const PetscInt* n, bool boundary) {
      if (!boundary && role(n[0], n[1], n[2]) == kReached) reached = true;
    });
    if (!reached) return 0;
    role(i, j, k) = kReached;
    return 1;
  }));
  PetscInt local = 0;
  {
    ReadArray role;
    PetscCall(role.get_global(dm_, role_));
    for_each_index(owned,
                   [&](PetscInt i, PetscInt j, PetscInt k) { local += role(i, j, k) == kPocket; });
  }
  PetscCallMPI(MPI_Allreduce(&local, pockets, 1, MPIU_INT, MPI_SUM, grid.comm()));
  if (*pockets == 0) {
    PetscCall(PetscLogEventEnd(mark_event, 0, 0, 0, 0));
    PetscFunctionReturn(0);
  }

  // Each pocket is named by the least global index of its cells (spread as the least label of
  // the neighbours): the same name on any rank count.
  const auto global_index = [&](PetscInt i, PetscInt j, PetscInt k) {
    return static_cast<double>((k * grid.cells(1) + j) * grid.cells(0) + i);
  };
  {
    ReadArray role;
    WriteArray label;
    PetscCall(role.get_global(dm_, role_));
    PetscCall(label.get_global(dm_, label_));
    for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
      label(i, j, k) = role(i, j, k) == kPocket ? global_index(i, j, k) : -1.0;
    });
  }
  PetscCall(settle(label_, label_local_, [&](WriteArray& label, PetscInt i, PetscInt j, PetscInt k) {
    if (label(i, j, k) < 0.0) return 0;
    const PetscInt at[3] = {i, j, k};
    double least = label(i, j, k);
    for_each_free_face(grid, solids, at, [&](int, int, const PetscInt* n, bool boundary) {
      const double other = boundary ? -1.0 : label(n[0], n[1], n[2]);
      if (other >= 0.0 && other < least) least = other;
    });
    if (least == label(i, j, k)) return 0;
    label(i, j, k) = least;
    return 1;
  }));
  PetscCall(mark_cores(layer));
  PetscCall(DMGlobalToLocalBegin(dm_, role_, INSERT_VALUES, role_local_));
  PetscCall(DMGlobalToLocalEnd(dm_, role_, INSERT_VALUES, role_local_));
  PetscCall(PetscLogEventEnd(mark_event, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode AirBandProjection::mark_cores(const ConstArrayView& layer) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const IndexBox owned = grid.owned_cells();
  // Per pocket on this rank: its name and its deepest layer.
  std::map<double, double> here;
  {
    ReadArray role, label;
    PetscCall(role.get_global(dm_, role_));
    PetscCall(label.get_global(dm_, label_));
    for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
      if (role(i, j, k) != kPocket) return;
      double& deepest = here[label(i, j, k)];
      deepest = std::max(deepest, layer(i, j, k));
    });
  }
  std::vector<double> mine;
  for (const auto& [name, deepest] : here) mine.insert(mine.end(), {name, deepest});
  int size = 0;
  PetscCallMPI(MPI_Comm_size(grid.comm(), &size));
  std::vector<int> counts(static_cast<size_t>(size)), offsets(static_cast<size_t>(size), 0);
  const int count = static_cast<int>(mine.size());
  PetscCallMPI(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, grid.comm()));
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<double> all(static_cast<size_t>(offsets.back() + counts.back()));
  PetscCallMPI(MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(),
                              offsets.data(), MPI_DOUBLE, grid.comm()));
  std::map<double, double> deepest;
  for (size_t n = 0; n + 1 < all.size(); n += 2)
    deepest[all[n]] = std::max(deepest[all[n]], all[n + 1]);
  ReadArray label;
  WriteArray role;
  PetscCall(label.get_global(dm_, label_));
  PetscCall(role.get_global(dm_, role_));
  for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    if (role(i, j, k) == kPocket && layer(i, j, k) == deepest.at(label(i, j, k)))
      role(i, j, k) = kCore;
  });
  PetscFunctionReturn(0);
}

PetscErrorCode AirBandProjection::assemble(const ConstArrayView& layer) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const SolidMask& solids = *solids_;
  ReadArray role;
  PetscCall(role.get_local(dm_, role_local_));
  PetscCall(MatZeroEntries(matrix_));
  PetscInt start = 0;
  PetscCall(VecGetOwnershipRange(q_, &start, nullptr));
  unknowns_.clear();
  PetscErrorCode status = 0;
  const IndexBox owned = grid.owned_cells();
  for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    if (status || !unknown(role(i, j, k))) return;
    unknowns_.push_back(start + static_cast<PetscInt>(box_offset(owned, i, j, k)));
    StencilRow row(i, j, k);
    const PetscInt at[3] = {i, j, k};
    for_each_free_face(grid, solids, at, [&](int a, int, const PetscInt* n, bool boundary) {
      if (boundary) {
        row.diagonal() += 2.0 * inv_h2_[a];  // q = 0 on the outflow face, half a cell away
      } else if (layer(n[0], n[1], n[2]) == 0.0) {
        // The projection's face: kept.
      } else if (unknown(role(n[0], n[1], n[2]))) {
        row.diagonal() += inv_h2_[a];
        row.add_neighbour(n[0], n[1], n[2], -inv_h2_[a]);
      } else {
        row.diagonal() += inv_h2_[a];  // beyond the band, or a pocket's core: q = 0 there
      }
    });
    // A band cell whose faces are all kept has nothing to correct: q = 0.
    if (row.diagonal() == 0.0) row.diagonal() = 1.0;
    status = row.add_to(matrix_);
  });
  PetscCall(status);
  PetscCall(MatAssemblyBegin(matrix_, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(matrix_, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode AirBandProjection::subtract_gradient(Field& velocity, const ConstArrayView& layer,
                                                    double dt) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const SolidMask& solids = *solids_;
  PetscCall(DMGlobalToLocalBegin(dm_, q_, INSERT_VALUES, q_local_));
  PetscCall(DMGlobalToLocalEnd(dm_, q_, INSERT_VALUES, q_local_));
  ReadArray q, role;
  PetscCall(q.get_local(dm_, q_local_));
  PetscCall(role.get_local(dm_, role_local_));
  WriteArray u;
  PetscCall(u.get_global(velocity));
  // q of a cell: the solve's where it is unknown, 0 elsewhere (its decoupled rows).
  const auto value = [&](const PetscInt at[3]) {
    return unknown(role(at[0], at[1], at[2])) ? q(at[0], at[1], at[2]) : 0.0;
  };
  for (int c = 0; c < grid.dim(); ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (solids.fixed_face(c, i, j, k)) return;
      const PetscInt upper[3] = {i, j, k};
      const PetscInt lower[3] = {i - (c == 0), j - (c == 1), k - (c == 2)};
      const double h = grid.spacing(c);
      if (!grid.periodic(c) && (upper[c] == 0 || upper[c] == grid.cells(c))) {
        // An outflow face: q = 0 on it.
        const bool below = upper[c] == 0;
        const PetscInt* inside = below ? upper : lower;
        if (!unknown(role(inside[0], inside[1], inside[2]))) return;
        const double gradient = (below ? value(inside) : -value(inside)) / (0.5 * h);
        u(i, j, k, c) -= gradient / dt;
        return;
      }
      const bool touches_band = role(lower[0], lower[1], lower[2]) != kNotBand ||
                                role(upper[0], upper[1], upper[2]) != kNotBand;
      if (!touches_band || layer(lower[0], lower[1], lower[2]) == 0.0 ||
          layer(upper[0], upper[1], upper[2]) == 0.0)
        return;
      u(i, j, k, c) -= (value(upper) - value(lower)) / h / dt;
    });
  PetscFunctionReturn(0);
}

PetscErrorCode AirBandProjection::project(Field& velocity, Vec layers, int band, double dt,
                                          AirBandStats* stats) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  PetscCall(PetscLogEventBegin(project_event, 0, 0, 0, 0));
  ReadArray layer;
  PetscCall(layer.get_local(grid.cell_dm(), layers));
  PetscCall(mark_roles(layer, band, &stats->pocket_cells));
  PetscCall(assemble(layer));
  {
    PetscCall(velocity.fill_ghosts());
    std::array<double, 3> inverse_h{1.0, 1.0, 1.0};
    for (int a = 0; a < grid.dim(); ++a) inverse_h[a] = 1.0 / grid.spacing(a);
    ReadArray u, role;
    PetscCall(u.get_local(velocity));
    PetscCall(role.get_local(dm_, role_local_));
    WriteArray b;
    PetscCall(b.get_global(dm_, rhs_));
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      b(i, j, k) = unknown(role(i, j, k))
                       ? -cell_divergence(u, inverse_h, grid.dim(), i, j, k) * dt
                       : 0.0;
    });
  }
  // The solve sees the band's unknowns alone (the operator's rows of the rest are empty): its
  // vectors are the band's few cells, not the grid.
  PetscCall(VecSet(q_, 0.0));
  Owned<IS, ISDestroy> rows;
  PetscCall(ISCreateGeneral(grid.comm(), static_cast<PetscInt>(unknowns_.size()),
                            unknowns_.data(), PETSC_USE_POINTER, rows.replace()));
  PetscInt size = 0;
  PetscCall(ISGetSize(rows, &size));
  KrylovOutcome outcome;
  if (size > 0) {
    Owned<Mat, MatDestroy> band_matrix;
    PetscCall(MatCreateSubMatrix(matrix_, rows, rows, MAT_INITIAL_MATRIX, band_matrix.replace()));
    Vec b, x;
    PetscCall(VecGetSubVector(rhs_, rows, &b));
    PetscCall(VecGetSubVector(q_, rows, &x));
    // The band's size changes every step: the solver starts afresh on it.
    PetscCall(KSPReset(ksp_));
    PetscCall(KSPSetOperators(ksp_, band_matrix, band_matrix));
    PetscCall(solve_krylov(ksp_, b, x, &outcome));
    PetscCall(VecRestoreSubVector(q_, rows, &x));
    PetscCall(VecRestoreSubVector(rhs_, rows, &b));
  }
  if (outcome.reason == KSP_DIVERGED_NANORINF)
    PetscCall(stop_non_finite_solve(grid, "air band's solve", "stopped with DIVERGED_NANORINF",
                                    velocity, q_));
  stats->iterations = outcome.iterations;
  stats->residual = outcome.residual_norm;
  PetscCall(subtract_gradient(velocity, layer, dt));
  PetscCall(PetscLogEventEnd(project_event, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode AirBandProjection::fill_pockets(Field& phi, Vec layers, int band,
                                               PetscInt* cells) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  ReadArray layer;
  PetscCall(layer.get_local(grid.cell_dm(), layers));
  PetscCall(mark_roles(layer, band, cells));
  if (*cells == 0) PetscFunctionReturn(0);
  double h = grid.spacing(0);
  for (int a = 1; a < grid.dim(); ++a) h = std::min(h, grid.spacing(a));
  ReadArray role;
  WriteArray level;
  PetscCall(role.get_global(dm_, role_));
  PetscCall(level.get_global(phi));
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (role(i, j, k) == kPocket || role(i, j, k) == kCore) level(i, j, k) = -0.5 * h;
  });
  PetscFunctionReturn(0);
}

}  // namespace sf
