// BVH builder (src/scene/bvh_builder): structural invariants on random scenes, determinism
// across thread counts, pathological inputs, SAH quality.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/bvh_traverse.h"
#include "bvh_full_sweep.h"
#include "random_scenes.h"
#include "scene/bvh_builder.h"
#include "scene/obj_loader.h"

namespace {

bool contains(const wr::BvhNode& outer, const float lo[3], const float hi[3]) {
  for (int a = 0; a < 3; ++a)
    if (lo[a] < outer.bmin[a] || hi[a] > outer.bmax[a]) return false;
  return true;
}

// True when triangle t's corners are collinear or repeated (exactly, in double).
bool zero_area(const std::vector<float>& v, const std::vector<uint32_t>& idx, uint64_t t) {
  const float* a = &v[3 * idx[3 * t]];
  const float* b = &v[3 * idx[3 * t + 1]];
  const float* c = &v[3 * idx[3 * t + 2]];
  const double u[3] = {double(b[0]) - a[0], double(b[1]) - a[1], double(b[2]) - a[2]};
  const double w[3] = {double(c[0]) - a[0], double(c[1]) - a[1], double(c[2]) - a[2]};
  return u[1] * w[2] - u[2] * w[1] == 0 && u[2] * w[0] - u[0] * w[2] == 0 && u[0] * w[1] - u[1] * w[0] == 0;
}

// Checks every invariant the traversal relies on: every triangle with a non-zero area is in
// exactly one leaf, zero-area ones in none; each leaf's block (bvh_layout.h) lies inside
// leaf_words without overlapping another, uses each of its corners, and gives every triangle
// exactly its input corners in input order (the watertight test needs the exact vertices,
// the winding needs the order). Returns the max leaf size; *corners_out (optional) gets the
// number of corners stored over all leaves.
uint32_t check_invariants(const wr::Bvh& bvh, const std::vector<float>& vertices, const std::vector<uint32_t>& indices,
                          uint64_t* corners_out = nullptr) {
  const uint64_t num_triangles = indices.size() / 3;
  uint64_t expected = 0;
  for (uint64_t t = 0; t < num_triangles; ++t) expected += !zero_area(vertices, indices, t);
  if (expected == 0) {  // nothing to hit: the root's box is empty, so no ray gets past it
    for (int a = 0; a < 3; ++a) REQUIRE(bvh.nodes[0].bmin[a] > bvh.nodes[0].bmax[a]);
    REQUIRE(bvh.leaf_words.empty());
    return 0;
  }
  REQUIRE(bvh.nodes.size() == bvh.parents.size());
  REQUIRE(bvh.parents[0] == wr::kInvalidIndex);
  std::vector<int> seen_in_leaf(num_triangles, 0);       // per input id
  std::vector<int> word_used(bvh.leaf_words.size(), 0);  // per word of leaf_words
  std::vector<int> reached(bvh.nodes.size(), 0);
  uint32_t max_leaf = 0;
  uint64_t corners_total = 0;
  std::vector<uint32_t> stack{0};
  while (!stack.empty()) {
    const uint32_t i = stack.back();
    stack.pop_back();
    REQUIRE(i != 1);  // node 1 is padding, never referenced
    ++reached[i];
    const wr::BvhNode& n = bvh.nodes[i];
    if (n.count == 0) {
      REQUIRE(n.first % 2 == 0);  // children pair at an even index: one cache line
      REQUIRE(n.first + 1 < bvh.nodes.size());
      for (uint32_t c = n.first; c <= n.first + 1; ++c) {
        REQUIRE(bvh.parents[c] == i);
        REQUIRE(contains(n, bvh.nodes[c].bmin, bvh.nodes[c].bmax));
        stack.push_back(c);
      }
      continue;
    }
    const uint32_t triangles = wr::leaf_triangle_count(n), corners = wr::leaf_vertex_count(n);
    REQUIRE(triangles >= 1);
    REQUIRE(corners <= 3 * triangles);
    max_leaf = std::max(max_leaf, triangles);
    corners_total += corners;
    REQUIRE(uint64_t(n.first) + wr::leaf_block_words(n) <= bvh.leaf_words.size());
    for (uint32_t w = n.first; w < n.first + wr::leaf_block_words(n); ++w) ++word_used[w];
    const wr::LeafBlock block = wr::leaf_block(bvh.view(), n);
    std::vector<int> corner_used(corners, 0);
    for (uint32_t j = 0; j < triangles; ++j) {
      const uint32_t id = block.ids[j];
      REQUIRE(id < num_triangles);
      ++seen_in_leaf[id];
      for (int k = 0; k < 3; ++k) {
        const uint32_t c = wr::corner_index(block.corners[j], k);
        REQUIRE(c < corners);
        ++corner_used[c];
        float v[3];
        wr::load_leaf_vertex(block, c, v);
        const float* input = &vertices[3 * indices[3 * id + k]];
        REQUIRE(std::memcmp(v, input, sizeof v) == 0);  // bit for bit
        REQUIRE(contains(n, v, v));
      }
      REQUIRE(block.corners[j] >> 24 == 0);  // the spare byte stays clear
    }
    for (uint32_t c = 0; c < corners; ++c) REQUIRE(corner_used[c] > 0);
  }
  for (uint64_t t = 0; t < num_triangles; ++t) REQUIRE(seen_in_leaf[t] == (zero_area(vertices, indices, t) ? 0 : 1));
  for (size_t w = 0; w < word_used.size(); ++w) REQUIRE(word_used[w] == 1);               // blocks tile leaf_words
  for (size_t i = 0; i < bvh.nodes.size(); ++i) REQUIRE(reached[i] == (i == 1 ? 0 : 1));  // no orphans
  if (corners_out) *corners_out = corners_total;
  return max_leaf;
}

bool same_bytes(const wr::Bvh& a, const wr::Bvh& b) {
  return a.nodes.size() == b.nodes.size() &&
         std::memcmp(a.nodes.data(), b.nodes.data(), a.nodes.size() * sizeof(wr::BvhNode)) == 0 &&
         a.leaf_words == b.leaf_words && a.parents == b.parents;
}

}  // namespace

