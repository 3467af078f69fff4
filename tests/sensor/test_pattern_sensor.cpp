// Pattern sensors (wr.h, "Ray patterns": height scanners and LiDARs) through the C API, as a user
// makes and renders them, on the backend under test (support/backend_under_test.h: the CPU, and
// once more a CUDA context where CTest finds a GPU: the cases tagged [backend]):
//   - the patterns against the peers' published formulas, reimplemented here in double: IsaacLab's
//     grid_pattern (GridPatternCfg(resolution=0.1, size=[1.6, 1.0]): 187 rays, both orderings) and
//     mjlab's GridPatternCfg count, IsaacLab's lidar_pattern (16 channels, +-15 degrees, 0.2
//     degrees, over 360 and 120 degrees) and bpearl_pattern (isaaclab/sensors/ray_caster/patterns/
//     patterns.py; mjlab/sensor/raycast_sensor.py);
//   - the world rays against IsaacLab's base/yaw/world rules (ray_caster.py: quat_apply,
//     quat_apply_yaw, with the pattern-frame offset) and mjlab's (_compute_alignment_rotation, its
//     yaw's +Y fallback), reimplemented here, at 10^4 random poses (roll and pitch to +-60 degrees,
//     and near +-90 degrees of pitch);
//   - the hits: every ray's distance bit for bit what wr_scene_intersect_ex gives for the same world
//     rays (wr_sensor_world_rays), and the same instance ids, on the bundled terrain, a height field
//     traced through its grid, and an instanced scene whose robot the sensor excludes;
//   - heights on a flat plane sensor z - plane z - offset (to the rounding of t), clipped; a miss
//     the documented value; memory flat in num_envs; every refusal named, nothing written.
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

using namespace wr_test::c_api;

namespace {

struct Pattern {
  wr_pattern p = nullptr;
  explicit Pattern(const wr_pattern_desc& d) {
    const wr_status s = wr_pattern_create(&d, &p);
    INFO(wr_last_error());
    REQUIRE(s == WR_SUCCESS);
  }
  ~Pattern() { wr_pattern_release(p); }
  uint32_t size() const {
    uint32_t n = 0;
    REQUIRE(wr_pattern_num_rays(p, &n) == WR_SUCCESS);
    return n;
  }
  void rays(std::vector<float>* starts, std::vector<float>* dirs) const {
    starts->assign(3ull * size(), 0.0f);
    dirs->assign(3ull * size(), 0.0f);
    REQUIRE(wr_pattern_rays(p, starts->data(), dirs->data()) == WR_SUCCESS);
  }
};

wr_pattern_desc grid_desc(double sx, double sy, double res) {
  wr_pattern_desc d;
  wr_pattern_desc_init(&d);
  d.kind = WR_PATTERN_GRID;
  d.grid_size[0] = sx, d.grid_size[1] = sy;
  d.grid_resolution = res;
  return d;
}

wr_pattern_desc lidar_desc(uint32_t channels, double v0, double v1, double h0, double h1, double res) {
  wr_pattern_desc d;
  wr_pattern_desc_init(&d);
  d.kind = WR_PATTERN_SPHERICAL;
  d.channels = channels;
  d.vertical_fov[0] = v0, d.vertical_fov[1] = v1;
  d.horizontal_fov[0] = h0, d.horizontal_fov[1] = h1;
  d.horizontal_resolution = res;
  return d;
}

// torch.arange(start, end, step)'s values, float32 as its tensor holds them (computed in double).
std::vector<float> arange(double start, double end, double step) {
  std::vector<float> v;
  const auto n = static_cast<size_t>(std::ceil((end - start) / step));
  for (size_t k = 0; k < n; ++k) v.push_back(static_cast<float>(start + step * double(k)));
  return v;
}

// torch.linspace(a, b, n) in double.
std::vector<double> linspace(double a, double b, size_t n) {
  std::vector<double> v;
  for (size_t k = 0; k < n; ++k) v.push_back(n == 1 ? a : a + (b - a) * double(k) / double(n - 1));
  return v;
}

constexpr double kDeg = 3.14159265358979323846 / 180.0;

bool cuda_under_test() { return wr_test::backend_under_test() == wr_test::Backend::kCuda; }

}  // namespace

TEST_CASE("a grid pattern is IsaacLab's grid_pattern: 187 rays for 1.6 x 1.0 at 0.1, in both orderings") {
  for (const wr_grid_ordering ordering : {WR_GRID_XY, WR_GRID_IJ}) {
    wr_pattern_desc d = grid_desc(1.6, 1.0, 0.1);
    d.grid_ordering = ordering;
    const Pattern p(d);
    REQUIRE(p.size() == 187);
    std::vector<float> starts, dirs;
    p.rays(&starts, &dirs);
    // grid_pattern: x = arange(-size[0]/2, size[0]/2 + 1e-9, res), y likewise,
    // meshgrid(x, y, indexing=ordering), starts (x, y, 0), directions (0, 0, -1).
    const std::vector<float> x = arange(-0.8, 0.8 + 1e-9, 0.1), y = arange(-0.5, 0.5 + 1e-9, 0.1);
    REQUIRE(x.size() == 17);
    REQUIRE(y.size() == 11);
    for (size_t i = 0; i < x.size(); ++i)
      for (size_t j = 0; j < y.size(); ++j) {
        const size_t r = ordering == WR_GRID_XY ? j * x.size() + i : i * y.size() + j;
        INFO("ray " << r);
        CHECK(starts[3 * r] == x[i]);
        CHECK(starts[3 * r + 1] == y[j]);
        CHECK(starts[3 * r + 2] == 0.0f);
        CHECK(dirs[3 * r] == 0.0f);
        CHECK(dirs[3 * r + 1] == 0.0f);
        CHECK(dirs[3 * r + 2] == -1.0f);
      }
  }
}

