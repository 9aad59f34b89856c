// Job configuration: one YAML file, parsed once into the typed structs below and validated before
// any rank allocates a grid. Every error names the file, the line and the dotted key, e.g.
//   jobs/plume_3d.yaml:14: grid.cells[2]: expected a positive integer, got "-4"
// The format is documented, with a commented example, in jobs/README.md.
#pragma once

#include <mpi.h>
#include <petscsys.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

// The grid's vocabulary comes from the mac layer.
#include "air_pressure.hpp"
#include "boundary.hpp"
#include "grid.hpp"
#include "interpolation.hpp"
#include "keyframes.hpp"
#include "region.hpp"
#include "solids.hpp"

namespace sf {

/// Checkpoints carry the step in 8 digits, <name>_checkpoint_NNNNNNNN.h5, and io/checkpoint.cpp
/// finds only names of exactly that form again, to restart from or to prune. A run past step
/// 99999999 would write checkpoints that --restart latest ignores and `keep` never removes. (The
/// step counter itself, a 32-bit PetscInt, would last until 2147483647.) A fixed-step job that
/// needs more is refused; an adaptive run that gets there stops (Simulation::run).
constexpr long long kMaxSteps = 99999999;

/// Thrown for every malformed, inconsistent or unreadable job. what() is the full message,
/// starting with "<file>:<line>: <key>: " whenever a line is known.
class JobError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};




/// The job's grid section: the grid, and what only the parser needs about it.
struct GridSection : GridConfig {
  // Weak scaling: the job gave `cells_per_rank` instead of `cells`. parse_job() leaves the
  // per-rank block in `cells`; resolve_ranks() (load_job calls it) multiplies it by a process
  // grid from MPI_Dims_create and fixes `processes`, so every rank owns exactly that block.
  bool cells_per_rank = false;
  // Lines of the job file that gave `cells` (or `cells_per_rank`) and `origin`, 0 where not
  // given: for the errors found only once the rank count is known (resolve_ranks()).
  int cells_line = 0;
  int origin_line = 0;
};

/// Initial value of a scalar inside a region: s = value inside, background elsewhere.
/// Later regions overwrite earlier ones where they overlap.
struct ScalarBlob {
  Region region;
  double value = 0.0;
};

/// When a scalar source or a force region acts and how strongly: the interaction a user scripts
/// in the job instead of painting it with a mouse (Stam 2000). It acts in the steps that begin at
/// a time in [start, end); `keyframes` (none, or at least two by increasing time) scale its
/// strength by `factor` and move its region by `offset`, linear between them and held before the
/// first and after the last, as every keyed quantity is (keyframes.hpp). Evaluated at the time
/// the step begins, when sources and forces act.
struct TimeProfile {
  double start = 0.0;
  double end = std::numeric_limits<double>::infinity();
  struct Keyframe {
    double time = 0.0;
    double factor = 1.0;
    std::array<double, 3> offset{0.0, 0.0, 0.0};
  };
  std::vector<Keyframe> keyframes;

  bool active(double time) const { return time >= start && time < end; }
  /// The factor on the strength at `time`: 1 without keyframes.
  double factor(double time) const {
    if (keyframes.empty()) return 1.0;
    const KeyframeSpot spot = locate_keyframe(keyframes, time);
    const double a = keyframes[spot.n].factor;
    return spot.held ? a : a + spot.s * (keyframes[spot.n + 1].factor - a);
  }
  /// `region` where the keyframes have moved it at `time`.
  Region place(const Region& region, double time) const {
    if (keyframes.empty()) return region;
    const KeyframeSpot spot = locate_keyframe(keyframes, time);
    std::array<double, 3> offset = keyframes[spot.n].offset;
    if (!spot.held)
      for (int c = 0; c < 3; ++c)
        offset[c] += spot.s * (keyframes[spot.n + 1].offset[c] - offset[c]);
    return translated(region, offset);
  }
};

