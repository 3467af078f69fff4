// The grid kind for grid-topology meshes (terrain.h): the triangle meshes legged_gym's and
// IsaacLab's convert_heightfield_to_trimesh return, taken as they are, traced through their grid
// with the walk of grid_terrain.h, the same hits as a BVH over the same arrays, bit for bit.
//
// Such a mesh keeps a grid's topology but not its geometry: with a slope threshold, vertices move
// by one cell in x or y to make vertical walls (legged_gym: terrain_utils.py,
// convert_heightfield_to_trimesh; Rudin et al., "Learning to Walk in Minutes Using Massively
// Parallel Deep Reinforcement Learning", CoRL 2021). So the vertices are kept as given, a cell's
// box is that of its own four vertices, and every node above has its whole box (below: most are
// their lines' with a z range, the others are kept whole).
//
// Layout (what scene/grid_mesh_builder.cpp recognises): rows x cols vertices, vertex (r, c) at
// r cols + c; cell (r, c) of (rows - 1) x (cols - 1) holds triangles 2 (r (cols - 1) + c) + 0 =
// (v(r, c), v(r + 1, c + 1), v(r, c + 1)) and + 1 = (v(r, c), v(r + 1, c), v(r + 1, c + 1)), in
// that vertex order. Node (level, i, j) covers cells [i 2^level, ...) of r and [j 2^level, ...) of c.
//
// Vertices: most of such a mesh's vertices sit on the grid, their x that of their vertex row and
// their y that of their column (convert_heightfield_to_trimesh's meshgrid), so the grid keeps an x
// per vertex row, a y per vertex column and a z per vertex, and the x and y of the other vertices
// (the moved ones) in a side table, marked by a bit per vertex: the same floats the caller gave,
// rebuilt by loads alone (no arithmetic, so no backend can round them otherwise). The builder
// chooses the rows' x and the columns' y (scene/grid_mesh_builder.cpp).
//
// A vertical ray (a height scan's) looks its cell up by the rows' x and the columns' y, as a height
// field's does, where that cell is alone (GridMeshView::lines marks it); elsewhere (near moved
// vertices) the reach arrays give the cells whose extent may hold it.
//
// Nodes above the cells: a node's box is most often its lines' (the x of its first and last vertex
// rows, the y of its first and last columns: a height field's node box) with its z range, so it
// keeps its z range alone, 8 bytes, as a height field's pyramid does; a node whose box reaches
// past its lines (a moved vertex on its edge, moved outwards; vertex rows whose x do not increase)
// keeps its whole box in a side table.
//
// Memory: 64 bytes per 14 vertices (their z and flags), 8 per moved vertex, 4 per vertex row and
// column, 16 per row and column of cells (where rays can meet them), 8 per node above the cells
// (about a third of the cells) and 24 more for those whose box reaches past their lines and, where
// the mesh has zero-area triangles (moved vertices make some), a bit per triangle: under 8 bytes
// per sample and 8 more per moved vertex (and 24 per node reaching past its lines).
#pragma once

#include "grid_terrain.h"

