// The OBJ loader's polygon triangulation (src/scene/polygon_triangulation.h), on its own: every
// polygon of n corners gives n - 2 triangles of its own corners; a quad is cut along its shorter
// diagonal, convex polygons are fanned; a simple polygon, convex or not, in any plane and either
// winding, is covered exactly (the triangles' signed areas, in the polygon's plane, all of the
// polygon's sign and summing to its area), which tinyobjloader's ear clipper did not do for
// about a quarter of random star-shaped polygons away from the origin.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "scene/polygon_triangulation.h"

namespace {

using Vec3 = std::array<double, 3>;

// A plane through `origin` spanned by the orthonormal u and v.
struct Plane {
  Vec3 origin, u, v;
  Vec3 at(double x, double y) const {
    return {origin[0] + x * u[0] + y * v[0], origin[1] + x * u[1] + y * v[1], origin[2] + x * u[2] + y * v[2]};
  }
};

Plane random_plane(std::mt19937& rng) {
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> offset(-100.0, 100.0);
  Vec3 a{g(rng), g(rng), g(rng)}, b{g(rng), g(rng), g(rng)};
  const auto dot = [](const Vec3& p, const Vec3& q) { return p[0] * q[0] + p[1] * q[1] + p[2] * q[2]; };
  const auto normalise = [&](Vec3 p) {
    const double n = std::sqrt(dot(p, p));
    return Vec3{p[0] / n, p[1] / n, p[2] / n};
  };
  a = normalise(a);
  const double k = dot(a, b);
  b = normalise(Vec3{b[0] - k * a[0], b[1] - k * a[1], b[2] - k * a[2]});
  return Plane{{offset(rng), offset(rng), offset(rng)}, a, b};
}

// A polygon's corners as float vertices (what a file holds), and their coordinates in the plane
// recomputed from those floats, in double.
struct Polygon {
  std::vector<float> vertices;            // (n x 3)
  std::vector<uint32_t> corners;          // (n) 0 .. n - 1
  std::vector<std::array<double, 2>> xy;  // (n) in the plane's (u, v)
};

Polygon place(const std::vector<std::array<double, 2>>& xy, const Plane& plane) {
  Polygon p;
  for (size_t i = 0; i < xy.size(); ++i) {
    const Vec3 q = plane.at(xy[i][0], xy[i][1]);
    for (double c : q) p.vertices.push_back(static_cast<float>(c));
    p.corners.push_back(static_cast<uint32_t>(i));
  }
  for (size_t i = 0; i < xy.size(); ++i) {
    Vec3 d;
    for (int k = 0; k < 3; ++k) d[k] = double(p.vertices[3 * i + k]) - plane.origin[k];
    p.xy.push_back({d[0] * plane.u[0] + d[1] * plane.u[1] + d[2] * plane.u[2],
                    d[0] * plane.v[0] + d[1] * plane.v[1] + d[2] * plane.v[2]});
  }
  return p;
}

double cross(const std::array<double, 2>& a, const std::array<double, 2>& b, const std::array<double, 2>& c) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

std::vector<uint32_t> triangulate(const Polygon& p) {
  wr::Triangulator t(p.vertices);
  std::vector<uint32_t> out;
  t.add(p.corners, out);
  return out;
}

// n - 2 triangles of the polygon's corners, each distinct.
void check_counts(const Polygon& p, const std::vector<uint32_t>& tris) {
  const size_t n = p.corners.size();
  REQUIRE(tris.size() == 3 * (n - 2));
  for (size_t t = 0; t < tris.size(); t += 3) {
    for (int k = 0; k < 3; ++k) CHECK(tris[t + k] < n);
    CHECK(tris[t] != tris[t + 1]);
    CHECK(tris[t + 1] != tris[t + 2]);
    CHECK(tris[t] != tris[t + 2]);
  }
}

// A simple polygon covered exactly: every triangle's signed area has the polygon's sign, and
// they sum to its area (shoelace), up to the rounding of float corners.
void check_covers(const Polygon& p, const std::vector<uint32_t>& tris) {
  const size_t n = p.xy.size();
  double area = 0.0;
  for (size_t i = 0; i < n; ++i) area += cross({0, 0}, p.xy[i], p.xy[(i + 1) % n]);
  const double sign = area > 0 ? 1.0 : -1.0, tolerance = 1e-5 * std::fabs(area);
  double sum = 0.0;
  for (size_t t = 0; t < tris.size(); t += 3) {
    const double a = cross(p.xy[tris[t]], p.xy[tris[t + 1]], p.xy[tris[t + 2]]);
    CHECK(sign * a > -tolerance);
    sum += a;
  }
  CHECK(std::fabs(sum - area) <= tolerance);
}

// A star-shaped polygon (simple, usually concave): the k-th corner at an angle in
// [k, k + 0.9) x 2 pi / n around the centre, at a random radius. Consecutive corners are less
// than half a turn apart, so the centre sees every edge from inside (sorted angles alone could
// leave a gap of more than half a turn, whose closing edge crosses the others).
std::vector<std::array<double, 2>> star(std::mt19937& rng, int n, double radius) {
  std::uniform_real_distribution<double> jitter(0.0, 0.9), r(0.3 * radius, radius);
  std::vector<std::array<double, 2>> xy;
  for (int k = 0; k < n; ++k) {
    const double a = 2.0 * M_PI * (k + jitter(rng)) / n, d = r(rng);
    xy.push_back({d * std::cos(a), d * std::sin(a)});
  }
  return xy;
}

}  // namespace

