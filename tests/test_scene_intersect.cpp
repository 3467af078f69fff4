// wr_scene_intersect (explicit rays) through the public C API (libwr.so) only:
//  (a) against a brute-force loop over every triangle in double precision written here, on
//      random rays over a random soup and over a heightfield, with tmax NULL / finite / 0,
//      non-unit directions (t in units of |d|), misses (+inf, UINT32_MAX), out_triangle NULL;
//  (b) against the depth sensor: the rays of every pixel of a WR_DEPTH_RANGE sensor, built here
//      from the conventions of include/wr/wr.h, must report the sensor's depth;
//  (c) every error path, with sentinel-filled outputs that a failure must leave untouched.
//
// Disagreements with the brute force are expected only where the float answer is decided by
// rounding: a ray through an edge or vertex shared by several triangles (a tie: the library
// takes the lowest id, the double loop the one its rounding puts first), a ray that grazes an
// edge (the watertight float test and the double test may decide it differently), and a hit
// at t within rounding of tmax. Each such case is recognised from the double geometry,
// counted, printed and bounded; any other disagreement fails.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "float_bits.h"
#include "random_scenes.h"

namespace {

using Eigen::AngleAxisd;
using Eigen::Matrix3d;
using Eigen::Quaterniond;
using Eigen::Vector3d;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr uint32_t kNoHit = UINT32_MAX;
constexpr double kPi = 3.14159265358979323846;
constexpr double kRelTol = 1e-5;      // t agreement, relative
constexpr double kEdgeBary = 1e-4;    // a barycentric coordinate this close to 0 is "on an edge"

using wr_test::same_bits;

// Agreement of two distances along the ray o + t d: 1e-5 relative, plus a floor for hits very
// close to the origin. No float implementation can place a hit better than the rounding of
// the coordinates it subtracts (vertex - origin, each rounded to 2^-24 of its magnitude), so
// the floor is a few float ulps of the largest coordinate involved, as a distance, in units
// of |d|. Without it a hit 3 mm from the origin of a 10 m scene would need 30 nm accuracy.
bool close_t(double a, double b, const Vector3d& o, const Vector3d& d, double scene_scale) {
  const double floor = 8.0 * std::numeric_limits<float>::epsilon() * (scene_scale + o.cwiseAbs().maxCoeff()) / d.norm();
  return std::abs(a - b) <= kRelTol * std::max(std::abs(a), std::abs(b)) + floor;
}

// Largest absolute vertex coordinate of a scene.
double scene_scale(const wr_test::SoupScene& s) {
  double m = 0;
  for (float v : s.vertices) m = std::max(m, double(std::abs(v)));
  return m;
}

// ---- brute force in double ---------------------------------------------------------------

struct Rays {
  std::vector<float> o, d;  // (count x 3)
  size_t count() const { return o.size() / 3; }
  void add(const Vector3d& origin, const Vector3d& dir) {
    o.insert(o.end(), {float(origin.x()), float(origin.y()), float(origin.z())});
    d.insert(d.end(), {float(dir.x()), float(dir.y()), float(dir.z())});
  }
  Vector3d origin(size_t i) const { return Vector3d(o[3 * i], o[3 * i + 1], o[3 * i + 2]); }
  Vector3d dir(size_t i) const { return Vector3d(d[3 * i], d[3 * i + 1], d[3 * i + 2]); }
};

// The crossing of a ray with one triangle's plane, in double (Moller and Trumbore, "Fast,
// Minimum Storage Ray/Triangle Intersection", JGT 1997): t in units of |dir| and the
// barycentric coordinates, whatever their sign.
struct Crossing {
  bool valid = false;  // false when the ray is parallel to the plane or the triangle has no area
  double t = 0, b0 = 0, b1 = 0, b2 = 0;
  double margin() const { return std::min({b0, b1, b2}); }  // >= 0: inside or on the boundary
};

Crossing cross(const wr_test::SoupScene& s, uint32_t tri, const Vector3d& o, const Vector3d& d) {
  auto vertex = [&](int c) {
    const uint32_t v = s.indices[3 * size_t(tri) + c];
    return Vector3d(s.vertices[3 * size_t(v)], s.vertices[3 * size_t(v) + 1], s.vertices[3 * size_t(v) + 2]);
  };
  const Vector3d v0 = vertex(0), e1 = vertex(1) - v0, e2 = vertex(2) - v0;
  const Vector3d p = d.cross(e2);
  const double det = e1.dot(p);
  Crossing c;
  if (det == 0.0 || e1.cross(e2).squaredNorm() == 0.0) return c;
  const Vector3d sv = o - v0, q = sv.cross(e1);
  c.valid = true;
  c.b1 = sv.dot(p) / det;
  c.b2 = d.dot(q) / det;
  c.b0 = 1.0 - c.b1 - c.b2;
  c.t = e2.dot(q) / det;
  return c;
}

struct Hit {
  double t = std::numeric_limits<double>::infinity();
  uint32_t tri = kNoHit;
  double margin = 0;  // barycentric margin of the winning triangle
};

// Nearest crossing inside its triangle with t in [0, tmax]; ties to the lowest id.
Hit brute_force(const wr_test::SoupScene& s, const Vector3d& o, const Vector3d& d, double tmax) {
  Hit best;
  for (uint32_t tri = 0; tri < s.num_triangles(); ++tri) {
    const Crossing c = cross(s, tri, o, d);
    if (!c.valid || c.margin() < 0.0 || c.t < 0.0 || c.t > tmax) continue;
    if (c.t < best.t) best = Hit{c.t, tri, c.margin()};
  }
  return best;
}

// How one library answer compares with the brute force.
enum class Verdict { kSame, kTie, kEdge, kTmaxBoundary, kWrong };

Verdict judge(const wr_test::SoupScene& s, double scale, const Vector3d& o, const Vector3d& d, double tmax,
              const Hit& bf, float lib_t, uint32_t lib_tri) {
  auto close = [&](double a, double b) { return close_t(a, b, o, d, scale); };
  const bool lib_hit = lib_tri != kNoHit;
  const bool bf_hit = bf.tri != kNoHit;
  if (lib_hit != std::isfinite(lib_t)) return Verdict::kWrong;  // t and id must agree on hit/miss
  if (!lib_hit && !same_bits(lib_t, kInf)) return Verdict::kWrong;
  if (lib_hit && (lib_t < 0.0f || double(lib_t) > tmax)) return Verdict::kWrong;
  if (lib_hit && bf_hit && lib_tri == bf.tri && close(lib_t, bf.t)) return Verdict::kSame;
  if (!lib_hit && !bf_hit) return Verdict::kSame;
  // The library's triangle, in double: where does the ray cross it, and how near an edge?
  Crossing lc;
  if (lib_hit) {
    if (lib_tri >= s.num_triangles()) return Verdict::kWrong;
    lc = cross(s, lib_tri, o, d);
    if (!lc.valid || lc.margin() < -kEdgeBary || !close(lib_t, lc.t)) return Verdict::kWrong;
  }
  // A hit at t within rounding of tmax may fall on either side of it.
  const double t_near_tmax = lib_hit ? double(lib_t) : bf.t;
  if (std::isfinite(tmax) && close(t_near_tmax, tmax)) return Verdict::kTmaxBoundary;
  if (lib_hit && bf_hit && close(lib_t, bf.t)) {
    // Same distance, different triangle: a shared edge or vertex (or coincident triangles).
    return lc.margin() <= kEdgeBary || bf.margin <= kEdgeBary ? Verdict::kTie : Verdict::kWrong;
  }
  // Different distances: one of the two tests must have been on the brink at an edge, the
  // library's nearer crossing or the brute force's nearer crossing.
  if (lib_hit && lc.margin() <= kEdgeBary && (!bf_hit || lib_t <= bf.t)) return Verdict::kEdge;
  if (bf_hit && bf.margin <= kEdgeBary && (!lib_hit || bf.t <= lib_t)) return Verdict::kEdge;
  return Verdict::kWrong;
}

struct Tally {
  size_t same = 0, tie = 0, edge = 0, tmax_boundary = 0, wrong = 0, hits = 0;
  size_t on_edge = 0;  // rays whose brute-force hit lies on (or within kEdgeBary of) an edge
  size_t total() const { return same + tie + edge + tmax_boundary + wrong; }
  void add(Verdict v) {
    switch (v) {
      case Verdict::kSame: ++same; break;
      case Verdict::kTie: ++tie; break;
      case Verdict::kEdge: ++edge; break;
      case Verdict::kTmaxBoundary: ++tmax_boundary; break;
      case Verdict::kWrong: ++wrong; break;
    }
  }
};

struct Scene {
  wr_context context = nullptr;
  wr_scene scene = nullptr;
  Scene(const wr_test::SoupScene& s, uint32_t threads) {
    REQUIRE_OK(wr_context_create_cpu(threads, &context));
    REQUIRE_OK(wr_scene_create(context, s.vertices.data(), s.vertices.size() / 3, s.indices.data(),
                               s.num_triangles(), &scene));
  }
  ~Scene() {
    wr_scene_release(scene);
    wr_context_release(context);
  }
};

struct Result {
  std::vector<float> t;
  std::vector<uint32_t> tri;
};

Result intersect(wr_scene scene, const Rays& rays, const float* tmax) {
  Result r;
  r.t.assign(rays.count(), -7.0f);
  r.tri.assign(rays.count(), 12345u);
  REQUIRE_OK(
      wr_scene_intersect(scene, rays.o.data(), rays.d.data(), tmax, rays.count(), r.t.data(), r.tri.data(), nullptr));
  return r;
}

// Runs `rays` with the given tmax (NULL: +inf) against the brute force and checks the verdicts.
Tally compare_with_brute_force(const char* label, const wr_test::SoupScene& s, wr_scene scene, const Rays& rays,
                               const std::vector<float>* tmax) {
  const Result r = intersect(scene, rays, tmax ? tmax->data() : nullptr);
  Tally tally;
  const double scale = scene_scale(s);
  for (size_t i = 0; i < rays.count(); ++i) {
    const double tm = tmax ? double((*tmax)[i]) : std::numeric_limits<double>::infinity();
    const Hit bf = brute_force(s, rays.origin(i), rays.dir(i), tm);
    const Verdict v = judge(s, scale, rays.origin(i), rays.dir(i), tm, bf, r.t[i], r.tri[i]);
    tally.add(v);
    tally.hits += r.tri[i] != kNoHit ? 1 : 0;
    tally.on_edge += bf.tri != kNoHit && bf.margin <= kEdgeBary ? 1 : 0;
    if (v == Verdict::kWrong) {
      INFO(label << ": ray " << i << " o = " << rays.origin(i).transpose() << " d = " << rays.dir(i).transpose()
                 << " tmax = " << tm << ": library t = " << r.t[i] << " triangle " << r.tri[i]
                 << "; brute force t = " << bf.t << " triangle " << bf.tri << " (margin " << bf.margin << ")");
      CHECK(v != Verdict::kWrong);
    }
  }
  std::printf("%-30s %5zu rays: %5zu hits (%4zu on an edge or vertex); agree %5zu, ties %3zu, edge cases %3zu, "
              "at tmax %3zu, wrong %zu\n",
              label, tally.total(), tally.hits, tally.on_edge, tally.same, tally.tie, tally.edge, tally.tmax_boundary,
              tally.wrong);
  CHECK(tally.wrong == 0);
  // Rounding cases are rare on random rays; a large count means a real bug near edges.
  CHECK(tally.tie + tally.edge + tally.tmax_boundary <= std::max<size_t>(5, rays.count() / 100));
  return tally;
}

// tmax per ray: the brute-force hit distance scaled by a random factor in [0.5, 1.5] (so about
// half the hits fall beyond tmax and must become misses or farther-than-nothing), or a random
// distance for rays that miss.
std::vector<float> random_tmax(const wr_test::SoupScene& s, const Rays& rays, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> f(0.5, 1.5), any(0.0, 20.0);
  std::vector<float> tmax(rays.count());
  for (size_t i = 0; i < rays.count(); ++i) {
    const Hit bf = brute_force(s, rays.origin(i), rays.dir(i), std::numeric_limits<double>::infinity());
    tmax[i] = float(bf.tri != kNoHit ? bf.t * f(rng) : any(rng));
  }
  return tmax;
}

Vector3d random_unit(std::mt19937& rng) {
  std::normal_distribution<double> g;
  for (;;) {
    const Vector3d v(g(rng), g(rng), g(rng));
    if (v.norm() > 1e-3) return v.normalized();
  }
}

// Rays over the random soup: half aimed at a random point of a random triangle, half in random
// directions; origins in a cube a bit larger than the soup's; |d| from 0.01 to 100.
Rays soup_rays(const wr_test::SoupScene& s, size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> pos(-7.0, 7.0), unit(0.0, 1.0), log_scale(-2.0, 2.0);
  std::uniform_int_distribution<uint32_t> pick(0, uint32_t(s.num_triangles() - 1));
  Rays rays;
  for (size_t i = 0; i < count; ++i) {
    const Vector3d o(pos(rng), pos(rng), pos(rng));
    Vector3d dir;
    if (i % 2 == 0) {
      const uint32_t tri = pick(rng);
      double a = unit(rng), b = unit(rng);
      if (a + b > 1.0) a = 1.0 - a, b = 1.0 - b;
      auto vertex = [&](int c) {
        const uint32_t v = s.indices[3 * size_t(tri) + c];
        return Vector3d(s.vertices[3 * size_t(v)], s.vertices[3 * size_t(v) + 1], s.vertices[3 * size_t(v) + 2]);
      };
      const Vector3d target = vertex(0) + a * (vertex(1) - vertex(0)) + b * (vertex(2) - vertex(0));
      dir = target - o;
      if (dir.norm() < 1e-3) dir = random_unit(rng);
      dir.normalize();
    } else {
      dir = random_unit(rng);
    }
    rays.add(o, dir * std::pow(10.0, log_scale(rng)));
  }
  return rays;
}

// Rays over the heightfield [0, 16]^2: from above towards random points, towards grid
// vertices and edge midpoints exactly (shared edges and vertices: ties), and grazing ones.
Rays heightfield_rays(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> xy(0.0, 16.0), above(1.5, 6.0), tilt(-3.0, 3.0), unit(0.0, 1.0);
  std::uniform_int_distribution<int> grid(1, 31);
  Rays rays;
  for (size_t i = 0; i < count; ++i) {
    const int kind = int(i % 4);
    if (kind == 3) {  // grazing: nearly horizontal, low over the surface
      const Vector3d o(xy(rng), xy(rng), 0.5 + unit(rng) * 0.6);
      const double a = unit(rng) * 2 * kPi;
      rays.add(o, Vector3d(std::cos(a), std::sin(a), -0.02 - 0.1 * unit(rng)) * (0.5 + unit(rng)));
      continue;
    }
    Vector3d target(xy(rng), xy(rng), 0.0);
    if (kind == 1) target = Vector3d(grid(rng) * 0.5, grid(rng) * 0.5, 0.0);          // a grid vertex (x, y)
    if (kind == 2) target = Vector3d(grid(rng) * 0.5 + 0.25, grid(rng) * 0.5, 0.0);   // an edge midpoint (x, y)
    // Vertically above the target point when kind is 1 or 2 half of the time: the ray then
    // passes exactly through the shared vertex or edge.
    const bool vertical = kind != 0 && i % 8 < 4;
    const Vector3d o = vertical ? Vector3d(target.x(), target.y(), above(rng))
                                : Vector3d(target.x() + tilt(rng), target.y() + tilt(rng), above(rng));
    rays.add(o, (target - o) * (0.3 + 2.0 * unit(rng)));
  }
  return rays;
}

// ---- error paths ---------------------------------------------------------------------------

void expect_error(wr_status got, const std::initializer_list<std::string>& parts) {
  const std::string m = wr_last_error();
  INFO("wr_last_error() = \"" << m << "\"");
  CHECK(got == WR_ERROR_INVALID_ARGUMENT);
  CHECK(m.rfind("wr_scene_intersect:", 0) == 0);
  for (const std::string& p : parts) {
    INFO("expected substring \"" << p << "\"");
    CHECK(m.find(p) != std::string::npos);
  }
}

// ---- the sensor's rays ---------------------------------------------------------------------

// A closed, convex room: the floor is the paraboloid z = 0.02 (x^2 + y^2) over [-5, 5]^2 on a
// 40 x 40 grid (each cell's four corners are coplanar for this separable function, so the
// piecewise-linear floor is convex too), vertical walls up from the floor's border, a flat
// ceiling at z = 3; every vertex shared between faces. Seen from inside, every ray hits it and
// the depth varies continuously with the direction, so directions that differ by an ulp give
// depths that differ by about an ulp (no silhouettes).
wr_test::SoupScene convex_room() {
  const int n = 40, m = 12;
  const double L = 5.0, H = 3.0;
  wr_test::SoupScene s;
  std::map<std::tuple<int, int, int>, uint32_t> index;  // (i, j, k) -> vertex; k = 0 floor, m ceiling
  auto coord = [&](int i) { return -L + 2.0 * L * i / n; };
  auto floor_z = [&](int i, int j) { return 0.02 * (coord(i) * coord(i) + coord(j) * coord(j)); };
  auto vertex = [&](int i, int j, int k) {
    const auto key = std::make_tuple(i, j, k);
    const auto it = index.find(key);
    if (it != index.end()) return it->second;
    const double z0 = floor_z(i, j);
    const double z = k == 0 ? z0 : k == m ? H : z0 + (H - z0) * k / m;
    const uint32_t v = uint32_t(s.vertices.size() / 3);
    s.vertices.insert(s.vertices.end(), {float(coord(i)), float(coord(j)), float(z)});
    index.emplace(key, v);
    return v;
  };
  auto quad = [&](uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    s.indices.insert(s.indices.end(), {a, b, c, a, c, d});
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      quad(vertex(i, j, 0), vertex(i + 1, j, 0), vertex(i + 1, j + 1, 0), vertex(i, j + 1, 0));
      quad(vertex(i, j, m), vertex(i + 1, j, m), vertex(i + 1, j + 1, m), vertex(i, j + 1, m));
    }
  for (int a = 0; a < n; ++a)
    for (int k = 0; k < m; ++k) {
      quad(vertex(a, 0, k), vertex(a + 1, 0, k), vertex(a + 1, 0, k + 1), vertex(a, 0, k + 1));  // y = -L
      quad(vertex(a, n, k), vertex(a + 1, n, k), vertex(a + 1, n, k + 1), vertex(a, n, k + 1));  // y = +L
      quad(vertex(0, a, k), vertex(0, a + 1, k), vertex(0, a + 1, k + 1), vertex(0, a, k + 1));  // x = -L
      quad(vertex(n, a, k), vertex(n, a + 1, k), vertex(n, a + 1, k + 1), vertex(n, a, k + 1));  // x = +L
    }
  return s;
}

}  // namespace

