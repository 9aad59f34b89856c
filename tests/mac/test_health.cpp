// NaN / Inf detection: a clean state is clean; a bad value anywhere in the state (scalar,
// velocity component, pressure) is found on every rank with its field, component, global index,
// position and value; of several bad values every rank reports the same one, the first in the
// fixed global order, whatever the rank count and layout; unused tangential slots of the face
// DM's extra layer are not state and never reported.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "field_test_util.hpp"
#include "health.hpp"
#include "mpi_test_util.hpp"
#include "test_boundaries.hpp"

namespace sf {
namespace {

using test::all;
using test::Boundaries;
using test::face;
using test::Layout;
using test::layouts;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// x: inflow / outflow, y: no-slip / free-slip (both with the face DM's extra layer),
/// z (3D): periodic.
Boundaries mixed() {
  Boundaries b = all(BoundaryKind::Periodic);
  FaceBoundary in = face(BoundaryKind::Inflow);
  in.velocity = {1.0, 0.0, 0.0};
  b[0] = {in, face(BoundaryKind::Outflow)};
  b[1] = {face(BoundaryKind::NoSlip), face(BoundaryKind::FreeSlip)};
  return b;
}

/// A grid with velocity, two scalars and a pressure vector, all smooth and finite.
struct State {
  Grid grid;
  Field velocity, density, temperature;
  OwnedVec pressure;

  PetscErrorCode setup(int dim, const std::array<PetscInt, 3>& processes) {
    PetscFunctionBeginUser;
    GridConfig config;
    config.dim = dim;
    config.cells = dim == 3 ? std::array<long, 3>{12, 10, 9} : std::array<long, 3>{14, 11, 1};
    config.origin = {-0.5, 0.25, 1.0};
    config.size = {2.0, 1.0, 0.75};
    config.halo = 2;
    PetscCall(grid.setup(PETSC_COMM_WORLD, config, mixed(), processes));
    PetscCall(velocity.setup_velocity(grid));
    PetscCall(density.setup_scalar(grid, "density"));
    PetscCall(temperature.setup_scalar(grid, "temperature"));
    PetscCall(DMCreateGlobalVector(grid.cell_dm(), pressure.replace()));
    PetscCall(reset());
    PetscFunctionReturn(0);
  }

  /// Smooth finite values everywhere the DM stores them (tangential slots of the extra layer
  /// included, as they are 0 in a real run).
  PetscErrorCode reset() {
    PetscFunctionBeginUser;
    PetscCall(fill(velocity.global(), grid.face_dm(), 0.0));
    PetscCall(fill(density.global(), grid.cell_dm(), 1.0));
    PetscCall(fill(temperature.global(), grid.cell_dm(), 2.0));
    PetscCall(fill(pressure, grid.cell_dm(), 3.0));
    PetscFunctionReturn(0);
  }

  PetscErrorCode fill(Vec vec, DM dm, double shift) {
    PetscFunctionBeginUser;
    WriteArray v;
    PetscCall(v.get_global(dm, vec));
    IndexBox box;
    for (int a = 0; a < 3; ++a) box.lo[a] = v.start[a], box.hi[a] = v.start[a] + v.width[a];
    for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
      for (PetscInt c = 0; c < v.dof; ++c)
        v(i, j, k, c) = shift + std::sin(0.3 * i + 0.2 * j) * std::cos(0.1 * k + c);
    });
    PetscFunctionReturn(0);
  }

  std::vector<const Field*> fields() const { return {&velocity, &density, &temperature}; }

  PetscErrorCode find(bool* found, BadValue* bad) const {
    return find_bad_value(grid, fields(), pressure, found, bad);
  }
};

struct Expected {
  std::string field;
  int component;
  PetscInt i, j, k;
  int stagger;  // -1: cell
  double value;
  std::string text;  // must appear in describe()
};

