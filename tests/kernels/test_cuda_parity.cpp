// The CUDA backend renders bit-identical depth images to the CPU backend, through the public C
// API (libwr.so), over many camera configs and three scenes (see cuda_test_support.h for why no
// tolerance is allowed and how a test skips without a GPU).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <wr/wr.h>

#include "api_test_support.h"
#include "cuda_test_inputs.h"
#include "cuda_test_support.h"
#include "mesh_builders.h"

using namespace wr_test::cuda_tests;  // the helpers of this test family, shared by its files

namespace {

// A closed room [-4, 4] x [-3, 3] x [0, 3], every wall split into 0.5 m quads (two triangles
// each, diagonals alternating), plus two pillars. All coordinates are multiples of 0.5, exact
// in float, so the walls meet at bit-identical vertices: the room is watertight and a camera
// inside it hits something at every pixel when nothing is clipped.
Mesh closed_room() {
  Mesh m;
  const float lo[3] = {-4.0f, -3.0f, 0.0f}, hi[3] = {4.0f, 3.0f, 3.0f}, step = 0.5f;
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    const int nb = int((hi[b] - lo[b]) / step), nc = int((hi[c] - lo[c]) / step);
    for (float fixed : {lo[a], hi[a]}) {
      const uint32_t base = uint32_t(m.num_vertices());
      for (int j = 0; j <= nc; ++j)
        for (int i = 0; i <= nb; ++i) {
          float p[3];
          p[a] = fixed;
          p[b] = lo[b] + step * float(i);
          p[c] = lo[c] + step * float(j);
          m.vertex(p[0], p[1], p[2]);
        }
      auto at = [&](int i, int j) { return base + uint32_t(j * (nb + 1) + i); };
      for (int j = 0; j < nc; ++j)
        for (int i = 0; i < nb; ++i)
          add_split_quad(m, at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1), (i + j) % 2 != 0);
    }
  }
  add_box(m, 1.5f, 1.0f, 1.5f, 0.25f, 0.25f, 1.5f, 0.0);
  add_box(m, -2.0f, -1.0f, 1.0f, 0.4f, 0.2f, 1.0f, 0.6);
  return m;
}

// num_triangles random triangles in [-5, 5]^3: small and large ones, slivers (third corner
// 1e-5 off the first edge's midpoint), needles, and zero-area ones of three kinds (a repeated
// index, three exactly collinear corners, three equal corners), some sharing an edge with the
// previous triangle.
Mesh triangle_soup(uint32_t seed, int num_triangles) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-5.0f, 5.0f), off(-1.0f, 1.0f), unit(0.0f, 1.0f);
  Mesh m;
  for (int t = 0; t < num_triangles; ++t) {
    const float size = unit(rng) < 0.15f ? 3.0f : 0.4f;
    const float x = pos(rng), y = pos(rng), z = pos(rng);
    const uint32_t a = m.vertex(x, y, z);
    const float bx = x + size * off(rng), by = y + size * off(rng), bz = z + size * off(rng);
    const uint32_t b = m.vertex(bx, by, bz);
    const int kind = int(unit(rng) * 10.0f);
    switch (kind) {
      case 0: {  // sliver
        const uint32_t c = m.vertex(0.5f * (x + bx) + 1e-5f, 0.5f * (y + by), 0.5f * (z + bz));
        m.triangle(a, b, c);
        break;
      }
      case 1: {  // needle: long and very thin
        const uint32_t c = m.vertex(x + 6.0f * (bx - x), y + 6.0f * (by - y) + 2e-3f, z + 6.0f * (bz - z));
        m.triangle(a, b, c);
        break;
      }
      case 2:  // zero area: repeated index
        m.triangle(a, a, b);
        break;
      case 3: {  // zero area: exactly collinear along +X (the coordinates are exact in float)
        const uint32_t c = m.vertex(x + 1.0f, y, z), d = m.vertex(x + 3.0f, y, z);
        m.triangle(a, c, d);
        break;
      }
      case 4: {  // zero area: three equal corners (distinct vertices)
        const uint32_t c = m.vertex(x, y, z), d = m.vertex(x, y, z);
        m.triangle(a, c, d);
        break;
      }
      case 5:  // shares the edge (a_prev, b_prev) of the previous triangle's first two corners
        if (t > 0) {
          const uint32_t p0 = m.indices[m.indices.size() - 3], p1 = m.indices[m.indices.size() - 2];
          m.triangle(p0, p1, a);
          break;
        }
        [[fallthrough]];
      default: {
        const uint32_t c = m.vertex(x + size * off(rng), y + size * off(rng), z + size * off(rng));
        m.triangle(a, b, c);
      }
    }
  }
  return m;
}

