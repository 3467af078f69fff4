// Behaviour lock: hashes of the depth images and explicit-ray results the library gave on these
// scenes at commit 6614faf, before the backend seam, the one per-pixel pipeline and the traversal
// variants were reworked (issue: architecture). A refactoring must leave every byte as it was, on
// every CPU path and thread count; a change that means to alter the output (a fix, a new default)
// says so in its commit and records the new hashes here (run with WR_GOLDEN_PRINT=1 to print
// what this build gives).
//
// The scenes are made with SplitMix64 (tools/common/splitmix64.h), whose numbers are the same on
// every platform and standard library, so that the hashes depend on the library alone.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <wr/wr.h>

#include "splitmix64.h"

namespace {

// FNV-1a, 64 bits, over the bytes of an array.
uint64_t fnv1a(const void* data, size_t bytes, uint64_t h = 0xcbf29ce484222325ull) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::string source_path(const char* relative) {
  const char* dir = std::getenv("WR_SOURCE_DIR");  // set by CTest; else run from the source root
  return std::string(dir ? dir : ".") + "/" + relative;
}

bool printing() {
  const char* p = std::getenv("WR_GOLDEN_PRINT");
  return p && *p && std::strcmp(p, "0") != 0;
}

// Checks (or, with WR_GOLDEN_PRINT, prints) one recorded hash.
void check_hash(const char* what, uint64_t got, uint64_t want) {
  if (printing()) std::printf("golden: %-48s 0x%016llxull\n", what, static_cast<unsigned long long>(got));
  INFO(what << ": got 0x" << std::hex << got << ", recorded 0x" << want);
  CHECK(got == want);
}

struct Camera {
  uint32_t width, height;
  float hfov;
  wr_depth_kind kind;
  wr_quat_order order;
  float near_clip, far_clip, miss_value;
  float mount_position[3];
  float mount_pitch_deg;  // about the body's +Y: positive looks down
};

// (n x 7) body poses: x, y uniform in [lo, hi], z at lo[2] + [0, hi[2] - lo[2]], a random yaw,
// pitch and roll within +-0.4 rad, quaternion in `order`.
std::vector<float> random_poses(uint64_t seed, uint32_t n, const float lo[3], const float hi[3], wr_quat_order order) {
  wr_tools::SplitMix64 rng{seed};
  std::vector<float> p;
  for (uint32_t i = 0; i < n; ++i) {
    const float x = rng.uniform(lo[0], hi[0]), y = rng.uniform(lo[1], hi[1]), z = rng.uniform(lo[2], hi[2]);
    const double yaw = rng.uniform(-3.14159, 3.14159), pitch = rng.uniform(-0.4, 0.4), roll = rng.uniform(-0.4, 0.4);
    const double cy = std::cos(yaw / 2), sy = std::sin(yaw / 2), cp = std::cos(pitch / 2), sp = std::sin(pitch / 2);
    const double cr = std::cos(roll / 2), sr = std::sin(roll / 2);
    const float w = float(cr * cp * cy + sr * sp * sy), qx = float(sr * cp * cy - cr * sp * sy);
    const float qy = float(cr * sp * cy + sr * cp * sy), qz = float(cr * cp * sy - sr * sp * cy);
    p.insert(p.end(), {x, y, z});
    if (order == WR_QUAT_WXYZ)
      p.insert(p.end(), {w, qx, qy, qz});
    else
      p.insert(p.end(), {qx, qy, qz, w});
  }
  return p;
}

wr_camera_desc make_desc(const Camera& c) {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, c.width, c.height, c.hfov);
  d.depth_kind = c.kind;
  d.quat_order = c.order;
  d.near_clip = c.near_clip;
  d.far_clip = c.far_clip;
  d.miss_value = c.miss_value;
  for (int k = 0; k < 3; ++k) d.mount_position[k] = c.mount_position[k];
  const float h = c.mount_pitch_deg * 3.14159265f / 360.0f;   // half angle, about +Y
  const float q[4] = {std::cos(h), 0.0f, std::sin(h), 0.0f};  // w, x, y, z
  if (c.order == WR_QUAT_WXYZ) {
    for (int k = 0; k < 4; ++k) d.mount_rotation[k] = q[k];
  } else {
    d.mount_rotation[0] = q[1], d.mount_rotation[1] = q[2], d.mount_rotation[2] = q[3], d.mount_rotation[3] = q[0];
  }
  return d;
}

