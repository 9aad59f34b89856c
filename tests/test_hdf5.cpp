// HDF5 frames and the XDMF index. A frame written collectively on all ranks must be identical,
// bit for bit, to the same frame written on one rank; its datasets must sit where the layout says
// (checked against the analytic initial fields, independently of the writer); and every dataset
// the .xmf names must exist with the shape the .xmf states.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "hdf5_writer.hpp"
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
  return job;
}

/// Builds the fields of `job` on `comm`, sets the initial state and writes one frame to `dir`.
void write_frame(MPI_Comm comm, const JobConfig& job, const std::string& dir) {
  Grid grid;
  ASSERT_EQ(grid.setup(comm, job.grid, job.boundary), 0);
  Field velocity;
  ASSERT_EQ(velocity.setup_velocity(grid), 0);
  ASSERT_EQ(set_initial_velocity(job.velocity, velocity), 0);
  ASSERT_EQ(velocity.fill_ghosts(), 0);
  std::vector<Field> scalars(job.scalars.size());
  for (size_t s = 0; s < scalars.size(); ++s) {
    ASSERT_EQ(scalars[s].setup_scalar(grid, job.scalars[s].name), 0);
    ASSERT_EQ(set_initial_scalar(job.scalars[s], scalars[s]), 0);
  }
  OutputConfig output;
  output.directory = dir;
  FrameWriter writer;
  ASSERT_EQ(writer.setup(grid, output, job.name), 0);
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
/// paths. Failures on rank 0 are shared so every rank reports the same verdict.
void compare_world_and_self(int dim) {
  const JobConfig job = make_job(dim);
  const std::string base = "test_hdf5_" + std::to_string(dim) + "d_np" +
                           std::to_string(test::comm_size());
  const std::string world_dir = base + "/world", self_dir = base + "/self";
  if (test::comm_rank() == 0) fs::remove_all(base);
  MPI_Barrier(MPI_COMM_WORLD);
  write_frame(PETSC_COMM_WORLD, job, world_dir);
  if (test::comm_rank() == 0) write_frame(PETSC_COMM_SELF, job, self_dir);

  long failures = 0;
  if (test::comm_rank() == 0) {
    const std::string world = world_dir + "/frame_000000.h5";
    const std::string self = self_dir + "/frame_000000.h5";
    EXPECT_FALSE(fs::exists(world + ".tmp"));
    std::vector<std::string> datasets = {"velocity", "density", "temperature", "face_velocity/x",
                                         "face_velocity/y"};
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
// the mesh must have one more node than cells per axis (slowest axis first).
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
      const std::string nodes = dim == 3 ? "10 12 14" : "18 24";
      EXPECT_NE(xmf.find("TopologyType=\"" + std::string(dim == 3 ? "3D" : "2D") +
                         "CoRectMesh\" Dimensions=\"" + nodes + "\""),
                std::string::npos)
          << xmf;
      EXPECT_NE(xmf.find("<Time Value=\"0.375\"/>"), std::string::npos);
      const std::regex item("Dimensions=\"([0-9 ]+)\">([^:<]+):([^<]+)</DataItem>");
      int attributes = 0;
      for (auto it = std::sregex_iterator(xmf.begin(), xmf.end(), item);
           it != std::sregex_iterator(); ++it, ++attributes) {
        const std::string file = dir + "/" + (*it)[2].str();
        const Dataset d = read_dataset(file, (*it)[3].str());
        std::string shape;
        for (hsize_t n : d.dims) shape += (shape.empty() ? "" : " ") + std::to_string(n);
        EXPECT_EQ(shape, (*it)[1].str()) << (*it)[3].str();
      }
      EXPECT_EQ(attributes, 3);  // velocity, density, temperature
      failures += testing::Test::HasFailure() ? 1 : 0;
    }
    EXPECT_EQ(test::global_sum(failures), 0);
    if (test::comm_rank() == 0) fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace sf
