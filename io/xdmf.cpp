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
  const int dim = grid.dim;
  std::string nodes, cells, origin, spacing;
  for (int a = dim - 1; a >= 0; --a) {
    const char* sep = a == dim - 1 ? "" : " ";
    nodes += sep + std::to_string(grid.cells[a] + 1);
    cells += sep + std::to_string(grid.cells[a]);
    origin += sep + format_double(grid.origin[a]);
    spacing += sep + format_double(grid.spacing[a]);
  }
  const std::string topology = dim == 3 ? "3DCoRectMesh" : "2DCoRectMesh";
  const std::string geometry = dim == 3 ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY";

  std::ostringstream out;
  open_series(out,
              "Written by stablefluids: cell-centred fields on a uniform grid, nondimensional. "
              "Each .h5 file describes itself (h5dump -H): units, centring and axis order on "
              "every dataset, the job and how it was run on the root.",
              "TimeSeries");
  for (const XdmfFrame& frame : frames) {
    out << "      <Grid Name=\"frame\" GridType=\"Uniform\">\n"
        << "        <Time Value=\"" << format_double(frame.time) << "\"/>\n"
        << "        <Topology TopologyType=\"" << topology << "\" Dimensions=\"" << nodes
        << "\"/>\n"
        << "        <Geometry GeometryType=\"" << geometry << "\">\n"
        << "          <DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" Dimensions=\""
        << dim << "\">" << origin << "</DataItem>\n"
        << "          <DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" Dimensions=\""
        << dim << "\">" << spacing << "</DataItem>\n"
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