const wr_cpu_path kPaths[] = {WR_CPU_PATH_SCALAR, WR_CPU_PATH_AVX2, WR_CPU_PATH_AVX512};
const uint32_t kThreads[] = {1, 2, 3};

// Renders `poses` with every CPU path this CPU runs and every thread count of kThreads; each must
// give the recorded hash of the depth images (and of the stack-overflow count with them).
void check_render(const char* name, const std::vector<float>& vertices, const std::vector<uint32_t>& indices,
                  const char* obj, const Camera& camera, const std::vector<float>& poses, uint64_t want) {
  const uint32_t n = uint32_t(poses.size() / 7);
  const wr_camera_desc desc = make_desc(camera);
  bool first = true;
  for (uint32_t threads : kThreads) {
    wr_context ctx = nullptr;
    REQUIRE(wr_context_create_cpu(threads, &ctx) == WR_SUCCESS);
    wr_scene scene = nullptr;
    const wr_status st =
        obj ? wr_scene_load_obj(ctx, source_path(obj).c_str(), &scene)
            : wr_scene_create(ctx, vertices.data(), vertices.size() / 3, indices.data(), indices.size() / 3, &scene);
    REQUIRE(st == WR_SUCCESS);
    wr_sensor sensor = nullptr;
    REQUIRE(wr_sensor_create(scene, &desc, n, &sensor) == WR_SUCCESS);
    for (wr_cpu_path path : kPaths) {
      if (wr_context_set_cpu_path(ctx, path) != WR_SUCCESS) continue;  // this CPU cannot run it
      std::vector<float> depth(size_t(n) * desc.width * desc.height, -12345.0f);
      REQUIRE(wr_sensor_render(sensor, poses.data(), depth.data(), nullptr) == WR_SUCCESS);
      uint64_t overflows = 0;
      REQUIRE(wr_sensor_stack_overflows(sensor, &overflows) == WR_SUCCESS);
      size_t hits = 0;  // the scene is seen: a hash of misses alone would lock nothing
      for (float x : depth) hits += std::isfinite(x) && x != desc.miss_value && x != -12345.0f;
      CHECK(hits > depth.size() / 5);
      const uint64_t h = fnv1a(&overflows, sizeof overflows, fnv1a(depth.data(), depth.size() * sizeof(float)));
      const std::string what =
          std::string(name) + " [" + wr_cpu_path_string(path) + ", " + std::to_string(threads) + " threads]";
      if (first || !printing()) check_hash(what.c_str(), h, want);
      first = false;
      // Overflows accumulate over renders: reset by making a new sensor for the next path.
      wr_sensor_release(sensor);
      REQUIRE(wr_sensor_create(scene, &desc, n, &sensor) == WR_SUCCESS);
    }
    wr_sensor_release(sensor);
    wr_scene_release(scene);
    wr_context_release(ctx);
  }
}

// A soup of `count` random triangles in [-5, 5]^3: small ones, large ones, slivers, shared
// edges and zero-area ones.
void random_soup(uint64_t seed, uint32_t count, std::vector<float>* vertices, std::vector<uint32_t>* indices) {
  wr_tools::SplitMix64 rng{seed};
  for (uint32_t t = 0; t < count; ++t) {
    const float size = rng.uniform(0.0f, 1.0f) < 0.1f ? 3.0f : 0.2f;
    const float c[3] = {rng.uniform(-5.0f, 5.0f), rng.uniform(-5.0f, 5.0f), rng.uniform(-5.0f, 5.0f)};
    const uint32_t base = uint32_t(vertices->size() / 3);
    const uint32_t kind = uint32_t(rng.next() % 10);
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) vertices->push_back(c[a] + size * rng.uniform(-1.0f, 1.0f));
    if (kind == 0) {  // sliver: third corner near the middle of the first edge
      for (int a = 0; a < 3; ++a)
        (*vertices)[3 * (base + 2) + a] = 0.5f * ((*vertices)[3 * base + a] + (*vertices)[3 * (base + 1) + a]) + 1e-4f;
    }
    if (kind == 1)
      indices->insert(indices->end(), {base, base, base + 1});  // zero area
    else if (kind == 2 && t > 0)
      indices->insert(indices->end(), {base - 3, base - 2, base});  // shares an edge
    else
      indices->insert(indices->end(), {base, base + 1, base + 2});
  }
}

