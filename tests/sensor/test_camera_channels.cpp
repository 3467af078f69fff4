// A camera's output channels (wr_render_args.instance_ids, triangle_ids, hit_points, hit_normals),
// on the backend under test (the cases tagged [backend]), against what the test knows itself, ray
// for ray: the triangle and instance ids wr_scene_intersect_ex gives for the camera's own world
// rays (wr_sensor_world_rays), the points org + t dir of those rays at its t, and the normals of the
// test's own triangles (a legged_gym grid mesh with moved vertices, as a BVH and through its grid;
// box instances turned by their poses). A height field through its grid gives its BVH's channels,
// bit for bit. In the camera's frame, with a crop, per-env intrinsics and plane or range depth;
// a bad env's NaN; the refusals where an output pixel is not one camera pixel's.
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

namespace {

using namespace wr_test::hit_details;

// A 24 x 16 camera, 90 degrees wide, pitched 35 degrees down, 0.2 m ahead of the body; clip 0 to
// +inf (so that its rays are traced over the t interval wr_scene_intersect_ex takes).
wr_camera_desc camera_desc(wr_depth_kind depth = WR_DEPTH_PLANE) {
  wr_camera_desc c;
  REQUIRE(wr_camera_desc_pinhole(&c, 24, 16, 90.0f) == WR_SUCCESS);
  REQUIRE(wr_camera_desc_set_mount_angles(&c, 35.0f, 0.0f, 0.0f) == WR_SUCCESS);
  c.mount_position[0] = 0.2f;
  c.depth_kind = depth;
  return c;
}

wr_sensor make_camera(wr_scene scene, const wr_camera_desc& c, uint32_t num_envs,
                      const wr_sensor_options* o = nullptr) {
  wr_sensor_options isolate;
  wr_sensor_options_init(&isolate);
  isolate.bad_pose_mode = WR_BAD_POSE_ISOLATE;
  wr_sensor sensor = nullptr;
  const wr_status s = wr_sensor_create_ex(scene, &c, o ? o : &isolate, num_envs, &sensor);
  INFO(wr_last_error());
  REQUIRE(s == WR_SUCCESS);
  return sensor;
}

// Poses over the grid mesh below (40 x 32 vertices at 0.1 m), looking at it from 0.5 m to 2 m up.
std::vector<float> poses_over_grid(uint32_t num_envs, unsigned seed) {
  const float lo[3] = {0.8f, 0.6f, 0.2f}, hi[3] = {3.0f, 2.5f, 0.5f};
  return body_poses(num_envs, lo, hi, seed);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE(
    "camera channels: ids, points and normals of a grid mesh's triangles, as a BVH and through its grid, "
    "equal wr_scene_intersect_ex on the camera's world rays",
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
  const uint32_t num_envs = 5;
  const std::vector<float> poses = poses_over_grid(num_envs, 11);
  size_t hits = 0;
  std::vector<Details> by_kind;
  for (const bool through_grid : {false, true})
    for (const wr_depth_kind depth : {WR_DEPTH_PLANE, WR_DEPTH_RANGE}) {
      INFO((through_grid ? "grid" : "BVH") << (depth == WR_DEPTH_PLANE ? ", plane depth" : ", range depth"));
      wr_scene scene = through_grid ? grid(ctx) : bvh(ctx);
      wr_sensor sensor = make_camera(scene, camera_desc(depth), num_envs);
      by_kind.push_back(render_details(sensor, num_envs, poses, {}, 0));
      check_world_details(sensor, by_kind.back(), bvh, m, nullptr, poses, {}, 0, 0, INFINITY, &hits);
      wr_sensor_release(sensor);
      wr_scene_release(scene);
    }
  CHECK(hits > num_envs * 24 * 16 * 4 / 4);  // many pixels see the ground: the checks mean something
  // The grid gives the BVH's bits; the depth kind changes the value, not the hit.
  for (size_t k = 1; k < by_kind.size(); ++k) {
    CHECK(same_bits(by_kind[k].points, by_kind[0].points));
    CHECK(same_bits(by_kind[k].normals, by_kind[0].normals));
    CHECK(by_kind[k].triangles == by_kind[0].triangles);
  }
  wr_context_release(ctx);
}

TEST_CASE("camera channels of a height field through its grid are its BVH's, bit for bit", "[backend]") {
  const uint32_t nx = 48, ny = 40;
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(0.0f, 0.08f);
  std::vector<float> heights(nx * ny);
  for (uint32_t i = 0; i < nx * ny; ++i) heights[i] = u(rng) + ((i / nx / 5 + i % nx / 7) % 3 == 0 ? 0.25f : 0.0f);
  wr_context ctx = nullptr;
  REQUIRE(wr_test::create_backend_context(2, &ctx) == WR_SUCCESS);
  const uint32_t num_envs = 4;
  const std::vector<float> poses = poses_over_grid(num_envs, 17);
  std::vector<Details> got;
  for (const wr_terrain_kind kind : {WR_TERRAIN_BVH, WR_TERRAIN_GRID}) {
    wr_heightfield_desc d;
    wr_heightfield_desc_init(&d);
    d.heights = heights.data();
    d.num_x = nx, d.num_y = ny;
    d.spacing_x = d.spacing_y = 0.08f;
    d.terrain = kind;
    wr_scene scene = nullptr;
    REQUIRE(wr_scene_create_heightfield(ctx, &d, &scene) == WR_SUCCESS);
    wr_sensor sensor = make_camera(scene, camera_desc(), num_envs);
    got.push_back(render_details(sensor, num_envs, poses, {}, 0));
    // ids and points against wr_scene_intersect_ex on a CPU scene of the same field
    wr_context cpu = nullptr;
    REQUIRE(wr_context_create_cpu(1, &cpu) == WR_SUCCESS);
    wr_scene reference = nullptr;
    REQUIRE(wr_scene_create_heightfield(cpu, &d, &reference) == WR_SUCCESS);
    const size_t n = got.back().values.size() / num_envs;
    const ExplicitHits want = explicit_hits(sensor, reference, poses, n, {}, 0, INFINITY);
    size_t hits = 0;
    for (size_t i = 0; i < want.t.size(); ++i) {
      INFO("env " << i / n << ", pixel " << i % n);
      REQUIRE(got.back().triangles[i] == want.triangle[i]);
      REQUIRE(got.back().instances[i] == UINT32_MAX);
      if (want.triangle[i] == UINT32_MAX) continue;
      ++hits;
      for (int k = 0; k < 3; ++k) {
        const float p = want.org[3 * i + k] + want.t[i] * want.dir[3 * i + k];
        CHECK(got.back().points[3 * i + k] == p);
      }
      // a unit normal facing the ray
      const float* nr = &got.back().normals[3 * i];
      CHECK(std::fabs(nr[0] * nr[0] + nr[1] * nr[1] + nr[2] * nr[2] - 1.0f) < 1e-5f);
      CHECK(nr[0] * want.dir[3 * i] + nr[1] * want.dir[3 * i + 1] + nr[2] * want.dir[3 * i + 2] <= 0.0f);
    }
    CHECK(hits > n * num_envs / 4);
    wr_scene_release(reference);
    wr_context_release(cpu);
    wr_sensor_release(sensor);
    wr_scene_release(scene);
  }
  CHECK(same_bits(got[1].points, got[0].points));
  CHECK(same_bits(got[1].normals, got[0].normals));
  CHECK(got[1].triangles == got[0].triangles);
  wr_context_release(ctx);
}

TEST_CASE("camera channels through instances: a box's normals turned by its pose, the robot's own excluded",
          "[backend]") {
  const Mesh box = small_box(), plane = wide_plane();
  const auto make = [&](wr_context c) { return boxes_on_a_plane(c, plane, box); };
  wr_context ctx = nullptr;
  REQUIRE(wr_test::create_backend_context(2, &ctx) == WR_SUCCESS);
  wr_scene scene = make(ctx);
  const uint32_t num_envs = 6;
  const float lo[3] = {-5, -5, 0}, hi[3] = {5, 5, 0};
  const std::vector<float> poses = body_poses(num_envs, lo, hi, 12);
  // Each env's own trunk (group 1, excluded) and two boxes ahead of its camera, turned every way.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<float> slots;
  for (uint32_t e = 0; e < num_envs; ++e) {
    const float* b = &poses[7ull * e];
    const std::array<double, 9> r = rotation(b[3], b[4], b[5], b[6]);
    slots.insert(slots.end(), b, b + 7);
    for (int k = 0; k < 2; ++k) {
      const D3 ahead = turn(r, {1.2 + 0.4 * k, 0.5 * u(rng), -0.6});
      const std::array<double, 4> q = quat_rpy(u(rng) * 3, u(rng) * 1.5, u(rng) * 3);
      slots.insert(slots.end(), {b[0] + float(ahead[0]), b[1] + float(ahead[1]), b[2] + float(ahead[2]), float(q[0]),
                                 float(q[1]), float(q[2]), float(q[3])});
    }
  }
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.exclude_groups = 1u << 1;
  wr_sensor sensor = make_camera(scene, camera_desc(), num_envs, &o);
  const Details got = render_details(sensor, num_envs, poses, slots, 3);
  size_t hits = 0;
  check_world_details(sensor, got, make, plane, &box, poses, slots, 3, 1u << 1, INFINITY, &hits);
  check_boxes_seen_trunk_not(got, hits, 50);
  wr_sensor_release(sensor);
  wr_scene_release(scene);
  wr_context_release(ctx);
}

TEST_CASE("camera channels in the camera's frame, with a crop and per-env intrinsics, and a bad env's NaN",
          "[backend]") {
  const Mesh m = grid_mesh(40, 32, 8);
  wr_context ctx = nullptr;
  REQUIRE(wr_test::create_backend_context(2, &ctx) == WR_SUCCESS);
  wr_scene scene = nullptr;
  REQUIRE(wr_scene_create(ctx, m.vertices.data(), uint32_t(m.vertices.size() / 3), m.indices.data(),
                          uint32_t(m.indices.size() / 3), &scene) == WR_SUCCESS);
  const uint32_t num_envs = 4;
  std::vector<float> poses = poses_over_grid(num_envs, 21);
  wr_camera_desc world_desc = camera_desc();
  wr_camera_desc local_desc = world_desc;
  local_desc.hit_frame = WR_HIT_FRAME_SENSOR;
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.bad_pose_mode = WR_BAD_POSE_ISOLATE;
  o.crop_x = 3, o.crop_y = 2, o.crop_width = 17, o.crop_height = 11;
  wr_sensor world = make_camera(scene, world_desc, num_envs, &o);
  wr_sensor local = make_camera(scene, local_desc, num_envs, &o);
  poses[7 * 1 + 5] = NAN;  // env 1's pose is bad: isolated, its channels NaN and invalid
  const Details w = render_details(world, num_envs, poses, {}, 0), l = render_details(local, num_envs, poses, {}, 0);
  CHECK(w.triangles == l.triangles);
  const size_t n = w.values.size() / num_envs;
  REQUIRE(n == 17u * 11u);
  size_t hits = 0;
  for (size_t i = 0; i < w.values.size(); ++i) {
    INFO("env " << i / n << ", pixel " << i % n);
    if (i / n == 1) {
      CHECK(w.triangles[i] == UINT32_MAX);
      CHECK(w.instances[i] == UINT32_MAX);
      for (int k = 0; k < 3; ++k) CHECK((std::isnan(w.points[3 * i + k]) && std::isnan(l.normals[3 * i + k])));
      continue;
    }
    if (w.triangles[i] == UINT32_MAX) continue;
    ++hits;
    // The camera: the body's pose times the mount (position and rotation).
    const float* b = &poses[7 * (i / n)];
    const std::array<double, 9> body = rotation(b[3], b[4], b[5], b[6]);
    const float* q = world_desc.mount_rotation;
    const std::array<double, 9> mount = rotation(q[0], q[1], q[2], q[3]);
    std::array<double, 9> cam{};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) cam[3 * r + c] += body[3 * r + k] * mount[3 * k + c];
    const D3 mp =
        turn(body, {world_desc.mount_position[0], world_desc.mount_position[1], world_desc.mount_position[2]});
    const D3 s{b[0] + mp[0], b[1] + mp[1], b[2] + mp[2]};
    const D3 p = turn_back(cam, sub({w.points[3 * i], w.points[3 * i + 1], w.points[3 * i + 2]}, s));
    const D3 nrm = turn_back(cam, {w.normals[3 * i], w.normals[3 * i + 1], w.normals[3 * i + 2]});
    for (int k = 0; k < 3; ++k) {
      CHECK(std::fabs(l.points[3 * i + k] - p[k]) <= 1e-4);
      CHECK(std::fabs(l.normals[3 * i + k] - nrm[k]) <= 1e-5);
    }
    // Plane depth is the point's +X in the camera frame.
    CHECK(std::fabs(w.values[i] - p[0]) <= 1e-4 * (1 + p[0]));
  }
  CHECK(hits > (num_envs - 1) * n / 4);
  // Per-env intrinsics: the channels of a sensor built with env e's camera, env by env.
  {
    poses[7 * 1 + 5] = poses[7 * 0 + 5];
    const std::vector<float> k = {9.0f,  10.0f, 12.5f, 7.0f, 14.0f, 12.0f, 11.0f, 8.5f,
                                  11.0f, 11.0f, 12.0f, 8.0f, 8.0f,  9.0f,  12.0f, 8.0f};
    const size_t pixels = size_t(num_envs) * n;
    Details got{std::vector<float>(pixels), std::vector<float>(3 * pixels), std::vector<float>(3 * pixels),
                std::vector<uint32_t>(pixels), std::vector<uint32_t>(pixels)};
    wr_render_args a;
    wr_render_args_init(&a);
    a.body_poses = poses.data();
    a.intrinsics = k.data();
    a.out = got.values.data();
    a.out_bytes = pixels * sizeof(float);
    a.triangle_ids = got.triangles.data();
    a.hit_points = got.points.data();
    a.hit_normals = got.normals.data();
    a.instance_ids = got.instances.data();
    REQUIRE(wr_test::render_ex_on_backend(world, a, 0, 0) == WR_SUCCESS);
    for (uint32_t e = 0; e < num_envs; ++e) {
      INFO("env " << e);
      wr_camera_desc d = world_desc;
      d.fx = k[4 * e], d.fy = k[4 * e + 1], d.cx = k[4 * e + 2], d.cy = k[4 * e + 3];
      wr_sensor one = make_camera(scene, d, 1, &o);
      const std::vector<float> pose(poses.begin() + 7 * e, poses.begin() + 7 * e + 7);
      const Details want = render_details(one, 1, pose, {}, 0);
      CHECK(std::memcmp(want.points.data(), &got.points[3 * n * e], 3 * n * sizeof(float)) == 0);
      CHECK(std::memcmp(want.normals.data(), &got.normals[3 * n * e], 3 * n * sizeof(float)) == 0);
      CHECK(std::equal(want.triangles.begin(), want.triangles.end(), got.triangles.begin() + n * e));
      wr_sensor_release(one);
    }
  }
  wr_sensor_release(world);
  wr_sensor_release(local);
  wr_scene_release(scene);
  wr_context_release(ctx);
}

TEST_CASE("camera channels are refused by name where an output pixel is not one camera pixel's, nothing written") {
  Handles h;
  REQUIRE(wr_context_create_cpu(1, &h.context) == WR_SUCCESS);
  h.scene = plane_scene(h.context, 5.0f, 0.0f);
  wr_camera_desc c = camera_desc();
  const std::vector<float> pose = {0, 0, 1, 1, 0, 0, 0};
  std::vector<float> out(24 * 16, -7.0f), normals(3 * 24 * 16, -7.0f);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = pose.data();
  a.out = out.data();
  a.out_bytes = out.size() * sizeof(float);
  a.hit_normals = normals.data();
  for (const int which : {0, 1}) {
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    (which == 0 ? o.out_width : o.history_length) = which == 0 ? 12 : 2;
    if (which == 0) o.out_height = 8, o.resample = WR_RESAMPLE_AREA;
    {
      const wr_status s = wr_sensor_create_ex(h.scene, &c, &o, 1, &h.sensor);
      INFO(wr_last_error());
      REQUIRE(s == WR_SUCCESS);
    }
    CHECK(wr_sensor_render_ex(h.sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(wr_last_error(), Catch::Contains("args->hit_normals") &&
                                    Catch::Contains(which == 0 ? "it resamples" : "history_length <= 1"));
    for (float v : normals) REQUIRE(v == -7.0f);
    for (float v : out) REQUIRE(v == -7.0f);
    if (which == 0) {  // nor are its world rays
      std::vector<float> s(3 * 12 * 8), d(3 * 12 * 8);
      CHECK(wr_sensor_world_rays(h.sensor, pose.data(), nullptr, 0, 0, s.data(), d.data()) ==
            WR_ERROR_INVALID_ARGUMENT);
      CHECK_THAT(wr_last_error(), Catch::Contains("it resamples"));
    }
    wr_sensor_release(h.sensor);
    h.sensor = nullptr;
  }
  c.hit_frame = static_cast<wr_hit_frame>(7);
  CHECK(wr_sensor_create(h.scene, &c, 1, &h.sensor) == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(wr_last_error(), Catch::Contains("desc->hit_frame") && Catch::Contains("= 7"));
  CHECK(h.sensor == nullptr);
}
