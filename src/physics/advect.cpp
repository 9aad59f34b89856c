// Semi-Lagrangian advection (Stam 1999, §2.2 step 2 and §3; Cline et al. §5):
//
//   q_new(x) = q_old(x_d),   x_d = x - dt u(x_m),   x_m = x - dt/2 u(x)      (RK2 midpoint)
//
// for every sample point x of every advected quantity: the face centres of velocity component c
// (q = u_c) and the cell centres (q = every scalar). u is the velocity before advection for all
// of them. u at a point is interpolated linearly from the MAC faces; q_old with the job's
// interpolation (interpolation.hpp). MacCormack (Selle et al. 2008) is two such passes and a
// limited correction.
//
// Distribution: most x_m and x_d lie within the halo and are evaluated locally. The others are
// sent to their owners in two rounds (the midpoint velocities, then the departure values) by
// the DepartureExchange, so the result is the same bits on any rank count and at any CFL number.
#include "advect.hpp"

#include <cmath>

namespace sf {

namespace {

// What a remote query asks the owner for (RemoteQuery::kind).
constexpr int kVelocityVector = -1;  // all components of u at x, linear (for the trace)
// location (0 .. dim-1: velocity component c; dim: every scalar) at x with the job's
// interpolation, plus kWithBounds when MacCormack's bounds are wanted as well.
constexpr int kWithBounds = 1 << 8;

/// A sample point whose trace is waiting for a remote answer.
struct PendingTrace {
  int location;  // 0 .. dim-1: faces of component c; dim: cell centres
  PetscInt i, j, k;
};

/// Position of (i, j, k) in an owned box, x fastest: where its bounds are kept.
size_t box_offset(const IndexBox& box, PetscInt i, PetscInt j, PetscInt k) {
  return static_cast<size_t>(((k - box.lo[2]) * box.size(1) + (j - box.lo[1])) * box.size(0) +
                             (i - box.lo[0]));
}

bool finite_point(const double x[3]) {
  return std::isfinite(x[0]) && std::isfinite(x[1]) && std::isfinite(x[2]);
}

}  // namespace

PetscErrorCode SemiLagrangian::setup(const Grid& grid, const SolidMask& solids,
                                     Interpolation interpolation, int scalar_count,
                                     bool with_bounds) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  interpolation_ = interpolation;
  scalar_count_ = scalar_count;
  PetscCheck(interpolation != Interpolation::MonotoneCubic || grid.halo() >= 2, grid.comm(),
             PETSC_ERR_ARG_OUTOFRANGE, "monotone cubic interpolation needs a halo of at least 2");
  const int width = std::max(grid.dim(), scalar_count);
  PetscCall(exchange_.setup(grid, with_bounds ? 3 * width : width));
  PetscFunctionReturn(0);
}

