// Shared by the test_scene_intersect_*.cpp files (one executable, test_scene_intersect), which test
// wr_scene_intersect (explicit rays) through the public C API (libwr.so) only: a brute-force loop
// over every triangle in double precision, the verdict that compares one library answer with it,
// the random ray sets (over a random soup and over a heightfield), and a context + scene owner.
//
// Disagreements with the brute force are expected only where the float answer is decided by
// rounding: a ray through an edge or vertex shared by several triangles (a tie: the library
// takes the lowest id, the double loop the one its rounding puts first), a ray that grazes an
// edge (the watertight float test and the double test may decide it differently), and a hit
// at t within rounding of tmax. Each such case is recognised from the double geometry,
// counted, printed and bounded; any other disagreement fails.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "backend_under_test.h"
#include "float_bits.h"
#include "random_scenes.h"

namespace wr_test::scene_intersect {

using Eigen::AngleAxisd;
using Eigen::Matrix3d;
using Eigen::Quaterniond;
using Eigen::Vector3d;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr uint32_t kNoHit = UINT32_MAX;
constexpr double kPi = 3.14159265358979323846;
constexpr double kRelTol = 1e-5;    // t agreement, relative
constexpr double kEdgeBary = 1e-4;  // a barycentric coordinate this close to 0 is "on an edge"

using wr_test::same_bits;

// Agreement of two distances along the ray o + t d: 1e-5 relative, plus a floor for hits very
// close to the origin. No float implementation can place a hit better than the rounding of
// the coordinates it subtracts (vertex - origin, each rounded to 2^-24 of its magnitude), so
// the floor is a few float ulps of the largest coordinate involved, as a distance, in units
// of |d|. Without it a hit 3 mm from the origin of a 10 m scene would need 30 nm accuracy.
inline bool close_t(double a, double b, const Vector3d& o, const Vector3d& d, double scene_scale) {
  const double floor = 8.0 * std::numeric_limits<float>::epsilon() * (scene_scale + o.cwiseAbs().maxCoeff()) / d.norm();
  return std::abs(a - b) <= kRelTol * std::max(std::abs(a), std::abs(b)) + floor;
}

// Largest absolute vertex coordinate of a scene.
inline double scene_scale(const wr_test::SoupScene& s) {
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

inline Crossing cross(const wr_test::SoupScene& s, uint32_t tri, const Vector3d& o, const Vector3d& d) {
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
inline Hit brute_force(const wr_test::SoupScene& s, const Vector3d& o, const Vector3d& d, double tmax) {
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

inline Verdict judge(const wr_test::SoupScene& s, double scale, const Vector3d& o, const Vector3d& d, double tmax,
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
    REQUIRE_OK(wr_test::create_backend_context(threads, &context));
    REQUIRE_OK(wr_scene_create(context, s.vertices.data(), s.vertices.size() / 3, s.indices.data(), s.num_triangles(),
                               &scene));
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

inline Result intersect(wr_scene scene, const Rays& rays, const float* tmax) {
  Result r;
  r.t.assign(rays.count(), -7.0f);
  r.tri.assign(rays.count(), 12345u);
  REQUIRE_OK(
      wr_test::intersect_on_backend(scene, rays.o.data(), rays.d.data(), tmax, rays.count(), r.t.data(), r.tri.data()));
  return r;
}

// Runs `rays` with the given tmax (NULL: +inf) against the brute force and checks the verdicts.
inline Tally compare_with_brute_force(const char* label, const wr_test::SoupScene& s, wr_scene scene, const Rays& rays,
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
  std::printf(
      "%-30s %5zu rays: %5zu hits (%4zu on an edge or vertex); agree %5zu, ties %3zu, edge cases %3zu, "
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
inline std::vector<float> random_tmax(const wr_test::SoupScene& s, const Rays& rays, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> f(0.5, 1.5), any(0.0, 20.0);
  std::vector<float> tmax(rays.count());
  for (size_t i = 0; i < rays.count(); ++i) {
    const Hit bf = brute_force(s, rays.origin(i), rays.dir(i), std::numeric_limits<double>::infinity());
    tmax[i] = float(bf.tri != kNoHit ? bf.t * f(rng) : any(rng));
  }
  return tmax;
}

inline Vector3d random_unit(std::mt19937& rng) {
  std::normal_distribution<double> g;
  for (;;) {
    const Vector3d v(g(rng), g(rng), g(rng));
    if (v.norm() > 1e-3) return v.normalized();
  }
}

// Rays over the random soup: half aimed at a random point of a random triangle, half in random
// directions; origins in a cube a bit larger than the soup's; |d| from 0.01 to 100.
inline Rays soup_rays(const wr_test::SoupScene& s, size_t count, uint32_t seed) {
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
inline Rays heightfield_rays(size_t count, uint32_t seed) {
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
    if (kind == 1) target = Vector3d(grid(rng) * 0.5, grid(rng) * 0.5, 0.0);         // a grid vertex (x, y)
    if (kind == 2) target = Vector3d(grid(rng) * 0.5 + 0.25, grid(rng) * 0.5, 0.0);  // an edge midpoint (x, y)
    // Vertically above the target point when kind is 1 or 2 half of the time: the ray then
    // passes exactly through the shared vertex or edge.
    const bool vertical = kind != 0 && i % 8 < 4;
    const Vector3d o = vertical ? Vector3d(target.x(), target.y(), above(rng))
                                : Vector3d(target.x() + tilt(rng), target.y() + tilt(rng), above(rng));
    rays.add(o, (target - o) * (0.3 + 2.0 * unit(rng)));
  }
  return rays;
}

}  // namespace wr_test::scene_intersect
