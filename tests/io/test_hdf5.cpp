// HDF5 frames and the XDMF index. A frame written collectively on all ranks must be identical,
// bit for bit, to the same frame written on one rank; its datasets must sit where the layout says
// (checked against the analytic initial fields, independently of the writer); and every dataset
// the .xmf names must exist with the shape the .xmf states.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "build_info.hpp"
#include "frame_writer.hpp"
#include "hdf5_util.hpp"
#include "initial_conditions.hpp"
#include "mpi_test_util.hpp"

namespace sf {
namespace {

namespace fs = std::filesystem;

JobConfig make_job(int dim) {
  JobConfig job;
  job.name = "frame";
  job.grid.dim = dim;
  job.grid.cells = dim == 3 ? std::array<long, 3>{13, 11, 9} : std::array<long, 3>{23, 17, 1};
  job.grid.origin = {-0.5, 0.25, 1.0};
  job.grid.size = {1.3, 1.1, 0.9};
  job.grid.halo = 2;
  for (auto& axis : job.boundary) axis = {FaceBoundary{}, FaceBoundary{}};  // no-slip
  job.boundary[1][0].kind = job.boundary[1][1].kind = BoundaryKind::Periodic;
  job.velocity.kind = VelocityInit::Kind::Vortex;
  job.velocity.center = {0.1, 0.8, 1.4};
  job.velocity.radius = 0.3;
  job.velocity.strength = 1.7;
  ScalarConfig density;
  density.name = "density";
  density.background = 0.125;
  ScalarBlob blob;
  blob.region.shape = Region::Shape::Sphere;
  blob.region.center = {0.1, 0.8, 1.4};
  blob.region.radius = 0.35;
  blob.value = 2.5;
  density.initial.push_back(blob);
  job.scalars.push_back(density);
  ScalarConfig temperature;
  temperature.name = "temperature";
  temperature.background = -1.0;
  job.scalars.push_back(temperature);
  // A free-slip box obstacle, so that /solid has both kinds of cell.
  ObstacleConfig box;
  box.region.shape = Region::Shape::Box;
  box.region.lower = {-0.22, 0.52, 1.22};
  box.region.upper = {0.28, 0.88, 1.58};
  box.boundary = BoundaryKind::FreeSlip;
  job.obstacles.push_back(box);
  job.text = "# the job's text\nname: frame\n";
  job.source = "jobs/frame.yaml";
  return job;
}

/// Builds the fields of `job` on `comm`, sets the initial state and writes one frame to `dir`.
void write_frame(MPI_Comm comm, const JobConfig& job, const std::string& dir) {
  Grid grid;
  ASSERT_EQ(grid.setup(comm, job.grid, job.boundary, job.grid.processes), 0);
  Field velocity;
  ASSERT_EQ(velocity.setup_velocity(grid), 0);
  ASSERT_EQ(set_initial_velocity(job.velocity, velocity), 0);
  ASSERT_EQ(velocity.fill_ghosts(), 0);
  std::vector<Field> scalars(job.scalars.size());
  for (size_t s = 0; s < scalars.size(); ++s) {
    ASSERT_EQ(scalars[s].setup_scalar(grid, job.scalars[s].name), 0);
    ASSERT_EQ(set_initial_scalar(job.scalars[s], scalars[s]), 0);
  }
  SolidMask solids;
  ASSERT_EQ(solids.setup(grid, job.obstacles), 0);
  JobConfig written = job;
  written.output.directory = dir;
  FrameWriter writer;
  ASSERT_EQ(writer.setup(grid, solids, written, job.name), 0);
  ASSERT_EQ(writer.write(velocity, scalars, nullptr, 7, 0.375), 0);
}

struct Dataset {
  std::vector<hsize_t> dims;
  std::vector<double> values;
};

Dataset read_dataset(const std::string& file, const std::string& path) {
  Dataset result;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(f, 0) << file;
  if (f < 0) return result;
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << file << ":" << path;
  if (d >= 0) {
    const hid_t space = H5Dget_space(d);
    result.dims.resize(static_cast<size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, result.dims.data(), nullptr);
    result.values.resize(static_cast<size_t>(H5Sget_simple_extent_npoints(space)));
    EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, result.values.data()),
              0);
    H5Sclose(space);
    H5Dclose(d);
  }
  H5Fclose(f);
  return result;
}

