// The XDMF index of an output time series: one small XML file, <name>.xmf, that tells ParaView
// and VisIt which HDF5 file holds which frame and how its datasets map onto the grid. It holds
// metadata only, so rank 0 writes it; the heavy data stays in the collective HDF5 frames.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace sf {

struct XdmfAttribute {
  std::string name;              // as shown in ParaView
  std::string dataset;           // path inside the HDF5 file, e.g. "/density"
  int components = 1;            // 1: Scalar, 3: Vector
  std::string number_type = "Float";  // XDMF NumberType: Float, UChar, ...
  int precision = 8;                  // bytes per value
};

struct XdmfFrame {
  std::string file;  // HDF5 file name relative to the .xmf file
  double time = 0.0;
  long particles = -1;  // marker particles in /particles (-1: the frame has none)
};

/// The grid description shared by every frame (cell counts and geometry in x, y, z order).
struct XdmfGrid {
  int dim = 3;
  std::array<long, 3> cells{1, 1, 1};
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  std::array<double, 3> spacing{1.0, 1.0, 1.0};
};

/// Renders the whole index as XDMF 3 text: a temporal collection of uniform grids with
/// cell-centred attributes on a CoRectMesh.
std::string render_xdmf(const XdmfGrid& grid, const std::vector<XdmfAttribute>& attributes,
                        const std::vector<XdmfFrame>& frames);

/// The marker particles of the frames that have any, as XDMF 3 text: a temporal collection of
/// Polyvertex grids (XYZ points from /particles/position) with the other columns frames hold
/// (kParticleTable: the particles' sign and radius) as point attributes.
std::string render_particles_xdmf(const std::vector<XdmfFrame>& frames);

}  // namespace sf
