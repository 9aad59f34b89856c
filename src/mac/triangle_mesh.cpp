#include "triangle_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace sf {

namespace {

/// The edge function of point (py, pz) against the projected edge from p to q, computed from
/// the two endpoints in a fixed (lexicographic) order and negated for the other direction, so
/// that the two triangles sharing an edge get exactly opposite numbers.
double edge_function(const double* p, const double* q, double py, double pz) {
  const bool forward = p[1] < q[1] || (p[1] == q[1] && p[2] < q[2]);
  const double* a = forward ? p : q;
  const double* b = forward ? q : p;
  const double w = (b[1] - a[1]) * (pz - a[2]) - (b[2] - a[2]) * (py - a[1]);
  return forward ? w : -w;
}

/// Of the two directions of an edge, exactly one is "top-left"; a point on the edge belongs to
/// the triangle that runs along it in that direction.
bool top_left(const double* p, const double* q) {
  const double dy = q[1] - p[1], dz = q[2] - p[2];
  return dz < 0.0 || (dz == 0.0 && dy > 0.0);
}

bool owns(double w, const double* p, const double* q) {
  return w > 0.0 || (w == 0.0 && top_left(p, q));
}

}  // namespace

TriangleMesh::TriangleMesh(std::vector<double> vertices, std::vector<std::int64_t> triangles)
    : vertices_(std::move(vertices)), triangles_(std::move(triangles)) {
  lower_.fill(HUGE_VAL);
  upper_.fill(-HUGE_VAL);
  for (size_t v = 0; v < vertices_.size(); v += 3)
    for (int a = 0; a < 3; ++a) {
      lower_[a] = std::min(lower_[a], vertices_[v + a]);
      upper_[a] = std::max(upper_[a], vertices_[v + a]);
    }
  bin_triangles();
}

void TriangleMesh::bin_triangles() {
  const size_t count = triangle_count();
  // About two triangles a bin for a surface spread evenly over (y, z).
  const int per_axis = static_cast<int>(
      std::clamp(std::ceil(std::sqrt(static_cast<double>(count) / 2.0)), 1.0, 1024.0));
  for (int d = 0; d < 2; ++d) {
    bins_[d] = per_axis;
    const double extent = upper_[1 + d] - lower_[1 + d];
    bin_size_[d] = extent > 0.0 ? extent / per_axis : 1.0;
  }
  const auto bin_of = [this](int d, double y) {
    const int b = static_cast<int>(std::floor((y - lower_[1 + d]) / bin_size_[d]));
    return std::clamp(b, 0, bins_[d] - 1);
  };
  // Two passes: count, then fill (one flat list, no allocation per bin).
  bin_start_.assign(static_cast<size_t>(bins_[0] * bins_[1]) + 1, 0);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<std::size_t> fill;
    if (pass == 1) {
      for (size_t b = 1; b < bin_start_.size(); ++b) bin_start_[b] += bin_start_[b - 1];
      bin_list_.assign(bin_start_.back(), 0);
      fill.assign(bin_start_.begin(), bin_start_.end() - 1);
    }
    for (size_t t = 0; t < count; ++t) {
      double low[2] = {HUGE_VAL, HUGE_VAL}, high[2] = {-HUGE_VAL, -HUGE_VAL};
      for (int corner = 0; corner < 3; ++corner) {
        const double* p = vertex(triangles_[3 * t + corner]);
        for (int d = 0; d < 2; ++d) {
          low[d] = std::min(low[d], p[1 + d]);
          high[d] = std::max(high[d], p[1 + d]);
        }
      }
      for (int b = bin_of(0, low[0]); b <= bin_of(0, high[0]); ++b)
        for (int c = bin_of(1, low[1]); c <= bin_of(1, high[1]); ++c) {
          const size_t bin = static_cast<size_t>(b) * bins_[1] + c;
          if (pass == 0) ++bin_start_[bin + 1];
          else bin_list_[fill[bin]++] = static_cast<std::uint32_t>(t);
        }
    }
  }
}

