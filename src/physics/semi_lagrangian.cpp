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

#include <algorithm>
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

/// One pass of SemiLagrangian::trace: the RK2 back-trace of each sample point, with the points
/// whose midpoint or departure point lies beyond the halo queued for their owner rank.
class TraceRun {
public:
  TraceRun(const Grid& grid, const SolidMask& solids, const DepartureExchange& exchange,
           const TracePass& pass, double dt, int width)
      : grid_(grid), solids_(solids), exchange_(exchange), pass_(pass), dt_(dt), dim_(grid.dim()),
        width_(width), scalar_count_(static_cast<int>(pass.scalars.size())),
        with_bounds_(pass.bounds != nullptr), axes_(pass.carrier->axes()),
        values_(static_cast<size_t>(exchange.reply_width())), rows_in_lanes_(lanes_apply(pass)),
        row_values_(3 * static_cast<size_t>(std::max(1, scalar_count_))) {}

  IndexBox box_of(int location) const {
    return location < dim_ ? grid_.owned_faces(location) : grid_.owned_cells();
  }

  /// Traces the owned points (lo .. hi-1, j, k) of `location`, skipping prescribed faces. Four
  /// at a time where a lane's whole trace stays in the part of the local arrays that stencils
  /// address directly (almost every point); the other lanes and the last points of the row go
  /// through start() one by one, which gives the same bits (lanes.hpp) and handles the rest:
  /// periodic wraps, stencils beyond the halo, non-finite points.
  void trace_row(int location, PetscInt lo, PetscInt hi, PetscInt j, PetscInt k) {
    const int stagger = location < dim_ ? location : -1;
    auto prescribed = [&](PetscInt i) {
      return location < dim_ && solids_.fixed_face(location, i, j, k);
    };
    auto one = [&](PetscInt i) {
      if (!prescribed(i)) start(PendingTrace{location, i, j, k});
    };
    PetscInt i = lo;
    if (rows_in_lanes_) {
      const LocalSampler& carrier = *pass_.carrier;
      const LocalSampler& target = location < dim_ ? *pass_.velocity : pass_.scalars[0];
      Lanes x[3] = {broadcast(0.0), broadcast(grid_.sample_position(1, j, stagger)),
                    broadcast(dim_ == 3 ? grid_.sample_position(2, k, stagger) : 0.0)};
      for (; i + kLanes <= hi; i += kLanes) {
        for (int l = 0; l < kLanes; ++l) x[0][l] = grid_.sample_position(0, i + l, stagger);
        // The expressions of start() and finish(), lane by lane.
        // The lane functions do not check for overflow (interpolation.hpp): a lane whose
        // velocity or value is not finite goes to the point path with the others left out here,
        // and the point path's checked functions give its finite value.
        Lanes u[3] = {broadcast(0.0), broadcast(0.0), broadcast(0.0)};
        carrier.velocity_at_sample_lanes(stagger, i, j, k, u);
        const LaneMask u_finite = finite_lanes(u[0]) & finite_lanes(u[1]) & finite_lanes(u[2]);
        Lanes xm[3] = {x[0] - 0.5 * dt_ * u[0], x[1] - 0.5 * dt_ * u[1],
                       dim_ == 3 ? x[2] - 0.5 * dt_ * u[2] : broadcast(0.0)};
        LaneMask ok = canonical_lanes(axes_, dim_, xm) & u_finite;
        carrier.sample_velocity_lanes(xm, &ok, u);
        ok &= finite_lanes(u[0]) & finite_lanes(u[1]) & finite_lanes(u[2]);
        Lanes xd[3] = {x[0] - dt_ * u[0], x[1] - dt_ * u[1],
                       dim_ == 3 ? x[2] - dt_ * u[2] : broadcast(0.0)};
        ok &= canonical_lanes(axes_, dim_, xd);
        Lanes first, f[3];
        target.locate_lanes(stagger, xd, &ok, &first, f);
        // The values at the departure points (and with bounds their ranges), then stored as
        // store() would.
        const int count = location < dim_ ? 1 : scalar_count_;
        for (int n = 0; n < count; ++n) {
          const LocalSampler& sampler = location < dim_ ? target : pass_.scalars[n];
          const int c = location < dim_ ? location : 0;
          Lanes* value = &row_values_[3 * static_cast<size_t>(n)];
          value[1] = value[2] = broadcast(0.0);
          if (with_bounds_) {
            value[0] = sampler.linear_lanes(c, first, f, &value[1], &value[2]);
          } else {
            value[0] = sampler.linear_lanes(c, first, f);
          }
          ok &= finite_lanes(value[0]);
        }
        const int traced = lane_bits(ok);
        for (int n = 0; n < count; ++n) {
          const Lanes* value = &row_values_[3 * static_cast<size_t>(n)];
          const ArrayView& out = location < dim_ ? pass_.velocity_out : pass_.scalars_out[n];
          PetscScalar* row = &out(i, j, k, location < dim_ ? location : 0);
          for (int l = 0; l < kLanes; ++l) {
            if (!(traced >> l & 1) || prescribed(i + l)) continue;
            row[l * out.dof] = value[0][l];
            if (with_bounds_) {
              double* range = bounds_at(location, count, i + l, j, k) + 2 * n;
              range[0] = value[1][l];
              range[1] = value[2][l];
            }
          }
        }
        for (int l = 0; l < kLanes; ++l)
          if (!(traced >> l & 1)) one(i + l);
      }
    }
    for (; i < hi; ++i) one(i);
  }