TEST_CASE("a grid pattern counts its samples by IsaacLab's or mjlab's rule") {
  for (const double size : {0.0, 0.3, 0.35, 1.0, 1.6, 2.05})
    for (const double res : {0.05, 0.1, 0.15, 0.4}) {
      for (const wr_grid_count_rule rule : {WR_GRID_COUNT_ISAACLAB, WR_GRID_COUNT_MJLAB}) {
        wr_pattern_desc d = grid_desc(size, 0.0, res);
        d.grid_count_rule = rule;
        const Pattern p(d);
        // IsaacLab: arange(-s/2, s/2 + 1e-9, res); mjlab: arange(-s/2, s/2 + res * 0.5, res).
        const double end = rule == WR_GRID_COUNT_MJLAB ? size / 2 + res * 0.5 : size / 2 + 1e-9;
        const std::vector<float> x = arange(-size / 2, end, res);
        INFO("size " << size << " at " << res << ", rule " << int(rule));
        REQUIRE(p.size() == x.size());
        std::vector<float> starts, dirs;
        p.rays(&starts, &dirs);
        for (size_t i = 0; i < x.size(); ++i) CHECK(starts[3 * i] == x[i]);
      }
    }
}

TEST_CASE("a grid normal to a slanted direction lies across it, and along -Z both planes agree") {
  wr_pattern_desc d = grid_desc(0.4, 0.2, 0.1);
  d.grid_plane = WR_GRID_PLANE_NORMAL;
  const Pattern down(d);
  d.grid_plane = WR_GRID_PLANE_XY;
  const Pattern xy(d);
  std::vector<float> s1, d1, s2, d2;
  down.rays(&s1, &d1);
  xy.rays(&s2, &d2);
  CHECK(s1 == s2);
  CHECK(d1 == d2);
  d.grid_plane = WR_GRID_PLANE_NORMAL;
  d.grid_direction[0] = 1.0f, d.grid_direction[1] = 0.0f, d.grid_direction[2] = -1.0f;  // 45 degrees down
  const Pattern slanted(d);
  slanted.rays(&s1, &d1);
  const double c = std::sqrt(0.5);
  for (uint32_t r = 0; r < slanted.size(); ++r) {
    INFO("ray " << r);
    // Every start lies in the plane normal to the direction, and the rays keep their spacing.
    CHECK(std::fabs(s1[3 * r] * c - s1[3 * r + 2] * c) < 1e-6);
    CHECK(d1[3 * r] == Approx(c));
    CHECK(d1[3 * r + 2] == Approx(-c));
  }
  CHECK(std::hypot(s1[3] - s1[0], std::hypot(s1[4] - s1[1], s1[5] - s1[2])) == Approx(0.1).epsilon(1e-6));
}

TEST_CASE("a spherical pattern is IsaacLab's lidar_pattern: 16 channels at 0.2 degrees over 360 and 120 degrees") {
  for (const double fov : {360.0, 120.0}) {
    const Pattern p(lidar_desc(16, -15.0, 15.0, -fov / 2, fov / 2, 0.2));
    // lidar_pattern: vertical = linspace(v0, v1, channels); n = ceil((h1 - h0) / res) + 1,
    // horizontal = linspace(h0, h1, n), the last dropped where |h1 - h0| is 360; meshgrid(v, h, "ij").
    const std::vector<double> v = linspace(-15.0, 15.0, 16);
    std::vector<double> h = linspace(-fov / 2, fov / 2, size_t(std::ceil(fov / 0.2)) + 1);
    if (fov == 360.0) h.pop_back();
    INFO(fov << " degrees");
    REQUIRE(p.size() == v.size() * h.size());
    if (fov == 360.0) CHECK(p.size() == 28800u);
    std::vector<float> starts, dirs;
    p.rays(&starts, &dirs);
    for (size_t c = 0; c < v.size(); ++c)
      for (size_t a = 0; a < h.size(); ++a) {
        const size_t r = c * h.size() + a;
        const double e = v[c] * kDeg, z = h[a] * kDeg;
        const double want[3] = {std::cos(e) * std::cos(z), std::cos(e) * std::sin(z), std::sin(e)};
        for (int k = 0; k < 3; ++k) {
          INFO("ray " << r << " axis " << k);
          CHECK(std::fabs(dirs[3 * r + k] - want[k]) <= 1e-7);
          CHECK(starts[3 * r + k] == 0.0f);
        }
      }
  }
}

TEST_CASE("explicit elevations and azimuth-major order give IsaacLab's bpearl_pattern") {
  // bpearl_pattern: h = arange(-fov/2, fov/2, res); v = the given angles; meshgrid(v, h, "xy")
  // (h outer); pitch = v + 90 degrees; direction = -(sin p cos h, sin p sin h, cos p).
  const std::vector<float> angles = {89.5f, 86.6875f, 83.875f, 81.0625f, 78.25f, 2.5f, -0.3125f};
  wr_pattern_desc d = lidar_desc(uint32_t(angles.size()), 0, 0, 0.0, 360.0, 10.0);
  d.vertical_angles = angles.data();
  d.spherical_order = WR_SPHERICAL_AZIMUTH_MAJOR;
  const Pattern p(d);  // azimuths 0 .. 350: bpearl's h + 180 degrees
  const std::vector<float> h = arange(-180.0, 180.0, 10.0);
  REQUIRE(p.size() == h.size() * angles.size());
  std::vector<float> starts, dirs;
  p.rays(&starts, &dirs);
  for (size_t a = 0; a < h.size(); ++a)
    for (size_t c = 0; c < angles.size(); ++c) {
      const size_t r = a * angles.size() + c;
      const double pitch = (double(angles[c]) + 90.0) * kDeg, yaw = double(h[a]) * kDeg;
      const double want[3] = {-std::sin(pitch) * std::cos(yaw), -std::sin(pitch) * std::sin(yaw), -std::cos(pitch)};
      for (int k = 0; k < 3; ++k) {
        INFO("ray " << r << " axis " << k);
        CHECK(std::fabs(dirs[3 * r + k] - want[k]) <= 2e-7);
      }
    }
}

