// Forces, scalar sources and dissipation (src/physics/forces.cpp, the force files it composes and
// sources.cpp). Exact properties wherever the arithmetic allows: gravity adds exactly dt g,
// uniform buoyancy exactly dt b up, a linear temperature gives exactly the mean of the two cells,
// wind relaxes by exactly its factor, sources set or add exactly their value, dissipation divides
// by exactly 1 + dt a; prescribed faces (walls, inflow, faces of an obstacle) and everything
// outside a region keep their bits. Vorticity confinement vanishes where |omega| is uniform, and
// for a Gaussian vortex it is tangential, spins the vortex up and scales linearly with epsilon.
// Each force adds into the velocity itself but reads the state on entry: buoyancy and confinement
// together give the sum of their separate increments, not what a confinement that saw the
// buoyancy's increment would give.
// Decomposition invariance: every rank also builds the same (tiny) case on PETSC_COMM_SELF and
// compares its owned values with it, bit for bit, on PETSc's layout and on slabs along every axis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "density_noise.hpp"
#include "forces.hpp"
#include "sources.hpp"
#include "initial_conditions.hpp"
#include "mpi_test_util.hpp"
#include "test_boundaries.hpp"
#include "region.hpp"

namespace sf {
namespace {

using test::all;
using test::Boundaries;
using test::face;

bool same_bits(double a, double b) {
  std::uint64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

/// Counts failures on this rank and keeps the first message.
struct Tally {
  long wrong = 0;
  std::string first;
  void fail(const std::string& message) {
    if (wrong++ == 0) first = "rank " + std::to_string(test::comm_rank()) + ": " + message;
  }
};

std::string where(int c, PetscInt i, PetscInt j, PetscInt k, double got, double want) {
  std::ostringstream s;
  s.precision(17);
  s << "component " << c << " at (" << i << "," << j << "," << k << ") holds " << got
    << ", expected " << want;
  return s.str();
}

struct CaseSpec {
  int dim = 2;
  std::array<long, 3> cells{1, 1, 1};
  std::array<double, 3> size{1.0, 1.0, 1.0};
  Boundaries boundary{};
  std::vector<ObstacleConfig> obstacles;
  int halo = 2;
};

ObstacleConfig sphere_obstacle(std::array<double, 3> center, double radius) {
  ObstacleConfig obstacle;
  obstacle.region.shape = Region::Shape::Sphere;
  obstacle.region.center = center;
  obstacle.region.radius = radius;
  return obstacle;
}

/// 16 x 12 cells of h = 0.125: x periodic, y a no-slip floor and an outflow top (so the top
/// boundary faces are free), a disc obstacle.
CaseSpec plane() {
  CaseSpec s;
  s.dim = 2;
  s.cells = {16, 12, 1};
  s.size = {2.0, 1.5, 1.0};
  s.boundary[0] = {face(BoundaryKind::Periodic), face(BoundaryKind::Periodic)};
  s.boundary[1] = {face(BoundaryKind::NoSlip), face(BoundaryKind::Outflow)};
  s.boundary[2] = {face(BoundaryKind::Periodic), face(BoundaryKind::Periodic)};
  s.obstacles = {sphere_obstacle({1.0, 0.7, 0.0}, 0.3)};
  return s;
}

/// 10 x 9 x 8 cells of h = 0.125: x inflow / outflow, y periodic, z free-slip / no-slip, a
/// sphere obstacle.
CaseSpec box() {
  CaseSpec s;
  s.dim = 3;
  s.cells = {10, 9, 8};
  s.size = {1.25, 1.125, 1.0};
  FaceBoundary inflow = face(BoundaryKind::Inflow);
  inflow.velocity = {0.5, 0.0, 0.0};
  inflow.scalar_values["density"] = 1.0;
  s.boundary[0] = {inflow, face(BoundaryKind::Outflow)};
  s.boundary[1] = {face(BoundaryKind::Periodic), face(BoundaryKind::Periodic)};
  s.boundary[2] = {face(BoundaryKind::FreeSlip), face(BoundaryKind::NoSlip)};
  s.obstacles = {sphere_obstacle({0.6, 0.55, 0.5}, 0.25)};
  return s;
}

/// Grid, mask, velocity and scalars of one test. Not movable: the fields point at the grid.
struct Case {
  Grid grid;
  SolidMask solids;
  Field velocity;
  std::vector<ScalarConfig> scalar_configs;
  std::vector<Field> scalars;

  PetscErrorCode setup(MPI_Comm comm, const CaseSpec& s, const std::vector<std::string>& names,
                       std::array<PetscInt, 3> processes = {PETSC_DECIDE, PETSC_DECIDE,
                                                            PETSC_DECIDE}) {
    PetscFunctionBeginUser;
    GridConfig config;
    config.dim = s.dim;
    config.cells = s.cells;
    config.size = s.size;
    config.halo = s.halo;
    PetscCall(grid.setup(comm, config, s.boundary, processes));
    PetscCall(solids.setup(grid, s.obstacles));
    PetscCall(velocity.setup_velocity(grid));
    scalar_configs.clear();
    scalars.clear();
    scalars.reserve(names.size());
    for (const std::string& name : names) {
      ScalarConfig sc;
      sc.name = name;
      scalar_configs.push_back(sc);
      scalars.emplace_back();
      PetscCall(scalars.back().setup_scalar(grid, name));
    }
    PetscFunctionReturn(0);
  }

  /// u_c = value(c, x) at every owned face centre.
  template <typename F>
  PetscErrorCode set_velocity(F&& value) {
    PetscFunctionBeginUser;
    PetscScalar* data;
    ArrayView u;
    PetscCall(VecGetArray(velocity.global(), &data));
    PetscCall(grid.global_view(velocity.dm(), data, &u));
    for (int c = 0; c < grid.dim(); ++c) {
      for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
        const double x[3] = {grid.sample_position(0, i, c), grid.sample_position(1, j, c),
                             grid.sample_position(2, k, c)};
        u(i, j, k, c) = value(c, x);
      });
    }
    PetscCall(VecRestoreArray(velocity.global(), &data));
    PetscFunctionReturn(0);
  }

  /// s = value(i, j, k, x) at every owned cell of scalar `index`.
  template <typename F>
  PetscErrorCode set_scalar(size_t index, F&& value) {
    PetscFunctionBeginUser;
    Field& field = scalars[index];
    PetscScalar* data;
    ArrayView s;
    PetscCall(VecGetArray(field.global(), &data));
    PetscCall(grid.global_view(field.dm(), data, &s));
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      const double x[3] = {grid.cell_center(0, i), grid.cell_center(1, j), grid.cell_center(2, k)};
      s(i, j, k) = value(i, j, k, x);
    });
    PetscCall(VecRestoreArray(field.global(), &data));
    PetscFunctionReturn(0);
  }

  PetscErrorCode fill_ghosts() {
    PetscFunctionBeginUser;
    PetscCall(velocity.fill_ghosts());
    for (Field& field : scalars) PetscCall(field.fill_ghosts());
    PetscFunctionReturn(0);
  }
};

/// A smooth velocity without symmetries, different per component.
double wave(int c, const double x[3]) {
  return std::sin(1.7 * x[0] + 0.3 * c) * std::cos(2.1 * x[1] - 0.2 * c) +
         0.25 * std::cos(2.3 * x[2] + c) + 0.1 * c;
}

/// A copy of a vector's current values.
PetscErrorCode snapshot(Vec v, OwnedVec* copy) {
  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(v, copy->replace()));
  PetscCall(VecCopy(v, *copy));
  PetscFunctionReturn(0);
}

/// Calls check(c, i, j, k, before, after, &tally) on every owned face of every component, and
/// requires the face DM's slots that are not faces (tangential components of the extra upper
/// layer) to keep their bits.
template <typename Check>
Tally check_faces(const Grid& grid, Vec before, Vec after, Check&& check) {
  Tally tally;
  const PetscScalar *b_data, *a_data;
  ArrayView b, a;
  EXPECT_EQ(VecGetArrayRead(before, &b_data), 0);
  EXPECT_EQ(VecGetArrayRead(after, &a_data), 0);
  EXPECT_EQ(grid.global_view(grid.face_dm(), const_cast<PetscScalar*>(b_data), &b), 0);
  EXPECT_EQ(grid.global_view(grid.face_dm(), const_cast<PetscScalar*>(a_data), &a), 0);
  const IndexBox all{b.start,
                     {b.start[0] + b.width[0], b.start[1] + b.width[1], b.start[2] + b.width[2]}};
  for (int c = 0; c < grid.dim(); ++c) {
    const IndexBox faces = grid.owned_faces(c);
    for_each_index(all, [&](PetscInt i, PetscInt j, PetscInt k) {
      if (faces.contains(i, j, k)) {
        check(c, i, j, k, b(i, j, k, c), a(i, j, k, c), &tally);
      } else if (!same_bits(a(i, j, k, c), b(i, j, k, c))) {
        tally.fail("non-face slot changed: " + where(c, i, j, k, a(i, j, k, c), b(i, j, k, c)));
      }
    });
  }
  EXPECT_EQ(VecRestoreArrayRead(before, &b_data), 0);
  EXPECT_EQ(VecRestoreArrayRead(after, &a_data), 0);
  return tally;
}