// ---- (a) brute force -------------------------------------------------------------------------

TEST_CASE("intersect: random soup against brute force in double, tmax NULL / finite / 0", "[intersect]") {
  const wr_test::SoupScene soup = wr_test::random_soup(21, 1500);
  for (uint32_t threads : {1u, 3u}) {
    INFO(threads << " threads");
    Scene scene(soup, threads);
    const Rays rays = soup_rays(soup, 3000, 5 + threads);

    const Tally unbounded = compare_with_brute_force("soup, tmax NULL", soup, scene.scene, rays, nullptr);
    CHECK(unbounded.hits > rays.count() / 3);          // the aimed half mostly hits
    CHECK(unbounded.hits < rays.count() - 100);        // and there are plenty of misses

    const std::vector<float> tmax = random_tmax(soup, rays, 9);
    const Tally bounded = compare_with_brute_force("soup, finite tmax", soup, scene.scene, rays, &tmax);
    CHECK(bounded.hits < unbounded.hits - 100);        // tmax cut many hits off

    const std::vector<float> zero(rays.count(), 0.0f);
    const Result r0 = intersect(scene.scene, rays, zero.data());
    size_t zero_hits = 0;
    for (size_t i = 0; i < rays.count(); ++i) zero_hits += r0.tri[i] != kNoHit ? 1 : 0;
    CHECK(zero_hits == 0);  // no random origin lies on a triangle
    for (size_t i = 0; i < rays.count(); ++i) {
      if (!same_bits(r0.t[i], kInf) || r0.tri[i] != kNoHit) {
        FAIL_CHECK("tmax = 0: ray " << i << " gave t = " << r0.t[i] << ", triangle " << r0.tri[i]);
        break;
      }
    }
  }
}