TEST_CASE("a table pattern keeps the caller's rays, its directions made unit") {
  const std::vector<float> dirs = {1, 0, 0, 0, 3, 4, 0, 0, -2}, starts = {0.1f, 0, 0, 0, 0.2f, 0, 0, 0, 0.3f};
  wr_pattern_desc d;
  wr_pattern_desc_init(&d);
  d.kind = WR_PATTERN_TABLE;
  d.table_count = 3;
  d.table_directions = dirs.data();
  d.table_starts = starts.data();
  const Pattern p(d);
  std::vector<float> s, u;
  p.rays(&s, &u);
  CHECK(s == starts);
  CHECK(u == std::vector<float>{1, 0, 0, 0, 0.6f, 0.8f, 0, 0, -1});
}

namespace {

// A unit quaternion (w, x, y, z) from roll, pitch, yaw (radians): Rz(yaw) Ry(pitch) Rx(roll).
std::array<double, 4> quat_rpy(double roll, double pitch, double yaw) {
  const double cr = std::cos(roll / 2), sr = std::sin(roll / 2), cp = std::cos(pitch / 2), sp = std::sin(pitch / 2);
  const double cy = std::cos(yaw / 2), sy = std::sin(yaw / 2);
  return {cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
          cr * cp * sy - sr * sp * cy};
}

// IsaacLab's quat_apply: q (w, x, y, z) applied to v.
std::array<double, 3> quat_apply(const std::array<double, 4>& q, const std::array<double, 3>& v) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double t[3] = {2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])};
  return {v[0] + w * t[0] + (y * t[2] - z * t[1]), v[1] + w * t[1] + (z * t[0] - x * t[2]),
          v[2] + w * t[2] + (x * t[1] - y * t[0])};
}

// IsaacLab's yaw_quat: the heading of q as a quaternion about +Z.
std::array<double, 4> yaw_quat(const std::array<double, 4>& q) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double yaw = std::atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
  return {std::cos(yaw / 2), 0, 0, std::sin(yaw / 2)};
}

// mjlab's _compute_alignment_rotation("yaw") of the rotation of q.
std::array<double, 9> mjlab_yaw(const std::array<double, 4>& q) {
  const std::array<double, 3> ex = quat_apply(q, {1, 0, 0}), ey = quat_apply(q, {0, 1, 0});
  double x = ex[0], y = ex[1], n = std::hypot(x, y);
  if (n < 0.1) {
    const double m = std::max(std::hypot(ey[0], ey[1]), 1e-6);
    x = ey[1] / m, y = -ey[0] / m, n = 1;
  }
  n = std::max(n, 1e-6);
  x /= n, y /= n;
  return {x, -y, 0, y, x, 0, 0, 0, 1};
}

std::array<double, 3> mat_apply(const std::array<double, 9>& m, const std::array<double, 3>& v) {
  return {m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
          m[6] * v[0] + m[7] * v[1] + m[8] * v[2]};
}

// A scene made on `context` of a flat square [-s, s]^2 at height z (two triangles).
wr_scene plane_scene(wr_context context, float s, float z) {
  const float v[] = {-s, -s, z, s, -s, z, s, s, z, -s, s, z};
  const uint32_t t[] = {0, 1, 2, 0, 2, 3};
  wr_scene scene = nullptr;
  REQUIRE(wr_scene_create(context, v, 4, t, 2, &scene) == WR_SUCCESS);
  return scene;
}

struct Handles {
  wr_context context = nullptr;
  wr_scene scene = nullptr;
  wr_sensor sensor = nullptr;
  ~Handles() {
    wr_sensor_release(sensor);
    wr_scene_release(scene);
    wr_context_release(context);
  }
};

}  // namespace

