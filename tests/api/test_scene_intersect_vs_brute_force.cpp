// wr_scene_intersect against a brute-force loop over every triangle in double precision
// (scene_intersect_brute_force.h), on random rays over a random soup and over a heightfield, with
// tmax NULL / finite / 0, non-unit directions (t in units of |d|), misses (+inf, UINT32_MAX),
// out_triangle NULL, and origins on a triangle. Part of the executable test_scene_intersect.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "backend_under_test.h"
#include "float_bits.h"
#include "random_scenes.h"
#include "scene_intersect_brute_force.h"

using namespace wr_test::scene_intersect;

// ---- brute force -----------------------------------------------------------------------------

TEST_CASE("intersect: random soup against brute force in double, tmax NULL / finite / 0", "[intersect]") {
  const wr_test::SoupScene soup = wr_test::random_soup(21, 1500);
  for (uint32_t threads : {1u, 3u}) {
    INFO(threads << " threads");
    Scene scene(soup, threads);
    const Rays rays = soup_rays(soup, 3000, 5 + threads);

    const Tally unbounded = compare_with_brute_force("soup, tmax NULL", soup, scene.scene, rays, nullptr);
    CHECK(unbounded.hits > rays.count() / 3);    // the aimed half mostly hits
    CHECK(unbounded.hits < rays.count() - 100);  // and there are plenty of misses

    const std::vector<float> tmax = random_tmax(soup, rays, 9);
    const Tally bounded = compare_with_brute_force("soup, finite tmax", soup, scene.scene, rays, &tmax);
    CHECK(bounded.hits < unbounded.hits - 100);  // tmax cut many hits off

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

TEST_CASE("intersect: misses give +inf and UINT32_MAX, and out_triangle may be NULL", "[intersect]") {
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
  REQUIRE_OK(wr_test::intersect_on_backend(scene.scene, rays.o.data(), rays.d.data(), nullptr, rays.count(), t.data(),
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