TEST_CASE("intersect: heightfield against brute force, shared edges and vertices", "[intersect]") {
  const wr_test::SoupScene hf = wr_test::random_heightfield(22, 32, 16.0f);
  Scene scene(hf, 2);
  const Rays rays = heightfield_rays(4000, 3);
  const Tally unbounded = compare_with_brute_force("heightfield, tmax NULL", hf, scene.scene, rays, nullptr);
  // The heightfield covers [0, 16]^2 and every non-grazing ray aims inside it.
  CHECK(unbounded.hits >= rays.count() * 3 / 4);
  // The rays straight down through grid vertices and edge midpoints hit shared edges exactly.
  CHECK(unbounded.on_edge >= 500);
  const std::vector<float> tmax = random_tmax(hf, rays, 4);
  compare_with_brute_force("heightfield, finite tmax", hf, scene.scene, rays, &tmax);

  // Through a shared vertex, exactly: the library must take the lowest id of the triangles
  // meeting there at the same t. Vertex (8, 8) (grid index 16, 16) is shared by 6 triangles.
  const uint32_t n = 32, v = 16 * (n + 1) + 16;
  uint32_t lowest = kNoHit;
  for (uint32_t t = 0; t < hf.num_triangles(); ++t)
    for (int c = 0; c < 3; ++c)
      if (hf.indices[3 * t + c] == v) lowest = std::min(lowest, t);
  REQUIRE(lowest != kNoHit);
  Rays down;
  const Vector3d top(hf.vertices[3 * v], hf.vertices[3 * v + 1], 5.0);
  down.add(top, Vector3d(0, 0, -1));
  const Result r = intersect(scene.scene, down, nullptr);
  CHECK(r.tri[0] == lowest);
  CHECK(r.t[0] == Approx(5.0 - hf.vertices[3 * v + 2]).epsilon(1e-6));
}