TEST_CASE("BVH invariants hold on random scenes of many sizes") {
  for (uint32_t n : {1u, 2u, 3u, 7u, 64u, 1000u, 40000u}) {
    const auto scene = wr_test::random_soup(n, n);
    const wr::Bvh bvh = wr::build_bvh(scene.vertices.data(), scene.indices.data(), scene.num_triangles());
    INFO("triangles: " << n);
    CHECK(check_invariants(bvh, scene.vertices, scene.indices) <= wr::BvhBuildOptions{}.max_leaf_size);
  }
}

TEST_CASE("BVH leaves of a terrain store shared corners once") {
  // A grid's triangles share their corners: a leaf of 16 neighbouring triangles has about 15
  // corners, where 16 separate triangles would have 48. Also the largest leaves allowed
  // (kMaxLeafTriangles, 192 corner slots): a larger request is clamped to it.
  const auto scene = wr_test::random_heightfield(7, 120, 30.0f);
  for (uint32_t leaf : {16u, 1000u}) {
    wr::BvhBuildOptions options;
    options.max_leaf_size = leaf;
    options.traversal_cost = leaf == 16 ? 4.0f : 1000.0f;  // 1000: leaves as large as allowed
    const wr::Bvh bvh = wr::build_bvh(scene.vertices.data(), scene.indices.data(), scene.num_triangles(), options);
    uint64_t corners = 0;
    const uint32_t max_leaf = check_invariants(bvh, scene.vertices, scene.indices, &corners);
    INFO("max_leaf_size " << leaf << ": " << corners << " corners for " << scene.num_triangles() << " triangles");
    CHECK(max_leaf <= std::min(leaf, wr::kMaxLeafTriangles));
    CHECK(corners < scene.num_triangles() * 3 / 2);  // at most half of 3 per triangle
    if (leaf == 1000) CHECK(max_leaf > 32);          // leaves far larger than the default 16
  }
}

TEST_CASE("BVH build gives the same bytes whatever the thread count") {
  const auto scene = wr_test::random_heightfield(5, 200, 50.0f);  // 80k triangles: parallel subtrees
  wr::BvhBuildOptions one, many;
  one.num_threads = 1;
  many.num_threads = 4;
  const wr::Bvh a = wr::build_bvh(scene.vertices.data(), scene.indices.data(), scene.num_triangles(), one);
  const wr::Bvh b = wr::build_bvh(scene.vertices.data(), scene.indices.data(), scene.num_triangles(), many);
  check_invariants(a, scene.vertices, scene.indices);
  CHECK(same_bytes(a, b));
}

