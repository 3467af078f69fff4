// The CPU backend's SIMD packet paths (src/cpu/packet_traversal.h) against its scalar path:
// every pixel bit-identical, and the same stack-overflow count, on scenes chosen to reach the
// packet code's special cases: packets whose rays differ in direction signs or dominant axis
// (the mixed variant), axis-parallel rays from origins on box planes (0 * inf slabs), rays on
// shared edges and vertices (the double-precision fallback of the triangle test), clip ranges,
// partial tiles, and a BVH deep enough to overflow the traversal stack. A path this CPU cannot
// run is skipped with a printed reason.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cpu/cpu_render.h"
#include "cpu_render_reference.h"
#include "cuda_policy.h"
#include "deep_chain_bvh.h"
#include "float_bits.h"
#include "random_scenes.h"
#include "scene/bvh_builder.h"
#include "scene/obj_loader.h"
#include "sensor/camera_model.h"

namespace {

const wr_cpu_path kSimdPaths[] = {WR_CPU_PATH_AVX2, WR_CPU_PATH_AVX512};

using Rendered = wr_test::CpuRendered;

int count_differences(const Rendered& want, const Rendered& got) {
  int n = 0;
  for (size_t i = 0; i < want.depth.size(); ++i) {
    if (wr_test::same_bits(want.depth[i], got.depth[i])) continue;
    if (++n <= 5) UNSCOPED_INFO("value " << i << ": scalar " << want.depth[i] << ", SIMD " << got.depth[i]);
  }
  return n;
}

// Renders with the scalar path and every SIMD path this CPU runs; they must agree bit for bit.
// Returns the scalar render.
Rendered check_paths_agree(const wr::BvhView& bvh, const wr_camera_desc& desc, const std::vector<float>& poses) {
  const Rendered want = wr_test::render_on_cpu(bvh, desc, poses, WR_CPU_PATH_SCALAR);
  for (wr_cpu_path simd : kSimdPaths) {
    INFO("SIMD path " << wr_cpu_path_string(simd));
    if (!wr::cpu_path_supported(simd)) {
      WARN("skipped: this CPU cannot run the " << wr_cpu_path_string(simd) << " path");
      continue;
    }
    const Rendered got = wr_test::render_on_cpu(bvh, desc, poses, simd);
    CHECK(count_differences(want, got) == 0);
    CHECK(got.overflows == want.overflows);
  }
  return want;
}

wr::Bvh build(const std::vector<float>& vertices, const std::vector<uint32_t>& indices) {
  return wr::build_bvh(vertices.data(), indices.data(), indices.size() / 3);
}

wr::Mesh load_small_terrain() {
  const char* dir = std::getenv("WR_SOURCE_DIR");  // set by CTest; else run from the source root
  return wr::load_obj(std::string(dir ? dir : ".") + "/assets/parkour_small.obj");
}

size_t count_finite(const std::vector<float>& v) {
  size_t n = 0;
  for (float x : v) n += std::isfinite(x);
  return n;
}

}  // namespace

TEST_CASE("the best SIMD path is one this CPU runs, and names itself") {
  const wr_cpu_path best = wr::best_cpu_path();
  CHECK(wr::cpu_path_supported(best));
  CHECK(wr::cpu_path_supported(WR_CPU_PATH_SCALAR));
  CHECK(!wr::cpu_path_supported(WR_CPU_PATH_AUTO));  // a setting, not a path
  CHECK(wr::packet_tiles<wr::BvhTerrain>(WR_CPU_PATH_SCALAR) == nullptr);
  CHECK((best == WR_CPU_PATH_SCALAR) == (wr::packet_tiles<wr::BvhTerrain>(best) == nullptr));
  CHECK((best == WR_CPU_PATH_SCALAR) == (wr::packet_tiles<wr::GridTerrain>(best) == nullptr));
  CHECK((best == WR_CPU_PATH_SCALAR) == (wr::packet_tiles<wr::GridMeshTerrain>(best) == nullptr));
  CHECK(std::string(wr_cpu_path_string(WR_CPU_PATH_AVX512)) == "avx512");
  std::printf("test_cpu_packet: this CPU traces with the %s path\n", wr_cpu_path_string(best));
}

TEST_CASE("SIMD packets equal the scalar path on the bundled terrain, from any orientation") {
  const wr::Mesh mesh = load_small_terrain();
  const wr::Bvh bvh = build(mesh.vertices, mesh.indices);
  // 30 x 21: partial packets and partial 8x8 tiles on both edges.
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 30, 21, 87.0f);
  desc.depth_kind = WR_DEPTH_RANGE;
  float lo[3], hi[3];
  wr_test::vertex_bounds(mesh.vertices, lo, hi);
  hi[2] += 1.0f;  // some cameras above the course, looking any way (up included: misses)
  const Rendered r = check_paths_agree(bvh.view(), desc, wr_test::random_poses_in_box(3, 96, lo, hi));
  const size_t finite = count_finite(r.depth);
  CHECK(finite > r.depth.size() / 4);  // the scene is in view: hits and misses both occur
  CHECK(finite < r.depth.size());
}