TEST_CASE("intersect: t is in units of |direction|", "[intersect]") {
  const wr_test::SoupScene soup = wr_test::random_soup(23, 800);
  Scene scene(soup, 2);
  const Rays base = soup_rays(soup, 1000, 77);
  const Result r = intersect(scene.scene, base, nullptr);
  size_t hits = 0;
  for (uint32_t tri : r.tri) hits += tri != kNoHit ? 1 : 0;
  REQUIRE(hits > 300);
  for (const double scale : {0.25, 4.0, 1.0 / 1024, 0.01, 3.7, 1000.0}) {
    INFO("direction scaled by " << scale);
    Rays scaled = base;
    for (float& x : scaled.d) x = float(double(x) * scale);
    char label[64];
    std::snprintf(label, sizeof label, "soup, directions x %g", scale);
    // Any scale: the brute force, which measures t in units of the scaled |d|.
    compare_with_brute_force(label, soup, scene.scene, scaled, nullptr);
    // A power of two scales the floats exactly, so the ray is the very same ray: same triangle
    // and t scaled by exactly 1 / scale (float products by powers of two are exact).
    if (std::exp2(std::round(std::log2(scale))) != scale) continue;
    const Result s = intersect(scene.scene, scaled, nullptr);
    size_t exact = 0;
    for (size_t i = 0; i < base.count(); ++i) {
      INFO("ray " << i);
      REQUIRE(s.tri[i] == r.tri[i]);
      if (r.tri[i] == kNoHit) continue;
      CHECK(double(s.t[i]) * scale == Approx(double(r.t[i])).epsilon(kRelTol));
      exact += same_bits(float(double(s.t[i]) * scale), r.t[i]) ? 1 : 0;
    }
    std::printf("directions x %g: %zu of %zu hits give t x %g bit-equal to the unscaled t\n", scale, exact, hits,
                scale);
  }
}

