// The grid kind of a grid-topology mesh (grid_mesh_builder.h).
#include "scene/grid_mesh_builder.h"

#include <string>
#include <utility>

#include "scene/grid_builder.h"
#include "scene/zero_area_triangle.h"

namespace wr {

GridMeshView GridMeshData::view() const {
  GridMeshView g{};
  static_cast<GridLevels&>(g) = *this;
  g.vertices = vertices.data();
  g.boxes = boxes.data();
  g.reach = reach.data();
  g.zero_area = zero_area.empty() ? nullptr : zero_area.data();
  return g;
}

bool build_grid_mesh_terrain(const float* vertices, uint64_t num_vertices, const uint32_t* indices,
                             uint64_t num_triangles, GridMeshData* out, MemoryLedger* ledger, std::string* why) {
  const auto refuse = [why](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  // Triangle 0 is (v(0, 0), v(1, 1), v(0, 1)) = (0, cols + 1, 1): it names cols.
  if (num_triangles < 2) return refuse("a grid has at least 2 triangles");
  if (indices[0] != 0 || indices[2] != 1 || indices[1] < 3)
    return refuse("triangle 0 is not (0, cols + 1, 1), a grid's first triangle");
  const uint64_t cols = uint64_t(indices[1]) - 1;
  if (num_vertices % cols != 0)
    return refuse("num_vertices = " + std::to_string(num_vertices) + " is not a multiple of the " +
                  std::to_string(cols) + " columns triangle 0 names");
  const uint64_t rows = num_vertices / cols;
  if (rows < 2 || num_triangles != 2 * (rows - 1) * (cols - 1))
    return refuse("num_triangles = " + std::to_string(num_triangles) + " is not 2 (rows - 1)(cols - 1) of " +
                  std::to_string(rows) + " x " + std::to_string(cols) + " vertices");
  if (rows - 1 > (1u << (kMaxGridLevels - 1)) || cols - 1 > (1u << (kMaxGridLevels - 1)))
    return refuse("more than 2^23 cells lie along a side");
  const auto v = [cols](uint64_t r, uint64_t c) { return static_cast<uint32_t>(r * cols + c); };
  GridMeshData g(ledger);
  g.zero_area.assign((num_triangles + 31) / 32, 0u);
  bool any_zero_area = false;
  for (uint64_t r = 0; r + 1 < rows; ++r)
    for (uint64_t c = 0; c + 1 < cols; ++c) {
      const uint32_t* t = indices + 6 * (r * (cols - 1) + c);
      if (t[0] != v(r, c) || t[1] != v(r + 1, c + 1) || t[2] != v(r, c + 1) || t[3] != v(r, c) || t[4] != v(r + 1, c) ||
          t[5] != v(r + 1, c + 1))
        return refuse("triangles " + std::to_string(2 * (r * (cols - 1) + c)) + " and " +
                      std::to_string(2 * (r * (cols - 1) + c) + 1) + " are not cell (" + std::to_string(r) + ", " +
                      std::to_string(c) + ")'s (v(r, c), v(r + 1, c + 1), v(r, c + 1)), (v(r, c), v(r + 1, c), " +
                      "v(r + 1, c + 1))");
      for (int k = 0; k < 2; ++k)
        if (triangle_has_zero_area(vertices + 3 * uint64_t(t[3 * k]), vertices + 3 * uint64_t(t[3 * k + 1]),
                                   vertices + 3 * uint64_t(t[3 * k + 2]))) {
          const uint64_t id = 2 * (r * (cols - 1) + c) + k;
          g.zero_area[id / 32] |= 1u << (id % 32);
          any_zero_area = true;
        }
    }
  if (!any_zero_area) {
    g.zero_area.clear();
    g.zero_area.shrink_to_fit();
  }

  uint64_t nodes = 0;
  if (!grid_levels(static_cast<uint32_t>(rows - 1), static_cast<uint32_t>(cols - 1), &g, &nodes)) return false;
  g.vertices.assign(vertices, vertices + 3 * num_vertices);
  // Reach: each cell row's x extent (its two vertex rows'), then the running max of the maxima
  // and the running min (from the end) of the minima; likewise for cell columns in y.
  g.reach.resize(2 * (uint64_t(g.cells_x) + g.cells_y));
  const auto fill_reach = [&](uint32_t n, uint64_t lines, uint64_t along, int axis, bool by_row, float* out) {
    std::vector<float> lo(lines), hi(lines);
    for (uint64_t l = 0; l < lines; ++l) {
      lo[l] = hi[l] = vertices[3 * (by_row ? l * cols : l) + axis];
      for (uint64_t k = 1; k < along; ++k) {
        const float x = vertices[3 * (by_row ? l * cols + k : k * cols + l) + axis];
        lo[l] = x < lo[l] ? x : lo[l];
        hi[l] = x > hi[l] ? x : hi[l];
      }
    }
    for (uint32_t c = 0; c < n; ++c) {
      const float h = hi[c] > hi[c + 1] ? hi[c] : hi[c + 1];
      out[c] = c > 0 && out[c - 1] > h ? out[c - 1] : h;
    }
    for (uint32_t c = n; c-- > 0;) {
      const float l = lo[c] < lo[c + 1] ? lo[c] : lo[c + 1];
      out[n + c] = c + 1 < n && out[n + c + 1] < l ? out[n + c + 1] : l;
    }
  };
  fill_reach(g.cells_x, rows, cols, 0, true, g.reach.data());
  fill_reach(g.cells_y, cols, rows, 1, false, g.reach.data() + 2 * uint64_t(g.cells_x));
  g.boxes.resize(6 * nodes);
  const GridMeshView view = g.view();  // level 0's boxes, from the vertices
  for (uint32_t l = 1; l <= g.top; ++l) {
    const uint32_t w = grid_level_size(g.cells_x, l), h = grid_level_size(g.cells_y, l);
    const uint32_t cw = grid_level_size(g.cells_x, l - 1), ch = grid_level_size(g.cells_y, l - 1);
    for (uint32_t j = 0; j < h; ++j)
      for (uint32_t i = 0; i < w; ++i) {
        float lo[3] = {}, hi[3] = {};  // set by the first child: every node has one
        bool first = true;
        for (uint32_t cj = 2 * j; cj < 2 * j + 2 && cj < ch; ++cj)
          for (uint32_t ci = 2 * i; ci < 2 * i + 2 && ci < cw; ++ci) {
            float bmin[3], bmax[3];
            if (l == 1) {
              detail::grid_node_box(view, 0, ci, cj, bmin, bmax);
            } else {
              const float* b = &g.boxes[6 * g.node_index(l - 1, ci, cj)];
              for (int a = 0; a < 3; ++a) bmin[a] = b[a], bmax[a] = b[3 + a];
            }
            for (int a = 0; a < 3; ++a) {
              lo[a] = first || bmin[a] < lo[a] ? bmin[a] : lo[a];
              hi[a] = first || bmax[a] > hi[a] ? bmax[a] : hi[a];
            }
            first = false;
          }
        float* b = &g.boxes[6 * g.node_index(l, i, j)];
        for (int a = 0; a < 3; ++a) b[a] = lo[a], b[3 + a] = hi[a];
      }
  }
  *out = std::move(g);
  return true;
}

}  // namespace wr
