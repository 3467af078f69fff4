// The meshes and body poses the CUDA backend tests render (test_cuda_*.cpp): a bumpy
// heightfield with boxes on it, and random body poses of every awkward kind.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "mesh_builders.h"

namespace wr_test::cuda_tests {

using Eigen::AngleAxisd;
using Eigen::Quaterniond;
using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;

using wr_test::Scene;

// ---- meshes -------------------------------------------------------------------------------------

using wr_test::add_split_quad;
using wr_test::Mesh;

// A closed box (8 shared vertices, 12 triangles) with centre (cx, cy, cz), half extents
// (hx, hy, hz), turned by `yaw` radians about +Z.
inline void add_box(Mesh& m, float cx, float cy, float cz, float hx, float hy, float hz, double yaw) {
  const double c = std::cos(yaw), s = std::sin(yaw);
  uint32_t v[8];
  for (int i = 0; i < 8; ++i) {
    const double x = (i & 1 ? hx : -hx), y = (i & 2 ? hy : -hy), z = (i & 4 ? hz : -hz);
    v[i] = m.vertex(float(cx + c * x - s * y), float(cy + s * x + c * y), float(cz + z));
  }
  const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& f : faces) {
    m.triangle(v[f[0]], v[f[1]], v[f[2]]);
    m.triangle(v[f[0]], v[f[2]], v[f[3]]);
  }
}

// A bumpy heightfield of (n x n) quads of 0.5 m over [0, n/2]^2 with terraced steps, plus
// boxes standing on it, some turned. 2 n^2 + 12 * num_boxes triangles.
inline Mesh heightfield_with_boxes(uint32_t seed, uint32_t n = 24, int num_boxes = 12) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> noise(0.0f, 0.15f), unit(0.0f, 1.0f);
  Mesh m;
  const float cell = 0.5f;
  for (uint32_t j = 0; j <= n; ++j)
    for (uint32_t i = 0; i <= n; ++i) {
      const float x = cell * float(i), y = cell * float(j);
      float h = 0.4f * std::sin(0.7f * x) * std::cos(0.5f * y) + noise(rng);
      if (x > 6.0f) h += 0.25f * std::floor((x - 6.0f) / 1.5f);  // stairs up along +X
      m.vertex(x, y, h);
    }
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      add_split_quad(m, a, b, d, c, (i + j) % 2 != 0);
    }
  const float size = cell * float(n);
  for (int b = 0; b < num_boxes; ++b) {
    const float hx = 0.15f + 0.6f * unit(rng), hy = 0.15f + 0.6f * unit(rng), hz = 0.1f + 0.8f * unit(rng);
    const float x = 1.0f + (size - 2.0f) * unit(rng), y = 1.0f + (size - 2.0f) * unit(rng);
    add_box(m, x, y, 0.3f + hz, hx, hy, hz, b % 3 == 0 ? 0.0 : 2.0 * kPi * unit(rng));
  }
  return m;
}

inline Scene make_scene(wr_context context, const Mesh& m) {
  wr_scene s = nullptr;
  REQUIRE_OK(wr_scene_create(context, m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles(), &s));
  return Scene(s);
}

// ---- poses --------------------------------------------------------------------------------------

inline double deg(double d) { return d * kPi / 180.0; }

// Yaw about world +Z, then pitch about the new +Y (positive looks DOWN), then roll about +X.
inline Quaterniond ypr(double yaw_deg, double pitch_deg, double roll_deg) {
  return Quaterniond(AngleAxisd(deg(yaw_deg), Vector3d::UnitZ()) * AngleAxisd(deg(pitch_deg), Vector3d::UnitY()) *
                     AngleAxisd(deg(roll_deg), Vector3d::UnitX()));
}

// Writes (w, x, y, z) in `order`.
inline void put_quat(float* out, float w, float x, float y, float z, wr_quat_order order) {
  if (order == WR_QUAT_WXYZ) {
    out[0] = w, out[1] = x, out[2] = y, out[3] = z;
  } else {
    out[0] = x, out[1] = y, out[2] = z, out[3] = w;
  }
}

using PositionSampler = std::function<Vector3d(std::mt19937&)>;

// (n x 7) body poses: positions from `position`, orientations a mix of
//   - uniformly random rotations, the quaternion scaled by a random factor (not unit);
//   - steep ones: pitch within 15 degrees of straight up or down, any roll;
//   - exact axis-aligned ones from integer quaternions such as (1, 0, 1, 0): the library
//     normalises, and with these the rotation matrix comes out exactly (0, +-1 entries), so
//     rays along the optical axis are exactly parallel to world axes (the 0 * inf slabs of the
//     ray/box test);
//   - ordinary robot-like ones: pitch -30..60 degrees, roll within 20 degrees.
inline std::vector<float> random_poses(std::mt19937& rng, uint32_t n, wr_quat_order order,
                                       const PositionSampler& position) {
  std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0);
  static const float kExact[][4] = {{1, 0, 1, 0}, {1, 0, -1, 0}, {0, 1, 0, 0}, {1, 0, 0, 1},
                                    {3, 0, 0, 0}, {1, 1, 0, 0},  {0, 0, 0, 2}, {0, 0, 1, 0}};
  std::vector<float> poses(7 * size_t(n));
  for (uint32_t e = 0; e < n; ++e) {
    float* p = &poses[7 * size_t(e)];
    const Vector3d pos = position(rng);
    p[0] = float(pos.x()), p[1] = float(pos.y()), p[2] = float(pos.z());
    const int kind = int(unit(rng) * 4.0);
    if (kind == 2) {
      const float* q = kExact[size_t(unit(rng) * 8.0) % 8];
      put_quat(p + 3, q[0], q[1], q[2], q[3], order);
      continue;
    }
    Quaterniond q;
    double scale = 1.0;
    if (kind == 0) {  // uniform over rotations (Shoemake, "Uniform random rotations", Graphics Gems III)
      const double u1 = unit(rng), u2 = 2.0 * kPi * unit(rng), u3 = 2.0 * kPi * unit(rng);
      q = Quaterniond(std::sqrt(u1) * std::cos(u3), std::sqrt(1.0 - u1) * std::sin(u2),
                      std::sqrt(1.0 - u1) * std::cos(u2), std::sqrt(u1) * std::sin(u3));
      scale = 0.3 + 2.7 * unit(rng);
    } else if (kind == 1) {
      const double pitch = (unit(rng) < 0.5 ? -1.0 : 1.0) * (75.0 + 15.0 * unit(rng));
      q = ypr(180.0 * sym(rng), pitch, 180.0 * sym(rng));
    } else {
      q = ypr(180.0 * sym(rng), -30.0 + 90.0 * unit(rng), 20.0 * sym(rng));
    }
    put_quat(p + 3, float(q.w() * scale), float(q.x() * scale), float(q.y() * scale), float(q.z() * scale), order);
  }
  return poses;
}

}  // namespace wr_test::cuda_tests