TEST_CASE("world rays follow IsaacLab's base, yaw and world rules and mjlab's, with both offsets") {
  Handles h;
  REQUIRE(wr_context_create_cpu(1, &h.context) == WR_SUCCESS);
  h.scene = plane_scene(h.context, 10.0f, 0.0f);
  const wr_pattern_desc pd = grid_desc(1.6, 1.0, 0.1);
  wr_pattern_desc slanted = grid_desc(0.4, 0.4, 0.2);
  slanted.grid_direction[0] = 0.3f;
  const Pattern grid(pd), tilted(slanted);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  struct Rule {
    wr_ray_alignment alignment;
    wr_yaw_rule yaw;
  };
  const Rule rules[] = {{WR_ALIGN_BASE, WR_YAW_ISAACLAB},
                        {WR_ALIGN_YAW, WR_YAW_ISAACLAB},
                        {WR_ALIGN_WORLD, WR_YAW_ISAACLAB},
                        {WR_ALIGN_YAW, WR_YAW_MJLAB}};
  const double offset_q[4] = {std::cos(0.1), 0.0, std::sin(0.1), 0.0};  // 0.2 rad about +Y
  size_t poses_checked = 0;
  for (const Rule& rule : rules)
    for (const Pattern* pattern : {&grid, &tilted}) {
      wr_ray_sensor_desc d;
      wr_ray_sensor_desc_init(&d);
      d.alignment = rule.alignment;
      d.yaw_rule = rule.yaw;
      d.offset_position[0] = 0.05f, d.offset_position[2] = 20.0f;
      for (int k = 0; k < 4; ++k) d.offset_rotation[k] = float(offset_q[k]);
      wr_sensor sensor = nullptr;
      REQUIRE(wr_sensor_create_pattern(h.scene, pattern->p, &d, nullptr, 1, &sensor) == WR_SUCCESS);
      std::vector<float> starts, dirs;
      pattern->rays(&starts, &dirs);
      const uint32_t n = pattern->size();
      std::vector<float> got_o(3 * n), got_d(3 * n);
      const int poses = rule.alignment == WR_ALIGN_YAW && pattern == &grid ? 10000 : 500;
      for (int i = 0; i < poses; ++i) {
        // Roll and pitch to +-60 degrees, or pitch within 0.5 to 2 degrees of +-90.
        const bool steep = i % 10 == 9;
        const double pitch =
            steep ? (u(rng) > 0 ? 1 : -1) * (90.0 - 0.5 - 1.5 * (u(rng) + 1) / 2) * kDeg : 60.0 * kDeg * u(rng);
        const std::array<double, 4> q = quat_rpy(60.0 * kDeg * u(rng), pitch, 3.14159 * u(rng));
        const std::array<double, 4> qf = {float(q[0]), float(q[1]), float(q[2]), float(q[3])};
        const std::array<double, 3> pos = {5 * u(rng), 5 * u(rng), 0.5 + u(rng)};
        const float pose[7] = {float(pos[0]), float(pos[1]), float(pos[2]), float(q[0]),
                               float(q[1]),   float(q[2]),   float(q[3])};
        REQUIRE(wr_sensor_world_rays(sensor, pose, nullptr, 0, 0, got_o.data(), got_d.data()) == WR_SUCCESS);
        // mjlab's heading changes branch at a projection of 0.1: away from it, float and double agree
        const double proj = std::hypot(quat_apply(qf, {1, 0, 0})[0], quat_apply(qf, {1, 0, 0})[1]);
        if (rule.yaw == WR_YAW_MJLAB && std::fabs(proj - 0.1) < 1e-4) continue;
        ++poses_checked;
        for (uint32_t r = 0; r < n; ++r) {
          const std::array<double, 3> s = {double(starts[3 * r]) + double(d.offset_position[0]),
                                           double(starts[3 * r + 1]) + double(d.offset_position[1]),
                                           double(starts[3 * r + 2]) + double(d.offset_position[2])};
          const std::array<double, 3> dir =
              quat_apply({offset_q[0], offset_q[1], offset_q[2], offset_q[3]},
                         {double(dirs[3 * r]), double(dirs[3 * r + 1]), double(dirs[3 * r + 2])});
          std::array<double, 3> wo, wd;
          if (rule.alignment == WR_ALIGN_BASE) {  // quat_apply(quat_w, starts) + pos_w; directions too
            wo = quat_apply(qf, s);
            wd = quat_apply(qf, dir);
          } else if (rule.alignment == WR_ALIGN_WORLD) {
            wo = s;
            wd = dir;
          } else if (rule.yaw == WR_YAW_ISAACLAB) {  // quat_apply_yaw(quat_w, starts) + pos_w; directions kept
            wo = quat_apply(yaw_quat(qf), s);
            wd = dir;
          } else {  // mjlab: the yaw matrix turns both
            const std::array<double, 9> m = mjlab_yaw(qf);
            wo = mat_apply(m, s);
            wd = mat_apply(m, dir);
          }
          for (int k = 0; k < 3; ++k) {
            INFO("rule " << int(rule.alignment) << "/" << int(rule.yaw) << ", pose " << i << ", ray " << r << ", axis "
                         << k);
            CHECK(std::fabs(got_o[3 * r + k] - (wo[k] + double(pose[k]))) <= 2e-5 * (1 + std::fabs(wo[k])));
            CHECK(std::fabs(got_d[3 * r + k] - wd[k]) <= 2e-6);
          }
        }
      }
      wr_sensor_release(sensor);
    }
  CHECK(poses_checked > 14000);
}

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
  std::vector<float> org(3ull * num_envs * n), dir(org.size()), tmax(size_t(num_envs) * n, d.max_distance);
  for (uint32_t e = 0; e < num_envs; ++e)
    REQUIRE(wr_sensor_world_rays(sensor, &poses[7ull * e], nullptr, e, 0, &org[3ull * e * n], &dir[3ull * e * n]) ==
            WR_SUCCESS);
  std::vector<float> t(out.size());
  std::vector<uint32_t> tri(out.size()), inst(out.size());
  wr_intersect_args x;
  wr_intersect_args_init(&x);
  x.origins = org.data();
  x.directions = dir.data();
  x.tmax = tmax.data();
  x.count = out.size();
  x.num_envs = num_envs;
  x.instance_poses = slots ? slot_poses.data() : nullptr;
  x.exclude_groups = exclude_groups;
  x.out_t = t.data();
  x.out_triangle = tri.data();
  x.out_instance = inst.data();
  REQUIRE(wr_scene_intersect_ex(s.on_cpu, &x) == WR_SUCCESS);
  for (size_t i = 0; i < out.size(); ++i) {
    INFO("env " << i / n << ", ray " << i % n);
    uint32_t a_bits, b_bits;
    std::memcpy(&a_bits, &out[i], 4);
    std::memcpy(&b_bits, &t[i], 4);
    CHECK(a_bits == b_bits);  // a miss: +inf both (the desc's miss value)
    CHECK(ids[i] == inst[i]);
    *hits += tri[i] != UINT32_MAX;
  }
  wr_sensor_release(sensor);
}

// Random body poses over [lo, hi] (z from lo[2] + 0.3 to hi[2] + 1.5), rolled and pitched to +-30
// degrees, any heading; (num_envs x 7), w, x, y, z.
std::vector<float> body_poses(uint32_t num_envs, const float lo[3], const float hi[3], unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<float> p;
  for (uint32_t e = 0; e < num_envs; ++e) {
    const std::array<double, 4> q = quat_rpy((u(rng) - 0.5) * 60 * kDeg, (u(rng) - 0.5) * 60 * kDeg, u(rng) * 6.283);
    p.insert(p.end(),
             {float(lo[0] + (hi[0] - lo[0]) * u(rng)), float(lo[1] + (hi[1] - lo[1]) * u(rng)),
              float(lo[2] + 0.3 + (hi[2] - lo[2] + 1.2) * u(rng)), float(q[0]), float(q[1]), float(q[2]), float(q[3])});
  }
  return p;
}

