// The volume fraction's flux-form advection and the level set it imposes (see
// volume_of_fluid.hpp for the method and its sources).
#include "volume_of_fluid.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "cut_faces.hpp"
#include "plic.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

// The largest |u| dt / h a sweep takes on any face (Weymouth & Yue's bound for f in [0, 1]).
constexpr double kSweepCourant = 0.5;

// Sub-cells per axis that sample the initial regions in a cell the surface crosses.
constexpr int kSamples2d = 32;
constexpr int kSamples3d = 12;

// The most passes of the redistribution of overshoots (keep_bounds()): a pass moves what a
// cell's neighbours have no room for one cell on, and a cell that takes it on at the last pass
// is left outside its bounds, to be clipped. Passes are taken only while a cell is out of bounds
// (most steps that have an overshoot need one or two), so the cap is a safety net against a
// spill that could never be placed, not a tolerance. The most any step of the shipped liquid jobs
// needed, counted over whole runs: 142 passes (breaking_wave_spray_3d on 4 ranks, at t = 0.27,
// where the wave meets the block; 81 on 1 rank). With 64, that step clipped 1.7e-6 of the water.
constexpr int kRedistributionPasses = 1024;

// Spills this small (of a cell) are the rounding of the sweeps' sums: they start no pass of
// the redistribution and are clipped (and counted) with what the passes leave. Passed on in
// water where phi is flat, they would spread as diffusion does and never settle: the passes
// would run to their limit every step.
constexpr double kRoundingSpill = 1e-12;

// Where the reinitialisation put phi on the wrong side of f, phi is put this fraction of a
// spacing on the right one.
constexpr double kSideNudge = 1e-6;

// Calls g(n) for the face neighbours n of cell `at`, in a fixed order (the same on every rank).
template <class Visit>
void for_face_neighbours(int dim, const PetscInt at[3], Visit&& g) {
  for (int a = 0; a < dim; ++a)
    for (int side : {-1, 1}) {
      PetscInt n[3] = {at[0], at[1], at[2]};
      n[a] += side;
      g(static_cast<const PetscInt*>(n));
    }
}

// True if cell `at` (local index, possibly in the halo) is in the domain and not solid.
bool fluid_cell(const Grid& grid, const SolidMask& solids, const PetscInt at[3]) {
  for (int a = 0; a < grid.dim(); ++a)
    if (!grid.periodic(a) && (at[a] < 0 || at[a] >= grid.cells(a))) return false;
  return !solids.solid(at[0], at[1], at[2]);
}

}  // namespace

PetscErrorCode VolumeOfFluid::setup(const Grid& grid, const SolidMask& solids,
                                    const LiquidConfig& config) {
  PetscFunctionBeginUser;
  PetscCheck(grid.halo() >= 2, grid.comm(), PETSC_ERR_ARG_OUTOFRANGE,
             "liquid.interface: vof needs grid.halo >= 2 (the normal of a cell in the halo reads "
             "one beyond it); the grid has %d",
             grid.halo());
  grid_ = &grid;
  solids_ = &solids;
  config_ = config;
  PetscCall(offer_.setup_scalar(grid, "fraction_offer"));
  PetscFunctionReturn(0);
}

