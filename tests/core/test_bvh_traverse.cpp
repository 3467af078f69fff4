// BVH traversal (src/core/bvh_traverse.h) against brute force over every triangle, with
// the same watertight test: the results must be identical (distance and triangle id),
// including when the fixed stack overflows and the stackless walk finishes the ray. Every case
// runs for both forms of the traversal (core/traversal_variant.h): the host's and the GPU's
// (nested loops, node planes by selects, FMNMX slab test), so the GPU's is checked without a GPU.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "core/bvh_traverse.h"
#include "random_scenes.h"
#include "scene/bvh_builder.h"

using wr::Vec3;

namespace {

// Nearest hit over all triangles in input order; ties go to the lowest id, as in traversal.
wr::TraceResult brute_force(const wr_test::SoupScene& s, Vec3 o, Vec3 d, float tmin, float tmax) {
  wr::TraceResult best{tmax, wr::kInvalidIndex, false, wr::NodeLink{0, 0}};
  const wr::RayTriangle rt = wr::make_ray_triangle(o, d);
  auto vtx = [&](uint32_t i) { return Vec3{s.vertices[3 * i], s.vertices[3 * i + 1], s.vertices[3 * i + 2]}; };
  for (uint32_t t = 0; t < s.num_triangles(); ++t) {
    float dist;
    if (wr::intersect_ray_triangle(rt, vtx(s.indices[3 * t]), vtx(s.indices[3 * t + 1]), vtx(s.indices[3 * t + 2]),
                                   tmin, best.t, &dist) &&
        dist < best.t) {
      best.t = dist;
      best.triangle = t;
    }
  }
  return best;
}

struct RayCase {
  Vec3 o, d;
  float tmin, tmax;
};

std::vector<RayCase> random_rays(uint32_t seed, int count, float extent) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> p(-extent, extent), dir(-1, 1), u(0, 1);
  std::vector<RayCase> rays;
  for (int i = 0; i < count; ++i) {
    RayCase r;
    r.o = Vec3{p(rng), p(rng), p(rng)};
    r.d = Vec3{dir(rng), dir(rng), dir(rng)};
    if (i % 7 == 0) r.d = Vec3{0, 0, -1};                // axis-parallel
    if (i % 11 == 0) r.d = Vec3{dir(rng), 0, dir(rng)};  // one zero component
    r.tmin = i % 3 == 0 ? u(rng) * extent * 0.5f : 0.0f;
    r.tmax = i % 5 == 0 ? u(rng) * extent * 2 : INFINITY;
    rays.push_back(r);
  }
  return rays;
}

template <class Variant, int kStack>
int count_mismatches(const wr_test::SoupScene& s, const wr::Bvh& bvh, const std::vector<RayCase>& rays, int* overflowed,
                     int* hits) {
  int bad = 0;
  *overflowed = *hits = 0;
  for (const RayCase& r : rays) {
    const wr::TraceResult want = brute_force(s, r.o, r.d, r.tmin, r.tmax);
    const wr::TraceResult got = wr::trace_closest_hit<Variant, kStack>(bvh.view(), r.o, r.d, r.tmin, r.tmax);
    *overflowed += got.overflowed;
    *hits += want.triangle != wr::kInvalidIndex;
    // Ties at the same distance may resolve to another id only if the ids' t are equal.
    const bool same = got.triangle == want.triangle && (got.t == want.t || want.triangle == wr::kInvalidIndex);
    bad += !same;
  }
  return bad;
}

}  // namespace

TEMPLATE_TEST_CASE("traversal equals brute force on random scenes", "", wr::HostTraversal, wr::GpuTraversal) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const auto scene = wr_test::random_soup(seed, 3000, 10.0f);
    const wr::Bvh bvh = wr::build_bvh(scene.vertices.data(), scene.indices.data(), scene.num_triangles());
    const auto rays = random_rays(seed + 100, 3000, 8.0f);
    int overflowed, hits;
    const int bad = count_mismatches<TestType, wr::kTraversalStackSize>(scene, bvh, rays, &overflowed, &hits);
    INFO("seed " << seed << ": " << hits << " of " << rays.size() << " rays hit");
    CHECK(hits > 300);
    CHECK(bad == 0);
    CHECK(overflowed == 0);
  }
}

TEMPLATE_TEST_CASE("traversal equals brute force on a heightfield (shared edges, many ties)", "", wr::HostTraversal,
                   wr::GpuTraversal) {
  const auto scene = wr_test::random_heightfield(4, 60, 30.0f);
  const wr::Bvh bvh = wr::build_bvh(scene.vertices.data(), scene.indices.data(), scene.num_triangles());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> xy(-5, 35), z(1, 4), dir(-1, 1);
  std::vector<RayCase> rays;
  for (int i = 0; i < 4000; ++i)
    rays.push_back({Vec3{xy(rng), xy(rng), z(rng)}, Vec3{dir(rng), dir(rng), -std::fabs(dir(rng))}, 0, INFINITY});
  int overflowed, hits;
  CHECK(count_mismatches<TestType, wr::kTraversalStackSize>(scene, bvh, rays, &overflowed, &hits) == 0);
  CHECK(hits > 2000);
}

TEMPLATE_TEST_CASE("stack overflow is detected and the ray still gets the exact answer", "", wr::HostTraversal,
                   wr::GpuTraversal) {
  const auto scene = wr_test::random_soup(8, 5000, 10.0f);
  const wr::Bvh bvh = wr::build_bvh(scene.vertices.data(), scene.indices.data(), scene.num_triangles());
  const auto rays = random_rays(77, 2000, 8.0f);
  int overflowed, hits;
  CHECK(count_mismatches<TestType, 2>(scene, bvh, rays, &overflowed, &hits) == 0);  // a two-entry stack
  CHECK(overflowed > 100);
  CHECK(count_mismatches<TestType, 3>(scene, bvh, rays, &overflowed, &hits) == 0);
  CHECK(overflowed > 0);
}

TEMPLATE_TEST_CASE("a one-triangle scene (root is a leaf) and rays that start inside the scene", "", wr::HostTraversal,
                   wr::GpuTraversal) {
  const std::vector<float> v = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const std::vector<uint32_t> idx = {0, 1, 2};
  const wr::Bvh bvh = wr::build_bvh(v.data(), idx.data(), 1);
  const auto hit = wr::trace_closest_hit<TestType>(bvh.view(), Vec3{0.2f, 0.2f, 1}, Vec3{0, 0, -1}, 0, INFINITY);
  CHECK(hit.triangle == 0);
  CHECK(hit.t == 1.0f);
  const auto miss = wr::trace_closest_hit<TestType>(bvh.view(), Vec3{2, 2, 1}, Vec3{0, 0, -1}, 0, INFINITY);
  CHECK(miss.triangle == wr::kInvalidIndex);
}