/// Same, over the owned cells of a scalar.
template <typename Check>
Tally check_cells(const Grid& grid, Vec before, Vec after, Check&& check) {
  Tally tally;
  const PetscScalar *b_data, *a_data;
  ArrayView b, a;
  EXPECT_EQ(VecGetArrayRead(before, &b_data), 0);
  EXPECT_EQ(VecGetArrayRead(after, &a_data), 0);
  EXPECT_EQ(grid.global_view(grid.cell_dm(), const_cast<PetscScalar*>(b_data), &b), 0);
  EXPECT_EQ(grid.global_view(grid.cell_dm(), const_cast<PetscScalar*>(a_data), &a), 0);
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    check(i, j, k, b(i, j, k), a(i, j, k), &tally);
  });
  EXPECT_EQ(VecRestoreArrayRead(before, &b_data), 0);
  EXPECT_EQ(VecRestoreArrayRead(after, &a_data), 0);
  return tally;
}

/// before + increment, except that a zero increment is no update: a force leaves a face where its
/// f is exactly zero untouched, so even a signed zero keeps its sign.
double plus(double before, double increment) {
  return increment == 0.0 ? before : before + increment;
}

/// Expects the same bits; returns whether they were.
bool expect_bits(Tally* tally, int c, PetscInt i, PetscInt j, PetscInt k, double got, double want) {
  if (same_bits(got, want)) return true;
  tally->fail(where(c, i, j, k, got, want));
  return false;
}

void expect_no_failures(const Tally& tally, const char* what) {
  EXPECT_EQ(test::global_sum(tally.wrong), 0) << what << ": " << tally.first;
}

std::array<double, 3> face_center(const Grid& grid, int c, PetscInt i, PetscInt j, PetscInt k) {
  return {grid.sample_position(0, i, c), grid.sample_position(1, j, c),
          grid.sample_position(2, k, c)};
}

/// Runs Forces::apply with `config` on the velocity of `test` and checks every face with `check`.
template <typename Check>
void run_forces(Case& test, const ForcesConfig& config, double dt, const char* what,
                Check&& check) {
  Forces forces;
  ASSERT_EQ(forces.setup(test.grid, config, test.solids, test.scalar_configs), 0);
  ASSERT_EQ(test.fill_ghosts(), 0);
  OwnedVec before;
  ASSERT_EQ(snapshot(test.velocity.global(), &before), 0);
  ASSERT_EQ(forces.apply(test.velocity, test.scalars, dt, 0.0), 0);
  expect_no_failures(check_faces(test.grid, before, test.velocity.global(), check), what);
}

// ---------------------------------------------------------------------------------------------
// Gravity and buoyancy

void check_gravity(const CaseSpec& spec) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {}), 0);
  ASSERT_EQ(test.set_velocity(wave), 0);
  ForcesConfig config;
  config.gravity = {0.5, -9.75, spec.dim == 3 ? 0.25 : 0.0};
  const double dt = 0.125;
  long fixed = 0, solid = 0, free = 0;
  run_forces(
      test, config, dt, "gravity",
      [&](int c, PetscInt i, PetscInt j, PetscInt k, double before, double after, Tally* tally) {
        if (test.solids.fixed_face(c, i, j, k)) {
          ++fixed;
          if (test.solids.solid_face(c, i, j, k)) ++solid;
          expect_bits(tally, c, i, j, k, after, before);
        } else {
          ++free;
          expect_bits(tally, c, i, j, k, after, plus(before, dt * config.gravity[c]));
        }
      });
  // The case must exercise walls and the obstacle, not only free faces.
  EXPECT_GT(test::global_sum(fixed), test::global_sum(solid));
  EXPECT_GT(test::global_sum(solid), 0);
  EXPECT_GT(test::global_sum(free), 0);
}

TEST(Gravity, AddsExactlyDtGOnFreeFacesOnly2D) { check_gravity(plane()); }
TEST(Gravity, AddsExactlyDtGOnFreeFacesOnly3D) { check_gravity(box()); }

void check_uniform_buoyancy(const CaseSpec& spec, std::array<double, 3> up) {
  Case test;
  // The buoyancy scalars are not first: their names, not their positions, must be used.
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {"smoke", "temperature", "density"}), 0);
  ASSERT_EQ(test.set_velocity(wave), 0);
  const double rho = 0.75, temperature = 2.5;
  ASSERT_EQ(test.set_scalar(0, [](PetscInt, PetscInt, PetscInt, const double*) { return 9.0; }), 0);
  ASSERT_EQ(
      test.set_scalar(1, [&](PetscInt, PetscInt, PetscInt, const double*) { return temperature; }),
      0);
  ASSERT_EQ(test.set_scalar(2, [&](PetscInt, PetscInt, PetscInt, const double*) { return rho; }),
            0);
  ForcesConfig config;
  config.buoyancy.enabled = true;
  config.buoyancy.alpha = 0.5;
  config.buoyancy.beta = 0.25;
  config.buoyancy.ambient_temperature = 0.5;
  config.buoyancy.up = up;
  const double dt = 0.125;
  const BuoyancyConfig& b = config.buoyancy;
  const double strength = -b.alpha * rho + b.beta * (temperature - b.ambient_temperature);
  run_forces(
      test, config, dt, "uniform buoyancy",
      [&](int c, PetscInt i, PetscInt j, PetscInt k, double before, double after, Tally* tally) {
        const double want =
            test.solids.fixed_face(c, i, j, k) ? before : plus(before, dt * (strength * up[c]));
        expect_bits(tally, c, i, j, k, after, want);
      });
}

TEST(Buoyancy, UniformScalarsGiveExactlyTheCellForce2D) {
  check_uniform_buoyancy(plane(), {0.6, 0.8, 0.0});
}
TEST(Buoyancy, UniformScalarsGiveExactlyTheCellForce3D) {
  check_uniform_buoyancy(box(), {0.0, 0.6, 0.8});
}

/// T = j + 1 (an integer) with the density term dropped (empty name): every y face gets exactly
/// dt beta ((T_below + T_above) / 2 - T_amb), with the cell across a periodic boundary wrapped and
/// the one beyond the outflow top mirrored (zero gradient); x and z faces (up_x = up_z = 0) keep
/// their bits. All values are short binary fractions, so any correct formula is exact.
void check_linear_buoyancy(const CaseSpec& spec) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {"temperature"}), 0);
  ASSERT_EQ(test.set_velocity(wave), 0);
  auto temperature_of = [](PetscInt j) { return static_cast<double>(j + 1); };
  ASSERT_EQ(test.set_scalar(0, [&](PetscInt, PetscInt j, PetscInt,
                                   const double*) { return temperature_of(j); }),
            0);
  ForcesConfig config;
  config.buoyancy.enabled = true;
  config.buoyancy.density_scalar = "";
  config.buoyancy.alpha = 3.0;  // ignored: no density scalar
  config.buoyancy.beta = 0.25;
  config.buoyancy.ambient_temperature = 0.5;
  config.buoyancy.up = {0.0, 1.0, 0.0};
  const double dt = 0.5;
  const Grid& grid = test.grid;
  const PetscInt n = grid.cells(1);
  long checked_top = 0;
  run_forces(
      test, config, dt, "linear buoyancy",
      [&](int c, PetscInt i, PetscInt j, PetscInt k, double before, double after, Tally* tally) {
        if (test.solids.fixed_face(c, i, j, k) || c != 1) {
          expect_bits(tally, c, i, j, k, after, before);
          return;
        }
        PetscInt below = j - 1, above = j;
        if (grid.periodic(1)) {
          below = (below + n) % n;
          above = above % n;
        } else if (above == n) {
          above = n - 1;
          ++checked_top;
        }
        const double mean = 0.5 * (temperature_of(below) + temperature_of(above));
        const double force = config.buoyancy.beta * (mean - 0.5);
        expect_bits(tally, c, i, j, k, after, plus(before, dt * force));
      });
  if (!grid.periodic(1)) {
    EXPECT_GT(test::global_sum(checked_top), 0);
  }
}

