// Extending the liquid's velocity into the air (see velocity_extension.hpp).
#include "velocity_extension.hpp"

#include "vec_array.hpp"

namespace sf {

namespace {

// Marks on the faces, kept as doubles in a face-DM vector so that PETSc exchanges them.
constexpr double kUnknown = 0.0;
constexpr double kSource = 1.0;     // the liquid's, or extended: later layers average these
constexpr double kPrescribed = 2.0; // a wall or solid face: never written, never averaged

// The least fraction of liquid that makes an air cell part of the air's first layer.
constexpr double kWet = 1e-12;

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

PetscErrorCode VelocityExtension::mark_air_layers(Field& phi, const Field* fraction) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const SolidMask& solids = *solids_;
  const int dim = grid.dim();
  constexpr double kFar = 1e9;  // no layer: beyond the band, solid, or beyond the domain
  if (!layer_) {
    PetscCall(DMCreateGlobalVector(grid.cell_dm(), layer_.replace()));
    PetscCall(DMCreateLocalVector(grid.cell_dm(), layer_local_.replace()));
  }
  const auto exchange_layers = [&]() -> PetscErrorCode {
    PetscFunctionBeginUser;
    PetscCall(VecSet(layer_local_, kFar));
    PetscCall(grid.global_to_local(grid.cell_dm(), layer_, layer_local_));
    PetscFunctionReturn(0);
  };
  // The layers: the liquid 0, then each air cell beside a cell of the layer before.
  {
    PetscCall(phi.fill_ghosts());
    ReadArray level;
    WriteArray mark;
    PetscCall(level.get_local(phi));
    PetscCall(mark.get_global(grid.cell_dm(), layer_));
    ReadArray f;
    if (fraction) PetscCall(f.get_global(*fraction));
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (solids.liquid(level, i, j, k))
        mark(i, j, k) = 0.0;
      else if (fraction && !solids.solid(i, j, k) && f(i, j, k) > kWet)
        mark(i, j, k) = 1.0;
      else
        mark(i, j, k) = kFar;
    });
  }
  for (int layer = 1; layer <= layers_; ++layer) {
    PetscCall(exchange_layers());
    ReadArray seen;
    WriteArray mark;
    PetscCall(seen.get_local(grid.cell_dm(), layer_local_));
    PetscCall(mark.get_global(grid.cell_dm(), layer_));
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (seen(i, j, k) != kFar || solids.solid(i, j, k)) return;
      for (int a = 0; a < dim; ++a)
        for (int side : {-1, 1})
          if (seen(i + (a == 0) * side, j + (a == 1) * side, k + (a == 2) * side) == layer - 1)
            mark(i, j, k) = layer;
    });
  }
  PetscCall(exchange_layers());
  PetscFunctionReturn(0);
}

PetscErrorCode VelocityExtension::close_walls_beside_air(Field& velocity) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const SolidMask& solids = *solids_;
  const int dim = grid.dim();
  // A wall beside air holds no liquid to leave it: its normal velocity is 0 again (the
  // projection leaves on an open wall's face the speed the liquid left at; once the liquid has
  // gone, that speed is a flow out of the wall into the air: a splash that ran up a wall into a
  // corner lost 0.03 % of the 2D dam break a step to it).
  {
    ReadArray seen;
    WriteArray u_out;
    PetscCall(seen.get_local(grid.cell_dm(), layer_local_));
    PetscCall(u_out.get_global(velocity));
    for (int c = 0; c < dim; ++c) {
      if (grid.periodic(c)) continue;
      for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
        const PetscInt at[3] = {i, j, k};
        const int side = at[c] == 0 ? 0 : (at[c] == grid.cells(c) ? 1 : -1);
        if (side < 0 || !solids.wall(c, side)) return;
        const PetscInt inside[3] = {i - (side == 1 && c == 0), j - (side == 1 && c == 1),
                                    k - (side == 1 && c == 2)};
        if (seen(inside[0], inside[1], inside[2]) > 0.0) u_out(i, j, k, c) = 0.0;
      });
    }
  }
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
    PetscCall(grid.global_to_local(grid.face_dm(), known_, known_local_));
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