TEST_CASE("SIMD packets equal the scalar path with plane depth and a near/far clip") {
  const wr::Mesh mesh = load_small_terrain();
  const wr::Bvh bvh = build(mesh.vertices, mesh.indices);
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 16, 16, 100.0f);
  desc.depth_kind = WR_DEPTH_PLANE;
  desc.near_clip = 0.7f;
  desc.far_clip = 3.0f;
  desc.miss_value = -1.0f;
  const float lo[3] = {0, 0, 0.2f}, hi[3] = {8, 8, 1.5f};
  check_paths_agree(bvh.view(), desc, wr_test::random_poses_in_box(4, 64, lo, hi));
}

TEST_CASE("SIMD packets equal the scalar path in a random triangle soup, cameras inside it") {
  const auto soup = wr_test::random_soup(11, 4000, 10.0f);
  const wr::Bvh bvh = build(soup.vertices, soup.indices);
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 24, 24, 120.0f);
  const float lo[3] = {-4, -4, -4}, hi[3] = {4, 4, 4};
  check_paths_agree(bvh.view(), desc, wr_test::random_poses_in_box(5, 48, lo, hi));
}

TEST_CASE("SIMD packets equal the scalar path on a grid with axis-parallel rays from grid planes") {
  // A unit grid of quads in z = 0 (shared edges and vertices everywhere) and walls in x = 0
  // and y = 0. Identity-oriented cameras at integer x, y see exactly axis-parallel centre rays
  // that start on box planes (0 * inf slabs) and hit edges and vertices exactly.
  const auto grid = wr_test::random_heightfield(6, 12, 12.0f);
  std::vector<float> v = grid.vertices;
  std::vector<uint32_t> idx = grid.indices;
  for (auto& z : v) z = 0.0f;  // flat: every ray through a grid line meets an edge exactly
  const uint32_t base = uint32_t(v.size() / 3);
  v.insert(v.end(), {0, 0, 0, 0, 12, 0, 0, 12, 3, 0, 0, 3, 12, 0, 0, 12, 0, 3});
  idx.insert(idx.end(),
             {base, base + 1, base + 2, base, base + 2, base + 3, base, base + 4, base + 5, base, base + 5, base + 3});
  const wr::Bvh bvh = build(v, idx);
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 9, 9, 90.0f);  // odd: the centre pixel's ray is the optical axis
  std::vector<float> poses;
  const float s = std::sqrt(0.5f);
  for (int x = 0; x <= 12; x += 3)
    for (int y = 0; y <= 12; y += 4) {
      // Looking straight down (pitch 90 deg about +Y: optical axis -Z), and along +X, and -X.
      poses.insert(poses.end(), {float(x), float(y), 2.0f, s, 0, s, 0});
      poses.insert(poses.end(), {float(x), float(y), 1.0f, 1, 0, 0, 0});
      poses.insert(poses.end(), {float(x), float(y), 1.0f, 0, 0, 0, 1});
    }
  const Rendered r = check_paths_agree(bvh.view(), desc, poses);
  CHECK(count_finite(r.depth) > r.depth.size() / 3);
}

TEST_CASE("SIMD packets on a BVH deeper than the stack: same depth, same overflow count") {
  const wr_test::DeepChainBvh chain = wr_test::deep_chain_bvh(100);  // a ray along +x pushes one leaf per level
  const wr::BvhView bvh = chain.view();
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 6, 5, 20.0f);
  const std::vector<float> poses = {0, 0, 0, 1, 0, 0, 0, -2, 0.1f, 0, 1, 0, 0, 0};  // looking along +X
  const Rendered r = check_paths_agree(bvh, desc, poses);
  CHECK(r.overflows > 30);  // most rays overflowed, and every ray still found the nearest plane:
  for (uint32_t env = 0; env < 2; ++env)
    for (int px = 0; px < 30; ++px) CHECK(r.depth[env * 30 + px] == Approx(env == 0 ? 1.0 : 3.0));
}

