// legged_gym's terrain meshing, reimplemented for the tests and benchmarks of the grid terrain kind
// (src/core/grid_mesh_terrain.h): the meshes users train on. Header only, standard library only.
#pragma once

#include <cstdint>
#include <vector>

#include "triangle_mesh.h"

namespace wr_tools {

// legged_gym's height_field_raw: (rows x cols) int16, row r at x = r horizontal_scale.
struct RawField {
  uint32_t rows, cols;
  std::vector<int16_t> h;  // row-major
  int16_t at(uint32_t r, uint32_t c) const { return h[size_t(r) * cols + c]; }
};

// convert_heightfield_to_trimesh(height_field_raw, horizontal_scale, vertical_scale,
// slope_threshold), reimplemented from its published source: isaacgym's terrain_utils.py, which
// legged_gym's legged_gym/utils/terrain.py calls (IsaacLab's convert_height_field_to_mesh in
// isaaclab/terrains/height_field/utils.py is the same algorithm). A vertex moves one cell in x (y)
// towards a neighbour whose height rises by more than slope_threshold * horizontal_scale /
// vertical_scale units, and diagonally where neither x nor y moved it; coordinates in double,
// stored as float32 as numpy does. Cell (r, c) gives triangles (v(r, c), v(r + 1, c + 1),
// v(r, c + 1)) and (v(r, c), v(r + 1, c), v(r + 1, c + 1)). slope_threshold < 0: None.
inline TriangleMesh convert_heightfield_to_trimesh(const RawField& f, double horizontal_scale, double vertical_scale,
                                                   double slope_threshold) {
  const uint32_t R = f.rows, C = f.cols;
  std::vector<double> move_x(size_t(R) * C, 0.0), move_y(move_x), move_c(move_x);
  const auto idx = [C](uint32_t r, uint32_t c) { return size_t(r) * C + c; };
  if (slope_threshold >= 0) {
    const double s = slope_threshold * horizontal_scale / vertical_scale;
    for (uint32_t r = 0; r < R; ++r)
      for (uint32_t c = 0; c < C; ++c) {
        if (r + 1 < R && f.at(r + 1, c) - f.at(r, c) > s) move_x[idx(r, c)] += 1;
        if (r >= 1 && f.at(r - 1, c) - f.at(r, c) > s) move_x[idx(r, c)] -= 1;
        if (c + 1 < C && f.at(r, c + 1) - f.at(r, c) > s) move_y[idx(r, c)] += 1;
        if (c >= 1 && f.at(r, c - 1) - f.at(r, c) > s) move_y[idx(r, c)] -= 1;
        if (r + 1 < R && c + 1 < C && f.at(r + 1, c + 1) - f.at(r, c) > s) move_c[idx(r, c)] += 1;
        if (r >= 1 && c >= 1 && f.at(r - 1, c - 1) - f.at(r, c) > s) move_c[idx(r, c)] -= 1;
      }
  }
  TriangleMesh m;
  m.vertices.resize(size_t(R) * C * 3);
  for (uint32_t r = 0; r < R; ++r)
    for (uint32_t c = 0; c < C; ++c) {
      const size_t k = idx(r, c);
      double x = r * horizontal_scale, y = c * horizontal_scale;  // np.linspace(0, (n - 1) scale, n)
      x += (move_x[k] + move_c[k] * (move_x[k] == 0)) * horizontal_scale;
      y += (move_y[k] + move_c[k] * (move_y[k] == 0)) * horizontal_scale;
      m.vertices[3 * k] = float(x);
      m.vertices[3 * k + 1] = float(y);
      m.vertices[3 * k + 2] = float(f.at(r, c) * vertical_scale);
    }
  for (uint32_t r = 0; r + 1 < R; ++r)
    for (uint32_t c = 0; c + 1 < C; ++c) {
      const uint32_t i0 = r * C + c, i1 = i0 + 1, i2 = i0 + C, i3 = i2 + 1;
      m.indices.insert(m.indices.end(), {i0, i3, i1, i0, i2, i3});
    }
  return m;
}

}  // namespace wr_tools
