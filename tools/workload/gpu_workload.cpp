// See gpu_workload.h.
#include "gpu_workload.h"

#include <cmath>

namespace wr_bench {
namespace {

constexpr double kPi = 3.14159265358979323846;

}  // namespace

Mesh generated_terrain(uint32_t n, float cell, int num_boxes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> noise(0.0f, 0.02f), unit(0.0f, 1.0f);
  Mesh m;
  m.vertices.reserve(3 * size_t(n + 1) * (n + 1) + 24 * size_t(num_boxes));
  m.indices.reserve(6 * size_t(n) * n + 36 * size_t(num_boxes));
  auto height = [](float x, float y) {
    float h = 0.3f * std::sin(0.35f * x) * std::cos(0.27f * y) + 0.1f * std::sin(1.7f * x + 0.9f * y);
    switch (int(y / 8.0f) % 3) {
      case 1: h += 0.12f * std::floor(std::fmod(x, 9.6f) / 0.4f); break;
      case 2: h += ((int(x / 1.2f) + int(y / 1.2f)) % 2) * 0.25f; break;
      default: break;
    }
    return h;
  };
  for (uint32_t j = 0; j <= n; ++j)
    for (uint32_t i = 0; i <= n; ++i) {
      const float x = cell * float(i), y = cell * float(j);
      m.vertex(x, y, height(x, y) + noise(rng));
    }
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      m.triangle(a, b, d);
      m.triangle(a, d, c);
    }
  const float size = cell * float(n);
  const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (int k = 0; k < num_boxes; ++k) {
    const float hx = 0.15f + 0.6f * unit(rng), hy = 0.15f + 0.6f * unit(rng), hz = 0.15f + 0.6f * unit(rng);
    const float cx = 1.0f + (size - 2.0f) * unit(rng), cy = 1.0f + (size - 2.0f) * unit(rng);
    const float cz = height(cx, cy) + hz - 0.05f;  // sunk 5 cm into the ground
    const double yaw = 2.0 * kPi * unit(rng), c = std::cos(yaw), s = std::sin(yaw);
    uint32_t v[8];
    for (int i = 0; i < 8; ++i) {
      const double x = (i & 1 ? hx : -hx), y = (i & 2 ? hy : -hy), z = (i & 4 ? hz : -hz);
      v[i] = m.vertex(float(cx + c * x - s * y), float(cy + s * x + c * y), float(cz + z));
    }
    for (const auto& f : faces) {
      m.triangle(v[f[0]], v[f[1]], v[f[2]]);
      m.triangle(v[f[0]], v[f[2]], v[f[3]]);
    }
  }
  return m;
}

void ypr_quat(double yaw, double pitch, double roll, float* q) {
  const double cy = std::cos(yaw / 2), sy = std::sin(yaw / 2), cp = std::cos(pitch / 2), sp = std::sin(pitch / 2),
               cr = std::cos(roll / 2), sr = std::sin(roll / 2);
  q[0] = float(cy * cp * cr + sy * sp * sr);
  q[1] = float(cy * cp * sr - sy * sp * cr);
  q[2] = float(cy * sp * cr + sy * cp * sr);
  q[3] = float(sy * cp * cr - cy * sp * sr);
}

std::vector<float> robot_poses(const std::vector<float>& ground, uint32_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<float> poses(7 * size_t(n));
  for (uint32_t i = 0; i < n; ++i) {
    float* p = &poses[7 * size_t(i)];
    p[0] = ground[3 * size_t(i)];
    p[1] = ground[3 * size_t(i) + 1];
    p[2] = ground[3 * size_t(i) + 2] + float(0.3 + 0.4 * unit(rng));
    ypr_quat(2.0 * kPi * unit(rng), (15.0 + 30.0 * unit(rng)) * kPi / 180.0, (unit(rng) - 0.5) * 10.0 * kPi / 180.0,
             p + 3);
  }
  return poses;
}

}  // namespace wr_bench
