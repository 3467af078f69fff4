// A pattern sensor's hits, on the backend under test (the CPU, and once more a CUDA context where
// CTest finds a GPU: the cases tagged [backend]): every ray's distance bit for bit what
// wr_scene_intersect_ex gives for the same world rays, with the same instance ids, on the bundled
// terrain, a height field traced through its grid and an instanced scene whose robot the sensor
// excludes; heights over a plane; memory flat in num_envs; the dtype and history stages; a LiDAR
// traced as SIMD packets on every CPU path and thread count.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "backend_under_test.h"
#include "c_api_world.h"
#include "pattern_test_support.h"

using namespace wr_test::c_api;
using namespace wr_test::patterns;

namespace {

// A backend context and a CPU reference context, each with the same scene (made by `make` on it).
struct SceneOnBoth {
  wr_context backend = nullptr, cpu = nullptr;
  wr_scene on_backend = nullptr, on_cpu = nullptr;
  template <class Make>
  explicit SceneOnBoth(Make&& make) {
    INFO(wr_last_error());
    REQUIRE(wr_test::create_backend_context(2, &backend) == WR_SUCCESS);
    REQUIRE(wr_context_create_cpu(1, &cpu) == WR_SUCCESS);
    on_backend = make(backend);
    on_cpu = make(cpu);
  }
  ~SceneOnBoth() {
    wr_scene_release(on_backend);
    wr_scene_release(on_cpu);
    wr_context_release(backend);
    wr_context_release(cpu);
  }
};

// Renders `pattern` with `d` for poses (num_envs x 7) through the backend's scene (instance poses
// (num_envs x slots x 7) where it has slots) and checks every ray's distance bits and instance id
// against wr_scene_intersect_ex on the CPU reference, fed the sensor's own world rays.
void check_hits_against_explicit_rays(const SceneOnBoth& s, const Pattern& pattern, const wr_ray_sensor_desc& d,
                                      const std::vector<float>& poses, const std::vector<float>& slot_poses,
                                      uint32_t slots, uint32_t exclude_groups, size_t* hits) {
  const uint32_t num_envs = uint32_t(poses.size() / 7), n = pattern.size();
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.exclude_groups = exclude_groups;
  wr_sensor sensor = nullptr;
  {
    const wr_status status = wr_sensor_create_pattern(s.on_backend, pattern.p, &d, &o, num_envs, &sensor);
    INFO(wr_last_error());
    REQUIRE(status == WR_SUCCESS);
  }
  uint32_t w = 0, hgt = 0;
  REQUIRE(wr_sensor_output_shape(sensor, &w, &hgt, nullptr, nullptr) == WR_SUCCESS);
  CHECK(w == n);
  CHECK(hgt == 1u);
  std::vector<float> out(size_t(num_envs) * n, -7.0f);
  std::vector<uint32_t> ids(out.size(), 7u);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = poses.data();
  a.out = out.data();
  a.out_bytes = out.size() * sizeof(float);
  a.instance_ids = ids.data();
  if (slots) a.instance_poses = slot_poses.data();
  {
    const wr_status status = wr_test::render_ex_on_backend(sensor, a, slots, 0);
    INFO(wr_last_error());
    REQUIRE(status == WR_SUCCESS);
  }
  // The same world rays, env by env, through the reference's explicit rays.
  const ExplicitHits want = explicit_hits(sensor, s.on_cpu, poses, n, slots ? slot_poses : std::vector<float>{},
                                          exclude_groups, d.max_distance);
  for (size_t i = 0; i < out.size(); ++i) {
    INFO("env " << i / n << ", ray " << i % n);
    uint32_t a_bits, b_bits;
    std::memcpy(&a_bits, &out[i], 4);
    std::memcpy(&b_bits, &want.t[i], 4);
    CHECK(a_bits == b_bits);  // a miss: +inf both (the desc's miss value)
    CHECK(ids[i] == want.instance[i]);
    *hits += want.triangle[i] != UINT32_MAX;
  }
  wr_sensor_release(sensor);
}

struct HitPatterns {
  Pattern scan{grid_desc(1.6, 1.0, 0.1)};
  Pattern lidar{wr_test::patterns::lidar_desc(4, -25.0, 5.0, -180.0, 180.0, 4.0)};
  wr_ray_sensor_desc scan_desc, lidar_sensor;
  HitPatterns() {
    wr_ray_sensor_desc_init(&scan_desc);
    scan_desc.alignment = WR_ALIGN_YAW;
    scan_desc.offset_position[2] = 20.0f;
    scan_desc.max_distance = 100.0f;
    wr_ray_sensor_desc_init(&lidar_sensor);
    lidar_sensor.mount_position[0] = 0.2f, lidar_sensor.mount_position[2] = 0.1f;
    lidar_sensor.max_distance = 30.0f;
  }
};

}  // namespace