PetscErrorCode VolumeOfFluid::initialise(Field& fraction) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  const int samples = dim == 2 ? kSamples2d : kSamples3d;
  double half_diagonal = 0.0;
  for (int a = 0; a < dim; ++a) half_diagonal += 0.25 * grid.spacing(a) * grid.spacing(a);
  half_diagonal = std::sqrt(half_diagonal);
  WriteArray f;
  PetscCall(f.get_global(fraction));
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (solids_->solid(i, j, k)) {
      f(i, j, k) = 0.0;
      return;
    }
    const PetscInt at[3] = {i, j, k};
    double centre[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < dim; ++a) centre[a] = grid.cell_center(a, at[a]);
    const double distance = union_distance(config_.initial, centre, dim);
    if (distance >= half_diagonal || distance <= -half_diagonal) {
      f(i, j, k) = distance < 0.0 ? 1.0 : 0.0;
      return;
    }
    // The surface crosses the cell: the share of a sub-grid's centres inside.
    long inside = 0, total = 0;
    const int nz = dim == 3 ? samples : 1;
    for (int sz = 0; sz < nz; ++sz)
      for (int sy = 0; sy < samples; ++sy)
        for (int sx = 0; sx < samples; ++sx) {
          const int s[3] = {sx, sy, sz};
          double x[3] = {0.0, 0.0, 0.0};
          for (int a = 0; a < dim; ++a)
            x[a] = centre[a] + ((s[a] + 0.5) / samples - 0.5) * grid.spacing(a);
          inside += union_distance(config_.initial, x, dim) < 0.0;
          ++total;
        }
    f(i, j, k) = static_cast<double>(inside) / static_cast<double>(total);
  });
  PetscFunctionReturn(0);
}

void VolumeOfFluid::reconstruct(const ConstArrayView& f, const IndexBox& box) {
  const int dim = grid_->dim();
  const SolidMask& solids = *solids_;
  planes_box_ = box;
  planes_.assign(4 * static_cast<size_t>(box.count()), 0.0);
  size_t at = 0;
  for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
    double* plane = &planes_[4 * at++];
    const double centre = f(i, j, k);
    if (!(centre > 0.0 && centre < 1.0) || solids.solid(i, j, k)) return;
    // Youngs: per axis a, the differences across a over the block, weighted (1, 2, 1) along the
    // other axes; an obstacle's cell reads the centre's fraction.
    const auto value = [&](PetscInt di, PetscInt dj, PetscInt dk) {
      const PetscInt ii = i + di, jj = j + dj, kk = k + dk;
      return solids.solid(ii, jj, kk) ? centre : f(ii, jj, kk);
    };
    double m[3] = {0.0, 0.0, 0.0};
    const int reach_z = dim == 3 ? 1 : 0;
    for (int dk = -reach_z; dk <= reach_z; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          const int d[3] = {di, dj, dk};
          double weight = 1.0;
          for (int a = 0; a < dim; ++a) weight *= d[a] == 0 ? 2.0 : 1.0;
          const double v = value(di, dj, dk);
          // m = -grad f: each cell adds -v along the axes it is offset on, weighted by the
          // others' (1, 2, 1) (its own axis's weight is 1 for the offsets +-1).
          for (int a = 0; a < dim; ++a)
            if (d[a] != 0) m[a] -= d[a] * v * weight;
        }
    if (m[0] == 0.0 && m[1] == 0.0 && m[2] == 0.0)
      for (int a = 0; a < dim; ++a) m[a] = 1.0;
    for (int a = 0; a < 3; ++a) plane[a] = m[a];
    plane[3] = plic::plane_constant(m, centre, dim);
  });
}

