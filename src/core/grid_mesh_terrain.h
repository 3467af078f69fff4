// The grid kind for grid-topology meshes (terrain.h): the triangle meshes legged_gym's and
// IsaacLab's convert_heightfield_to_trimesh return, taken as they are, traced through their grid
// with the walk of grid_terrain.h, the same hits as a BVH over the same arrays, bit for bit.
//
// Such a mesh keeps a grid's topology but not its geometry: with a slope threshold, vertices move
// by one cell in x or y to make vertical walls (legged_gym: terrain_utils.py,
// convert_heightfield_to_trimesh; Rudin et al., "Learning to Walk in Minutes Using Massively
// Parallel Deep Reinforcement Learning", CoRL 2021). So the vertices are kept as given, a cell's
// box is that of its own four vertices, and every node above keeps its whole box.
//
// Layout (what scene/grid_mesh_builder.cpp recognises): rows x cols vertices, vertex (r, c) at
// r cols + c; cell (r, c) of (rows - 1) x (cols - 1) holds triangles 2 (r (cols - 1) + c) + 0 =
// (v(r, c), v(r + 1, c + 1), v(r, c + 1)) and + 1 = (v(r, c), v(r + 1, c), v(r + 1, c + 1)), in
// that vertex order. Node (level, i, j) covers cells [i 2^level, ...) of r and [j 2^level, ...) of c.
//
// Memory: 12 bytes per vertex, 16 per row and column of cells (where rays can meet them), 24 per
// node above the cells (about a third of the cells) and, where
// the mesh has zero-area triangles (moved vertices make some), a bit per triangle: under 21 bytes
// per sample.
#pragma once

#include "grid_terrain.h"

namespace wr {

// GridLevels' cells_x and cells_y: rows - 1 and cols - 1 (i runs over rows, j over columns).
struct GridMeshView : GridLevels {
  const float* vertices;      // (rows x cols x 3) as the caller gave them
  const float* boxes;         // min x y z, max x y z of each node above the cells (GridLevels)
  const uint32_t* zero_area;  // bit 2 cell + k: triangle k of that cell (cell r (cols - 1) + c) has
                              // zero area, never hit (the BVH leaves it out); null when none has
  // Where a ray's x span can meet cells (and its y span): for the cell rows r (their x extent is
  // that of vertex rows r and r + 1), the largest x max of rows 0 .. r, then the smallest x min of
  // rows r .. end, both non-decreasing, (cells_x) each; the same in y for the cell columns.
  const float* reach;  // (2 cells_x + 2 cells_y)
};

struct GridMeshTerrain {
  using View = GridMeshView;
};

namespace detail {

WR_HD const float* grid_vertex(const GridMeshView& g, uint64_t r, uint64_t c) {
  return g.vertices + 3 * (r * (uint64_t(g.cells_y) + 1) + c);
}

// The extent along `axis` of cell (r, c)'s four vertices: [*lo, *hi].
WR_HD void grid_cell_extent(const GridMeshView& g, uint32_t r, uint32_t c, int axis, float* lo, float* hi) {
  const float* v[4] = {grid_vertex(g, r, c), grid_vertex(g, r, c + 1), grid_vertex(g, r + 1, c),
                       grid_vertex(g, r + 1, c + 1)};
  float l = load_readonly(v[0] + axis), h = l;
  for (int k = 1; k < 4; ++k) {
    const float x = load_readonly(v[k] + axis);
    l = x < l ? x : l;
    h = x > h ? x : h;
  }
  *lo = l, *hi = h;
}

// The box of node (level, i, j): a cell's from its four vertices, a node above as stored.
WR_HD void grid_node_box(const GridMeshView& g, uint32_t level, uint32_t i, uint32_t j, float bmin[3], float bmax[3]) {
  if (level == 0) {
    for (int a = 0; a < 3; ++a) grid_cell_extent(g, i, j, a, &bmin[a], &bmax[a]);
    return;
  }
  const float* b = g.boxes + 6 * g.node_index(level, i, j);
  for (int a = 0; a < 3; ++a) bmin[a] = load_readonly(b + a), bmax[a] = load_readonly(b + 3 + a);
}

// The walk's questions (grid_terrain.h, GridOps) for a grid-topology mesh.
template <>
struct GridOps<GridMeshView> {
  template <class Variant>
  static WR_HD bool node_hit(const GridMeshView& g, const RayBox& rb, uint32_t level, uint32_t i, uint32_t j,
                             float tmin, float tmax, float* entry) {
    float bmin[3], bmax[3];
    grid_node_box(g, level, i, j, bmin, bmax);
    return intersect_ray_box<Variant>(rb, bmin, bmax, tmin, tmax, entry);
  }