TEST_CASE("pattern hits equal wr_scene_intersect_ex's on the same world rays: the bundled terrain", "[backend]") {
  const std::string path =
      std::string(std::getenv("WR_SOURCE_DIR") ? std::getenv("WR_SOURCE_DIR") : ".") + "/assets/parkour_small.obj";
  const SceneOnBoth s([&](wr_context c) {
    wr_scene scene = nullptr;
    REQUIRE(wr_scene_load_obj(c, path.c_str(), &scene) == WR_SUCCESS);
    return scene;
  });
  float lo[3], hi[3];
  REQUIRE(wr_scene_bounds(s.on_cpu, lo, hi) == WR_SUCCESS);
  const HitPatterns p;
  size_t hits = 0;
  const std::vector<float> poses = body_poses(16, lo, hi, 3);
  check_hits_against_explicit_rays(s, p.scan, p.scan_desc, poses, {}, 0, 0, &hits);
  check_hits_against_explicit_rays(s, p.lidar, p.lidar_sensor, poses, {}, 0, 0, &hits);
  CHECK(hits > 16 * 187);  // most rays hit: equality means something
}

TEST_CASE("pattern hits equal wr_scene_intersect_ex's on the same world rays: a height field's grid", "[backend]") {
  const uint32_t nx = 64, ny = 48;
  std::vector<float> heights(size_t(nx) * ny);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(0.0f, 0.05f);
  for (uint32_t iy = 0; iy < ny; ++iy)
    for (uint32_t ix = 0; ix < nx; ++ix)
      heights[size_t(iy) * nx + ix] = u(rng) + ((ix / 5 + iy / 7) % 3 == 0 ? 0.3f : 0.0f);
  const SceneOnBoth s([&](wr_context c) {
    wr_heightfield_desc d;
    wr_heightfield_desc_init(&d);
    d.heights = heights.data();
    d.num_x = nx, d.num_y = ny;
    d.spacing_x = d.spacing_y = 0.1f;
    d.terrain = WR_TERRAIN_GRID;
    wr_scene scene = nullptr;
    REQUIRE(wr_scene_create_heightfield(c, &d, &scene) == WR_SUCCESS);
    return scene;
  });
  wr_terrain_kind kind;
  REQUIRE(wr_scene_terrain_kind(s.on_backend, &kind) == WR_SUCCESS);
  REQUIRE(kind == WR_TERRAIN_GRID);
  const float lo[3] = {1.0f, 1.0f, 0.0f}, hi[3] = {5.3f, 3.7f, 0.4f};
  const HitPatterns p;
  size_t hits = 0;
  const std::vector<float> poses = body_poses(16, lo, hi, 4);
  check_hits_against_explicit_rays(s, p.scan, p.scan_desc, poses, {}, 0, 0, &hits);
  check_hits_against_explicit_rays(s, p.lidar, p.lidar_sensor, poses, {}, 0, 0, &hits);
  CHECK(hits > 16 * 187);
}