// A bumpy (n x n)-quad heightfield over [0, size]^2 with steps, diagonals alternating.
void heightfield(uint64_t seed, uint32_t n, float size, std::vector<float>* vertices, std::vector<uint32_t>* indices) {
  wr_tools::SplitMix64 rng{seed};
  for (uint32_t j = 0; j <= n; ++j)
    for (uint32_t i = 0; i <= n; ++i)
      vertices->insert(vertices->end(), {size * float(i) / float(n), size * float(j) / float(n),
                                         rng.uniform(0.0f, 0.3f) + float((i / 6 + j / 6) % 2) * 0.5f});
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      if ((i + j) % 2)
        indices->insert(indices->end(), {a, b, d, a, d, c});
      else
        indices->insert(indices->end(), {a, b, c, b, d, c});
    }
}

const std::vector<float> kNoVertices;
const std::vector<uint32_t> kNoIndices;

}  // namespace

TEST_CASE("golden: depth on the small parkour terrain, every CPU path and thread count") {
  const float lo[3] = {1.0f, 1.0f, 0.45f}, hi[3] = {11.0f, 11.0f, 1.0f};  // terrain: [0, 12]^2, z <= 0.3
  const Camera policy{106, 60, 87.0f, WR_DEPTH_PLANE, WR_QUAT_WXYZ, 0.0f, INFINITY, INFINITY, {0.27f, 0.0f, 0.03f}, 30};
  check_render("small terrain, plane depth", kNoVertices, kNoIndices, "assets/parkour_small.obj", policy,
               random_poses(1, 24, lo, hi, WR_QUAT_WXYZ), 0xd18734f30c331063ull);
  const Camera clipped{87, 58, 70.0f, WR_DEPTH_RANGE, WR_QUAT_XYZW, 0.3f, 2.0f, -1.0f, {0.1f, 0.05f, 0.1f}, 35};
  check_render("small terrain, range depth clipped, xyzw", kNoVertices, kNoIndices, "assets/parkour_small.obj", clipped,
               random_poses(2, 24, lo, hi, WR_QUAT_XYZW), 0x526e2be9d36029b7ull);
}

TEST_CASE("golden: depth on the bundled parkour terrain") {
  const float lo[3] = {2.0f, 2.0f, 1.3f}, hi[3] = {38.0f, 38.0f, 1.8f};  // terrain: [0, 40]^2, z <= 1.2
  const Camera policy{106, 60, 87.0f, WR_DEPTH_PLANE, WR_QUAT_WXYZ, 0.0f, INFINITY, INFINITY, {0.27f, 0.0f, 0.03f}, 45};
  check_render("parkour terrain, plane depth", kNoVertices, kNoIndices, "assets/parkour_terrain.obj", policy,
               random_poses(3, 8, lo, hi, WR_QUAT_WXYZ), 0x9e5679433a7a5a8bull);
}