PetscErrorCode SemiLagrangian::trace(const TracePass& pass, double dt, PetscInt* remote) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  const int scalar_count = static_cast<int>(pass.scalars.size());
  const int width = std::max(dim, scalar_count_);
  const int reply_width = exchange_.reply_width();
  const AxisInfo* axes = pass.carrier->axes();
  const bool with_bounds = pass.bounds != nullptr;

  auto sample_point = [&](int location, PetscInt i, PetscInt j, PetscInt k, double x[3]) {
    const int stagger = location < dim ? location : -1;
    x[0] = grid.sample_position(0, i, stagger);
    x[1] = grid.sample_position(1, j, stagger);
    x[2] = dim == 3 ? grid.sample_position(2, k, stagger) : 0.0;
  };
  auto box_of = [&](int location) {
    return location < dim ? grid.owned_faces(location) : grid.owned_cells();
  };
  // Interpolates the quantity of `location` at x into out[0 .. width); with bounds also their
  // ranges into out[width .. 3 width). False if the stencil is not local.
  auto sample_target = [&](int location, bool bounded, const double x[3], double* out) {
    if (location < dim) {
      if (!pass.velocity->sample(location, location, x, &out[0])) return false;
      return !bounded ||
             pass.velocity->bounds(location, location, x, &out[width], &out[2 * width]);
    }
    // Scalars share the cell DM, so one stencil serves them all.
    Stencil stencil;
    if (!pass.scalars[0].locate(-1, x, &stencil)) return false;
    for (int s = 0; s < scalar_count; ++s) {
      out[s] = pass.scalars[s].interpolate(0, stencil);
      if (bounded && !pass.scalars[s].bounds(0, -1, x, &out[width + s], &out[2 * width + s]))
        return false;
    }
    return true;
  };
  auto store = [&](int location, PetscInt i, PetscInt j, PetscInt k, const double* values) {
    const int count = location < dim ? 1 : scalar_count;
    if (location < dim) {
      pass.velocity_out(i, j, k, location) = values[0];
    } else {
      for (int s = 0; s < scalar_count; ++s) pass.scalars_out[s](i, j, k) = values[s];
    }
    if (with_bounds) {
      double* b = &(*pass.bounds)[location][2 * count * box_offset(box_of(location), i, j, k)];
      for (int n = 0; n < count; ++n) {
        b[2 * n] = values[width + n];
        b[2 * n + 1] = values[2 * width + n];
      }
    }
  };

  std::vector<PendingTrace> pending_mid, pending_departure;
  std::vector<RemoteQuery> mid_queries, departure_queries;
  // Owned points that cannot be traced: their own velocity is not local (impossible with
  // halo >= 1) or a non-finite velocity sent them nowhere.
  PetscInt lost = 0;
  std::vector<double> values(static_cast<size_t>(reply_width));

  // Second half of a trace, once u(x_m) is known: x_d, then the value there.
  auto finish = [&](const PendingTrace& p, const double u_mid[3]) {
    double x[3];
    sample_point(p.location, p.i, p.j, p.k, x);
    double xd[3] = {x[0] - dt * u_mid[0], x[1] - dt * u_mid[1],
                    dim == 3 ? x[2] - dt * u_mid[2] : 0.0};
    canonical_point(axes, dim, xd);
    if (!finite_point(xd)) {
      ++lost;  // no owner can answer a point that is nowhere; agreed on below
      return;
    }
    if (sample_target(p.location, with_bounds, xd, values.data())) {
      store(p.location, p.i, p.j, p.k, values.data());
    } else {
      pending_departure.push_back(p);
      departure_queries.push_back({{xd[0], xd[1], xd[2]},
                                   p.location + (with_bounds ? kWithBounds : 0),
                                   exchange_.owner(xd)});
    }
  };

  const int locations = dim + (scalar_count > 0 ? 1 : 0);
  for (int location = 0; location < locations; ++location) {
    for_each_index(box_of(location), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (location < dim && solids_->fixed_face(location, i, j, k)) return;
      double x[3], u0[3] = {0.0, 0.0, 0.0}, um[3] = {0.0, 0.0, 0.0};
      sample_point(location, i, j, k, x);
      if (!pass.carrier->sample_velocity(x, u0)) {
        ++lost;
        return;
      }
      double xm[3] = {x[0] - 0.5 * dt * u0[0], x[1] - 0.5 * dt * u0[1],
                      dim == 3 ? x[2] - 0.5 * dt * u0[2] : 0.0};
      canonical_point(axes, dim, xm);
      if (!finite_point(xm)) {
        ++lost;
        return;
      }
      const PendingTrace p{location, i, j, k};
      if (pass.carrier->sample_velocity(xm, um)) {
        finish(p, um);
      } else {
        pending_mid.push_back(p);
        mid_queries.push_back({{xm[0], xm[1], xm[2]}, kVelocityVector, exchange_.owner(xm)});
      }
    });
  }
  const PetscInt remote_here =
      static_cast<PetscInt>(pending_mid.size() + pending_departure.size());

  // The owner's side of both rounds.
  const DepartureExchange::Answer answer = [&](const double x[3], int kind, double* out) {
    if (kind == kVelocityVector) return pass.carrier->sample_velocity(x, out);
    return sample_target(kind & ~kWithBounds, (kind & kWithBounds) != 0, x, out);
  };

  std::vector<double> replies;
  PetscInt failures_mid = 0, failures_departure = 0;
  PetscCall(exchange_.resolve(mid_queries, answer, &replies, &failures_mid));
  for (size_t n = 0; n < pending_mid.size(); ++n) finish(pending_mid[n], &replies[reply_width * n]);
  PetscCall(exchange_.resolve(departure_queries, answer, &replies, &failures_departure));
  for (size_t n = 0; n < pending_departure.size(); ++n) {
    const PendingTrace& p = pending_departure[n];
    store(p.location, p.i, p.j, p.k, &replies[reply_width * n]);
  }

  // One reduction gives the report and the consistency check on every rank alike.
  PetscInt local[2] = {remote_here, lost + failures_mid + failures_departure}, global[2];
  PetscCallMPI(MPI_Allreduce(local, global, 2, MPIU_INT, MPI_SUM, grid.comm()));
  PetscCheck(global[1] == 0, grid.comm(), PETSC_ERR_PLIB,
             "advection: %" PetscInt_FMT " departure points could not be evaluated by their owner",
             global[1]);
  *remote += global[0];
  PetscFunctionReturn(0);
}

