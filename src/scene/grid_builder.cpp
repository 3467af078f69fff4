// The grid terrain of a height field (grid_builder.h).
#include "scene/grid_builder.h"

#include <utility>

#include "scene/heightfield.h"

namespace wr {

GridView GridTerrainData::view() const {
  GridView g{};
  static_cast<GridLevels&>(g) = *this;
  g.xs = xs.data();
  g.ys = ys.data();
  g.zs = zs.data();
  g.bounds = bounds.data();
  g.cells_per_x = float(cells_x) / (xs.back() - xs.front());
  g.cells_per_y = float(cells_y) / (ys.back() - ys.front());
  if (has_sides()) g.sides = sides.view();
  g.sides_first = 2 * cells_x * cells_y;
  return g;
}

void GridTerrainData::corner_bounds(float lo[3], float hi[3]) const {
  const GridView g = view();
  float zmin, zmax;
  detail::grid_node_z(g, g.top, 0, 0, &zmin, &zmax);
  const float grid_lo[3] = {xs.front(), ys.front(), zmin}, grid_hi[3] = {xs.back(), ys.back(), zmax};
  for (int a = 0; a < 3; ++a) {
    lo[a] = grid_lo[a], hi[a] = grid_hi[a];
    if (has_sides()) {
      lo[a] = sides.corners_min[a] < lo[a] ? sides.corners_min[a] : lo[a];
      hi[a] = sides.corners_max[a] > hi[a] ? sides.corners_max[a] : hi[a];
    }
  }
}

bool grid_levels(uint32_t cells_x, uint32_t cells_y, GridLevels* levels, uint64_t* nodes) {
  // Level l has grid_level_size(cells, l) nodes a side; the top has one.
  GridLevels v{};
  v.cells_x = cells_x, v.cells_y = cells_y;
  *nodes = 0;
  while (grid_level_size(cells_x, v.top) > 1 || grid_level_size(cells_y, v.top) > 1) {
    if (++v.top == kMaxGridLevels) return false;
    v.level_offset[v.top] = static_cast<uint32_t>(*nodes);
    *nodes += uint64_t(grid_level_size(cells_x, v.top)) * grid_level_size(cells_y, v.top);
  }
  *levels = v;
  return true;
}

bool build_grid_terrain(const char* function, const wr_heightfield_desc& d, const BvhBuildOptions& sides_options,
                        GridTerrainData* out) {
  check_heightfield(function, d);
  const uint64_t nx = d.num_x, ny = d.num_y;
  GridTerrainData g(sides_options.ledger);
  uint64_t nodes = 0;
  if (!grid_levels(d.num_x - 1, d.num_y - 1, &g, &nodes)) return false;
  g.xs.resize(nx);
  g.ys.resize(ny);
  g.zs.resize(nx * ny);
  for (uint64_t iy = 0; iy < ny; ++iy)
    for (uint64_t ix = 0; ix < nx; ++ix) {
      float p[3];
      heightfield_sample(function, d, ix, iy, p);  // the BVH's vertex, bit for bit
      if (iy == 0) g.xs[ix] = p[0];
      if (ix == 0) g.ys[iy] = p[1];
      g.zs[iy * nx + ix] = p[2];
    }
  // Strictly increasing columns and rows give every cell triangle a non-zero xy area: its cross
  // product's z, -(x1 - x0)(y1 - y0), is not 0 in double (zero_area_triangle.h's rule).
  for (uint64_t ix = 0; ix + 1 < nx; ++ix)
    if (!(g.xs[ix] < g.xs[ix + 1])) return false;
  for (uint64_t iy = 0; iy + 1 < ny; ++iy)
    if (!(g.ys[iy] < g.ys[iy + 1])) return false;

  g.bounds.resize(2 * nodes);
  for (uint32_t l = 1; l <= g.top; ++l) {
    const uint32_t w = grid_level_size(g.cells_x, l), h = grid_level_size(g.cells_y, l);
    const uint32_t cw = grid_level_size(g.cells_x, l - 1), ch = grid_level_size(g.cells_y, l - 1);
    for (uint32_t j = 0; j < h; ++j)
      for (uint32_t i = 0; i < w; ++i) {
        float lo = g.zs[0], hi = lo;  // overwritten: every node has a child
        bool first = true;
        const auto grow = [&](float zlo, float zhi) {
          lo = first || zlo < lo ? zlo : lo;
          hi = first || zhi > hi ? zhi : hi;
          first = false;
        };
        for (uint32_t cj = 2 * j; cj < 2 * j + 2 && cj < ch; ++cj)
          for (uint32_t ci = 2 * i; ci < 2 * i + 2 && ci < cw; ++ci) {
            if (l == 1) {  // a cell: its four corners
              for (uint64_t y = cj; y <= cj + 1ull; ++y)
                for (uint64_t x = ci; x <= ci + 1ull; ++x) grow(g.zs[y * nx + x], g.zs[y * nx + x]);
            } else {
              const uint64_t child = g.node_index(l - 1, ci, cj);
              grow(g.bounds[2 * child], g.bounds[2 * child + 1]);
            }
          }
        const uint64_t node = g.node_index(l, i, j);
        g.bounds[2 * node] = lo;
        g.bounds[2 * node + 1] = hi;
      }
  }

  if (d.base_depth > 0.0f) {
    const Mesh sides = heightfield_sides(function, d);
    g.sides = build_bvh(sides.vertices.data(), sides.indices.data(), sides.num_triangles(), sides_options);
  }
  *out = std::move(g);
  return true;
}

}  // namespace wr