TEST(Buoyancy, LinearTemperatureGivesTheMeanOfTheTwoCells2D) { check_linear_buoyancy(plane()); }
TEST(Buoyancy, LinearTemperatureGivesTheMeanOfTheTwoCells3D) { check_linear_buoyancy(box()); }

/// Forces::setup with errors returned rather than printed: *code is its error code.
PetscErrorCode setup_quietly(Forces& forces, Case& test, const ForcesConfig& config,
                             PetscErrorCode* code) {
  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  *code = forces.setup(test.grid, config, test.solids, test.scalar_configs);
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(0);
}

// Setup must refuse what it cannot do, with the same error on every rank, so that no rank is left
// waiting in a collective.
TEST(Forces, SetupRefusesMissingScalarsAndNarrowHalos) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, plane(), {"density", "temperature"}), 0);
  ForcesConfig config;
  config.buoyancy.enabled = true;
  config.buoyancy.temperature_scalar = "heat";
  config.buoyancy.beta = 1.0;
  Forces forces;
  PetscErrorCode missing = 0;
  ASSERT_EQ(setup_quietly(forces, test, config, &missing), 0);
  EXPECT_EQ(missing, PETSC_ERR_ARG_WRONG);
  EXPECT_EQ(test::global_sum(missing == PETSC_ERR_ARG_WRONG ? 1 : 0), test::comm_size());

  // A missing scalar whose coefficient is zero contributes nothing and is accepted.
  config.buoyancy.beta = 0.0;
  Forces accepted;
  PetscErrorCode accepted_code = -1;
  ASSERT_EQ(setup_quietly(accepted, test, config, &accepted_code), 0);
  EXPECT_EQ(accepted_code, 0);

  CaseSpec narrow = plane();
  narrow.halo = 1;
  Case thin;
  ASSERT_EQ(thin.setup(PETSC_COMM_WORLD, narrow, {}), 0);
  ForcesConfig confinement;
  confinement.vorticity_confinement = 0.5;
  Forces refused;
  PetscErrorCode halo = 0;
  ASSERT_EQ(setup_quietly(refused, thin, confinement, &halo), 0);
  EXPECT_EQ(halo, PETSC_ERR_ARG_OUTOFRANGE);
  EXPECT_EQ(test::global_sum(halo == PETSC_ERR_ARG_OUTOFRANGE ? 1 : 0), test::comm_size());
}

// ---------------------------------------------------------------------------------------------
// Vorticity confinement

/// The same grids with outflow (zero-gradient) instead of walls, so that a uniform flow stays
/// uniform in the ghost layers too.
CaseSpec open_plane() {
  CaseSpec s = plane();
  s.boundary[1] = {face(BoundaryKind::Outflow), face(BoundaryKind::Outflow)};
  return s;
}
CaseSpec open_box() {
  CaseSpec s = box();
  s.boundary[0] = {face(BoundaryKind::Outflow), face(BoundaryKind::Outflow)};
  s.boundary[2] = {face(BoundaryKind::Outflow), face(BoundaryKind::Outflow)};
  return s;
}

void check_uniform_flow_unchanged(const CaseSpec& spec) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {}), 0);
  ASSERT_EQ(test.set_velocity([](int c, const double*) { return 1.25 - 1.75 * c; }), 0);
  ForcesConfig config;
  config.vorticity_confinement = 0.5;
  run_forces(test, config, 0.25, "confinement of a uniform flow",
             [&](int c, PetscInt i, PetscInt j, PetscInt k, double before, double after,
                 Tally* tally) { expect_bits(tally, c, i, j, k, after, before); });
}

TEST(VorticityConfinement, UniformFlowIsUnchanged2D) { check_uniform_flow_unchanged(open_plane()); }
TEST(VorticityConfinement, UniformFlowIsUnchanged3D) { check_uniform_flow_unchanged(open_box()); }

/// Solid-body rotation about z: |omega| = 2 Omega everywhere, so grad|omega| (up to rounding) and
/// the force vanish. The zero-gradient ghosts break the rotation at the domain's edge, so only
/// faces whose cells are at least two cells inside every non-periodic boundary are checked.
void check_solid_body_rotation(CaseSpec spec) {
  spec.boundary[1] = {face(BoundaryKind::Outflow), face(BoundaryKind::Outflow)};
  spec.boundary[0] = {face(BoundaryKind::Outflow), face(BoundaryKind::Outflow)};
  spec.obstacles.clear();
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {}), 0);
  const double omega = 1.5, xc = 0.5 * spec.size[0], yc = 0.5 * spec.size[1];
  ASSERT_EQ(test.set_velocity([&](int c, const double* x) {
    return c == 0 ? -omega * (x[1] - yc) : c == 1 ? omega * (x[0] - xc) : 0.0;
  }),
            0);
  ForcesConfig config;
  config.vorticity_confinement = 0.5;
  const Grid& grid = test.grid;
  long interior = 0;
  run_forces(
      test, config, 0.25, "confinement of a solid-body rotation",
      [&](int c, PetscInt i, PetscInt j, PetscInt k, double before, double after, Tally* tally) {
        const PetscInt index[3] = {i, j, k};
        for (int a = 0; a < grid.dim(); ++a) {
          if (grid.periodic(a)) continue;
          const PetscInt lowest = a == c ? index[a] - 1 : index[a];
          if (lowest < 2 || index[a] > grid.cells(a) - 3) return;
        }
        ++interior;
        expect_bits(tally, c, i, j, k, after, before);
      });
  EXPECT_GT(test::global_sum(interior), 0);
}

TEST(VorticityConfinement, SolidBodyRotationIsUnchanged2D) { check_solid_body_rotation(plane()); }
TEST(VorticityConfinement, SolidBodyRotationIsUnchanged3D) { check_solid_body_rotation(box()); }

/// A Gaussian vortex (the VelocityInit::Vortex profile) turning positively about `axis`: with
/// (p, q) the next two axes in cyclic order, u_p = -s dq, u_q = s dp. 48 x 48 cells across it,
/// 4 cells along it in 3D, periodic except for an outflow pair across q; built on
/// PETSC_COMM_SELF by every rank. Returns the face increments (u_after - u_before) / dt.
struct VortexCase {
  int dim = 2;
  int axis = 2;
  static constexpr double radius = 0.15;
  static constexpr double center_p = 0.49, center_q = 0.515;
  int p() const { return (axis + 1) % 3; }
  int q() const { return (axis + 2) % 3; }
};

PetscErrorCode vortex_increments(const VortexCase& vortex, double epsilon, double dt, Case& test,
                                 std::vector<double>* du) {
  PetscFunctionBeginUser;
  const int p = vortex.p(), q = vortex.q();
  CaseSpec s;
  s.dim = vortex.dim;
  for (int a = 0; a < 3; ++a)
    s.boundary[a] = {face(BoundaryKind::Periodic), face(BoundaryKind::Periodic)};
  s.boundary[q] = {face(BoundaryKind::Outflow), face(BoundaryKind::Outflow)};
  s.cells = {48, 48, 48};
  s.size = {1.0, 1.0, 1.0};
  s.cells[vortex.axis] = vortex.dim == 3 ? 4 : 1;
  s.size[vortex.axis] = vortex.dim == 3 ? 4.0 / 48.0 : 1.0;
  PetscCall(test.setup(PETSC_COMM_SELF, s, {}));
  PetscCall(test.set_velocity([&](int c, const double* x) {
    const double dp = x[p] - vortex.center_p, dq = x[q] - vortex.center_q;
    const double r2 = (dp * dp + dq * dq) / (vortex.radius * vortex.radius);
    const double scale = std::exp(0.5 * (1.0 - r2)) / vortex.radius;
    return c == p ? -scale * dq : c == q ? scale * dp : 0.0;
  }));
  PetscCall(test.velocity.fill_ghosts());
  OwnedVec before;
  PetscCall(snapshot(test.velocity.global(), &before));
  ForcesConfig config;
  config.vorticity_confinement = epsilon;
  Forces forces;
  PetscCall(forces.setup(test.grid, config, test.solids, test.scalar_configs));
  PetscCall(forces.apply(test.velocity, test.scalars, dt, 0.0));
  const PetscScalar *b, *a;
  PetscInt n;
  PetscCall(VecGetLocalSize(before, &n));
  PetscCall(VecGetArrayRead(before, &b));
  PetscCall(VecGetArrayRead(test.velocity.global(), &a));
  du->resize(static_cast<size_t>(n));
  for (PetscInt m = 0; m < n; ++m) (*du)[static_cast<size_t>(m)] = (a[m] - b[m]) / dt;
  PetscCall(VecRestoreArrayRead(test.velocity.global(), &a));
  PetscCall(VecRestoreArrayRead(before, &b));
  PetscFunctionReturn(0);
}

