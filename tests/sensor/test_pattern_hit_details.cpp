// A pattern sensor's hit details (wr_render_args.triangle_ids, hit_points, hit_normals), on the
// backend under test (the cases tagged [backend]), against what the test knows itself: the
// triangle ids wr_scene_intersect_ex gives for the sensor's own world rays, the points start + t dir
// of those rays at its t, and the normals of the test's own triangles (a legged_gym grid mesh with
// moved vertices, as a BVH and through its grid; box instances turned by their poses), in the
// world and in the pattern's frame; a height scan's points in its yaw frame are its pattern's
// starts at the reported height; misses, a bad env and refusals.
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
#include "hit_details_test_support.h"
#include "pattern_test_support.h"

using namespace wr_test::patterns;

namespace {

using namespace wr_test::hit_details;

struct Lidar {
  Pattern pattern{lidar_desc(6, -30.0, 20.0, -180.0, 180.0, 6.0)};
  wr_ray_sensor_desc desc;
  Lidar() {
    wr_ray_sensor_desc_init(&desc);
    desc.mount_position[0] = 0.2f, desc.mount_position[2] = 0.1f;
    desc.max_distance = 8.0f;
  }
};

}  // namespace

TEST_CASE("hit details: ids, points and normals of a grid mesh's triangles, as a BVH and through its grid",
          "[backend]") {
  const Mesh m = grid_mesh(40, 32, 5);
  const uint32_t nv = uint32_t(m.vertices.size() / 3), nt = uint32_t(m.indices.size() / 3);
  const auto bvh = [&](wr_context c) {
    wr_scene s = nullptr;
    REQUIRE(wr_scene_create(c, m.vertices.data(), nv, m.indices.data(), nt, &s) == WR_SUCCESS);
    return s;
  };
  const auto grid = [&](wr_context c) {
    wr_scene s = nullptr;
    REQUIRE(wr_scene_create_grid_mesh(c, m.vertices.data(), nv, m.indices.data(), nt, &s) == WR_SUCCESS);
    return s;
  };
  wr_context ctx = nullptr;
  REQUIRE(wr_test::create_backend_context(2, &ctx) == WR_SUCCESS);
  const float lo[3] = {0.8f, 0.6f, 0.2f}, hi[3] = {3.0f, 2.5f, 0.6f};
  const std::vector<float> poses = body_poses(6, lo, hi, 11);
  Pattern scan{grid_desc(1.0, 0.6, 0.1)};
  wr_ray_sensor_desc scan_desc;
  wr_ray_sensor_desc_init(&scan_desc);
  scan_desc.alignment = WR_ALIGN_YAW;
  scan_desc.offset_position[2] = 20.0f;
  scan_desc.max_distance = 100.0f;
  const Lidar lidar;
  size_t hits = 0;
  std::vector<Details> by_kind;
  for (const bool through_grid : {false, true}) {
    INFO((through_grid ? "grid" : "BVH"));
    wr_scene scene = through_grid ? grid(ctx) : bvh(ctx);
    for (const bool is_lidar : {false, true}) {
      INFO((is_lidar ? "LiDAR" : "height scan"));
      const wr_ray_sensor_desc& d = is_lidar ? lidar.desc : scan_desc;
      wr_sensor sensor = make_sensor(scene, is_lidar ? lidar.pattern : scan, d, 6);
      by_kind.push_back(render_details(sensor, 6, poses, {}, 0));
      check_world_details(sensor, by_kind.back(), bvh, m, nullptr, poses, {}, 0, 0, d.max_distance, &hits);
      wr_sensor_release(sensor);
    }
    wr_scene_release(scene);
  }
  CHECK(hits > 6 * 60 * 2);  // most scan rays and many LiDAR rays hit: the checks mean something
  // The grid gives the BVH's bits: the same corners in the same order.
  for (size_t k = 0; k < 2; ++k) {
    CHECK(std::memcmp(by_kind[k].points.data(), by_kind[k + 2].points.data(), by_kind[k].points.size() * 4) == 0);
    CHECK(std::memcmp(by_kind[k].normals.data(), by_kind[k + 2].normals.data(), by_kind[k].normals.size() * 4) == 0);
    CHECK(by_kind[k].triangles == by_kind[k + 2].triangles);
  }
  wr_context_release(ctx);
}

