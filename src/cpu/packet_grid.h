// Packet traversal of the grid terrain kinds (core/grid_terrain.h: a height field's;
// core/grid_mesh_terrain.h: a grid-topology mesh's, boxes of its own) for the CPU backend's camera
// tiles: the rays of a packet (packet_traversal.h: one origin, one per SIMD lane) walk the grid's
// min-max pyramid together, as the BVH's packets walk its tree (Wald, Slusallek, Benthin, Wagner
// 2001), and test the cells they reach with the packet's watertight test.
//
// Exactness: each lane computes what the kind's trace_terrain computes for its ray, operation for
// operation: a node's slab distances from the same column and row planes (a mesh node off its
// lines: from its box in the side table), its z range from the same samples or pyramid floats, the
// robust box test with the lane's closest hit so far as tmax, and a cell's two triangles from the
// same corner floats in the same order and with the same tie rule (grid_cell,
// GridOps<GridMeshView>::cell). A lane takes hits only in cells
// whose box it enters, with every ancestor's (a node's box holds its children's: the same nesting
// that makes the walk's result the BVH's, whatever its order). The packet starts at the lowest level
// whose (up to) 2 x 2 nodes cover every lane's cells: for a lane those nodes hold the ones its own
// walk starts from, and the cells it enters are under its segment, which those hold. So every
// lane's t and triangle id are the scalar walk's bit for bit (tests/scene/test_scene_terrain.cpp
// checks every pixel on each CPU path against the BVH's scalar path).
//
// A packet with a lane whose ray has no x and y component (grid_vertical's case: a cell looked up)
// goes pixel by pixel; one whose lanes differ in a direction sign walks once per sign class, each
// class's lanes as a packet of their own (the walk's box tests need one sign per axis); lanes that
// differ in the triangle test's axis order take its mixed form (kUniform = false).
//
// Included only by the per-instruction-set translation units (packet_tile_*.cpp), after
// packet_traversal.h; everything defined here has internal linkage.
#pragma once

#include "core/grid_mesh_terrain.h"
#include "cpu/packet_traversal.h"

