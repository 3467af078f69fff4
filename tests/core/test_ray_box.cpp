// Robust ray/box slab test (src/core/ray_box.h), in both of its forms (core/traversal_variant.h:
// the host's compare-and-select, the GPU's fmin/fmax).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "core/ray_box.h"
#include "core/ray_triangle.h"

using wr::Vec3;

namespace {

template <class Variant>
bool box_hit(Vec3 o, Vec3 d, const float lo[3], const float hi[3], float tmin = 0, float tmax = INFINITY,
             float* entry = nullptr) {
  float e;
  const bool h = wr::intersect_ray_box<Variant>(wr::make_ray_box(o, d), lo, hi, tmin, tmax, &e);
  if (entry) *entry = e;
  return h;
}

}  // namespace

TEMPLATE_TEST_CASE("ray/box: hit, miss, entry distance, interval", "", wr::HostTraversal, wr::GpuTraversal) {
  const float lo[3] = {1, -1, -1}, hi[3] = {3, 1, 1};
  float entry;
  REQUIRE(box_hit<TestType>({0, 0, 0}, {1, 0, 0}, lo, hi, 0, INFINITY, &entry));
  CHECK(entry == 1.0f);
  CHECK_FALSE(box_hit<TestType>({0, 0, 0}, {-1, 0, 0}, lo, hi));
  CHECK_FALSE(box_hit<TestType>({0, 2, 0}, {1, 0, 0}, lo, hi));
  CHECK_FALSE(box_hit<TestType>({0, 0, 0}, {1, 0, 0}, lo, hi, 0, 0.5f));          // box beyond tmax
  CHECK_FALSE(box_hit<TestType>({0, 0, 0}, {1, 0, 0}, lo, hi, 3.5f, 9));          // box before tmin
  REQUIRE(box_hit<TestType>({2, 0, 0}, {1, 0, 0}, lo, hi, 0, INFINITY, &entry));  // origin inside
  CHECK(entry == 0.0f);
}

TEMPLATE_TEST_CASE("ray/box: axis-parallel rays on a slab boundary still hit (0 * inf handled)", "", wr::HostTraversal,
                   wr::GpuTraversal) {
  const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  CHECK(box_hit<TestType>({-1, 0, 0.5f}, {1, 0, 0}, lo, hi));  // y exactly on the lower slab plane
  CHECK(box_hit<TestType>({-1, 1, 1}, {1, 0, 0}, lo, hi));     // along an edge
  CHECK_FALSE(box_hit<TestType>({-1, 1.01f, 0.5f}, {1, 0, 0}, lo, hi));
  const float flat_lo[3] = {0, 0, 2}, flat_hi[3] = {1, 1, 2};  // zero-thickness box
  CHECK(box_hit<TestType>({0.5f, 0.5f, 0}, {0, 0, 1}, flat_lo, flat_hi));
  CHECK(box_hit<TestType>({-1, 0.5f, 2}, {1, 0, 0}, flat_lo, flat_hi));  // in the flat box's plane
}

TEMPLATE_TEST_CASE("ray/box is conservative: every ray that hits a triangle hits its bounding box", "",
                   wr::HostTraversal, wr::GpuTraversal) {
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
    lost += !box_hit<TestType>(o, d, lo, hi);
  }
  CHECK(checked > 50000);
  CHECK(lost == 0);
}

TEMPLATE_TEST_CASE("ray/box: every axis' entry and exit counts, and the entry is the latest of the three", "",
                   wr::HostTraversal, wr::GpuTraversal) {
  // Box [1, 3]^3. For each axis k, a ray whose slab interval on axis k is [4, 6] while the other
  // two axes' are [1, 3] (they do not overlap: a miss), and one whose interval on axis k is
  // [2, 4] (overlap [2, 3]: a hit entering at t = 2 through axis k's plane).
  const float lo[3] = {1, 1, 1}, hi[3] = {3, 3, 3};
  for (int k = 0; k < 3; ++k) {
    for (const float sign : {1.0f, -1.0f}) {
      INFO("axis " << k << ", direction sign " << sign);
      float o[3] = {0, 0, 0}, d[3] = {1, 1, 1};
      if (sign < 0) o[0] = o[1] = o[2] = 4, d[0] = d[1] = d[2] = -1;  // enters through bmax
      // late: on axis k the slab [1, 3] is entered at t = 4 and left at t = 6
      float late[3] = {o[0], o[1], o[2]};
      late[k] = sign > 0 ? -3.0f : 7.0f;
      CHECK_FALSE(box_hit<TestType>({late[0], late[1], late[2]}, {d[0], d[1], d[2]}, lo, hi));
      // entered last on axis k, at t = 2
      float mid[3] = {o[0], o[1], o[2]};
      mid[k] = sign > 0 ? -1.0f : 5.0f;
      float entry = -1;
      REQUIRE(box_hit<TestType>({mid[0], mid[1], mid[2]}, {d[0], d[1], d[2]}, lo, hi, 0, INFINITY, &entry));
      CHECK(entry == 2.0f);
      // left first on axis k, at t = 2: the others are entered at 1, so [1, 2] is a hit ...
      float early[3] = {o[0], o[1], o[2]};
      early[k] = sign > 0 ? 1.0f : 3.0f;
      REQUIRE(box_hit<TestType>({early[0], early[1], early[2]}, {d[0], d[1], d[2]}, lo, hi, 0, INFINITY, &entry));
      CHECK(entry == 1.0f);
      // ... that ends at 2: from tmin = 2.5 on it is a miss
      CHECK_FALSE(box_hit<TestType>({early[0], early[1], early[2]}, {d[0], d[1], d[2]}, lo, hi, 2.5f, INFINITY));
    }
  }
}
