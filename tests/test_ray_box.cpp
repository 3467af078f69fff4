// Robust ray/box slab test (src/core/ray_box.h).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "core/ray_box.h"
#include "core/ray_triangle.h"

#if defined(WR_TRAVERSE_AS_ON_GPU)  // built a second time as test_ray_box_gpu_variant
static_assert(WR_GPU_TRAVERSAL == 1, "the GPU's slab test must be the one compiled here");
#endif

using wr::Vec3;

namespace {

bool box_hit(Vec3 o, Vec3 d, const float lo[3], const float hi[3], float tmin = 0, float tmax = INFINITY,
             float* entry = nullptr) {
  float e;
  const bool h = wr::intersect_ray_box(wr::make_ray_box(o, d), lo, hi, tmin, tmax, &e);
  if (entry) *entry = e;
  return h;
}

}  // namespace

TEST_CASE("ray/box: hit, miss, entry distance, interval") {
  const float lo[3] = {1, -1, -1}, hi[3] = {3, 1, 1};
  float entry;
  REQUIRE(box_hit({0, 0, 0}, {1, 0, 0}, lo, hi, 0, INFINITY, &entry));
  CHECK(entry == 1.0f);
  CHECK_FALSE(box_hit({0, 0, 0}, {-1, 0, 0}, lo, hi));
  CHECK_FALSE(box_hit({0, 2, 0}, {1, 0, 0}, lo, hi));
  CHECK_FALSE(box_hit({0, 0, 0}, {1, 0, 0}, lo, hi, 0, 0.5f));  // box beyond tmax
  CHECK_FALSE(box_hit({0, 0, 0}, {1, 0, 0}, lo, hi, 3.5f, 9));   // box before tmin
  REQUIRE(box_hit({2, 0, 0}, {1, 0, 0}, lo, hi, 0, INFINITY, &entry));  // origin inside
  CHECK(entry == 0.0f);
}

TEST_CASE("ray/box: axis-parallel rays on a slab boundary still hit (0 * inf handled)") {
  const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  CHECK(box_hit({-1, 0, 0.5f}, {1, 0, 0}, lo, hi));   // y exactly on the lower slab plane
  CHECK(box_hit({-1, 1, 1}, {1, 0, 0}, lo, hi));      // along an edge
  CHECK_FALSE(box_hit({-1, 1.01f, 0.5f}, {1, 0, 0}, lo, hi));
  const float flat_lo[3] = {0, 0, 2}, flat_hi[3] = {1, 1, 2};  // zero-thickness box
  CHECK(box_hit({0.5f, 0.5f, 0}, {0, 0, 1}, flat_lo, flat_hi));
  CHECK(box_hit({-1, 0.5f, 2}, {1, 0, 0}, flat_lo, flat_hi));  // in the flat box's plane
}

TEST_CASE("ray/box is conservative: every ray that hits a triangle hits its bounding box") {
  // Rays grazing triangle corners and edges are where rounding would lose a hit (Ize 2013).
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-100, 100), s(0, 1);
  int checked = 0, lost = 0;
  for (int i = 0; i < 200000; ++i) {
    const Vec3 a{u(rng), u(rng), u(rng)}, b{u(rng), u(rng), u(rng)}, c{u(rng), u(rng), u(rng)};
    const Vec3 o{u(rng) * 3, u(rng) * 3, u(rng) * 3};
    // aim at a point on an edge, where the hit is barely inside
    const Vec3 target = a + (b - a) * s(rng);
    const Vec3 d = target - o;
    float t;
    if (!wr::intersect_ray_triangle(wr::make_ray_triangle(o, d), a, b, c, 0, INFINITY, &t)) continue;
    ++checked;
    const float lo[3] = {std::fmin(a.x, std::fmin(b.x, c.x)), std::fmin(a.y, std::fmin(b.y, c.y)),
                         std::fmin(a.z, std::fmin(b.z, c.z))};
    const float hi[3] = {std::fmax(a.x, std::fmax(b.x, c.x)), std::fmax(a.y, std::fmax(b.y, c.y)),
                         std::fmax(a.z, std::fmax(b.z, c.z))};
    lost += !box_hit(o, d, lo, hi);
  }
  CHECK(checked > 50000);
  CHECK(lost == 0);
}