TEST_CASE("intersect: misses give +inf and UINT32_MAX; out_triangle may be NULL", "[intersect]") {
  const wr_test::SoupScene soup = wr_test::random_soup(24, 600);
  Scene scene(soup, 2);
  Rays rays = soup_rays(soup, 1200, 31);
  // Plus rays that cannot hit: from outside the soup's cube, pointing away from it.
  for (int i = 0; i < 50; ++i) {
    rays.add(Vector3d(0, 0, 20 + i), Vector3d(0.01 * i, 0.0, 1.0));
    rays.add(Vector3d(-20 - i, 3, 1), Vector3d(-1.0, 0.1, 0.0));
  }
  const Result with_ids = intersect(scene.scene, rays, nullptr);
  for (size_t i = rays.count() - 100; i < rays.count(); ++i) {
    CHECK(same_bits(with_ids.t[i], kInf));
    CHECK(with_ids.tri[i] == kNoHit);
  }
  size_t misses = 0;
  for (size_t i = 0; i < rays.count(); ++i) {
    const bool miss = with_ids.tri[i] == kNoHit;
    misses += miss;
    CHECK(miss == same_bits(with_ids.t[i], kInf));
  }
  CHECK(misses > 200);

  std::vector<float> t(rays.count(), -7.0f);
  REQUIRE_OK(wr_scene_intersect(scene.scene, rays.o.data(), rays.d.data(), nullptr, rays.count(), t.data(), nullptr,
                                nullptr));
  CHECK(std::memcmp(t.data(), with_ids.t.data(), t.size() * sizeof(float)) == 0);

  // A finite tmax does not change what a miss reports.
  const std::vector<float> tmax(rays.count(), 2.5f);
  const Result bounded = intersect(scene.scene, rays, tmax.data());
  for (size_t i = 0; i < rays.count(); ++i) {
    if (bounded.tri[i] == kNoHit) {
      CHECK(same_bits(bounded.t[i], kInf));
    } else {
      CHECK(bounded.t[i] <= 2.5f);
    }
  }
}

