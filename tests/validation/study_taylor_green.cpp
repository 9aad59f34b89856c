// Convergence study of the time steps on the 2D Taylor-Green vortex (the measured tables in
// docs/validation.md "Accuracy" come from it): the max error of the face velocity against the exact
// decaying solution at t = end, for each scheme at each CFL number on a sequence of grids with
// dt proportional to h (space and time refined together; the CFL number is at most the one named,
// and the same on every grid), and the observed order between neighbours.
// With -time, also the temporal order alone: on the finest grid, dt halved from T/2 on.
//
// Usage: mpiexec -n 2 study_taylor_green [-cells 32,64,128,256] [-cfls 0.5,1,2,4,8]
//          [-schemes stam-linear,stam-cubic,bdf2-linear,bdf2-cubic] [-end 1] [-time]
#include <petscsys.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "../bench/bench_util.hpp"
#include "../support/taylor_green.hpp"

namespace {

using namespace sf;

struct Scheme {
  std::string name;
  TimeScheme time;
  Interpolation interpolation;
};

Scheme scheme_named(const std::string& name) {
  const auto dash = name.find('-');
  const std::string time = name.substr(0, dash), space = name.substr(dash + 1);
  Scheme s{name, time == "bdf2" ? TimeScheme::BDF2 : TimeScheme::Stam, Interpolation::Linear};
  if (space == "cubic") s.interpolation = Interpolation::Cubic;
  if (space == "monotone_cubic") s.interpolation = Interpolation::MonotoneCubic;
  return s;
}

/// Max error at `end` of n x n cells stepped with `steps` equal steps; the scratch directory is
/// the caller's.
PetscErrorCode taylor_green_error(const Scheme& scheme, long n, int steps, double end,
                                  const std::string& directory, double* error) {
  PetscFunctionBeginUser;
  const JobConfig job =
      test::taylor_green_job(n, end, scheme.time, scheme.interpolation, directory);
  Simulation simulation;
  PetscCall(simulation.setup(PETSC_COMM_WORLD, job));
  for (int s = 0; s < steps; ++s) {
    StepReport report;
    PetscCall(simulation.step(end / steps, &report));
  }
  PetscCall(test::taylor_green_max_error(simulation, job.fluid.viscosity, error));
  PetscFunctionReturn(0);
}

/// The comma-separated list of option `name`, or `fallback`.
PetscErrorCode option_list(const char* name, const char* fallback, std::vector<std::string>* list) {
  PetscFunctionBeginUser;
  char buffer[256];
  PetscBool set = PETSC_FALSE;
  PetscCall(PetscOptionsGetString(nullptr, nullptr, name, buffer, sizeof(buffer), &set));
  *list = bench::split(set ? buffer : fallback);
  PetscFunctionReturn(0);
}

}  // namespace

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  std::vector<std::string> cells, cfls, schemes;
  PetscCall(option_list("-cells", "32,64,128,256", &cells));
  PetscCall(option_list("-cfls", "0.5,1,2,4,8", &cfls));
  PetscCall(option_list("-schemes", "stam-linear,bdf2-linear,bdf2-cubic", &schemes));
  PetscReal end = 1.0;
  PetscBool time_only = PETSC_FALSE;
  PetscCall(PetscOptionsGetReal(nullptr, nullptr, "-end", &end, nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-time", &time_only, nullptr));
  const std::string directory = "study_taylor_green_output";

  // Each run prints its set-up line: the table is kept and printed after all of them.
  std::string table;
  auto add = [&table](const char* format, auto... values) {
    char line[256];
    std::snprintf(line, sizeof line, format, values...);
    table += line;
  };
  add("# Taylor-Green 2D, nu = 0.05, t = %g: max |u - exact| (observed order)\n",
      static_cast<double>(end));
  for (const std::string& name : schemes) {
    const Scheme scheme = scheme_named(name);
    if (time_only) {
      // Time alone: the finest grid, dt = end/steps.
      const long n = std::stol(cells.back());
      add("%-16s %ld cells, dt = end/steps:", name.c_str(), n);
      double previous = 0.0;
      for (int steps = 2; steps <= 64; steps *= 2) {
        double error = 0.0;
        PetscCall(taylor_green_error(scheme, n, steps, end, directory, &error));
        if (previous > 0.0)
          add("  %d: %.2e (%.2f)", steps, error, std::log2(previous / error));
        else
          add("  %d: %.2e", steps, error);
        previous = error;
      }
      add("\n");
      continue;
    }
    for (const std::string& cfl_text : cfls) {
      const double cfl = std::stod(cfl_text);
      add("%-16s CFL %-4g", name.c_str(), cfl);
      // The CFL number holds on the coarsest grid, and each finer grid takes as many more
      // steps as it has more cells per axis: dt halves exactly with h.
      const long n0 = std::stol(cells.front());
      const int steps0 = static_cast<int>(std::ceil(end / (cfl * 2.0 * M_PI / n0)));
      double previous = 0.0;
      for (const std::string& n_text : cells) {
        const long n = std::stol(n_text);
        const int steps = static_cast<int>(steps0 * (n / n0));
        double error = 0.0;
        PetscCall(taylor_green_error(scheme, n, steps, end, directory, &error));
        if (previous > 0.0)
          add("  %ld: %.2e (%.2f)", n, error, std::log2(previous / error));
        else
          add("  %ld: %.2e", n, error);
        previous = error;
      }
      add("\n");
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", table.c_str()));
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (rank == 0) std::filesystem::remove_all(directory);
  PetscCall(PetscFinalize());
  return 0;
}
