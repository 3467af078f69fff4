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
// the levels above are stored. The walk is stackless: children are visited in an order fixed by
// the signs of the ray's x and y direction (the near corner first), and from a node the walk
// goes to its next sibling in that order, or up to the parent's, by index arithmetic alone.
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
// sample, against about 70 for the BVH.
#pragma once

#include "bvh_traverse.h"

namespace wr {

// Levels of the pyramid: cells_x and cells_y < 2^31.
constexpr int kMaxGridLevels = 32;

struct GridView {
  const float* xs;      // (cells_x + 1) vertex x of each column of samples
  const float* ys;      // (cells_y + 1) vertex y of each row
  const float* zs;      // ((cells_y + 1) x (cells_x + 1)) vertex z, row iy, column ix
  const float* bounds;  // z min and max of each node of levels 1 .. top: level l's
                        // (height(l) x width(l)) nodes from node level_offset[l] on, 2 floats each
  uint32_t cells_x, cells_y;
  uint32_t top;  // the level whose one node covers every cell
  uint32_t level_offset[kMaxGridLevels];
  BvhView sides;         // a base's walls and bottom; sides.nodes null without a base
  uint32_t sides_first;  // their first triangle id: 2 cells_x cells_y
};

// Nodes of level l along a side of `cells` cells: ceil(cells / 2^l).
WR_HD uint32_t grid_level_size(uint32_t cells, uint32_t level) { return ((cells - 1) >> level) + 1; }

struct GridTerrain {
  using View = GridView;
};

namespace detail {

WR_HD float grid_z(const GridView& g, uint64_t ix, uint64_t iy) {
  return load_readonly(g.zs + iy * (uint64_t(g.cells_x) + 1) + ix);
}

// The robust box test of node (level, i, j) within [tmin, tmax].
template <class Variant>
WR_HD bool grid_node_hit(const GridView& g, const RayBox& rb, uint32_t level, uint32_t i, uint32_t j, float tmin,
                         float tmax, float* entry) {
  const uint64_t x0 = uint64_t(i) << level, y0 = uint64_t(j) << level;
  const uint64_t span = uint64_t(1) << level;
  const uint64_t x1 = x0 + span < g.cells_x ? x0 + span : g.cells_x;
  const uint64_t y1 = y0 + span < g.cells_y ? y0 + span : g.cells_y;
  float zmin, zmax;
  if (level == 0) {
    const float a = grid_z(g, x0, y0), b = grid_z(g, x1, y0), c = grid_z(g, x0, y1), d = grid_z(g, x1, y1);
    const float lo0 = a < b ? a : b, lo1 = c < d ? c : d, hi0 = a < b ? b : a, hi1 = c < d ? d : c;
    zmin = lo0 < lo1 ? lo0 : lo1;
    zmax = hi0 < hi1 ? hi1 : hi0;
  } else {
    const uint64_t node = g.level_offset[level] + uint64_t(j) * grid_level_size(g.cells_x, level) + i;
    zmin = load_readonly(g.bounds + 2 * node);
    zmax = load_readonly(g.bounds + 2 * node + 1);
  }
  const float bmin[3] = {load_readonly(g.xs + x0), load_readonly(g.ys + y0), zmin};
  const float bmax[3] = {load_readonly(g.xs + x1), load_readonly(g.ys + y1), zmax};
  return intersect_ray_box<Variant>(rb, bmin, bmax, tmin, tmax, entry);
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

}  // namespace detail

// Nearest hit of org + t dir, t in [tmin, tmax], among the grid's triangles: what
// trace_closest_hit gives over the same triangles in a BVH. kStackSize: the sides' BVH's.
template <class Variant, int kStackSize = kTraversalStackSize>
WR_HD TraceResult trace_terrain(GridTerrain, const GridView& g, Vec3 org, Vec3 dir, float tmin, float tmax) {
  TraceResult best{tmax, kInvalidIndex, false};
  const RayBox rb = make_ray_box(org, dir);
  const RayTriangle rt = make_ray_triangle(org, dir);
  // The child nearest the ray's start along x (and y): the high one when the ray goes down x.
  const uint32_t fx = rb.neg[0] ? 1u : 0u, fy = rb.neg[1] ? 1u : 0u;
  uint32_t level = g.top, i = 0, j = 0;
  for (;;) {
    float entry;
    if (detail::grid_node_hit<Variant>(g, rb, level, i, j, tmin, best.t, &entry)) {
      if (level > 0) {  // down to the first child (in the ray's order) that exists
        --level;
        const uint32_t w = grid_level_size(g.cells_x, level), h = grid_level_size(g.cells_y, level);
        const uint32_t ci = 2 * i + fx, cj = 2 * j + fy;
        // (2i, 2j) always exists; a near child past the grid's edge is skipped for its neighbour.
        if (ci < w && cj < h) {
          i = ci, j = cj;
        } else if (cj < h) {
          i = 2 * i + 1 - fx, j = cj;  // k = 1: (fx ^ 1, fy); ci >= w, so the other column
        } else if (ci < w) {
          i = ci, j = 2 * j + 1 - fy;
        } else {
          i = 2 * i, j = 2 * j;
        }
        continue;
      }
      detail::grid_cell(g, rt, i, j, tmin, &best);
    }
    // On to the next sibling in the ray's order, or up to the parent's.
    for (;;) {
      if (level == g.top) {
        if (g.sides.nodes) {
          const TraceResult s = trace_closest_hit<Variant, kStackSize>(g.sides, org, dir, tmin, best.t);
          // The sides' ids come after every cell's: on a tie of t the cell's stays.
          if (s.triangle != kInvalidIndex && (best.triangle == kInvalidIndex || s.t < best.t)) {
            best.t = s.t;
            best.triangle = g.sides_first + s.triangle;
          }
          best.overflowed = s.overflowed;
        }
        return best;
      }
      const uint32_t w = grid_level_size(g.cells_x, level), h = grid_level_size(g.cells_y, level);
      const uint32_t pi = i >> 1, pj = j >> 1;
      uint32_t k = ((i & 1) ^ fx) | (((j & 1) ^ fy) << 1);  // this node's place in the ray's order
      bool moved = false;
      while (++k < 4) {
        const uint32_t ci = 2 * pi + ((k & 1) ^ fx), cj = 2 * pj + ((k >> 1) ^ fy);
        if (ci < w && cj < h) {
          i = ci, j = cj;
          moved = true;
          break;
        }
      }
      if (moved) break;
      ++level;
      i = pi, j = pj;
    }
  }
}

}  // namespace wr
