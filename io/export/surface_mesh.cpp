// Marching cubes on the cell-centre lattice, slab by slab, and the PLY/OBJ writers
// (surface_mesh.hpp says why not OpenVDB's volumeToMesh, and why the mesh is watertight).
//
// The triangles of each of the 256 inside/outside patterns of a cube's corners are not a
// hand-typed table: build_table() derives them once from the face rule, so the rule that makes
// the mesh watertight is the code itself. A cube's corner c is (c & 1, c >> 1 & 1, c >> 2 & 1)
// along x, y, z; its edge 4 a + (b1 + 2 b2) runs along axis a at offsets (b1, b2) along the other
// two axes in x, y, z order. A corner is liquid where phi < 0 (phi = 0 counts as air, so a
// crossing lies on an edge from a negative value to a value >= 0, never between two zeros).
#include "surface_mesh.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

namespace sf::exporter {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

struct CubeTriangles {
  int count = 0;
  std::array<std::array<std::uint8_t, 3>, 12> edges{};  // 12 suffices: at most 12 crossings
};
using Table = std::array<CubeTriangles, 256>;

/// The edge joining corners c and d (which differ along one axis).
int edge_between(int c, int d) {
  const int axis = (c ^ d) == 1 ? 0 : (c ^ d) == 2 ? 1 : 2;
  const int lo = c & d;  // the end at 0 along `axis`
  const int x = lo & 1, y = lo >> 1 & 1, z = lo >> 2 & 1;
  const int offset = axis == 0 ? y + 2 * z : axis == 1 ? x + 2 * z : x + 2 * y;
  return 4 * axis + offset;
}

/// The middle of edge e, in cube coordinates (to orient the table).
std::array<double, 3> edge_middle(int e) {
  const int axis = e / 4, b1 = e % 4 & 1, b2 = e % 4 >> 1;
  std::array<double, 3> p{};
  p[axis] = 0.5;
  p[axis == 0 ? 1 : 0] = b1;
  p[axis == 2 ? 1 : 2] = b2;
  return p;
}

Table build_table() {
  // The six faces, each as its four corners counter-clockwise seen from outside the cube: on
  // the face at side s of axis a, with u = a + 1 and v = a + 2 (mod 3), u x v = e_a, so the
  // order (0,0) (1,0) (1,1) (0,1) in (u, v) is counter-clockwise seen from +a, and its reverse
  // from -a.
  std::array<std::array<int, 4>, 6> faces{};
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s) {
      const int u = (a + 1) % 3, v = (a + 2) % 3;
      const int uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
      for (int n = 0; n < 4; ++n) {
        const int m = s == 1 ? n : (4 - n) % 4;
        faces[2 * a + s][n] = s << a | uv[m][0] << u | uv[m][1] << v;
      }
    }
  Table table;
  for (int pattern = 1; pattern < 255; ++pattern) {
    auto liquid = [pattern](int corner) { return (pattern >> corner & 1) != 0; };
    // The face rule: walking a face's corners counter-clockwise, from an air corner, each run of
    // liquid corners gets one segment, from the edge where the walk enters it to the edge where
    // it leaves. The segment has the run on its right; on an ambiguous face the two liquid
    // corners are two runs, cut off apart. Seen from the neighbouring cube the walk is reversed,
    // so it draws the same segment, the other way round: the mesh is consistently oriented.
    std::array<int, 12> next;
    next.fill(-1);
    for (const std::array<int, 4>& face : faces) {
      int start = 0;
      while (start < 4 && liquid(face[start])) ++start;
      if (start == 4) continue;  // all liquid: no crossing on this face
      int entered = -1;
      for (int n = 0; n < 4; ++n) {
        const int c = face[(start + n) % 4], d = face[(start + n + 1) % 4];
        if (!liquid(c) && liquid(d)) entered = edge_between(c, d);
        if (liquid(c) && !liquid(d)) next[static_cast<size_t>(entered)] = edge_between(c, d);
      }
    }
    // Each crossing edge lies on two faces and is entered on one, left on the other, so `next`
    // chains the crossings into closed loops; each loop is fanned into triangles.
    CubeTriangles& cube = table[static_cast<size_t>(pattern)];
    std::array<bool, 12> used{};
    for (int first = 0; first < 12; ++first) {
      if (next[static_cast<size_t>(first)] < 0 || used[static_cast<size_t>(first)]) continue;
      std::vector<int> loop;
      for (int e = first; !used[static_cast<size_t>(e)]; e = next[static_cast<size_t>(e)]) {
        used[static_cast<size_t>(e)] = true;
        loop.push_back(e);
      }
      for (size_t n = 1; n + 1 < loop.size(); ++n)
        cube.edges[static_cast<size_t>(cube.count++)] = {
            static_cast<std::uint8_t>(loop[0]), static_cast<std::uint8_t>(loop[n]),
            static_cast<std::uint8_t>(loop[n + 1])};
    }
  }
  // Which way the loops turn follows from the rule above; rather than trust a hand argument,
  // look at the one-corner pattern: corner 0 liquid, its triangle's right-hand normal must point
  // away from corner 0. If it does not, every triangle is turned over.
  const auto& corner = table[1].edges[0];
  const auto a = edge_middle(corner[0]), b = edge_middle(corner[1]), c = edge_middle(corner[2]);
  const double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const double normal[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2],
                            ab[0] * ac[1] - ab[1] * ac[0]};
  if (normal[0] + normal[1] + normal[2] < 0.0)  // (a + b + c) / 3 - corner 0 is (1, 1, 1) / 6
    for (CubeTriangles& cube : table)
      for (int t = 0; t < cube.count; ++t)
        std::swap(cube.edges[static_cast<size_t>(t)][1], cube.edges[static_cast<size_t>(t)][2]);
  return table;
}