bool TriangleMesh::crosses(std::size_t t, const double x[3]) const {
  const double* a = vertex(triangles_[3 * t]);
  const double* b = vertex(triangles_[3 * t + 1]);
  const double* c = vertex(triangles_[3 * t + 2]);
  // Turned to run counter-clockwise in (y, z); a triangle seen edge-on is never crossed (its
  // neighbours are).
  const double area = (b[1] - a[1]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[1] - a[1]);
  if (area == 0.0) return false;
  if (area < 0.0) std::swap(b, c);
  const double wa = edge_function(b, c, x[1], x[2]);
  const double wb = edge_function(c, a, x[1], x[2]);
  const double wc = edge_function(a, b, x[1], x[2]);
  if (!owns(wa, b, c) || !owns(wb, c, a) || !owns(wc, a, b)) return false;
  const double total = wa + wb + wc;
  if (!(total > 0.0)) return false;
  const double hit = (wa * a[0] + wb * b[0] + wc * c[0]) / total;
  return hit >= x[0];
}

bool TriangleMesh::contains(const double x[3]) const {
  if (triangles_.empty()) return false;
  for (int a = 0; a < 3; ++a)
    if (x[a] < lower_[a] || x[a] > upper_[a]) return false;
  int at[2];
  for (int d = 0; d < 2; ++d)
    at[d] = std::clamp(static_cast<int>(std::floor((x[1 + d] - lower_[1 + d]) / bin_size_[d])),
                       0, bins_[d] - 1);
  const size_t bin = static_cast<size_t>(at[0]) * bins_[1] + at[1];
  bool inside = false;
  for (std::size_t n = bin_start_[bin]; n < bin_start_[bin + 1]; ++n)
    if (crosses(bin_list_[n], x)) inside = !inside;
  return inside;
}

std::string TriangleMesh::closed_problem() const {
  std::vector<std::pair<std::int64_t, std::int64_t>> edges;
  edges.reserve(triangles_.size());
  for (size_t t = 0; t < triangles_.size(); t += 3)
    for (int e = 0; e < 3; ++e) {
      const std::int64_t p = triangles_[t + e], q = triangles_[t + (e + 1) % 3];
      edges.emplace_back(std::min(p, q), std::max(p, q));
    }
  std::sort(edges.begin(), edges.end());
  size_t single = 0, crowded = 0;
  for (size_t e = 0; e < edges.size();) {
    size_t same = e + 1;
    while (same < edges.size() && edges[same] == edges[e]) ++same;
    if (same - e == 1) ++single;
    if (same - e > 2) ++crowded;
    e = same;
  }
  if (triangles_.empty()) return "it has no triangles";
  if (single > 0)
    return std::to_string(single) + " edges belong to one triangle only (the surface has holes, "
           "so it encloses no volume)";
  if (crowded > 0)
    return std::to_string(crowded) + " edges are shared by more than two triangles (the "
           "surface is not a closed manifold)";
  return "";
}

bool TriangleMesh::consistently_oriented() const {
  // As directed edges, each must appear once: a second (p, q) means two triangles run the
  // same way along it.
  std::vector<std::pair<std::int64_t, std::int64_t>> edges;
  edges.reserve(triangles_.size());
  for (size_t t = 0; t < triangles_.size(); t += 3)
    for (int e = 0; e < 3; ++e) edges.emplace_back(triangles_[t + e], triangles_[t + (e + 1) % 3]);
  std::sort(edges.begin(), edges.end());
  return std::adjacent_find(edges.begin(), edges.end()) == edges.end();
}

double TriangleMesh::volume() const {
  double six_volume = 0.0;
  for (size_t t = 0; t < triangles_.size(); t += 3) {
    const double* a = vertex(triangles_[t]);
    const double* b = vertex(triangles_[t + 1]);
    const double* c = vertex(triangles_[t + 2]);
    six_volume += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                  a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return std::abs(six_volume) / 6.0;
}

}  // namespace sf