TEST_CASE("pattern hits equal wr_scene_intersect_ex's through instances, the sensor's own robot excluded",
          "[backend]") {
  // Each env's slots: its robot's trunk around the sensor (group 1, excluded) and a box obstacle
  // beside it (group 0, seen).
  const float box[] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 1, 1, -1, 1, 1, 1, 1, -1, 1, 1};
  const uint32_t faces[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                            1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
  const SceneOnBoth s([&](wr_context c) {
    wr_scene terrain = plane_scene(c, 20.0f, 0.0f), proto = nullptr;
    std::vector<float> v(box, box + 24);
    for (size_t k = 0; k < v.size(); ++k) v[k] *= k % 3 == 2 ? 0.1f : 0.3f;  // 0.6 x 0.6 x 0.2 m
    REQUIRE(wr_scene_create(c, v.data(), 8, faces, 12, &proto) == WR_SUCCESS);
    const uint32_t slot_prototypes[] = {0, 0}, slot_groups[] = {1, 0};
    wr_instanced_scene_desc d;
    wr_instanced_scene_desc_init(&d);
    d.terrain = terrain;
    d.prototypes = &proto;
    d.num_prototypes = 1;
    d.slot_prototypes = slot_prototypes;
    d.slot_groups = slot_groups;
    d.num_slots = 2;
    wr_scene scene = nullptr;
    REQUIRE(wr_scene_create_instanced(c, &d, &scene) == WR_SUCCESS);
    wr_scene_release(terrain);
    wr_scene_release(proto);
    return scene;
  });
  const float lo[3] = {-5, -5, 0}, hi[3] = {5, 5, 0};
  const uint32_t num_envs = 12;
  const std::vector<float> poses = body_poses(num_envs, lo, hi, 6);
  std::vector<float> slots;
  for (uint32_t e = 0; e < num_envs; ++e) {
    const float* b = &poses[7ull * e];
    slots.insert(slots.end(), b, b + 7);  // the trunk, at the body
    slots.insert(slots.end(), {b[0] + 0.6f, b[1] - 0.3f, b[2] - 0.2f, 1, 0, 0, 0});
  }
  const HitPatterns p;
  wr_ray_sensor_desc scan = p.scan_desc;
  scan.offset_position[2] = 0.5f;  // from inside the trunk: it must not see it
  size_t hits = 0;
  check_hits_against_explicit_rays(s, p.scan, scan, poses, slots, 2, 1u << 1, &hits);
  check_hits_against_explicit_rays(s, p.lidar, p.lidar_sensor, poses, slots, 2, 1u << 1, &hits);
  // And without the exclusion: the trunk is hit (every scan ray starts inside it and leaves through it).
  check_hits_against_explicit_rays(s, p.scan, scan, poses, slots, 2, 0, &hits);
  CHECK(hits > num_envs * 187);
}