PetscErrorCode VolumeOfFluid::sweep(Field& fraction, const Field& velocity, int axis,
                                    double dt) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  const SolidMask& solids = *solids_;
  PetscCall(fraction.fill_ghosts());
  ReadArray f, u;
  PetscCall(f.get_local(fraction));
  PetscCall(u.get_local(velocity));
  // The donors of the owned cells' faces along the axis: one cell beyond on each side.
  IndexBox box = grid.owned_cells();
  box.lo[axis] -= 1;
  box.hi[axis] += 1;
  reconstruct(f.view(), box);
  const double courant = dt / grid.spacing(axis);
  const PetscInt n = grid.cells(axis);
  const bool periodic = grid.periodic(axis);
  // Only an outflow face of the domain lets liquid out; walls and inflow faces carry none.
  const bool open_below = grid.boundary(axis, 0) == BoundaryKind::Outflow;
  const bool open_above = grid.boundary(axis, 1) == BoundaryKind::Outflow;
  const bool cut = solids.cut();
  // s and F of the face below cell `at` (its lower face along the axis).
  const auto face = [&](const PetscInt at[3], double* swept) -> double {
    const double open = cut ? solids.face_fraction(axis, at[0], at[1], at[2]) : 1.0;
    const double s = open * u(at[0], at[1], at[2], axis) * courant;
    *swept = s;
    if (s == 0.0) return 0.0;
    if (!periodic && ((at[axis] == 0 && !open_below) || (at[axis] == n && !open_above)))
      return 0.0;
    PetscInt donor[3] = {at[0], at[1], at[2]};
    if (s > 0.0) donor[axis] -= 1;
    // Beyond an outflow face the backflow brings air.
    if (!periodic && (donor[axis] < 0 || donor[axis] >= n)) return 0.0;
    if (solids.solid(donor[0], donor[1], donor[2])) {
      // A body's cell holds its liquid against the face the fluid is on (the part of the cell
      // the body has not reached yet), so the slab its surface sweeps carries min(|s|, f);
      // nothing moves between two of a body's cells.
      PetscInt acceptor[3] = {at[0], at[1], at[2]};
      if (s < 0.0) acceptor[axis] -= 1;
      if (solids.solid(acceptor[0], acceptor[1], acceptor[2])) return 0.0;
      const double held = std::max(0.0, f(donor[0], donor[1], donor[2]));
      return std::copysign(std::min(std::abs(s), held), s);
    }
    const double fd = f(donor[0], donor[1], donor[2]);
    if (fd <= 0.0) return 0.0;
    if (fd >= 1.0) return s;
    const double* plane = &planes_[4 * box_offset(planes_box_, donor[0], donor[1], donor[2])];
    return s > 0.0 ? plic::slab_volume(plane, plane[3], axis, 1.0 - s, s, dim)
                   : -plic::slab_volume(plane, plane[3], axis, 0.0, -s, dim);
  };
  // Each face once: the owned cells' faces along the axis, their upper ones included.
  IndexBox faces = grid.owned_cells();
  faces.hi[axis] += 1;
  swept_.resize(faces.count());
  fluxes_.resize(faces.count());
  {
    size_t at = 0;
    for_each_index(faces, [&](PetscInt i, PetscInt j, PetscInt k) {
      const PetscInt here[3] = {i, j, k};
      fluxes_[at] = face(here, &swept_[at]);
      ++at;
    });
  }
  // From a cell's lower face to its upper one along the axis.
  const size_t next = static_cast<size_t>(
      axis == 0 ? 1 : (axis == 1 ? faces.size(0) : faces.size(0) * faces.size(1)));
  // No clipping here: a sweep along one axis of a velocity that is divergence-free only over
  // all of them compresses some cells beyond 1 and expands others below 0 for a moment, and
  // the later sweeps bring them back (the fluxes read a fraction outside [0, 1] as a full or
  // an empty cell). Measured on the 2D dam break (dam_break_2d.yaml with interface: vof, 2
  // ranks, to t = 1.5): clipping after each sweep clipped 3.4e-7 of the volume, after the
  // step's last sweep 1e-15.
  WriteArray out;
  PetscCall(out.get_global(fraction));
  size_t at = 0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const bool liquid_centre = centre_liquid_[at++] != 0;
    const size_t lower = box_offset(faces, i, j, k), upper = lower + next;
    double value = f(i, j, k) - (fluxes_[upper] - fluxes_[lower]);
    // A body's cell holds what its faces carry in (no c-term: the body is not liquid).
    if (liquid_centre && !solids.solid(i, j, k)) value += swept_[upper] - swept_[lower];
    out(i, j, k) = value;
  });
  PetscFunctionReturn(0);
}