/// A scalar source, applied at the start of every step to the cells whose centre lies inside
/// the region: Set: s = value; Add: s += value * dt (value is a rate). With `has_velocity`, the
/// faces whose centre lies inside the region are also set to `velocity` (an emitter that blows).
/// `when` turns it on and off, scales value and velocity and moves the region.
struct ScalarSource {
  enum class Mode { Set, Add };
  Region region;
  Mode mode = Mode::Set;
  double value = 0.0;
  bool has_velocity = false;
  std::array<double, 3> velocity{0.0, 0.0, 0.0};
  TimeProfile when;
};

struct ScalarConfig {
  std::string name;            // must be a valid identifier: [A-Za-z_][A-Za-z0-9_]*
  double background = 0.0;     // initial value outside every blob
  std::vector<ScalarBlob> initial;
  double diffusion = 0.0;      // kappa >= 0: implicit (I - kappa dt lap) s = s*; 0 skips the solve
  double dissipation = 0.0;    // a >= 0: s /= 1 + dt a after every step (Stam)
  std::vector<ScalarSource> sources;
  // Added by a section (texture coordinates, a viscoelastic strain), not declared by the job:
  // what the solver keeps in it is not for sources or a material to change.
  bool generated = false;
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

/// Either a fixed step (`dt`) or a CFL-adaptive one (`cfl`): dt = cfl * h_min / max|u| clamped to
/// [dt_min, dt_max] (dt_max when the fluid is at rest). cfl may be well above 1: the scheme is
/// unconditionally stable, and departure points beyond the halo are fetched from their owner.
/// Stam: the first-order split step of Stable Fluids (forces, advect, diffuse, project).
/// BDF2: the second-order semi-Lagrangian BDF2 step with incremental pressure projection
/// (src/physics/bdf2_advection.hpp; Xiu & Karniadakis 2001, Guermond, Minev & Shen 2006).
enum class TimeScheme { Stam, BDF2 };

struct TimeConfig {
  TimeScheme scheme = TimeScheme::Stam;
  double dt = 0.0;      // fixed time step, > 0; 0 when cfl is used
  double cfl = 0.0;     // > 0 selects the adaptive step
  double dt_min = 0.0;  // adaptive: lower clamp, >= 0
  double dt_max = 0.0;  // adaptive: upper clamp, > 0, >= dt_min (required with cfl)
  double end = 0.0;     // simulated end time, > 0
  // > 0: the run also stops once the flow is steady, when the largest change of the velocity
  // and of every scalar over a step, per unit time (max |q^{n+1} - q^n| / dt), is at most this.
  double steady_tolerance = 0.0;
};

/// How the viscosity of a variable-viscosity fluid is carried from cell centres to the cell
/// edges (2D: nodes) where the shear stresses live: the geometric mean (Carlson et al. 2002;
/// Cline et al. §7.2, smooth temperature fields) or the harmonic mean (exact flux continuity
/// across a jump that lies on a cell face).
enum class ViscosityAverage { Geometric, Harmonic };

/// A viscosity that is a function of a scalar (Carlson et al. 2002; Cline et al. §7.2): the
/// temperature of a melting solid, or the fraction of a second, thicker fluid. Given at points
/// (s_n, nu_n) by increasing s, log nu is linear in s between them and held beyond the first and
/// the last point; a single point is a constant viscosity solved with the coupled operator.
struct ViscosityLaw {
  std::string scalar;               // the scalar nu depends on; empty: no law (constant nu)
  std::vector<double> at;           // s_n, strictly increasing
  std::vector<double> log_nu;       // log nu_n
  ViscosityAverage average = ViscosityAverage::Geometric;

  bool enabled() const { return !scalar.empty(); }