TEST_CASE(
    "heights on a flat plane are sensor z - plane z - offset to t's rounding, clipped, and a miss is the miss value",
    "[backend]") {
  Handles h;
  REQUIRE(wr_test::create_backend_context(2, &h.context) == WR_SUCCESS);
  h.scene = plane_scene(h.context, 8.0f, 0.125f);
  const Pattern scan(grid_desc(1.6, 1.0, 0.1));
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  d.alignment = WR_ALIGN_YAW;
  d.offset_position[2] = 20.0f;
  d.value = WR_RAY_HEIGHT;
  d.height_offset = 0.5f;
  d.miss_value = -1.0f;  // IsaacLab's height scan reads -1 where nothing is hit (-inf, clipped)
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.clip = 1, o.clip_min = -1.0f, o.clip_max = 1.0f;
  const uint32_t num_envs = 5;
  REQUIRE(wr_sensor_create_pattern(h.scene, scan.p, &d, &o, num_envs, &h.sensor) == WR_SUCCESS);
  // Body heights 0.75, 1.0, 2.0, 0.25 (tilted and turned), and one beyond the plane's edge.
  const std::array<double, 4> q = quat_rpy(0.3, -0.2, 1.1);
  const std::vector<float> poses = {0,  0,  0.75f, 1,           0,           0,           0,            //
                                    1,  2,  1.0f,  float(q[0]), float(q[1]), float(q[2]), float(q[3]),  //
                                    -3, 1,  2.0f,  1,           0,           0,           0,            //
                                    2,  -2, 0.25f, float(q[0]), float(q[1]), float(q[2]), float(q[3]),  //
                                    50, 0,  1.0f,  1,           0,           0,           0};
  std::vector<float> out(num_envs * 187ull, 9.0f);
  REQUIRE(wr_test::render_on_backend(h.sensor, poses.data(), poses.size(), out.data(), out.size()) == WR_SUCCESS);
  // The hit's z is start z + t dir z, t the watertight test's (rounded: a quotient of edge
  // functions), so a height is exact up to t's rounding, a few ulps of the 20 m distance (IsaacLab
  // computes it the same way, in float32); the clipped value and the miss value are exact.
  const float want[num_envs] = {0.125f, 0.375f, 1.0f, -0.375f, -1.0f};
  const float ulp20 = std::ldexp(1.0f, -19);
  for (uint32_t e = 0; e < num_envs; ++e)
    for (uint32_t r = 0; r < 187; ++r) {
      INFO("env " << e << ", ray " << r);
      if (e == 2 || e == 4)
        CHECK(out[e * 187ull + r] == want[e]);
      else
        CHECK(std::fabs(out[e * 187ull + r] - want[e]) <= 4 * ulp20);
    }
}

TEST_CASE("a pattern sensor holds nothing per env, and its output goes through the pipeline's dtype and history",
          "[backend]") {
  Handles h;
  REQUIRE(wr_test::create_backend_context(2, &h.context) == WR_SUCCESS);
  h.scene = plane_scene(h.context, 8.0f, 0.0f);
  const Pattern lidar(lidar_desc(16, -15.0, 15.0, -180.0, 180.0, 0.2));
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  wr_memory_stats one{}, many{};
  for (const uint32_t num_envs : {1u, 4096u}) {
    wr_sensor s = nullptr;
    REQUIRE(wr_sensor_create_pattern(h.scene, lidar.p, &d, nullptr, num_envs, &s) == WR_SUCCESS);
    REQUIRE(wr_sensor_memory(s, num_envs == 1 ? &one : &many) == WR_SUCCESS);
    uint64_t host = 0, device = 0;
    REQUIRE(wr_sensor_memory_tag(s, WR_MEMORY_RAY_TEMPLATE, &host, &device) == WR_SUCCESS);
    CHECK(host == 28800ull * 32);  // the pattern, once
    wr_sensor_release(s);
  }
  CHECK(many.per_env_bytes == 0u);
  CHECK(many.host_bytes == one.host_bytes);
  CHECK(many.device_bytes == one.device_bytes);

  // float16 distances, one frame late through a history of 2.
  const Pattern down(grid_desc(0.2, 0.2, 0.1));
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.dtype = WR_DTYPE_FLOAT16;
  o.history_length = 2;
  REQUIRE(wr_sensor_create_pattern(h.scene, down.p, &d, &o, 2, &h.sensor) == WR_SUCCESS);
  std::vector<float> poses = {0, 0, 1.5f, 1, 0, 0, 0, 1, 1, 2.0f, 1, 0, 0, 0};
  const std::vector<uint32_t> latency = {0, 1};
  std::vector<uint16_t> out(2 * 9, 0);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = poses.data();
  a.out = out.data();
  a.out_bytes = out.size() * 2;
  a.latency = latency.data();
  REQUIRE(wr_test::render_ex_on_backend(h.sensor, a) == WR_SUCCESS);
  poses[2] = 2.5f, poses[9] = 3.0f;
  a.frame = 1;
  REQUIRE(wr_test::render_ex_on_backend(h.sensor, a) == WR_SUCCESS);
  for (int r = 0; r < 9; ++r) {
    CHECK(out[r] == 0x4100);      // 2.5 now
    CHECK(out[9 + r] == 0x4000);  // 2.0, the frame before
  }
}