/// In the core (3 h < r < radius, where |omega| falls monotonically outwards) the force must be
/// tangential and turn with the vortex; along the axis (3D) it must vanish exactly, since nothing
/// varies along it.
void check_vortex_spin_up(const VortexCase& vortex) {
  Case test;
  std::vector<double> du;
  ASSERT_EQ(vortex_increments(vortex, 0.4, 1e-3, test, &du), 0);
  const Grid& grid = test.grid;
  ArrayView f;
  ASSERT_EQ(grid.global_view(grid.face_dm(), du.data(), &f), 0);
  const int p = vortex.p(), q = vortex.q();
  const double h = grid.spacing(p);
  double worst_radial = 0.0, circulation = 0.0;
  long cells = 0, against = 0, axial = 0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const PetscInt index[3] = {i, j, k};
    // The cell-centred force from the cell's two faces per component, as the confinement's own
    // cell values were averaged onto them.
    double force[3] = {0.0, 0.0, 0.0};
    for (int c = 0; c < grid.dim(); ++c) {
      PetscInt next[3] = {i, j, k};
      next[c] = grid.periodic(c) ? (next[c] + 1) % grid.cells(c) : next[c] + 1;
      force[c] = 0.5 * (f(i, j, k, c) + f(next[0], next[1], next[2], c));
    }
    if (vortex.dim == 3 && force[vortex.axis] != 0.0) ++axial;
    const double dp = grid.cell_center(p, index[p]) - vortex.center_p;
    const double dq = grid.cell_center(q, index[q]) - vortex.center_q;
    const double r = std::hypot(dp, dq);
    if (r < 3.0 * h || r > vortex.radius) return;
    const double radial = (force[p] * dp + force[q] * dq) / r;
    const double tangential = (-force[p] * dq + force[q] * dp) / r;
    worst_radial = std::max(worst_radial, std::abs(radial) / std::hypot(force[p], force[q]));
    if (tangential <= 0.0) ++against;
    circulation += tangential;
    ++cells;
  });
  EXPECT_GT(cells, 100);
  EXPECT_EQ(against, 0) << "cells in the core where the force opposes the rotation";
  EXPECT_GT(circulation, 0.0);
  EXPECT_LT(worst_radial, 0.05) << "largest |f.r| / |f| in the core";
  EXPECT_EQ(axial, 0) << "cells with a force along the vortex axis";
}

TEST(VorticityConfinement, GaussianVortexIsSpunUpTangentially2D) { check_vortex_spin_up({2, 2}); }
TEST(VorticityConfinement, GaussianVortexAlongXIsSpunUpTangentially3D) {
  check_vortex_spin_up({3, 0});
}
TEST(VorticityConfinement, GaussianVortexAlongYIsSpunUpTangentially3D) {
  check_vortex_spin_up({3, 1});
}
TEST(VorticityConfinement, GaussianVortexAlongZIsSpunUpTangentially3D) {
  check_vortex_spin_up({3, 2});
}

TEST(VorticityConfinement, ScalesLinearlyWithEpsilon) {
  Case one, three;
  std::vector<double> du1, du3;
  const double dt = 1.0 / 64.0;  // |u| <= 1
  ASSERT_EQ(vortex_increments({2, 2}, 0.25, dt, one, &du1), 0);
  ASSERT_EQ(vortex_increments({2, 2}, 0.75, dt, three, &du3), 0);
  ASSERT_EQ(du1.size(), du3.size());
  double largest = 0.0, worst = 0.0;
  for (size_t m = 0; m < du1.size(); ++m) {
    largest = std::max(largest, std::abs(du3[m]));
    worst = std::max(worst, std::abs(du3[m] - 3.0 * du1[m]));
  }
  EXPECT_GT(largest, 0.0);
  // Only the rounding of u + dt f separates the two (|u| <= 1, dt = 1/64).
  EXPECT_LE(worst, 64.0 * 4.0 * 2.2e-16) << "largest increment " << largest;
}

// ---------------------------------------------------------------------------------------------
// Every force reads the state on entry

/// A swirl across a buoyancy whose increment has a curl as large as the swirl's own: buoyancy
/// (first) and confinement (after it) on a fresh case; `which` picks the forces. With `refill`
/// the ghosts are refreshed between buoyancy and confinement, i.e. the confinement sees the
/// buoyancy's increment, which Forces must not do.
enum class Pair { Both, BuoyancyOnly, ConfinementOnly, ConfinementAfterRefill };

PetscErrorCode run_pair(Case& test, const CaseSpec& spec, Pair which, OwnedVec* before) {
  PetscFunctionBeginUser;
  PetscCall(test.setup(PETSC_COMM_WORLD, spec, {"temperature"}));
  PetscCall(test.set_velocity([](int c, const double* x) {
    const double dx = x[0] - 0.7, dy = x[1] - 0.6;
    const double swirl = 2.0 * std::exp(-(dx * dx + dy * dy) / 0.08);
    return 0.1 * wave(c, x) + (c == 0 ? -swirl * dy : c == 1 ? swirl * dx : 0.0);
  }));
  PetscCall(test.set_scalar(0, [](PetscInt, PetscInt, PetscInt, const double* x) {
    return 4.0 * std::sin(3.0 * x[0]) + 0.5 * std::cos(2.0 * x[1] + x[2]);
  }));
  PetscCall(test.fill_ghosts());
  PetscCall(snapshot(test.velocity.global(), before));
  ForcesConfig buoyancy;
  buoyancy.buoyancy.enabled = true;
  buoyancy.buoyancy.density_scalar = "";
  buoyancy.buoyancy.beta = 1.0;
  buoyancy.buoyancy.up = {0.0, 1.0, 0.0};
  ForcesConfig confinement;
  confinement.vorticity_confinement = 0.8;
  ForcesConfig both = buoyancy;
  both.vorticity_confinement = confinement.vorticity_confinement;
  const double dt = 0.25;
  Forces forces;
  switch (which) {
    case Pair::Both:
      PetscCall(forces.setup(test.grid, both, test.solids, test.scalar_configs));
      break;
    case Pair::BuoyancyOnly:
    case Pair::ConfinementAfterRefill:
      PetscCall(forces.setup(test.grid, buoyancy, test.solids, test.scalar_configs));
      break;
    case Pair::ConfinementOnly:
      PetscCall(forces.setup(test.grid, confinement, test.solids, test.scalar_configs));
      break;
  }
  PetscCall(forces.apply(test.velocity, test.scalars, dt, 0.0));
  if (which == Pair::ConfinementAfterRefill) {
    PetscCall(test.fill_ghosts());
    Forces second;
    PetscCall(second.setup(test.grid, confinement, test.solids, test.scalar_configs));
    PetscCall(second.apply(test.velocity, test.scalars, dt, 0.0));
  }
  PetscFunctionReturn(0);
}