TEST_CASE("a triangle passes through, a convex quad is cut along its shorter diagonal", "[polygon_triangulation]") {
  const Plane xy_plane{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const Polygon tri = place({{0, 0}, {1, 0}, {0, 1}}, xy_plane);
  CHECK(triangulate(tri) == std::vector<uint32_t>{0, 1, 2});
  // Diagonal 0-2 is the shorter one here; then 1-3 in the mirrored quad.
  const Polygon kite = place({{0, 0}, {2, -1}, {3, 0}, {2, 1}}, xy_plane);
  CHECK(triangulate(kite) == std::vector<uint32_t>{0, 1, 3, 1, 2, 3});
  const Polygon wide = place({{0, 0}, {1, -2}, {2, 0}, {1, 2}}, xy_plane);
  CHECK(triangulate(wide) == std::vector<uint32_t>{0, 1, 2, 0, 2, 3});
}

TEST_CASE("convex polygons are fanned from their first corner", "[polygon_triangulation]") {
  std::vector<std::array<double, 2>> hexagon;
  for (int i = 0; i < 6; ++i) hexagon.push_back({std::cos(i * M_PI / 3), std::sin(i * M_PI / 3)});
  const Polygon p = place(hexagon, Plane{{5, 5, 5}, {0, 1, 0}, {0, 0, 1}});
  CHECK(triangulate(p) == std::vector<uint32_t>{0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5});
}

TEST_CASE("simple polygons in any plane, either winding, are covered exactly", "[polygon_triangulation]") {
  std::mt19937 rng(20261202);
  int concave = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = 5 + trial % 8;  // 5 to 12 corners, as the trials against tinyobjloader
    std::vector<std::array<double, 2>> xy = star(rng, n, 1.0 + trial % 7);
    if (trial % 2) std::reverse(xy.begin(), xy.end());  // clockwise
    const Polygon p = place(xy, random_plane(rng));
    bool convex = true;
    for (int i = 0; i < n; ++i) {
      const double turn = cross(p.xy[(i + n - 1) % n], p.xy[i], p.xy[(i + 1) % n]);
      convex = convex && (trial % 2 ? turn <= 0 : turn >= 0);
    }
    concave += !convex;
    INFO("trial " << trial << ", " << n << " corners");
    const std::vector<uint32_t> tris = triangulate(p);
    check_counts(p, tris);
    check_covers(p, tris);
  }
  CHECK(concave > 1000);  // the ear clipper, not only the fan, was exercised
}

TEST_CASE("polygons without area or crossing themselves still give n - 2 triangles", "[polygon_triangulation]") {
  const Plane plane{{1, 2, 3}, {1, 0, 0}, {0, 0, 1}};
  // All corners on one line: fanned.
  const Polygon line = place({{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}}, plane);
  check_counts(line, triangulate(line));
  // A pentagram (every corner joined to the next but one): no ear is clean, clipped anyway.
  std::vector<std::array<double, 2>> pentagram;
  for (int i = 0; i < 5; ++i) pentagram.push_back({std::cos(i * 4 * M_PI / 5), std::sin(i * 4 * M_PI / 5)});
  const Polygon star_polygon = place(pentagram, plane);
  check_counts(star_polygon, triangulate(star_polygon));
  // A corner repeated where an exporter bridged a hole: still covered.
  const Polygon bridged = place({{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}, {1, 1}, {1, 3}, {3, 3}, {3, 1}, {1, 1}},
                                Plane{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}});
  check_counts(bridged, triangulate(bridged));
  check_covers(bridged, triangulate(bridged));  // the 4 x 4 square less its 2 x 2 hole
}
