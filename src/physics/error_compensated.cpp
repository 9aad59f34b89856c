// MacCormack and BFECC (Selle et al. 2008), in the comment of error_compensated.hpp: two or three
// semi-Lagrangian passes over copies of the old fields, the correction, and the fallback to one
// pass wherever the result leaves the range of the old values around the departure point.
#include "error_compensated.hpp"

#include "limiters.hpp"
#include "vec_array.hpp"

namespace sf {

PetscErrorCode ErrorCompensated::setup(const Grid& grid, const SolidMask& solids,
                                       Interpolation interpolation, int scalar_count,
                                       AdvectionScheme scheme) {
  PetscFunctionBeginUser;
  scheme_ = scheme;
  PetscCall(pass_.setup(grid, solids, interpolation, scalar_count, true));
  PetscCall(DMCreateLocalVector(grid.face_dm(), carrier_.replace()));
  PetscCall(DMCreateGlobalVector(grid.face_dm(), velocity_old_.replace()));
  PetscCall(DMCreateGlobalVector(grid.face_dm(), velocity_work_.replace()));
  scalars_old_.resize(static_cast<size_t>(scalar_count));
  scalars_work_.resize(static_cast<size_t>(scalar_count));
  for (int s = 0; s < scalar_count; ++s) {
    PetscCall(DMCreateGlobalVector(grid.cell_dm(), scalars_old_[s].replace()));
    PetscCall(DMCreateGlobalVector(grid.cell_dm(), scalars_work_[s].replace()));
  }
  bounds_.resize(static_cast<size_t>(grid.dim() + 1));
  for (int c = 0; c < grid.dim(); ++c)
    bounds_[c].resize(2 * static_cast<size_t>(grid.owned_faces(c).count()));
  bounds_[grid.dim()].resize(2 * static_cast<size_t>(scalar_count) *
                             static_cast<size_t>(grid.owned_cells().count()));
  PetscFunctionReturn(0);
}

template <typename Update>
PetscErrorCode ErrorCompensated::for_each_sample(Field& velocity, std::vector<Field>& scalars,
                                                 Update&& update) {
  PetscFunctionBeginUser;
  const Grid& grid = pass_.grid();
  const int dim = grid.dim();
  auto visit = [&](Field& field, Vec old_vec, Vec work_vec, int location) -> PetscErrorCode {
    PetscFunctionBeginUser;
    ReadArray q_old;
    WriteArray q, q_work;
    PetscCall(q.get_global(field));
    PetscCall(q_old.get_global(field.dm(), old_vec));
    PetscCall(q_work.get_global(field.dm(), work_vec));
    const size_t count = location < dim ? 1 : scalars_old_.size();
    const size_t slot = location < dim ? 0 : static_cast<size_t>(location - dim);
    for (int c = 0; c < field.components(); ++c) {
      const int where = location < dim ? c : dim;
      const IndexBox box = where < dim ? grid.owned_faces(c) : grid.owned_cells();
      for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
        if (where < dim && pass_.solids().fixed_face(c, i, j, k)) return;
        const double* range = &bounds_[where][2 * (count * box_offset(box, i, j, k) + slot)];
        update(q(i, j, k, c), q_old(i, j, k, c), q_work(i, j, k, c), range);
      });
    }
    PetscFunctionReturn(0);
  };
  PetscCall(visit(velocity, velocity_old_, velocity_work_, 0));
  for (size_t s = 0; s < scalars_old_.size(); ++s)
    PetscCall(visit(scalars[s], scalars_old_[s], scalars_work_[s], dim + static_cast<int>(s)));
  PetscFunctionReturn(0);
}

PetscErrorCode ErrorCompensated::advect(Field& velocity, std::vector<Field>& scalars, double dt,
                                        AdvectionStats* stats) {
  PetscFunctionBeginUser;
  std::vector<Vec> scalars_work;
  for (OwnedVec& v : scalars_work_) scalars_work.push_back(v);
  auto refresh = [&]() -> PetscErrorCode {
    PetscFunctionBeginUser;
    PetscCall(velocity.fill_ghosts());
    for (size_t s = 0; s < scalars_old_.size(); ++s) PetscCall(scalars[s].fill_ghosts());
    PetscFunctionReturn(0);
  };
  // Keep q and the carrying velocity: the passes overwrite the fields.
  PetscCall(VecCopy(velocity.local(), carrier_));
  PetscCall(VecCopy(velocity.global(), velocity_old_));
  for (size_t s = 0; s < scalars_old_.size(); ++s)
    PetscCall(VecCopy(scalars[s].global(), scalars_old_[s]));
  stats->remote_points = 0;

  // q^ = A(q, dt) into the fields, with the range of q around every departure point.
  PassArrays forward;
  PetscCall(forward.open(pass_, carrier_, velocity, velocity.global(), scalars,
                         globals_of(scalars, scalars_old_.size())));
  forward.pass.bounds = &bounds_;
  PetscCall(pass_.trace(forward.pass, dt, &stats->remote_points));
  PetscCall(forward.close());

  // q~ = A(q^, -dt) into the work vectors (which start as q^, so prescribed faces hold it).
  PetscCall(refresh());
  PetscCall(VecCopy(velocity.global(), velocity_work_));
  for (size_t s = 0; s < scalars_old_.size(); ++s)
    PetscCall(VecCopy(scalars[s].global(), scalars_work[s]));
  PassArrays backward;
  PetscCall(backward.open(pass_, carrier_, velocity, velocity_work_, scalars, scalars_work));
  PetscCall(pass_.trace(backward.pass, -dt, &stats->remote_points));
  PetscCall(backward.close());

  auto limited = [](double value, double fallback, const double* range) {
    return within_range_or(value, fallback, range[0], range[1]);
  };
  if (scheme_ == AdvectionScheme::MacCormack) {
    PetscCall(for_each_sample(velocity, scalars,
                              [&](double& q, double q_old, double& q_work, const double* range) {
                                q = limited(maccormack_corrected(q, q_old, q_work), q, range);
                              }));
    PetscFunctionReturn(0);
  }

  // BFECC: the fields become q + (q - q~)/2 and the work vectors keep q^ for the fallback; the
  // final pass starts from the same points, so the departure points and ranges are those of the
  // first pass.
  PetscCall(for_each_sample(velocity, scalars,
                            [](double& q, double q_old, double& q_work, const double*) {
                              const double hat = q;
                              q = bfecc_start(q_old, q_work);
                              q_work = hat;
                            }));
  PetscCall(refresh());
  PassArrays final_pass;
  PetscCall(final_pass.open(pass_, carrier_, velocity, velocity.global(), scalars,
                            globals_of(scalars, scalars_old_.size())));
  PetscCall(pass_.trace(final_pass.pass, dt, &stats->remote_points));
  PetscCall(final_pass.close());
  PetscCall(for_each_sample(velocity, scalars,
                            [&](double& q, double, double& q_work, const double* range) {
                              q = limited(q, q_work, range);
                            }));
  PetscFunctionReturn(0);
}

}  // namespace sf