  /// log nu(s). A few points at most: a linear search costs less than a binary one.
  double log_viscosity(double s) const {
    if (std::isnan(s)) return s;  // a NaN in the scalar stops the solve that reads it
    if (s <= at.front()) return log_nu.front();
    if (s >= at.back()) return log_nu.back();
    size_t n = 1;
    while (at[n] < s) ++n;
    const double w = (s - at[n - 1]) / (at[n] - at[n - 1]);
    return log_nu[n - 1] + w * (log_nu[n] - log_nu[n - 1]);
  }
};

struct FluidConfig {
  // Kinematic viscosity nu >= 0 (a number in the job); 0 skips the diffusion solves. With a
  // variable viscosity (a map in the job) it is 0 and `variable` holds the law.
  double viscosity = 0.0;
  // fluid.viscosity: {from: <scalar>, values: [[s, nu], ...]}: the implicit
  // variable-coefficient viscous solve of solvers/variable_viscosity.hpp.
  ViscosityLaw variable;
};

/// SemiLagrangian: one pass (Stam). MacCormack: two passes with the correction at the arrival
/// point (Selle et al. 2008), accurate while a step moves less than about a cell. BFECC: three
/// passes with the correction applied before the final one, accurate at any CFL number.
enum class AdvectionScheme { SemiLagrangian, MacCormack, BFECC };

struct AdvectionConfig {
  AdvectionScheme scheme = AdvectionScheme::SemiLagrangian;
  Interpolation interpolation = Interpolation::Linear;  // monotone cubic needs halo >= 2
};

/// Smoke buoyancy (Fedkiw et al. 2001; Cline et al. eq. 27):
///   f = (-alpha * density + beta * (T - ambient_temperature)) * up
/// evaluated at cell centres and averaged onto the faces. A named scalar must be declared when
/// its coefficient is non-zero; otherwise the name is ignored.
struct BuoyancyConfig {
  bool enabled = false;
  std::string density_scalar = "density";
  std::string temperature_scalar = "temperature";
  double alpha = 0.0;
  double beta = 0.0;
  double ambient_temperature = 0.0;
  std::array<double, 3> up{0.0, 1.0, 0.0};  // unit vector, normalised by the parser
};

/// Wind (Cline et al. eq. 26): u = (1 - rate dt) u + rate dt w, at the faces inside `region`
/// (everywhere when !has_region). rate * dt is clamped to 1.
struct WindConfig {
  bool enabled = false;
  std::array<double, 3> velocity{0.0, 0.0, 0.0};
  double rate = 0.0;  // > 0 when enabled
  bool has_region = false;
  Region region;
};

/// A user force: u += dt * acceleration at the faces whose centre lies inside the region;
/// `when` turns it on and off, scales the acceleration and moves the region.
struct ForceRegion {
  Region region;
  std::array<double, 3> acceleration{0.0, 0.0, 0.0};
  TimeProfile when;
};

/// Stam 1999 §4's noise "proportional to the amount of density", for billowing smoke:
///   f_c = amplitude * s * n_c(x / scale, t / period)
/// with s the named scalar (averaged onto the face) and n_c a smooth random field in [-1, 1]:
/// values drawn at the nodes of a lattice of spacing `scale` in space and `period` in time,
/// blended with Perlin's fade along each coordinate (density_noise.hpp), so the force does not
/// depend on the step or on the ranks (each node's value is a hash of its global index and the
/// seed).
struct NoiseConfig {
  bool enabled = false;
  std::string scalar = "density";
  double amplitude = 0.0;  // acceleration per unit of the scalar, >= 0
  double scale = 0.0;      // > 0: the length over which the noise changes
  double period = 0.0;     // > 0: the time over which it changes
  std::uint64_t seed = 1;
};

struct ForcesConfig {
  std::array<double, 3> gravity{0.0, 0.0, 0.0};  // acceleration added to every fluid face
  BuoyancyConfig buoyancy;
  double vorticity_confinement = 0.0;  // epsilon >= 0: f = epsilon h (N x omega); needs halo >= 2
  WindConfig wind;
  std::vector<ForceRegion> regions;
  NoiseConfig noise;
};


/// Fire (Stam's smoke and fire; Nguyen, Fedkiw & Jensen 2002 for the expansion): a fuel scalar
/// that burns where the temperature has reached `ignition_temperature`, at a rate:
///   dF/dt = -burn_rate F,  so a step burns  b = F (1 - exp(-burn_rate dt))  exactly,
/// and each unit of fuel burnt gives `heat` units of temperature and `soot_yield` units of soot.
/// The temperature drives buoyancy (forces.buoyancy) and fades with its dissipation. With
/// `expansion` > 0 the burnt gas takes more room: the projection makes div u = expansion b / dt in
/// the cell instead of 0 (a source of volume at the flame front), which needs an outflow face.
struct FireConfig {
  bool enabled = false;
  std::string fuel = "fuel";
  std::string temperature = "temperature";
  std::string soot;                   // empty: burning leaves no soot
  double burn_rate = 0.0;             // > 0, per unit time
  double ignition_temperature = 0.0;  // fuel burns where temperature >= this
  double heat = 0.0;                  // temperature per unit of fuel burnt, >= 0
  double soot_yield = 0.0;            // soot per unit of fuel burnt, >= 0
  double expansion = 0.0;             // volume per unit of fuel burnt, >= 0
};

/// Texture-coordinate advection (Stam 1999 §4; Stam 2000): texture coordinates carried by the
/// flow like the scalars, without diffusion or sources, so that an image or a 3D noise texture
/// mapped through them onto the smoke moves with it. They start at (x - origin) / size, from 0
/// to 1 across the domain. Two sets, a and b, are reset to that start every `period`, half a
/// period apart, and a renderer blends them with texture_weight(): a set's weight falls to 0 as
/// it is reset, so the texture never stretches without bound and never jumps. The parser adds
/// the coordinates to the job's scalars as texture_a_x, texture_a_y (, texture_a_z) and the
/// same for b, so they are advected, written, checkpointed and shown like any scalar.
struct TextureConfig {
  bool enabled = false;
  double period = 0.0;  // > 0: the time between two resets of one set
};

/// The name of texture coordinate `axis` (0, 1, 2) of set `set` (0: a, 1: b).
inline std::string texture_coordinate_name(int set, int axis) {
  return std::string("texture_") + (set == 0 ? "a" : "b") + "_" + "xyz"[axis];
}

/// The weight of set `set` at `time`: 1 - |2 f - 1| with f the fraction of its period since its
/// last reset (set a is reset at multiples of the period, set b half a period later); 0 at a
/// set's reset, 1 half a period on, and the two weights add up to 1.
inline double texture_weight(int set, double time, double period) {
  const double phase = time / period + (set == 0 ? 0.0 : 0.5);
  const double f = phase - std::floor(phase);
  return 1.0 - std::abs(2.0 * f - 1.0);
}

/// When and where checkpoints are written (io/checkpoint.hpp). A checkpoint is due when any
/// enabled criterion is met; 0 disables a criterion, and all three at 0 disable checkpoints
/// (a scheduler signal still writes one).
struct CheckpointConfig {
  std::string directory;            // default: output.directory
  PetscInt every_steps = 0;         // >= 0
  double every_time = 0.0;          // simulated time between checkpoints, >= 0
  double every_wall_seconds = 0.0;  // wall-clock seconds between checkpoints, >= 0
  int keep = 2;                     // newest checkpoints kept, >= 1
};

/// One ParaView Catalyst pipeline script and when it runs. It runs on the initial state and
/// then after every `every_steps`-th step, or (every_time > 0) after the first step that reaches
/// each multiple of `every_time`; the script's own triggers may thin that further.
struct CatalystScript {
  std::string path;               // as resolved: relative to the job file's directory
  int line = 0;                   // the job line naming it, for messages
  PetscInt every_steps = 1;       // >= 1
  double every_time = 0.0;        // > 0 replaces every_steps
  // > 0: besides the above, at least this many seconds of wall-clock time (rank 0's clock) since
  // the script last ran; bounds what a slow Catalyst Live client can cost the run.
  double every_wall_seconds = 0.0;
  std::vector<std::string> args;  // given to the script as stablefluids_catalyst.args
};

/// In-situ visualisation with ParaView Catalyst (io/catalyst_adaptor.hpp).
struct CatalystConfig {
  std::string directory;  // extracts (images, data); default <output.directory>/catalyst
  std::vector<CatalystScript> scripts;
};

/// What to do when the state goes bad (NaN/Inf in a field, a solve that fails).
struct DebugConfig {
  bool dump_on_failure = false;  // write the failing state to <name>_failed_step<N>_000000.h5
};

/// A Krylov solve's stopping rule (KSP rtol/atol/max_it); PETSc options with the solver's
/// prefix (-pressure_ksp_rtol, ...) still override it.
struct SolverConfig {
  double rtol = 1e-8;
  double atol = 1e-14;
  int max_iterations = 500;
  // Pressure only: when > 0 the solve stops as soon as max |div u| over fluid cells is at most
  // this (in 1/time), instead of the rtol/atol rule (solvers/krylov_projection.cpp).
  double max_divergence = 0.0;
  // `solver`: a Krylov solve (any box), or the direct FFT solve of a box periodic on every axis
  // without obstacles or liquid (solvers/fft_periodic.hpp), which has no stopping rule.
  enum class Method { Krylov, Fft };
  Method method = Method::Krylov;
};

/// A named point sampled every step into the steps CSV (velocity components and every scalar,
/// interpolated linearly from their own sample locations).
struct ProbeConfig {
  std::string name;                    // a valid identifier, unique among the probes
  std::array<double, 3> point{0.0, 0.0, 0.0};
};

/// What the steps CSV records beyond the solver's own numbers. Kinetic energy, enstrophy,
/// dissipation and every scalar's total are always there; probes only where the job names them.
struct DiagnosticsConfig {
  std::vector<ProbeConfig> probes;  // in the order the job lists them
  // Force coefficients c = 2 F / (U^2 A) of every obstacle when both are > 0: the reference
  // speed U and area A (in 2D a length: the forces are per unit depth).
  double reference_velocity = 0.0;
  double reference_area = 0.0;
};

/// A liquid with a free surface (docs/design.md, "Liquids", which also says what it does not do
/// yet), tracked by a level set phi at cell centres: phi < 0 in the liquid, |phi| the distance to
/// its surface within a band about it. phi is advected with the scalars (one trace for all) and
/// written, checkpointed and probed like them, under the name kLevelSetName; it has no
/// diffusion, dissipation or sources.
struct LiquidConfig {
  static constexpr const char* kLevelSetName = "phi";
  bool enabled = false;
  // How the surface is kept: a level set (with marker particles), or a height over each
  // vertical column (height_field.hpp; Foster & Metaxas §4.3).
  enum class Surface { LevelSet, HeightField };
  Surface surface = Surface::LevelSet;
  // What carries a level-set surface: the liquid's volume fraction in flux form, which keeps
  // the volume to rounding and imposes the level set (volume_of_fluid.hpp; the default), or the
  // level set itself, corrected by marker particles. A height field has its own surface and
  // takes LevelSet here (the parser sets it).
  enum class Interface { LevelSet, Vof };
  Interface interface = Interface::Vof;
  static constexpr const char* kFractionName = "liquid_fraction";
  std::vector<Region> initial;  // the liquid at the start: the union of these regions
  // Half-width of the band, in cells of the smallest spacing, in which reinitialisation keeps
  // phi a signed distance; beyond it phi is held at +-band.
  int band = 5;
  int reinitialise_every = 1;  // steps between reinitialisations, >= 1
  // Where liquid enters and leaves (Cline et al. §5; liquid_sources.hpp), each active for the
  // steps that begin at a time in [start, end). A source holds its region liquid and, with a
  // velocity, sets the velocity on the faces inside it: a spout or a pump; one active for a
  // single step drops a blob. A sink holds its region air.
  struct Flow {
    Region region;
    bool has_velocity = false;
    std::array<double, 3> velocity{0.0, 0.0, 0.0};
    double start = 0.0;
    double end = std::numeric_limits<double>::infinity();  // no end
  };
  std::vector<Flow> sources;
  std::vector<Flow> sinks;
  // The air's pressure on the surface (air_pressure.hpp; Foster & Metaxas §7): none, p = 0.
  std::vector<AirPressure> air_pressure;
  // Marker particles correcting the level set (the particle level set of Enright, Fedkiw,
  // Ferziger & Mitchell 2002; particle_level_set.hpp). per_cell = 0: none.
  struct Particles {
    int per_cell = 0;       // seeded per cell of the band; the parser's default: 16
    int band = 3;           // cells either side of the surface that are seeded
    int reseed_every = 20;  // steps between reseedings, >= 1
  } particles;
  // Spray and foam (Foster & Metaxas §4.3; spray.hpp): ballistic particles shed where the
  // surface moves outward faster than `threshold`, foam where they land.
  struct Spray {
    bool enabled = false;
    double threshold = 0.0;   // the surface's outward speed above which it sheds spray
    double rate = 100.0;      // particles a shedding surface cell sheds per unit time
    double radius = 0.0;      // their mean radius; 0: a quarter of the smallest spacing
    double spread = 0.25;     // random velocity, a fraction of the speed above the threshold
    double drag = 0.0;        // air resistance, per unit time: dv/dt = g - drag v
    double split_time = 0.0;  // mean time before a spray particle splits in two; 0: never
    double foam_life = 2.0;   // mean life of foam from a spray particle of the mean radius
  } spray;
  // Volume control for the level-set interface (volume_control.hpp; Kim et al. 2007): the
  // projection gives the liquid the divergence that brings its volume back to the initial one,
  // a PI controller with both poles at -1 / response_time. Off unless the job asks for it.
  struct VolumeControl {
    bool enabled = false;
    double response_time = 0.0;  // > 0; 0: 25 steps of time.dt (or time.dt_max)
  } volume_control;
};

/// Viscoelastic material (Goktekin, Bargteil & O'Brien 2004; Cline et al. §8; viscoelastic.hpp):
/// an elastic strain tensor E at the cell centres of the material, which the strain rate builds
/// up, plastic yield relaxes and the advection carries, pushing back on the fluid with the
/// force elastic_modulus div E. Its components are scalars of the run that the parser adds
/// after the job's own: strain_xx, strain_yy, strain_xy in 2D; strain_xx, strain_yy, strain_zz,
/// strain_xy, strain_xz, strain_yz in 3D (kStrainNames, in that order).
struct ViscoelasticConfig {
  static constexpr const char* kStrainNames[6] = {"strain_xx", "strain_yy", "strain_zz",
                                                  "strain_xy", "strain_xz", "strain_yz"};
  bool enabled = false;
  double elastic_modulus = 0.0;  // k_em > 0: the force is k_em div E
  // k_yp: the strain magnitude |E| (Frobenius, all nine entries) above which the material
  // yields; infinity: purely elastic.
  double yield_point = std::numeric_limits<double>::infinity();
  double yield_rate = 0.0;  // k_yr >= 0: how fast strain beyond the yield point is given up
  // The material: the cells where this scalar is >= threshold; empty with a liquid: the liquid
  // (phi < 0).
  std::string material;
  double threshold = 0.5;
  int first_strain = -1;  // index of strain_xx in JobConfig::scalars (the parser sets it)
};

struct OutputConfig {
  std::string directory = "output";  // created if missing (relative to the working directory)
  double interval = 0.0;             // simulated time between frames; 0 = only the initial frame
  bool initial_frame = true;         // write the state at t = start before the first step
  // A new run (not a restart) over the files of an earlier run of the same name replaces them
  // only when this is set; otherwise it is refused (io/run_lock.hpp).
  bool overwrite = false;
  // The progress line is printed every this many steps (and for the last one); the steps CSV
  // still gets every step. Long runs set it to keep their logs readable.
  PetscInt progress_every = 1;
};

/// One `--set <key>=<value>` of the command line: a dotted job key (grid.cells,
/// scalars.density.diffusion, forces.buoyancy.beta; an index picks a list item, as in
/// obstacles[0].radius) and its value in YAML ([64,128,64], 2, {type: zero}). Overrides are
/// applied to the job file's YAML before anything is read from it, so a value is checked exactly
/// as if the file held it; a problem with it is reported as "--set <key>=<value>: ...".
struct JobOverride {
  std::string key;
  std::string value;
  std::string text() const { return key + "=" + value; }
};

struct JobConfig {
  std::string source;  // the path the job was read from (for messages)
  std::string text;    // the job file's full text, exactly as read
  std::vector<JobOverride> overrides;  // --set on the command line, applied on top of `text`
  std::string name;    // run name: output files are <directory>/<name>_NNNNNN.h5 and <name>.xmf
  GridSection grid;
  // boundary[axis][side], side 0 = lower, 1 = upper; axes beyond dim hold Periodic.
  std::array<std::array<FaceBoundary, 2>, 3> boundary{};
  VelocityInit velocity;
  std::vector<ScalarConfig> scalars;  // in the order the job lists them
  FluidConfig fluid;
  AdvectionConfig advection;
  ForcesConfig forces;
  std::vector<ObstacleConfig> obstacles;
  LiquidConfig liquid;
  FireConfig fire;
  TextureConfig texture;
  ViscoelasticConfig viscoelastic;
  SolverConfig pressure;  // rtol 1e-8 by default
  SolverConfig diffusion{1e-10, 1e-14, 500};
  TimeConfig time;
  OutputConfig output;
  CheckpointConfig checkpoint;
  DebugConfig debug;
  CatalystConfig catalyst;
  DiagnosticsConfig diagnostics;
  std::string petsc_options;  // extra PETSc options from the job; the command line wins
  // A file the running job reads every `every_steps` steps for forces and sources a user adds
  // while watching (steering.hpp); empty: none.
  struct Steering {
    std::string file;  // relative to the job file's directory
    PetscInt every_steps = 1;
  } steering;
};

/// What a steering file asks for at the moment: force regions added to the job's, and sources
/// added to each scalar's (one list per job scalar, in the job's order).
struct Steered {
  std::vector<ForceRegion> forces;
  std::vector<std::vector<ScalarSource>> sources;
  std::size_t count() const {
    std::size_t n = forces.size();
    for (const auto& list : sources) n += list.size();
    return n;
  }
};

/// Parses the text of a steering file for `job`:
///   forces: [<force regions, as forces.regions>]
///   sources: {<scalar name>: [<sources, as scalars.<name>.sources>]}
/// An empty file steers nothing. `source` names the file in messages. Throws JobError naming
/// the file, line and key.
Steered parse_steering(const std::string& text, const std::string& source, const JobConfig& job);

/// The top-level keys of a job file, its sections, in the order jobs/README.md documents them;
/// the parser accepts these and no others, and `stablefluids --help` lists each.
inline const std::vector<std::string>& job_sections() {
  static const std::vector<std::string> sections{
      "name",     "grid",   "boundary",   "velocity",    "scalars",       "fluid",
      "advection", "forces", "obstacles", "liquid",      "viscoelastic",  "fire",
      "texture",  "time",   "pressure",   "diffusion",   "output",        "checkpoint",
      "debug",    "catalyst", "diagnostics", "petsc_options", "steering"};
  return sections;
}

/// Parses and validates a job from its text, including the limits of jobs/README.md "Limits"
/// (magnitudes of numbers, frame and step counts, the name's length). `source` names the text in
/// messages and gives the default name; the paths the job names (Catalyst scripts, mesh files,
/// the steering file) are relative to the directory of `relative_to`, or of `source` when that
/// is empty. Throws JobError for the first problem found.
JobConfig parse_job(const std::string& text, const std::string& source,
                    const std::vector<JobOverride>& overrides = {},
                    const std::string& relative_to = "");

/// The job's settings that a restart must not change, as "key: value" lines; two jobs may
/// continue each other's checkpoints when their lines are equal (describe.cpp).
std::vector<std::string> physics_description(const JobConfig& job);

/// The keys whose settings differ between `before` (a checkpoint's job) and `now`, one
/// "\n  key: checkpoint has X, job has Y" each; empty when a restart may continue.
std::string physics_differences(const JobConfig& before, const JobConfig& now);

/// Reads `path` on rank 0, broadcasts the text and parses it on every rank, so every rank
/// reaches the same verdict and none waits in a collective for a rank that failed. Only a
/// regular file of at most 1 MiB is read; anything else (a FIFO, a device, a directory, a larger
/// file) is refused without reading it. Collective on `comm`. Throws JobError on every rank if
/// the file is missing, refused or malformed.
JobConfig load_job(MPI_Comm comm, const std::string& path,
                   const std::vector<JobOverride>& overrides = {});

/// Turns grid.cells_per_rank into the grid for `ranks` ranks (see GridSection). Does nothing for a
/// job that gave grid.cells. Throws JobError if the resulting grid exceeds the index range.
void resolve_ranks(JobConfig& job, int ranks);

/// Human-readable names, as written in job files.
const char* to_string(BoundaryKind kind);

}  // namespace sf
