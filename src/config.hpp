// Job configuration: one YAML file, parsed once into the typed structs below and validated before
// any rank allocates a grid. Every error names the file, the line and the dotted key, e.g.
//   jobs/plume_3d.yaml:14: grid.cells[2]: expected a positive integer, got "-4"
// The format is documented, with a commented example, in jobs/README.md.
#pragma once

#include <mpi.h>

#include <array>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace sf {

/// Thrown for every malformed, inconsistent or unreadable job. what() is the full message,
/// starting with "<file>:<line>: <key>: " whenever a line is known.
class JobError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Boundary condition on one face of the domain (DESIGN.md "Numerics").
enum class BoundaryKind { Periodic, NoSlip, FreeSlip, Inflow, Outflow };

/// Velocity profile across an inflow face.
/// Uniform: u = velocity everywhere on the face.
/// Parabolic: u = velocity * prod over the face's non-periodic tangential axes of 4 s (1 - s),
/// s in [0, 1] the position across that axis; so `velocity` is the centre-line (peak) value.
enum class InflowProfile { Uniform, Parabolic };

struct FaceBoundary {
  BoundaryKind kind = BoundaryKind::NoSlip;
  // Inflow only: the velocity entering the domain (all dim components; the normal one must point
  // into the domain), its profile, and the values carried in by named scalars (scalars not named
  // here enter with 0).
  std::array<double, 3> velocity{0.0, 0.0, 0.0};
  InflowProfile profile = InflowProfile::Uniform;
  std::map<std::string, double> scalar_values;
};

struct GridConfig {
  int dim = 0;                                  // 2 or 3, from the length of `cells`
  std::array<long, 3> cells{1, 1, 1};           // per-axis cell counts; unused axes hold 1
  std::array<double, 3> origin{0.0, 0.0, 0.0};  // lower corner of the domain
  std::array<double, 3> size{1.0, 1.0, 1.0};    // extent of the domain per axis
  int halo = 3;                                 // ghost-cell width H of every field
};

/// A region of space used by initial conditions (and later sources, forces and obstacles).
/// Coordinates are in the job's physical units; in 2D the third entries are ignored (0).
struct Region {
  enum class Shape { Box, Sphere };
  Shape shape = Shape::Box;
  std::array<double, 3> lower{0.0, 0.0, 0.0};   // box
  std::array<double, 3> upper{0.0, 0.0, 0.0};   // box
  std::array<double, 3> center{0.0, 0.0, 0.0};  // sphere (a disc in 2D)
  double radius = 0.0;                          // sphere
};

/// Initial value of a scalar inside a region: s = value inside, background elsewhere.
/// Later regions overwrite earlier ones where they overlap.
struct ScalarBlob {
  Region region;
  double value = 0.0;
};

struct ScalarConfig {
  std::string name;            // must be a valid identifier: [A-Za-z_][A-Za-z0-9_]*
  double background = 0.0;     // initial value outside every blob
  std::vector<ScalarBlob> initial;
};

/// Analytic initial velocity, sampled exactly at every face centre.
struct VelocityInit {
  enum class Kind {
    Zero,         // u = 0
    Uniform,      // u = value
    Vortex,       // Gaussian (Lamb-Oseen-like) vortex about `center`, in the x-y plane:
                  //   u_theta(r) = strength * (r / radius) * exp(0.5 * (1 - (r/radius)^2))
                  //   (peak speed `strength` at r = radius)
    TaylorGreen,  // u = A sin(kx x) cos(ky y), v = -A cos(kx x) sin(ky y) (2D) with k = 2 pi / L,
                  // the 3D form adds cos(kz z) to both and w = 0
  };
  Kind kind = Kind::Zero;
  std::array<double, 3> value{0.0, 0.0, 0.0};   // Uniform
  std::array<double, 3> center{0.0, 0.0, 0.0};  // Vortex
  double radius = 0.0;                          // Vortex
  double strength = 0.0;                        // Vortex peak speed, TaylorGreen amplitude A
};

struct TimeConfig {
  double dt = 0.0;   // fixed time step, > 0
  double end = 0.0;  // simulated end time, > 0
};

struct OutputConfig {
  std::string directory = "output";  // created if missing (relative to the working directory)
  double interval = 0.0;             // simulated time between frames; 0 = only the initial frame
  bool initial_frame = true;         // write the state at t = start before the first step
};

struct JobConfig {
  std::string source;  // the path the job was read from (for messages)
  std::string text;    // the job file's full text, exactly as read
  std::string name;    // run name: output files are <directory>/<name>_NNNNNN.h5 and <name>.xmf
  GridConfig grid;
  // boundary[axis][side], side 0 = lower, 1 = upper; axes beyond dim hold Periodic.
  std::array<std::array<FaceBoundary, 2>, 3> boundary{};
  VelocityInit velocity;
  std::vector<ScalarConfig> scalars;  // in the order the job lists them
  TimeConfig time;
  OutputConfig output;
  std::string petsc_options;  // extra PETSc options from the job; the command line wins
};

/// Parses and validates a job from its text. `source` is used in messages only.
/// Throws JobError.
JobConfig parse_job(const std::string& text, const std::string& source);

/// Reads `path` on rank 0, broadcasts the text and parses it on every rank, so every rank
/// reaches the same verdict and none waits in a collective for a rank that failed.
/// Collective on `comm`. Throws JobError on every rank if the file is missing or malformed.
JobConfig load_job(MPI_Comm comm, const std::string& path);

/// Human-readable names, as written in job files.
const char* to_string(BoundaryKind kind);

}  // namespace sf