TEST_CASE("depth does not depend on the BVH's build options: the CUDA contexts' tree renders the same") {
  // CUDA contexts build with other SAH weights (kernels/cuda_policy.h); traversal is exact, so
  // every path on either tree gives the same bits. Terrain and soup, cameras anywhere.
  const wr::Mesh terrain = load_small_terrain();
  const auto soup = wr_test::random_soup(12, 3000, 10.0f);
  const std::vector<std::pair<std::vector<float>, std::vector<uint32_t>>> scenes = {{terrain.vertices, terrain.indices},
                                                                                    {soup.vertices, soup.indices}};
  for (const auto& scene : scenes) {
    const wr::Bvh cpu_tree = build(scene.first, scene.second);
    const wr::BvhBuildOptions cuda_options = wr::cuda::bvh_build_options();
    const wr::Bvh cuda_tree =
        wr::build_bvh(scene.first.data(), scene.second.data(), scene.second.size() / 3, cuda_options);
    REQUIRE(cuda_tree.nodes.size() > cpu_tree.nodes.size());  // really another tree: smaller leaves
    float lo[3], hi[3];
    wr_test::vertex_bounds(scene.first, lo, hi);
    wr_camera_desc desc;
    wr_camera_desc_pinhole(&desc, 20, 14, 90.0f);
    const std::vector<float> poses = wr_test::random_poses_in_box(8, 48, lo, hi);
    const Rendered want = check_paths_agree(cpu_tree.view(), desc, poses);
    const Rendered got = check_paths_agree(cuda_tree.view(), desc, poses);
    CHECK(count_differences(want, got) == 0);
    CHECK(count_finite(want.depth) > want.depth.size() / 4);
  }
}

TEST_CASE("SIMD packets equal the scalar path with the largest leaves the layout allows") {
  // Leaves of up to kMaxLeafTriangles (64) triangles of a soup, whose corners are not shared:
  // up to 192 corners a leaf, the most the packet path's per-leaf corner arrays hold and the
  // most an 8-bit corner index reaches. Depth as for the default tree, bit for bit.
  const auto soup = wr_test::random_soup(13, 3000, 10.0f);
  wr::BvhBuildOptions big;
  big.max_leaf_size = wr::kMaxLeafTriangles;
  big.traversal_cost = 1000.0f;  // a split never pays: leaves as large as allowed
  const wr::Bvh big_tree = wr::build_bvh(soup.vertices.data(), soup.indices.data(), soup.num_triangles(), big);
  uint32_t most_corners = 0, most_triangles = 0;
  for (size_t i = 0; i < big_tree.nodes.size(); ++i) {
    if (i == 1 || big_tree.nodes[i].count == 0) continue;
    most_corners = std::max(most_corners, wr::leaf_vertex_count(big_tree.nodes[i]));
    most_triangles = std::max(most_triangles, wr::leaf_triangle_count(big_tree.nodes[i]));
  }
  INFO("largest leaf: " << most_triangles << " triangles, most corners in a leaf: " << most_corners);
  REQUIRE(most_triangles <= wr::kMaxLeafTriangles);
  REQUIRE(most_corners > 150);  // close to the 192 limit
  float lo[3], hi[3];
  wr_test::vertex_bounds(soup.vertices, lo, hi);
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 20, 14, 90.0f);
  const std::vector<float> poses = wr_test::random_poses_in_box(9, 32, lo, hi);
  const Rendered want = check_paths_agree(build(soup.vertices, soup.indices).view(), desc, poses);
  const Rendered got = check_paths_agree(big_tree.view(), desc, poses);
  CHECK(count_differences(want, got) == 0);
  CHECK(count_finite(want.depth) > want.depth.size() / 4);
}

TEST_CASE("SIMD packets equal the scalar path where the depth lands exactly on a clip bound") {
  // The packet path clamps depth as a vector and leaves lanes whose value equals near or far
  // to pixel_value() (IEEE lets fmax / fmin return either of +0 / -0; glibc's return the first
  // operand, as the vector clamp does, so on this platform both give the same bits either
  // way). Pinned here: values exactly on a bound. Cameras on a flat floor (depth 0 = near_clip,
  // from z = +0 and -0) and 2 m above it (centre ray: 2 = near or far exactly), range depth.
  const auto grid = wr_test::random_heightfield(8, 8, 8.0f);
  std::vector<float> v = grid.vertices;
  for (size_t i = 2; i < v.size(); i += 3) v[i] = 0.0f;
  const wr::Bvh bvh = build(v, grid.indices);
  const float s = std::sqrt(0.5f);  // pitch 90 deg about +Y: looking straight down
  std::vector<float> poses;
  for (float x : {1.5f, 3.0f, 4.25f})
    for (float z : {0.0f, -0.0f, 2.0f}) poses.insert(poses.end(), {x, 2.5f, z, s, 0, s, 0});
  for (const auto& clip : std::vector<std::pair<float, float>>{{0.0f, INFINITY}, {2.0f, 10.0f}, {0.0f, 2.0f}}) {
    wr_camera_desc desc;
    wr_camera_desc_pinhole(&desc, 9, 9, 90.0f);  // odd: the centre pixel's ray is the optical axis
    desc.depth_kind = WR_DEPTH_RANGE;
    desc.near_clip = clip.first;
    desc.far_clip = clip.second;
    INFO("near " << clip.first << ", far " << clip.second);
    const Rendered r = check_paths_agree(bvh.view(), desc, poses);
    const size_t centre = 4 * 9 + 4, pixels = 81;
    CHECK(r.depth[2 * pixels + centre] == 2.0f);  // the camera 2 m up: its centre ray is exact
    CHECK(count_finite(r.depth) > 0);
  }
}