TEST_CASE("intersect: tmax = 0 and origins on a triangle: a hit at t = 0, both faces", "[intersect]") {
  // Triangle 1 is the horizontal one at z = 0; triangle 0 is far away.
  const float v[] = {10, 10, 10, 11, 10, 10, 10, 11, 10, -1, -1, 0, 2, -1, 0, -1, 2, 0};
  const uint32_t idx[] = {0, 1, 2, 3, 4, 5};
  wr_test::SoupScene s;
  s.vertices.assign(v, v + 18);
  s.indices.assign(idx, idx + 6);
  Scene scene(s, 1);
  Rays rays;
  rays.add(Vector3d(0.25, 0.25, 0.0), Vector3d(0, 0, -1));  // on the triangle, leaving downwards
  rays.add(Vector3d(0.25, 0.25, 0.0), Vector3d(0, 0, 2));   // leaving upwards
  rays.add(Vector3d(0.25, 0.25, 0.5), Vector3d(0, 0, -1));  // above it: hit at 0.5 > tmax
  rays.add(Vector3d(5, 5, 0.0), Vector3d(0, 0, -1));        // in its plane but outside it
  const std::vector<float> zero(rays.count(), 0.0f);
  const Result r = intersect(scene.scene, rays, zero.data());
  CHECK(r.tri[0] == 1u);
  CHECK(r.t[0] == 0.0f);
  CHECK(r.tri[1] == 1u);
  CHECK(r.t[1] == 0.0f);
  CHECK(r.tri[2] == kNoHit);
  CHECK(same_bits(r.t[2], kInf));
  CHECK(r.tri[3] == kNoHit);
  CHECK(same_bits(r.t[3], kInf));
  // tmax is inclusive: exactly the hit distance still hits.
  const std::vector<float> half(rays.count(), 0.5f);
  const Result h = intersect(scene.scene, rays, half.data());
  CHECK(h.tri[2] == 1u);
  CHECK(h.t[2] == 0.5f);
}

// ---- (b) the sensor ----------------------------------------------------------------------------