// ---- parity -------------------------------------------------------------------------------------

struct Config {
  uint32_t width, height, num_envs;
  wr_depth_kind depth_kind;
  wr_quat_order quat_order;
  float fx_over_w, fy_over_w;  // focal lengths as fractions of the width
  float cx_over_w, cy_over_h;  // principal point as fractions of the image size
  float near_clip, far_clip, miss_value;
  bool mount;       // an offset and tilted mount, else the identity
  bool own_stream;  // a non-blocking stream, else the legacy default stream
};

// Odd sizes, so 8x4 warp tiles are partial at the right and bottom edges; one exactly one tile;
// one pixel; one row; one column. Both depth kinds and quaternion orders, centred and far
// off-centre principal points (with w = 37 and cx = 18.5 the centre column's ray is exactly the
// optical axis), narrow and wide fields of view, clipping on and off, all miss values.
const Config kConfigs[] = {
    {37, 23, 1, WR_DEPTH_PLANE, WR_QUAT_WXYZ, 0.8f, 0.8f, 0.5f, 0.5f, 0.0f, kInf, kInf, false, false},
    {37, 23, 7, WR_DEPTH_RANGE, WR_QUAT_XYZW, 0.6f, 0.7f, 0.31f, 0.72f, 0.25f, 6.0f, kNaN, true, true},
    {37, 23, 64, WR_DEPTH_PLANE, WR_QUAT_XYZW, 1.3f, 1.1f, 0.5f, 0.5f, 0.5f, 4.0f, -1.0f, true, true},
    {37, 23, 64, WR_DEPTH_RANGE, WR_QUAT_WXYZ, 0.25f, 0.3f, 0.9f, 0.1f, 0.0f, kInf, 0.0f, true, false},
    {45, 17, 7, WR_DEPTH_PLANE, WR_QUAT_WXYZ, 0.9f, 0.5f, 0.2f, 0.8f, 1.0f, 1e30f, kInf, true, true},
    {8, 4, 64, WR_DEPTH_RANGE, WR_QUAT_XYZW, 0.7f, 0.7f, 0.5f, 0.5f, 0.05f, 9.0f, kInf, true, true},
    {1, 1, 7, WR_DEPTH_PLANE, WR_QUAT_XYZW, 1.0f, 1.0f, 0.5f, 0.5f, 0.0f, kInf, kInf, false, true},
    {33, 1, 1, WR_DEPTH_RANGE, WR_QUAT_WXYZ, 0.5f, 0.5f, 0.5f, -2.0f, 0.0f, 7.5f, kNaN, true, false},
    {3, 29, 64, WR_DEPTH_PLANE, WR_QUAT_WXYZ, 0.4f, 2.0f, 1.5f, 0.5f, 0.3f, kInf, kInf, true, true},
    // The parkour policies' camera: 106x60, 87 degrees wide, depth clipped to [0.1, 10] m.
    {106, 60, 64, WR_DEPTH_PLANE, WR_QUAT_WXYZ, 0.527f, 0.527f, 0.5f, 0.5f, 0.1f, 10.0f, 10.0f, true, true},
};

