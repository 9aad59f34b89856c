// XDMF 3 for a cell-centred time series on a uniform grid. XDMF lists CoRectMesh dimensions,
// origin and spacing slowest axis first (z y x), and the dimensions count nodes (cells + 1);
// attribute DataItems give the HDF5 dataset shape, also slowest axis first.
#include "xdmf.hpp"

#include <cstdio>
#include <sstream>

#include "particle_records.hpp"

namespace sf {

namespace {

std::string format_double(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

/// The document's opening, up to the temporal collection `name` its frames go in.
void open_series(std::ostringstream& out, const std::string& comment, const char* name) {
  out << "<?xml version=\"1.0\" ?>\n"
      << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<!-- " << comment << " -->\n"
      << "<Xdmf Version=\"3.0\">\n"
      << "  <Domain>\n"
      << "    <Grid Name=\"" << name << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
}

/// Closes what open_series() opened.
std::string close_series(std::ostringstream& out) {
  out << "    </Grid>\n"
      << "  </Domain>\n"
      << "</Xdmf>\n";
  return out.str();
}

}  // namespace

std::string render_xdmf(const XdmfGrid& grid, const std::vector<XdmfAttribute>& attributes,
                        const std::vector<XdmfFrame>& frames) {
  // A 2D grid is indexed as a 3D one a cell thick, centred on z = 0, because ParaView 5.11's
  // readers (XDMF Reader and Xdmf3 Reader S/T) place a 2DCoRectMesh's axes on their Y and Z,
  // while the velocity stays (u, v): glyphs and stream lines come out wrong. The 2D datasets
  // keep their own shape (ny, nx[, components]); both readers take them as (1, ny, nx[, ...]),
  // which tests/io/paraview_2d_frame.py checks with ParaView's own readers.
  std::array<long, 3> cells_xyz = grid.cells;
  std::array<double, 3> origin_xyz = grid.origin, spacing_xyz = grid.spacing;
  if (grid.dim == 2) {
    cells_xyz[2] = 1;
    spacing_xyz[2] = grid.spacing[0];
    origin_xyz[2] = -0.5 * spacing_xyz[2];
  }
  std::string nodes, cells, origin, spacing;
  for (int a = 2; a >= 0; --a) {
    const char* sep = a == 2 ? "" : " ";
    nodes += sep + std::to_string(cells_xyz[a] + 1);
    cells += sep + std::to_string(cells_xyz[a]);
    origin += sep + format_double(origin_xyz[a]);
    spacing += sep + format_double(spacing_xyz[a]);
  }

  std::ostringstream out;
  open_series(out,
              "Written by stablefluids: cell-centred fields on a uniform grid, in the job's units. "
              "Each .h5 file describes itself (h5dump -H): units, centring and axis order on "
              "every dataset, the job and how it was run on the root.",
              "TimeSeries");
  for (const XdmfFrame& frame : frames) {
    out << "      <Grid Name=\"frame\" GridType=\"Uniform\">\n"
        << "        <Time Value=\"" << format_double(frame.time) << "\"/>\n"
        << "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << nodes << "\"/>\n"
        << "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
        << "          <DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" "
           "Dimensions=\"3\">"
        << origin << "</DataItem>\n"
        << "          <DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" "
           "Dimensions=\"3\">"
        << spacing << "</DataItem>\n"
        << "        </Geometry>\n";
    for (const XdmfAttribute& attribute : attributes) {
      const bool vector = attribute.components > 1;
      out << "        <Attribute Name=\"" << attribute.name << "\" AttributeType=\""
          << (vector ? "Vector" : "Scalar") << "\" Center=\"Cell\">\n"
          << "          <DataItem Format=\"HDF\" NumberType=\"" << attribute.number_type
          << "\" Precision=\"" << attribute.precision << "\" Dimensions=\""
          << cells << (vector ? " " + std::to_string(attribute.components) : "") << "\">"
          << frame.file << ":" << attribute.dataset << "</DataItem>\n"
          << "        </Attribute>\n";
    }
    out << "      </Grid>\n";
  }
  return close_series(out);
}

std::string render_particles_xdmf(const std::vector<XdmfFrame>& frames) {
  std::ostringstream out;
  open_series(out,
              "Written by stablefluids: a liquid's marker particles (the particle level set), "
              "sign -1 in the liquid and +1 in the air.",
              "Particles");
  for (const XdmfFrame& frame : frames) {
    if (frame.particles <= 0) continue;
    const std::string n = std::to_string(frame.particles);
    out << "      <Grid Name=\"particles\" GridType=\"Uniform\">\n"
        << "        <Time Value=\"" << format_double(frame.time) << "\"/>\n"
        << "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n
        << "\" NodesPerElement=\"1\"/>\n"
        << "        <Geometry GeometryType=\"XYZ\">\n"
        << "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"8\" "
           "Dimensions=\""
        << n << " 3\">" << frame.file << ":/particles/position</DataItem>\n"
        << "        </Geometry>\n";
    // The other columns a frame holds, as point attributes (the first, the position, placed
    // the points).
    for (size_t c = 1; c < kParticleTable.count; ++c) {
      const SwarmColumn& column = kParticleTable[c];
      if (!column.in_frames) continue;
      const bool vector = column.width > 1;
      out << "        <Attribute Name=\"" << column.name << "\" AttributeType=\""
          << (vector ? "Vector" : "Scalar") << "\" Center=\"Node\">\n"
          << "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"8\" "
             "Dimensions=\""
          << n << (vector ? " " + std::to_string(column.width) : "") << "\">" << frame.file
          << ":/particles/" << column.name << "</DataItem>\n"
          << "        </Attribute>\n";
    }
    out << "      </Grid>\n";
  }
  return close_series(out);
}

}  // namespace sf