TEST_CASE("a LiDAR traced as SIMD packets gives the scalar path's bits on every CPU path and thread count") {
  // One origin, directions turning with the frame, distances: the CPU traces such a sensor's rays
  // as a one-row camera (SIMD packets); through instances too, whose culling by the tile's corners
  // a pattern's neighbours must not get. Every path and thread count gives the same bits, over a
  // BVH terrain and over a height field's grid (whose packets are cpu/packet_grid.h's).
  const std::string path =
      std::string(std::getenv("WR_SOURCE_DIR") ? std::getenv("WR_SOURCE_DIR") : ".") + "/assets/parkour_small.obj";
  // Small boxes (4 cm) 3 m along the middle ray of a tile of 8 rays spanning 70 degrees of azimuth
  // at 25 degrees below the horizon: they lie between the planes through the tile's corner rays
  // and the origin, and a culling by those planes (a pinhole's) would drop them.
  const float c = 0.02f;
  const float box[] = {-c, -c, -c, c, -c, -c, c, c, -c, -c, c, -c, -c, -c, c, c, -c, c, c, c, c, -c, c, c};
  const uint32_t faces[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                            1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
  const Pattern lidar(lidar_desc(4, -25.0, 5.0, -180.0, 180.0, 10.0));
  const uint32_t num_envs = 5, slots = 3, rays = lidar.size();
  std::vector<float> starts, dirs;
  lidar.rays(&starts, &dirs);
  std::vector<float> references[2];  // the BVH terrain's, the grid's
  // The grid: rolling ground with steps, 0.1 m cells over 6 x 5 m.
  const uint32_t gx = 61, gy = 51;
  std::vector<float> heights(size_t(gx) * gy);
  for (uint32_t iy = 0; iy < gy; ++iy)
    for (uint32_t ix = 0; ix < gx; ++ix)
      heights[size_t(iy) * gx + ix] =
          0.2f * std::sin(0.3f * float(ix)) * std::cos(0.2f * float(iy)) + 0.1f * float(ix / 12);
  for (const bool grid : {false, true})
    for (const uint32_t threads : {1u, 2u})
      for (const wr_cpu_path cpu_path : {WR_CPU_PATH_SCALAR, WR_CPU_PATH_AVX2, WR_CPU_PATH_AVX512})
        for (const wr_yaw_rule rule : {WR_YAW_MJLAB, WR_YAW_ISAACLAB}) {
          std::vector<float>& reference = references[grid];
          Handles h;
          REQUIRE(wr_context_create_cpu(threads, &h.context) == WR_SUCCESS);
          if (wr_context_set_cpu_path(h.context, cpu_path) != WR_SUCCESS) continue;  // not this CPU's
          wr_scene terrain = nullptr, proto = nullptr;
          if (grid) {
            wr_heightfield_desc hd;
            wr_heightfield_desc_init(&hd);
            hd.heights = heights.data();
            hd.num_x = gx, hd.num_y = gy;
            hd.spacing_x = hd.spacing_y = 0.1f;
            hd.terrain = WR_TERRAIN_GRID;
            REQUIRE(wr_scene_create_heightfield(h.context, &hd, &terrain) == WR_SUCCESS);
          } else {
            REQUIRE(wr_scene_load_obj(h.context, path.c_str(), &terrain) == WR_SUCCESS);
          }
          REQUIRE(wr_scene_create(h.context, box, 8, faces, 12, &proto) == WR_SUCCESS);
          const uint32_t slot_prototypes[] = {0, 0, 0};
          wr_instanced_scene_desc sd;
          wr_instanced_scene_desc_init(&sd);
          sd.terrain = terrain;
          sd.prototypes = &proto;
          sd.num_prototypes = 1;
          sd.slot_prototypes = slot_prototypes;
          sd.num_slots = slots;
          REQUIRE(wr_scene_create_instanced(h.context, &sd, &h.scene) == WR_SUCCESS);
          float lo[3], hi[3];
          REQUIRE(wr_scene_bounds(terrain, lo, hi) == WR_SUCCESS);
          wr_scene_release(terrain);
          wr_scene_release(proto);
          // Level bodies, any heading: base and mjlab's yaw alignment give them the same rays.
          std::vector<float> poses = body_poses(num_envs, lo, hi, 12);
          for (uint32_t e = 0; e < num_envs; ++e) {
            const float yaw = 0.9f * float(e);
            std::copy_n(std::array<float, 4>{std::cos(yaw / 2), 0, 0, std::sin(yaw / 2)}.data(), 4, &poses[7 * e + 3]);
          }
          std::vector<float> slot_poses;  // box k on ray 8 k + 4 (the middle of tile k) of the pattern
          for (uint32_t e = 0; e < num_envs; ++e) {
            const float yaw = 0.9f * float(e), cy = std::cos(yaw), sy = std::sin(yaw);
            for (uint32_t k = 0; k < slots; ++k) {
              const float* d = &dirs[3 * (8 * k + 4)];
              const float wx = cy * d[0] - sy * d[1], wy = sy * d[0] + cy * d[1];
              slot_poses.insert(slot_poses.end(), {poses[7 * e] + 3.0f * wx, poses[7 * e + 1] + 3.0f * wy,
                                                   poses[7 * e + 2] + 0.1f + 3.0f * d[2], 1, 0, 0, 0});
            }
          }
          for (const wr_ray_alignment alignment : {WR_ALIGN_BASE, WR_ALIGN_YAW}) {
            wr_ray_sensor_desc d;
            wr_ray_sensor_desc_init(&d);
            d.alignment = alignment;
            d.yaw_rule = rule;
            d.mount_position[2] = 0.1f;
            d.max_distance = 25.0f;
            wr_sensor s = nullptr;
            REQUIRE(wr_sensor_create_pattern(h.scene, lidar.p, &d, nullptr, num_envs, &s) == WR_SUCCESS);
            std::vector<float> out(size_t(num_envs) * rays);
            std::vector<uint32_t> ids(out.size());
            wr_render_args a;
            wr_render_args_init(&a);
            a.body_poses = poses.data();
            a.instance_poses = slot_poses.data();
            a.out = out.data();
            a.out_bytes = out.size() * sizeof(float);
            a.instance_ids = ids.data();
            REQUIRE(wr_sensor_render_ex(s, &a) == WR_SUCCESS);
            wr_sensor_release(s);
            std::vector<float> got(out);
            for (uint32_t id : ids) got.push_back(float(id == UINT32_MAX ? -1.0 : id));
            const size_t at = (size_t(rule) * 2 + size_t(alignment)) * got.size();
            if (reference.size() < at + got.size()) reference.resize(at + got.size(), kNaN);
            INFO((grid ? "grid" : "BVH") << ", " << threads << " threads, path " << int(cpu_path) << ", yaw rule "
                                         << int(rule) << ", alignment " << int(alignment));
            if (std::isnan(reference[at])) {  // the first path: the scalar one, one thread
              std::copy(got.begin(), got.end(), reference.begin() + long(at));
              size_t seen = 0, ground = 0;
              for (uint32_t id : ids) seen += id != UINT32_MAX;
              for (size_t i = 0; i < out.size(); ++i) ground += std::isfinite(out[i]) && ids[i] == UINT32_MAX;
              // Equality means something: the terrain is hit, and over the BVH terrain the boxes
              // (where the grid's rolling ground may hide them).
              CHECK(ground > out.size() / 4);
              if (!grid) CHECK(seen > 0);
            } else {
              for (size_t i = 0; i < got.size(); ++i) CHECK(same_bits(got[i], reference[at + i]));
            }
          }
        }
}
