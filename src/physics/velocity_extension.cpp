// Extending the liquid's velocity into the air (see velocity_extension.hpp).
#include "velocity_extension.hpp"

namespace sf {

namespace {

// Marks on the faces, kept as doubles in a face-DM vector so that PETSc exchanges them.
constexpr double kUnknown = 0.0;
constexpr double kSource = 1.0;     // the liquid's, or extended: later layers average these
constexpr double kPrescribed = 2.0; // a wall or solid face: never written, never averaged

}  // namespace

PetscErrorCode VelocityExtension::setup(const Grid& grid, const SolidMask& solids, int layers) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  layers_ = layers;
  PetscCall(DMCreateGlobalVector(grid.face_dm(), known_.replace()));
  PetscCall(DMCreateLocalVector(grid.face_dm(), known_local_.replace()));
  PetscFunctionReturn(0);
}

PetscErrorCode VelocityExtension::extend(Field& velocity, Field& phi) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const SolidMask& solids = *solids_;
  const int dim = grid.dim();
  PetscCall(phi.fill_ghosts());
  const PetscScalar* phi_data;
  ArrayView level;
  PetscCall(VecGetArrayRead(phi.local(), &phi_data));
  PetscCall(grid.local_view(phi.dm(), const_cast<PetscScalar*>(phi_data), &level));

  // The marks of the owned faces: the liquid's faces are the sources.
  PetscScalar* marks;
  ArrayView mark;
  PetscCall(VecGetArray(known_, &marks));
  PetscCall(grid.global_view(grid.face_dm(), marks, &mark));
  for (int c = 0; c < dim; ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      const bool touches = solids.liquid(level, i, j, k) ||
                           solids.liquid(level, i - (c == 0), j - (c == 1), k - (c == 2));
      mark(i, j, k, c) = touches ? kSource
                                 : (solids.fixed_face(c, i, j, k) ? kPrescribed : kUnknown);
    });
  PetscCall(VecRestoreArray(known_, &marks));
  PetscCall(VecRestoreArrayRead(phi.local(), &phi_data));

  for (int layer = 0; layer < layers_; ++layer) {
    PetscCall(velocity.fill_ghosts());
    // Ghosts beyond a wall are no faces of the grid: they stay unknown.
    PetscCall(VecSet(known_local_, kUnknown));
    PetscCall(DMGlobalToLocalBegin(grid.face_dm(), known_, INSERT_VALUES, known_local_));
    PetscCall(DMGlobalToLocalEnd(grid.face_dm(), known_, INSERT_VALUES, known_local_));
    const PetscScalar *u_local, *marks_local;
    PetscScalar *u_global, *marks_global;
    ArrayView u, u_out, seen, seen_out;
    PetscCall(VecGetArrayRead(velocity.local(), &u_local));
    PetscCall(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(u_local), &u));
    PetscCall(VecGetArrayRead(known_local_, &marks_local));
    PetscCall(grid.local_view(grid.face_dm(), const_cast<PetscScalar*>(marks_local), &seen));
    PetscCall(VecGetArray(velocity.global(), &u_global));
    PetscCall(grid.global_view(velocity.dm(), u_global, &u_out));
    PetscCall(VecGetArray(known_, &marks_global));
    PetscCall(grid.global_view(grid.face_dm(), marks_global, &seen_out));
    for (int c = 0; c < dim; ++c)
      for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
        if (seen(i, j, k, c) != kUnknown) return;
        double sum = 0.0;
        int count = 0;
        for (int a = 0; a < dim; ++a)
          for (int step : {-1, 1}) {
            const PetscInt n[3] = {i + (a == 0) * step, j + (a == 1) * step,
                                   k + (a == 2) * step};
            if (seen(n[0], n[1], n[2], c) != kSource) continue;
            sum += u(n[0], n[1], n[2], c);
            ++count;
          }
        if (count == 0) return;
        u_out(i, j, k, c) = sum / count;
        seen_out(i, j, k, c) = kSource;
      });
    PetscCall(VecRestoreArray(known_, &marks_global));
    PetscCall(VecRestoreArray(velocity.global(), &u_global));
    PetscCall(VecRestoreArrayRead(known_local_, &marks_local));
    PetscCall(VecRestoreArrayRead(velocity.local(), &u_local));
  }

  // Beyond the band: at rest.
  PetscCall(VecGetArray(known_, &marks));
  PetscCall(grid.global_view(grid.face_dm(), marks, &mark));
  PetscScalar* u_global;
  ArrayView u_out;
  PetscCall(VecGetArray(velocity.global(), &u_global));
  PetscCall(grid.global_view(velocity.dm(), u_global, &u_out));
  for (int c = 0; c < dim; ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (mark(i, j, k, c) == kUnknown) u_out(i, j, k, c) = 0.0;
    });
  PetscCall(VecRestoreArray(velocity.global(), &u_global));
  PetscCall(VecRestoreArray(known_, &marks));
  PetscFunctionReturn(0);
}

}  // namespace sf