/// Forces write the increments into the global velocity while the confinement reads the ghosted
/// local one: the result must be u + dt f_buoyancy + dt f_confinement with both forces evaluated
/// from u, i.e. the two single-force increments added (to rounding), and far from what a
/// confinement that saw the buoyancy's increment gives.
void check_state_on_entry(const CaseSpec& spec) {
  Case both, buoyancy, confinement, refilled;
  OwnedVec u0, unused;
  ASSERT_EQ(run_pair(both, spec, Pair::Both, &u0), 0);
  ASSERT_EQ(run_pair(buoyancy, spec, Pair::BuoyancyOnly, &unused), 0);
  ASSERT_EQ(run_pair(confinement, spec, Pair::ConfinementOnly, &unused), 0);
  ASSERT_EQ(run_pair(refilled, spec, Pair::ConfinementAfterRefill, &unused), 0);
  const Grid& grid = both.grid;
  const PetscScalar *r0, *ra, *rb, *rc, *rd;
  ArrayView v0, va, vb, vc, vd;
  ASSERT_EQ(VecGetArrayRead(u0, &r0), 0);
  ASSERT_EQ(VecGetArrayRead(both.velocity.global(), &ra), 0);
  ASSERT_EQ(VecGetArrayRead(buoyancy.velocity.global(), &rb), 0);
  ASSERT_EQ(VecGetArrayRead(confinement.velocity.global(), &rc), 0);
  ASSERT_EQ(VecGetArrayRead(refilled.velocity.global(), &rd), 0);
  ASSERT_EQ(grid.global_view(grid.face_dm(), const_cast<PetscScalar*>(r0), &v0), 0);
  ASSERT_EQ(grid.global_view(grid.face_dm(), const_cast<PetscScalar*>(ra), &va), 0);
  ASSERT_EQ(grid.global_view(grid.face_dm(), const_cast<PetscScalar*>(rb), &vb), 0);
  ASSERT_EQ(grid.global_view(grid.face_dm(), const_cast<PetscScalar*>(rc), &vc), 0);
  ASSERT_EQ(grid.global_view(grid.face_dm(), const_cast<PetscScalar*>(rd), &vd), 0);
  Tally tally;
  double worst[2] = {0.0, 0.0};  // the largest tolerance, the largest |refilled - both|
  long confined = 0;
  for (int c = 0; c < grid.dim(); ++c) {
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      const double u = v0(i, j, k, c), a = va(i, j, k, c);
      if (both.solids.fixed_face(c, i, j, k)) {
        expect_bits(&tally, c, i, j, k, a, u);
        return;
      }
      const double db = vb(i, j, k, c) - u, dc = vc(i, j, k, c) - u;
      if (dc != 0.0) ++confined;
      // Four roundings of values no larger than these: u + db, (u + db) + dc and the two
      // differences above.
      const double scale = std::abs(u) + std::abs(db) + std::abs(dc) + std::abs(a);
      const double tolerance = 4.0 * 2.2e-16 * scale;
      const double error = std::abs(a - (u + db + dc));
      if (error > tolerance) tally.fail(where(c, i, j, k, a, u + db + dc));
      worst[0] = std::max(worst[0], tolerance);
      worst[1] = std::max(worst[1], std::abs(vd(i, j, k, c) - a));
    });
  }
  ASSERT_EQ(VecRestoreArrayRead(u0, &r0), 0);
  ASSERT_EQ(VecRestoreArrayRead(both.velocity.global(), &ra), 0);
  ASSERT_EQ(VecRestoreArrayRead(buoyancy.velocity.global(), &rb), 0);
  ASSERT_EQ(VecRestoreArrayRead(confinement.velocity.global(), &rc), 0);
  ASSERT_EQ(VecRestoreArrayRead(refilled.velocity.global(), &rd), 0);
  expect_no_failures(tally, "buoyancy and confinement from the state on entry");
  double largest[2];
  MPI_Allreduce(worst, largest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_GT(test::global_sum(confined), 0);
  // The check can tell: a confinement that saw the buoyancy's increment is off by far more.
  EXPECT_GT(largest[1], 1e6 * largest[0]) << "largest |refilled - both|; largest tolerance "
                                           << largest[0];
}

TEST(Forces, EveryForceReadsTheStateOnEntry2D) { check_state_on_entry(plane()); }
TEST(Forces, EveryForceReadsTheStateOnEntry3D) { check_state_on_entry(box()); }

// ---------------------------------------------------------------------------------------------
// Wind and force regions

TEST(Wind, RelaxesFacesInsideItsRegionByExactlyRateDt) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, plane(), {}), 0);
  ASSERT_EQ(test.set_velocity(wave), 0);
  ForcesConfig config;
  config.wind.enabled = true;
  config.wind.velocity = {3.0, -1.0, 0.0};
  config.wind.rate = 2.0;
  config.wind.has_region = true;
  config.wind.region.shape = Region::Shape::Box;
  config.wind.region.lower = {0.4, 0.3, 0.0};
  config.wind.region.upper = {1.6, 1.1, 0.0};  // overlaps the obstacle
  const double dt = 0.125, r = 0.25;
  long inside = 0;
  run_forces(
      test, config, dt, "wind in a region",
      [&](int c, PetscInt i, PetscInt j, PetscInt k, double before, double after, Tally* tally) {
        const auto x = face_center(test.grid, c, i, j, k);
        if (test.solids.fixed_face(c, i, j, k) ||
            !region_contains(config.wind.region, x.data(), 2)) {
          expect_bits(tally, c, i, j, k, after, before);
          return;
        }
        ++inside;
        expect_bits(tally, c, i, j, k, after, (1.0 - r) * before + r * config.wind.velocity[c]);
      });
  EXPECT_GT(test::global_sum(inside), 0);
}

TEST(Wind, RateTimesDtIsClampedToOne) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, box(), {}), 0);
  ASSERT_EQ(test.set_velocity(wave), 0);
  ForcesConfig config;
  config.wind.enabled = true;
  config.wind.velocity = {0.75, -0.5, 0.25};
  config.wind.rate = 16.0;
  run_forces(
      test, config, 0.125, "wind everywhere, rate dt = 2",
      [&](int c, PetscInt i, PetscInt j, PetscInt k, double before, double after, Tally* tally) {
        expect_bits(tally, c, i, j, k, after,
                    test.solids.fixed_face(c, i, j, k) ? before : config.wind.velocity[c]);
      });
}

void check_force_regions(const CaseSpec& spec) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {}), 0);
  ASSERT_EQ(test.set_velocity(wave), 0);
  ForcesConfig config;
  ForceRegion block, ball;
  block.region.shape = Region::Shape::Box;
  block.region.lower = {0.3, 0.2, 0.2};
  block.region.upper = {0.8, 0.9, 0.8};  // overlaps the obstacle in both cases
  block.acceleration = {1.5, -2.0, 0.5};
  ball.region.shape = Region::Shape::Sphere;
  ball.region.center = {1.0, 0.25, 0.5};
  ball.region.radius = 0.15;
  ball.acceleration = {-0.25, 4.0, -1.0};
  config.regions = {block, ball};
  const double dt = 0.125;
  std::array<long, 2> inside{0, 0};
  long solid_inside = 0;
  run_forces(
      test, config, dt, "force regions",
      [&](int c, PetscInt i, PetscInt j, PetscInt k, double before, double after, Tally* tally) {
        const auto x = face_center(test.grid, c, i, j, k);
        double want = before;
        for (size_t n = 0; n < 2; ++n) {
          if (!region_contains(config.regions[n].region, x.data(), spec.dim)) continue;
          if (test.solids.fixed_face(c, i, j, k)) {
            ++solid_inside;
            continue;
          }
          ++inside[n];
          want = plus(before, dt * config.regions[n].acceleration[c]);
        }
        expect_bits(tally, c, i, j, k, after, want);
      });
  EXPECT_GT(test::global_sum(inside[0]), 0);
  EXPECT_GT(test::global_sum(inside[1]), 0);
  EXPECT_GT(test::global_sum(solid_inside), 0);
}

TEST(ForceRegions, AccelerateOnlyFreeFacesInside2D) { check_force_regions(plane()); }
TEST(ForceRegions, AccelerateOnlyFreeFacesInside3D) { check_force_regions(box()); }

// ---------------------------------------------------------------------------------------------
// Sources and dissipation