TEST_CASE("golden: depth in a triangle soup, cameras inside, partial tiles") {
  std::vector<float> v;
  std::vector<uint32_t> i;
  random_soup(4, 3000, &v, &i);
  const float lo[3] = {-4.0f, -4.0f, -4.0f}, hi[3] = {4.0f, 4.0f, 4.0f};
  const Camera wide{61, 37, 120.0f, WR_DEPTH_RANGE, WR_QUAT_WXYZ, 0.0f, INFINITY, NAN, {0.0f, 0.0f, 0.0f}, 0};
  check_render("soup, range depth, 61x37", v, i, nullptr, wide, random_poses(5, 12, lo, hi, WR_QUAT_WXYZ),
               0x3fb00e96353063a2ull);
  const Camera plane{40, 30, 60.0f, WR_DEPTH_PLANE, WR_QUAT_XYZW, 0.5f, 6.0f, 0.0f, {0.2f, 0.0f, 0.0f}, 20};
  check_render("soup, plane depth clipped, xyzw", v, i, nullptr, plane, random_poses(6, 12, lo, hi, WR_QUAT_XYZW),
               0xa21ad4c3eddccf5cull);
}

TEST_CASE("golden: depth over a heightfield, rays through shared edges and vertices") {
  std::vector<float> v;
  std::vector<uint32_t> i;
  heightfield(7, 48, 12.0f, &v, &i);
  const float lo[3] = {1.0f, 1.0f, 1.0f}, hi[3] = {11.0f, 11.0f, 2.5f};
  const Camera down{64, 48, 90.0f, WR_DEPTH_PLANE, WR_QUAT_WXYZ, 0.0f, INFINITY, INFINITY, {0.0f, 0.0f, 0.0f}, 60};
  check_render("heightfield, plane depth", v, i, nullptr, down, random_poses(8, 16, lo, hi, WR_QUAT_WXYZ),
               0x338ba5db0c399f0dull);
}

TEST_CASE("golden: explicit rays (wr_scene_intersect), tmax given and NULL") {
  std::vector<float> v;
  std::vector<uint32_t> idx;
  random_soup(9, 2000, &v, &idx);
  heightfield(10, 24, 10.0f, &v, &idx);  // appended: indices offset below
  const uint32_t soup_vertices = uint32_t(6000), soup_indices = uint32_t(6000);
  for (size_t k = soup_indices; k < idx.size(); ++k) idx[k] += soup_vertices;
  const uint32_t count = 20000;
  wr_tools::SplitMix64 rng{11};
  std::vector<float> o, d, tmax;
  for (uint32_t r = 0; r < count; ++r) {
    for (int a = 0; a < 3; ++a) o.push_back(rng.uniform(-6.0f, 11.0f));
    for (int a = 0; a < 3; ++a) d.push_back(rng.uniform(-2.0f, 2.0f));
    if (r % 17 == 0) d[3 * r] = d[3 * r + 1] = 0.0f;  // axis-parallel
    tmax.push_back(r % 5 == 0 ? INFINITY : rng.uniform(0.0f, 8.0f));
  }
  for (uint32_t threads : kThreads) {
    wr_context ctx = nullptr;
    REQUIRE(wr_context_create_cpu(threads, &ctx) == WR_SUCCESS);
    wr_scene scene = nullptr;
    REQUIRE(wr_scene_create(ctx, v.data(), v.size() / 3, idx.data(), idx.size() / 3, &scene) == WR_SUCCESS);
    std::vector<float> t(count);
    std::vector<uint32_t> tri(count);
    REQUIRE(wr_scene_intersect(scene, o.data(), d.data(), tmax.data(), count, t.data(), tri.data(), nullptr) ==
            WR_SUCCESS);
    uint64_t h = fnv1a(tri.data(), tri.size() * 4, fnv1a(t.data(), t.size() * 4));
    const std::string with = "intersect, tmax given [" + std::to_string(threads) + " threads]";
    if (threads == 1 || !printing()) check_hash(with.c_str(), h, 0x54a98616f176e732ull);
    REQUIRE(wr_scene_intersect(scene, o.data(), d.data(), nullptr, count, t.data(), nullptr, nullptr) == WR_SUCCESS);
    h = fnv1a(t.data(), t.size() * 4);
    const std::string without = "intersect, tmax NULL [" + std::to_string(threads) + " threads]";
    if (threads == 1 || !printing()) check_hash(without.c_str(), h, 0xa6176437df0a37e3ull);
    wr_scene_release(scene);
    wr_context_release(ctx);
  }
}
