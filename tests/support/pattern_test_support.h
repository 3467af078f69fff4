// What the pattern sensors' tests share (tests/sensor/test_ray_pattern.cpp, test_pattern_alignment.cpp,
// test_pattern_hits.cpp, test_pattern_sensor.cpp; one program, test_pattern_sensor): a pattern
// handle, the descs of the usual patterns, NumPy's arange and linspace as the peers' formulas use
// them, poses, a plane scene and the handles of a context, scene and sensor.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "backend_under_test.h"

namespace wr_test::patterns {

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

inline wr_pattern_desc grid_desc(double sx, double sy, double res) {
  wr_pattern_desc d;
  wr_pattern_desc_init(&d);
  d.kind = WR_PATTERN_GRID;
  d.grid_size[0] = sx, d.grid_size[1] = sy;
  d.grid_resolution = res;
  return d;
}

inline wr_pattern_desc lidar_desc(uint32_t channels, double v0, double v1, double h0, double h1, double res) {
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
inline std::vector<float> arange(double start, double end, double step) {
  std::vector<float> v;
  const auto n = static_cast<size_t>(std::ceil((end - start) / step));
  for (size_t k = 0; k < n; ++k) v.push_back(static_cast<float>(start + step * double(k)));
  return v;
}

// torch.linspace(a, b, n) in double.
inline std::vector<double> linspace(double a, double b, size_t n) {
  std::vector<double> v;
  for (size_t k = 0; k < n; ++k) v.push_back(n == 1 ? a : a + (b - a) * double(k) / double(n - 1));
  return v;
}

inline constexpr double kDeg = 3.14159265358979323846 / 180.0;

inline bool cuda_under_test() { return wr_test::backend_under_test() == wr_test::Backend::kCuda; }
// A unit quaternion (w, x, y, z) from roll, pitch, yaw (radians): Rz(yaw) Ry(pitch) Rx(roll).
inline std::array<double, 4> quat_rpy(double roll, double pitch, double yaw) {
  const double cr = std::cos(roll / 2), sr = std::sin(roll / 2), cp = std::cos(pitch / 2), sp = std::sin(pitch / 2);
  const double cy = std::cos(yaw / 2), sy = std::sin(yaw / 2);
  return {cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
          cr * cp * sy - sr * sp * cy};
}

// A scene made on `context` of a flat square [-s, s]^2 at height z (two triangles).
inline wr_scene plane_scene(wr_context context, float s, float z) {
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

// Random body poses over [lo, hi] (z from lo[2] + 0.3 to hi[2] + 1.5), rolled and pitched to +-30
// degrees, any heading; (num_envs x 7), w, x, y, z.
inline std::vector<float> body_poses(uint32_t num_envs, const float lo[3], const float hi[3], unsigned seed) {
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

// The reference of a pattern sensor's hits: every env's world rays (wr_sensor_world_rays, frame 0,
// the desc's mounts) traced by wr_scene_intersect_ex on `scene` (a CPU scene of the same arrays),
// with the env's slot poses ((num_envs x slots x 7), or empty) and exclusion. `rays` per env.
struct ExplicitHits {
  std::vector<float> org, dir, t;            // (num_envs x rays x 3), twice; (num_envs x rays)
  std::vector<uint32_t> triangle, instance;  // (num_envs x rays)
};
inline ExplicitHits explicit_hits(wr_sensor sensor, wr_scene scene, const std::vector<float>& poses, size_t rays,
                                  const std::vector<float>& slot_poses, uint32_t exclude_groups, float max_distance) {
  const uint32_t num_envs = uint32_t(poses.size() / 7);
  const size_t count = size_t(num_envs) * rays;
  ExplicitHits h{std::vector<float>(3 * count), std::vector<float>(3 * count), std::vector<float>(count),
                 std::vector<uint32_t>(count), std::vector<uint32_t>(count)};
  for (uint32_t e = 0; e < num_envs; ++e)
    REQUIRE(wr_sensor_world_rays(sensor, &poses[7ull * e], nullptr, e, 0, &h.org[3 * rays * e], &h.dir[3 * rays * e]) ==
            WR_SUCCESS);
  const std::vector<float> tmax(count, max_distance);
  wr_intersect_args x;
  wr_intersect_args_init(&x);
  x.origins = h.org.data();
  x.directions = h.dir.data();
  x.tmax = tmax.data();
  x.count = count;
  x.num_envs = num_envs;
  x.instance_poses = slot_poses.empty() ? nullptr : slot_poses.data();
  x.exclude_groups = exclude_groups;
  x.out_t = h.t.data();
  x.out_triangle = h.triangle.data();
  x.out_instance = h.instance.data();
  REQUIRE(wr_scene_intersect_ex(scene, &x) == WR_SUCCESS);
  return h;
}

}  // namespace wr_test::patterns