PetscErrorCode VolumeOfFluid::keep_bounds(Field& fraction, const Field* phi, double* clipped) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const SolidMask& solids = *solids_;
  // What is outside [0, 1] moves to the neighbours (above 1 first, then below 0); what they
  // cannot take is clipped. A body's cell may hold more than a cell for a while (what flowed
  // into it, volume_of_fluid.hpp "Bodies"): its bounds are kept once it is uncovered.
  // Whether any cell on any rank is outside [0, 1].
  const auto any_outside = [&](int* outside) -> PetscErrorCode {
    PetscFunctionBeginUser;
    int here = 0;
    ReadArray f;
    PetscCall(f.get_global(fraction));
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      here |= !solids.solid(i, j, k) &&
              (f(i, j, k) < -kRoundingSpill || f(i, j, k) > 1.0 + kRoundingSpill);
    });
    PetscCall(f.restore());
    PetscCallMPI(MPI_Allreduce(&here, outside, 1, MPI_INT, MPI_MAX, grid.comm()));
    PetscFunctionReturn(0);
  };
  int outside = 0;
  PetscCall(any_outside(&outside));
  // A pass places all of a cell's spill that its neighbours have room for, unless a neighbour
  // is shared with other cells that spill; the passes after it place the rest.
  for (int pass = 0; outside && pass < kRedistributionPasses; ++pass) {
    PetscCall(redistribute(fraction, phi, true));
    PetscCall(redistribute(fraction, phi, false));
    PetscCall(any_outside(&outside));
  }
  double lost = 0.0;
  {
    WriteArray f;
    PetscCall(f.get_global(fraction));
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (solids.solid(i, j, k)) return;
      double& value = f(i, j, k);
      if (value < 0.0) {
        lost -= value;
        value = 0.0;
      } else if (value > 1.0) {
        lost += value - 1.0;
        value = 1.0;
      }
    });
  }
  double cell_volume = 1.0;
  for (int a = 0; a < grid.dim(); ++a) cell_volume *= grid.spacing(a);
  lost *= cell_volume;
  PetscCallMPI(MPI_Allreduce(&lost, clipped, 1, MPI_DOUBLE, MPI_SUM, grid.comm()));
  PetscFunctionReturn(0);
}