namespace {

/// Read access to the local (ghosted) arrays of the velocity and scalars, and write access to
/// their global arrays, for the duration of one pass.
class PassArrays {
public:
  PetscErrorCode open(const SemiLagrangian& scheme, Vec carrier, Field& velocity, Vec velocity_out,
                      std::vector<Field>& scalars, const std::vector<Vec>& scalars_out) {
    PetscFunctionBeginUser;
    const Grid& grid = scheme.grid();
    carrier_ = carrier;
    velocity_ = &velocity;
    velocity_out_ = velocity_out;
    scalars_ = &scalars;
    scalars_out_ = scalars_out;
    ArrayView view;
    PetscCall(VecGetArrayRead(carrier, &carrier_data_));
    PetscCall(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(carrier_data_), &view));
    carrier_sampler_ = LocalSampler(grid, view, Interpolation::Linear);
    PetscCall(VecGetArrayRead(velocity.local(), &velocity_data_));
    PetscCall(grid.local_view(velocity.dm(), const_cast<PetscScalar*>(velocity_data_), &view));
    velocity_sampler_ = LocalSampler(grid, view, scheme.interpolation());
    PetscCall(VecGetArray(velocity_out, &velocity_out_data_));
    pass.carrier = &carrier_sampler_;
    pass.velocity = &velocity_sampler_;
    PetscCall(grid.global_view(velocity.dm(), velocity_out_data_, &pass.velocity_out));
    scalar_data_.resize(scalars.size());
    scalar_out_data_.resize(scalars.size());
    pass.scalars.resize(scalars.size());
    pass.scalars_out.resize(scalars.size());
    for (size_t s = 0; s < scalars.size(); ++s) {
      PetscCall(VecGetArrayRead(scalars[s].local(), &scalar_data_[s]));
      PetscCall(grid.local_view(scalars[s].dm(), const_cast<PetscScalar*>(scalar_data_[s]), &view));
      pass.scalars[s] = LocalSampler(grid, view, scheme.interpolation());
      PetscCall(VecGetArray(scalars_out[s], &scalar_out_data_[s]));
      PetscCall(grid.global_view(scalars[s].dm(), scalar_out_data_[s], &pass.scalars_out[s]));
    }
    PetscFunctionReturn(0);
  }

  PetscErrorCode close() {
    PetscFunctionBeginUser;
    for (size_t s = 0; s < scalars_->size(); ++s) {
      PetscCall(VecRestoreArray(scalars_out_[s], &scalar_out_data_[s]));
      PetscCall(VecRestoreArrayRead((*scalars_)[s].local(), &scalar_data_[s]));
    }
    PetscCall(VecRestoreArray(velocity_out_, &velocity_out_data_));
    PetscCall(VecRestoreArrayRead(velocity_->local(), &velocity_data_));
    PetscCall(VecRestoreArrayRead(carrier_, &carrier_data_));
    PetscFunctionReturn(0);
  }

  TracePass pass;

private:
  Vec carrier_ = nullptr, velocity_out_ = nullptr;
  Field* velocity_ = nullptr;
  std::vector<Field>* scalars_ = nullptr;
  std::vector<Vec> scalars_out_;
  const PetscScalar *carrier_data_ = nullptr, *velocity_data_ = nullptr;
  PetscScalar* velocity_out_data_ = nullptr;
  std::vector<const PetscScalar*> scalar_data_;
  std::vector<PetscScalar*> scalar_out_data_;
  LocalSampler carrier_sampler_, velocity_sampler_;
};

std::vector<Vec> globals_of(std::vector<Field>& fields) {
  std::vector<Vec> result;
  for (Field& f : fields) result.push_back(f.global());
  return result;
}

}  // namespace