const Table& cube_table() {
  static const Table table = build_table();
  return table;
}

/// Where phi, linear between a (at 0) and b (at 1), is zero: a < 0 <= b or b < 0 <= a, so the
/// denominator is not zero and the result lies in [0, 1].
double crossing(double a, double b) { return a / (a - b); }

}  // namespace

MarchingCubes::MarchingCubes(const FrameGrid& grid)
    : grid_(grid), nx_(grid.cells[0]), ny_(grid.cells[1]) {
  const auto plane = static_cast<size_t>(nx_ * ny_);
  below_.resize(plane);
  x_below_.resize(plane);
  y_below_.resize(plane);
  x_above_.resize(plane);
  y_above_.resize(plane);
  z_between_.resize(plane);
  (void)cube_table();
}

std::uint32_t MarchingCubes::add_vertex(double x, double y, double z) {
  mesh_.points.push_back(static_cast<float>(x));
  mesh_.points.push_back(static_cast<float>(y));
  mesh_.points.push_back(static_cast<float>(z));
  return static_cast<std::uint32_t>(mesh_.points.size() / 3 - 1);
}

void MarchingCubes::plane_crossings(const double* phi, std::vector<std::uint32_t>* x_edges,
                                    std::vector<std::uint32_t>* y_edges) {
  const double hx = grid_.spacing[0], hy = grid_.spacing[1];
  const double x0 = grid_.origin[0] + 0.5 * hx, y0 = grid_.origin[1] + 0.5 * hy;
  const double z = grid_.origin[2] + (static_cast<double>(plane_) + 0.5) * grid_.spacing[2];
  for (long long j = 0; j < ny_; ++j)
    for (long long i = 0; i < nx_; ++i) {
      const long long c = j * nx_ + i;
      const double p = phi[c];
      const double y = y0 + static_cast<double>(j) * hy;
      (*x_edges)[static_cast<size_t>(c)] = kNone;
      (*y_edges)[static_cast<size_t>(c)] = kNone;
      if (i + 1 < nx_ && (p < 0.0) != (phi[c + 1] < 0.0))
        (*x_edges)[static_cast<size_t>(c)] =
            add_vertex(x0 + (static_cast<double>(i) + crossing(p, phi[c + 1])) * hx, y, z);
      if (j + 1 < ny_ && (p < 0.0) != (phi[c + nx_] < 0.0))
        (*y_edges)[static_cast<size_t>(c)] =
            add_vertex(x0 + static_cast<double>(i) * hx,
                       y0 + (static_cast<double>(j) + crossing(p, phi[c + nx_])) * hy, z);
    }
}

void MarchingCubes::layer_crossings(const double* above) {
  const double hx = grid_.spacing[0], hy = grid_.spacing[1], hz = grid_.spacing[2];
  const double x0 = grid_.origin[0] + 0.5 * hx, y0 = grid_.origin[1] + 0.5 * hy;
  const double z0 = grid_.origin[2] + (static_cast<double>(plane_ - 1) + 0.5) * hz;
  for (long long j = 0; j < ny_; ++j)
    for (long long i = 0; i < nx_; ++i) {
      const auto c = static_cast<size_t>(j * nx_ + i);
      z_between_[c] = kNone;
      if ((below_[c] < 0.0) != (above[c] < 0.0))
        z_between_[c] = add_vertex(x0 + static_cast<double>(i) * hx,
                                   y0 + static_cast<double>(j) * hy,
                                   z0 + crossing(below_[c], above[c]) * hz);
    }
}