/// Runs the scan and counts, on this rank, every way its answer differs from `want` (or from a
/// clean result if `want` is null); returns the total over all ranks.
long count_wrong(const State& state, const Expected* want, std::string* error) {
  bool found = true;
  BadValue bad;
  if (state.find(&found, &bad) != 0) {
    *error = "find_bad_value failed";
    return test::global_sum(1);
  }
  long wrong = 0;
  std::ostringstream s;
  s << "rank " << test::comm_rank() << ": ";
  if (!want) {
    if (found) ++wrong, s << "reported " << describe(bad, state.grid.dim()) << " in a clean state";
  } else if (!found) {
    ++wrong, s << "nothing found";
  } else {
    const Grid& g = state.grid;
    const std::string text = describe(bad, g.dim());
    const PetscInt index[3] = {want->i, want->j, want->k};
    bool ok = bad.field == want->field && bad.component == want->component &&
              bad.stagger == want->stagger && bad.i == want->i && bad.j == want->j &&
              bad.k == want->k && text.find(want->text) != std::string::npos;
    ok = ok && (std::isnan(want->value) ? std::isnan(bad.value) : bad.value == want->value);
    for (int a = 0; a < 3; ++a) {
      const double x = a < g.dim() ? g.sample_position(a, index[a], want->stagger) : 0.0;
      ok = ok && std::abs(bad.x[a] - x) < 1e-12;
    }
    if (!ok) ++wrong, s << "reported \"" << text << "\", expected \"" << want->text << "\"";
  }
  if (wrong) *error = s.str();
  return test::global_sum(wrong);
}

#define EXPECT_STATE(state, want)                              \
  do {                                                         \
    std::string error_;                                        \
    EXPECT_EQ(count_wrong(state, want, &error_), 0) << error_; \
  } while (0)

/// Runs `body(state)` on every layout of the given dimension.
template <typename F>
void for_all_layouts(int dim, F&& body) {
  for (const Layout& layout : layouts(dim)) {
    SCOPED_TRACE(std::string(dim == 3 ? "3D, " : "2D, ") + layout.name);
    State state;
    ASSERT_EQ(state.setup(dim, layout.processes), 0);
    body(state);
  }
}

TEST(Health, CleanStateIsClean) {
  for (int dim : {2, 3}) for_all_layouts(dim, [](State& s) { EXPECT_STATE(s, nullptr); });
}

TEST(Health, NaNInSecondScalarIsFoundWithItsCell) {
  for_all_layouts(3, [](State& s) {
    EXPECT_EQ(test::poke(s.temperature.global(), s.grid.cell_dm(), 0, 7, 3, 5, kNaN), 1);
    const Expected want{"temperature", 0, 7, 3, 5, -1, kNaN,
                        "NaN in temperature at cell (7, 3, 5)"};
    EXPECT_STATE(s, &want);
  });
  for_all_layouts(2, [](State& s) {
    EXPECT_EQ(test::poke(s.temperature.global(), s.grid.cell_dm(), 0, 9, 2, 0, kNaN), 1);
    const Expected want{"temperature", 0, 9, 2, 0, -1, kNaN,
                        "NaN in temperature at cell (9, 2) (x ="};
    EXPECT_STATE(s, &want);
  });
}

TEST(Health, InfInVelocityAndPressure) {
  for_all_layouts(3, [](State& s) {
    // +Inf on the upper y boundary face (the face DM's extra layer) of component 1, and -Inf in
    // the pressure: velocity comes first in the order.
    EXPECT_EQ(test::poke(s.velocity.global(), s.grid.face_dm(), 1, 4, 10, 2, kInf), 1);
    EXPECT_EQ(test::poke(s.pressure, s.grid.cell_dm(), 0, 0, 9, 8, -kInf), 1);
    const Expected velocity{"velocity", 1, 4, 10, 2, 1, kInf,
                            "Inf in velocity component 1 at face (4, 10, 2)"};
    EXPECT_STATE(s, &velocity);
    // Repair the velocity: now the pressure is the only bad value.
    EXPECT_EQ(test::poke(s.velocity.global(), s.grid.face_dm(), 1, 4, 10, 2, 0.5), 1);
    const Expected pressure{"pressure", 0, 0, 9, 8, -1, -kInf,
                            "-Inf in pressure at cell (0, 9, 8)"};
    EXPECT_STATE(s, &pressure);
  });
  for_all_layouts(2, [](State& s) {
    EXPECT_EQ(test::poke(s.velocity.global(), s.grid.face_dm(), 0, 14, 5, 0, -kInf), 1);
    const Expected want{"velocity", 0, 14, 5, 0, 0, -kInf,
                        "-Inf in velocity component 0 at face (14, 5) (x ="};
    EXPECT_STATE(s, &want);
  });
}