namespace wr {
namespace {

// grid_plane_t of core/grid_terrain.h, lane by lane: (plane k - org) * 1 / direction.
inline LaneF lane_plane_t(const float* planes, uint32_t k, float org, const LaneF& inv) {
  return (load_readonly(planes + k) - org) * inv;
}

// grid_box_hit's robust box test, lane by lane, for the lanes `lanes`, of a node whose z range is
// [zmin, zmax] and whose x and y slabs give [near_xy, far_xy] (slab_near_far with tmin and best_t in
// z's place). slab_near_far takes the slabs one after the other and tmin, best_t in z's place change
// nothing, so taking the z slab after them gives its bits.
inline LaneBits packet_grid_box_z(const Packet& p, float zmin, float zmax, const LaneF& near_xy, const LaneF& far_xy,
                                  LaneBits lanes, LaneF* entry) {
  const bool neg_z = p.near_z != 0;
  const LaneF nz = ((neg_z ? zmax : zmin) - p.org[2]) * p.inv_z;
  const LaneF fz = ((neg_z ? zmin : zmax) - p.org[2]) * p.inv_z;
  *entry = nz > near_xy ? nz : near_xy;
  const LaneF tfar = fz < far_xy ? fz : far_xy;
  return le_bits(*entry, tfar * kRobustFarScale) & lanes;
}

// grid_node_hit, lane by lane, for a packet whose lanes share their direction signs.
inline LaneBits packet_grid_node(const GridView& g, const Packet& p, uint32_t level, uint32_t i, uint32_t j,
                                 LaneBits lanes, LaneF* entry) {
  uint32_t x0, x1, y0, y1;
  detail::grid_node_lines(g, level, i, j, &x0, &x1, &y0, &y1);
  const LaneF ta = lane_plane_t(g.xs, x0, p.org[0], p.inv_x), tb = lane_plane_t(g.xs, x1, p.org[0], p.inv_x);
  const LaneF ua = lane_plane_t(g.ys, y0, p.org[1], p.inv_y), ub = lane_plane_t(g.ys, y1, p.org[1], p.inv_y);
  const bool neg_x = p.near_x != 0, neg_y = p.near_y != 0;
  LaneF near_xy, far_xy;
  slab_near_far(neg_x ? tb : ta, neg_x ? ta : tb, neg_y ? ub : ua, neg_y ? ua : ub, p.tmin, p.best_t, p.tmin, p.best_t,
                &near_xy, &far_xy);
  float zmin, zmax;
  detail::grid_node_z(g, level, i, j, &zmin, &zmax);
  return packet_grid_box_z(p, zmin, zmax, near_xy, far_xy, lanes, entry);
}

// Fetches into the cache the two rows of z ranges (`ranges`: 2 floats a node, laid out by
// GridLevels) of the children of node (level, i, j), level >= 2: both kinds' pyramids.
inline void prefetch_children_ranges(const GridLevels& g, const float* ranges, uint32_t level, uint32_t i, uint32_t j) {
  const uint32_t c = level - 1;
  const uint64_t first = g.node_index(c, 2 * i, 2 * j);
  __builtin_prefetch(ranges + 2 * first);
  if (2 * j + 1 < grid_level_size(g.cells_y, c))
    __builtin_prefetch(ranges + 2 * (first + grid_level_size(g.cells_x, c)));
}

// Fetches into the cache what testing the children of node (level, i, j), level >= 1, reads: the
// z of their corners (level 1: its cells' 3 x 3 samples), or their two rows of pyramid bounds (a
// BVH packet prefetches below likewise, cpu-design-decisions-2026-11-30.md).
inline void prefetch_grid_below(const GridView& g, uint32_t level, uint32_t i, uint32_t j) {
  if (level == 1) {
    const uint64_t stride = uint64_t(g.cells_x) + 1, x0 = 2 * uint64_t(i), y0 = 2 * uint64_t(j);
    const uint64_t x1 = x0 + 2 < stride ? x0 + 2 : stride - 1, y1 = y0 + 2 <= g.cells_y ? y0 + 2 : g.cells_y;
    for (uint64_t y = y0; y <= y1; ++y) {
      __builtin_prefetch(g.zs + y * stride + x0);
      __builtin_prefetch(g.zs + y * stride + x1);
    }
    return;
  }
  prefetch_children_ranges(g, g.bounds, level, i, j);
}

// The four cells of a level-1 node, cell k = a + 2b in lane k: core's selects on them (grid_cell_z,
// grid_corners_extent) run as vector operations, which take no branch (written out on scalars, a
// pair's minimum and maximum share one comparison, which compiles to branches that a rough
// terrain's heights make unpredictable).
typedef float Cells4 __attribute__((vector_size(16)));

// A height field's level-1 node: its cells' z ranges (grid_cell_z) from their corners' z, z[b][a]
// the sample (ci + a, cj + b); cell k's in zmin[k], zmax[k].
inline void grid_cells_z(const float z[3][3], float zmin[4], float zmax[4]) {
  const Cells4 a{z[0][0], z[0][1], z[1][0], z[1][1]}, b{z[0][1], z[0][2], z[1][1], z[1][2]};
  const Cells4 c{z[1][0], z[1][1], z[2][0], z[2][1]}, d{z[1][1], z[1][2], z[2][1], z[2][2]};
  Cells4 lo, hi;
  detail::grid_cell_z(a, b, c, d, &lo, &hi);
  for (int k = 0; k < 4; ++k) zmin[k] = lo[k], zmax[k] = hi[k];
}

// grid_children_hit, lane by lane, for the children `kids` of a node (level >= 1) whose boxes are
// their lines' (grid_node_lines: a height field's always, a mesh's where its ranges say so), child k
// = a + 2b's z range [zlo[k], zhi[k]], for the lanes `lanes` (those that entered the node): bit k of
// the result where any lane enters child k, those lanes in child_lanes[k] and their entries in
// entry[k]; entered(a, b) is called for each child entered. The children share their planes: three
// columns and three rows, each plane's distances computed once. kOffLines: a child whose zlo[k] is a
// NaN (a mesh's whose box reaches past its lines) is tested as off_lines(a, b, &entry[k]) tests it.
template <bool kOffLines, class View, class Entered, class OffLines>
inline uint32_t packet_children_on_lines(const View& g, const Packet& p, const detail::GridChildren& kids,
                                         const float zlo[4], const float zhi[4], LaneBits lanes,
                                         LaneBits child_lanes[4], LaneF entry[4], Entered&& entered,
                                         OffLines&& off_lines) {
  const uint32_t x0 = kids.x[0], xm = kids.x[1], x1 = kids.x[2], y0 = kids.y[0], ym = kids.y[1], y1 = kids.y[2];
  const LaneF tx[3] = {lane_plane_t(g.xs, x0, p.org[0], p.inv_x), lane_plane_t(g.xs, xm, p.org[0], p.inv_x),
                       lane_plane_t(g.xs, x1, p.org[0], p.inv_x)};
  const LaneF ty[3] = {lane_plane_t(g.ys, y0, p.org[1], p.inv_y), lane_plane_t(g.ys, ym, p.org[1], p.inv_y),
                       lane_plane_t(g.ys, y1, p.org[1], p.inv_y)};
  const bool neg_x = p.near_x != 0, neg_y = p.near_y != 0;
  uint32_t mask = 0;
  for (uint32_t b = 0; b < kids.rows; ++b)
    for (uint32_t a = 0; a < kids.cols; ++a) {
      const uint32_t k = a + 2 * b;
      if (kOffLines && zlo[k] != zlo[k]) {
        child_lanes[k] = off_lines(a, b, &entry[k]);
        mask |= (child_lanes[k] ? 1u : 0u) << k;
        if (child_lanes[k]) entered(a, b);
        continue;
      }
      const LaneF &nx = neg_x ? tx[a + 1] : tx[a], &fx = neg_x ? tx[a] : tx[a + 1];
      const LaneF &ny = neg_y ? ty[b + 1] : ty[b], &fy = neg_y ? ty[b] : ty[b + 1];
      // The z slab taken after x and y, for every lane: a lane x and y keep out the z slab keeps
      // out too (it only raises the entry and lowers the exit), so the bits are grid_box_hit's, which
      // tests x and y first only to load no z range for such a ray.
      LaneF near_xy, far_xy;
      slab_near_far(nx, fx, ny, fy, p.tmin, p.best_t, p.tmin, p.best_t, &near_xy, &far_xy);
      child_lanes[k] = packet_grid_box_z(p, zlo[k], zhi[k], near_xy, far_xy, lanes, &entry[k]);
      mask |= (child_lanes[k] ? 1u : 0u) << k;
      if (child_lanes[k]) entered(a, b);
    }
  return mask;
}

// grid_children_hit, lane by lane: the children of node (level, i, j), level >= 1, for the lanes
// `lanes` (those that entered it), as packet_children_on_lines gives them.
inline uint32_t packet_grid_children(const GridView& g, const Packet& p, uint32_t level, uint32_t i, uint32_t j,
                                     LaneBits lanes, LaneBits child_lanes[4], LaneF entry[4]) {
  const detail::GridChildren kids = detail::grid_children(g.cells_x, g.cells_y, level, i, j);
  const uint32_t c = kids.c, ci = kids.ci, cj = kids.cj, cols = kids.cols, rows = kids.rows;
  // The children's z ranges, child k in zlo[k], zhi[k], all loaded before any test, so that their
  // cache misses overlap (loaded after each child's x and y test, they came one after the other).
  // Children that are cells: from their (up to) 3 x 3 corners' z, each loaded once (past the grid's
  // edge: zeros, in ranges no test reads).
  float zlo[4], zhi[4];
  if (c == 0) {
    float z[3][3] = {};
    for (uint32_t b = 0; b <= rows; ++b)
      for (uint32_t a = 0; a <= cols; ++a) z[b][a] = detail::grid_z(g, ci + a, cj + b);
    grid_cells_z(z, zlo, zhi);
  } else {
    for (uint32_t b = 0; b < rows; ++b)
      for (uint32_t a = 0; a < cols; ++a) detail::grid_node_z(g, c, ci + a, cj + b, &zlo[a + 2 * b], &zhi[a + 2 * b]);
  }
  const auto entered = [&](uint32_t a, uint32_t b) {
    if (c > 0) prefetch_grid_below(g, c, ci + a, cj + b);
  };
  const auto none = [](uint32_t, uint32_t, LaneF*) { return LaneBits(0); };  // every box is its lines'
  return packet_children_on_lines<false>(g, p, kids, zlo, zhi, lanes, child_lanes, entry, entered, none);
}

// grid_cell for the lanes `lanes`: cell (ix, iy)'s two triangles, (s00, s11, s10) and (s00, s11,
// s01), ids 2 (iy cells_x + ix) and + 1, through the packet's watertight test.
template <bool kUniform>
inline void packet_grid_cell(const GridView& g, uint32_t ix, uint32_t iy, LaneBits lanes, Packet* p) {
  const float x0 = load_readonly(g.xs + ix), x1 = load_readonly(g.xs + ix + 1);
  const float y0 = load_readonly(g.ys + iy), y1 = load_readonly(g.ys + iy + 1);
  const float corners[4][3] = {{x0, y0, detail::grid_z(g, ix, iy)},
                               {x1, y1, detail::grid_z(g, ix + 1, iy + 1)},
                               {x1, y0, detail::grid_z(g, ix + 1, iy)},
                               {x0, y1, detail::grid_z(g, ix, iy + 1)}};
  LaneF X[4], Y[4], Z[4];
  for (int k = 0; k < 4; ++k) packet_shear_corner<kUniform>(*p, corners[k], &X[k], &Y[k], &Z[k]);
  const uint32_t first = 2 * (iy * g.cells_x + ix);
  packet_test_triangle(X[0], Y[0], Z[0], X[1], Y[1], Z[1], X[2], Y[2], Z[2], first, lanes, p);
  packet_test_triangle(X[0], Y[0], Z[0], X[1], Y[1], Z[1], X[3], Y[3], Z[3], first + 1, lanes, p);
}

// The order in which a level-1 node's cells k = a + 2b (cols x rows of them) are visited by lanes
// that share their direction signs: the cell on the near side of both middle planes, then the two
// beside it (the one across the plane the lanes cross later first), then the far one. Only speed
// depends on it.
inline void near_first_cells(const Packet& p, LaneBits lanes, uint32_t cols, uint32_t rows, uint32_t order[4]) {
  const uint32_t a0 = p.near_x != 0 && cols == 2 ? 1 : 0, b0 = p.near_y != 0 && rows == 2 ? 1 : 0;
  const int first = __builtin_ctz(lanes);
  const bool y_major = fabs_(p.inv_y[first]) < fabs_(p.inv_x[first]);
  order[0] = a0 + 2 * b0;
  order[1] = y_major ? a0 + 2 * (1 - b0) : (1 - a0) + 2 * b0;
  order[2] = y_major ? (1 - a0) + 2 * b0 : a0 + 2 * (1 - b0);
  order[3] = (1 - a0) + 2 * (1 - b0);
}

// A grid-topology mesh's (core/grid_mesh_terrain.h) node and children tests.

// intersect_ray_box on the box [bmin, bmax], lane by lane, for lanes that share their direction signs
// (packet_hits_bounds; kept a function of its own: inlined into the mesh's callers it measured slower).
inline LaneBits packet_mesh_box(const Packet& p, const float bmin[3], const float bmax[3], LaneBits lanes,
                                LaneF* entry) {
  return packet_hits_bounds<true>(p, bmin, bmax, lanes, entry);
}

// GridOps<GridMeshView>::node_hit, lane by lane.
inline LaneBits packet_grid_node(const GridMeshView& g, const Packet& p, uint32_t level, uint32_t i, uint32_t j,
                                 LaneBits lanes, LaneF* entry) {
  float bmin[3], bmax[3];
  detail::grid_node_box(g, level, i, j, bmin, bmax);
  return packet_mesh_box(p, bmin, bmax, lanes, entry);
}

// Fetches into the cache what testing the children of a mesh's node (level, i, j) reads, as
// prefetch_grid_below does for a height field: level 1, the lines of its cells' 3 x 3 vertices;
// above, the two rows of its children's z ranges.
inline void prefetch_mesh_below(const GridMeshView& g, uint32_t level, uint32_t i, uint32_t j) {
  if (level == 1) {
    const uint32_t row = g.cells_y + 1, r1 = 2 * i + 2 <= g.cells_x ? 2 * i + 2 : g.cells_x;
    const uint32_t c0 = 2 * j, c1 = 2 * j + 2 <= g.cells_y ? 2 * j + 2 : g.cells_y;
    for (uint32_t r = 2 * i; r <= r1; ++r) {
      __builtin_prefetch(detail::grid_line(g, r * row + c0));
      __builtin_prefetch(detail::grid_line(g, r * row + c1));
    }
    return;
  }
  prefetch_children_ranges(g, g.ranges, level, i, j);
}

// GridOps<GridMeshView>::children_hit, lane by lane: the children's z ranges loaded at once, then
// the height field's test (packet_children_on_lines), a child whose box reaches past its lines
// tested with its box (grid_range_box).
inline uint32_t packet_grid_children(const GridMeshView& g, const Packet& p, uint32_t level, uint32_t i, uint32_t j,
                                     LaneBits lanes, LaneBits child_lanes[4], LaneF entry[4]) {
  const detail::GridChildren kids = detail::grid_children(g.cells_x, g.cells_y, level, i, j);
  const uint32_t c = kids.c;
  float zlo[4] = {}, zhi[4] = {};
  for (uint32_t b = 0; b < kids.rows; ++b)
    for (uint32_t a = 0; a < kids.cols; ++a) {
      const uint64_t node = g.node_index(c, kids.ci + a, kids.cj + b);
      zlo[a + 2 * b] = load_readonly(g.ranges + 2 * node), zhi[a + 2 * b] = load_readonly(g.ranges + 2 * node + 1);
    }
  const auto entered = [&](uint32_t a, uint32_t b) { prefetch_mesh_below(g, c, kids.ci + a, kids.cj + b); };
  const auto off_lines = [&](uint32_t a, uint32_t b, LaneF* e) {
    float bmin[3], bmax[3];
    detail::grid_range_box(g, c, kids.ci + a, kids.cj + b, zlo[a + 2 * b], zhi[a + 2 * b], bmin, bmax);
    return packet_mesh_box(p, bmin, bmax, lanes, e);
  };
  return packet_children_on_lines<true>(g, p, kids, zlo, zhi, lanes, child_lanes, entry, entered, off_lines);
}

// The cells of node (1, i, j) for the lanes `lanes` that entered it, as grid_walk visits them, their
// boxes tested (packet_grid_children's mask, lanes and entries): each cell a lane enters within its
// closest hit so far, nearest first by the lanes' shared direction signs (the order only matters for
// speed): test(a, b, lanes) for cell (2i + a, 2j + b).
template <class View, class Test>
inline void packet_visit_entered_cells(const View& g, uint32_t i, uint32_t j, LaneBits lanes, uint32_t mask,
                                       const LaneBits cell_lanes[4], const LaneF entry[4], Packet* p, Test&& test) {
  if (!mask) return;
  const uint32_t cols = 2 * i + 1 < g.cells_x ? 2 : 1, rows = 2 * j + 1 < g.cells_y ? 2 : 1;
  uint32_t order[4];
  near_first_cells(*p, lanes, cols, rows, order);
  for (uint32_t n = 0; n < 4; ++n) {
    const uint32_t k = order[n];
    if (!(mask >> k & 1u)) continue;
    const LaneBits in = cell_lanes[k] & le_bits(entry[k], p->best_t * kRobustFarScale);
    if (in) test(k & 1, k >> 1, in);
  }
}

// A height field's level-1 node: its cells' boxes tested (packet_grid_children), then, where a lane
// enters one, the (up to) 3 x 3 corners sheared once for the cells that share them (all up front:
// shearing each when a cell first needs it measured slower) and the cells entered visited
// (packet_visit_entered_cells), each cell's two triangles as packet_grid_cell tests them.
template <bool kUniform>
inline void packet_grid_cells(const GridView& g, uint32_t i, uint32_t j, LaneBits lanes, Packet* p) {
  const uint32_t ci = 2 * i, cj = 2 * j;
  LaneBits cell_lanes[4];
  LaneF entry[4];
  const uint32_t mask = packet_grid_children(g, *p, 1, i, j, lanes, cell_lanes, entry);
  if (!mask) return;  // no cell entered: nothing to shear
  LaneF X[3][3], Y[3][3], Z[3][3];
  const uint32_t cols = ci + 1 < g.cells_x ? 2 : 1, rows = cj + 1 < g.cells_y ? 2 : 1;
  for (uint32_t b = 0; b <= rows; ++b)
    for (uint32_t a = 0; a <= cols; ++a) {
      const float c[3] = {load_readonly(g.xs + ci + a), load_readonly(g.ys + cj + b),
                          detail::grid_z(g, ci + a, cj + b)};
      packet_shear_corner<kUniform>(*p, c, &X[b][a], &Y[b][a], &Z[b][a]);
    }
  const auto cell = [&](uint32_t a, uint32_t b, LaneBits in) {
    // Cell (ci + a, cj + b): (s00, s11, s10) and (s00, s11, s01).
    const uint32_t id = 2 * ((cj + b) * g.cells_x + ci + a);
    packet_test_triangle(X[b][a], Y[b][a], Z[b][a], X[b + 1][a + 1], Y[b + 1][a + 1], Z[b + 1][a + 1], X[b][a + 1],
                         Y[b][a + 1], Z[b][a + 1], id, in, p);
    packet_test_triangle(X[b][a], Y[b][a], Z[b][a], X[b + 1][a + 1], Y[b + 1][a + 1], Z[b + 1][a + 1], X[b + 1][a],
                         Y[b + 1][a], Z[b + 1][a], id + 1, in, p);
  };
  packet_visit_entered_cells(g, i, j, lanes, mask, cell_lanes, entry, p, cell);
}

// ---- A grid-topology mesh's cells ----

// GridOps<GridMeshView>::cell for the lanes `lanes`: cell (r, c)'s triangles (v00, v11, v01) and
// (v00, v10, v11), ids 2 (r cells_y + c) and + 1, each unless it has zero area (`skip`: the cell's
// grid_zero_area_marks); v its corners v00, v01, v10, v11.
template <bool kUniform>
inline void packet_mesh_cell(const GridMeshView& g, uint32_t r, uint32_t c, const Vec3 v[4], uint32_t skip,
                             LaneBits lanes, Packet* p) {
  LaneF X[4], Y[4], Z[4];
  for (int k = 0; k < 4; ++k) {
    const float corner[3] = {v[k].x, v[k].y, v[k].z};
    packet_shear_corner<kUniform>(*p, corner, &X[k], &Y[k], &Z[k]);
  }
  const uint32_t first = 2 * (r * g.cells_y + c);
  if (!(skip & 1u)) packet_test_triangle(X[0], Y[0], Z[0], X[3], Y[3], Z[3], X[1], Y[1], Z[1], first, lanes, p);
  if (!(skip & 2u)) packet_test_triangle(X[0], Y[0], Z[0], X[2], Y[2], Z[2], X[3], Y[3], Z[3], first + 1, lanes, p);
}

// packet_mesh_cell with the cell's corners read here.
template <bool kUniform>
inline void packet_grid_cell(const GridMeshView& g, uint32_t r, uint32_t c, LaneBits lanes, Packet* p) {
  Vec3 v[4];  // v00, v01, v10, v11
  detail::grid_cell_corners(g, r, c, v);
  packet_mesh_cell<kUniform>(g, r, c, v, detail::grid_zero_area_marks(g, r, c), lanes, p);
}

// A mesh's level-1 node: its cells' boxes, cell k's [bmin[k], bmax[k]], from the vertices v[a][b] of
// (ci + a, cj + b): grid_corners_box on the four cells at once.
inline void grid_cells_box(const Vec3 v[3][3], float bmin[4][3], float bmax[4][3]) {
  // Cell k's corner (a + da, b + db), lane by lane.
  const auto corner = [&](int da, int db, float Vec3::*axis) {
    return Cells4{v[da][db].*axis, v[1 + da][db].*axis, v[da][1 + db].*axis, v[1 + da][1 + db].*axis};
  };
  Cells4 lo[3], hi[3];
  float Vec3::*const axes[3] = {&Vec3::x, &Vec3::y, &Vec3::z};
  for (int n = 0; n < 3; ++n) {
    const Cells4 a = corner(0, 0, axes[n]), b = corner(0, 1, axes[n]), c = corner(1, 0, axes[n]),
                 d = corner(1, 1, axes[n]);
    if (n < 2)
      detail::grid_corners_extent(a, b, c, d, &lo[n], &hi[n]);
    else
      detail::grid_cell_z(a, b, c, d, &lo[n], &hi[n]);
  }
  for (int k = 0; k < 4; ++k)
    for (int n = 0; n < 3; ++n) bmin[k][n] = lo[n][k], bmax[k][n] = hi[n][k];
}

// A mesh's level-1 node: the (up to) 3 x 3 vertices of its cells read once (grid_vertex_block),
// the cells' boxes from them (as grid_node_box makes them) tested, then the cells entered
// (packet_visit_entered_cells), each one's corners sheared and its triangles tested as
// packet_grid_cell does.
template <bool kUniform>
inline void packet_grid_cells(const GridMeshView& g, uint32_t i, uint32_t j, LaneBits lanes, Packet* p) {
  const uint32_t ci = 2 * i, cj = 2 * j;
  const uint32_t cols = ci + 1 < g.cells_x ? 2 : 1, rows = cj + 1 < g.cells_y ? 2 : 1;
  Vec3 v[3][3];
  if (cols == 2 && rows == 2) {  // the usual node, its loops unrolled
    detail::grid_vertex_block(g, ci, cj, 3, 3, v);
  } else {  // past the grid's edge: zeros, in boxes no test reads
    for (auto& row : v)
      for (Vec3& u : row) u = Vec3{0.0f, 0.0f, 0.0f};
    detail::grid_vertex_block(g, ci, cj, cols + 1, rows + 1, v);
  }
  // The cells' zero-area marks, read before their boxes are tested (a miss, where it is one, overlaps
  // the tests, rather than stalling the first cell entered).
  uint32_t skip[4] = {0, 0, 0, 0};
  for (uint32_t b = 0; b < rows; ++b)
    for (uint32_t a = 0; a < cols; ++a) skip[a + 2 * b] = detail::grid_zero_area_marks(g, ci + a, cj + b);
  float bmin[4][3], bmax[4][3];
  grid_cells_box(v, bmin, bmax);
  LaneBits cell_lanes[4];
  LaneF entry[4];
  uint32_t mask = 0;
  for (uint32_t b = 0; b < rows; ++b)
    for (uint32_t a = 0; a < cols; ++a) {
      const uint32_t k = a + 2 * b;
      cell_lanes[k] = packet_mesh_box(*p, bmin[k], bmax[k], lanes, &entry[k]);
      mask |= (cell_lanes[k] ? 1u : 0u) << k;
    }
  packet_visit_entered_cells(g, i, j, lanes, mask, cell_lanes, entry, p, [&](uint32_t a, uint32_t b, LaneBits in) {
    // Cell (ci + a, cj + b): (v00, v11, v01) and (v00, v10, v11), ids 2 (r cells_y + c) and + 1.
    const Vec3 corners[4] = {v[a][b], v[a][b + 1], v[a + 1][b], v[a + 1][b + 1]};
    packet_mesh_cell<kUniform>(g, ci + a, cj + b, corners, skip[a + 2 * b], in, p);
  });
}

// ---- The walk, for either kind (View: GridView or GridMeshView) ----

// grid_walk for the lanes `lanes` through node (start_level, i, j) and its subtree, as trace_packet
// walks a BVH: a node's children tested at once, the nearest one entered (in the order the lanes'
// shared signs give: the order only matters for speed) visited next and the others pushed, farther
// first; a popped node keeps the lanes that entered it within their closest hit so far.
template <bool kUniform, class View>
void packet_grid_walk(const View& g, uint32_t start_level, uint32_t start_i, uint32_t start_j, LaneBits lanes,
                      Packet* p) {
  LaneF start_entry;
  lanes = packet_grid_node(g, *p, start_level, start_i, start_j, lanes, &start_entry);
  if (!lanes) return;
  if (start_level <= 1) {
    if (start_level == 0)
      packet_grid_cell<kUniform>(g, start_i, start_j, lanes, p);
    else
      packet_grid_cells<kUniform>(g, start_i, start_j, lanes, p);
    return;
  }
  // A node's children nearest first, as the lanes' shared direction signs order them (the same for
  // every node: near_first_cells).
  uint32_t order[4];
  near_first_cells(*p, lanes, 2, 2, order);
  // At most three children pushed per level below the start.
  constexpr int kStack = 3 * (kMaxGridLevels - 1);
  LaneF stack_entry[kStack];
  LaneBits stack_lanes[kStack];
  uint32_t stack_node[kStack][3];  // level, i, j
  int sp = 0;
  uint32_t level = start_level, i = start_i, j = start_j;
  for (;;) {
    if (level == 1) {  // a node of four cells
      packet_grid_cells<kUniform>(g, i, j, lanes, p);
    } else {
      LaneBits child_lanes[4];
      LaneF entry[4];
      const uint32_t mask = packet_grid_children(g, *p, level, i, j, lanes, child_lanes, entry);
      if (mask) {
        uint32_t k = 4;  // the nearest child entered so far, from the far end of `order`
        for (int q = 3; q >= 0; --q) {
          if (!(mask >> order[q] & 1u)) continue;
          if (k < 4) {
            stack_entry[sp] = entry[k];
            stack_lanes[sp] = child_lanes[k];
            stack_node[sp][0] = level - 1, stack_node[sp][1] = 2 * i + (k & 1), stack_node[sp][2] = 2 * j + (k >> 1);
            ++sp;
          }
          k = order[q];
        }
        lanes = child_lanes[k];
        --level, i = 2 * i + (k & 1), j = 2 * j + (k >> 1);
        continue;
      }
    }
    const LaneF far_hit = p->best_t * kRobustFarScale;
    do {
      if (sp == 0) return;
      --sp;
      lanes = stack_lanes[sp] & le_bits(stack_entry[sp], far_hit);  // as conservative as the box test
    } while (!lanes);
    level = stack_node[sp][0], i = stack_node[sp][1], j = stack_node[sp][2];
  }
}

// grid_segment for every lane of `lanes` (lane by lane the same operations), the grid's box being
// [bmin, bmax]: the lanes whose ray meets it (the return value), and the union of their x and y
// spans (span[0..1], span[2..3]) over those whose spans are numbers; *nan: the lanes whose spans
// are not (a ray along an axis with no far end), which grid_span_cells and grid_reach each treat
// in their own way.
inline LaneBits packet_segments(const Packet& p, LaneBits lanes, const float bmin[3], const float bmax[3],
                                float span[4], LaneBits* nan) {
  const bool neg[3] = {p.near_x != 0, p.near_y != 0, p.near_z != 0};
  const LaneF* inv[3] = {&p.inv_x, &p.inv_y, &p.inv_z};
  LaneF n[3], f[3];
  for (int a = 0; a < 3; ++a) {
    n[a] = ((neg[a] ? bmax[a] : bmin[a]) - p.org[a]) * *inv[a];
    f[a] = ((neg[a] ? bmin[a] : bmax[a]) - p.org[a]) * *inv[a];
  }
  LaneF t0, t1;
  slab_near_far(n[0], f[0], n[1], f[1], n[2], f[2], p.tmin, p.best_t, &t0, &t1);
  t1 = t1 * kRobustFarScale;
  const LaneBits meet = le_bits(t0, t1) & lanes;
  const LaneF* dir[2] = {&p.dir_x, &p.dir_y};
  LaneF lo[2], hi[2];
  *nan = 0;
  for (int k = 0; k < 2; ++k) {
    const LaneF a = p.org[k] + t0 * *dir[k], b = p.org[k] + t1 * *dir[k];
    const LaneF slack = (fabs_(p.org[k]) + lane_abs(t0 * *dir[k]) + lane_abs(t1 * *dir[k])) * 4.0e-6f;
    lo[k] = (a < b ? a : b) - slack, hi[k] = (a < b ? b : a) + slack;
    *nan |= (ne_bits(lo[k], lo[k]) | ne_bits(hi[k], hi[k])) & meet;
  }
  span[0] = span[2] = __builtin_inff(), span[1] = span[3] = -__builtin_inff();
  for (LaneBits m = meet & ~*nan; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    for (int k = 0; k < 2; ++k) {
      span[2 * k] = lo[k][l] < span[2 * k] ? lo[k][l] : span[2 * k];
      span[2 * k + 1] = hi[k][l] > span[2 * k + 1] ? hi[k][l] : span[2 * k + 1];
    }
  }
  return meet;
}

// grid_walk_cells for the lanes `walk`: the cells [il, ih] x [jl, jh], which hold each lane's, from
// the lowest level where at most 2 x 2 nodes cover them, near ones first. For a lane those nodes hold
// the ones its own walk starts from.
template <bool kUniform, class View>
void packet_walk_cells(const View& g, uint32_t il, uint32_t ih, uint32_t jl, uint32_t jh, LaneBits walk, Packet* p) {
  const uint32_t level = detail::grid_start_level(g.top, il, ih, jl, jh);
  const bool neg_x = p->near_x != 0, neg_y = p->near_y != 0;
  const uint32_t c0 = il >> level, c1 = ih >> level, r0 = jl >> level, r1 = jh >> level;
  const uint32_t cols[2] = {neg_x ? c1 : c0, neg_x ? c0 : c1}, rows[2] = {neg_y ? r1 : r0, neg_y ? r0 : r1};
  const uint32_t num_cols = c1 > c0 ? 2 : 1, num_rows = r1 > r0 ? 2 : 1;
  const int first = __builtin_ctz(walk);
  const bool y_major = fabs_(p->inv_y[first]) < fabs_(p->inv_x[first]);
  for (uint32_t k = 0; k < 4; ++k) {
    const uint32_t a = y_major ? k >> 1 : k & 1, b = y_major ? k & 1 : k >> 1;
    if (a < num_cols && b < num_rows) packet_grid_walk<kUniform>(g, level, cols[a], rows[b], walk, p);
  }
}

// trace_terrain(GridTerrain) for the packet's lanes (left in p->best_t / p->best_id), which share
// their direction signs (p->near_x, near_y, near_z are every lane's) and have an x or y component
// each; kUniform: they share the triangle test's axis order too. Returns false where the base's
// BVH would overflow its stack (the caller then traces the packet's rays one by one).
template <bool kUniform>
bool trace_packet_grid(const GridView& g, Packet* p) {
  // grid_trace's cells of each lane; grid_span_cells grows with the span's ends, so the union's ends
  // give the union of theirs (a lane whose span is not a number has every cell).
  float zmin, zmax;
  detail::grid_node_z(g, g.top, 0, 0, &zmin, &zmax);
  const float bmin[3] = {load_readonly(g.xs), load_readonly(g.ys), zmin};
  const float bmax[3] = {load_readonly(g.xs + g.cells_x), load_readonly(g.ys + g.cells_y), zmax};
  float span[4];
  LaneBits nan;
  const LaneBits walk = packet_segments(*p, p->active, bmin, bmax, span, &nan);
  if (walk) {
    uint32_t il = 0, ih = g.cells_x - 1, jl = 0, jh = g.cells_y - 1;
    if (!nan) {
      detail::grid_span_cells(span, load_readonly(g.xs), g.cells_per_x, g.cells_x, &il, &ih);
      detail::grid_span_cells(span + 2, load_readonly(g.ys), g.cells_per_y, g.cells_y, &jl, &jh);
    }
    packet_walk_cells<kUniform>(g, il, ih, jl, jh, walk, p);
  }
  if (!g.sides.nodes) return true;
  // The base's walls and bottom, their ids after every cell's: on a tie of t the cell's stays.
  Packet s = *p;
  s.best_id = LaneU{} + kInvalidIndex;
  if (!trace_packet<kUniform>(g.sides, &s)) return false;
  const LaneU none = LaneU{} + kInvalidIndex;
  const LaneBits take =
      bits_of(s.best_id != none) & (bits_of(p->best_id == none) | lt_bits(s.best_t, p->best_t)) & p->active;
  p->best_t = blend(take, s.best_t, p->best_t);
  p->best_id = blend(take, s.best_id + g.sides_first, p->best_id);
  return true;
}

// trace_terrain(GridMeshTerrain) for the packet's lanes, on the terms of trace_packet_grid: the cells
// each lane can reach (grid_reach grows with the span's ends: the union's ends give the union of
// theirs; a lane whose span is not a number reaches none, and takes no hit, as its own trace).
template <bool kUniform>
bool trace_packet_grid(const GridMeshView& g, Packet* p) {
  float bmin[3], bmax[3], span[4];
  detail::grid_node_box(g, g.top, 0, 0, bmin, bmax);
  LaneBits nan;
  const LaneBits walk = packet_segments(*p, p->active, bmin, bmax, span, &nan) & ~nan;
  uint32_t il, ih, jl, jh;
  if (walk && detail::grid_reach(g.reach, g.cells_x, span[0], span[1], &il, &ih) &&
      detail::grid_reach(g.reach + 2 * g.cells_x, g.cells_y, span[2], span[3], &jl, &jh))
    packet_walk_cells<kUniform>(g, il, ih, jl, jh, walk, p);
  return true;
}

// trace_packet_grid for a packet whose lanes differ in a direction sign (none of them vertical): the
// lanes of each sign class traced as a packet of their own (its near planes its lanes'; uniform
// where they share the triangle test's axis order too), each class's hits merged into *p's lanes.
// Returns false as trace_packet_grid does.
template <class View>
bool trace_packet_grid_by_signs(const View& g, Packet* p) {
  const LaneBits nx = bits_of(p->neg_x), ny = bits_of(p->neg_y), nz = bits_of(p->neg_z);
  const LaneI key = p->kz * 3 + p->kx;
  for (LaneBits left = p->active; left;) {
    const int l = __builtin_ctz(left);
    const LaneBits same = ~((nx >> l & 1u ? ~nx : nx) | (ny >> l & 1u ? ~ny : ny) | (nz >> l & 1u ? ~nz : nz));
    const LaneBits lanes = left & same;
    left &= ~lanes;
    Packet c = *p;
    c.active = lanes;
    c.ukx = p->kx[l], c.uky = p->ky[l], c.ukz = p->kz[l];
    c.near_x = nx >> l & 1u ? 4 : 0, c.near_y = ny >> l & 1u ? 4 : 0, c.near_z = nz >> l & 1u ? 4 : 0;
    const bool uniform = (bits_of(key != splat_i(key[l])) & lanes) == 0;
    if (!(uniform ? trace_packet_grid<true>(g, &c) : trace_packet_grid<false>(g, &c))) return false;
    p->best_t = blend(lanes, c.best_t, p->best_t);
    p->best_id = blend(lanes, c.best_id, p->best_id);
  }
  return true;
}

// The tile's pixels over a grid terrain: each packet traced through the grid (trace_packet_grid;
// one whose lanes differ in a direction sign, by sign classes), then finished as render_packet
// finishes it; a packet with a vertical lane (above), or whose base would overflow the stack,
// pixel by pixel.
template <class Terrain>
uint64_t render_grid_tile_packets(const PacketTile& tile, const typename Terrain::View& g) {
  uint32_t seen[kMaxTileInstances];
  uint32_t count;
  const uint32_t* instances = sort_tile_instances(tile, seen, &count);
  uint64_t overflows = 0;
  const uint32_t w = packet_width(tile);
  for (uint32_t v = tile.v0; v < tile.v1; v += kLanes / w)
    for (uint32_t u = tile.u0; u < tile.u1; u += w) {
      Packet p;
      const bool uniform = setup_packet(tile, u, v, &p);
      const LaneBits vertical = eq_bits(p.dir_x, splat(0.0f)) & eq_bits(p.dir_y, splat(0.0f)) & p.active;
      const LaneBits nx = bits_of(p.neg_x) & p.active, ny = bits_of(p.neg_y) & p.active,
                     nz = bits_of(p.neg_z) & p.active;
      const bool one_sign = (!nx || nx == p.active) && (!ny || ny == p.active) && (!nz || nz == p.active);
      const bool traced = !vertical && (!one_sign ? trace_packet_grid_by_signs(g, &p)
                                        : uniform ? trace_packet_grid<true>(g, &p)
                                                  : trace_packet_grid<false>(g, &p));
      if (traced)
        overflows += finish_packet(tile, p, uniform, u, v, instances, count);
      else
        overflows += render_packet_pixels<Terrain>(tile, g, p.active, u, v);
    }
  return overflows;
}

}  // namespace
}  // namespace wr