/// Source 1 sets 2.5 in a box that overlaps the obstacle and blows with a velocity there;
/// source 2 adds at rate 4 in a disjoint sphere; source 3 adds at rate 2 and blows in a
/// cylinder (along y in 3D, unbounded along it; a disc in 2D), disjoint from both. Every cell
/// and face is checked against region_contains, so a source that skipped part of its region
/// (sources visit only the region's bounding box) would fail.
void check_sources(const CaseSpec& spec) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {"smoke"}), 0);
  ASSERT_EQ(test.set_velocity(wave), 0);
  ASSERT_EQ(test.set_scalar(0,
                            [](PetscInt, PetscInt, PetscInt, const double* x) {
                              return std::cos(3.0 * x[0]) * std::sin(2.0 * x[1] + x[2]);
                            }),
            0);
  ScalarConfig& config = test.scalar_configs[0];
  ScalarSource set, add;
  set.region.shape = Region::Shape::Box;
  set.region.lower = {0.3, 0.2, 0.2};
  set.region.upper = {0.95, 0.9, 0.8};
  set.mode = ScalarSource::Mode::Set;
  set.value = 2.5;
  set.has_velocity = true;
  set.velocity = {0.25, 1.5, -0.5};
  add.region.shape = Region::Shape::Sphere;
  add.region.center = {1.1, 0.3, 0.5};
  add.region.radius = 0.12;
  add.mode = ScalarSource::Mode::Add;
  add.value = 4.0;
  ScalarSource blow;
  blow.region.shape = Region::Shape::Cylinder;
  blow.region.axis = spec.dim == 3 ? 1 : 2;
  blow.region.center = {0.15, 0.4, 0.5};
  blow.region.radius = 0.12;
  blow.mode = ScalarSource::Mode::Add;
  blow.value = 2.0;
  blow.has_velocity = true;
  blow.velocity = {-0.75, 0.5, 0.25};
  config.sources = {set, add, blow};
  const double dt = 0.125;
  Field& smoke = test.scalars[0];
  OwnedVec scalar_before, velocity_before;
  ASSERT_EQ(snapshot(smoke.global(), &scalar_before), 0);
  ASSERT_EQ(snapshot(test.velocity.global(), &velocity_before), 0);
  ASSERT_EQ(apply_sources(config, smoke, test.velocity, test.solids, dt, 0.0), 0);

  const Grid& grid = test.grid;
  long set_cells = 0, added_cells = 0, solid_cells = 0, blown = 0, cylinder_cells = 0,
       cylinder_faces = 0;
  const Tally cells = check_cells(
      grid, scalar_before, smoke.global(),
      [&](PetscInt i, PetscInt j, PetscInt k, double before, double after, Tally* tally) {
        const double x[3] = {grid.cell_center(0, i), grid.cell_center(1, j),
                             grid.cell_center(2, k)};
        double want = before;
        if (test.solids.solid(i, j, k)) {
          if (region_contains(set.region, x, spec.dim)) ++solid_cells;
        } else if (region_contains(set.region, x, spec.dim)) {
          ++set_cells;
          want = 2.5;
        } else if (region_contains(add.region, x, spec.dim)) {
          ++added_cells;
          want = before + 0.5;
        } else if (region_contains(blow.region, x, spec.dim)) {
          ++cylinder_cells;
          want = before + 0.25;
        }
        expect_bits(tally, 0, i, j, k, after, want);
      });
  expect_no_failures(cells, "scalar sources");
  const Tally faces = check_faces(
      grid, velocity_before, test.velocity.global(),
      [&](int c, PetscInt i, PetscInt j, PetscInt k, double before, double after, Tally* tally) {
        const auto x = face_center(grid, c, i, j, k);
        double want = before;
        if (!test.solids.fixed_face(c, i, j, k)) {
          if (region_contains(set.region, x.data(), spec.dim)) {
            ++blown;
            want = set.velocity[c];
          } else if (region_contains(blow.region, x.data(), spec.dim)) {
            ++cylinder_faces;
            want = blow.velocity[c];
          }
        }
        expect_bits(tally, c, i, j, k, after, want);
      });
  expect_no_failures(faces, "velocity sources");
  EXPECT_GT(test::global_sum(set_cells), 0);
  EXPECT_GT(test::global_sum(added_cells), 0);
  EXPECT_GT(test::global_sum(solid_cells), 0);
  EXPECT_GT(test::global_sum(blown), 0);
  EXPECT_GT(test::global_sum(cylinder_cells), 0);
  EXPECT_GT(test::global_sum(cylinder_faces), 0);
}

TEST(Sources, SetAddAndBlowInsideTheirRegions2D) { check_sources(plane()); }
TEST(Sources, SetAddAndBlowInsideTheirRegions3D) { check_sources(box()); }

void check_dissipation(const CaseSpec& spec) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {"smoke"}), 0);
  ASSERT_EQ(test.set_scalar(0,
                            [](PetscInt, PetscInt, PetscInt, const double* x) {
                              return 1.0 + std::sin(5.0 * x[0] + 3.0 * x[1] - x[2]);
                            }),
            0);
  Field& smoke = test.scalars[0];
  OwnedVec before;
  ASSERT_EQ(snapshot(smoke.global(), &before), 0);
  ASSERT_EQ(dissipate(smoke, 0.0, 0.125), 0);
  expect_no_failures(check_cells(test.grid, before, smoke.global(),
                                 [](PetscInt i, PetscInt j, PetscInt k, double was, double now,
                                    Tally* tally) { expect_bits(tally, 0, i, j, k, now, was); }),
                     "dissipation at rate 0");
  const double rate = 0.3, dt = 0.125;
  ASSERT_EQ(dissipate(smoke, rate, dt), 0);
  expect_no_failures(
      check_cells(test.grid, before, smoke.global(),
                  [&](PetscInt i, PetscInt j, PetscInt k, double was, double now, Tally* tally) {
                    expect_bits(tally, 0, i, j, k, now, was / (1.0 + dt * rate));
                  }),
      "dissipation");
}

TEST(Dissipation, DividesByExactlyOnePlusDtRate2D) { check_dissipation(plane()); }
TEST(Dissipation, DividesByExactlyOnePlusDtRate3D) { check_dissipation(box()); }

// ---------------------------------------------------------------------------------------------
// Time profiles (scripted sources and forces) and density-weighted noise

/// Active in [0.5, 2); the factor runs 0 -> 2 and the offset 0 -> (0.4, 0.2, 0) between t = 1 and
/// t = 2, held at 0 and no offset before t = 1.
TimeProfile scripted() {
  TimeProfile when;
  when.start = 0.5;
  when.end = 2.0;
  TimeProfile::Keyframe a, b;
  a.time = 1.0;
  a.factor = 0.0;
  b.time = 2.0;
  b.factor = 2.0;
  b.offset = {0.4, 0.2, 0.0};
  when.keyframes = {a, b};
  return when;
}

TEST(TimeProfile, SwitchesScalesAndMovesAsItsKeyframesSay) {
  const TimeProfile when = scripted();
  EXPECT_FALSE(when.active(0.4999));
  EXPECT_TRUE(when.active(0.5));
  EXPECT_TRUE(when.active(1.9999));
  EXPECT_FALSE(when.active(2.0));  // [start, end): a step that begins at end does not act
  EXPECT_EQ(when.factor(0.5), 0.0);  // held before the first keyframe
  EXPECT_EQ(when.factor(1.25), 0.5);
  EXPECT_EQ(when.factor(1.5), 1.0);
  EXPECT_EQ(when.factor(3.0), 2.0);  // held after the last
  Region box;
  box.lower = {0.0, 0.0, 0.0};
  box.upper = {0.5, 0.5, 0.5};
  const Region moved = when.place(box, 1.5);
  EXPECT_DOUBLE_EQ(moved.lower[0], 0.2);
  EXPECT_DOUBLE_EQ(moved.lower[1], 0.1);
  EXPECT_DOUBLE_EQ(moved.upper[0], 0.7);
  EXPECT_EQ(when.place(box, 0.7).lower, box.lower);
  const TimeProfile always;
  EXPECT_TRUE(always.active(0.0));  // runs start at t = 0
  EXPECT_TRUE(always.active(1e300));
  EXPECT_EQ(always.factor(12.0), 1.0);
}

/// A scripted force region: no change before it starts and from its end on; at t = 1.5 it pushes
/// with its factor there, 1, inside its region moved by (0.2, 0.1, 0).
void check_scripted_force_region(const CaseSpec& spec) {
  ForcesConfig config;
  ForceRegion push;
  push.region.shape = Region::Shape::Box;
  push.region.lower = {0.1, 0.1, 0.1};
  push.region.upper = {0.6, 0.5, 0.6};
  push.acceleration = {1.5, -2.0, 0.75};
  push.when = scripted();
  config.regions = {push};
  const double dt = 0.125;
  for (const double time : {0.25, 1.5, 2.0}) {
    SCOPED_TRACE("t = " + std::to_string(time));
    Case test;
    ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {}), 0);
    ASSERT_EQ(test.set_velocity(wave), 0);
    Forces forces;
    ASSERT_EQ(forces.setup(test.grid, config, test.solids, test.scalar_configs), 0);
    ASSERT_EQ(test.fill_ghosts(), 0);
    OwnedVec before;
    ASSERT_EQ(snapshot(test.velocity.global(), &before), 0);
    ASSERT_EQ(forces.apply(test.velocity, test.scalars, dt, time), 0);
    const Region moved = push.when.place(push.region, time);
    long pushed = 0;
    expect_no_failures(
        check_faces(test.grid, before, test.velocity.global(),
                    [&](int c, PetscInt i, PetscInt j, PetscInt k, double was, double now,
                        Tally* tally) {
                      const auto x = face_center(test.grid, c, i, j, k);
                      double want = was;
                      if (time == 1.5 && !test.solids.fixed_face(c, i, j, k) &&
                          region_contains(moved, x.data(), spec.dim)) {
                        ++pushed;
                        want = plus(was, dt * push.acceleration[c]);
                      }
                      expect_bits(tally, c, i, j, k, now, want);
                    }),
        "scripted force region");
    if (time == 1.5) {
      EXPECT_GT(test::global_sum(pushed), 0);
    }
  }
}