wr_camera_desc make_desc(const Config& c) {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, c.width, c.height, 90.0f);
  d.fx = c.fx_over_w * float(c.width);
  d.fy = c.fy_over_w * float(c.width);
  d.cx = c.cx_over_w * float(c.width);
  d.cy = c.cy_over_h * float(c.height);
  d.near_clip = c.near_clip;
  d.far_clip = c.far_clip;
  d.miss_value = c.miss_value;
  d.depth_kind = c.depth_kind;
  d.quat_order = c.quat_order;
  if (c.mount) {
    d.mount_position[0] = 0.31f, d.mount_position[1] = -0.07f, d.mount_position[2] = 0.12f;
    const Quaterniond q = ypr(5.0, 25.0, -3.0);
    put_quat(d.mount_rotation, float(q.w()), float(q.x()), float(q.y()), float(q.z()), c.quat_order);
  }
  return d;
}

// Reported values strictly inside [near, far] (not miss_value): how many pixels hit something.
size_t count_hits(const std::vector<float>& depth, const Config& c) {
  size_t hits = 0;
  for (float v : depth)
    if (bits(v) != bits(c.miss_value) && v >= c.near_clip && v <= c.far_clip) ++hits;
  return hits;
}

// Renders one scene, loaded on a CPU and on a CUDA context, with every config and requires
// bit-identical images and equal stack-overflow counts. Returns (hit pixels, total pixels) over
// all configs so the caller can check the scene was actually seen.
std::pair<size_t, size_t> check_parity(const Scene& cpu_scene, const Scene& gpu_scene, const PositionSampler& position,
                                       uint32_t seed, bool expect_closed = false) {
  uint64_t cpu_tris = 0, gpu_tris = 0;
  REQUIRE_OK(wr_scene_num_triangles(cpu_scene.get(), &cpu_tris));
  REQUIRE_OK(wr_scene_num_triangles(gpu_scene.get(), &gpu_tris));
  REQUIRE(gpu_tris == cpu_tris);
  Stream stream;
  std::mt19937 rng(seed);
  size_t hits = 0, total = 0;
  for (size_t k = 0; k < sizeof kConfigs / sizeof kConfigs[0]; ++k) {
    const Config& c = kConfigs[k];
    INFO("config " << k << ": " << c.width << "x" << c.height << ", " << c.num_envs << " envs, "
                   << (c.depth_kind == WR_DEPTH_PLANE ? "plane" : "range") << " depth, "
                   << (c.quat_order == WR_QUAT_WXYZ ? "wxyz" : "xyzw") << ", near " << c.near_clip << ", far "
                   << c.far_clip << ", miss " << c.miss_value << (c.mount ? ", mount" : "")
                   << (c.own_stream ? ", own stream" : ", default stream"));
    const wr_camera_desc desc = make_desc(c);
    Sensor cpu_sensor = make_sensor(cpu_scene.get(), desc, c.num_envs);
    Sensor gpu_sensor = make_sensor(gpu_scene.get(), desc, c.num_envs);
    const size_t count = size_t(c.num_envs) * c.width * c.height;
    for (int round = 0; round < 2; ++round) {
      const std::vector<float> poses = random_poses(rng, c.num_envs, c.quat_order, position);
      const std::vector<float> want = render_cpu(cpu_sensor.get(), poses, count);
      const std::vector<float> got = render_gpu(gpu_sensor.get(), poses, count, c.own_stream ? stream.get() : nullptr);
      REQUIRE_BIT_IDENTICAL(want, got, c.width, c.height);
      hits += count_hits(want, c);
      total += count;
      if (expect_closed && c.near_clip == 0.0f && c.far_clip == kInf) {
        INFO("the room is closed: with nothing clipped every pixel must hit a wall");
        REQUIRE(count_hits(want, c) == count);
      }
    }
    uint64_t cpu_overflows = 0, gpu_overflows = 0;
    REQUIRE_OK(wr_sensor_stack_overflows(cpu_sensor.get(), &cpu_overflows));
    REQUIRE_OK(wr_sensor_stack_overflows(gpu_sensor.get(), &gpu_overflows));
    REQUIRE(gpu_overflows == cpu_overflows);  // the same rays overflow, whatever the backend
  }
  return {hits, total};
}

