// The benchmarks' extreme-parkour-sized height field (bench_grid_terrain.cpp, bench_grid_scenes.cpp):
// 10 x 40 tiles of 18 x 4 m and a 5 m border at 0.05 m, 3801 x 3401 samples (25.8 M triangles),
// its tiles flat, stairs, pits, slopes and blocks with a few centimetres of noise (a stand-in for
// legged_gym's generator: the same size and kinds of features), and random poses over it.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

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

}  // namespace wr_bench