PetscErrorCode VolumeOfFluid::redistribute(Field& fraction, const Field* phi, bool above) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const SolidMask& solids = *solids_;
  const int dim = grid.dim();
  PetscCall(fraction.fill_ghosts());
  ReadArray f;
  PetscCall(f.get_local(fraction));
  const auto inside = [&](const PetscInt at[3]) { return fluid_cell(grid, solids, at); };
  // A moving body's cell takes (or gives) what its fluid neighbours cannot: the liquid a body's
  // corner cell gathers through two or three faces at once (volume_of_fluid.hpp, "Bodies") may
  // exceed a cell when the body uncovers it under water, where no fluid cell near it has room.
  // A static obstacle's cell never does: nothing would take its liquid out again.
  const bool bodies = solids.moving();
  const auto body_cell = [&](const PetscInt at[3]) {
    if (!bodies || !solids.solid(at[0], at[1], at[2])) return false;
    for (int a = 0; a < dim; ++a)
      if (!grid.periodic(a) && (at[a] < 0 || at[a] >= grid.cells(a))) return false;
    const int n = solids.obstacle_of_cell(at[0], at[1], at[2]);
    return n >= 0 && solids.obstacles()[static_cast<size_t>(n)].moves();
  };
  // What a cell has outside its bounds.
  const auto spill = [&](const PetscInt at[3]) {
    if (!inside(at)) return 0.0;
    const double v = f(at[0], at[1], at[2]);
    return std::max(0.0, above ? v - 1.0 : -v);
  };
  const auto neighbours = [&](const PetscInt at[3], auto&& g) {
    for_face_neighbours(dim, at, g);
  };
  // What each cell offers each neighbour that spills: its room (1 - f, or f) shared among them,
  // so that together they cannot push it out of bounds.
  {
    WriteArray offer;
    PetscCall(offer.get_global(offer_));
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      const PetscInt at[3] = {i, j, k};
      int donors = 0;
      neighbours(at, [&](const PetscInt* n) { donors += spill(n) > 0.0; });
      const double v = f(i, j, k);
      const bool takes = donors > 0 && (inside(at) || body_cell(at));
      offer(i, j, k) = takes ? std::max(0.0, above ? 1.0 - v : v) / donors : 0.0;
    });
  }
  PetscCall(offer_.fill_ghosts());
  ReadArray offer;
  PetscCall(offer.get_local(offer_));
  // Zero but in the cells that take (beyond a wall the halo holds the boundary's copies).
  const auto offered = [&](const PetscInt at[3]) {
    for (int a = 0; a < dim; ++a)
      if (!grid.periodic(a) && (at[a] < 0 || at[a] >= grid.cells(a))) return 0.0;
    return offer(at[0], at[1], at[2]);
  };
  const auto capacity = [&](const PetscInt at[3]) {
    double total = 0.0;
    neighbours(at, [&](const PetscInt* n) { total += offered(n); });
    return total;
  };
  // What a cell spills beyond its neighbours' room goes on to its open fluid neighbours (those
  // that do not spill themselves), for them to pass on at the next pass: under water (a
  // splash's landing, a body's corner) the room is more than one cell away. The nearest room
  // is at the surface, so it climbs phi's slope towards it (above 1: to larger phi, the air;
  // below 0: to smaller phi, the liquid), in proportion to each open neighbour's rise; where
  // phi is flat (beyond its band, or no phi given) the open neighbours share it equally (a
  // rise that is not finite counts as none).
  // Shared equally everywhere, the overshoots where a splash's front meets the block of
  // breaking_wave_spray_3d spread as diffusion does, deep into the water, and 16 passes left
  // 1.8e-5 of its water unplaced (1 rank); climbing, they reach the surface in about as many
  // passes as they are cells deep.
  ReadArray level;
  if (phi) PetscCall(level.get_local(*phi));
  const double sign = above ? 1.0 : -1.0;
  const auto open = [&](const PetscInt at[3]) { return inside(at) && spill(at) == 0.0; };
  const auto rise = [&](const PetscInt from[3], const PetscInt to[3]) {
    if (!phi) return 0.0;
    const double d = sign * (level(to[0], to[1], to[2]) - level(from[0], from[1], from[2]));
    return d > 0.0 && d < std::numeric_limits<double>::infinity() ? d : 0.0;
  };
  // The share of what cell `at` passes on that goes to neighbour `to` (open, 0 if no open
  // neighbour).
  const auto share = [&](const PetscInt at[3], const PetscInt to[3]) {
    int count = 0;
    double total_rise = 0.0;
    neighbours(at, [&](const PetscInt* n) {
      if (!open(n)) return;
      ++count;
      total_rise += rise(at, n);
    });
    if (total_rise > 0.0) return rise(at, to) / total_rise;
    return count > 0 ? 1.0 / count : 0.0;
  };
  const auto passes_on = [&](const PetscInt at[3]) {
    bool any = false;
    neighbours(at, [&](const PetscInt* n) { any = any || open(n); });
    return any;
  };
  const auto beyond_room = [&](const PetscInt at[3]) {
    return std::max(0.0, spill(at) - capacity(at));
  };
  WriteArray out;
  PetscCall(out.get_global(fraction));
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const PetscInt at[3] = {i, j, k};
    if (solids.solid(i, j, k) && offered(at) == 0.0) return;
    double value = f(i, j, k);
    if (const double mine = spill(at); mine > 0.0) {
      value -= sign * std::min(mine, capacity(at));
      if (passes_on(at)) value -= sign * beyond_room(at);
    }
    // What each neighbour moves here: its spill, as far as its neighbours' offers cover it, in
    // proportion to this cell's offer; and, to a fluid cell that does not spill, its share of
    // what the neighbour's room cannot take.
    const double here = offered(at);
    const bool takes_on = open(at);
    if (here > 0.0 || takes_on)
      neighbours(at, [&](const PetscInt* n) {
        const double theirs = spill(n);
        if (theirs == 0.0) return;
        const double total = capacity(n);
        if (here > 0.0) value += sign * std::min(theirs, total) * here / total;
        if (takes_on) value += sign * beyond_room(n) * share(n, at);
      });
    out(i, j, k) = value;
  });
  PetscFunctionReturn(0);
}