// The patterns every hit check runs: IsaacLab's height scan (yaw, 20 m lift) and a small LiDAR.
struct HitPatterns {
  Pattern scan{grid_desc(1.6, 1.0, 0.1)};
  Pattern lidar{::lidar_desc(4, -25.0, 5.0, -180.0, 180.0, 4.0)};
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

TEST_CASE("bad patterns, descs, options and renders are refused by name, nothing written") {
  Handles h;
  REQUIRE(wr_context_create_cpu(1, &h.context) == WR_SUCCESS);
  h.scene = plane_scene(h.context, 8.0f, 0.0f);
  wr_pattern p = nullptr;
  wr_pattern_desc pd;
  wr_pattern_desc_init(&pd);
  pd.kind = WR_PATTERN_TABLE;
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->table_count",
              "no ray");
  const float dirs[] = {0, 0, -1, 0, 0, 0};
  pd.table_count = 2;
  pd.table_directions = dirs;
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->table_directions[1]",
              "zero");
  pd = lidar_desc(0, -15, 15, -180, 180, 0.2);
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->channels");
  pd = lidar_desc(1, 0, 0, 0, 360, 0.0);
  pd.horizontal_count = 1;  // the one azimuth is the 360-degree duplicate
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "no ray");
  pd = grid_desc(1.0, 1.0, 0.0);
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->grid_resolution");
  pd = grid_desc(1.0, 1.0, 0.1);
  pd.grid_direction[2] = 0.0f;
  EXPECT_FAIL(wr_pattern_create(&pd, &p), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->grid_direction");
  CHECK(p == nullptr);

  const Pattern scan(grid_desc(0.2, 0.2, 0.1));
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  wr_sensor s = nullptr;
  d.max_distance = 0.0f;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "desc->max_distance");
  wr_ray_sensor_desc_init(&d);
  d.alignment = bad_enum<wr_ray_alignment>(7);
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "desc->alignment");
  wr_ray_sensor_desc_init(&d);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.crop_width = 2;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, &o, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "options->crop_x");
  wr_sensor_options_init(&o);
  o.noise.range_sigma[0] = 0.01f;
  d.value = WR_RAY_HEIGHT;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, &o, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "options->noise", "heights");
  wr_sensor_options_init(&o);
  o.dtype = WR_DTYPE_UINT16_MM;  // heights are often negative: millimetres of depth would read 0
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, &o, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "options->dtype", "heights");
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, nullptr, &d, nullptr, 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "pattern");
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, 0, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "num_envs");
  CHECK(s == nullptr);

  // Renders: a NaN pose names its env; intrinsics are a camera's; nothing is written.
  d.value = WR_RAY_DISTANCE;
  REQUIRE(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, 2, &h.sensor) == WR_SUCCESS);
  std::vector<float> poses = {0, 0, 1, 1, 0, 0, 0, 0, 0, kNaN, 1, 0, 0, 0};
  std::vector<float> out(2 * 9, 5.0f);
  EXPECT_FAIL(wr_sensor_render(h.sensor, poses.data(), out.data(), nullptr), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_render", "env 1");
  CHECK(out == std::vector<float>(2 * 9, 5.0f));
  poses[9] = 1.0f;
  const std::vector<float> k = {1, 1, 0, 0, 1, 1, 0, 0};
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = poses.data();
  a.out = out.data();
  a.out_bytes = out.size() * 4;
  a.intrinsics = k.data();
  EXPECT_FAIL(wr_sensor_render_ex(h.sensor, &a), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_render_ex", "args->intrinsics",
              "pattern");
  CHECK(out == std::vector<float>(2 * 9, 5.0f));
  EXPECT_FAIL(wr_sensor_world_rays(h.sensor, &poses[7], nullptr, 1, 0, nullptr, out.data()), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_world_rays", "starts");
  REQUIRE(wr_sensor_render(h.sensor, poses.data(), out.data(), nullptr) == WR_SUCCESS);
  CHECK(out[0] == 1.0f);
}

TEST_CASE("a rosette stays within its cone and does not repeat") {
  wr_pattern_desc d;
  wr_pattern_desc_init(&d);
  d.kind = WR_PATTERN_ROSETTE;
  d.rosette_fov = 38.4;
  d.rosette_count = 20000;
  d.rosette_revolutions[0] = 0.0121, d.rosette_revolutions[1] = -0.0077;
  const Pattern p(d);
  REQUIRE(p.size() == 20000);
  std::vector<float> starts, dirs;
  p.rays(&starts, &dirs);
  double widest = 0;
  for (uint32_t r = 0; r < p.size(); ++r) {
    // The two deflections add up to at most fov / 2 from +X (on the sphere, a little less).
    const double angle = std::acos(std::min(1.0, double(dirs[3 * r]))) / kDeg;
    widest = std::max(widest, angle);
    CHECK(starts[3 * r] == 0.0f);
  }
  CHECK(widest <= 19.2 + 1e-4);
  CHECK(widest > 18.0);  // the rosette reaches out to its rim
  // No two rays of the first thousand point the same way.
  size_t same = 0;
  for (uint32_t a = 0; a < 1000; ++a)
    for (uint32_t b = a + 1; b < 1000; ++b)
      same += dirs[3 * a] == dirs[3 * b] && dirs[3 * a + 1] == dirs[3 * b + 1] && dirs[3 * a + 2] == dirs[3 * b + 2];
  CHECK(same == 0u);
  d.rosette_fov = 180.0;
  wr_pattern bad = nullptr;
  EXPECT_FAIL(wr_pattern_create(&d, &bad), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->rosette_fov");
}

TEST_CASE("a scanning sensor reads the window (frame x rays_per_frame + phase) mod length, wrap included",
          "[backend]") {
  Handles h;
  REQUIRE(wr_test::create_backend_context(2, &h.context) == WR_SUCCESS);
  h.scene = plane_scene(h.context, 30.0f, 0.0f);
  // 50 rays fanning down at different slants: each ray's distance tells which ray it was.
  wr_pattern_desc pd;
  wr_pattern_desc_init(&pd);
  pd.kind = WR_PATTERN_ROSETTE;
  pd.rosette_fov = 60.0;
  pd.rosette_count = 50;
  pd.rosette_revolutions[0] = 0.137, pd.rosette_revolutions[1] = -0.071;
  const Pattern rosette(pd);
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  d.mount_rotation[0] = std::cos(0.6), d.mount_rotation[2] = std::sin(0.6);  // looking 69 degrees down
  const uint32_t num_envs = 9, length = 50, window = 17;
  std::vector<float> poses;
  for (uint32_t e = 0; e < num_envs; ++e)
    poses.insert(poses.end(), {float(e) - 4.0f, 0.5f * e - 2.0f, 2.0f + 0.1f * e, 1, 0, 0, 0});
  wr_sensor full = nullptr;
  REQUIRE(wr_sensor_create_pattern(h.scene, rosette.p, &d, nullptr, num_envs, &full) == WR_SUCCESS);
  std::vector<float> all(num_envs * length);
  REQUIRE(wr_test::render_on_backend(full, poses.data(), poses.size(), all.data(), all.size()) == WR_SUCCESS);
  size_t finite = 0;
  for (float v : all) finite += std::isfinite(v);
  REQUIRE(finite == all.size());  // every ray hits the plane: a window's values tell its rays

  // Renders frame `frame` of a scanning sensor of n envs (the first n poses): (n x window).
  auto scan = [&](wr_scan_phase phase, uint32_t n, uint64_t frame) {
    wr_ray_sensor_desc s = d;
    s.rays_per_frame = window;
    s.scan_phase = phase;
    s.scan_seed = 0x1234567890ull;
    wr_sensor sensor = nullptr;
    REQUIRE(wr_sensor_create_pattern(h.scene, rosette.p, &s, nullptr, n, &sensor) == WR_SUCCESS);
    uint32_t w = 0;
    REQUIRE(wr_sensor_output_shape(sensor, &w, nullptr, nullptr, nullptr) == WR_SUCCESS);
    CHECK(w == window);
    std::vector<float> out(size_t(n) * window);
    wr_render_args a;
    wr_render_args_init(&a);
    a.body_poses = poses.data();
    a.out = out.data();
    a.out_bytes = out.size() * sizeof(float);
    a.frame = frame;
    REQUIRE(wr_test::render_ex_on_backend(sensor, a) == WR_SUCCESS);
    // Its world rays say the same: ray u of the last env in this frame is the whole pattern's ray
    // (start + u) mod length, bit for bit.
    std::vector<float> o(3 * window), dir(3 * window), full_o(3 * length), full_dir(3 * length);
    const float* last = poses.data() + 7 * (n - 1);
    REQUIRE(wr_sensor_world_rays(sensor, last, nullptr, n - 1, frame, o.data(), dir.data()) == WR_SUCCESS);
    REQUIRE(wr_sensor_world_rays(full, last, nullptr, n - 1, frame, full_o.data(), full_dir.data()) == WR_SUCCESS);
    for (uint32_t u = 0; u < window; ++u) {
      if (phase == WR_SCAN_PHASE_ZERO) {
        const uint64_t r = ((frame % length) * window + u) % length;
        CHECK(std::memcmp(&full_dir[3 * r], &dir[3 * u], 3 * sizeof(float)) == 0);
        CHECK(std::memcmp(&full_o[3 * r], &o[3 * u], 3 * sizeof(float)) == 0);
      } else {  // the full pattern's rays of this ray's value: one of them has its direction
        const float v = out[size_t(n - 1) * window + u];
        uint32_t matches = 0;
        for (uint32_t r = 0; r < length; ++r)
          if (same_bits(all[size_t(n - 1) * length + r], v))
            matches += std::memcmp(&full_dir[3 * r], &dir[3 * u], 3 * sizeof(float)) == 0;
        CHECK(matches >= 1u);
      }
    }
    wr_sensor_release(sensor);
    return out;
  };
  // Phase 0: every env in step, frame k at (17 k) mod 50; frames 0 .. 6 wrap around twice.
  for (uint64_t frame = 0; frame < 7; ++frame) {
    const std::vector<float> got = scan(WR_SCAN_PHASE_ZERO, num_envs, frame);
    for (uint32_t e = 0; e < num_envs; ++e)
      for (uint32_t u = 0; u < window; ++u) {
        INFO("frame " << frame << ", env " << e << ", ray " << u);
        CHECK(same_bits(got[e * window + u], all[e * length + (frame * window + u) % length]));
      }
  }
  // A frame number past 2^32 still reads the window its formula says.
  const uint64_t big = (1ull << 40) + 3;
  const std::vector<float> far = scan(WR_SCAN_PHASE_ZERO, 1, big);
  for (uint32_t u = 0; u < window; ++u) CHECK(same_bits(far[u], all[((big % length) * window + u) % length]));
  // Hashed phases: each env its own window start, the same for 4 and for 9 envs.
  std::vector<uint32_t> phase(num_envs, length);
  for (const uint32_t n : {num_envs, 4u}) {
    const std::vector<float> got = scan(WR_SCAN_PHASE_HASHED, n, 5);
    for (uint32_t e = 0; e < n; ++e) {
      uint32_t found = length;
      for (uint32_t p = 0; p < length && found == length; ++p) {
        bool all_same = true;
        for (uint32_t u = 0; u < window; ++u)
          all_same = all_same && same_bits(got[e * window + u], all[e * length + (5 * window + p + u) % length]);
        if (all_same) found = p;
      }
      INFO("env " << e << " of " << n);
      REQUIRE(found < length);
      if (phase[e] == length) phase[e] = found;
      CHECK(phase[e] == found);
    }
  }
  std::sort(phase.begin(), phase.end());
  CHECK(std::unique(phase.begin(), phase.end()) - phase.begin() > 3);  // the envs are not in step

  wr_sensor_release(full);
  wr_ray_sensor_desc s = d;
  s.rays_per_frame = length + 1;
  wr_sensor bad = nullptr;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, rosette.p, &s, nullptr, 1, &bad), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "desc->rays_per_frame", "longer than the pattern");
}

