// The meshes of the sensor tests: subdivided quads, closed subdivided boxes and triangle fans,
// all with shared vertices, so that pixel rays meet vertices and edges shared by several triangles.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "mesh_builders.h"
#include "sensor_poses.h"  // kPi

namespace wr_test::sensor_tests {

using Eigen::Vector3d;

using wr_test::add_split_quad;
using wr_test::Mesh;

// A planar parallelogram corner + s * eu + t * ev (s, t in [0, 1]) split into (nu x nv) quads of two
// triangles each; (nu + 1) x (nv + 1) shared vertices. The diagonals alternate in a checkerboard so
// that rays meet vertices of both valence 4 and valence 8.
inline void add_quad(Mesh& m, const Vector3d& corner, const Vector3d& eu, const Vector3d& ev, int nu, int nv) {
  std::vector<uint32_t> id;
  for (int j = 0; j <= nv; ++j)
    for (int i = 0; i <= nu; ++i) id.push_back(m.vertex(corner + eu * (double(i) / nu) + ev * (double(j) / nv)));
  auto at = [&](int i, int j) { return id[size_t(j) * (nu + 1) + i]; };
  for (int j = 0; j < nv; ++j)
    for (int i = 0; i < nu; ++i)
      add_split_quad(m, at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1), (i + j) % 2 == 0);
}

// The closed surface of the box [lo, hi], each face split into (n x n) quads of two triangles.
// Vertices are shared across faces too (one per surface point of the (n + 1)^3 lattice), so the
// box is watertight at the float level: a face's boundary coordinates are exactly lo / hi.
inline void add_box(Mesh& m, const Vector3d& lo, const Vector3d& hi, int n) {
  const int k = n + 1;
  std::vector<int64_t> id(size_t(k) * k * k, -1);
  auto coord = [&](int axis, int i) {
    return i == 0 ? lo[axis] : i == n ? hi[axis] : lo[axis] + (hi[axis] - lo[axis]) * double(i) / n;
  };
  auto vid = [&](const std::array<int, 3>& c) {
    int64_t& slot = id[(size_t(c[0]) * k + c[1]) * k + c[2]];
    if (slot < 0) slot = m.vertex(Vector3d(coord(0, c[0]), coord(1, c[1]), coord(2, c[2])));
    return uint32_t(slot);
  };
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    for (int side : {0, n}) {
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          std::array<int, 3> p00{}, p10{}, p11{}, p01{};
          p00[a] = p10[a] = p11[a] = p01[a] = side;
          p00[b] = i, p00[c] = j;
          p10[b] = i + 1, p10[c] = j;
          p11[b] = i + 1, p11[c] = j + 1;
          p01[b] = i, p01[c] = j + 1;
          m.triangle(vid(p00), vid(p10), vid(p11));
          m.triangle(vid(p00), vid(p11), vid(p01));
        }
      }
    }
  }
}

// A fan of `spokes` triangles around `centre` in the plane spanned by unit vectors e1, e2: every
// triangle shares the centre vertex, neighbours share a spoke edge. Outer radius `radius`.
inline void add_fan(Mesh& m, const Vector3d& centre, const Vector3d& e1, const Vector3d& e2, int spokes,
                    double radius) {
  const uint32_t c = m.vertex(centre);
  std::vector<uint32_t> rim;
  for (int i = 0; i < spokes; ++i) {
    const double a = 2.0 * kPi * i / spokes;
    rim.push_back(m.vertex(centre + radius * (std::cos(a) * e1 + std::sin(a) * e2)));
  }
  for (int i = 0; i < spokes; ++i) m.triangle(c, rim[i], rim[(i + 1) % spokes]);
}

}  // namespace wr_test::sensor_tests
