// Extending the liquid's velocity into the air (see velocity_extension.hpp).
#include "velocity_extension.hpp"

#include "vec_array.hpp"

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
  ReadArray level;
  PetscCall(level.get_local(phi));

  // The marks of the owned faces: the liquid's faces are the sources.
  WriteArray mark;
  PetscCall(mark.get_global(grid.face_dm(), known_));
  for (int c = 0; c < dim; ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      const bool touches = solids.liquid(level, i, j, k) ||
                           solids.liquid(level, i - (c == 0), j - (c == 1), k - (c == 2));
      mark(i, j, k, c) = touches ? kSource
                                 : (solids.fixed_face(c, i, j, k) ? kPrescribed : kUnknown);
    });
  PetscCall(mark.restore());
  PetscCall(level.restore());

  for (int layer = 0; layer < layers_; ++layer) {
    PetscCall(velocity.fill_ghosts());
    // Ghosts beyond a wall are no faces of the grid: they stay unknown.
    PetscCall(VecSet(known_local_, kUnknown));
    PetscCall(DMGlobalToLocalBegin(grid.face_dm(), known_, INSERT_VALUES, known_local_));
    PetscCall(DMGlobalToLocalEnd(grid.face_dm(), known_, INSERT_VALUES, known_local_));
    ReadArray u, seen;
    WriteArray u_out, seen_out;
    PetscCall(u.get_local(velocity));
    PetscCall(seen.get_local(grid.face_dm(), known_local_));
    PetscCall(u_out.get_global(velocity));
    PetscCall(seen_out.get_global(grid.face_dm(), known_));
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
  }

  // Beyond the band: at rest.
  PetscCall(mark.get_global(grid.face_dm(), known_));
  WriteArray u_out;
  PetscCall(u_out.get_global(velocity));
  for (int c = 0; c < dim; ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (mark(i, j, k, c) == kUnknown) u_out(i, j, k, c) = 0.0;
    });
  PetscFunctionReturn(0);
}

}  // namespace sf
