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
#include "pattern_test_support.h"

using namespace wr_test::patterns;

namespace {

using D3 = std::array<double, 3>;

D3 sub(const D3& a, const D3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
D3 cross3(const D3& a, const D3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot3(const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// Rotation matrix (row-major) of the unit quaternion (w, x, y, z).
std::array<double, 9> rotation(double w, double x, double y, double z) {
  const double n = std::sqrt(w * w + x * x + y * y + z * z);
  w /= n, x /= n, y /= n, z /= n;
  return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
          2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
          2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}
D3 turn(const std::array<double, 9>& r, const D3& v) {
  return {r[0] * v[0] + r[1] * v[1] + r[2] * v[2], r[3] * v[0] + r[4] * v[1] + r[5] * v[2],
          r[6] * v[0] + r[7] * v[1] + r[8] * v[2]};
}
D3 turn_back(const std::array<double, 9>& r, const D3& v) {
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

constexpr std::array<double, 9> kIdentity = {1, 0, 0, 0, 1, 0, 0, 0, 1};

// legged_gym's convert_heightfield_to_trimesh layout (wr_scene_create_grid_mesh), rows x cols at
// 0.1 m, random heights with steps, and some vertices moved by one cell in x as its slope
// threshold moves them.
Mesh grid_mesh(uint32_t rows, uint32_t cols, unsigned seed) {
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

Details render_details(wr_sensor sensor, uint32_t num_envs, const std::vector<float>& poses,
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

wr_sensor make_sensor(wr_scene scene, const Pattern& pattern, const wr_ray_sensor_desc& d, uint32_t num_envs,
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
  Mesh box;
  box.vertices = {-0.3f, -0.3f, -0.1f, 0.3f, -0.3f, -0.1f, 0.3f, 0.3f, -0.1f, -0.3f, 0.3f, -0.1f,
                  -0.3f, -0.3f, 0.1f,  0.3f, -0.3f, 0.1f,  0.3f, 0.3f, 0.1f,  -0.3f, 0.3f, 0.1f};
  box.indices = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
  Mesh plane;
  plane.vertices = {-20, -20, 0, 20, -20, 0, 20, 20, 0, -20, 20, 0};
  plane.indices = {0, 1, 2, 0, 2, 3};
  const auto make = [&](wr_context c) {
    wr_scene terrain = nullptr, proto = nullptr;
    REQUIRE(wr_scene_create(c, plane.vertices.data(), 4, plane.indices.data(), 2, &terrain) == WR_SUCCESS);
    REQUIRE(wr_scene_create(c, box.vertices.data(), 8, box.indices.data(), 12, &proto) == WR_SUCCESS);
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
  };
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
  size_t hits = 0, on_boxes = 0;
  check_world_details(sensor, got, make, plane, &box, poses, slots, 3, 1u << 1, lidar.desc.max_distance, &hits);
  for (uint32_t i : got.instances) {
    CHECK(i != 0u);  // the robot's own trunk is never seen
    on_boxes += i != UINT32_MAX;
  }
  CHECK(on_boxes > 20);
  CHECK(hits > on_boxes);
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

TEST_CASE("hit details are refused by name for a camera, with a history and for a bad hit frame, nothing written") {
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
  {
    wr_camera_desc c;
    REQUIRE(wr_camera_desc_pinhole(&c, 8, 8, 90.0f) == WR_SUCCESS);
    REQUIRE(wr_sensor_create(h.scene, &c, 1, &h.sensor) == WR_SUCCESS);
    a.triangle_ids = triangles.data();
    CHECK(wr_sensor_render_ex(h.sensor, &a) == WR_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(wr_last_error(), Catch::Contains("args->triangle_ids") && Catch::Contains("camera"));
    wr_sensor_release(h.sensor);
    h.sensor = nullptr;
  }
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