  /// First half of a trace: x_m = x - dt/2 u(x), then u(x_m) here or from its owner.
  void start(const PendingTrace& p) {
    double x[3], u0[3] = {0.0, 0.0, 0.0}, um[3] = {0.0, 0.0, 0.0};
    sample_point(p.location, p.i, p.j, p.k, x);
    pass_.carrier->velocity_at_sample(p.location < dim_ ? p.location : -1, p.i, p.j, p.k, u0);
    double xm[3] = {x[0] - 0.5 * dt_ * u0[0], x[1] - 0.5 * dt_ * u0[1],
                    dim_ == 3 ? x[2] - 0.5 * dt_ * u0[2] : 0.0};
    canonical_point(axes_, dim_, xm);
    if (!finite_point(xm)) {
      ++lost;
      return;
    }
    if (pass_.carrier->sample_velocity(xm, um)) {
      finish(p, um);
    } else {
      pending_mid.push_back(p);
      mid_queries.push_back({{xm[0], xm[1], xm[2]}, kVelocityVector, exchange_.owner(xm)});
    }
  }

  /// Second half of a trace, once u(x_m) is known: x_d, then the value there.
  void finish(const PendingTrace& p, const double u_mid[3]) {
    double x[3];
    sample_point(p.location, p.i, p.j, p.k, x);
    double xd[3] = {x[0] - dt_ * u_mid[0], x[1] - dt_ * u_mid[1],
                    dim_ == 3 ? x[2] - dt_ * u_mid[2] : 0.0};
    canonical_point(axes_, dim_, xd);
    if (!finite_point(xd)) {
      ++lost;  // no owner can answer a point that is nowhere; agreed on by trace()
      return;
    }
    if (sample_target(p.location, with_bounds_, xd, values_.data())) {
      store(p, values_.data());
    } else {
      pending_departure.push_back(p);
      departure_queries.push_back({{xd[0], xd[1], xd[2]},
                                   p.location + (with_bounds_ ? kWithBounds : 0),
                                   exchange_.owner(xd)});
    }
  }

