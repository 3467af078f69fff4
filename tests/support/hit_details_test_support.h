// What the hit-details tests (a sensor's output channels: wr_render_args.instance_ids,
// triangle_ids, hit_points, hit_normals) check against: meshes the test keeps (their triangles'
// corners by id, the unit normal of each facing a ray), a render of every channel, and the check of
// each ray against wr_scene_intersect_ex on the sensor's own world rays (wr_sensor_world_rays).
// Shared by a pattern sensor's tests (tests/sensor/test_pattern_hit_details.cpp) and a camera's
// (tests/sensor/test_camera_channels.cpp).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "backend_under_test.h"
#include "pattern_test_support.h"

namespace wr_test::hit_details {

using namespace wr_test::patterns;

using D3 = std::array<double, 3>;

inline D3 sub(const D3& a, const D3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline D3 cross3(const D3& a, const D3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline double dot3(const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// Rotation matrix (row-major) of the unit quaternion (w, x, y, z).
inline std::array<double, 9> rotation(double w, double x, double y, double z) {
  const double n = std::sqrt(w * w + x * x + y * y + z * z);
  w /= n, x /= n, y /= n, z /= n;
  return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
          2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
          2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}
inline D3 turn(const std::array<double, 9>& r, const D3& v) {
  return {r[0] * v[0] + r[1] * v[1] + r[2] * v[2], r[3] * v[0] + r[4] * v[1] + r[5] * v[2],
          r[6] * v[0] + r[7] * v[1] + r[8] * v[2]};
}
inline D3 turn_back(const std::array<double, 9>& r, const D3& v) {
  return {r[0] * v[0] + r[3] * v[1] + r[6] * v[2], r[1] * v[0] + r[4] * v[1] + r[7] * v[2],
          r[2] * v[0] + r[5] * v[1] + r[8] * v[2]};
}

// A mesh the test keeps: its triangles' corners by id.
struct Mesh {
  std::vector<float> vertices;
  std::vector<uint32_t> indices;
  D3 corner(uint32_t triangle, int k) const {
    const float* v = &vertices[3ull * indices[3ull * triangle + k]];
    return {v[0], v[1], v[2]};
  }
  // The unit normal of `triangle` turned by r, facing the direction d comes from.
  D3 normal(uint32_t triangle, const std::array<double, 9>& r, const D3& d) const {
    D3 n =
        turn(r, cross3(sub(corner(triangle, 1), corner(triangle, 0)), sub(corner(triangle, 2), corner(triangle, 0))));
    const double s = (dot3(n, d) > 0 ? -1.0 : 1.0) / std::sqrt(dot3(n, n));
    return {n[0] * s, n[1] * s, n[2] * s};
  }
};

inline constexpr std::array<double, 9> kIdentity = {1, 0, 0, 0, 1, 0, 0, 0, 1};

// legged_gym's convert_heightfield_to_trimesh layout (wr_scene_create_grid_mesh), rows x cols at
// 0.1 m, random heights with steps, and some vertices moved by one cell in x as its slope
// threshold moves them.
inline Mesh grid_mesh(uint32_t rows, uint32_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 0.05f);
  Mesh m;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      const bool step = (r / 6 + c / 4) % 3 == 0;
      const bool moved = step && r % 6 == 0 && r > 0;  // a wall's foot moved under its top
      m.vertices.insert(m.vertices.end(),
                        {0.1f * float(r - (moved ? 1 : 0)), 0.1f * float(c), u(rng) + (step ? 0.3f : 0)});
    }
  for (uint32_t r = 0; r + 1 < rows; ++r)
    for (uint32_t c = 0; c + 1 < cols; ++c) {
      const uint32_t v00 = r * cols + c, v01 = v00 + 1, v10 = v00 + cols, v11 = v10 + 1;
      m.indices.insert(m.indices.end(), {v00, v11, v01, v00, v10, v11});
    }
  return m;
}

// What a render reported, ray by ray.
struct Details {
  std::vector<float> values, points, normals;
  std::vector<uint32_t> triangles, instances;
};

inline Details render_details(wr_sensor sensor, uint32_t num_envs, const std::vector<float>& poses,
                              const std::vector<float>& slot_poses, uint32_t slots) {
  uint32_t w = 0, h = 0;
  REQUIRE(wr_sensor_output_shape(sensor, &w, &h, nullptr, nullptr) == WR_SUCCESS);
  const size_t n = size_t(num_envs) * w * h;
  Details d{std::vector<float>(n, -7.0f), std::vector<float>(3 * n, -7.0f), std::vector<float>(3 * n, -7.0f),
            std::vector<uint32_t>(n, 7u), std::vector<uint32_t>(n, 7u)};
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = poses.data();
  a.out = d.values.data();
  a.out_bytes = n * sizeof(float);
  a.instance_ids = d.instances.data();
  a.triangle_ids = d.triangles.data();
  a.hit_points = d.points.data();
  a.hit_normals = d.normals.data();
  if (slots) a.instance_poses = slot_poses.data();
  const wr_status s = wr_test::render_ex_on_backend(sensor, a, slots, 0);
  INFO(wr_last_error());
  REQUIRE(s == WR_SUCCESS);
  return d;
}

inline wr_sensor make_sensor(wr_scene scene, const Pattern& pattern, const wr_ray_sensor_desc& d, uint32_t num_envs,
                             uint32_t exclude_groups = 0) {
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.exclude_groups = exclude_groups;
  o.bad_pose_mode = WR_BAD_POSE_ISOLATE;
  wr_sensor sensor = nullptr;
  const wr_status s = wr_sensor_create_pattern(scene, pattern.p, &d, &o, num_envs, &sensor);
  INFO(wr_last_error());
  REQUIRE(s == WR_SUCCESS);
  return sensor;
}

// Checks every ray of `got` (world frame) against the reference: the sensor's world rays through
// wr_scene_intersect_ex on a CPU scene of the same arrays (made by `make`), points start + t dir,
// normals from `terrain` or, for instance i, `prototype` turned by slot_poses' rotation.
template <class Make>
void check_world_details(wr_sensor sensor, const Details& got, Make&& make, const Mesh& terrain, const Mesh* prototype,
                         const std::vector<float>& poses, const std::vector<float>& slot_poses, uint32_t slots,
                         uint32_t exclude_groups, float max_distance, size_t* hits) {
  const uint32_t num_envs = uint32_t(poses.size() / 7);
  const size_t n = got.values.size() / num_envs;
  wr_context cpu = nullptr;
  REQUIRE(wr_context_create_cpu(1, &cpu) == WR_SUCCESS);
  wr_scene scene = make(cpu);
  const ExplicitHits want = explicit_hits(sensor, scene, poses, n, slot_poses, exclude_groups, max_distance);
  wr_scene_release(scene);
  wr_context_release(cpu);
  const std::vector<float>&org = want.org, &dir = want.dir, &t = want.t;
  const std::vector<uint32_t>&tri = want.triangle, &inst = want.instance;
  for (size_t i = 0; i < t.size(); ++i) {
    INFO("env " << i / n << ", ray " << i % n);
    REQUIRE(got.triangles[i] == tri[i]);
    REQUIRE(got.instances[i] == inst[i]);
    const D3 d{dir[3 * i], dir[3 * i + 1], dir[3 * i + 2]};
    if (tri[i] == UINT32_MAX) {  // a miss: +inf points, 0 normals
      for (int k = 0; k < 3; ++k) {
        CHECK(got.points[3 * i + k] == INFINITY);
        CHECK(got.normals[3 * i + k] == 0.0f);
      }
      continue;
    }
    ++*hits;
    std::array<double, 9> r = kIdentity;
    const Mesh* mesh = &terrain;
    if (inst[i] != UINT32_MAX) {
      const float* q = &slot_poses[7ull * (slots * (i / n) + inst[i]) + 3];
      r = rotation(q[0], q[1], q[2], q[3]);
      mesh = prototype;
    }
    const D3 want_n = mesh->normal(tri[i], r, d);
    for (int k = 0; k < 3; ++k) {
      const double p = double(org[3 * i + k]) + double(t[i]) * d[k];
      CHECK(std::fabs(got.points[3 * i + k] - p) <= 1e-5 * (1.0 + std::fabs(p)));
      CHECK(std::fabs(got.normals[3 * i + k] - want_n[k]) <= 1e-5);
    }
  }
}

// A 0.6 x 0.6 x 0.2 m box about its origin (its faces wound outwards), and a 40 x 40 m floor at z 0.
inline Mesh small_box() {
  Mesh box;
  box.vertices = {-0.3f, -0.3f, -0.1f, 0.3f, -0.3f, -0.1f, 0.3f, 0.3f, -0.1f, -0.3f, 0.3f, -0.1f,
                  -0.3f, -0.3f, 0.1f,  0.3f, -0.3f, 0.1f,  0.3f, 0.3f, 0.1f,  -0.3f, 0.3f, 0.1f};
  box.indices = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
  return box;
}
inline Mesh wide_plane() {
  Mesh plane;
  plane.vertices = {-20, -20, 0, 20, -20, 0, 20, 20, 0, -20, 20, 0};
  plane.indices = {0, 1, 2, 0, 2, 3};
  return plane;
}

// What a sensor sees of boxes_on_a_plane's scene: never the robot's own trunk (instance 0, its group
// excluded), more than `min_on_boxes` rays or pixels on the boxes, and more hits than that.
inline void check_boxes_seen_trunk_not(const Details& got, size_t hits, size_t min_on_boxes) {
  size_t on_boxes = 0;
  for (uint32_t i : got.instances) {
    CHECK(i != 0u);  // the robot's own trunk is never seen
    on_boxes += i != UINT32_MAX;
  }
  CHECK(on_boxes > min_on_boxes);
  CHECK(hits > on_boxes);
}

// An instanced scene made on `c`: `plane` as the terrain and `box` as the one prototype of three
// slots per env, slot 0 in group 1 (the robot's own trunk, for a sensor to exclude), the others in 0.
inline wr_scene boxes_on_a_plane(wr_context c, const Mesh& plane, const Mesh& box) {
  wr_scene terrain = nullptr, proto = nullptr;
  REQUIRE(wr_scene_create(c, plane.vertices.data(), uint32_t(plane.vertices.size() / 3), plane.indices.data(),
                          uint32_t(plane.indices.size() / 3), &terrain) == WR_SUCCESS);
  REQUIRE(wr_scene_create(c, box.vertices.data(), uint32_t(box.vertices.size() / 3), box.indices.data(),
                          uint32_t(box.indices.size() / 3), &proto) == WR_SUCCESS);
  const uint32_t slot_prototypes[] = {0, 0, 0}, slot_groups[] = {1, 0, 0};
  wr_instanced_scene_desc d;
  wr_instanced_scene_desc_init(&d);
  d.terrain = terrain;
  d.prototypes = &proto;
  d.num_prototypes = 1;
  d.slot_prototypes = slot_prototypes;
  d.slot_groups = slot_groups;
  d.num_slots = 3;
  wr_scene scene = nullptr;
  REQUIRE(wr_scene_create_instanced(c, &d, &scene) == WR_SUCCESS);
  wr_scene_release(terrain);
  wr_scene_release(proto);
  return scene;
}

}  // namespace wr_test::hit_details
