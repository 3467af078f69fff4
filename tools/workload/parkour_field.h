// The extreme-parkour-sized height field of the grid terrain kinds' benchmarks
// (benchmarks/bench_grid_terrain.cpp, bench_grid_scenes.cpp) and of their GPU cost model
// (wr-warp-model --grid-kinds): 10 x 40 tiles of 18 x 4 m and a 5 m border at 0.05 m, 3801 x 3401
// samples (25.8 M triangles), its tiles flat, stairs, pits, slopes and blocks with a few
// centimetres of noise (a stand-in for legged_gym's generator: the same size and kinds of
// features), random poses over it, and the rays those programs trace over it: the parkour camera
// and IsaacLab's height scan, so that the benchmark and the model measure the very same workload.
#pragma once

#include <wr/wr.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "legged_gym_trimesh.h"

namespace wr_bench {

constexpr uint32_t kNx = 3801, kNy = 3401;
constexpr float kSpacing = 0.05f;

// Metres of height at (x, y) metres: the tile's feature plus noise. Tiles of 18 x 4 m from
// (5, 5) m on; the border is flat.
inline float parkour_height(float x, float y, uint32_t ix, uint32_t iy) {
  const uint32_t h = (ix * 73856093u) ^ (iy * 19349663u);
  const float noise = 0.02f * (float((h >> 8) & 1023u) / 1023.0f - 0.5f);
  const float u = x - 5.0f, v = y - 5.0f;
  if (u < 0 || v < 0 || u >= 180.0f || v >= 160.0f) return noise;
  const int tx = int(u / 18.0f), ty = int(v / 4.0f);
  const float lu = u - 18.0f * float(tx);  // along the tile
  switch ((tx * 7 + ty * 3) % 5) {
    case 0: return noise;
    case 1: return 0.15f * std::floor(lu / 0.35f) * (lu < 9.0f ? 1.0f : 0.0f) + noise;  // stairs up
    case 2: return (int(lu / 1.5f) % 3 == 2 ? -1.0f : 0.0f) + noise;                    // pits
    case 3: return 0.18f * lu + noise;                                                  // a slope
    default: return (int(lu / 2.0f) % 2 ? 0.45f : 0.0f) + noise;                        // blocks
  }
}

// A random pose over the tiles: position, yaw.
struct Pose {
  float x, y, yaw;
};
inline std::vector<Pose> poses(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> x(6.0f, 184.0f), y(6.0f, 164.0f), yaw(-3.14159f, 3.14159f);
  std::vector<Pose> p(n);
  for (Pose& q : p) q = Pose{x(rng), y(rng), yaw(rng)};
  return p;
}

// The field's samples, x fastest (MuJoCo's order): (kNy x kNx) metres.
inline const std::vector<float>& parkour_heights() {
  static const std::vector<float> h = [] {
    std::vector<float> v(size_t(kNx) * kNy);
    for (uint32_t iy = 0; iy < kNy; ++iy)
      for (uint32_t ix = 0; ix < kNx; ++ix)
        v[size_t(iy) * kNx + ix] = parkour_height(float(ix) * kSpacing, float(iy) * kSpacing, ix, iy);
    return v;
  }();
  return h;
}

// legged_gym's mesh of the field (convert_heightfield_to_trimesh, slope threshold 0.75): heights
// in units of 0.005 m, rows along x.
inline const wr_tools::TriangleMesh& parkour_legged_gym_mesh() {
  static const wr_tools::TriangleMesh m = [] {
    wr_tools::RawField raw{kNx, kNy, std::vector<int16_t>(size_t(kNx) * kNy)};
    for (uint32_t r = 0; r < kNx; ++r)
      for (uint32_t c = 0; c < kNy; ++c)
        raw.h[size_t(r) * kNy + c] =
            int16_t(std::lround(parkour_height(float(r) * kSpacing, float(c) * kSpacing, r, c) / 0.005f));
    return wr_tools::convert_heightfield_to_trimesh(raw, kSpacing, 0.005, 0.75);
  }();
  return m;
}

// The parkour camera: 106 x 60, 87 degrees, far clip 10 m (misses read 10), pitched 0.5 rad down.
inline wr_status parkour_camera(wr_camera_desc* d) {
  wr_camera_desc_pinhole(d, 106, 60, 87.0f);
  d->far_clip = 10.0f;
  d->miss_value = 10.0f;
  return wr_camera_desc_set_mount_angles(d, 0.5f * 180.0f / 3.14159265f, 0.0f, 0.0f);
}

// (n x 7) body poses (x, y, z, then the w, x, y, z quaternion) of the camera's n envs: 1.6 m over
// the field, yawed.
inline std::vector<float> parkour_camera_poses(int n) {
  std::vector<float> out;
  for (const Pose& p : poses(n, 1)) {
    const float z = 1.6f + parkour_height(p.x, p.y, 0, 0);
    out.insert(out.end(), {p.x, p.y, z, std::cos(0.5f * p.yaw), 0.0f, 0.0f, std::sin(0.5f * p.yaw)});
  }
  return out;
}

// IsaacLab's height scan (GridPatternCfg(resolution=0.1, size=[1.6, 1.0]): 11 x 17 = 187 vertical
// rays from 20 m up, yaw-aligned) of n envs: origins and directions, (n x 187 x 3) each.
inline void parkour_height_scan(int n, std::vector<float>* origins, std::vector<float>* directions) {
  for (const Pose& p : poses(n, 2)) {
    const float cy = std::cos(p.yaw), sy = std::sin(p.yaw);
    for (int j = 0; j < 11; ++j)
      for (int i = 0; i < 17; ++i) {
        const float lx = -0.8f + 0.1f * float(i), ly = -0.5f + 0.1f * float(j);
        origins->insert(origins->end(), {p.x + cy * lx - sy * ly, p.y + sy * lx + cy * ly, 20.0f});
        directions->insert(directions->end(), {0.0f, 0.0f, -1.0f});
      }
  }
}

}  // namespace wr_bench
