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
#include "semi_lagrangian.hpp"

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

}  // namespace sf
