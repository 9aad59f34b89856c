// Obstacles from triangle meshes (Region::Shape::Mesh, TriangleMesh, job/read_mesh.cpp): the
// inside test is right where the rays of a lattice run through a mesh's edges and vertices, the
// enclosed volume is the polyhedron's, the voxelised volume converges to it and an icosphere's
// to the sphere's (the mac layer's TriangleMesh alone); a mesh read from an STL file through the
// job makes exactly the cells whose centres it holds solid, at every rank count, at rest (the
// SolidMask on a bench) and towed (the moving-obstacles module's steps on a bench,
// module_bench.hpp: no solver moves a mask). Bad meshes are refused with the job's key and line
// (the job layer).
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "job.hpp"
#include "mpi_test_util.hpp"
#include "module_bench.hpp"
#include "triangle_mesh.hpp"

namespace sf {
namespace {

struct Mesh {
  std::vector<double> vertices;
  std::vector<std::int64_t> triangles;
  TriangleMesh build() const { return TriangleMesh(vertices, triangles); }
};

/// The cube [lower, upper]^3 as 12 triangles (each face split along a diagonal).
Mesh cube(double lower, double upper) {
  Mesh m;
  for (int v = 0; v < 8; ++v)
    for (int a = 0; a < 3; ++a) m.vertices.push_back((v >> a) & 1 ? upper : lower);
  // Faces as corner quadruples (in order round the face), each split into two triangles.
  const int faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                           {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  for (const auto& f : faces) {
    for (int corner : {f[0], f[1], f[2]}) m.triangles.push_back(corner);
    for (int corner : {f[0], f[2], f[3]}) m.triangles.push_back(corner);
  }
  return m;
}

/// The octahedron |x - c|_1 <= r: its vertices lie on the axes through c, where rays run.
Mesh octahedron(const std::array<double, 3>& c, double r) {
  Mesh m;
  for (int a = 0; a < 3; ++a)
    for (int side : {-1, 1}) {
      std::array<double, 3> p = c;
      p[a] += side * r;
      m.vertices.insert(m.vertices.end(), p.begin(), p.end());
    }
  // Vertex 2a is -r along axis a, 2a + 1 is +r: one triangle per octant, turned to face out
  // (counter-clockwise seen from outside) where the octant's signs multiply to -1.
  for (int sx : {0, 1})
    for (int sy : {2, 3})
      for (int sz : {4, 5}) {
        const bool outward = (sx + sy + sz) % 2 == 1;  // an odd number of + sides
        if (outward) m.triangles.insert(m.triangles.end(), {sx, sy, sz});
        else m.triangles.insert(m.triangles.end(), {sx, sz, sy});
      }
  return m;
}

/// An icosahedron subdivided `levels` times, its vertices pushed onto the sphere.
Mesh icosphere(const std::array<double, 3>& c, double r, int levels) {
  const double g = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<std::array<double, 3>> points = {
      {-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0}, {0, -1, g}, {0, 1, g},
      {0, -1, -g}, {0, 1, -g}, {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
  std::vector<std::array<std::int64_t, 3>> faces = {
      {0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
      {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
      {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
  const auto unit = [](std::array<double, 3> p) {
    const double n = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    for (double& x : p) x /= n;
    return p;
  };
  for (auto& p : points) p = unit(p);
  for (int level = 0; level < levels; ++level) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> middle;
    const auto mid = [&](std::int64_t a, std::int64_t b) {
      const auto key = std::make_pair(std::min(a, b), std::max(a, b));
      auto found = middle.find(key);
      if (found != middle.end()) return found->second;
      std::array<double, 3> p;
      for (int d = 0; d < 3; ++d) p[d] = 0.5 * (points[a][d] + points[b][d]);
      points.push_back(unit(p));
      return middle[key] = static_cast<std::int64_t>(points.size() - 1);
    };
    std::vector<std::array<std::int64_t, 3>> finer;
    for (const auto& f : faces) {
      const std::int64_t ab = mid(f[0], f[1]), bc = mid(f[1], f[2]), ca = mid(f[2], f[0]);
      finer.push_back({f[0], ab, ca});
      finer.push_back({f[1], bc, ab});
      finer.push_back({f[2], ca, bc});
      finer.push_back({ab, bc, ca});
    }
    faces = finer;
  }
  Mesh m;
  for (const auto& p : points)
    for (int d = 0; d < 3; ++d) m.vertices.push_back(c[d] + r * p[d]);
  for (const auto& f : faces) m.triangles.insert(m.triangles.end(), f.begin(), f.end());
  return m;
}

/// The lattice points (i + 0.5) h, i < n, along each axis that `mesh` holds, times h^3.
double voxel_volume(const TriangleMesh& mesh, int n) {
  const double h = 1.0 / n;
  long inside = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const double x[3] = {(i + 0.5) * h, (j + 0.5) * h, (k + 0.5) * h};
        inside += mesh.contains(x);
      }
  return static_cast<double>(inside) * h * h * h;
}

TEST(TriangleMesh, ACubeAndAnOctahedronHoldTheLatticeEvenWhereRaysRunThroughEdgesAndVertices) {
  // On a lattice of spacing 1/16, the rays of the points inside the cube [0.25, 0.75]^3 run
  // through the diagonals of its faces (y = z), and those of the octahedron through its
  // vertices and edges; a point counts as inside exactly when it is strictly inside.
  const TriangleMesh box = cube(0.25, 0.75).build();
  const TriangleMesh diamond = octahedron({0.5, 0.5, 0.5}, 0.25).build();
  long wrong_box = 0, wrong_diamond = 0, checked = 0;
  for (int i = 0; i <= 16; ++i)
    for (int j = 0; j <= 16; ++j)
      for (int k = 0; k <= 16; ++k) {
        const double x[3] = {i / 16.0, j / 16.0, k / 16.0};
        const double box_gap = std::max({std::abs(x[0] - 0.5), std::abs(x[1] - 0.5),
                                         std::abs(x[2] - 0.5)}) - 0.25;
        const double diamond_gap =
            std::abs(x[0] - 0.5) + std::abs(x[1] - 0.5) + std::abs(x[2] - 0.5) - 0.25;
        // Points on a surface may go either way.
        if (box_gap != 0.0) wrong_box += box.contains(x) != (box_gap < 0.0);
        if (std::abs(diamond_gap) > 1e-12)
          wrong_diamond += diamond.contains(x) != (diamond_gap < 0.0);
        ++checked;
      }
  EXPECT_EQ(wrong_box, 0) << "of " << checked;
  EXPECT_EQ(wrong_diamond, 0) << "of " << checked;
}

TEST(TriangleMesh, TheOrientationOfTheTrianglesDoesNotMatter) {
  Mesh mixed = icosphere({0.5, 0.5, 0.5}, 0.3, 2);
  for (size_t t = 0; t < mixed.triangles.size(); t += 6)
    std::swap(mixed.triangles[t + 1], mixed.triangles[t + 2]);
  const TriangleMesh original = icosphere({0.5, 0.5, 0.5}, 0.3, 2).build();
  const TriangleMesh flipped = mixed.build();
  EXPECT_EQ(voxel_volume(original, 40), voxel_volume(flipped, 40));
}

TEST(TriangleMesh, EnclosesThePolyhedronsVolumeAndAnIcosphereConvergesToTheSphere) {
  EXPECT_NEAR(cube(0.25, 0.75).build().volume(), 0.125, 1e-15);
  EXPECT_NEAR(octahedron({0.5, 0.5, 0.5}, 0.25).build().volume(), 4.0 / 3.0 * std::pow(0.25, 3),
              1e-15);
  const double sphere = 4.0 / 3.0 * M_PI * 0.3 * 0.3 * 0.3;
  double previous = HUGE_VAL;
  for (int levels = 1; levels <= 4; ++levels) {
    const double error =
        std::abs(icosphere({0.5, 0.5, 0.5}, 0.3, levels).build().volume() - sphere);
    // Each subdivision quarters the chordal error (second order in the edge length).
    EXPECT_LT(error, 0.3 * previous) << "levels " << levels;
    previous = error;
  }
  EXPECT_LT(previous / sphere, 2.5e-3);  // 2.16e-3 at 5120 triangles
}

TEST(TriangleMesh, KnowsWhetherItsTrianglesAgreeOnWhichSideIsOut) {
  EXPECT_TRUE(cube(0, 1).build().consistently_oriented());
  EXPECT_TRUE(octahedron({0, 0, 0}, 1).build().consistently_oriented());
  Mesh flipped = cube(0, 1);
  std::swap(flipped.triangles[1], flipped.triangles[2]);
  EXPECT_FALSE(flipped.build().consistently_oriented());
}

TEST(TriangleMesh, TheVoxelisedVolumeConvergesToTheEnclosedVolume) {
  const TriangleMesh ball = icosphere({0.5, 0.47, 0.52}, 0.3, 4).build();
  double previous = HUGE_VAL;
  for (int n : {16, 32, 64}) {
    const double error = std::abs(voxel_volume(ball, n) - ball.volume()) / ball.volume();
    EXPECT_LT(error, previous) << n << " cells";
    previous = error;
  }
  EXPECT_LT(previous, 0.01);
}

TEST(TriangleMesh, AClosedSurfaceIsOneWithEveryEdgeInTwoTriangles) {
  EXPECT_EQ(cube(0, 1).build().closed_problem(), "");
  Mesh holed = cube(0, 1);
  holed.triangles.resize(holed.triangles.size() - 3);
  EXPECT_EQ(holed.build().closed_problem(),
            "3 edges belong to one triangle only (the surface has holes, so it encloses no "
            "volume)");
}

/// Writes `mesh` as an ASCII STL file (rank 0) with each facet's normal, as CAD tools do (a
/// reader that kept the normals would not join the vertices of faces at an angle), and waits for
/// it on every rank.
void write_stl(const std::string& path, const Mesh& mesh) {
  if (test::comm_rank() == 0) {
    std::ofstream out(path);
    out.precision(17);
    out << "solid test\n";
    for (size_t t = 0; t < mesh.triangles.size(); t += 3) {
      const double* a = &mesh.vertices[3 * static_cast<size_t>(mesh.triangles[t])];
      const double* b = &mesh.vertices[3 * static_cast<size_t>(mesh.triangles[t + 1])];
      const double* c = &mesh.vertices[3 * static_cast<size_t>(mesh.triangles[t + 2])];
      const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
      double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                     u[0] * v[1] - u[1] * v[0]};
      const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      for (double& x : n) x /= length;
      out << " facet normal " << n[0] << " " << n[1] << " " << n[2] << "\n  outer loop\n";
      for (int corner = 0; corner < 3; ++corner) {
        const double* p = &mesh.vertices[3 * static_cast<size_t>(mesh.triangles[t + corner])];
        out << "   vertex " << p[0] << " " << p[1] << " " << p[2] << "\n";
      }
      out << "  endloop\n endfacet\n";
    }
    out << "endsolid test\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/// Writes `text` as a job file (rank 0) and loads it on every rank.
JobConfig load(const std::string& path, const std::string& text) {
  if (test::comm_rank() == 0) std::ofstream(path) << text;
  MPI_Barrier(MPI_COMM_WORLD);
  return load_job(PETSC_COMM_WORLD, path);
}

std::string scratch(const std::string& name) {
  return "mesh_" + name + "_np" + std::to_string(test::comm_size());
}

/// Cells, over all ranks, whose solid flag differs from whether `mesh` holds their centre.
long misplaced_cells(const Grid& grid, const SolidMask& solids, const TriangleMesh& mesh,
                     const std::array<double, 3>& shift) {
  long misplaced = 0;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    const double x[3] = {grid.cell_center(0, i) - shift[0], grid.cell_center(1, j) - shift[1],
                         grid.cell_center(2, k) - shift[2]};
    if (mesh.contains(x) != solids.solid(i, j, k)) ++misplaced;
  });
  return test::global_sum(misplaced);
}

TEST(MeshObstacle, AnStlSphereMakesSolidExactlyTheCellsItHoldsAtEveryRankCount) {
  // A unit icosphere in the file, scaled to radius 0.3 and centred at (0.5, 0.45, 0.5).
  const std::string stl = scratch("ball") + ".stl";
  write_stl(stl, icosphere({0, 0, 0}, 1.0, 3));
  const JobConfig job = load(scratch("ball") + ".yaml",
      "name: ball\ngrid: {cells: [24, 20, 22]}\n"
      "boundary: {x: free-slip, y: free-slip, z: free-slip}\n"
      "obstacles: [{shape: mesh, file: " + stl + ", scale: 0.3, center: [0.5, 0.45, 0.5]}]\n"
      "time: {dt: 0.01, end: 0.01}\n"
      "output: {directory: " + scratch("ball") + ", overwrite: true, initial_frame: false}\n");
  const TriangleMesh& mesh = *job.obstacles[0].region.mesh;
  EXPECT_NEAR(0.5 * (mesh.lower()[1] + mesh.upper()[1]), 0.45, 1e-12);
  EXPECT_NEAR(mesh.upper()[0] - mesh.lower()[0], 0.6, 1e-12);
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  const Grid& grid = bench.grid();
  EXPECT_EQ(misplaced_cells(grid, bench.solids(), mesh, {0, 0, 0}), 0);
  // The same count on every rank count: the one a single process makes of the whole grid.
  long expected = 0;
  for (int i = 0; i < 24; ++i)
    for (int j = 0; j < 20; ++j)
      for (int k = 0; k < 22; ++k) {
        const double x[3] = {grid.cell_center(0, i), grid.cell_center(1, j),
                             grid.cell_center(2, k)};
        expected += mesh.contains(x);
      }
  EXPECT_GT(expected, 1000);
  EXPECT_EQ(bench.solids().solid_cells(), expected);
}

TEST(MeshObstacle, ATowedMeshCubeIsWhereItsMotionPutsIt) {
  const std::string stl = scratch("cube") + ".stl";
  write_stl(stl, cube(-0.5, 0.5));
  const JobConfig job = load(scratch("cube") + ".yaml",
      "name: cube\ngrid: {cells: [24, 16, 16]}\n"
      "boundary: {x: periodic, y: free-slip, z: free-slip}\n"
      "obstacles: [{shape: mesh, file: " + stl + ", scale: 0.25, center: [0.3, 0.5, 0.5],\n"
      "             motion: {velocity: [1.7, 0, 0]}}]\n"
      "time: {dt: 0.02, end: 0.1}\n"
      "output: {directory: " + scratch("cube") + ", overwrite: true, initial_frame: false}\n");
  // The bench's steps, without diffusion and projection: neither moves the mask.
  test::ModuleBench bench;
  ASSERT_EQ(bench.setup(PETSC_COMM_WORLD, job), 0);
  const TriangleMesh& mesh = *job.obstacles[0].region.mesh;
  for (int step = 1; step <= 5; ++step) {
    ASSERT_EQ(bench.step_without_solvers(job.time.dt), 0);
    const double shift = 1.7 * bench.flow().time;
    // Each cell centre tested against the cube where the motion has put it (and against its
    // image one period back, once it has crossed x = 1).
    const Grid& grid = bench.grid();
    long misplaced = 0;
    for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
      bool in = false;
      for (double image : {0.0, -1.0, 1.0}) {
        const double x[3] = {grid.cell_center(0, i) - shift - image, grid.cell_center(1, j),
                             grid.cell_center(2, k)};
        in = in || mesh.contains(x);
      }
      misplaced += in != bench.solids().solid(i, j, k);
    });
    EXPECT_EQ(test::global_sum(misplaced), 0) << "step " << step;
  }
}

TEST(MeshObstacle, TheShippedRingJobReadsAClosedMesh) {
  // jobs/ is checked with parse_job elsewhere, which reads no mesh: this reads it.
  const JobConfig job = load_job(
      PETSC_COMM_WORLD, std::string(STABLEFLUIDS_SOURCE_DIR) + "/jobs/plume_through_ring_3d.yaml");
  ASSERT_EQ(job.obstacles.size(), 1u);
  const TriangleMesh& ring = *job.obstacles[0].region.mesh;
  EXPECT_EQ(ring.triangle_count(), 3072u);
  EXPECT_TRUE(ring.consistently_oriented());
  // The torus of radii 1 and 0.3 scaled by 0.12: 2 pi^2 R r^2 0.12^3, less the polygon's chords.
  const double torus = 2.0 * M_PI * M_PI * 1.0 * 0.09 * std::pow(0.12, 3);
  EXPECT_NEAR(ring.volume() / torus, 1.0, 0.02);
  EXPECT_NEAR(0.5 * (ring.lower()[1] + ring.upper()[1]), 0.85, 1e-12);
}

/// The message of the JobError that loading `text` throws ("" if none).
std::string refusal(const std::string& name, const std::string& text) {
  try {
    (void)load(scratch(name) + ".yaml", text);
  } catch (const JobError& error) {
    return error.what();
  }
  return "";
}

TEST(MeshObstacle, AMissingFileAnOpenSurfaceAndA2DGridAreRefusedWithTheKey) {
  const std::string base = "grid: {cells: [8, 8, 8]}\ntime: {dt: 0.1, end: 1}\n";
  const std::string missing = refusal("missing", base +
      "obstacles: [{shape: mesh, file: no_such_mesh.stl}]\n");
  EXPECT_NE(missing.find(":3: obstacles[0].file: cannot read mesh '"), std::string::npos)
      << missing;
  EXPECT_NE(missing.find("no_such_mesh.stl'"), std::string::npos) << missing;

  Mesh holed = cube(0.2, 0.8);
  holed.triangles.resize(holed.triangles.size() - 3);
  const std::string stl = scratch("holed") + ".stl";
  write_stl(stl, holed);
  const std::string open =
      refusal("holed", base + "obstacles: [{shape: mesh, file: " + stl + "}]\n");
  EXPECT_NE(open.find(":3: obstacles[0].file: mesh '"), std::string::npos) << open;
  EXPECT_NE(open.find("is not a closed surface: 3 edges belong to one triangle only"),
            std::string::npos) << open;

  const std::string flat = refusal("flat",
      "grid: {cells: [8, 8]}\ntime: {dt: 0.1, end: 1}\n"
      "obstacles: [{shape: mesh, file: " + stl + "}]\n");
  EXPECT_NE(flat.find("obstacles[0].shape: a mesh obstacle needs a 3-D grid"), std::string::npos)
      << flat;
  const std::string cut = refusal("cut", base +
      "obstacles: [{shape: mesh, file: " + stl + ", surface: cut}]\n");
  EXPECT_NE(cut.find("obstacles[0].surface: a mesh obstacle is a staircase"), std::string::npos)
      << cut;
  const std::string turning = refusal("turning", base +
      "obstacles: [{shape: mesh, file: " + stl + ", motion: {angular_velocity: [0, 0, 1]}}]\n");
  EXPECT_NE(turning.find("a turning mesh obstacle needs a pivot"), std::string::npos) << turning;
}

}  // namespace
}  // namespace sf