TEST(Health, OfSeveralTheFirstInTheGlobalOrderIsReportedEverywhere) {
  for_all_layouts(3, [](State& s) {
    // Opposite corners of one field: (11, 9, 0) has the larger i and j but the smaller k, so it
    // comes first; a rank-order or (i, j, k)-lexicographic choice would pick the other one.
    EXPECT_EQ(test::poke(s.density.global(), s.grid.cell_dm(), 0, 0, 0, 8, kNaN), 1);
    EXPECT_EQ(test::poke(s.density.global(), s.grid.cell_dm(), 0, 11, 9, 0, kNaN), 1);
    const Expected corner{"density", 0, 11, 9, 0, -1, kNaN, "NaN in density at cell (11, 9, 0)"};
    EXPECT_STATE(s, &corner);
    // A later field does not win, however early its index; an earlier component does.
    EXPECT_EQ(test::poke(s.temperature.global(), s.grid.cell_dm(), 0, 0, 0, 0, kInf), 1);
    EXPECT_STATE(s, &corner);
    EXPECT_EQ(test::poke(s.velocity.global(), s.grid.face_dm(), 2, 0, 0, 0, kNaN), 1);
    EXPECT_EQ(test::poke(s.velocity.global(), s.grid.face_dm(), 0, 12, 9, 8, kInf), 1);
    const Expected face{"velocity", 0, 12, 9, 8, 0, kInf,
                        "Inf in velocity component 0 at face (12, 9, 8)"};
    EXPECT_STATE(s, &face);
  });
  for_all_layouts(2, [](State& s) {
    EXPECT_EQ(test::poke(s.density.global(), s.grid.cell_dm(), 0, 0, 10, 0, kNaN), 1);
    EXPECT_EQ(test::poke(s.density.global(), s.grid.cell_dm(), 0, 13, 0, 0, kNaN), 1);
    const Expected want{"density", 0, 13, 0, 0, -1, kNaN, "NaN in density at cell (13, 0)"};
    EXPECT_STATE(s, &want);
  });
}

TEST(Health, UnusedTangentialSlotsOfTheExtraLayerAreNotState) {
  for (int dim : {2, 3}) {
    for_all_layouts(dim, [dim](State& s) {
      const Grid& g = s.grid;
      const PetscInt nx = g.cells(0), ny = g.cells(1), k = dim == 3 ? 4 : 0;
      // Tangential components in the upper x layer and in the upper y layer.
      EXPECT_EQ(test::poke(s.velocity.global(), g.face_dm(), 1, nx, 3, k, kNaN), 1);
      EXPECT_EQ(test::poke(s.velocity.global(), g.face_dm(), 0, 5, ny, k, kNaN), 1);
      if (dim == 3) {
        EXPECT_EQ(test::poke(s.velocity.global(), g.face_dm(), 2, 5, ny, k, kInf), 1);
      }
      EXPECT_STATE(s, nullptr);
      // The normal components there are state.
      EXPECT_EQ(test::poke(s.velocity.global(), g.face_dm(), 1, 5, ny, k, kNaN), 1);
      std::ostringstream text;
      text << "NaN in velocity component 1 at face (5, " << ny << (dim == 3 ? ", 4)" : ")");
      const Expected want{"velocity", 1, 5, ny, k, 1, kNaN, text.str()};
      EXPECT_STATE(s, &want);
    });
  }
}

