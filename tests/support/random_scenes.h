// Random triangle scenes shared by the BVH tests, and random cameras among them (tests only).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace wr_test {

struct SoupScene {
  std::vector<float> vertices;    // (num_vertices x 3)
  std::vector<uint32_t> indices;  // (num_triangles x 3)
  uint64_t num_triangles() const { return indices.size() / 3; }
};

// num_triangles random triangles in a cube of side `extent`: a mix of small, large and
// sliver triangles, some degenerate ones, and some sharing vertices.
inline SoupScene random_soup(uint32_t seed, uint32_t num_triangles, float extent = 10.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-extent / 2, extent / 2), off(-1, 1), unit(0, 1);
  SoupScene s;
  for (uint32_t t = 0; t < num_triangles; ++t) {
    const float size = unit(rng) < 0.1f ? extent * 0.3f : extent * 0.02f;
    const float cx = pos(rng), cy = pos(rng), cz = pos(rng);
    const uint32_t base = static_cast<uint32_t>(s.vertices.size() / 3);
    const int kind = static_cast<int>(unit(rng) * 10);
    for (int c = 0; c < 3; ++c) {
      float dx = off(rng) * size, dy = off(rng) * size, dz = off(rng) * size;
      if (kind == 0 && c == 2) {  // sliver: third corner almost on the first edge
        dx = s.vertices[3 * base + 3] * 0.5f - cx * 0.5f + 1e-4f;
        dy = s.vertices[3 * base + 4] * 0.5f - cy * 0.5f;
        dz = s.vertices[3 * base + 5] * 0.5f - cz * 0.5f;
      }
      s.vertices.insert(s.vertices.end(), {cx + dx, cy + dy, cz + dz});
    }
    if (kind == 1) {  // degenerate: repeated index
      s.indices.insert(s.indices.end(), {base, base, base + 1});
    } else if (kind == 2 && t > 0) {  // shares an edge with the previous triangle
      s.indices.insert(s.indices.end(), {base - 3, base - 2, base});
    } else {
      s.indices.insert(s.indices.end(), {base, base + 1, base + 2});
    }
  }
  return s;
}

// A bumpy heightfield of (n x n) quads over [0, size]^2 (2 n^2 triangles).
inline SoupScene random_heightfield(uint32_t seed, uint32_t n, float size) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> h(0, 0.5f);
  SoupScene s;
  for (uint32_t j = 0; j <= n; ++j)
    for (uint32_t i = 0; i <= n; ++i)
      s.vertices.insert(s.vertices.end(), {size * i / n, size * j / n, h(rng) + ((i / 8 + j / 8) % 2) * 0.4f});
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      s.indices.insert(s.indices.end(), {a, b, d, a, d, c});
    }
  return s;
}

// Bounds of a (n x 3) vertex array.
inline void vertex_bounds(const std::vector<float>& vertices, float lo[3], float hi[3]) {
  for (int k = 0; k < 3; ++k) lo[k] = 1e30f, hi[k] = -1e30f;
  for (size_t i = 0; i < vertices.size(); ++i) {
    lo[i % 3] = std::fmin(lo[i % 3], vertices[i]);
    hi[i % 3] = std::fmax(hi[i % 3], vertices[i]);
  }
}

// (n x 7) body poses (x y z, w x y z): positions uniform in [lo, hi]^3, orientations uniform
// (a normalised Gaussian 4-vector; the library normalises the quaternion itself).
inline std::vector<float> random_poses_in_box(uint32_t seed, uint32_t n, const float lo[3], const float hi[3]) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g;
  std::vector<float> p;
  for (uint32_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) p.push_back(std::uniform_real_distribution<float>(lo[k], hi[k])(rng));
    for (int k = 0; k < 4; ++k) p.push_back(g(rng));
  }
  return p;
}

}  // namespace wr_test