double read_double_attribute(const std::string& file, const char* name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  double value = NAN;
  EXPECT_GE(H5Aread(a, H5T_NATIVE_DOUBLE, &value), 0);
  H5Aclose(a);
  H5Fclose(f);
  return value;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Writes the frame on all ranks and on rank 0 alone, then runs `check` on rank 0 with both
/// paths. Failures on rank 0 are shared so every rank reports the same verdict. `split_z` puts
/// every rank of the world in a slab along z instead of PETSc's choice.
void compare_world_and_self(int dim, bool split_z = false) {
  const JobConfig job = make_job(dim);
  const std::string base = "test_hdf5_" + std::to_string(dim) + "d" + (split_z ? "z" : "") +
                           "_np" + std::to_string(test::comm_size());
  const std::string world_dir = base + "/world", self_dir = base + "/self";
  if (test::comm_rank() == 0) fs::remove_all(base);
  MPI_Barrier(MPI_COMM_WORLD);
  JobConfig world_job = job;
  if (split_z) world_job.grid.processes = {1, 1, test::comm_size()};
  write_frame(PETSC_COMM_WORLD, world_job, world_dir);
  if (test::comm_rank() == 0) write_frame(PETSC_COMM_SELF, job, self_dir);

  long failures = 0;
  if (test::comm_rank() == 0) {
    const std::string world = world_dir + "/frame_000000.h5";
    const std::string self = self_dir + "/frame_000000.h5";
    EXPECT_FALSE(fs::exists(world + ".tmp"));
    std::vector<std::string> datasets = {"velocity", "density", "temperature", "solid",
                                         "face_velocity/x", "face_velocity/y"};
    if (dim == 3) datasets.push_back("face_velocity/z");
    for (const std::string& name : datasets) {
      const Dataset a = read_dataset(world, name), b = read_dataset(self, name);
      EXPECT_EQ(a.dims, b.dims) << name;
      ASSERT_EQ(a.values.size(), b.values.size()) << name;
      // Bitwise: memcmp-equivalent, NaN-safe.
      EXPECT_TRUE(std::equal(a.values.begin(), a.values.end(), b.values.begin(),
                             [](double x, double y) {
                               return std::memcmp(&x, &y, sizeof x) == 0;
                             }))
          << name << " differs between " << test::comm_size() << " ranks and 1 rank";
    }
    EXPECT_EQ(read_double_attribute(world, "time"), 0.375);
    failures += testing::Test::HasFailure() ? 1 : 0;
  }
  EXPECT_EQ(test::global_sum(failures), 0);
  if (test::comm_rank() == 0) fs::remove_all(base);
}

TEST(Hdf5Frame, IdenticalOnAllRanksAndOneRank3D) { compare_world_and_self(3); }
TEST(Hdf5Frame, IdenticalOnAllRanksAndOneRank2D) { compare_world_and_self(2); }
// The centred velocity is written in pieces that fit a buffer of about one value per cell
// (split_box). Slabs of 9 cells along z give the ranks different numbers of pieces (2 ranks:
// 5 layers and 4, each a piece; collective writes that one rank makes with nothing) and, on 4
// ranks (3, 2, 2 and 2 layers), layers too large for a piece, split into runs of rows.
TEST(Hdf5Frame, IdenticalOnAllRanksAndOneRankInSlabsAlongZ) { compare_world_and_self(3, true); }

/// Marks every cell of `piece` in `seen` (indexed within `box`), x fastest.
void mark(const IndexBox& box, const IndexBox& piece, std::vector<int>* seen) {
  for_each_index(piece, [&](PetscInt i, PetscInt j, PetscInt k) {
    ++(*seen)[static_cast<size_t>(((k - box.lo[2]) * box.size(1) + (j - box.lo[1])) *
                                      box.size(0) + (i - box.lo[0]))];
  });
}

// The pieces a dataset is written in: they tile the box exactly once, each fits the buffer,
// each is a box inside the box, and they come in storage order (z, then y, then x).
TEST(SplitBox, TilesTheBoxInPiecesThatFit) {
  struct Case {
    IndexBox box;
    PetscInt capacity;
    size_t pieces;  // how many, as few as fit whole layers
  };
  const std::vector<Case> cases = {
      {{{0, 0, 0}, {128, 128, 64}}, 128 * 128 * 65 / 3, 4},  // 128^3 on 2 ranks: 16 layers each
      {{{3, 5, 7}, {10, 9, 12}}, 1000, 1},                     // fits whole
      {{{3, 5, 7}, {10, 9, 12}}, 28, 5},                       // one layer of 7 x 4 per piece
      {{{3, 5, 7}, {10, 9, 12}}, 20, 10},                      // layers split in two runs of rows
      {{{0, 0, 0}, {10, 1, 1}}, 3, 4},                         // one row: runs of cells 3, 3, 2, 2
      {{{0, 2, 0}, {23, 9, 1}}, 50, 4},                        // 2D: runs of 2 rows, 7 rows
      {{{0, 0, 0}, {4, 4, 4}}, 1, 64},                         // one cell each
  };
  for (const Case& c : cases) {
    std::vector<IndexBox> pieces;
    split_box(c.box, c.capacity, &pieces);
    EXPECT_EQ(pieces.size(), c.pieces) << "capacity " << c.capacity;
    std::vector<int> seen(static_cast<size_t>(c.box.count()), 0);
    std::array<PetscInt, 3> last{-1, -1, -1};
    for (const IndexBox& piece : pieces) {
      EXPECT_GT(piece.count(), 0);
      EXPECT_LE(piece.count(), c.capacity);
      for (int a = 0; a < 3; ++a) {
        EXPECT_GE(piece.lo[a], c.box.lo[a]);
        EXPECT_LE(piece.hi[a], c.box.hi[a]);
      }
      // Storage order: each piece starts after the one before, comparing z, then y, then x.
      const std::array<PetscInt, 3> first{piece.lo[2], piece.lo[1], piece.lo[0]};
      EXPECT_LT(last, first);
      last = first;
      mark(c.box, piece, &seen);
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }))
        << "the pieces do not cover every cell exactly once, capacity " << c.capacity;
  }
}