PetscErrorCode VolumeOfFluid::advect(Field& fraction, const Field& velocity, const Field* phi,
                                     double dt, PetscInt step, FractionStats* stats) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  // The sub-steps: the largest |u| dt / h over the owned faces, the same on every rank.
  double largest = 0.0;
  {
    ReadArray u;
    PetscCall(u.get_local(velocity));
    std::array<double, 3> inverse_h{1.0, 1.0, 1.0};
    for (int a = 0; a < dim; ++a) inverse_h[a] = 1.0 / grid.spacing(a);
    for (int a = 0; a < dim; ++a) {
      IndexBox faces = grid.owned_cells();
      faces.hi[a] += 1;
      for_each_index(faces, [&](PetscInt i, PetscInt j, PetscInt k) {
        largest = std::max(largest, std::abs(u(i, j, k, a)) * dt * inverse_h[a]);
      });
    }
    PetscCall(u.restore());
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_DOUBLE, MPI_MAX, grid.comm()));
  PetscCheck(std::isfinite(largest), grid.comm(), PETSC_ERR_FP,
             "the liquid's fraction: the velocity that moves it is not finite");
  const int substeps = std::max(1, static_cast<int>(std::ceil(largest / kSweepCourant)));
  const double sub_dt = dt / substeps;
  double clipped = 0.0;
  for (int s = 0; s < substeps; ++s) {
    // c from f at the start of the sub-step, for all its sweeps.
    ReadArray f;
    PetscCall(f.get_global(fraction));
    centre_liquid_.resize(static_cast<size_t>(grid.owned_cells().count()));
    size_t at = 0;
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      centre_liquid_[at] = f(i, j, k) > 0.5;
      ++at;
    });
    PetscCall(f.restore());
    const bool forwards = (step + s) % 2 == 0;
    for (int n = 0; n < dim; ++n)
      PetscCall(sweep(fraction, velocity, forwards ? n : dim - 1 - n, sub_dt));
  }
  PetscCall(keep_bounds(fraction, phi, &clipped));
  if (stats) *stats = {substeps, clipped};
  PetscFunctionReturn(0);
}