TEST_CASE("several frames per env: row f is a one-frame sensor on frame f's body and mount, bit for bit", "[backend]") {
  // mjlab's per-foot scans: one pattern, a frame per foot. The envs' rigid-body states (N x 4 x 13,
  // x y z, w x y z, velocities), frames on bodies 1, 2 and 3, each under its own mount; and the same
  // poses packed (N x 3 x 7) with the default offsets.
  const std::string path =
      std::string(std::getenv("WR_SOURCE_DIR") ? std::getenv("WR_SOURCE_DIR") : ".") + "/assets/parkour_small.obj";
  Handles h;
  REQUIRE(wr_test::create_backend_context(2, &h.context) == WR_SUCCESS);
  REQUIRE(wr_scene_load_obj(h.context, path.c_str(), &h.scene) == WR_SUCCESS);
  float lo[3], hi[3];
  REQUIRE(wr_scene_bounds(h.scene, lo, hi) == WR_SUCCESS);
  const uint32_t num_envs = 6, bodies = 4, frames = 3;
  const std::vector<float> base = body_poses(num_envs * bodies, lo, hi, 8);
  std::vector<float> states(size_t(num_envs) * bodies * 13, 0.5f), packed;
  for (uint32_t i = 0; i < num_envs * bodies; ++i) std::copy_n(&base[7 * i], 7, &states[13 * i]);
  for (uint32_t e = 0; e < num_envs; ++e)
    for (uint32_t f = 0; f < frames; ++f)
      packed.insert(packed.end(), &states[13 * (e * bodies + 1 + f)], &states[13 * (e * bodies + 1 + f)] + 7);
  const Pattern scan(grid_desc(0.4, 0.4, 0.1));
  const uint32_t rays = scan.size();
  const uint32_t offsets[frames] = {13, 26, 39};
  const float mounts[7 * frames] = {0.1f, 0.05f, 0, 1, 0, 0,     0, 0.1f, -0.05f, 0, 0.9f,
                                    0.1f, 0,     0, 0, 0, 0.02f, 0, 0,    0,      0};
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  d.alignment = WR_ALIGN_YAW;
  d.yaw_rule = WR_YAW_MJLAB;
  d.offset_position[2] = 10.0f;
  d.value = WR_RAY_HEIGHT;
  d.miss_value = -7.0f;
  d.num_frames = frames;
  d.frame_pose_offsets = offsets;
  d.frame_mounts = mounts;
  wr_sensor multi = nullptr;
  REQUIRE(wr_sensor_create_pattern(h.scene, scan.p, &d, nullptr, num_envs, &multi) == WR_SUCCESS);
  uint32_t w = 0, hgt = 0;
  REQUIRE(wr_sensor_output_shape(multi, &w, &hgt, nullptr, nullptr) == WR_SUCCESS);
  CHECK((w == rays && hgt == frames));
  std::vector<float> got(size_t(num_envs) * frames * rays, 9.0f);
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = states.data();
  a.pose_stride = bodies * 13;
  a.out = got.data();
  a.out_bytes = got.size() * sizeof(float);
  REQUIRE(wr_test::render_ex_on_backend(multi, a) == WR_SUCCESS);
  // Packed poses with the default offsets (7 f) and stride (7 x 3) give the same bits.
  wr_ray_sensor_desc dp = d;
  dp.frame_pose_offsets = nullptr;
  wr_sensor multi_packed = nullptr;
  REQUIRE(wr_sensor_create_pattern(h.scene, scan.p, &dp, nullptr, num_envs, &multi_packed) == WR_SUCCESS);
  std::vector<float> got_packed(got.size(), 9.0f);
  REQUIRE(wr_test::render_on_backend(multi_packed, packed.data(), packed.size(), got_packed.data(),
                                     got_packed.size()) == WR_SUCCESS);
  size_t hits = 0;
  for (uint32_t f = 0; f < frames; ++f) {
    // The one-frame sensor on frame f's body (pose_offset into the same states) and mount.
    wr_ray_sensor_desc one = d;
    one.num_frames = 0, one.frame_pose_offsets = nullptr, one.frame_mounts = nullptr;
    std::copy_n(&mounts[7 * f], 3, one.mount_position);
    std::copy_n(&mounts[7 * f + 3], 4, one.mount_rotation);
    wr_sensor single = nullptr;
    REQUIRE(wr_sensor_create_pattern(h.scene, scan.p, &one, nullptr, num_envs, &single) == WR_SUCCESS);
    std::vector<float> want(size_t(num_envs) * rays);
    wr_render_args b = a;
    b.pose_offset = offsets[f];
    b.out = want.data();
    b.out_bytes = want.size() * sizeof(float);
    REQUIRE(wr_test::render_ex_on_backend(single, b) == WR_SUCCESS);
    for (uint32_t e = 0; e < num_envs; ++e) {
      for (uint32_t r = 0; r < rays; ++r) {
        INFO("env " << e << ", frame " << f << ", ray " << r);
        const size_t at = (size_t(e) * frames + f) * rays + r;
        CHECK(same_bits(got[at], want[size_t(e) * rays + r]));
        CHECK(same_bits(got_packed[at], got[at]));
        hits += got[at] != -7.0f;
      }
      // Its world rays are frame f's rows of the multi-frame sensor's.
      std::vector<float> so(3 * rays), sd(3 * rays), mo(3 * frames * rays), md(3 * frames * rays);
      REQUIRE(wr_sensor_world_rays(single, &states[13 * (e * bodies) + offsets[f]], nullptr, e, 0, so.data(),
                                   sd.data()) == WR_SUCCESS);
      REQUIRE(wr_sensor_world_rays(multi, &states[13 * (e * bodies)], nullptr, e, 0, mo.data(), md.data()) ==
              WR_SUCCESS);
      CHECK(std::memcmp(so.data(), &mo[3 * f * rays], so.size() * sizeof(float)) == 0);
      CHECK(std::memcmp(sd.data(), &md[3 * f * rays], sd.size() * sizeof(float)) == 0);
    }
    wr_sensor_release(single);
  }
  CHECK(hits > size_t(num_envs) * frames * rays / 2);
  // A bad pose of frame 2 is named with its frame; per-env mounts are the frames'; a short stride.
  if (!cuda_under_test()) {
    // A bad pose of a frame: its world rays are refused before anything is written.
    std::vector<float> starts(3 * frames * rays, 5.0f), dirs(starts);
    std::vector<float> record(&states[13 * (1 * bodies)], &states[13 * (1 * bodies)] + 13 * bodies);
    record[39 + 4] = kNaN;
    EXPECT_FAIL(wr_sensor_world_rays(multi, record.data(), nullptr, 1, 0, starts.data(), dirs.data()),
                WR_ERROR_INVALID_ARGUMENT, "wr_sensor_world_rays", "body_pose of frame 2");
    CHECK(std::all_of(starts.begin(), starts.end(), [](float v) { return v == 5.0f; }));
    states[13 * (1 * bodies + 3) + 2] = kNaN;
    std::fill(got.begin(), got.end(), 9.0f);
    EXPECT_FAIL(wr_sensor_render_ex(multi, &a), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_render_ex",
                "args->body_poses of env 1, frame 2");
    CHECK(std::all_of(got.begin(), got.end(), [](float v) { return v == 9.0f; }));
  }
  std::vector<float> m(7ull * num_envs, 0.0f);
  wr_render_args c = a;
  c.mounts = m.data();
  EXPECT_FAIL(wr_sensor_render_ex(multi, &c), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_render_ex", "args->mounts",
              "frames");
  c = a;
  c.pose_stride = 40;
  EXPECT_FAIL(wr_sensor_render_ex(multi, &c), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_render_ex", "args->pose_offset",
              "46");
  wr_sensor_release(multi);
  wr_sensor_release(multi_packed);
  wr_ray_sensor_desc too_many = d;
  too_many.num_frames = 9;
  wr_sensor bad = nullptr;
  EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &too_many, nullptr, 1, &bad), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_create_pattern", "desc->num_frames");
  // Frame arrays describe several frames: with one they would be read and not used.
  for (const uint32_t one : {0u, 1u}) {
    wr_ray_sensor_desc single = d;
    single.num_frames = one;
    single.frame_mounts = nullptr;
    EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &single, nullptr, 1, &bad), WR_ERROR_INVALID_ARGUMENT,
                "wr_sensor_create_pattern", "desc->frame_pose_offsets", "num_frames");
    single.frame_pose_offsets = nullptr;
    single.frame_mounts = mounts;
    EXPECT_FAIL(wr_sensor_create_pattern(h.scene, scan.p, &single, nullptr, 1, &bad), WR_ERROR_INVALID_ARGUMENT,
                "wr_sensor_create_pattern", "desc->frame_mounts", "num_frames");
  }
  CHECK(bad == nullptr);
}