TEST_CASE("pathological inputs: identical triangles give bounded leaves, zero-area ones an empty BVH") {
  const std::vector<float> v = {0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0};
  std::vector<uint32_t> same;
  for (int i = 0; i < 1000; ++i) same.insert(same.end(), {0, 1, 2});
  const wr::Bvh a = wr::build_bvh(v.data(), same.data(), 1000);
  CHECK(check_invariants(a, v, same) <= wr::BvhBuildOptions{}.max_leaf_size);
  // Only zero-area triangles (a point, a repeated corner, collinear corners): nothing to hit.
  std::vector<uint32_t> flat;
  for (int i = 0; i < 300; ++i) flat.insert(flat.end(), {0, 0, 0, 0, 0, 1, 0, 1, 3});
  const wr::Bvh b = wr::build_bvh(v.data(), flat.data(), 900);
  check_invariants(b, v, flat);
  CHECK(b.leaf_words.empty());
  const auto hit = wr::trace_closest_hit(b.view(), wr::Vec3{0.1f, 0.1f, 1}, wr::Vec3{0, 0, -1}, 0, INFINITY);
  CHECK(hit.triangle == wr::kInvalidIndex);
  const auto along = wr::trace_closest_hit(b.view(), wr::Vec3{-1, 0, 0}, wr::Vec3{1, 0, 0}, 0, INFINITY);
  CHECK(along.triangle == wr::kInvalidIndex);
}

TEST_CASE("binned SAH beats a median split on a scene with very uneven density") {
  // Dense cluster plus sparse large triangles: SAH should isolate the cluster.
  const auto scene = wr_test::random_soup(9, 20000, 100.0f);
  const wr::Bvh sah = wr::build_bvh(scene.vertices.data(), scene.indices.data(), scene.num_triangles());
  wr::BvhBuildOptions one_bin;
  one_bin.num_bins = 2;  // two bins: splits at the centroid-bounds midpoint, no cost search worth the name
  const wr::Bvh crude = wr::build_bvh(scene.vertices.data(), scene.indices.data(), scene.num_triangles(), one_bin);
  const double c_sah = wr::bvh_sah_cost(sah), c_crude = wr::bvh_sah_cost(crude);
  INFO("SAH cost 32 bins: " << c_sah << ", 2 bins: " << c_crude);
  CHECK(c_sah < c_crude);
  CHECK(c_sah < 0.05 * scene.num_triangles());  // far below testing every triangle
}

TEST_CASE("binned SAH is within 2% of a full SAH sweep (build quality), and the sweep is a valid BVH") {
  // Full sweep: the SAH at every split position of every axis (support/bvh_full_sweep.h), the
  // reference a binned build approximates (Wald 2007). Costs use the builder's own
  // traversal/intersection weights.
  const wr::BvhBuildOptions binned;
  const wr_test::FullSweepSplitter full_sweep;
  wr::BvhBuildOptions sweep;
  sweep.splitter = &full_sweep;
  auto compare = [&](const char* name, const std::vector<float>& v, const std::vector<uint32_t>& idx) {
    const wr::Bvh a = wr::build_bvh(v.data(), idx.data(), idx.size() / 3, binned);
    const wr::Bvh b = wr::build_bvh(v.data(), idx.data(), idx.size() / 3, sweep);
    check_invariants(b, v, idx);
    const double ca = wr::bvh_sah_cost(a, binned.traversal_cost, binned.intersection_cost);
    const double cb = wr::bvh_sah_cost(b, sweep.traversal_cost, sweep.intersection_cost);
    std::printf("SAH cost, %s (%zu triangles): binned %.4f, full sweep %.4f, ratio %.4f\n", name, idx.size() / 3, ca,
                cb, ca / cb);
    CHECK(ca <= cb * 1.02);
  };
  const auto soup = wr_test::random_soup(21, 5000, 20.0f);
  compare("random soup", soup.vertices, soup.indices);
  const auto field = wr_test::random_heightfield(22, 100, 25.0f);
  compare("heightfield", field.vertices, field.indices);
  const char* dir = std::getenv("WR_SOURCE_DIR");  // set by CTest; else run from the source root
  for (const char* asset : {"/assets/parkour_small.obj", "/assets/parkour_terrain.obj"}) {
    const wr::Mesh mesh = wr::load_obj(std::string(dir ? dir : ".") + asset);
    compare(asset, mesh.vertices, mesh.indices);
  }
}