void MarchingCubes::layer_cubes(const double* above) {
  const Table& table = cube_table();
  const long long nx = nx_;
  for (long long j = 0; j + 1 < ny_; ++j)
    for (long long i = 0; i + 1 < nx; ++i) {
      const long long c = j * nx + i;
      const double corners[8] = {below_[static_cast<size_t>(c)],
                                 below_[static_cast<size_t>(c + 1)],
                                 below_[static_cast<size_t>(c + nx)],
                                 below_[static_cast<size_t>(c + nx + 1)],
                                 above[c], above[c + 1], above[c + nx], above[c + nx + 1]};
      int pattern = 0;
      for (int n = 0; n < 8; ++n) pattern |= (corners[n] < 0.0 ? 1 : 0) << n;
      const CubeTriangles& cube = table[static_cast<size_t>(pattern)];
      if (cube.count == 0) continue;
      // The mesh vertex of each of the cube's 12 edges (kNone where phi does not cross it).
      const auto at = [](const std::vector<std::uint32_t>& edges, long long n) {
        return edges[static_cast<size_t>(n)];
      };
      const std::uint32_t vertex[12] = {
          at(x_below_, c), at(x_below_, c + nx), at(x_above_, c), at(x_above_, c + nx),
          at(y_below_, c), at(y_below_, c + 1), at(y_above_, c), at(y_above_, c + 1),
          at(z_between_, c), at(z_between_, c + 1), at(z_between_, c + nx),
          at(z_between_, c + nx + 1)};
      for (int t = 0; t < cube.count; ++t)
        for (const std::uint8_t e : cube.edges[static_cast<size_t>(t)])
          mesh_.triangles.push_back(vertex[e]);
    }
}

void MarchingCubes::add_plane(const double* phi) {
  if (plane_ == 0) {
    plane_crossings(phi, &x_below_, &y_below_);
  } else {
    layer_crossings(phi);
    plane_crossings(phi, &x_above_, &y_above_);
    layer_cubes(phi);
    x_below_.swap(x_above_);
    y_below_.swap(y_above_);
  }
  std::copy(phi, phi + nx_ * ny_, below_.begin());
  ++plane_;
}

namespace {

/// Writes the whole mesh to `out` in `format`; false if a write failed.
bool put_mesh(std::FILE* out, const std::string& format, const SurfaceMesh& mesh,
              const std::string& comment) {
  bool ok = true;
  if (format == "obj") {
    ok = std::fprintf(out, "# %s\n", comment.c_str()) > 0;
    // %.9g: nine significant digits give back every float exactly, so the OBJ holds the same
    // points as the PLY.
    for (size_t v = 0; ok && v < mesh.vertex_count(); ++v)
      ok = std::fprintf(out, "v %.9g %.9g %.9g\n", static_cast<double>(mesh.points[3 * v]),
                        static_cast<double>(mesh.points[3 * v + 1]),
                        static_cast<double>(mesh.points[3 * v + 2])) > 0;
    for (size_t t = 0; ok && t < mesh.triangle_count(); ++t)
      ok = std::fprintf(out, "f %u %u %u\n", mesh.triangles[3 * t] + 1,
                        mesh.triangles[3 * t + 1] + 1, mesh.triangles[3 * t + 2] + 1) > 0;
    return ok;
  }
  ok = std::fprintf(out,
                    "ply\nformat binary_little_endian 1.0\ncomment %s\nelement vertex %zu\n"
                    "property float x\nproperty float y\nproperty float z\n"
                    "element face %zu\nproperty list uchar uint vertex_indices\nend_header\n",
                    comment.c_str(), mesh.vertex_count(), mesh.triangle_count()) > 0;
  // The records go out as they lie in memory, which is little-endian on every platform this
  // builds for (x86-64, aarch64); a big-endian host would need byte swaps here.
  static_assert(sizeof(float) == 4 && sizeof(std::uint32_t) == 4, "PLY float and uint");
  ok = ok && std::fwrite(mesh.points.data(), sizeof(float), mesh.points.size(), out) ==
                 mesh.points.size();
  // Each face: a count byte (3), then its three indices; packed into a buffer of faces so that
  // the file gets a few large writes.
  constexpr size_t kFaceBytes = 1 + 3 * sizeof(std::uint32_t), kBatch = 4096;
  std::vector<unsigned char> buffer(kFaceBytes * kBatch);
  for (size_t first = 0; ok && first < mesh.triangle_count(); first += kBatch) {
    const size_t count = std::min(kBatch, mesh.triangle_count() - first);
    unsigned char* record = buffer.data();
    for (size_t t = first; t < first + count; ++t, record += kFaceBytes) {
      record[0] = 3;
      std::memcpy(record + 1, &mesh.triangles[3 * t], 3 * sizeof(std::uint32_t));
    }
    ok = std::fwrite(buffer.data(), kFaceBytes, count, out) == count;
  }
  return ok;
}

}  // namespace

bool write_mesh(const std::string& path, const std::string& format, const SurfaceMesh& mesh,
                const std::string& comment, std::string* error) {
  const std::string temporary = path + ".tmp";
  std::FILE* out = std::fopen(temporary.c_str(), "wb");
  if (!out) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = put_mesh(out, format, mesh, comment);
  int saved = errno;
  if (std::fclose(out) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && std::rename(temporary.c_str(), path.c_str()) == 0) return true;
  if (ok) saved = errno;
  std::remove(temporary.c_str());
  *error = "cannot write " + path + ": " + std::strerror(saved);
  return false;
}

}  // namespace sf::exporter