TEST_CASE("hit details through instances: a box's normals turned by its pose, the robot's own excluded", "[backend]") {
  const Mesh box = small_box(), plane = wide_plane();
  const auto make = [&](wr_context c) { return boxes_on_a_plane(c, plane, box); };
  wr_context ctx = nullptr;
  REQUIRE(wr_test::create_backend_context(2, &ctx) == WR_SUCCESS);
  wr_scene scene = make(ctx);
  const uint32_t num_envs = 8;
  const float lo[3] = {-5, -5, 0}, hi[3] = {5, 5, 0};
  const std::vector<float> poses = body_poses(num_envs, lo, hi, 12);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<float> slots;
  for (uint32_t e = 0; e < num_envs; ++e) {
    const float* b = &poses[7ull * e];
    slots.insert(slots.end(), b, b + 7);  // the robot's own trunk, excluded
    for (int k = 0; k < 2; ++k) {         // two obstacles, turned every way
      const std::array<double, 4> q = quat_rpy(u(rng) * 3, u(rng) * 1.5, u(rng) * 3);
      slots.insert(slots.end(), {b[0] + float(u(rng) * 1.5), b[1] + float(u(rng) * 1.5), b[2] - 0.3f, float(q[0]),
                                 float(q[1]), float(q[2]), float(q[3])});
    }
  }
  const Lidar lidar;
  wr_sensor sensor = make_sensor(scene, lidar.pattern, lidar.desc, num_envs, 1u << 1);
  const Details got = render_details(sensor, num_envs, poses, slots, 3);
  size_t hits = 0;
  check_world_details(sensor, got, make, plane, &box, poses, slots, 3, 1u << 1, lidar.desc.max_distance, &hits);
  check_boxes_seen_trunk_not(got, hits, 20);
  wr_sensor_release(sensor);
  wr_scene_release(scene);
  wr_context_release(ctx);
}

