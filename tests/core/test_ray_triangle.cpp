// Watertight ray/triangle test (src/core/ray_triangle.h): hits, edges, vertices, parallel
// and degenerate triangles, both faces, interval bounds.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "core/ray_triangle.h"

using wr::Vec3;

namespace {

bool hit(Vec3 o, Vec3 d, Vec3 a, Vec3 b, Vec3 c, float* t, float tmin = 0.0f, float tmax = INFINITY) {
  return wr::intersect_ray_triangle(wr::make_ray_triangle(o, d), a, b, c, tmin, tmax, t);
}

}  // namespace

TEST_CASE("ray hits a triangle at the expected distance, from either side") {
  const Vec3 a{0, 0, 0}, b{1, 0, 0}, c{0, 1, 0};
  float t = -1;
  REQUIRE(hit({0.25f, 0.25f, 2}, {0, 0, -1}, a, b, c, &t));
  CHECK(t == 2.0f);
  REQUIRE(hit({0.25f, 0.25f, -3}, {0, 0, 1}, a, b, c, &t));  // back face
  CHECK(t == 3.0f);
  REQUIRE(hit({0.25f, 0.25f, 2}, {0, 0, -2}, a, b, c, &t));  // t in units of |dir|
  CHECK(t == 1.0f);
  CHECK_FALSE(hit({0.75f, 0.75f, 2}, {0, 0, -1}, a, b, c, &t));  // outside the hypotenuse
  CHECK_FALSE(hit({0.25f, 0.25f, 2}, {0, 0, 1}, a, b, c, &t));   // pointing away
}

TEST_CASE("tmin and tmax bound the hit, both inclusive") {
  const Vec3 a{-1, -1, 0}, b{1, -1, 0}, c{0, 1, 0};
  float t;
  CHECK(hit({0, 0, 5}, {0, 0, -1}, a, b, c, &t, 0.0f, 5.0f));
  CHECK(hit({0, 0, 5}, {0, 0, -1}, a, b, c, &t, 5.0f, 6.0f));
  CHECK_FALSE(hit({0, 0, 5}, {0, 0, -1}, a, b, c, &t, 0.0f, 4.999f));
  CHECK_FALSE(hit({0, 0, 5}, {0, 0, -1}, a, b, c, &t, 5.001f, 9.0f));
}

TEST_CASE("a ray parallel to the triangle's plane misses, even inside it") {
  const Vec3 a{0, 0, 0}, b{1, 0, 0}, c{0, 1, 0};
  float t;
  CHECK_FALSE(hit({-1, 0.2f, 0}, {1, 0, 0}, a, b, c, &t));
  CHECK_FALSE(hit({-1, 0.2f, 0.5f}, {1, 0.1f, 0}, a, b, c, &t));
}

TEST_CASE("zero-area triangles are never hit") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  int hits = 0;
  for (int i = 0; i < 20000; ++i) {
    const Vec3 p{u(rng), u(rng), u(rng)}, q{u(rng), u(rng), u(rng)};
    const Vec3 o{u(rng) * 3, u(rng) * 3, u(rng) * 3};
    const Vec3 d = Vec3{u(rng), u(rng), u(rng)};
    float t;
    hits += hit(o, d, p, p, q, &t);                   // repeated vertex
    hits += hit(o, d, p, q, p + (q - p) * 0.5f, &t);  // collinear
    hits += hit(o, d, p, p, p, &t);                   // a point
  }
  CHECK(hits == 0);
}

TEST_CASE("rays through a shared edge or a shared vertex hit at least one triangle") {
  // A fan of 8 triangles around a centre vertex on the plane z = 0.3 with irrational-looking
  // coordinates, so edges are not axis aligned; rays aimed exactly at edge points and at the
  // centre vertex from many origins.
  const Vec3 centre{0.1234567f, -0.3456789f, 0.3f};
  Vec3 rim[8];
  for (int k = 0; k < 8; ++k) {
    const double ang = 2.0 * M_PI * k / 8.0 + 0.1;
    rim[k] = Vec3{centre.x + float(std::cos(ang)), centre.y + float(std::sin(ang)), 0.3f};
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1), s(0.0f, 1.0f);
  int misses = 0, rays = 0;
  for (int i = 0; i < 20000; ++i) {
    const Vec3 o{u(rng) * 2, u(rng) * 2, 2.0f + s(rng)};
    Vec3 target;
    if (i % 4 == 0) {
      target = centre;
    } else {
      const int k = i % 8;
      target = centre + (rim[k] - centre) * (0.05f + 0.9f * s(rng));  // a point on a shared spoke
    }
    const Vec3 d = target - o;
    bool any = false;
    for (int k = 0; k < 8; ++k) {
      float t;
      any |= hit(o, d, centre, rim[k], rim[(k + 1) % 8], &t);
    }
    misses += !any;
    ++rays;
  }
  INFO(misses << " of " << rays << " rays slipped through an edge or vertex");
  CHECK(misses == 0);
}

TEST_CASE("the double-precision fallback decides rays exactly on an edge consistently") {
  // Two triangles sharing the edge x = 0 of the plane z = 0; rays exactly on x = 0.
  const Vec3 a{0, -1, 0}, b{0, 1, 0}, l{-1, 0, 0}, r{1, 0, 0};
  for (float y = -0.9f; y < 0.9f; y += 0.01f) {
    float t0 = 0, t1 = 0;
    const bool h0 = hit({0, y, 1}, {0, 0, -1}, a, b, l, &t0);
    const bool h1 = hit({0, y, 1}, {0, 0, -1}, a, b, r, &t1);
    CHECK((h0 || h1));
    if (h0) CHECK(t0 == 1.0f);
    if (h1) CHECK(t1 == 1.0f);
  }
}