TEST_CASE("intersect: every pixel's ray, built from the conventions, reports the sensor's range depth",
          "[intersect][sensor]") {
  const wr_test::SoupScene room = convex_room();
  Scene scene(room, 2);

  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 64, 48, 100.0f);
  desc.cx = 30.7f;  // off-centre principal point and non-square pixels
  desc.fy = desc.fx * 0.9f;
  desc.depth_kind = WR_DEPTH_RANGE;
  desc.miss_value = kNaN;
  // Mount: 0.2 m forward, 0.3 m up, pitched 12 degrees down (a positive rotation about +Y turns
  // +X towards -Z); WXYZ.
  const Quaterniond mount_q(AngleAxisd(12.0 * kPi / 180.0, Vector3d::UnitY()));
  const float mount_p[3] = {0.2f, 0.0f, 0.3f};
  for (int i = 0; i < 3; ++i) desc.mount_position[i] = mount_p[i];
  desc.mount_rotation[0] = float(mount_q.w());
  desc.mount_rotation[1] = float(mount_q.x());
  desc.mount_rotation[2] = float(mount_q.y());
  desc.mount_rotation[3] = float(mount_q.z());

  const uint32_t num_envs = 6, W = desc.width, H = desc.height;
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> xy(-3.0, 3.0), z(1.0, 2.2), ang(-kPi, kPi), small(-0.3, 0.3),
      scale(0.5, 2.0);
  std::vector<float> poses;
  for (uint32_t e = 0; e < num_envs; ++e) {
    const Quaterniond q(AngleAxisd(ang(rng), Vector3d::UnitZ()) * AngleAxisd(small(rng), Vector3d::UnitY()) *
                        AngleAxisd(small(rng), Vector3d::UnitX()));
    const double k = scale(rng);  // not unit: the library normalises
    poses.insert(poses.end(), {float(xy(rng)), float(xy(rng)), float(z(rng)), float(k * q.w()), float(k * q.x()),
                               float(k * q.y()), float(k * q.z())});
  }

  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create(scene.scene, &desc, num_envs, &sensor));
  std::vector<float> depth(size_t(num_envs) * W * H, -7.0f);
  REQUIRE_OK(wr_sensor_render(sensor, poses.data(), depth.data(), nullptr));
  wr_sensor_release(sensor);

  // The rays, from the conventions of wr.h, in double from the very floats given:
  //   d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy)
  //   camera_in_world = body_in_world * mount; origin = camera position; direction = R * d_cam.
  Rays rays;
  const Quaterniond mq(double(desc.mount_rotation[0]), double(desc.mount_rotation[1]),
                       double(desc.mount_rotation[2]), double(desc.mount_rotation[3]));
  const Matrix3d R_mount = mq.normalized().toRotationMatrix();
  const Vector3d p_mount(mount_p[0], mount_p[1], mount_p[2]);
  for (uint32_t e = 0; e < num_envs; ++e) {
    const float* p = &poses[7 * e];
    const Quaterniond bq(p[3], p[4], p[5], p[6]);
    const Matrix3d R_body = bq.normalized().toRotationMatrix();
    const Vector3d origin = Vector3d(p[0], p[1], p[2]) + R_body * p_mount;
    const Matrix3d R = R_body * R_mount;
    for (uint32_t v = 0; v < H; ++v)
      for (uint32_t u = 0; u < W; ++u) {
        const Vector3d d_cam =
            Vector3d(1.0, -((u + 0.5) - desc.cx) / desc.fx, -((v + 0.5) - desc.cy) / desc.fy).normalized();
        rays.add(origin, R * d_cam);
      }
  }
  const Result r = intersect(scene.scene, rays, nullptr);

  size_t bit_equal = 0, within = 0;
  double worst = 0.0;
  for (size_t i = 0; i < rays.count(); ++i) {
    const float want = depth[i];
    const float got = r.t[i];
    REQUIRE(std::isfinite(want));  // the room is closed: every pixel hits
    REQUIRE(r.tri[i] != kNoHit);
    bit_equal += same_bits(got, want) ? 1 : 0;
    const double rel = std::abs(double(got) - double(want)) / double(want);
    worst = std::max(worst, rel);
    if (rel <= kRelTol) {
      ++within;
    } else {
      INFO("env " << i / (W * H) << " pixel (" << (i % W) << ", " << (i / W) % H << "): intersect t = " << got
                  << ", sensor depth = " << want);
      CHECK(rel <= kRelTol);
    }
  }
  std::printf("sensor rays: %zu pixels, %zu bit-equal to the sensor's depth, all within %.2g relative "
              "(worst %.3g)\n",
              rays.count(), bit_equal, kRelTol, worst);
  CHECK(within == rays.count());
}

// ---- (c) error paths ---------------------------------------------------------------------------