  // The children of node (level, i, j), level >= 1: child (2i + a, 2j + b) is bit a + 2b.
  template <class Variant>
  static WR_HD uint32_t children_hit(const GridMeshView& g, const RayBox& rb, uint32_t level, uint32_t i, uint32_t j,
                                     float tmin, float tmax, float entry[4]) {
    const uint32_t c = level - 1;
    const uint32_t cols = 2 * i + 1 < grid_level_size(g.cells_x, c) ? 2 : 1;
    const uint32_t rows = 2 * j + 1 < grid_level_size(g.cells_y, c) ? 2 : 1;
    uint32_t mask = 0;
    for (uint32_t b = 0; b < rows; ++b)
      for (uint32_t a = 0; a < cols; ++a)
        if (node_hit<Variant>(g, rb, c, 2 * i + a, 2 * j + b, tmin, tmax, &entry[a + 2 * b])) mask |= 1u << (a + 2 * b);
    return mask;
  }

  // Cell (r, c)'s two triangles, as intersect_leaf takes a leaf's.
  static WR_HD void cell(const GridMeshView& g, const RayTriangle& rt, uint32_t r, uint32_t c, float tmin,
                         TraceResult* best) {
    const float* v00 = grid_vertex(g, r, c);
    const float* v01 = grid_vertex(g, r, c + 1);
    const float* v10 = grid_vertex(g, r + 1, c);
    const float* v11 = grid_vertex(g, r + 1, c + 1);
    const uint32_t first = 2 * (r * g.cells_y + c);
    const uint32_t skip = g.zero_area ? load_readonly(g.zero_area + first / 32) >> (first % 32) : 0u;
    float t;
    if (!(skip & 1u) && intersect_ray_triangle(rt, v00, v11, v01, tmin, best->t, &t) &&
        (t < best->t || first < best->triangle)) {
      best->t = t;
      best->triangle = first;
    }
    if (!(skip & 2u) && intersect_ray_triangle(rt, v00, v10, v11, tmin, best->t, &t) &&
        (t < best->t || first + 1 < best->triangle)) {
      best->t = t;
      best->triangle = first + 1;
    }
  }
};

// The first index m of the non-decreasing a[0 .. n - 1] with a[m] >= x (n where none: a binary
// search's lower bound), found from a guess at the index where a's ends would put x if its values
// were spread evenly, then stepped to: a grid's reach arrays are nearly even, so a few steps replace
// the search's dependent loads. For a NaN x, n (no a[m] >= NaN).
WR_HD uint32_t first_at_least(const float* a, uint32_t n, float x) {
  if (!(x == x)) return n;
  const float a0 = load_readonly(a), an = load_readonly(a + n - 1);
  const float guess = an > a0 ? (x - a0) / (an - a0) * float(n - 1) : 0.0f;
  uint32_t m = guess > 0.0f ? (guess < float(n) ? uint32_t(guess) : n) : 0;  // a NaN guess (inf - inf) to 0
  while (m > 0 && load_readonly(a + m - 1) >= x) --m;
  while (m < n && load_readonly(a + m) < x) ++m;
  return m;
}

// The first index m of the non-decreasing a[0 .. n - 1] with a[m] > x (n where none: a binary
// search's upper bound), as first_at_least finds its bound. For a NaN x, 0 (no a[m] <= NaN).
WR_HD uint32_t first_above(const float* a, uint32_t n, float x) {
  if (!(x == x)) return 0;
  const float a0 = load_readonly(a), an = load_readonly(a + n - 1);
  const float guess = an > a0 ? (x - a0) / (an - a0) * float(n - 1) : 0.0f;
  uint32_t m = guess > 0.0f ? (guess < float(n) ? uint32_t(guess) : n) : 0;
  while (m > 0 && load_readonly(a + m - 1) > x) --m;
  while (m < n && load_readonly(a + m) <= x) ++m;
  return m;
}

// The cells (of n along one axis) whose extent can meet [lo, hi], as [*first, *last] from the
// reach arrays (GridMeshView::reach): every cell that meets it lies inside, some inside may not.
// False when none can.
WR_HD bool grid_reach(const float* reach, uint32_t n, float lo, float hi, uint32_t* first, uint32_t* last) {
  *first = first_at_least(reach, n, lo);             // the first cell whose largest x max up to it is >= lo
  const uint32_t a = first_above(reach + n, n, hi);  // one past the last whose smallest x min from it is <= hi
  if (a == 0 || *first == n) return false;
  *last = a - 1;
  return *first <= *last;
}

// Whether the x and y extent of cell (r, c)'s four vertices holds (x, y): its box's test in x and y
// (grid_node_box), without the z it does not need.
WR_HD bool grid_cell_holds(const GridMeshView& g, uint32_t r, uint32_t c, float x, float y) {
  float lo, hi;
  grid_cell_extent(g, r, c, 0, &lo, &hi);
  if (!(x >= lo && x <= hi)) return false;
  grid_cell_extent(g, r, c, 1, &lo, &hi);
  return y >= lo && y <= hi;
}

}  // namespace detail

// Nearest hit of org + t dir, t in [tmin, tmax], among the mesh's triangles: what
// trace_closest_hit gives over the same triangles in a BVH (terrain.h's trace_terrain is the way
// in). The walk starts from the cells the ray's part inside the mesh's box can meet
// (grid_walk_cells) and works in *walk. `probe`: as the height field's.
template <class Variant, class Probe = NoTraversalProbe>
WR_HD TraceResult trace_grid_mesh(GridWalkStack* walk, const GridMeshView& g, Vec3 org, Vec3 dir, float tmin,
                                  float tmax, const Probe& probe = Probe()) {
  TraceResult best{tmax, kInvalidIndex, false, NodeLink{0, 0}};
  uint32_t il, ih, jl, jh;
  // A ray with no x and y component (a height scan's) and few cells whose x and y reach holds its
  // (x, y): those cells' boxes, tested in x and y, pick the ones that decide it (the watertight test,
  // whose shear is exact for this ray, accepts only a triangle that holds the point, and that
  // triangle's cell box holds it too). No box in z and no segment first, as a height field's
  // vertical path (grid_terrain.h, grid_vertical): they cull nothing the triangle test would take.
  if (dir.x == 0.0f && dir.y == 0.0f) {
    if (!detail::grid_reach(g.reach, g.cells_x, org.x, org.x, &il, &ih) ||
        !detail::grid_reach(g.reach + 2 * g.cells_x, g.cells_y, org.y, org.y, &jl, &jh))
      return best;
    if ((ih - il + 1) * (jh - jl + 1) <= 16) {
      const RayTriangle rt = make_ray_triangle(org, dir);
      for (uint32_t i = il; i <= ih; ++i)
        for (uint32_t j = jl; j <= jh; ++j) {
          probe.inner_node();  // the cell's x-y box
          if (detail::grid_cell_holds(g, i, j, org.x, org.y)) {
            probe.leaf(2);
            detail::GridOps<GridMeshView>::cell(g, rt, i, j, tmin, &best);
          }
        }
      return best;
    }
  }
  const RayBox rb = make_ray_box(org, dir);
  float bmin[3], bmax[3], span[4];
  detail::grid_node_box(g, g.top, 0, 0, bmin, bmax);
  if (!detail::grid_segment(rb, org, dir, bmin, bmax, tmin, tmax, span)) return best;
  if (!detail::grid_reach(g.reach, g.cells_x, span[0], span[1], &il, &ih) ||
      !detail::grid_reach(g.reach + 2 * g.cells_x, g.cells_y, span[2], span[3], &jl, &jh))
    return best;
  detail::grid_walk_cells<Variant>(walk, g, rb, make_ray_triangle(org, dir), tmin, g.top, il, ih, jl, jh, &best, probe);
  return best;
}

}  // namespace wr