TEST(Health, FieldOfAnotherGridIsAnErrorOnEveryRank) {
  State a, b;
  ASSERT_EQ(a.setup(3, {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}), 0);
  ASSERT_EQ(b.setup(3, {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}), 0);
  bool found = false;
  BadValue bad;
  PetscCallVoid(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  const PetscErrorCode code =
      find_bad_value(a.grid, {&a.velocity, &b.density}, nullptr, &found, &bad);
  PetscCallVoid(PetscPopErrorHandler());
  EXPECT_EQ(code, PETSC_ERR_ARG_INCOMP);
  EXPECT_EQ(test::global_sum(code == PETSC_ERR_ARG_INCOMP ? 1 : 0), test::comm_size());
}

// The blown-up check of the time loop: with a limit, a finite value larger in magnitude is bad
// too, reported with its value; without one, the same state is clean.
TEST(Health, AValueOverTheLimitIsFoundWithItsValue) {
  for_all_layouts(3, [](State& s) {
    EXPECT_EQ(test::poke(s.velocity.global(), s.grid.face_dm(), 1, 4, 6, 2, -5e7), 1);
    EXPECT_STATE(s, nullptr);
    bool found = false;
    BadValue bad;
    ASSERT_EQ(find_bad_value(s.grid, {&s.velocity}, nullptr, &found, &bad, 1e6), 0);
    EXPECT_TRUE(found);
    const std::string text = describe(bad, 3);
    EXPECT_NE(text.find("velocity component 1 = -5e+07 at face (4, 6, 2)"), std::string::npos)
        << text;
  });
}

PetscErrorCode remember_message(MPI_Comm, int, const char*, const char*, PetscErrorCode code,
                                PetscErrorType type, const char* message, void* context) {
  auto* text = static_cast<std::string*>(context);
  if (type == PETSC_ERROR_INITIAL && message) *text = message;
  return code;
}

/// The message and code of stop_non_finite_solve on this rank; every rank must return the code.
PetscErrorCode stop_solve(const State& s, const Field& input, Vec solution, std::string* text) {
  PetscCallAbort(PETSC_COMM_WORLD, PetscPushErrorHandler(remember_message, text));
  const PetscErrorCode code = stop_non_finite_solve(s.grid, "pressure solve",
                                                    "stopped with DIVERGED_NANORINF", input,
                                                    solution);
  PetscCallAbort(PETSC_COMM_WORLD, PetscPopErrorHandler());
  EXPECT_EQ(test::global_sum(code == PETSC_ERR_FP ? 1 : 0), test::comm_size());
  return code;
}

// A solve that met NaN or Inf is the NaN/Inf stop of the field it came from: its input first,
// then its solution, and if both are finite, a statement that the values are too large.
TEST(Health, ANonFiniteSolveNamesTheFieldItCameFrom) {
  for_all_layouts(2, [](State& s) {
    std::string text;
    EXPECT_EQ(stop_solve(s, s.velocity, s.pressure, &text), PETSC_ERR_FP);
    EXPECT_NE(text.find("the pressure solve stopped with DIVERGED_NANORINF although velocity is "
                        "finite: its values are too large"),
              std::string::npos)
        << text;
    EXPECT_EQ(test::poke(s.pressure, s.grid.cell_dm(), 0, 3, 4, 0, kNaN), 1);
    EXPECT_EQ(stop_solve(s, s.velocity, s.pressure, &text), PETSC_ERR_FP);
    EXPECT_NE(text.find("NaN in the solution of the pressure solve at cell (3, 4)"),
              std::string::npos)
        << text;
    EXPECT_EQ(test::poke(s.velocity.global(), s.grid.face_dm(), 1, 2, 5, 0, kInf), 1);
    EXPECT_EQ(stop_solve(s, s.velocity, s.pressure, &text), PETSC_ERR_FP);
    EXPECT_NE(text.find("Inf in velocity component 1 at face (2, 5) (x ="), std::string::npos)
        << text;
    EXPECT_NE(text.find("(the pressure solve stopped with DIVERGED_NANORINF)"), std::string::npos)
        << text;
  });
}

}  // namespace
}  // namespace sf