PetscErrorCode VolumeOfFluid::impose_surface(Field& fraction, Field& phi) {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  const SolidMask& solids = *solids_;
  PetscCall(fraction.fill_ghosts());
  ReadArray f;
  PetscCall(f.get_local(fraction));
  // The planes of the owned cells and of their neighbours.
  IndexBox box = grid.owned_cells();
  for (int a = 0; a < dim; ++a) {
    box.lo[a] -= 1;
    box.hi[a] += 1;
  }
  reconstruct(f.view(), box);
  // The signed distance from the centre of cell (i, j, k) + offset to the plane of cell (i, j,
  // k), NaN where that cell has none: the plane is sum (m_a / h_a) X_a = alpha in the cell's own
  // lengths X, the centre at X_a = (1/2 + offset_a) h_a.
  const auto plane_distance = [&](const PetscInt cell[3], const int offset[3]) {
    const double ff = f(cell[0], cell[1], cell[2]);
    if (!(ff > 0.0 && ff < 1.0) || solids.solid(cell[0], cell[1], cell[2]))
      return std::numeric_limits<double>::quiet_NaN();
    const double* plane = &planes_[4 * box_offset(box, cell[0], cell[1], cell[2])];
    double along = 0.0, norm2 = 0.0;
    for (int a = 0; a < dim; ++a) {
      along += (0.5 + offset[a]) * plane[a];
      norm2 += plane[a] * plane[a] / (grid.spacing(a) * grid.spacing(a));
    }
    return (along - plane[3]) / std::sqrt(norm2);
  };
  WriteArray p;
  PetscCall(p.get_global(phi));
  const double h = grid.min_spacing();
  surface_distance_.assign(static_cast<size_t>(grid.owned_cells().count()),
                           std::numeric_limits<double>::quiet_NaN());
  size_t at = 0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    double& surface = surface_distance_[at++];
    if (solids.solid(i, j, k)) return;
    const PetscInt here[3] = {i, j, k};
    const int none[3] = {0, 0, 0};
    const double fc = f(i, j, k);
    const bool liquid = fc > 0.5;
    // Beside the surface: a fluid neighbour along an axis on the other side of 1/2. A cell
    // with a plane of its own takes the distance to it; a full or empty one the nearest
    // distance to its neighbours' planes on the other side, or half a spacing.
    bool beside = false;
    double nearest = std::numeric_limits<double>::infinity();
    for (int a = 0; a < dim; ++a)
      for (int side = -1; side <= 1; side += 2) {
        PetscInt nb[3] = {i, j, k};
        nb[a] += side;
        if (!grid.periodic(a) && (nb[a] < 0 || nb[a] >= grid.cells(a))) continue;
        if (solids.solid(nb[0], nb[1], nb[2])) continue;
        if ((f(nb[0], nb[1], nb[2]) > 0.5) == liquid) continue;
        beside = true;
        int offset[3] = {0, 0, 0};
        offset[a] = -side;  // this centre in the neighbour's coordinates
        const double d = plane_distance(nb, offset);
        nearest = std::min(nearest, std::isnan(d) ? 0.5 * grid.spacing(a) : std::abs(d));
      }
    double value = p(i, j, k);
    if (beside) {
      const double own = plane_distance(here, none);
      value = std::isnan(own) ? (liquid ? -nearest : nearest) : own;
    }
    // f's side, always (f = 1/2 is air, as phi = 0 is for the projection).
    if (liquid && !(value < 0.0)) value = -kSideNudge * h;
    if (!liquid && value < 0.0) value = kSideNudge * h;
    p(i, j, k) = value;
    if (beside) surface = value;
  });
  PetscCall(p.restore());
  PetscCall(f.restore());
  PetscFunctionReturn(0);
}

double VolumeOfFluid::surface_distance(PetscInt i, PetscInt j, PetscInt k) const {
  return surface_distance_[box_offset(grid_->owned_cells(), i, j, k)];
}

PetscErrorCode VolumeOfFluid::keep_sides(const Field& fraction, Field& phi) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  const double h = grid.min_spacing();
  ReadArray f;
  WriteArray p;
  PetscCall(f.get_global(fraction));
  PetscCall(p.get_global(phi));
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (solids_->solid(i, j, k)) return;
    const bool liquid = f(i, j, k) > 0.5;
    double& value = p(i, j, k);
    if (liquid && !(value < 0.0)) value = -kSideNudge * h;
    if (!liquid && value < 0.0) value = kSideNudge * h;
  });
  PetscCall(p.restore());
  PetscCall(f.restore());
  PetscFunctionReturn(0);
}

PetscErrorCode VolumeOfFluid::volume(const Field& fraction, double* volume) const {
  PetscFunctionBeginUser;
  const Grid& grid = *grid_;
  double cell_volume = 1.0;
  for (int a = 0; a < grid.dim(); ++a) cell_volume *= grid.spacing(a);
  ReadArray f;
  PetscCall(f.get_global(fraction));
  double sum = 0.0;
  // A body's cells count: they hold what flowed into them until the body uncovers them.
  for_each_index(grid.owned_cells(),
                 [&](PetscInt i, PetscInt j, PetscInt k) { sum += f(i, j, k); });
  PetscCall(f.restore());
  sum *= cell_volume;
  PetscCallMPI(MPI_Allreduce(&sum, volume, 1, MPI_DOUBLE, MPI_SUM, grid.comm()));
  PetscFunctionReturn(0);
}

}  // namespace sf
