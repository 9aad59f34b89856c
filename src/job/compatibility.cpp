// The table of refused combinations (compatibility.hpp) and the parser's one check of it. A
// section's parser checks what the section says on its own (a viscosity >= 0, keyframes in
// order); whatever needs two features, perhaps from two sections, is a row here, so that a new
// feature adds rows to this table and the parser's other files stay as they are.
#include "compatibility.hpp"

#include "parser.hpp"

namespace sf {

namespace {

using Obstacle = ObstacleConfig;

int axis_of(int item) { return item / 2; }
int side_of(int item) { return item % 2; }
const FaceBoundary& side(const JobConfig& job, int item) {
  return job.boundary[axis_of(item)][side_of(item)];
}
std::string side_name(int item) {
  return std::string("boundary.") + job_detail::kAxisNames[axis_of(item)] + "." +
         job_detail::kSideNames[side_of(item)];
}

// --- the features, each a test on the job or on one item of a row's scope

const JobFeature kLiquid{"a liquid (`liquid:`)",
                         [](const JobConfig& j, int) { return j.liquid.enabled; }};
const JobFeature kNoLiquid{"no liquid", [](const JobConfig& j, int) { return !j.liquid.enabled; }};
const JobFeature kHeightField{"`liquid.surface: height_field`", [](const JobConfig& j, int) {
                                return j.liquid.surface == LiquidConfig::Surface::HeightField;
                              }};
const JobFeature kVof{"`liquid.interface: vof`", [](const JobConfig& j, int) {
                       return j.liquid.enabled && j.liquid.interface == LiquidConfig::Interface::Vof;
                     }};
const JobFeature kLiquidFlows{"liquid sources or sinks (`liquid.sources`, `liquid.sinks`)",
                              [](const JobConfig& j, int) {
                                return !j.liquid.sources.empty() || !j.liquid.sinks.empty();
                              }};
const JobFeature kVolumeControl{"volume control (`liquid.volume_control`)",
                                [](const JobConfig& j, int) {
                                  return j.liquid.enabled && j.liquid.volume_control.enabled;
                                }};
const JobFeature kSpray{"spray (`liquid.spray`)",
                        [](const JobConfig& j, int) { return j.liquid.spray.enabled; }};
const JobFeature kBdf2{"`time.scheme: bdf2`",
                       [](const JobConfig& j, int) { return j.time.scheme == TimeScheme::BDF2; }};
const JobFeature kMacCormack{"`advection.scheme: maccormack`", [](const JobConfig& j, int) {
                               return j.advection.scheme == AdvectionScheme::MacCormack;
                             }};
const JobFeature kBfecc{"`advection.scheme: bfecc`", [](const JobConfig& j, int) {
                          return j.advection.scheme == AdvectionScheme::BFECC;
                        }};
const JobFeature kCubic{"`advection.interpolation: cubic`", [](const JobConfig& j, int) {
                          return j.advection.interpolation == Interpolation::Cubic;
                        }};
const JobFeature kMonotoneCubic{"`advection.interpolation: monotone_cubic`",
                                [](const JobConfig& j, int) {
                                  return j.advection.interpolation == Interpolation::MonotoneCubic;
                                }};
const JobFeature kVorticityConfinement{
    "`forces.vorticity_confinement` > 0",
    [](const JobConfig& j, int) { return j.forces.vorticity_confinement > 0.0; }};
const JobFeature kCatalyst{"Catalyst scripts (`catalyst.scripts`)",
                           [](const JobConfig& j, int) { return !j.catalyst.scripts.empty(); }};
// grid.halo is at least 1, so below 2 is exactly 1.
const JobFeature kHaloOne{"`grid.halo: 1`",
                          [](const JobConfig& j, int) { return j.grid.halo < 2; }};
const JobFeature kVariableViscosity{
    "a viscosity that follows a scalar (`fluid.viscosity: {from: ...}`)",
    [](const JobConfig& j, int) { return j.fluid.variable.enabled(); }};
const JobFeature kGravityNotDownY{"`forces.gravity` other than straight down along -y",
                                  [](const JobConfig& j, int) {
                                    const std::array<double, 3>& g = j.forces.gravity;
                                    return !(g[1] < 0.0 && g[0] == 0.0 && g[2] == 0.0);
                                  }};
const JobFeature kPeriodicY{"a periodic y axis", [](const JobConfig& j, int) {
                              return j.boundary[1][0].kind == BoundaryKind::Periodic;
                            }};
const JobFeature kPeriodicAxis{"a periodic axis", [](const JobConfig& j, int) {
                                 for (int a = 0; a < j.grid.dim; ++a)
                                   if (j.boundary[a][0].kind == BoundaryKind::Periodic) return true;
                                 return false;
                               }};
const JobFeature kNoOutflow{"no `outflow` side", [](const JobConfig& j, int) {
                              for (int a = 0; a < j.grid.dim; ++a)
                                for (int s = 0; s < 2; ++s)
                                  if (j.boundary[a][s].kind == BoundaryKind::Outflow) return false;
                              return true;
                            }};
const JobFeature kMaxDivergence{"`pressure.max_divergence`", [](const JobConfig& j, int) {
                                  return j.pressure.max_divergence > 0.0;
                                }};
const JobFeature kFire{"fire (`fire:`)", [](const JobConfig& j, int) { return j.fire.enabled; }};
const JobFeature kExpansion{"`fire.expansion` > 0",
                            [](const JobConfig& j, int) { return j.fire.expansion > 0.0; }};
const JobFeature kTexture{"texture coordinates (`texture:`)",
                          [](const JobConfig& j, int) { return j.texture.enabled; }};
const JobFeature kViscoelastic{"a viscoelastic material (`viscoelastic:`)",
                               [](const JobConfig& j, int) { return j.viscoelastic.enabled; }};
const JobFeature kViscoelasticWithoutMaterial{
    "`viscoelastic:` without `material`", [](const JobConfig& j, int) {
      return j.viscoelastic.enabled && j.viscoelastic.material.empty();
    }};
const JobFeature kFftPressure{"`pressure.solver: fft`", [](const JobConfig& j, int) {
                                return j.pressure.method == SolverConfig::Method::Fft;
                              }};
const JobFeature kFftDiffusion{"`diffusion.solver: fft`", [](const JobConfig& j, int) {
                                 return j.diffusion.method == SolverConfig::Method::Fft;
                               }};
const JobFeature kObstacles{"`obstacles`",
                            [](const JobConfig& j, int) { return !j.obstacles.empty(); }};

// Features of one obstacle.
const JobFeature kMeshObstacle{"a mesh obstacle (`shape: mesh`)", [](const JobConfig& j, int n) {
                                 return j.obstacles[n].region.shape == Region::Shape::Mesh;
                               }};
const JobFeature kCutSurface{"an obstacle with `surface: cut`", [](const JobConfig& j, int n) {
                               return j.obstacles[n].surface == Obstacle::Surface::Cut;
                             }};
const JobFeature kMoving{"an obstacle with a `motion`",
                         [](const JobConfig& j, int n) { return j.obstacles[n].motion.moves(); }};
const JobFeature kFloating{"a floating obstacle (`floating:`)", [](const JobConfig& j, int n) {
                             return j.obstacles[n].floating.enabled;
                           }};

// Features of one side of the domain.
const JobFeature kInflowLiquid{
    "an inflow side that carries liquid (its `liquid:`)",
    [](const JobConfig& j, int item) { return !side(j, item).liquid.empty(); }};
const JobFeature kInflow{"an `inflow` side", [](const JobConfig& j, int item) {
                           return side(j, item).kind == BoundaryKind::Inflow;
                         }};
const JobFeature kInflowKeyframes{
    "an inflow side with `keyframes`",
    [](const JobConfig& j, int item) { return !side(j, item).keyframes.empty(); }};
const JobFeature kInflowPulsation{
    "an inflow side with a `pulsation`",
    [](const JobConfig& j, int item) { return side(j, item).pulsation_period > 0.0; }};
const JobFeature kClosedSide{"a side that is not periodic", [](const JobConfig& j, int item) {
                               return side(j, item).kind != BoundaryKind::Periodic;
                             }};

// Features of one scalar: a name of the job's own that a section takes for a scalar it adds.
const JobFeature kScalarNamedPhi{"a scalar named `phi`", [](const JobConfig& j, int n) {
                                   return !j.scalars[n].generated &&
                                          j.scalars[n].name == LiquidConfig::kLevelSetName;
                                 }};
const JobFeature kScalarNamedTexture{
    "a scalar named `texture_a_*` or `texture_b_*`", [](const JobConfig& j, int n) {
      if (j.scalars[n].generated) return false;
      for (int set = 0; set < 2; ++set)
        for (int axis = 0; axis < j.grid.dim; ++axis)
          if (j.scalars[n].name == texture_coordinate_name(set, axis)) return true;
      return false;
    }};
const JobFeature kScalarNamedStrain{
    "a scalar named `strain_*`", [](const JobConfig& j, int n) {
      if (j.scalars[n].generated) return false;
      for (const char* name : ViscoelasticConfig::kStrainNames) {
        const std::string component = name;
        if (j.grid.dim == 2 && component.find('z') != std::string::npos) continue;
        if (j.scalars[n].name == component) return true;
      }
      return false;
    }};

// --- what a message adds about the job at hand

std::string side_kind(const JobConfig& j, int item, const KeyPlace&) {
  return side_name(item) + " is " + to_string(side(j, item).kind);
}
std::string inflow_side(const JobConfig&, int item, const KeyPlace&) { return side_name(item); }
std::string periodic_axis(const JobConfig& j, int, const KeyPlace&) {
  for (int a = 0; a < j.grid.dim; ++a)
    if (j.boundary[a][0].kind == BoundaryKind::Periodic)
      return std::string(job_detail::kAxisNames[a]) + " is periodic";
  return "";
}
std::string viscosity_place(const JobConfig&, int, const KeyPlace& place) {
  return "fluid.viscosity " + place("fluid.viscosity");
}
std::string first_obstacle(const JobConfig&, int, const KeyPlace& place) {
  return "obstacles[0] " + place("obstacles[0]");
}
std::string scalar_taken(const JobConfig& j, int n, const KeyPlace&) {
  return "the job declares a scalar '" + j.scalars[n].name + "' itself";
}

// --- the table

const std::vector<Refusal> kRefusals = {
    // The boundary.
    {"inflow_liquid_without_liquid", RefusalScope::Side, kInflowLiquid, kNoLiquid,
     "boundary.<axis>.<side>.liquid",
     "an inflow carries liquid only in a job with a liquid (a top-level liquid section)", ""},
    // The stencils that reach two cells out.
    {"cubic_halo", RefusalScope::Job, kCubic, kHaloOne, "advection.interpolation",
     "cubic needs grid.halo >= 2, but grid.halo is 1: its 4-point stencil reaches 2 cells beyond "
     "the cell a departure point lies in",
     ""},
    {"monotone_cubic_halo", RefusalScope::Job, kMonotoneCubic, kHaloOne, "advection.interpolation",
     "monotone_cubic needs grid.halo >= 2, but grid.halo is 1: its 4-point stencil reaches 2 "
     "cells beyond the cell a departure point lies in",
     ""},
    {"vorticity_confinement_halo", RefusalScope::Job, kVorticityConfinement, kHaloOne,
     "forces.vorticity_confinement",
     "vorticity confinement needs grid.halo >= 2, but grid.halo is 1: the force is a difference "
     "of the vorticity, itself a difference of the velocity, so its stencil reaches 2 cells out",
     ""},
    {"catalyst_halo", RefusalScope::Job, kCatalyst, kHaloOne, "catalyst",
     "Catalyst output needs grid.halo >= 2, but grid.halo is 1: ParaView gets one ghost layer of "
     "cell-centred velocity, whose upper cell averages a face one layer further out",
     ""},
    // Obstacles: cut faces are computed once, and a floating body needs a liquid to float in.
    {"mesh_cut", RefusalScope::Obstacle, kMeshObstacle, kCutSurface, "obstacles[n].surface",
     "a mesh obstacle is a staircase (cut faces need the distance to the surface, which only the "
     "box, sphere and cylinder give here)",
     "give surface: staircase"},
    {"moving_cut", RefusalScope::Obstacle, kMoving, kCutSurface, "obstacles[n].motion",
     "a moving obstacle is a staircase for now (its cut faces would have to be recomputed every "
     "step)",
     "give surface: staircase"},
    {"floating_cut", RefusalScope::Obstacle, kFloating, kCutSurface, "obstacles[n].floating",
     "a floating body is a staircase for now (its cut faces would have to be recomputed every "
     "step)",
     "give surface: staircase"},
    {"floating_motion", RefusalScope::Obstacle, kFloating, kMoving, "obstacles[n].motion",
     "a floating body is moved by gravity and the liquid: give it no motion (its start can have "
     "velocity and angular_velocity under floating)",
     ""},
    {"floating_without_liquid", RefusalScope::Obstacle, kFloating, kNoLiquid,
     "obstacles[n].floating",
     "a floating body needs a liquid to float in, whose pressure carries it (give liquid:)", ""},
    {"floating_periodic", RefusalScope::Obstacle, kFloating, kPeriodicAxis, "obstacles[n].floating",
     "a floating body in a domain with periodic axes is not supported yet", "", periodic_axis},
    // The coupled solve of a variable viscosity has no cut faces, and a floating body's drag
    // reads one constant viscosity.
    {"variable_viscosity_cut", RefusalScope::Obstacle, kVariableViscosity, kCutSurface,
     "obstacles[n].surface", "a viscosity that follows a scalar has no cut faces yet",
     "give this obstacle surface: staircase", viscosity_place},
    {"variable_viscosity_floating", RefusalScope::Obstacle, kVariableViscosity, kFloating,
     "obstacles[n].floating",
     "a floating body's drag needs a constant viscosity, but this one follows a scalar", "",
     viscosity_place},
    // The liquid.
    {"liquid_scalar_phi", RefusalScope::Scalar, kLiquid, kScalarNamedPhi, "liquid",
     "a liquid's level set is the field 'phi': rename the scalar of that name", ""},
    {"height_field_gravity", RefusalScope::Job, kHeightField, kGravityNotDownY, "liquid.surface",
     "a height field needs gravity straight down along -y (forces.gravity: [0, -g] or "
     "[0, -g, 0]): its columns stand along y",
     ""},
    {"height_field_periodic_y", RefusalScope::Job, kHeightField, kPeriodicY, "liquid.surface",
     "a height field needs a floor: y cannot be periodic", ""},
    {"height_field_moving_obstacle", RefusalScope::Obstacle, kHeightField, kMoving,
     "obstacles[n].motion",
     "a moving or floating obstacle displaces the water of a height field's columns, which it "
     "does not follow yet",
     "use liquid.surface: level_set"},
    {"height_field_floating", RefusalScope::Obstacle, kHeightField, kFloating,
     "obstacles[n].floating",
     "a moving or floating obstacle displaces the water of a height field's columns, which it "
     "does not follow yet",
     "use liquid.surface: level_set"},
    {"vof_height_field", RefusalScope::Job, kVof, kHeightField, "liquid.interface",
     "a height field keeps its own surface: the vof interface is for a level-set surface", ""},
    {"vof_halo_one", RefusalScope::Job, kVof, kHaloOne, "grid.halo",
     "the vof interface reads one cell beyond the halo's first: it needs grid.halo >= 2",
     "set grid.halo: 2, or liquid.interface: level_set"},
    {"vof_inflow_liquid", RefusalScope::Side, kInflowLiquid, kVof, "boundary.<axis>.<side>.liquid",
     "the vof interface does not carry liquid in through an inflow face yet",
     "use liquid.interface: level_set"},
    {"vof_liquid_flows", RefusalScope::Job, kVof, kLiquidFlows, "liquid.sources",
     "the vof interface does not add or remove liquid in regions yet",
     "use liquid.interface: level_set"},
    {"volume_control_vof", RefusalScope::Job, kVolumeControl, kVof, "liquid.volume_control",
     "the vof interface keeps the liquid's volume by itself: the controller is for "
     "liquid.interface: level_set",
     "remove liquid.volume_control, or set liquid.interface: level_set"},
    {"volume_control_height_field", RefusalScope::Job, kVolumeControl, kHeightField,
     "liquid.volume_control", "the controller acts on a level-set surface's projection",
     "remove liquid.volume_control"},
    {"volume_control_liquid_flows", RefusalScope::Job, kVolumeControl, kLiquidFlows,
     "liquid.volume_control",
     "the controller holds the initial volume, which liquid sources and sinks change on "
     "purpose",
     "remove liquid.volume_control"},
    {"volume_control_inflow_liquid", RefusalScope::Side, kInflowLiquid, kVolumeControl,
     "boundary.<axis>.<side>.liquid",
     "the controller holds the initial volume, which liquid let in through an inflow face "
     "changes on purpose",
     "remove liquid.volume_control"},
    {"liquid_cut", RefusalScope::Obstacle, kLiquid, kCutSurface, "obstacles[n].surface",
     "a liquid's projection has no cut faces yet", "give this obstacle surface: staircase"},
    {"liquid_max_divergence", RefusalScope::Job, kLiquid, kMaxDivergence, "pressure.max_divergence",
     "the free-surface projection of a liquid stops on pressure.tolerance only (give that "
     "instead)",
     ""},
    // Fire.
    {"fire_liquid", RefusalScope::Job, kFire, kLiquid, "fire",
     "fire burns in a gas: a job with a liquid cannot have one", ""},
    {"fire_expansion_closed", RefusalScope::Job, kExpansion, kNoOutflow, "fire.expansion",
     "the expanding gas needs a way out (with every side closed or periodic the projection "
     "would drop the expansion)",
     "give one side an outflow boundary, or set fire.expansion to 0"},
    // Texture coordinates are where the fluid came from: fluid that enters came from nowhere in
    // the domain (its ghosts would hold 0 for every coordinate).
    {"texture_inflow", RefusalScope::Side, kTexture, kInflow, "texture",
     "texture coordinates cannot enter through an inflow", "", inflow_side},
    {"texture_scalar_name", RefusalScope::Scalar, kTexture, kScalarNamedTexture, "texture",
     "the texture coordinates are the scalars texture_a_* and texture_b_*",
     "rename the job's scalar",
     scalar_taken},
    // The viscoelastic material.
    {"viscoelastic_without_material", RefusalScope::Job, kViscoelasticWithoutMaterial, kNoLiquid,
     "viscoelastic",
     "needs `material: <scalar>` (the cells where that scalar is >= threshold are the material) "
     "unless the job has a liquid, which is then the material",
     ""},
    {"viscoelastic_scalar_name", RefusalScope::Scalar, kViscoelastic, kScalarNamedStrain,
     "viscoelastic",
     "its strain is held in the run's scalars strain_xx, strain_yy, strain_xy, and in 3D "
     "strain_zz, strain_xz, strain_yz",
     "rename the job's scalar", scalar_taken},
    // The second-order step (BDF2): semi-Lagrangian passes over two time levels, projected
    // incrementally. What runs only in Stam's step says why.
    {"bdf2_maccormack", RefusalScope::Job, kBdf2, kMacCormack, "time.scheme",
     "bdf2 needs advection.scheme: semi_lagrangian (for second order in space use "
     "advection.interpolation: cubic), but advection.scheme is maccormack",
     ""},
    {"bdf2_bfecc", RefusalScope::Job, kBdf2, kBfecc, "time.scheme",
     "bdf2 needs advection.scheme: semi_lagrangian (for second order in space use "
     "advection.interpolation: cubic), but advection.scheme is bfecc",
     ""},
    {"liquid_bdf2", RefusalScope::Job, kLiquid, kBdf2, "time.scheme",
     "a liquid runs with Stam's step only (time.scheme: stam): the second-order step's "
     "incremental projection has no free surface yet",
     ""},
    {"viscoelastic_bdf2", RefusalScope::Job, kViscoelastic, kBdf2, "time.scheme",
     "a viscoelastic material runs with Stam's step only (time.scheme: stam): its strain is "
     "built up and yielded before the advection of Stam's step (Goktekin et al.'s order), and "
     "the second-order step, which advects first, has no place for it yet",
     ""},
    {"fire_bdf2", RefusalScope::Job, kFire, kBdf2, "time.scheme",
     "fire runs with Stam's step only (time.scheme: stam): the burn integrates exactly over a "
     "step, which the second-order step's extrapolation from the step before would not keep",
     ""},
    {"texture_bdf2", RefusalScope::Job, kTexture, kBdf2, "time.scheme",
     "texture coordinates run with Stam's step only (time.scheme: stam): the second-order "
     "step's extrapolation would combine a set reset after a step with its stretched past",
     ""},
    {"moving_obstacle_bdf2", RefusalScope::Obstacle, kMoving, kBdf2, "obstacles[n].motion",
     "a moving obstacle runs with Stam's step only (time.scheme: stam) for now: the "
     "second-order step's history would have to follow the cells it uncovers",
     ""},
    {"inflow_keyframes_bdf2", RefusalScope::Side, kInflowKeyframes, kBdf2,
     "boundary.<axis>.<side>.keyframes",
     "an inflow that varies in time runs with Stam's step only (time.scheme: stam) for now: the "
     "second-order step's older velocity would need the inflow of its own time",
     ""},
    {"inflow_pulsation_bdf2", RefusalScope::Side, kInflowPulsation, kBdf2,
     "boundary.<axis>.<side>.pulsation",
     "an inflow that varies in time runs with Stam's step only (time.scheme: stam) for now: the "
     "second-order step's older velocity would need the inflow of its own time",
     ""},
    // The FFT solvers diagonalise the discrete Laplacian of a periodic box with nothing in it
    // (solvers/fft_periodic.hpp); anything else keeps the Krylov solve.
    {"pressure_fft_walls", RefusalScope::Side, kFftPressure, kClosedSide, "pressure.solver",
     "fft needs a box periodic on every axis", "use solver: krylov", side_kind},
    {"pressure_fft_obstacles", RefusalScope::Job, kFftPressure, kObstacles, "pressure.solver",
     "fft needs a box without obstacles", "use solver: krylov", first_obstacle},
    {"pressure_fft_liquid", RefusalScope::Job, kFftPressure, kLiquid, "pressure.solver",
     "fft cannot solve a liquid's free-surface equations", "use solver: krylov"},
    {"diffusion_fft_walls", RefusalScope::Side, kFftDiffusion, kClosedSide, "diffusion.solver",
     "fft needs a box periodic on every axis", "use solver: krylov", side_kind},
    {"diffusion_fft_obstacles", RefusalScope::Job, kFftDiffusion, kObstacles, "diffusion.solver",
     "fft needs a box without obstacles", "use solver: krylov", first_obstacle},
    {"diffusion_fft_liquid", RefusalScope::Job, kFftDiffusion, kLiquid, "diffusion.solver",
     "fft cannot solve a liquid's free-surface equations", "use solver: krylov"},
    {"diffusion_fft_variable_viscosity", RefusalScope::Job, kFftDiffusion, kVariableViscosity,
     "diffusion.solver",
     "a viscosity that follows a scalar is solved by Krylov iterations, and fft would diffuse "
     "the scalars only",
     "use solver: krylov", viscosity_place},
};

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

/// How many items `scope` has in `job` (1 for the job as a whole).
int refusal_items(RefusalScope scope, const JobConfig& job) {
  switch (scope) {
    case RefusalScope::Job:
      return 1;
    case RefusalScope::Obstacle:
      return static_cast<int>(job.obstacles.size());
    case RefusalScope::Side:
      return 2 * job.grid.dim;
    case RefusalScope::Scalar:
      return static_cast<int>(job.scalars.size());
  }
  return 0;
}

/// The row's key for `item`: "obstacles[n].motion" of obstacle 2 is "obstacles[2].motion".
std::string refusal_key(const Refusal& row, int item) {
  std::string key = row.key;
  replace_all(key, "[n]", "[" + std::to_string(item) + "]");
  if (row.scope == RefusalScope::Side) {
    replace_all(key, "<axis>", job_detail::kAxisNames[axis_of(item)]);
    replace_all(key, "<side>", job_detail::kSideNames[side_of(item)]);
  }
  return key;
}

/// The row's message for `item` of `job`, without the file, line and key in front.
std::string refusal_message(const Refusal& row, const JobConfig& job, int item,
                            const KeyPlace& place) {
  std::string message = row.why;
  if (row.detail != nullptr) message += " (" + row.detail(job, item, place) + ")";
  if (row.fix[0] != '\0') message += std::string(": ") + row.fix;
  return message;
}

}  // namespace

const std::vector<Refusal>& refusals() { return kRefusals; }

namespace job_detail {

Field JobParser::field_at(const Field& root, const std::string& key) const {
  // Walks the names joined by '.', each followed by any number of [index]; where the job does
  // not give the key (a value left at its default), the deepest map that holds it stands in.
  // The node is moved on with reset(): assigning a YAML::Node would overwrite the document.
  YAML::Node node;
  node.reset(root.node);
  int line = root.line;
  const auto step_to = [&](const Field& next) {
    node.reset(next.node);
    line = next.line;
  };
  for (std::size_t from = 0; from <= key.size();) {
    const std::size_t dot = std::min(key.find('.', from), key.size());
    const std::string segment = key.substr(from, dot - from);
    const std::size_t bracket = std::min(segment.find('['), segment.size());
    if (!node.IsMap()) break;
    const std::string name = segment.substr(0, bracket);
    const auto found = MapReader(*this, Field{node, "", line}, true).find(name);
    if (!found) break;
    step_to(*found);
    for (std::size_t open = bracket; open < segment.size();) {
      const std::size_t close = segment.find(']', open);
      const std::size_t index = std::stoul(segment.substr(open + 1, close - open - 1));
      if (!node.IsSequence() || node.size() <= index) return Field{node, key, line};
      step_to(element(Field{node, "", line}, index));
      open = close + 1;
    }
    from = dot + 1;
  }
  return Field{node, key, line};
}

void JobParser::check_compatibility(const Field& root, const JobConfig& job) const {
  const KeyPlace place = [&](const std::string& key) {
    if (const JobOverride* set = override_at(key)) return "given by --set " + set->text();
    return "on line " + std::to_string(field_at(root, key).line);
  };
  for (const Refusal& row : refusals()) {
    const int items = refusal_items(row.scope, job);
    for (int item = 0; item < items; ++item) {
      if (!row.first.present(job, item) || !row.second.present(job, item)) continue;
      const std::string key = refusal_key(row, item);
      fail(field_at(root, key).line, key, refusal_message(row, job, item, place));
    }
  }
}

}  // namespace job_detail

}  // namespace sf