TEST(ForceRegions, ActOnlyWhileScriptedScaledAndMoved2D) { check_scripted_force_region(plane()); }
TEST(ForceRegions, ActOnlyWhileScriptedScaledAndMoved3D) { check_scripted_force_region(box()); }

/// A scripted source that adds and blows: nothing before its start; at t = 1.25 (factor 0.5) half
/// its rate and half its velocity, in its region moved by (0.1, 0.05, 0).
void check_scripted_source(const CaseSpec& spec) {
  ScalarSource puff;
  puff.region.shape = Region::Shape::Sphere;
  puff.region.center = {0.25, 0.3, 0.4};
  puff.region.radius = 0.2;
  puff.mode = ScalarSource::Mode::Add;
  puff.value = 4.0;
  puff.has_velocity = true;
  puff.velocity = {1.0, -0.5, 0.25};
  puff.when = scripted();
  const double dt = 0.125;
  for (const double time : {0.0, 1.25}) {
    SCOPED_TRACE("t = " + std::to_string(time));
    Case test;
    ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {"smoke"}), 0);
    ASSERT_EQ(test.set_velocity(wave), 0);
    test.scalar_configs[0].sources = {puff};
    OwnedVec scalar_before, velocity_before;
    ASSERT_EQ(snapshot(test.scalars[0].global(), &scalar_before), 0);
    ASSERT_EQ(snapshot(test.velocity.global(), &velocity_before), 0);
    ASSERT_EQ(apply_sources(test.scalar_configs[0], test.scalars[0], test.velocity, test.solids,
                            dt, time),
              0);
    const bool acts = time == 1.25;
    const Region moved = puff.when.place(puff.region, time);
    long cells_inside = 0, faces_inside = 0;
    const Grid& grid = test.grid;
    expect_no_failures(
        check_cells(grid, scalar_before, test.scalars[0].global(),
                    [&](PetscInt i, PetscInt j, PetscInt k, double was, double now, Tally* tally) {
                      const double x[3] = {grid.cell_center(0, i), grid.cell_center(1, j),
                                           grid.cell_center(2, k)};
                      double want = was;
                      if (acts && !test.solids.solid(i, j, k) &&
                          region_contains(moved, x, spec.dim)) {
                        ++cells_inside;
                        want = was + 0.5 * puff.value * dt;
                      }
                      expect_bits(tally, 0, i, j, k, now, want);
                    }),
        "scripted scalar source");
    expect_no_failures(
        check_faces(grid, velocity_before, test.velocity.global(),
                    [&](int c, PetscInt i, PetscInt j, PetscInt k, double was, double now,
                        Tally* tally) {
                      const auto x = face_center(grid, c, i, j, k);
                      double want = was;
                      if (acts && !test.solids.fixed_face(c, i, j, k) &&
                          region_contains(moved, x.data(), spec.dim)) {
                        ++faces_inside;
                        want = 0.5 * puff.velocity[c];
                      }
                      expect_bits(tally, c, i, j, k, now, want);
                    }),
        "scripted velocity source");
    if (acts) {
      EXPECT_GT(test::global_sum(cells_inside), 0);
      EXPECT_GT(test::global_sum(faces_inside), 0);
    }
  }
}

TEST(Sources, ActOnlyWhileScriptedScaledAndMoved2D) { check_scripted_source(plane()); }
TEST(Sources, ActOnlyWhileScriptedScaledAndMoved3D) { check_scripted_source(box()); }

NoiseConfig noise_config() {
  NoiseConfig noise;
  noise.enabled = true;
  noise.scalar = "density";
  noise.amplitude = 3.0;
  noise.scale = 0.3;
  noise.period = 0.7;
  noise.seed = 12345;
  return noise;
}

/// The noise on every free face is amplitude * (mean of the face's two cells of the scalar) *
/// n_c(x, t), with n_c as DensityNoise::noise() computes it from the hashes, to the bit; a face
/// between two cells without density keeps its bits.
void check_density_noise(const CaseSpec& spec) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_WORLD, spec, {"temperature", "density"}), 0);
  ASSERT_EQ(test.set_velocity(wave), 0);
  // Density in the lower left only: the rest of the domain has none.
  ASSERT_EQ(test.set_scalar(1,
                            [](PetscInt, PetscInt, PetscInt, const double* x) {
                              return std::max(0.0, 0.8 - x[0] - x[1]);
                            }),
            0);
  ForcesConfig config;
  config.noise = noise_config();
  DensityNoise reference;
  ASSERT_EQ(reference.setup(test.grid, config.noise, test.scalar_configs), 0);
  const double dt = 0.125, time = 1.9;
  Forces forces;
  ASSERT_EQ(forces.setup(test.grid, config, test.solids, test.scalar_configs), 0);
  ASSERT_EQ(test.fill_ghosts(), 0);
  OwnedVec before;
  ASSERT_EQ(snapshot(test.velocity.global(), &before), 0);
  ASSERT_EQ(forces.apply(test.velocity, test.scalars, dt, time), 0);
  const Field& density = test.scalars[1];
  const PetscScalar* d_data;
  ArrayView d;
  ASSERT_EQ(VecGetArrayRead(density.local(), &d_data), 0);
  ASSERT_EQ(test.grid.local_view(density.dm(), const_cast<PetscScalar*>(d_data), &d), 0);
  long pushed = 0, still = 0;
  expect_no_failures(
      check_faces(test.grid, before, test.velocity.global(),
                  [&](int c, PetscInt i, PetscInt j, PetscInt k, double was, double now,
                      Tally* tally) {
                    double want = was;
                    if (!test.solids.fixed_face(c, i, j, k)) {
                      const double amount =
                          0.5 * (d(i - (c == 0), j - (c == 1), k - (c == 2)) + d(i, j, k));
                      const auto x = face_center(test.grid, c, i, j, k);
                      const double n = reference.noise(c, x.data(), time);
                      if (std::abs(n) > 1.0) tally->fail("noise outside [-1, 1]");
                      if (amount == 0.0) {
                        ++still;
                      } else {
                        ++pushed;
                        want = plus(was, dt * (config.noise.amplitude * amount * n));
                      }
                    }
                    expect_bits(tally, c, i, j, k, now, want);
                  }),
      "density noise");
  ASSERT_EQ(VecRestoreArrayRead(density.local(), &d_data), 0);
  EXPECT_GT(test::global_sum(pushed), 0);
  EXPECT_GT(test::global_sum(still), 0);
}

TEST(DensityNoise, IsAmplitudeTimesDensityTimesTheNoiseField2D) { check_density_noise(plane()); }
TEST(DensityNoise, IsAmplitudeTimesDensityTimesTheNoiseField3D) { check_density_noise(box()); }

