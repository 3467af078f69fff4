// The grid terrain kind (terrain.h): a height field's triangles traced through the grid itself
// instead of a triangle BVH, at a tenth of its memory, with the same hits bit for bit.
//
// The triangles are those of wr_scene_create_heightfield (scene/heightfield.h): cell (ix, iy)
// of cells_x x cells_y, its corners the samples (ix, iy) .. (ix + 1, iy + 1), holds triangles
// 2 (iy cells_x + ix) + 0 = (s00, s11, s10) and + 1 = (s00, s11, s01), in that vertex order; a
// base's walls and bottom follow, ids 2 cells_x cells_y on, in a small BVH of their own.
//
// Traversal: an implicit min-max pyramid over the cells (Tevs, Ihrke, Seidel, "Maximum Mipmaps
// for Fast, Accurate, and Scalable Dynamic Height Field Rendering", I3D 2008): node (l, i, j)
// covers cells [i 2^l, (i + 1) 2^l) x [j 2^l, (j + 1) 2^l), its box the columns' and rows' vertex
// coordinates in x and y and the z range of its samples; level 0 is read from the four corners,
// the levels above are stored. The walk starts at the lowest level where at most 2 x 2 nodes
// cover the ray's footprint in the field, tests a node's four children at once (they share their
// planes) and visits them nearest entry first, keeping per level the children still to visit
// (no pointers: a node's children are found by index arithmetic). On the host a height field's
// ray first walks the pyramid along itself, one node at a time, without that memory
// (grid_ray_walk, TraversalVariant::ray_walk), which hands the walk above only the rays that pass
// within rounding of a node's corner or run along an axis. A ray with no x and y component (a
// height scan's) skips the walk: the cell under it is looked up.
//
// Exactness: a node is entered when the robust box test (ray_box.h), the BVH's own, passes with
// the closest hit so far as tmax; a cell's two triangles take the BVH's watertight test
// (ray_triangle.h) with the same vertex floats in the same order, and the closest hit is the
// lowest (t, triangle id) over every triangle accepted. Every box contains the boxes of the
// triangles below it, so a triangle whose hit could be the closest sits in a node the walk
// enters, as in the BVH: t and the id are those of the BVH over the same triangles, whatever the
// order of the walk (tests/core/test_grid_terrain.cpp checks it ray by ray).
//
// Memory: the samples' z (4 bytes each), the vertex x of each column and y of each row, and two
// floats per node of the levels above the cells (about a third of the cells): under 7 bytes per
// sample, where the BVH of the same triangles holds their corners, ids and nodes (measured in
// benchmarks/results/, grid-terrain-*).
#pragma once

#include "bvh_traverse.h"