// Where each value lands in the file, checked against the analytic fields: dataset index
// [k][j][i] (x fastest) is cell (i, j, k); face datasets have one more entry along their own
// non-periodic axis; /velocity is the mean of the two faces of a cell.
TEST(Hdf5Frame, LayoutMatchesAnalyticFields) {
  const JobConfig job = make_job(3);
  const std::string dir = "test_hdf5_layout_np" + std::to_string(test::comm_size());
  if (test::comm_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  write_frame(PETSC_COMM_WORLD, job, dir);
  long failures = 0;
  if (test::comm_rank() == 0) {
    const std::string file = dir + "/frame_000000.h5";
    const long nx = 13, ny = 11, nz = 9;
    // Same arithmetic as Grid: spacing = size / cells, centre = origin + (i + 1/2) h.
    const double h[3] = {1.3 / 13.0, 1.1 / 11.0, 0.9 / 9.0};
    const double origin[3] = {-0.5, 0.25, 1.0};

    const Dataset density = read_dataset(file, "density");
    EXPECT_EQ(density.dims, (std::vector<hsize_t>{9, 11, 13}));
    const Dataset face_x = read_dataset(file, "face_velocity/x");
    const Dataset face_y = read_dataset(file, "face_velocity/y");
    EXPECT_EQ(face_x.dims, (std::vector<hsize_t>{9, 11, 14}));  // x is no-slip: nx + 1 faces
    EXPECT_EQ(face_y.dims, (std::vector<hsize_t>{9, 11, 13}));  // y is periodic: ny faces
    const Dataset velocity = read_dataset(file, "velocity");
    EXPECT_EQ(velocity.dims, (std::vector<hsize_t>{9, 11, 13, 3}));

    long wrong = 0;
    for (long k = 0; k < nz; ++k)
      for (long j = 0; j < ny; ++j)
        for (long i = 0; i < nx; ++i) {
          const double x[3] = {origin[0] + (i + 0.5) * h[0], origin[1] + (j + 0.5) * h[1],
                               origin[2] + (k + 0.5) * h[2]};
          double r2 = 0.0;
          for (int a = 0; a < 3; ++a) r2 += (x[a] - job.velocity.center[a]) * (x[a] - job.velocity.center[a]);
          const double want = r2 <= 0.35 * 0.35 ? 2.5 : 0.125;
          if (density.values[(k * ny + j) * nx + i] != want) ++wrong;
          // Vortex x-velocity on the lower x face of the cell, except on the no-slip walls.
          const double xf = origin[0] + i * h[0];
          const double dx = xf - 0.1, dy = x[1] - 0.8;
          const double scale = 1.7 / 0.3 * std::exp(0.5 * (1.0 - (dx * dx + dy * dy) / 0.09));
          const double u_face = i == 0 ? 0.0 : -scale * dy;
          if (std::abs(face_x.values[(k * ny + j) * (nx + 1) + i] - u_face) > 1e-14) ++wrong;
          const double u_mean = 0.5 * (face_x.values[(k * ny + j) * (nx + 1) + i] +
                                       face_x.values[(k * ny + j) * (nx + 1) + i + 1]);
          if (velocity.values[((k * ny + j) * nx + i) * 3] != u_mean) ++wrong;
          if (velocity.values[((k * ny + j) * nx + i) * 3 + 2] != 0.0) ++wrong;  // w = 0
        }
    EXPECT_EQ(wrong, 0);
    failures += testing::Test::HasFailure() ? 1 : 0;
  }
  EXPECT_EQ(test::global_sum(failures), 0);
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

// Every attribute the .xmf declares must exist in the frame with exactly the declared shape, and
// the mesh must have one more node than cells per axis (slowest axis first). A 2D grid is indexed
// as a 3D one a cell thick (so ParaView puts x and y where they belong): its attributes are
// declared with a leading 1 before the dataset's own (ny, nx[, components]).
TEST(Xdmf, NamesExistingDatasetsWithTheirShapes) {
  for (int dim : {2, 3}) {
    const JobConfig job = make_job(dim);
    const std::string dir = "test_xdmf_" + std::to_string(dim) + "d_np" +
                            std::to_string(test::comm_size());
    if (test::comm_rank() == 0) fs::remove_all(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    write_frame(PETSC_COMM_WORLD, job, dir);
    long failures = 0;
    if (test::comm_rank() == 0) {
      const std::string xmf = read_text(dir + "/frame.xmf");
      const std::string nodes = dim == 3 ? "10 12 14" : "2 18 24";
      EXPECT_NE(xmf.find("TopologyType=\"3DCoRectMesh\" Dimensions=\"" + nodes + "\""),
                std::string::npos)
          << xmf;
      EXPECT_NE(xmf.find("<Time Value=\"0.375\"/>"), std::string::npos);
      const std::regex item("Dimensions=\"([0-9 ]+)\">([^:<]+):([^<]+)</DataItem>");
      int attributes = 0;
      for (auto it = std::sregex_iterator(xmf.begin(), xmf.end(), item);
           it != std::sregex_iterator(); ++it, ++attributes) {
        const std::string file = dir + "/" + (*it)[2].str();
        const Dataset d = read_dataset(file, (*it)[3].str());
        std::string shape = dim == 2 ? "1" : "";
        for (hsize_t n : d.dims) shape += (shape.empty() ? "" : " ") + std::to_string(n);
        EXPECT_EQ(shape, (*it)[1].str()) << (*it)[3].str();
      }
      EXPECT_EQ(attributes, 4);  // velocity, density, temperature, solid
      EXPECT_NE(xmf.find("<Attribute Name=\"solid\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
                         "          <DataItem Format=\"HDF\" NumberType=\"UChar\" Precision=\"1\""),
                std::string::npos)
          << xmf;
      failures += testing::Test::HasFailure() ? 1 : 0;
    }
    EXPECT_EQ(test::global_sum(failures), 0);
    if (test::comm_rank() == 0) fs::remove_all(dir);
  }
}

/// A string attribute of `object` ("" and a test failure when it is missing or not a string).
std::string string_attribute(hid_t object, const char* name) {
  const hid_t a = H5Aopen(object, name, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  if (a < 0) return "";
  const hid_t type = H5Aget_type(a);
  EXPECT_EQ(H5Tget_class(type), H5T_STRING) << name << " is not an HDF5 string";
  std::string value(H5Tget_size(type), '\0');
  EXPECT_GE(H5Aread(a, type, value.data()), 0);
  H5Tclose(type);
  H5Aclose(a);
  return value.substr(0, value.find('\0'));
}

std::string comment_of(hid_t object) {
  char buffer[2048] = "";
  H5Oget_comment(object, buffer, sizeof buffer);
  return buffer;
}

// What h5dump shows a stranger: the solid mask (cell by cell as the obstacle says, a byte per
// cell), on every dataset its centring, axis order, units and description as strings and as the
// comment `h5dump -H` prints, the job text as a string, and the provenance on the root.
TEST(Hdf5Frame, DescribesItself) {
  const JobConfig job = make_job(3);
  const std::string dir = "test_hdf5_describes_np" + std::to_string(test::comm_size());
  if (test::comm_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-frame_test_marker", "7"), 0);
  write_frame(PETSC_COMM_WORLD, job, dir);
  ASSERT_EQ(PetscOptionsClearValue(nullptr, "-frame_test_marker"), 0);
  long failures = 0;
  if (test::comm_rank() == 0) {
    const std::string path = dir + "/frame_000000.h5";
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);

    // The mask, against the box computed here from cell centres.
    const hid_t solid = H5Dopen2(file, "solid", H5P_DEFAULT);
    const hid_t solid_type = H5Dget_type(solid);
    EXPECT_EQ(H5Tget_size(solid_type), 1u);
    EXPECT_EQ(H5Tget_sign(solid_type), H5T_SGN_NONE);
    H5Tclose(solid_type);
    std::vector<unsigned char> mask(13 * 11 * 9);
    EXPECT_GE(H5Dread(solid, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, mask.data()), 0);
    H5Dclose(solid);
    const double h[3] = {0.1, 0.1, 0.1}, origin[3] = {-0.5, 0.25, 1.0};
    long wrong = 0, solid_cells = 0;
    for (long k = 0; k < 9; ++k)
      for (long j = 0; j < 11; ++j)
        for (long i = 0; i < 13; ++i) {
          const double x = origin[0] + (i + 0.5) * h[0], y = origin[1] + (j + 0.5) * h[1],
                       z = origin[2] + (k + 0.5) * h[2];
          const bool inside = x > -0.22 && x < 0.28 && y > 0.52 && y < 0.88 && z > 1.22 && z < 1.58;
          solid_cells += inside;
          if (mask[static_cast<size_t>((k * 11 + j) * 13 + i)] != (inside ? 2 : 0)) ++wrong;
        }
    EXPECT_EQ(wrong, 0);
    EXPECT_GT(solid_cells, 0);

    struct Expected {
      const char* dataset;
      const char* centring;
      const char* axis_order;
      const char* units;
    };
    for (const Expected& e : {Expected{"velocity", "cell", "z, y, x, component", "length / time"},
                              Expected{"density", "cell", "z, y, x", "as the job gives scalars.density"},
                              Expected{"solid", "cell", "z, y, x", "none"},
                              Expected{"face_velocity/x", "face", "z, y, x", "length / time"},
                              Expected{"face_velocity/z", "face", "z, y, x", "length / time"}}) {
      const hid_t d = H5Dopen2(file, e.dataset, H5P_DEFAULT);
      ASSERT_GE(d, 0) << e.dataset;
      EXPECT_EQ(string_attribute(d, "centring"), e.centring) << e.dataset;
      EXPECT_EQ(string_attribute(d, "axis_order"), e.axis_order) << e.dataset;
      EXPECT_EQ(string_attribute(d, "units"), e.units) << e.dataset;
      const std::string description = string_attribute(d, "description");
      EXPECT_FALSE(description.empty()) << e.dataset;
      const std::string comment = comment_of(d);
      EXPECT_NE(comment.find(description), std::string::npos) << e.dataset << ": " << comment;
      EXPECT_NE(comment.find(std::string("axes ") + e.axis_order), std::string::npos) << comment;
      H5Dclose(d);
    }
    const hid_t velocity = H5Dopen2(file, "velocity", H5P_DEFAULT);
    EXPECT_EQ(string_attribute(velocity, "components"), "u, v, w (along x, y, z)");
    H5Dclose(velocity);

    // The job, as a string dataset, and the root's description and provenance.
    const hid_t job_dataset = H5Dopen2(file, "job", H5P_DEFAULT);
    const hid_t job_type = H5Dget_type(job_dataset);
    EXPECT_EQ(H5Tget_class(job_type), H5T_STRING);
    std::string text(H5Tget_size(job_type), '\0');
    EXPECT_GE(H5Dread(job_dataset, job_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), 0);
    EXPECT_EQ(text.substr(0, text.find('\0')), job.text);
    H5Tclose(job_type);
    H5Dclose(job_dataset);
    EXPECT_EQ(string_attribute(file, "job_file"), "jobs/frame.yaml");
    EXPECT_NE(string_attribute(file, "conventions").find("cells, origin and spacing are in x, y, z"),
              std::string::npos);
    EXPECT_EQ(string_attribute(file, "program"), program_version());
    EXPECT_EQ(string_attribute(file, "commit"), git_commit());
    EXPECT_TRUE(std::regex_match(string_attribute(file, "written"),
                                 std::regex("20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z")));
    EXPECT_NE(string_attribute(file, "libraries").find("PETSc 3."), std::string::npos);
    EXPECT_NE(string_attribute(file, "petsc_options").find("-frame_test_marker 7"),
              std::string::npos);
    string_attribute(file, "command_line");
    long long ranks = 0;
    const hid_t ranks_attribute = H5Aopen(file, "ranks", H5P_DEFAULT);
    EXPECT_GE(H5Aread(ranks_attribute, H5T_NATIVE_LLONG, &ranks), 0);
    H5Aclose(ranks_attribute);
    EXPECT_EQ(ranks, test::comm_size());
    EXPECT_NE(comment_of(file).find("frame 0 at t = 0.375, step 7, of job frame"),
              std::string::npos)
        << comment_of(file);
    H5Fclose(file);
    failures += testing::Test::HasFailure() ? 1 : 0;
  }
  EXPECT_EQ(test::global_sum(failures), 0);
  if (test::comm_rank() == 0) fs::remove_all(dir);
}

}  // namespace
}  // namespace sf