/// The noise field itself: in [-1, 1], mean near 0 and a spread near that of value noise over
/// many lattice cells, continuous in time and space (a change of 1e-6 of the lattice spacing moves
/// it by at most ~1e-6 times the fade's slope), the same for a given seed and different for
/// another. Deterministic: fixed points, fixed seeds.
TEST(DensityNoise, IsASmoothZeroMeanFieldSetByItsSeed) {
  Case test;
  ASSERT_EQ(test.setup(PETSC_COMM_SELF, box(), {"density"}), 0);
  const NoiseConfig config = noise_config();
  DensityNoise noise, same, other;
  ASSERT_EQ(noise.setup(test.grid, config, test.scalar_configs), 0);
  ASSERT_EQ(same.setup(test.grid, config, test.scalar_configs), 0);
  NoiseConfig reseeded = config;
  reseeded.seed = 54321;
  ASSERT_EQ(other.setup(test.grid, reseeded, test.scalar_configs), 0);
  double sum = 0.0, squares = 0.0, largest_jump = 0.0;
  long differ = 0, samples = 0;
  for (int a = 0; a < 40; ++a)
    for (int b = 0; b < 40; ++b)
      for (int c = 0; c < 3; ++c) {
        // Points scattered over 40 x 40 lattice cells, at irrational fractions of a cell.
        const double x[3] = {0.3 * (a + 0.41421356), 0.3 * (b + 0.73205081), 0.3 * (a - b) * 0.5};
        const double t = 0.7 * (0.1 * a + 0.2360679);
        const double n = noise.noise(c, x, t);
        ASSERT_LE(std::abs(n), 1.0);
        sum += n;
        squares += n * n;
        ++samples;
        EXPECT_EQ(n, same.noise(c, x, t));
        if (n != other.noise(c, x, t)) ++differ;
        const double dx[3] = {x[0] + 0.3e-6, x[1], x[2]};
        largest_jump = std::max({largest_jump, std::abs(noise.noise(c, x, t + 0.7e-6) - n),
                                 std::abs(noise.noise(c, dx, t) - n)});
      }
  const double mean = sum / samples, spread = std::sqrt(squares / samples - mean * mean);
  EXPECT_LT(std::abs(mean), 0.03) << "over " << samples << " samples";
  // Uniform draws on [-1, 1] have a spread of 1/sqrt(3) = 0.577; blending neighbours narrows it.
  EXPECT_GT(spread, 0.2);
  EXPECT_LT(spread, 0.577);
  // The fade's slope is at most 1.5 per lattice unit, the draws differ by at most 2: 3 per unit,
  // for each of the four coordinates at once at worst.
  EXPECT_LT(largest_jump, 4.0 * 3.0 * 1e-6);
  EXPECT_GT(differ, samples * 9 / 10);
}

// ---------------------------------------------------------------------------------------------
// Decomposition invariance

/// Every force at once (noise and a scripted force region among them), with non-uniform scalars
/// and a velocity that has vorticity in every component, followed by the sources (one scripted)
/// and dissipation, at a time inside the scripts' keyframes.
PetscErrorCode run_everything(Case& test, MPI_Comm comm, const CaseSpec& spec,
                              std::array<PetscInt, 3> processes) {
  PetscFunctionBeginUser;
  PetscCall(test.setup(comm, spec, {"temperature", "density"}, processes));
  PetscCall(test.set_velocity([](int c, const double* x) {
    const double dx = x[0] - 0.7, dy = x[1] - 0.6;
    const double swirl = 2.0 * std::exp(-(dx * dx + dy * dy) / 0.08);
    return wave(c, x) + (c == 0 ? -swirl * dy : c == 1 ? swirl * dx : 0.0);
  }));
  PetscCall(test.set_scalar(0, [](PetscInt, PetscInt, PetscInt, const double* x) {
    return 1.0 + std::exp(-4.0 * (x[0] - 0.6) * (x[0] - 0.6)) * std::cos(x[1] + 2.0 * x[2]);
  }));
  PetscCall(test.set_scalar(1, [](PetscInt, PetscInt, PetscInt, const double* x) {
    return 0.5 + 0.4 * std::sin(3.0 * x[0] * x[1] + x[2]);
  }));
  PetscCall(test.fill_ghosts());

  ForcesConfig config;
  config.gravity = {0.0, -0.5, spec.dim == 3 ? 0.1 : 0.0};
  config.buoyancy.enabled = true;
  config.buoyancy.alpha = 0.3;
  config.buoyancy.beta = 0.7;
  config.buoyancy.ambient_temperature = 0.2;
  const double norm = std::sqrt(0.01 + 0.81 + 0.04);
  config.buoyancy.up = {0.1 / norm, 0.9 / norm, spec.dim == 3 ? 0.2 / norm : 0.0};
  config.vorticity_confinement = 0.3;
  config.wind.enabled = true;
  config.wind.velocity = {0.4, 0.1, -0.2};
  config.wind.rate = 1.5;
  config.wind.has_region = true;
  config.wind.region.shape = Region::Shape::Sphere;
  config.wind.region.center = {0.3, 0.9, 0.5};
  config.wind.region.radius = 0.35;
  ForceRegion push;
  push.region.shape = Region::Shape::Box;
  push.region.lower = {0.5, 0.1, 0.1};
  push.region.upper = {1.2, 0.6, 0.6};
  push.acceleration = {0.7, 0.3, -0.4};
  ForceRegion scripted_push = push;
  scripted_push.when = scripted();
  config.regions = {push, scripted_push};
  config.noise = noise_config();
  const double dt = 0.05, time = 1.3;

  ScalarSource source;
  source.region.shape = Region::Shape::Box;
  source.region.lower = {0.2, 0.1, 0.2};
  source.region.upper = {0.7, 0.5, 0.7};
  source.mode = ScalarSource::Mode::Add;
  source.value = 1.25;
  source.has_velocity = true;
  source.velocity = {0.0, 0.6, 0.1};
  ScalarSource scripted_source = source;
  scripted_source.region.lower = {0.6, 0.5, 0.1};
  scripted_source.region.upper = {1.0, 0.9, 0.5};
  scripted_source.when = scripted();
  test.scalar_configs[0].sources = {source, scripted_source};

  Forces forces;
  PetscCall(forces.setup(test.grid, config, test.solids, test.scalar_configs));
  PetscCall(apply_sources(test.scalar_configs[0], test.scalars[0], test.velocity, test.solids, dt,
                          time));
  PetscCall(forces.apply(test.velocity, test.scalars, dt, time));
  PetscCall(dissipate(test.scalars[1], 0.7, dt));
  PetscFunctionReturn(0);
}

/// Counts owned values of `field` (on the distributed grid) whose bits differ from `reference`
/// (the same field on PETSC_COMM_SELF).
long count_differences(const Field& field, const Field& reference, std::string* first) {
  const Grid& grid = field.grid();
  const Grid& whole = reference.grid();
  const PetscScalar *d_data, *r_data;
  ArrayView d, r;
  long wrong = 0;
  EXPECT_EQ(VecGetArrayRead(field.global(), &d_data), 0);
  EXPECT_EQ(VecGetArrayRead(reference.global(), &r_data), 0);
  EXPECT_EQ(grid.global_view(field.dm(), const_cast<PetscScalar*>(d_data), &d), 0);
  EXPECT_EQ(whole.global_view(reference.dm(), const_cast<PetscScalar*>(r_data), &r), 0);
  for (int c = 0; c < field.components(); ++c) {
    const IndexBox box = field.stagger(c) >= 0 ? grid.owned_faces(c) : grid.owned_cells();
    for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
      if (same_bits(d(i, j, k, c), r(i, j, k, c))) return;
      if (wrong++ == 0)
        *first = field.name() + " " + where(c, i, j, k, d(i, j, k, c), r(i, j, k, c));
    });
  }
  EXPECT_EQ(VecRestoreArrayRead(field.global(), &d_data), 0);
  EXPECT_EQ(VecRestoreArrayRead(reference.global(), &r_data), 0);
  return wrong;
}

void check_invariance(const CaseSpec& spec) {
  Case reference;
  ASSERT_EQ(run_everything(reference, PETSC_COMM_SELF, spec, {1, 1, 1}), 0);
  const PetscInt size = test::comm_size();
  std::vector<std::pair<const char*, std::array<PetscInt, 3>>> layouts = {
      {"default", {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}},
      {"slabs along x", {size, 1, 1}},
      {"slabs along y", {1, size, 1}}};
  if (spec.dim == 3) layouts.push_back({"slabs along z", {1, 1, size}});
  for (const auto& [name, processes] : layouts) {
    SCOPED_TRACE(name);
    Case distributed;
    ASSERT_EQ(run_everything(distributed, PETSC_COMM_WORLD, spec, processes), 0);
    std::string first;
    long wrong = count_differences(distributed.velocity, reference.velocity, &first);
    for (size_t n = 0; n < distributed.scalars.size(); ++n)
      wrong += count_differences(distributed.scalars[n], reference.scalars[n], &first);
    EXPECT_EQ(test::global_sum(wrong), 0) << "rank " << test::comm_rank() << ": " << first;
  }
}

TEST(Forces, AllForcesGiveIdenticalBitsOnAnyRankCount2D) { check_invariance(plane()); }
TEST(Forces, AllForcesGiveIdenticalBitsOnAnyRankCount3D) { check_invariance(box()); }

}  // namespace
}  // namespace sf