  /// Writes the values of the point's quantity (and with bounds their ranges) to the results.
  void store(const PendingTrace& p, const double* values) const {
    const int count = p.location < dim_ ? 1 : scalar_count_;
    if (p.location < dim_) {
      pass_.velocity_out(p.i, p.j, p.k, p.location) = values[0];
    } else {
      for (int s = 0; s < scalar_count_; ++s) pass_.scalars_out[s](p.i, p.j, p.k) = values[s];
    }
    if (with_bounds_) {
      double* b = bounds_at(p.location, count, p.i, p.j, p.k);
      for (int n = 0; n < count; ++n) {
        b[2 * n] = values[width_ + n];
        b[2 * n + 1] = values[2 * width_ + n];
      }
    }
  }

  /// The owner's side of both rounds.
  bool answer(const double x[3], int kind, double* out) const {
    if (kind == kVelocityVector) return pass_.carrier->sample_velocity(x, out);
    return sample_target(kind & ~kWithBounds, (kind & kWithBounds) != 0, x, out);
  }

  std::vector<PendingTrace> pending_mid, pending_departure;
  std::vector<RemoteQuery> mid_queries, departure_queries;
  // Owned points that cannot be traced: a non-finite velocity sent them nowhere.
  PetscInt lost = 0;

private:
  /// Where the ranges of the `count` quantities at a point of `location` are kept (min, max).
  double* bounds_at(int location, int count, PetscInt i, PetscInt j, PetscInt k) const {
    return &(*pass_.bounds)[location][2 * count * box_offset(box_of(location), i, j, k)];
  }

  /// Whether rows go in lanes: linear interpolation (the lanes evaluate linear stencils only)
  /// and arrays that 32-bit lane offsets reach.
  static bool lanes_apply(const TracePass& pass) {
    if (!pass.carrier->lanes_fit() || !pass.velocity->lanes_fit() || pass.velocity->cubic())
      return false;
    for (const LocalSampler& s : pass.scalars)
      if (!s.lanes_fit() || s.cubic()) return false;
    return true;
  }

  void sample_point(int location, PetscInt i, PetscInt j, PetscInt k, double x[3]) const {
    const int stagger = location < dim_ ? location : -1;
    x[0] = grid_.sample_position(0, i, stagger);
    x[1] = grid_.sample_position(1, j, stagger);
    x[2] = dim_ == 3 ? grid_.sample_position(2, k, stagger) : 0.0;
  }

  /// Interpolates the quantity of `location` at x into out[0 .. width); with bounds also their
  /// ranges into out[width .. 3 width). False if the stencil is not local.
  bool sample_target(int location, bool bounded, const double x[3], double* out) const {
    if (location < dim_) {
      if (!pass_.velocity->sample(location, location, x, &out[0])) return false;
      return !bounded ||
             pass_.velocity->bounds(location, location, x, &out[width_], &out[2 * width_]);
    }
    // Scalars share the cell DM, so one stencil serves them all.
    Stencil stencil;
    if (!pass_.scalars[0].locate(-1, x, &stencil)) return false;
    for (int s = 0; s < scalar_count_; ++s) {
      out[s] = pass_.scalars[s].interpolate(0, stencil);
      if (bounded && !pass_.scalars[s].bounds(0, -1, x, &out[width_ + s], &out[2 * width_ + s]))
        return false;
    }
    return true;
  }

  const Grid& grid_;
  const SolidMask& solids_;
  const DepartureExchange& exchange_;
  const TracePass& pass_;
  const double dt_;
  const int dim_, width_, scalar_count_;
  const bool with_bounds_;
  const AxisInfo* axes_;
  std::vector<double> values_;  // one reply's worth, reused by every local departure point
  const bool rows_in_lanes_;
  std::vector<Lanes> row_values_;  // per field of a row's four points: value, low, high
};

/// PETSc log events of a pass, inside the "advect" stage of -log_view: the local traces
/// (SLTrace) and the departure exchange of the points beyond the halo (SLDeparture).
struct TraceEvents {
  PetscLogEvent trace = -1, departure = -1;
};