TEST_CASE("intersect: every error path names the culprit and writes nothing", "[intersect][errors]") {
  const wr_test::SoupScene soup = wr_test::random_soup(25, 200);
  Scene scene(soup, 2);
  const size_t n = 10;
  Rays rays = soup_rays(soup, n, 8);
  std::vector<float> tmax(n, 100.0f);
  constexpr float kSentinelT = -12345.0f;
  constexpr uint32_t kSentinelId = 0xDEADBEEFu;
  std::vector<float> t(n, kSentinelT);
  std::vector<uint32_t> tri(n, kSentinelId);
  auto untouched = [&] {
    for (size_t i = 0; i < n; ++i)
      if (!same_bits(t[i], kSentinelT) || tri[i] != kSentinelId) return false;
    return true;
  };
  auto run = [&](const Rays& rs, const float* tm, uint64_t count) {
    return wr_scene_intersect(scene.scene, rs.o.data(), rs.d.data(), tm, count, t.data(), tri.data(), nullptr);
  };

  SECTION("NULL arguments and count 0") {
    expect_error(wr_scene_intersect(nullptr, rays.o.data(), rays.d.data(), nullptr, n, t.data(), tri.data(), nullptr),
                 {"scene"});
    CHECK(untouched());
    expect_error(wr_scene_intersect(scene.scene, nullptr, rays.d.data(), nullptr, n, t.data(), tri.data(), nullptr),
                 {"origins"});
    CHECK(untouched());
    expect_error(wr_scene_intersect(scene.scene, rays.o.data(), nullptr, nullptr, n, t.data(), tri.data(), nullptr),
                 {"directions"});
    CHECK(untouched());
    expect_error(wr_scene_intersect(scene.scene, rays.o.data(), rays.d.data(), nullptr, n, nullptr, tri.data(), nullptr),
                 {"out_t"});
    CHECK(untouched());
    expect_error(wr_scene_intersect(scene.scene, rays.o.data(), rays.d.data(), nullptr, 0, t.data(), tri.data(), nullptr),
                 {"count"});
    CHECK(untouched());
  }
  SECTION("a non-finite origin names the ray") {
    for (const float bad : {kNaN, kInf, -kInf}) {
      for (const int axis : {0, 2}) {
        Rays rs = rays;
        rs.o[3 * 9 + axis] = bad;  // the last ray: every earlier one would already be written
        expect_error(run(rs, nullptr, n), {"ray 9", "origins"});
        CHECK(untouched());
      }
    }
  }
  SECTION("a zero or non-finite direction names the ray") {
    Rays rs = rays;
    rs.d[3 * 7] = rs.d[3 * 7 + 1] = rs.d[3 * 7 + 2] = 0.0f;
    expect_error(run(rs, nullptr, n), {"ray 7", "directions", "zero"});
    CHECK(untouched());
    rs.d[3 * 7 + 2] = -0.0f;  // still zero
    expect_error(run(rs, nullptr, n), {"ray 7", "directions"});
    CHECK(untouched());
    Rays inf_dir = rays;
    inf_dir.d[3 * 4 + 1] = kInf;
    expect_error(run(inf_dir, nullptr, n), {"ray 4", "directions"});
    CHECK(untouched());
    Rays nan_dir = rays;
    nan_dir.d[3 * 6] = kNaN;
    expect_error(run(nan_dir, nullptr, n), {"ray 6", "directions"});
    CHECK(untouched());
  }
  SECTION("a negative or NaN tmax names the ray") {
    std::vector<float> tm = tmax;
    tm[8] = -0.5f;
    expect_error(run(rays, tm.data(), n), {"ray 8", "tmax"});
    CHECK(untouched());
    tm[8] = -kInf;
    expect_error(run(rays, tm.data(), n), {"ray 8", "tmax"});
    CHECK(untouched());
    tm[8] = kNaN;
    expect_error(run(rays, tm.data(), n), {"ray 8", "tmax"});
    CHECK(untouched());
    // With out_triangle NULL, out_t is still left alone.
    expect_error(wr_scene_intersect(scene.scene, rays.o.data(), rays.d.data(), tm.data(), n, t.data(), nullptr,
                                    nullptr),
                 {"ray 8", "tmax"});
    CHECK(untouched());
  }
  SECTION("the first bad ray is the one named") {
    Rays rs = rays;
    rs.o[3 * 3 + 1] = kNaN;
    rs.d[3 * 5] = rs.d[3 * 5 + 1] = rs.d[3 * 5 + 2] = 0.0f;
    expect_error(run(rs, nullptr, n), {"ray 3"});
    CHECK(untouched());
    // Counting only the rays before the bad ones, the call succeeds.
    REQUIRE_OK(run(rs, nullptr, 3));
    CHECK(!untouched());
    CHECK(same_bits(t[3], kSentinelT));  // past count: untouched
  }
  SECTION("valid edge values are accepted: tmax +inf and 0, directions tiny and huge") {
    std::vector<float> tm(n, kInf);
    tm[2] = 0.0f;
    Rays rs = rays;
    for (int a = 0; a < 3; ++a) {
      rs.d[3 * 1 + a] *= 1e-20f;
      rs.d[3 * 2 + a] *= 1e20f;
    }
    REQUIRE_OK(run(rs, tm.data(), n));
    CHECK(tri[2] == kNoHit);
    CHECK(same_bits(t[2], kInf));
  }
}
