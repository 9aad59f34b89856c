// The floating bodies' coupling to the free-surface projection (free_surface_projection.hpp,
// "Floating bodies"; Batty, Bertails & Bridson 2007): the pressure solve takes the bodies'
// generalised masses as the shell operator A + V_cell G^T M^-1 G, and the bodies get their
// velocities at the step's end from the pressure it finds.
#include <cmath>

#include "free_surface_projection_impl.hpp"

namespace sf {

PetscErrorCode FreeSurfaceProjection::Impl::build_coupling(const ConstArrayView& level) {
  PetscFunctionBeginUser;
  constexpr int kDofs = FloatingBodies::kDofs;
  const Grid& g = *grid;
  const int dim = g.dim();
  const IndexBox owned = g.owned_cells();
  const size_t count = bodies->bodies().size();
  body_rows.clear();
  // The liquid's half cells beside each body's faces, as a mass: sum (V_cell / 2) j_f j_f^T.
  std::vector<double> local(count * kDofs * kDofs, 0.0), shell(local.size(), 0.0);
  for_each_index(owned, [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!solids->liquid(level, i, j, k)) return;
    const size_t first = body_rows.size();
    for (int a = 0; a < dim; ++a)
      for (int side = 0; side < 2; ++side) {
        PetscInt n[3] = {i, j, k};
        n[a] += side == 0 ? -1 : 1;
        if (n[a] < 0 || n[a] >= g.cells(a) || !solids->solid(n[0], n[1], n[2])) continue;
        const int obstacle = solids->obstacle_of_cell(n[0], n[1], n[2]);
        const int b = bodies->body_of_obstacle(obstacle);
        if (b < 0) continue;
        // j_f = (e_a, r x e_a), r from the centre of mass to the face's centre.
        const PetscInt face[3] = {side == 0 ? i : n[0], side == 0 ? j : n[1],
                                  side == 0 ? k : n[2]};
        double x[3];
        solids->face_center(a, face[0], face[1], face[2], x);
        const std::array<double, 3> r = solids->arm(static_cast<size_t>(obstacle), x);
        std::array<double, kDofs> jf{};
        jf[a] = 1.0;
        const int a1 = (a + 1) % 3, a2 = (a + 2) % 3;
        // r x e_a: component a1 is r_a2, component a2 is -r_a1.
        jf[3 + a1] = r[a2];
        jf[3 + a2] = -r[a1];
        for (int d = 0; d < kDofs; ++d)
          if (!bodies->free(static_cast<size_t>(b), d)) jf[d] = 0.0;
        // This cell's row for body b (one per body it touches).
        size_t row = first;
        while (row < body_rows.size() && body_rows[row].body != static_cast<size_t>(b)) ++row;
        if (row == body_rows.size())
          body_rows.push_back({box_offset(owned, i, j, k), static_cast<size_t>(b), {}});
        const double tau = (side == 0 ? -1.0 : 1.0) / g.spacing(a);
        double* m = &local[static_cast<size_t>(b) * kDofs * kDofs];
        for (int d = 0; d < kDofs; ++d) {
          body_rows[row].g[d] += tau * jf[d];
          for (int e = 0; e < kDofs; ++e) m[d * kDofs + e] += 0.5 * cell_volume * jf[d] * jf[e];
        }
      }
  });
  PetscCallMPI(MPI_Allreduce(local.data(), shell.data(), static_cast<int>(local.size()),
                             MPI_DOUBLE, MPI_SUM, g.comm()));
  // G 1 against the size of its terms, per body and coordinate.
  std::vector<double> sums(2 * count * kDofs, 0.0);
  for (const BodyRow& row : body_rows)
    for (int d = 0; d < kDofs; ++d) {
      sums[row.body * kDofs + d] += row.g[d];
      sums[(count + row.body) * kDofs + d] += std::abs(row.g[d]);
    }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()),
                             MPI_DOUBLE, MPI_SUM, g.comm()));
  constant_free_of_bodies = true;
  for (size_t n = 0; n < count * kDofs; ++n)
    if (std::abs(sums[n]) > 1e-10 * sums[count * kDofs + n]) constant_free_of_bodies = false;
  inverse_mass.assign(count * kDofs * kDofs, 0.0);
  for (size_t b = 0; b < count; ++b) {
    double m[kDofs * kDofs];
    bodies->mass_matrix(b, m);
    bool free[kDofs];
    for (int d = 0; d < kDofs; ++d) free[d] = bodies->free(b, d);
    for (int d = 0; d < kDofs * kDofs; ++d) m[d] += shell[b * kDofs * kDofs + d];
    PetscCheck(invert_free_part(free, m, &inverse_mass[b * kDofs * kDofs]), g.comm(),
               PETSC_ERR_PLIB, "the mass matrix of floating obstacle %zu is not positive definite",
               bodies->bodies()[b].obstacle);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::Impl::body_forces(Vec x, std::vector<double>* forces) const {
  PetscFunctionBeginUser;
  constexpr int kDofs = FloatingBodies::kDofs;
  std::vector<double> local(bodies->bodies().size() * kDofs, 0.0);
  forces->assign(local.size(), 0.0);
  ReadArray values;
  PetscCall(values.get(x));
  for (const BodyRow& row : body_rows)
    for (int d = 0; d < kDofs; ++d)
      local[row.body * kDofs + d] += cell_volume * row.g[d] * values[row.offset];
  PetscCall(values.restore());
  PetscCallMPI(MPI_Allreduce(local.data(), forces->data(), static_cast<int>(local.size()),
                             MPI_DOUBLE, MPI_SUM, grid->comm()));
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::Impl::coupled_product(Mat shell, Vec x, Vec y) {
  PetscFunctionBeginUser;
  constexpr int kDofs = FloatingBodies::kDofs;
  Impl* s = nullptr;
  PetscCall(MatShellGetContext(shell, &s));
  PetscCall(MatMult(s->matrix, x, y));
  std::vector<double> forces;
  PetscCall(s->body_forces(x, &forces));
  // M^-1 F per body, then each row's G_c . (M^-1 F).
  std::vector<double> motion(forces.size(), 0.0);
  for (size_t b = 0; b < forces.size() / kDofs; ++b)
    for (int d = 0; d < kDofs; ++d)
      for (int e = 0; e < kDofs; ++e)
        motion[b * kDofs + d] +=
            s->inverse_mass[b * kDofs * kDofs + d * kDofs + e] * forces[b * kDofs + e];
  WriteArray values;
  PetscCall(values.get(y));
  for (const BodyRow& row : s->body_rows) {
    double sum = 0.0;
    for (int d = 0; d < kDofs; ++d) sum += row.g[d] * motion[row.body * kDofs + d];
    values[row.offset] += sum;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::Impl::update_bodies(double dt) {
  PetscFunctionBeginUser;
  constexpr int kDofs = FloatingBodies::kDofs;
  std::vector<double> forces;
  PetscCall(body_forces(pressure, &forces));
  for (size_t b = 0; b < bodies->bodies().size(); ++b) {
    double q[kDofs];
    bodies->velocity(b, q);
    for (int d = 0; d < kDofs; ++d)
      for (int e = 0; e < kDofs; ++e)
        q[d] += dt * inverse_mass[b * kDofs * kDofs + d * kDofs + e] * forces[b * kDofs + e];
    bodies->set_velocity(b, q);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode FreeSurfaceProjection::couple(FloatingBodies* bodies) {
  PetscFunctionBeginUser;
  Impl& s = *impl_;
  if (!bodies || !bodies->any()) PetscFunctionReturn(0);
  s.bodies = bodies;
  s.cell_volume = 1.0;
  for (int a = 0; a < s.grid->dim(); ++a) s.cell_volume *= s.grid->spacing(a);
  PetscInt local = 0, global = 0;
  PetscCall(MatGetLocalSize(s.matrix, &local, nullptr));
  PetscCall(MatGetSize(s.matrix, &global, nullptr));
  PetscCall(MatCreateShell(s.grid->comm(), local, local, global, global, &s,
                           s.coupled.replace()));
  PetscCall(MatShellSetOperation(s.coupled, MATOP_MULT,
                                 reinterpret_cast<void (*)(void)>(Impl::coupled_product)));
  PetscFunctionReturn(0);
}

}  // namespace sf
