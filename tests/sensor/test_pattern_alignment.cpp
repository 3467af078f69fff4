// A pattern sensor's world rays (wr_sensor_world_rays, the bits its render traces) against IsaacLab's
// base/yaw/world rules (ray_caster.py: quat_apply, quat_apply_yaw, with the pattern-frame offset) and
// mjlab's (_compute_alignment_rotation, its yaw's +Y fallback), reimplemented here, at 10^4 random
// poses (roll and pitch to +-60 degrees, and near +-90 degrees of pitch).
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

// The length of (x, y). Not std::hypot: glibc 2.35 versioned hypot anew, and the GPU bundle
// (scripts/gpu-bundle.sh) may need at most GLIBC_2.34; at these magnitudes sqrt loses nothing.
double norm_xy(double x, double y) { return std::sqrt(x * x + y * y); }

// mjlab's _compute_alignment_rotation("yaw") of the rotation of q.
std::array<double, 9> mjlab_yaw(const std::array<double, 4>& q) {
  const std::array<double, 3> ex = quat_apply(q, {1, 0, 0}), ey = quat_apply(q, {0, 1, 0});
  double x = ex[0], y = ex[1], n = norm_xy(x, y);
  if (n < 0.1) {
    const double m = std::max(norm_xy(ey[0], ey[1]), 1e-6);
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
        const double proj = norm_xy(quat_apply(qf, {1, 0, 0})[0], quat_apply(qf, {1, 0, 0})[1]);
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