PetscErrorCode SemiLagrangian::advect(Field& velocity, std::vector<Field>& scalars, double dt,
                                      AdvectionStats* stats) {
  PetscFunctionBeginUser;
  PassArrays arrays;
  PetscCall(arrays.open(*this, velocity.local(), velocity, velocity.global(), scalars,
                        globals_of(scalars)));
  stats->remote_points = 0;
  PetscCall(trace(arrays.pass, dt, &stats->remote_points));
  PetscCall(arrays.close());
  PetscFunctionReturn(0);
}

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
    PetscScalar *new_data, *work_data;
    const PetscScalar* old_data;
    ArrayView q, q_old, q_work;
    PetscCall(VecGetArray(field.global(), &new_data));
    PetscCall(VecGetArrayRead(old_vec, &old_data));
    PetscCall(VecGetArray(work_vec, &work_data));
    PetscCall(grid.global_view(field.dm(), new_data, &q));
    PetscCall(grid.global_view(field.dm(), const_cast<PetscScalar*>(old_data), &q_old));
    PetscCall(grid.global_view(field.dm(), work_data, &q_work));
    const size_t count = location < dim ? 1 : scalars.size();
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
    PetscCall(VecRestoreArray(work_vec, &work_data));
    PetscCall(VecRestoreArrayRead(old_vec, &old_data));
    PetscCall(VecRestoreArray(field.global(), &new_data));
    PetscFunctionReturn(0);
  };
  PetscCall(visit(velocity, velocity_old_, velocity_work_, 0));
  for (size_t s = 0; s < scalars.size(); ++s)
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
    for (Field& s : scalars) PetscCall(s.fill_ghosts());
    PetscFunctionReturn(0);
  };
  // Keep q and the carrying velocity: the passes overwrite the fields.
  PetscCall(VecCopy(velocity.local(), carrier_));
  PetscCall(VecCopy(velocity.global(), velocity_old_));
  for (size_t s = 0; s < scalars.size(); ++s) PetscCall(VecCopy(scalars[s].global(), scalars_old_[s]));
  stats->remote_points = 0;

  // q^ = A(q, dt) into the fields, with the range of q around every departure point.
  PassArrays forward;
  PetscCall(forward.open(pass_, carrier_, velocity, velocity.global(), scalars, globals_of(scalars)));
  forward.pass.bounds = &bounds_;
  PetscCall(pass_.trace(forward.pass, dt, &stats->remote_points));
  PetscCall(forward.close());

  // q~ = A(q^, -dt) into the work vectors (which start as q^, so prescribed faces hold it).
  PetscCall(refresh());
  PetscCall(VecCopy(velocity.global(), velocity_work_));
  for (size_t s = 0; s < scalars.size(); ++s) PetscCall(VecCopy(scalars[s].global(), scalars_work[s]));
  PassArrays backward;
  PetscCall(backward.open(pass_, carrier_, velocity, velocity_work_, scalars, scalars_work));
  PetscCall(pass_.trace(backward.pass, -dt, &stats->remote_points));
  PetscCall(backward.close());

  auto limited = [](double value, double fallback, const double* range) {
    return value < range[0] || value > range[1] ? fallback : value;
  };
  if (scheme_ == AdvectionScheme::MacCormack) {
    PetscCall(for_each_sample(velocity, scalars,
                              [&](double& q, double q_old, double& q_work, const double* range) {
                                q = limited(q + 0.5 * (q_old - q_work), q, range);
                              }));
    PetscFunctionReturn(0);
  }

  // BFECC: the fields become q + (q - q~)/2 and the work vectors keep q^ for the fallback; the
  // final pass starts from the same points, so the departure points and ranges are those of the
  // first pass.
  PetscCall(for_each_sample(velocity, scalars,
                            [](double& q, double q_old, double& q_work, const double*) {
                              const double hat = q;
                              q = q_old + 0.5 * (q_old - q_work);
                              q_work = hat;
                            }));
  PetscCall(refresh());
  PassArrays final_pass;
  PetscCall(final_pass.open(pass_, carrier_, velocity, velocity.global(), scalars, globals_of(scalars)));
  PetscCall(pass_.trace(final_pass.pass, dt, &stats->remote_points));
  PetscCall(final_pass.close());
  PetscCall(for_each_sample(velocity, scalars,
                            [&](double& q, double, double& q_work, const double* range) {
                              q = limited(q, q_work, range);
                            }));
  PetscFunctionReturn(0);
}

PetscErrorCode make_advection(const Grid& grid, const SolidMask& solids,
                              const AdvectionConfig& config, int scalar_count,
                              std::unique_ptr<Advection>* advection) {
  PetscFunctionBeginUser;
  if (config.scheme != AdvectionScheme::SemiLagrangian) {
    auto compensated = std::make_unique<ErrorCompensated>();
    PetscCall(compensated->setup(grid, solids, config.interpolation, scalar_count, config.scheme));
    *advection = std::move(compensated);
  } else {
    auto semi_lagrangian = std::make_unique<SemiLagrangian>();
    PetscCall(semi_lagrangian->setup(grid, solids, config.interpolation, scalar_count));
    *advection = std::move(semi_lagrangian);
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