namespace wr {

// GridLevels' cells_x and cells_y: rows - 1 and cols - 1 (i runs over rows, j over columns).
struct GridMeshView : GridLevels {
  const float* xs;  // (rows) the x of vertex row r's vertices, but the moved ones'
  const float* ys;  // (cols) the y of vertex column c's vertices, but the moved ones'
  // The vertices' z and flags, 14 vertices to a 64-byte line (so that a cell's corners and their
  // flags take a line per row): words 16 b .. 16 b + 15 hold vertices 14 b .. 14 b + 13 (vertex
  // (r, c) is r cols + c), words 16 b + 2 + j vertex 14 b + j's z (its float's bits) and words
  // 16 b, 16 b + 1 the low and high halves of their flags: bits 0 .. 13 mark the moved ones (bit j:
  // vertex 14 b + j's x or y is not its row's or column's), bits 14 .. 27 those that are the first
  // vertex v(r, c) of a cell alone where it lies (its four vertices not moved, no other cell's extent
  // meeting the inside of its box [xs[r], xs[r + 1]] x [ys[c], ys[c + 1]]: a vertical ray inside it
  // looks it up, `lookup`), bits 32 .. 63 count the moved vertices before 14 b.
  const uint32_t* lines;  // (16 ceil(rows cols / 14))
  const float* moved_xy;  // (moved vertices x 2) their x and y, in vertex order
  // Each node above the cells (GridLevels): its z min and max where its box is its lines' (x
  // [xs[x0], xs[x1]], y [ys[y0], ys[y1]], grid_node_lines); else a NaN, then the index of its box in
  // side_boxes (the second float's bits).
  const float* ranges;        // (2 x nodes above the cells)
  const float* side_boxes;    // (6 x nodes marked in ranges) min x y z, max x y z
  const uint32_t* zero_area;  // bit 2 cell + k: triangle k of that cell (cell r (cols - 1) + c) has
                              // zero area, never hit (the BVH leaves it out); null when none has
  // Where a ray's x span can meet cells (and its y span): for the cell rows r (their x extent is
  // that of vertex rows r and r + 1), the largest x max of rows 0 .. r, then the smallest x min of
  // rows r .. end, both non-decreasing, (cells_x) each; the same in y for the cell columns.
  const float* reach;              // (2 cells_x + 2 cells_y)
  bool lookup;                     // xs and ys increase strictly: a point's cell is looked up by them (grid_column)
  float cells_per_x, cells_per_y;  // cells_x / (xs[cells_x] - xs[0]), and in y: grid_column's guess
};

struct GridMeshTerrain {
  using View = GridMeshView;
};

namespace detail {

constexpr uint32_t kGridLineVertices = 14;  // vertices per line of GridMeshView::lines

// Vertex indices k = r cols + c are 32-bit (the builder takes at most 2^32 vertices, as a mesh's
// uint32 indices can name): a GPU divides them by 14 with a 32-bit multiply and a shift, where a
// 64-bit index takes a 64-bit multiply-high, several instructions, at every vertex read.

// The first word of vertex k's line (GridMeshView::lines).
WR_HD const uint32_t* grid_line(const GridMeshView& g, uint32_t k) {
  return g.lines + 16 * uint64_t(k / kGridLineVertices);
}

// Vertex k's z (GridMeshView::lines).
WR_HD float grid_vertex_z(const GridMeshView& g, uint32_t k) {
  return float_from_bits(load_readonly(grid_line(g, k) + 2 + k % kGridLineVertices));
}

// The low half of the flags of vertex k's line: the marks of its moved vertices and lone cells.
WR_HD uint32_t grid_line_flags(const GridMeshView& g, uint32_t k) { return load_readonly(grid_line(g, k)); }

// Moved vertex k's x and y (GridMeshView::lines marks it): its entry in the side table, after the
// moved vertices its line counts and those its line marks below it.
WR_HD void grid_moved_xy(const GridMeshView& g, uint32_t k, float* x, float* y) {
  const uint32_t* line = grid_line(g, k);
  const uint32_t j = k % kGridLineVertices;
  const uint64_t m = load_readonly(line + 1) + popcount32(load_readonly(line) & ((1u << j) - 1u));
  *x = load_readonly(g.moved_xy + 2 * m), *y = load_readonly(g.moved_xy + 2 * m + 1);
}

// The marks of vertices k .. k + n - 1 (bit b: k + b is moved), n <= 3, all of them vertices.
WR_HD uint32_t grid_moved_marks(const GridMeshView& g, uint32_t k, uint32_t n) {
  constexpr uint32_t kMoved = (1u << kGridLineVertices) - 1u;
  const uint32_t j = k % kGridLineVertices;
  uint32_t marks = (grid_line_flags(g, k) & kMoved) >> j;
  if (j + n > kGridLineVertices) marks |= (grid_line_flags(g, k + n - 1) & kMoved) << (kGridLineVertices - j);
  return marks & ((1u << n) - 1u);
}

// The z of vertices k .. k + n - 1 in z[0 .. n - 1] and their marks (bit b: k + b is moved), n <= 3,
// all of them vertices: one line's flags and words read, two where the run crosses a line's end.
WR_HD uint32_t grid_vertex_run(const GridMeshView& g, uint32_t k, uint32_t n, float z[3]) {
  constexpr uint32_t kMoved = (1u << kGridLineVertices) - 1u;
  const uint32_t* line = grid_line(g, k);
  const uint32_t j = k % kGridLineVertices;
  uint32_t marks = (load_readonly(line) & kMoved) >> j;
  if (j + n <= kGridLineVertices) {
    for (uint32_t b = 0; b < n; ++b) z[b] = float_from_bits(load_readonly(line + 2 + j + b));
  } else {
    marks |= (load_readonly(line + 16) & kMoved) << (kGridLineVertices - j);
    for (uint32_t b = 0; b < n; ++b)  // the next line's word 2 + m for its vertex m = j + b - 14
      z[b] = float_from_bits(load_readonly(line + (j + b < kGridLineVertices ? 2 + j + b : 4 + j + b)));
  }
  return marks & ((1u << n) - 1u);
}

// Whether cell (r, c) is alone where it lies (GridMeshView::lines).
WR_HD bool grid_cell_alone(const GridMeshView& g, uint32_t r, uint32_t c) {
  const uint32_t k = r * (g.cells_y + 1) + c;
  return grid_line_flags(g, k) >> (kGridLineVertices + k % kGridLineVertices) & 1u;
}

// Vertex (r, c), at k = r cols + c, as the caller gave it, `moved` its mark.
WR_HD Vec3 grid_vertex_at(const GridMeshView& g, uint32_t r, uint32_t c, uint32_t k, bool moved) {
  Vec3 v{load_readonly(g.xs + r), load_readonly(g.ys + c), grid_vertex_z(g, k)};
  if (moved) grid_moved_xy(g, k, &v.x, &v.y);
  return v;
}

// Vertex (r, c), as the caller gave it (the vertices of one cell: grid_cell_marks).
WR_HD Vec3 grid_vertex(const GridMeshView& g, uint32_t r, uint32_t c) {
  const uint32_t k = r * (g.cells_y + 1) + c;
  return grid_vertex_at(g, r, c, k, grid_moved_marks(g, k, 1));
}

// The marks of cell (r, c)'s vertices v(r, c), v(r, c + 1), v(r + 1, c), v(r + 1, c + 1) (bits 0
// to 3), read at once; *k: vertex (r, c)'s index.
WR_HD uint32_t grid_cell_marks(const GridMeshView& g, uint32_t r, uint32_t c, uint32_t* k) {
  const uint32_t row = g.cells_y + 1;
  *k = r * row + c;
  return grid_moved_marks(g, *k, 2) | grid_moved_marks(g, *k + row, 2) << 2;
}

// The x and y of cell (r, c)'s vertices v(r, c), v(r, c + 1), v(r + 1, c), v(r + 1, c + 1), as the
// caller gave them: the rows' and columns', and where one is moved, its own.
WR_HD void grid_cell_xy(const GridMeshView& g, uint32_t r, uint32_t c, float x[4], float y[4]) {
  x[0] = x[1] = load_readonly(g.xs + r), x[2] = x[3] = load_readonly(g.xs + r + 1);
  y[0] = y[2] = load_readonly(g.ys + c), y[1] = y[3] = load_readonly(g.ys + c + 1);
  uint32_t k;
  const uint32_t marks = grid_cell_marks(g, r, c, &k);
  if (marks == 0) return;
  const uint32_t row = g.cells_y + 1;
  for (uint32_t v = 0; v < 4; ++v)
    if (marks >> v & 1u) grid_moved_xy(g, k + (v >> 1) * row + (v & 1u), &x[v], &y[v]);
}

// Vertices (r + a, c + b), a < nr and b < nc (nr, nc <= 3), as the caller gave them: v[a][b] (the
// corners of up to 2 x 2 cells, read once for them all).
WR_HD void grid_vertex_block(const GridMeshView& g, uint32_t r, uint32_t c, uint32_t nr, uint32_t nc, Vec3 v[3][3]) {
  const uint32_t row = g.cells_y + 1;
  float y[3];
  for (uint32_t b = 0; b < nc; ++b) y[b] = load_readonly(g.ys + c + b);
  for (uint32_t a = 0; a < nr; ++a) {
    const float x = load_readonly(g.xs + r + a);
    const uint32_t k = (r + a) * row + c;
    float z[3];
    const uint32_t marks = grid_vertex_run(g, k, nc, z);
    for (uint32_t b = 0; b < nc; ++b) v[a][b] = Vec3{x, y[b], z[b]};
    for (uint32_t b = 0; b < nc; ++b)
      if (marks >> b & 1u) grid_moved_xy(g, k + b, &v[a][b].x, &v[a][b].y);
  }
}

// Cell (r, c)'s vertices v(r, c), v(r, c + 1), v(r + 1, c), v(r + 1, c + 1), as the caller gave them.
WR_HD void grid_cell_corners(const GridMeshView& g, uint32_t r, uint32_t c, Vec3 v[4]) {
  Vec3 block[3][3];
  grid_vertex_block(g, r, c, 2, 2, block);
  v[0] = block[0][0], v[1] = block[0][1], v[2] = block[1][0], v[3] = block[1][1];
}

// Cell (r, c)'s zero-area marks (GridMeshView::zero_area): bit k set where its triangle k has zero
// area (never hit).
WR_HD uint32_t grid_zero_area_marks(const GridMeshView& g, uint32_t r, uint32_t c) {
  const uint32_t first = 2 * (r * g.cells_y + c);
  return g.zero_area ? load_readonly(g.zero_area + first / 32) >> (first % 32) & 3u : 0u;
}

// The extent of four corners' x (or y) a, b, c, d, taken in that order. A template over the number
// type, as grid_cell_z: the CPU packets run it on the four cells of a node at once.
template <class F>
WR_HD void grid_corners_extent(F a, F b, F c, F d, F* lo, F* hi) {
  *lo = *hi = a;
  *lo = b < *lo ? b : *lo, *hi = b > *hi ? b : *hi;
  *lo = c < *lo ? c : *lo, *hi = c > *hi ? c : *hi;
  *lo = d < *lo ? d : *lo, *hi = d > *hi ? d : *hi;
}

// The box of the four vertices a, b, c, d.
WR_HD void grid_corners_box(Vec3 a, Vec3 b, Vec3 c, Vec3 d, float bmin[3], float bmax[3]) {
  grid_corners_extent(a.x, b.x, c.x, d.x, &bmin[0], &bmax[0]);
  grid_corners_extent(a.y, b.y, c.y, d.y, &bmin[1], &bmax[1]);
  grid_cell_z(a.z, b.z, c.z, d.z, &bmin[2], &bmax[2]);
}

// The box of node (level, i, j), level >= 1, whose z range (GridMeshView::ranges) is zmin, zmax: its
// lines' x and y, or its box in the side table.
WR_HD void grid_range_box(const GridMeshView& g, uint32_t level, uint32_t i, uint32_t j, float zmin, float zmax,
                          float bmin[3], float bmax[3]) {
  if (zmin != zmin) {
    const float* b = g.side_boxes + 6 * uint64_t(bits_from_float(zmax));
    for (int a = 0; a < 3; ++a) bmin[a] = load_readonly(b + a), bmax[a] = load_readonly(b + 3 + a);
    return;
  }
  uint32_t x0, x1, y0, y1;
  grid_node_lines(g, level, i, j, &x0, &x1, &y0, &y1);
  bmin[0] = load_readonly(g.xs + x0), bmin[1] = load_readonly(g.ys + y0), bmin[2] = zmin;
  bmax[0] = load_readonly(g.xs + x1), bmax[1] = load_readonly(g.ys + y1), bmax[2] = zmax;
}

// The box of node (level, i, j), level >= 1, from its z range (GridMeshView::ranges).
WR_HD void grid_stored_box(const GridMeshView& g, uint32_t level, uint32_t i, uint32_t j, float bmin[3],
                           float bmax[3]) {
  const uint64_t node = g.node_index(level, i, j);
  grid_range_box(g, level, i, j, load_readonly(g.ranges + 2 * node), load_readonly(g.ranges + 2 * node + 1), bmin,
                 bmax);
}

// The box of node (level, i, j): a cell's from its four vertices, a node above from its z range.
WR_HD void grid_node_box(const GridMeshView& g, uint32_t level, uint32_t i, uint32_t j, float bmin[3], float bmax[3]) {
  if (level == 0) {
    Vec3 v[4];
    grid_cell_corners(g, i, j, v);
    grid_corners_box(v[0], v[1], v[2], v[3], bmin, bmax);
    return;
  }
  grid_stored_box(g, level, i, j, bmin, bmax);
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

  // The children of node (level, i, j), level >= 2 (a level-1 node's cells: `cells`), from their
  // boxes (grid_stored_box): child (2i + a, 2j + b) is bit a + 2b.
  template <class Variant>
  static WR_HD uint32_t children_hit(const GridMeshView& g, const RayBox& rb, uint32_t level, uint32_t i, uint32_t j,
                                     float tmin, float tmax, float entry[4]) {
    const uint32_t c = level - 1;
    const uint32_t cols = 2 * i + 1 < grid_level_size(g.cells_x, c) ? 2 : 1;
    const uint32_t rows = 2 * j + 1 < grid_level_size(g.cells_y, c) ? 2 : 1;
    uint32_t mask = 0;
    for (uint32_t b = 0; b < rows; ++b)
      for (uint32_t a = 0; a < cols; ++a) {
        float bmin[3], bmax[3];
        grid_stored_box(g, c, 2 * i + a, 2 * j + b, bmin, bmax);
        if (intersect_ray_box<Variant>(rb, bmin, bmax, tmin, tmax, &entry[a + 2 * b])) mask |= 1u << (a + 2 * b);
      }
    return mask;
  }

  // The cells of node (1, i, j), for a ray that entered it, as grid_visit_cells visits them (in
  // `pending`, the walk's level-0 entry): the node's 3 x 3 vertices read once for its four cells'
  // boxes and triangles; a node at the grid's edge, with fewer cells, each cell read for itself.
  template <class Variant, class Probe>
  static WR_HD void cells(GridWalkStack::Level* pending, const GridMeshView& g, const RayBox& rb, const RayTriangle& rt,
                          float tmin, uint32_t i, uint32_t j, TraceResult* best, const Probe& probe) {
    const bool full = 2 * i + 1 < g.cells_x && 2 * j + 1 < g.cells_y;
    Vec3 v[3][3];  // constant indices only, so that the GPU keeps the block in registers
    probe.grid_children(1);
    pending->mask = 0;
    if (full) {
      grid_vertex_block(g, 2 * i, 2 * j, 3, 3, v);
      for (uint32_t k = 0; k < 4; ++k) {  // cell (2i + a, 2j + b), k = a + 2b, its box as grid_node_box makes it
        const uint32_t a = k & 1u, b = k >> 1;
        float bmin[3], bmax[3];
        grid_corners_box(v[a][b], v[a][b + 1], v[a + 1][b], v[a + 1][b + 1], bmin, bmax);
        if (intersect_ray_box<Variant>(rb, bmin, bmax, tmin, best->t, &pending->entry[k])) pending->mask |= 1u << k;
      }
    } else {
      for (uint32_t k = 0; k < 4; ++k)
        if (2 * i + (k & 1) < g.cells_x && 2 * j + (k >> 1) < g.cells_y &&
            node_hit<Variant>(g, rb, 0, 2 * i + (k & 1), 2 * j + (k >> 1), tmin, best->t, &pending->entry[k]))
          pending->mask |= 1u << k;
    }
    grid_visit_entered(pending, best, probe, [&](uint32_t a, uint32_t b) {
      if (!full) {
        cell(g, rt, 2 * i + a, 2 * j + b, tmin, best);
        return;
      }
      const auto at = [&](uint32_t corner) {  // v[a + da][b + db] for corner da 2 + db, selected
        const uint32_t da = corner >> 1, db = corner & 1u;
        const Vec3 lo = a ? v[1 + da][db] : v[da][db], hi = a ? v[1 + da][1 + db] : v[da][1 + db];
        return b ? hi : lo;
      };
      cell_triangles(g, rt, 2 * i + a, 2 * j + b, at, tmin, best);
    });
  }

  // Cell (r, c)'s two triangles, as intersect_leaf takes a leaf's; `unmoved`: its vertices are known
  // not to be moved (a lone cell's), their marks not read.
  static WR_HD void cell(const GridMeshView& g, const RayTriangle& rt, uint32_t r, uint32_t c, float tmin,
                         TraceResult* best, bool unmoved = false) {
    // Each triangle's corners read for it alone (v00 and v11 twice, from cache): the GPU keeps less
    // live across the first triangle's test.
    const uint32_t row = g.cells_y + 1;
    uint32_t k = r * row + c;
    const uint32_t marks = unmoved ? 0u : grid_cell_marks(g, r, c, &k);
    const auto at = [&](uint32_t a) {  // corner a of v00, v01, v10, v11
      return grid_vertex_at(g, r + (a >> 1), c + (a & 1u), k + (a >> 1) * row + (a & 1u), marks >> a & 1u);
    };
    cell_triangles(g, rt, r, c, at, tmin, best);
  }

  // Cell (r, c)'s triangles (v00, v11, v01) and (v00, v10, v11), ids 2 (r cells_y + c) and + 1, each
  // unless it has zero area, at(a) giving corner a of v00, v01, v10, v11.
  template <class Corner>
  static WR_HD void cell_triangles(const GridMeshView& g, const RayTriangle& rt, uint32_t r, uint32_t c,
                                   const Corner& at, float tmin, TraceResult* best) {
    const uint32_t first = 2 * (r * g.cells_y + c);
    const uint32_t skip = grid_zero_area_marks(g, r, c);
    float t;
    if (!(skip & 1u) && intersect_ray_triangle(rt, at(0), at(3), at(1), tmin, best->t, &t) &&
        (t < best->t || first < best->triangle)) {
      best->t = t;
      best->triangle = first;
    }
    if (!(skip & 2u) && intersect_ray_triangle(rt, at(0), at(2), at(3), tmin, best->t, &t) &&
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
  float cx[4], cy[4];
  grid_cell_xy(g, r, c, cx, cy);
  // The extent [min, max] holds x when a corner lies at or below it and one at or above it.
  bool below_x = false, above_x = false, below_y = false, above_y = false;
  for (int k = 0; k < 4; ++k) {
    below_x |= cx[k] <= x, above_x |= cx[k] >= x;
    below_y |= cy[k] <= y, above_y |= cy[k] >= y;
  }
  return below_x && above_x && below_y && above_y;
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
    // Inside the box of a cell that is alone there (GridMeshView::lines), that cell decides it: no
    // other's extent holds the point. On a box's border (two cells hold it) or elsewhere, the reach.
    bool alone = false;
    if (g.lookup) {
      il = ih = grid_column(g.xs, g.cells_x, g.cells_per_x, org.x);
      jl = jh = grid_column(g.ys, g.cells_y, g.cells_per_y, org.y);
      alone = il < g.cells_x && jl < g.cells_y && org.x > load_readonly(g.xs + il) &&
              org.x < load_readonly(g.xs + il + 1) && org.y > load_readonly(g.ys + jl) &&
              org.y < load_readonly(g.ys + jl + 1) && detail::grid_cell_alone(g, il, jl);
    }
    if (!alone && (!detail::grid_reach(g.reach, g.cells_x, org.x, org.x, &il, &ih) ||
                   !detail::grid_reach(g.reach + 2 * g.cells_x, g.cells_y, org.y, org.y, &jl, &jh)))
      return best;
    if ((ih - il + 1) * (jh - jl + 1) <= 16) {
      const RayTriangle rt = make_ray_triangle(org, dir);
      for (uint32_t i = il; i <= ih; ++i)
        for (uint32_t j = jl; j <= jh; ++j) {
          if (!alone) probe.inner_node();  // the cell's x-y box
          if (alone || detail::grid_cell_holds(g, i, j, org.x, org.y)) {
            probe.leaf(2);
            detail::GridOps<GridMeshView>::cell(g, rt, i, j, tmin, &best, alone);
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

// A grid-topology mesh: cell triangles by id (GridOps<GridMeshView>::cell's corners and order).
WR_HD bool hit_corners(GridMeshTerrain, const GridMeshView& g, uint32_t id, NodeLink, TriangleCorners* out) {
  const uint32_t cell = id / 2, r = cell / g.cells_y, c = cell % g.cells_y;
  using detail::grid_vertex;
  *out = id % 2 == 0 ? TriangleCorners{grid_vertex(g, r, c), grid_vertex(g, r + 1, c + 1), grid_vertex(g, r, c + 1)}
                     : TriangleCorners{grid_vertex(g, r, c), grid_vertex(g, r + 1, c), grid_vertex(g, r + 1, c + 1)};
  return true;
}

}  // namespace wr