TEST_CASE("hit details in the pattern's frame: a LiDAR's in its own axes, a yaw-aligned height scan's at its starts",
          "[backend]") {
  const Mesh m = grid_mesh(40, 32, 8);
  wr_context ctx = nullptr;
  REQUIRE(wr_test::create_backend_context(2, &ctx) == WR_SUCCESS);
  wr_scene scene = nullptr;
  REQUIRE(wr_scene_create(ctx, m.vertices.data(), uint32_t(m.vertices.size() / 3), m.indices.data(),
                          uint32_t(m.indices.size() / 3), &scene) == WR_SUCCESS);
  const uint32_t num_envs = 5;
  const float lo[3] = {0.8f, 0.6f, 0.2f}, hi[3] = {3.0f, 2.5f, 0.6f};
  std::vector<float> poses = body_poses(num_envs, lo, hi, 21);
  // The LiDAR (base alignment): each point and normal is the world one in the sensor's axes, at
  // the sensor (the body's pose times the mount).
  {
    Lidar lidar;
    wr_sensor world = make_sensor(scene, lidar.pattern, lidar.desc, num_envs);
    lidar.desc.hit_frame = WR_HIT_FRAME_PATTERN;
    wr_sensor local = make_sensor(scene, lidar.pattern, lidar.desc, num_envs);
    const Details w = render_details(world, num_envs, poses, {}, 0), l = render_details(local, num_envs, poses, {}, 0);
    CHECK(w.triangles == l.triangles);
    const size_t n = w.values.size() / num_envs;
    size_t hits = 0;
    for (size_t i = 0; i < w.values.size(); ++i) {
      if (w.triangles[i] == UINT32_MAX) continue;
      ++hits;
      const float* b = &poses[7 * (i / n)];
      const std::array<double, 9> r = rotation(b[3], b[4], b[5], b[6]);
      const D3 mount =
          turn(r, {lidar.desc.mount_position[0], lidar.desc.mount_position[1], lidar.desc.mount_position[2]});
      const D3 s{b[0] + mount[0], b[1] + mount[1], b[2] + mount[2]};
      const D3 p = turn_back(r, sub({w.points[3 * i], w.points[3 * i + 1], w.points[3 * i + 2]}, s));
      const D3 nrm = turn_back(r, {w.normals[3 * i], w.normals[3 * i + 1], w.normals[3 * i + 2]});
      for (int k = 0; k < 3; ++k) {
        INFO("ray " << i << ", axis " << k);
        CHECK(std::fabs(l.points[3 * i + k] - p[k]) <= 1e-4);
        CHECK(std::fabs(l.normals[3 * i + k] - nrm[k]) <= 1e-5);
      }
    }
    CHECK(hits > n / 2);  // many of the rays that point down hit
    wr_sensor_release(world);
    wr_sensor_release(local);
  }
  // IsaacLab's height scan (yaw, starts 20 m up, rays straight down): in the yaw frame ray i hits
  // at its pattern start (x, y) and at z = -(height + height_offset).
  {
    Pattern scan{grid_desc(1.0, 0.6, 0.1)};
    std::vector<float> starts, dirs;
    scan.rays(&starts, &dirs);
    wr_ray_sensor_desc d;
    wr_ray_sensor_desc_init(&d);
    d.alignment = WR_ALIGN_YAW;
    d.offset_position[2] = 20.0f;
    d.value = WR_RAY_HEIGHT;
    d.height_offset = 0.5f;
    d.max_distance = 100.0f;
    d.hit_frame = WR_HIT_FRAME_PATTERN;
    wr_sensor sensor = make_sensor(scene, scan, d, num_envs);
    poses[7 * 2 + 4] = NAN;  // env 2's pose is bad: isolated, its details NaN
    const Details got = render_details(sensor, num_envs, poses, {}, 0);
    const size_t n = scan.size();
    size_t hits = 0;
    for (size_t i = 0; i < got.values.size(); ++i) {
      INFO("env " << i / n << ", ray " << i % n);
      if (i / n == 2) {
        CHECK(got.triangles[i] == UINT32_MAX);
        for (int k = 0; k < 3; ++k) CHECK((std::isnan(got.points[3 * i + k]) && std::isnan(got.normals[3 * i + k])));
        continue;
      }
      if (got.triangles[i] == UINT32_MAX) continue;
      ++hits;
      const size_t ray = i % n;
      CHECK(std::fabs(got.points[3 * i] - starts[3 * ray]) <= 1e-4);
      CHECK(std::fabs(got.points[3 * i + 1] - starts[3 * ray + 1]) <= 1e-4);
      CHECK(std::fabs(got.points[3 * i + 2] + got.values[i] + d.height_offset) <= 1e-4);
      CHECK(got.normals[3 * i + 2] > 0.0f);  // the ground faces up, at the ray that comes down
    }
    CHECK(hits > (num_envs - 1) * n * 9 / 10);
    wr_sensor_release(sensor);
  }
  wr_scene_release(scene);
  wr_context_release(ctx);
}

TEST_CASE("hit details are refused by name with a history and for a bad hit frame, nothing written") {
  Handles h;
  REQUIRE(wr_context_create_cpu(1, &h.context) == WR_SUCCESS);
  h.scene = plane_scene(h.context, 5.0f, 0.0f);
  const std::vector<float> pose = {0, 0, 1, 1, 0, 0, 0};
  std::vector<float> out(64, -7.0f), points(3 * 64, -7.0f);
  std::vector<uint32_t> triangles(64, 7u);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = pose.data();
  a.out = out.data();
  a.out_bytes = out.size() * sizeof(float);
  Pattern scan{grid_desc(0.3, 0.3, 0.1)};
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.history_length = 2;
  REQUIRE(wr_sensor_create_pattern(h.scene, scan.p, &d, &o, 1, &h.sensor) == WR_SUCCESS);
  a.triangle_ids = nullptr;
  a.hit_points = points.data();
  CHECK(wr_sensor_render_ex(h.sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(wr_last_error(), Catch::Contains("args->hit_points") && Catch::Contains("history_length <= 1"));
  CHECK(out == std::vector<float>(64, -7.0f));
  CHECK(points == std::vector<float>(3 * 64, -7.0f));
  CHECK(triangles == std::vector<uint32_t>(64, 7u));
  d.hit_frame = static_cast<wr_hit_frame>(7);
  wr_sensor other = nullptr;
  CHECK(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, 1, &other) == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(wr_last_error(), Catch::Contains("desc->hit_frame"));
  CHECK(other == nullptr);
}