std::pair<size_t, size_t> check_parity(wr_context gpu, const Mesh& mesh, const PositionSampler& position, uint32_t seed,
                                       bool expect_closed = false) {
  const Context cpu = cpu_context();
  const Scene cpu_scene = make_scene(cpu.get(), mesh), gpu_scene = make_scene(gpu, mesh);
  return check_parity(cpu_scene, gpu_scene, position, seed, expect_closed);
}

Scene load_obj(wr_context context, const std::string& path) {
  wr_scene s = nullptr;
  REQUIRE_OK(wr_scene_load_obj(context, path.c_str(), &s));
  return Scene(s);
}

}  // namespace

TEST_CASE("cuda: parity with the CPU, bumpy heightfield with boxes", "[cuda][parity]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const Mesh mesh = heightfield_with_boxes(11);
  const auto seen = check_parity(
      gpu.get(), mesh,
      [](std::mt19937& rng) {
        std::uniform_real_distribution<double> xy(0.5, 11.5), z(0.3, 3.5);
        return Vector3d(xy(rng), xy(rng), z(rng));
      },
      101);
  INFO(seen.first << " of " << seen.second << " pixels hit");
  CHECK(seen.first > seen.second / 5);  // the terrain was in view, not only sky
  CHECK(seen.first < seen.second);      // and some rays missed or were clipped
}

TEST_CASE("cuda: parity with the CPU, camera inside a closed subdivided room", "[cuda][parity]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const Mesh mesh = closed_room();
  const auto seen = check_parity(
      gpu.get(), mesh,
      [](std::mt19937& rng) {
        // At most 0.34 m from the walls' inside: the mount offset keeps the camera in the room.
        std::uniform_real_distribution<double> x(-3.5, 3.5), y(-2.5, 2.5), z(0.4, 2.6);
        return Vector3d(x(rng), y(rng), z(rng));
      },
      202, /*expect_closed=*/true);
  INFO(seen.first << " of " << seen.second << " pixels hit");
  CHECK(seen.first > seen.second / 2);
}

TEST_CASE("cuda: parity with the CPU, triangle soup with slivers and degenerate triangles", "[cuda][parity]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const Mesh mesh = triangle_soup(33, 1500);
  const auto seen = check_parity(
      gpu.get(), mesh,
      [](std::mt19937& rng) {
        std::uniform_real_distribution<double> p(-7.0, 7.0);
        return Vector3d(p(rng), p(rng), p(rng));
      },
      303);
  INFO(seen.first << " of " << seen.second << " pixels hit");
  CHECK(seen.first > seen.second / 20);
  CHECK(seen.first < seen.second);
}

TEST_CASE("cuda: parity with the CPU, the bundled parkour terrains", "[cuda][parity]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const char* dir = std::getenv("WR_SOURCE_DIR");  // set by CTest; else run from the source root
  const Context cpu = cpu_context();
  for (const char* name : {"parkour_small.obj", "parkour_terrain.obj"}) {
    INFO("assets/" << name);
    const std::string path = std::string(dir ? dir : ".") + "/assets/" + name;
    const Scene cpu_scene = load_obj(cpu.get(), path), gpu_scene = load_obj(gpu.get(), path);
    float lo[3], hi[3];
    REQUIRE_OK(wr_scene_bounds(cpu_scene.get(), lo, hi));
    // Cameras over the whole course, from just above its lowest ground to above its highest
    // obstacle, looking every way (random_poses).
    const auto seen = check_parity(
        cpu_scene, gpu_scene,
        [&](std::mt19937& rng) {
          std::uniform_real_distribution<double> x(lo[0], hi[0]), y(lo[1], hi[1]), z(lo[2] + 0.3, hi[2] + 1.0);
          return Vector3d(x(rng), y(rng), z(rng));
        },
        404);
    INFO(seen.first << " of " << seen.second << " pixels hit");
    CHECK(seen.first > seen.second / 5);
    CHECK(seen.first < seen.second);
  }
}