namespace wr {

// Levels of the pyramid: up to 2^23 cells along x and y (a field larger than that is a BVH).
constexpr int kMaxGridLevels = 24;

// Nodes of level l along a side of `cells` cells: ceil(cells / 2^l).
WR_HD uint32_t grid_level_size(uint32_t cells, uint32_t level) { return ((cells - 1) >> level) + 1; }

// The pyramid's levels over cells_x x cells_y cells, laid out alike by both grid kinds (this
// file's height fields, grid_mesh_terrain.h's meshes; scene/grid_builder.cpp's grid_levels makes
// them): the nodes above the cells, level 1 first, each level's (height(l) x width(l)) nodes row
// by row, are the entries of the kind's per-node array.
struct GridLevels {
  uint32_t cells_x, cells_y;              // cells along x (index i) and along y (index j)
  uint32_t top;                           // the level whose one node covers every cell
  uint32_t level_offset[kMaxGridLevels];  // level l's first node, l = 1 .. top
  // Node (level, i, j)'s entry, level >= 1.
  WR_HD uint64_t node_index(uint32_t level, uint32_t i, uint32_t j) const {
    return level_offset[level] + uint64_t(j) * grid_level_size(cells_x, level) + i;
  }
};

struct GridView : GridLevels {
  const float* xs;                 // (cells_x + 1) vertex x of each column of samples
  const float* ys;                 // (cells_y + 1) vertex y of each row
  const float* zs;                 // ((cells_y + 1) x (cells_x + 1)) vertex z, row iy, column ix
  const float* bounds;             // z min and max of each node above the cells (GridLevels), 2 floats each
  float cells_per_x, cells_per_y;  // cells_x / (xs[cells_x] - xs[0]), and in y: where a point's cell is looked up
  BvhView sides;                   // a base's walls and bottom; sides.nodes null without a base
  uint32_t sides_first;            // their first triangle id: 2 cells_x cells_y
};

struct GridTerrain {
  using View = GridView;
};

// The walk's memory (detail::grid_walk): for each level below the one it starts at, the children
// of a node of the level above that it still has to visit and their entry distances (the node
// itself is the walk's current one, or that one's ancestor: found by halving its indices). The GPU
// keeps it in local memory, 20 bytes a level; terrain.h's TraceScratch lays it over the BVH stack
// that the ray's later traces use, so that a kernel's frame holds the larger of the two only.
struct GridWalkStack {
  struct Level {
    float entry[4];  // child (2i + a, 2j + b)'s entry distance, a + 2b
    uint32_t mask;   // bit a + 2b: that child is still to visit
  };
  Level level[kMaxGridLevels - 1];
};

namespace detail {

// The vertex lines that bound node (level, i, j): columns [*x0, *x1] and rows [*y0, *y1] (its
// cells' first and one past their last, the grid's edge clipping them).
WR_HD void grid_node_lines(const GridLevels& g, uint32_t level, uint32_t i, uint32_t j, uint32_t* x0, uint32_t* x1,
                           uint32_t* y0, uint32_t* y1) {
  *x0 = i << level, *y0 = j << level;
  *x1 = g.cells_x - *x0 > (1u << level) ? *x0 + (1u << level) : g.cells_x;
  *y1 = g.cells_y - *y0 > (1u << level) ? *y0 + (1u << level) : g.cells_y;
}

WR_HD float grid_z(const GridView& g, uint64_t ix, uint64_t iy) {
  return load_readonly(g.zs + iy * (uint64_t(g.cells_x) + 1) + ix);
}

// The z range of a cell whose corners (ix, iy), (ix + 1, iy), (ix, iy + 1), (ix + 1, iy + 1) have z
// a, b, c, d. A template over the number type, as slab_near_far: the CPU packets (src/cpu/
// packet_grid.h) run these selects on the four cells of a node at once, one lane each.
template <class F>
WR_HD void grid_cell_z(F a, F b, F c, F d, F* zmin, F* zmax) {
  const F lo0 = a < b ? a : b, lo1 = c < d ? c : d, hi0 = a < b ? b : a, hi1 = c < d ? d : c;
  *zmin = lo0 < lo1 ? lo0 : lo1;
  *zmax = hi0 < hi1 ? hi1 : hi0;
}

// The z range of node (level, i, j): a cell's from its four corners, a node above from the pyramid.
WR_HD void grid_node_z(const GridView& g, uint32_t level, uint32_t i, uint32_t j, float* zmin, float* zmax) {
  if (level == 0) {
    grid_cell_z(grid_z(g, i, j), grid_z(g, i + 1, j), grid_z(g, i, j + 1), grid_z(g, i + 1, j + 1), zmin, zmax);
  } else {
    const uint64_t node = g.node_index(level, i, j);
    *zmin = load_readonly(g.bounds + 2 * node);
    *zmax = load_readonly(g.bounds + 2 * node + 1);
  }
}

// The robust box test of a node whose slab distances in x and y are (nx, fx) and (ny, fy):
// intersect_ray_box's interval test. A ray the x and y slabs already keep out (an empty
// interval, so the whole one is) loads no z range.
template <class Variant>
WR_HD bool grid_box_hit(const GridView& g, const RayBox& rb, uint32_t level, uint32_t i, uint32_t j, float nx, float fx,
                        float ny, float fy, float tmin, float tmax, float* entry) {
  float near_xy, far_xy;
  slab_near_far(nx, fx, ny, fy, tmin, tmax, tmin, tmax, &near_xy, &far_xy);
  if (!(near_xy <= far_xy * kRobustFarScale)) return false;  // the z slab can only narrow it
  float zmin, zmax;
  grid_node_z(g, level, i, j, &zmin, &zmax);
  const float nz = ((rb.neg[2] ? zmax : zmin) - rb.org.z) * rb.inv_dir.z;
  const float fz = ((rb.neg[2] ? zmin : zmax) - rb.org.z) * rb.inv_dir.z;
  return slab_interval<Variant>(nx, fx, ny, fy, nz, fz, tmin, tmax, entry);
}

// The slab distance of column (row) plane x: (x - org) / dir, as intersect_ray_box computes it.
WR_HD float grid_plane_t(const float* planes, uint32_t k, float org, float inv_dir) {
  return (load_readonly(planes + k) - org) * inv_dir;
}

// The robust box test of node (level, i, j) within [tmin, tmax]: its box spans columns
// [i 2^level, (i + 1) 2^level) and rows likewise, the pyramid's z range.
template <class Variant>
WR_HD bool grid_node_hit(const GridView& g, const RayBox& rb, uint32_t level, uint32_t i, uint32_t j, float tmin,
                         float tmax, float* entry) {
  uint32_t x0, x1, y0, y1;
  grid_node_lines(g, level, i, j, &x0, &x1, &y0, &y1);
  const float ta = grid_plane_t(g.xs, x0, rb.org.x, rb.inv_dir.x), tb = grid_plane_t(g.xs, x1, rb.org.x, rb.inv_dir.x);
  const float ua = grid_plane_t(g.ys, y0, rb.org.y, rb.inv_dir.y), ub = grid_plane_t(g.ys, y1, rb.org.y, rb.inv_dir.y);
  return grid_box_hit<Variant>(g, rb, level, i, j, rb.neg[0] ? tb : ta, rb.neg[0] ? ta : tb, rb.neg[1] ? ub : ua,
                               rb.neg[1] ? ua : ub, tmin, tmax, entry);
}

// The children of node (level, i, j), level >= 1, of a grid of cells_x x cells_y cells: the nodes
// (ci + a, cj + b) of level c, a < cols, b < rows (the grid's edge can leave one column or row), and
// the column and row planes they share: child (a, b) spans columns [x[a], x[a + 1]], rows [y[b], y[b + 1]].
struct GridChildren {
  uint32_t c, ci, cj, cols, rows;
  uint32_t x[3], y[3];
};
WR_HD GridChildren grid_children(uint32_t cells_x, uint32_t cells_y, uint32_t level, uint32_t i, uint32_t j) {
  GridChildren k;
  k.c = level - 1;
  const uint32_t span = 1u << k.c;
  const uint32_t w = grid_level_size(cells_x, k.c), h = grid_level_size(cells_y, k.c);
  k.ci = 2 * i, k.cj = 2 * j;
  k.cols = k.ci + 1 < w ? 2 : 1, k.rows = k.cj + 1 < h ? 2 : 1;
  k.x[0] = k.ci << k.c, k.y[0] = k.cj << k.c;
  k.x[1] = cells_x - k.x[0] > span ? k.x[0] + span : cells_x;
  k.y[1] = cells_y - k.y[0] > span ? k.y[0] + span : cells_y;
  k.x[2] = k.cols == 2 && cells_x - k.x[1] > span ? k.x[1] + span : cells_x;
  k.y[2] = k.rows == 2 && cells_y - k.y[1] > span ? k.y[1] + span : cells_y;
  return k;
}

// The children of node (level, i, j), level >= 1, tested at once: child (2i + a, 2j + b) is bit
// a + 2b of the result, its entry distance entry[a + 2b]. They share their planes: three columns
// and three rows (two where the grid's edge leaves one child), each plane's distance computed once.
template <class Variant>
WR_HD uint32_t grid_children_hit(const GridView& g, const RayBox& rb, uint32_t level, uint32_t i, uint32_t j,
                                 float tmin, float tmax, float entry[4]) {
  const GridChildren k = grid_children(g.cells_x, g.cells_y, level, i, j);
  const uint32_t c = k.c, ci = k.ci, cj = k.cj, cols = k.cols, rows = k.rows;
  const uint32_t x0 = k.x[0], xm = k.x[1], x1 = k.x[2], y0 = k.y[0], ym = k.y[1], y1 = k.y[2];
  const float tx[3] = {grid_plane_t(g.xs, x0, rb.org.x, rb.inv_dir.x), grid_plane_t(g.xs, xm, rb.org.x, rb.inv_dir.x),
                       grid_plane_t(g.xs, x1, rb.org.x, rb.inv_dir.x)};
  const float ty[3] = {grid_plane_t(g.ys, y0, rb.org.y, rb.inv_dir.y), grid_plane_t(g.ys, ym, rb.org.y, rb.inv_dir.y),
                       grid_plane_t(g.ys, y1, rb.org.y, rb.inv_dir.y)};
  uint32_t mask = 0;
#if !defined(__CUDACC__)
  if constexpr (Variant::vector_children) {
    // The four children's x-y tests as one SIMD operation each (traversal_variant.h), lane
    // k = a + 2b; lane by lane the operations of the scalar form below.
    typedef float F4 __attribute__((vector_size(16)));
    const float nx0 = rb.neg[0] ? tx[1] : tx[0], fx0 = rb.neg[0] ? tx[0] : tx[1];
    const float nx1 = rb.neg[0] ? tx[2] : tx[1], fx1 = rb.neg[0] ? tx[1] : tx[2];
    const float ny0 = rb.neg[1] ? ty[1] : ty[0], fy0 = rb.neg[1] ? ty[0] : ty[1];
    const float ny1 = rb.neg[1] ? ty[2] : ty[1], fy1 = rb.neg[1] ? ty[1] : ty[2];
    const F4 nx{nx0, nx1, nx0, nx1}, fx{fx0, fx1, fx0, fx1}, ny{ny0, ny0, ny1, ny1}, fy{fy0, fy0, fy1, fy1};
    const F4 t0 = F4{} + tmin, t1 = F4{} + tmax;
    F4 tnear, tfar;
    slab_near_far(nx, fx, ny, fy, t0, t1, t0, t1, &tnear, &tfar);  // x and y only (z: neutral)
    const auto pass = tnear <= tfar * kRobustFarScale;
    const uint32_t col_mask = cols == 2 ? 0x3u : 0x1u, exists = rows == 2 ? col_mask | col_mask << 2 : col_mask;
    mask = ((pass[0] ? 1u : 0u) | (pass[1] ? 2u : 0u) | (pass[2] ? 4u : 0u) | (pass[3] ? 8u : 0u)) & exists;
    if (!mask) return 0;
    // Then the z slab of the children let through (the others' lanes are computed and dropped).
    F4 zlo = F4{}, zhi = F4{};
    for (uint32_t k = 0; k < 4; ++k)
      if (mask >> k & 1u) {
        float lo, hi;
        grid_node_z(g, c, ci + (k & 1), cj + (k >> 1), &lo, &hi);
        zlo[k] = lo, zhi[k] = hi;
      }
    const F4 nz = ((rb.neg[2] ? zhi : zlo) - rb.org.z) * rb.inv_dir.z;
    const F4 fz = ((rb.neg[2] ? zlo : zhi) - rb.org.z) * rb.inv_dir.z;
    slab_near_far(nx, fx, ny, fy, nz, fz, t0, t1, &tnear, &tfar);
    const auto hit = tnear <= tfar * kRobustFarScale;
    for (uint32_t k = 0; k < 4; ++k) {
      entry[k] = tnear[k];
      if (!hit[k]) mask &= ~(1u << k);
    }
    return mask;
  } else
#endif
  {
    for (uint32_t b = 0; b < rows; ++b)
      for (uint32_t a = 0; a < cols; ++a) {
        const float nx = rb.neg[0] ? tx[a + 1] : tx[a], fx = rb.neg[0] ? tx[a] : tx[a + 1];
        const float ny = rb.neg[1] ? ty[b + 1] : ty[b], fy = rb.neg[1] ? ty[b] : ty[b + 1];
        float near_xy, far_xy;  // as grid_box_hit: no z range for a ray the x and y slabs keep out
        slab_near_far(nx, fx, ny, fy, tmin, tmax, tmin, tmax, &near_xy, &far_xy);
        if (near_xy <= far_xy * kRobustFarScale) mask |= 1u << (a + 2 * b);
      }
  }
  if (!mask) return 0;
  // The z range of each child the x and y slabs let through, loaded before any is tested: so
  // written, the GPU's form keeps fewer registers (ptxas, sm_90: 72 against 88 with the loads
  // inside the test loop).
  float zmin[4], zmax[4];
  for (uint32_t k = 0; k < 4; ++k)
    if (mask >> k & 1u) grid_node_z(g, c, ci + (k & 1), cj + (k >> 1), &zmin[k], &zmax[k]);
  for (uint32_t b = 0; b < rows; ++b)
    for (uint32_t a = 0; a < cols; ++a) {
      const uint32_t k = a + 2 * b;
      if (!(mask >> k & 1u)) continue;
      const float nx = rb.neg[0] ? tx[a + 1] : tx[a], fx = rb.neg[0] ? tx[a] : tx[a + 1];
      const float ny = rb.neg[1] ? ty[b + 1] : ty[b], fy = rb.neg[1] ? ty[b] : ty[b + 1];
      const float nz = ((rb.neg[2] ? zmax[k] : zmin[k]) - rb.org.z) * rb.inv_dir.z;
      const float fz = ((rb.neg[2] ? zmin[k] : zmax[k]) - rb.org.z) * rb.inv_dir.z;
      if (!slab_interval<Variant>(nx, fx, ny, fy, nz, fz, tmin, tmax, &entry[k])) mask &= ~(1u << k);
    }
  return mask;
}

// Cell (ix, iy)'s two triangles, as intersect_leaf takes a leaf's.
WR_HD void grid_cell(const GridView& g, const RayTriangle& rt, uint32_t ix, uint32_t iy, float tmin,
                     TraceResult* best) {
  const float x0 = load_readonly(g.xs + ix), x1 = load_readonly(g.xs + ix + 1);
  const float y0 = load_readonly(g.ys + iy), y1 = load_readonly(g.ys + iy + 1);
  const float s00[3] = {x0, y0, grid_z(g, ix, iy)};
  const float s11[3] = {x1, y1, grid_z(g, ix + 1, iy + 1)};
  const float s10[3] = {x1, y0, grid_z(g, ix + 1, iy)};
  const float s01[3] = {x0, y1, grid_z(g, ix, iy + 1)};
  const uint32_t first = 2 * (iy * g.cells_x + ix);
  float t;
  if (intersect_ray_triangle(rt, s00, s11, s10, tmin, best->t, &t) && (t < best->t || first < best->triangle)) {
    best->t = t;
    best->triangle = first;
  }
  if (intersect_ray_triangle(rt, s00, s11, s01, tmin, best->t, &t) && (t < best->t || first + 1 < best->triangle)) {
    best->t = t;
    best->triangle = first + 1;
  }
}

// What the walk asks of a grid (View), as static functions: node_hit (a node's box test),
// children_hit (its children's, at once), cell (a cell's triangles) and cells (a level-1 node's
// cells visited, grid_visit_cells or a kind's own way of doing as much). A class template, so that
// a kind defined after the walk (grid_mesh_terrain.h) is found where the walk is instantiated.
template <class View>
struct GridOps;

// The child of `p` (a node's children left to visit) to visit next: its nearest one by entry, 4
// where none is left or the nearest lies beyond the closest hit so far (as conservative as the box
// test: the walk drops it and every farther one).
WR_HD uint32_t grid_next_child(const GridWalkStack::Level& p, float best_t) {
  uint32_t pick = 4;
  for (uint32_t k = 0; k < 4; ++k)
    if ((p.mask >> k & 1u) && (pick == 4 || p.entry[k] < p.entry[pick])) pick = k;
  return pick == 4 || p.entry[pick] > best_t * kRobustFarScale ? 4 : pick;
}

// The cells of a level-1 node whose boxes `pending` holds (mask and entries, as children_hit
// gives them), each one entered visited nearest entry first, test(a, b) testing cell (2i + a,
// 2j + b)'s triangles, until the next lies beyond the closest hit found since.
template <class Probe, class Test>
WR_HD void grid_visit_entered(GridWalkStack::Level* pending, const TraceResult* best, const Probe& probe,
                              const Test& test) {
  for (;;) {
    const uint32_t k = grid_next_child(*pending, best->t);
    if (k == 4) return;
    pending->mask &= ~(1u << k);
    probe.leaf(2);
    test(k & 1u, k >> 1);
  }
}

// The cells of node (1, i, j), for a ray that entered it: their boxes tested at once (children_hit),
// then visited (grid_visit_entered). `pending` is the walk's level-0 entry (GridWalkStack), used here.
template <class Variant, class View, class Probe>
WR_HD void grid_visit_cells(GridWalkStack::Level* pending, const View& g, const RayBox& rb, const RayTriangle& rt,
                            float tmin, uint32_t i, uint32_t j, TraceResult* best, const Probe& probe) {
  probe.grid_children(1);
  pending->mask = GridOps<View>::template children_hit<Variant>(g, rb, 1, i, j, tmin, best->t, pending->entry);
  grid_visit_entered(pending, best, probe,
                     [&](uint32_t a, uint32_t b) { GridOps<View>::cell(g, rt, 2 * i + a, 2 * j + b, tmin, best); });
}

template <>
struct GridOps<GridView> {
  template <class Variant>
  static WR_HD bool node_hit(const GridView& g, const RayBox& rb, uint32_t level, uint32_t i, uint32_t j, float tmin,
                             float tmax, float* entry) {
    return grid_node_hit<Variant>(g, rb, level, i, j, tmin, tmax, entry);
  }
  template <class Variant>
  static WR_HD uint32_t children_hit(const GridView& g, const RayBox& rb, uint32_t level, uint32_t i, uint32_t j,
                                     float tmin, float tmax, float entry[4]) {
    return grid_children_hit<Variant>(g, rb, level, i, j, tmin, tmax, entry);
  }
  static WR_HD void cell(const GridView& g, const RayTriangle& rt, uint32_t i, uint32_t j, float tmin,
                         TraceResult* best) {
    grid_cell(g, rt, i, j, tmin, best);
  }
  template <class Variant, class Probe>
  static WR_HD void cells(GridWalkStack::Level* pending, const GridView& g, const RayBox& rb, const RayTriangle& rt,
                          float tmin, uint32_t i, uint32_t j, TraceResult* best, const Probe& probe) {
    grid_visit_cells<Variant>(pending, g, rb, rt, tmin, i, j, best, probe);
  }
};

// The pyramid walk (the file's comment) through node (start_level, i, j) and its subtree,
// improving *best; View: a height field's grid (GridView) or a grid-topology mesh's
// (grid_mesh_terrain.h), through its GridOps. A node's children are tested at once and visited nearest entry first; a
// child whose entry lies beyond the closest hit found since is dropped (as a BVH's stack entry is). The children still
// to visit are kept per level in *walk (its contents on entry do not matter).
template <class Variant, class View, class Probe>
WR_HD void grid_walk(GridWalkStack* walk, const View& g, const RayBox& rb, const RayTriangle& rt, float tmin,
                     uint32_t start_level, uint32_t start_i, uint32_t start_j, TraceResult* best, const Probe& probe) {
  float entry;
  probe.inner_node();
  if (!GridOps<View>::template node_hit<Variant>(g, rb, start_level, start_i, start_j, tmin, best->t, &entry)) return;
  if (start_level == 0) {
    probe.leaf(2);
    GridOps<View>::cell(g, rt, start_i, start_j, tmin, best);
    return;
  }
  GridWalkStack::Level* pending = walk->level;
  if (start_level == 1) {
    GridOps<View>::template cells<Variant>(&pending[0], g, rb, rt, tmin, start_i, start_j, best, probe);
    return;
  }
  // A node of level 1 has its cells visited at once (GridOps::cells, in pending[0]): the loop runs
  // over the levels above. (Two call sites of cells: one loop that opens every node, start included,
  // took more of the GPU's stack frame.)
  uint32_t level = start_level - 1;   // the level whose pending children are being visited
  uint32_t i = start_i, j = start_j;  // their parent, of level + 1
  probe.grid_children(start_level);
  pending[level].mask = GridOps<View>::template children_hit<Variant>(g, rb, start_level, start_i, start_j, tmin,
                                                                      best->t, pending[level].entry);
  for (;;) {
    GridWalkStack::Level& p = pending[level];
    const uint32_t pick = grid_next_child(p, best->t);
    if (pick == 4) {
      if (level + 1 == start_level) return;
      probe.grid_climb();
      ++level;
      i >>= 1, j >>= 1;
      continue;
    }
    p.mask &= ~(1u << pick);
    const uint32_t ci = 2 * i + (pick & 1), cj = 2 * j + (pick >> 1);
    if (level == 1) {
      GridOps<View>::template cells<Variant>(&pending[0], g, rb, rt, tmin, ci, cj, best, probe);
      continue;
    }
    GridWalkStack::Level& q = pending[level - 1];
    probe.grid_children(level);
    q.mask = GridOps<View>::template children_hit<Variant>(g, rb, level, ci, cj, tmin, best->t, q.entry);
    --level;
    i = ci, j = cj;
  }
}

// Where a ray that moves in x or y can meet a grid: its part inside the grid's box [bmin, bmax]
// (the robust test's interval within [tmin, tmax]) as an x span and a y span, span[0..1] and
// span[2..3], widened by far more than their rounding (about 2^-22 of the magnitudes involved).
// False when the box is missed, as the top node's test would find.
WR_HD bool grid_segment(const RayBox& rb, Vec3 org, Vec3 dir, const float bmin[3], const float bmax[3], float tmin,
                        float tmax, float span[4]) {
  float t0, t1;
  slab_near_far(((rb.neg[0] ? bmax[0] : bmin[0]) - rb.org.x) * rb.inv_dir.x,
                ((rb.neg[0] ? bmin[0] : bmax[0]) - rb.org.x) * rb.inv_dir.x,
                ((rb.neg[1] ? bmax[1] : bmin[1]) - rb.org.y) * rb.inv_dir.y,
                ((rb.neg[1] ? bmin[1] : bmax[1]) - rb.org.y) * rb.inv_dir.y,
                ((rb.neg[2] ? bmax[2] : bmin[2]) - rb.org.z) * rb.inv_dir.z,
                ((rb.neg[2] ? bmin[2] : bmax[2]) - rb.org.z) * rb.inv_dir.z, tmin, tmax, &t0, &t1);
  t1 *= kRobustFarScale;
  if (!(t0 <= t1)) return false;
  const float o[2] = {org.x, org.y}, d[2] = {dir.x, dir.y};
  for (int k = 0; k < 2; ++k) {
    const float a = o[k] + t0 * d[k], b = o[k] + t1 * d[k];
    const float slack = (fabs_(o[k]) + fabs_(t0 * d[k]) + fabs_(t1 * d[k])) * 4.0e-6f;
    span[2 * k] = (a < b ? a : b) - slack;
    span[2 * k + 1] = (a < b ? b : a) + slack;
  }
  return true;
}

// The lowest level, at most `top`, where at most 2 x 2 nodes cover the cells [il, ih] x [jl, jh].
WR_HD uint32_t grid_start_level(uint32_t top, uint32_t il, uint32_t ih, uint32_t jl, uint32_t jh) {
  uint32_t level = 0;
  while (level < top && ((ih >> level) > (il >> level) + 1 || (jh >> level) > (jl >> level) + 1)) ++level;
  return level;
}

// Walks the cells [il, ih] x [jl, jh] of a grid whose top level is `top`: from the lowest level
// where at most 2 x 2 nodes cover them, those nodes' subtrees in the ray's order (a camera ray
// that ends within metres then skips the levels whose nodes all its rays share).
template <class Variant, class View, class Probe>
WR_HD void grid_walk_cells(GridWalkStack* walk, const View& g, const RayBox& rb, const RayTriangle& rt, float tmin,
                           uint32_t top, uint32_t il, uint32_t ih, uint32_t jl, uint32_t jh, TraceResult* best,
                           const Probe& probe) {
  const uint32_t level = grid_start_level(top, il, ih, jl, jh);
  // The (up to) 2 x 2 nodes, near ones first, the axis the ray moves along most inside.
  const uint32_t c0 = il >> level, c1 = ih >> level, r0 = jl >> level, r1 = jh >> level;
  const uint32_t num_cols = c1 > c0 ? 2 : 1, num_rows = r1 > r0 ? 2 : 1;
  const bool y_major = fabs_(rb.inv_dir.y) < fabs_(rb.inv_dir.x);
  for (uint32_t k = 0; k < 4; ++k) {
    // Node a (b) along x (y): the near one first (selected, not indexed: no array in local memory).
    const uint32_t a = y_major ? k >> 1 : k & 1, b = y_major ? k & 1 : k >> 1;
    const uint32_t col = (a == 0) != rb.neg[0] ? c0 : c1, row = (b == 0) != rb.neg[1] ? r0 : r1;
    if (a < num_cols && b < num_rows) grid_walk<Variant>(walk, g, rb, rt, tmin, level, col, row, best, probe);
  }
}

// A height field's pyramid walked along the ray, one node at a time (Tevs, Ihrke, Seidel 2008, the
// maximum mipmap's stackless walk), through the nodes [c0, c1] x [r0, r1] of level `top`
// (grid_walk_cells' start nodes, which hold the cells under the ray's segment), improving *best.
// The walk holds one node: where the ray enters its box it goes down to the child that holds the
// entry point (a cell: its triangles are tested), else it crosses to the neighbour beyond the
// plane the ray leaves through, and up to that neighbour's parent where it left its own. It tests
// only nodes the ray passes through, where grid_walk tests a node's four children at once.
//
// Exactness: its box and triangle tests are grid_walk's (the same planes, z ranges, robust test
// with the closest hit so far as tmax, and grid_cell), so the result is the lowest (t, id) over
// the cells it tests; and it passes over a node only where that node's robust test fails (no
// triangle in it can then hold a hit within the closest one):
// - going down, the child on the near side of a middle plane is passed over only where the entry
//   lies beyond that plane's distance times kRobustFarScale: the child's entry is no smaller than
//   its parent's and its exit no larger than the plane's;
// - crossing the x plane (the ray leaves through it first), the neighbour across the y plane is
//   passed over: its entry is no smaller than the y plane's distance and its exit no larger than
//   the x plane's, so it fails where the y plane's distance exceeds the x plane's times
//   kRobustFarScale. A ray that leaves within that margin of a corner (it may touch both
//   neighbours) is handed back, as is one with no x or no y component; likewise for y;
// - it stops where the plane it leaves through lies beyond the closest hit times kRobustFarScale
//   (every node after it is entered no earlier) or where it leaves the start nodes.
// Returns false where it hands the ray back: grid_walk_cells then walks it (from the hit found so
// far, a real one, which leaves that walk's result as it would be). A walk is also handed back
// after 16 steps per cell along the start nodes' side and 64 per level, many times what a ray
// through them takes, so that it ends whatever rounding does to its steps.
template <class Variant, class Probe>
WR_HD bool grid_ray_walk(const GridView& g, const RayBox& rb, const RayTriangle& rt, float tmin, uint32_t top,
                         uint32_t c0, uint32_t c1, uint32_t r0, uint32_t r1, TraceResult* best, const Probe& probe) {
  if (fabs_(rb.inv_dir.x) == infinity_() || fabs_(rb.inv_dir.y) == infinity_()) return false;
  uint32_t level = top, i = rb.neg[0] ? c1 : c0, j = rb.neg[1] ? r1 : r0;
  const uint64_t max_steps = (uint64_t(32) << top) + 64 * (uint64_t(top) + 1);
  for (uint64_t steps = 0;; ++steps) {
    if (steps == max_steps) return false;
    uint32_t x0, x1, y0, y1;
    grid_node_lines(g, level, i, j, &x0, &x1, &y0, &y1);
    const float ta = grid_plane_t(g.xs, x0, rb.org.x, rb.inv_dir.x),
                tb = grid_plane_t(g.xs, x1, rb.org.x, rb.inv_dir.x);
    const float ua = grid_plane_t(g.ys, y0, rb.org.y, rb.inv_dir.y),
                ub = grid_plane_t(g.ys, y1, rb.org.y, rb.inv_dir.y);
    const float nx = rb.neg[0] ? tb : ta, fx = rb.neg[0] ? ta : tb, ny = rb.neg[1] ? ub : ua, fy = rb.neg[1] ? ua : ub;
    float entry;
    probe.inner_node();
    if (grid_box_hit<Variant>(g, rb, level, i, j, nx, fx, ny, fy, tmin, best->t, &entry)) {
      if (level == 0) {
        probe.leaf(2);
        grid_cell(g, rt, i, j, tmin, best);
      } else {
        // Down to the child that holds the entry point: along an axis with two children, the
        // second (the far one for a ray moving up the axis) where the entry lies beyond the middle
        // plane (as the comment above says), or, for a ray moving down it, where it does not.
        const uint32_t c = level - 1, ci = 2 * i, cj = 2 * j;
        const bool two_x = ci + 1 < grid_level_size(g.cells_x, c), two_y = cj + 1 < grid_level_size(g.cells_y, c);
        const bool far_x = two_x && entry > grid_plane_t(g.xs, (ci + 1) << c, rb.org.x, rb.inv_dir.x) * kRobustFarScale;
        const bool far_y = two_y && entry > grid_plane_t(g.ys, (cj + 1) << c, rb.org.y, rb.inv_dir.y) * kRobustFarScale;
        level = c;
        i = ci + (two_x && far_x != rb.neg[0] ? 1 : 0);
        j = cj + (two_y && far_y != rb.neg[1] ? 1 : 0);
        continue;
      }
    }
    // Across the plane the ray leaves through.
    const bool by_x = fx < fy;
    if (!((by_x ? fx : fy) <= best->t * kRobustFarScale)) return true;
    if (by_x ? !(fx * kRobustFarScale < fy) : !(fy * kRobustFarScale < fx)) return false;
    // The start nodes' first and last at this level (the grid's edge clipping them).
    const uint32_t below = top - level;
    const uint32_t last_i = ((c1 + 1) << below) - 1, last_j = ((r1 + 1) << below) - 1;
    const uint32_t end_i = last_i < grid_level_size(g.cells_x, level) ? last_i : grid_level_size(g.cells_x, level) - 1;
    const uint32_t end_j = last_j < grid_level_size(g.cells_y, level) ? last_j : grid_level_size(g.cells_y, level) - 1;
    uint32_t ni = i, nj = j;
    if (by_x) {
      if (i == (rb.neg[0] ? c0 << below : end_i)) return true;
      ni = rb.neg[0] ? i - 1 : i + 1;
    } else {
      if (j == (rb.neg[1] ? r0 << below : end_j)) return true;
      nj = rb.neg[1] ? j - 1 : j + 1;
    }
    if (level < top && ((ni >> 1) != (i >> 1) || (nj >> 1) != (j >> 1))) {
      probe.grid_climb();
      ++level, ni >>= 1, nj >>= 1;
    }
    i = ni, j = nj;
  }
}

// The cells [*lo, *hi] (of n along an axis whose first plane is `first`, per_unit cells a unit)
// under a segment's span span2[0..1] on that axis, from the mean spacing with a cell more on each
// side; all of them where the span is NaN.
WR_HD void grid_span_cells(const float* span2, float first, float per_unit, uint32_t n, uint32_t* lo, uint32_t* hi) {
  float l = (span2[0] - first) * per_unit - 1.0f;
  float h = (span2[1] - first) * per_unit + 1.0f;
  l = l > 0.0f ? l : 0.0f;  // NaN to 0 as well
  h = h < float(n - 1) ? h : float(n - 1);
  *lo = l < float(n - 1) ? uint32_t(l) : n - 1;
  *hi = h > 0.0f ? uint32_t(h) : 0;  // NaN to 0 as well
  if (!(h == h) || !(l == l)) *lo = 0, *hi = n - 1;
  if (*hi < *lo) *hi = *lo;
}

// A height field's walk for a ray that moves in x or y: the cells under its segment (grid_span_cells).
template <class Variant, class Probe>
WR_HD void grid_trace(GridWalkStack* walk, const GridView& g, const RayBox& rb, const RayTriangle& rt, Vec3 org,
                      Vec3 dir, float tmin, TraceResult* best, const Probe& probe) {
  // The field's box: the columns' and rows' span, the top node's z range.
  float zmin, zmax;
  grid_node_z(g, g.top, 0, 0, &zmin, &zmax);
  const float bmin[3] = {load_readonly(g.xs), load_readonly(g.ys), zmin};
  const float bmax[3] = {load_readonly(g.xs + g.cells_x), load_readonly(g.ys + g.cells_y), zmax};
  float span[4];
  if (!grid_segment(rb, org, dir, bmin, bmax, tmin, best->t, span)) return;
  uint32_t il, ih, jl, jh;
  grid_span_cells(span, load_readonly(g.xs), g.cells_per_x, g.cells_x, &il, &ih);
  grid_span_cells(span + 2, load_readonly(g.ys), g.cells_per_y, g.cells_y, &jl, &jh);
  if constexpr (Variant::ray_walk) {
    const uint32_t level = grid_start_level(g.top, il, ih, jl, jh);
    if (grid_ray_walk<Variant>(g, rb, rt, tmin, level, il >> level, ih >> level, jl >> level, jh >> level, best, probe))
      return;
  }
  grid_walk_cells<Variant>(walk, g, rb, rt, tmin, g.top, il, ih, jl, jh, best, probe);
}

}  // namespace detail

// The column whose closed span [xs[i], xs[i + 1]] holds x, the lowest one where two do, or
// `cells` (none): a guess from the mean spacing, moved until it holds.
WR_HD uint32_t grid_column(const float* xs, uint32_t cells, float per_unit, float x) {
  if (!(x >= load_readonly(xs)) || !(x <= load_readonly(xs + cells))) return cells;  // NaN too
  float guess = (x - load_readonly(xs)) * per_unit;
  guess = guess < 0.0f ? 0.0f : guess;
  uint32_t i = guess < float(cells - 1) ? uint32_t(guess) : cells - 1;
  while (i > 0 && x <= load_readonly(xs + i)) --i;
  while (i + 1 < cells && x > load_readonly(xs + i + 1)) ++i;
  return i;
}

// A ray with no x and y component (a height scan's) meets only the cells whose closed span holds
// its (x, y): up to two columns and two rows where it lies on their common edge. Their triangles
// decide it, as the pyramid would (it enters no other cell's box, and the watertight test, whose
// shear is exact for this ray, accepts only a triangle that holds the point).
template <class Probe>
WR_HD void grid_vertical(const GridView& g, const RayTriangle& rt, Vec3 org, float tmin, TraceResult* best,
                         const Probe& probe) {
  const uint32_t i = grid_column(g.xs, g.cells_x, g.cells_per_x, org.x);
  const uint32_t j = grid_column(g.ys, g.cells_y, g.cells_per_y, org.y);
  if (i == g.cells_x || j == g.cells_y) return;
  const bool two_columns = i + 1 < g.cells_x && org.x == load_readonly(g.xs + i + 1);
  const bool two_rows = j + 1 < g.cells_y && org.y == load_readonly(g.ys + j + 1);
  const uint32_t cells = 1 + (two_columns ? 1 : 0) + (two_rows ? 1 : 0) + (two_columns && two_rows ? 1 : 0);
  probe.leaf(2 * cells);
  detail::grid_cell(g, rt, i, j, tmin, best);
  if (two_columns) detail::grid_cell(g, rt, i + 1, j, tmin, best);
  if (two_rows) detail::grid_cell(g, rt, i, j + 1, tmin, best);
  if (two_columns && two_rows) detail::grid_cell(g, rt, i + 1, j + 1, tmin, best);
}

// Nearest hit of org + t dir, t in [tmin, tmax], among the grid's triangles: what
// trace_closest_hit gives over the same triangles in a BVH (terrain.h's trace_terrain is the way
// in). The walk works in *walk, the sides' BVH is traced with *sides_stack: they may share memory
// (the walk is over when the sides are traced). `probe` (NoTraversalProbe) sees the walk's
// iterations and the sides' traversal.
template <class Variant, int kStackSize, class Probe = NoTraversalProbe>
WR_HD TraceResult trace_grid(GridWalkStack* walk, TraversalStack<kStackSize>* sides_stack, const GridView& g, Vec3 org,
                             Vec3 dir, float tmin, float tmax, const Probe& probe = Probe()) {
  TraceResult best{tmax, kInvalidIndex, false, NodeLink{0, 0}};
  const RayTriangle rt = make_ray_triangle(org, dir);
  if (dir.x == 0.0f && dir.y == 0.0f)
    grid_vertical(g, rt, org, tmin, &best, probe);
  else
    detail::grid_trace<Variant>(walk, g, make_ray_box(org, dir), rt, org, dir, tmin, &best, probe);
  if (g.sides.nodes) {
    const TraceResult s = trace_closest_hit<Variant>(sides_stack, g.sides, org, dir, tmin, best.t, probe);
    // The sides' ids come after every cell's: on a tie of t the cell's stays.
    if (s.triangle != kInvalidIndex && (best.triangle == kInvalidIndex || s.t < best.t)) {
      best.t = s.t;
      best.triangle = g.sides_first + s.triangle;
      best.leaf = s.leaf;
    }
    best.overflowed = s.overflowed;
  }
  return best;
}

// A height field: cell triangles by id (grid_cell's corners and order), a base's by its BVH.
WR_HD bool hit_corners(GridTerrain, const GridView& g, uint32_t id, NodeLink leaf, TriangleCorners* out) {
  if (id >= g.sides_first) return g.sides.nodes && bvh_hit_corners(g.sides, leaf, id - g.sides_first, out);
  const uint32_t cell = id / 2, ix = cell % g.cells_x, iy = cell / g.cells_x;
  const float x0 = load_readonly(g.xs + ix), x1 = load_readonly(g.xs + ix + 1);
  const float y0 = load_readonly(g.ys + iy), y1 = load_readonly(g.ys + iy + 1);
  const Vec3 s00{x0, y0, detail::grid_z(g, ix, iy)}, s11{x1, y1, detail::grid_z(g, ix + 1, iy + 1)};
  *out = id % 2 == 0 ? TriangleCorners{s00, s11, Vec3{x1, y0, detail::grid_z(g, ix + 1, iy)}}
                     : TriangleCorners{s00, s11, Vec3{x0, y1, detail::grid_z(g, ix, iy + 1)}};
  return true;
}

}  // namespace wr