PetscErrorCode trace_events(TraceEvents* events) {
  PetscFunctionBeginUser;
  static TraceEvents registered;
  if (registered.trace < 0) {
    PetscClassId advection_class;
    PetscCall(PetscClassIdRegister("Advection", &advection_class));
    PetscCall(PetscLogEventRegister("SLTrace", advection_class, &registered.trace));
    PetscCall(PetscLogEventRegister("SLDeparture", advection_class, &registered.departure));
  }
  *events = registered;
  PetscFunctionReturn(0);
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
  PetscCheck(interpolation == Interpolation::Linear || grid.halo() >= 2, grid.comm(),
             PETSC_ERR_ARG_OUTOFRANGE, "cubic interpolation needs a halo of at least 2");
  const int width = std::max(grid.dim(), scalar_count);
  PetscCall(exchange_.setup(grid, with_bounds ? 3 * width : width));
  PetscFunctionReturn(0);
}

PetscErrorCode SemiLagrangian::trace(const TracePass& pass, double dt, PetscInt* remote) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  TraceEvents events;
  PetscCall(trace_events(&events));
  TraceRun run(grid, *solids_, exchange_, pass, dt, std::max(grid.dim(), scalar_count_));
  // First the local halves: every owned point traced as far as the halo allows.
  PetscCall(PetscLogEventBegin(events.trace, 0, 0, 0, 0));
  const int locations = grid.dim() + (pass.scalars.empty() ? 0 : 1);
  for (int location = 0; location < locations; ++location) {
    const IndexBox box = run.box_of(location);
    for (PetscInt k = box.lo[2]; k < box.hi[2]; ++k)
      for (PetscInt j = box.lo[1]; j < box.hi[1]; ++j)
        run.trace_row(location, box.lo[0], box.hi[0], j, k);
  }
  const PetscInt remote_here =
      static_cast<PetscInt>(run.pending_mid.size() + run.pending_departure.size());
  PetscCall(PetscLogEventEnd(events.trace, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(events.departure, 0, 0, 0, 0));

  // Then the two remote rounds: the midpoint velocities, then the departure values.
  const DepartureExchange::Answer answer = [&run](const double x[3], int kind, double* out) {
    return run.answer(x, kind, out);
  };
  const int reply_width = exchange_.reply_width();
  std::vector<double> replies;
  PetscInt failures_mid = 0, failures_departure = 0;
  PetscCall(exchange_.resolve(run.mid_queries, answer, &replies, &failures_mid));
  for (size_t n = 0; n < run.pending_mid.size(); ++n)
    run.finish(run.pending_mid[n], &replies[reply_width * n]);
  PetscCall(exchange_.resolve(run.departure_queries, answer, &replies, &failures_departure));
  for (size_t n = 0; n < run.pending_departure.size(); ++n)
    run.store(run.pending_departure[n], &replies[reply_width * n]);

  // One reduction gives the report and the consistency check on every rank alike.
  PetscInt local[2] = {remote_here, run.lost + failures_mid + failures_departure}, global[2];
  PetscCallMPI(MPI_Allreduce(local, global, 2, MPIU_INT, MPI_SUM, grid.comm()));
  PetscCheck(global[1] == 0, grid.comm(), PETSC_ERR_PLIB,
             "advection: %" PetscInt_FMT " departure points could not be evaluated by their owner",
             global[1]);
  PetscCall(PetscLogEventEnd(events.departure, 0, 0, 0, 0));
  *remote += global[0];
  PetscFunctionReturn(0);
}

PetscErrorCode SemiLagrangian::advect(Field& velocity, std::vector<Field>& scalars, double dt,
                                      AdvectionStats* stats) {
  PetscFunctionBeginUser;
  PassArrays arrays;
  PetscCall(arrays.open(*this, velocity.local(), velocity, velocity.global(), scalars,
                        globals_of(scalars, static_cast<size_t>(scalar_count_))));
  stats->remote_points = 0;
  PetscCall(trace(arrays.pass, dt, &stats->remote_points));
  PetscCall(arrays.close());
  PetscFunctionReturn(0);
}

}  // namespace sf