TEST_CASE("a LiDAR traced as SIMD packets gives the scalar path's bits on every CPU path and thread count") {
  // One origin, directions turning with the frame, distances: the CPU traces such a sensor's rays
  // as a one-row camera (SIMD packets); through instances too, whose culling by the tile's corners
  // a pattern's neighbours must not get. Every path and thread count gives the same bits.
  const std::string path =
      std::string(std::getenv("WR_SOURCE_DIR") ? std::getenv("WR_SOURCE_DIR") : ".") + "/assets/parkour_small.obj";
  const float box[] = {-0.3f, -0.3f, -0.1f, 0.3f, -0.3f, -0.1f, 0.3f, 0.3f, -0.1f, -0.3f, 0.3f, -0.1f,
                       -0.3f, -0.3f, 0.1f,  0.3f, -0.3f, 0.1f,  0.3f, 0.3f, 0.1f,  -0.3f, 0.3f, 0.1f};
  const uint32_t faces[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                            1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
  const Pattern lidar(lidar_desc(6, -30.0, 10.0, -180.0, 180.0, 3.0));
  const uint32_t num_envs = 5, slots = 3, rays = lidar.size();
  std::vector<float> reference;
  for (const uint32_t threads : {1u, 2u})
    for (const wr_cpu_path cpu_path : {WR_CPU_PATH_SCALAR, WR_CPU_PATH_AVX2, WR_CPU_PATH_AVX512})
      for (const wr_yaw_rule rule : {WR_YAW_MJLAB, WR_YAW_ISAACLAB}) {
        Handles h;
        REQUIRE(wr_context_create_cpu(threads, &h.context) == WR_SUCCESS);
        if (wr_context_set_cpu_path(h.context, cpu_path) != WR_SUCCESS) continue;  // not this CPU's
        wr_scene terrain = nullptr, proto = nullptr;
        REQUIRE(wr_scene_load_obj(h.context, path.c_str(), &terrain) == WR_SUCCESS);
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
        const std::vector<float> poses = body_poses(num_envs, lo, hi, 12);
        std::vector<float> slot_poses;  // boxes around each env: in every direction of the LiDAR
        for (uint32_t e = 0; e < num_envs; ++e)
          for (uint32_t k = 0; k < slots; ++k) {
            const float a = 2.1f * float(k) + 0.3f * float(e);
            slot_poses.insert(slot_poses.end(),
                              {poses[7 * e] + 1.5f * std::cos(a), poses[7 * e + 1] + 1.5f * std::sin(a),
                               poses[7 * e + 2] - 0.3f, 1, 0, 0, 0});
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
          INFO(threads << " threads, path " << int(cpu_path) << ", yaw rule " << int(rule) << ", alignment "
                       << int(alignment));
          if (std::isnan(reference[at])) {  // the first path: the scalar one, one thread
            std::copy(got.begin(), got.end(), reference.begin() + long(at));
            size_t seen = 0;
            for (uint32_t id : ids) seen += id != UINT32_MAX;
            CHECK(seen > 0);  // the boxes are hit: equality means something
          } else {
            for (size_t i = 0; i < got.size(); ++i) CHECK(same_bits(got[i], reference[at + i]));
          }
        }
      }
}
