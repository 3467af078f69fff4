// The surface a hit lies on, for the outputs that report more than a distance (a pattern sensor's
// hit normals: wr_patterns.h): the corners of the triangle a trace took, found again from what the
// trace kept (its id, and for a BVH the leaf block holding it: TraceResult::leaf), and its normal.
// Nothing here runs unless such an output is asked for, so the traversal itself only records
// where its hit lies.
#pragma once

#include "instances.h"
#include "terrain.h"

namespace wr {

// A triangle's three corners, in the order the triangle test took them (ray_triangle.h).
struct TriangleCorners {
  Vec3 a, b, c;
};

// Triangle `id` of the leaf block `leaf` of a BVH (the leaf its trace recorded). False where the
// block does not hold it (a miss: leaf is then not the hit's).
WR_HD bool bvh_hit_corners(const BvhView& bvh, NodeLink leaf, uint32_t id, TriangleCorners* out) {
  if (leaf.count == 0) return false;
  const LeafBlock block = leaf_block(bvh, leaf);
  for (uint32_t i = 0; i < block.triangles; ++i) {
    if (load_readonly(block.ids + i) != id) continue;
    const uint32_t corners = load_readonly(block.corners + i);
    float v[3][3];
    for (int k = 0; k < 3; ++k) load_leaf_vertex(block, corner_index(corners, k), v[k]);
    *out = TriangleCorners{Vec3{v[0][0], v[0][1], v[0][2]}, Vec3{v[1][0], v[1][1], v[1][2]},
                           Vec3{v[2][0], v[2][1], v[2][2]}};
    return true;
  }
  return false;
}

// The hit triangle's corners, per terrain kind (terrain.h), in the terrain's frame.
WR_HD bool hit_corners(BvhTerrain, const BvhView& bvh, uint32_t id, NodeLink leaf, TriangleCorners* out) {
  return bvh_hit_corners(bvh, leaf, id, out);
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

// A grid-topology mesh: cell triangles by id (GridOps<GridMeshView>::cell's corners and order).
WR_HD bool hit_corners(GridMeshTerrain, const GridMeshView& g, uint32_t id, NodeLink, TriangleCorners* out) {
  const uint32_t cell = id / 2, r = cell / g.cells_y, c = cell % g.cells_y;
  using detail::grid_vertex;
  *out = id % 2 == 0 ? TriangleCorners{grid_vertex(g, r, c), grid_vertex(g, r + 1, c + 1), grid_vertex(g, r, c + 1)}
                     : TriangleCorners{grid_vertex(g, r, c), grid_vertex(g, r + 1, c), grid_vertex(g, r + 1, c + 1)};
  return true;
}

// The unit normal of the triangle `corners`, turned by `rot` (the instance's rotation; null: none)
// and facing the ray (dot(n, dir) <= 0: the side the ray came from, whichever way the triangle
// winds; the watertight test takes both sides). NaN for a triangle of zero area (never hit).
WR_HD Vec3 facing_normal(const TriangleCorners& t, const float* rot, Vec3 dir) {
  Vec3 n = cross(t.b - t.a, t.c - t.a);
  if (rot) n = rotate(rot, n);
  return n * ((dot(n, dir) > 0.0f ? -1.0f : 1.0f) / sqrt_(dot(n, n)));
}

// The world normal (facing_normal) of the hit `h` of the ray (org, dir) over the terrain of kind
// Terrain and the env's instances `e` (null: none): an instance's triangle from its prototype's
// BVH, turned by the instance's pose. False for a miss.
template <class Terrain>
WR_HD bool scene_hit_normal(const typename Terrain::View& terrain, const EnvInstances* e, const SceneHit& h, Vec3 dir,
                            Vec3* normal) {
  if (h.triangle == kInvalidIndex) return false;
  TriangleCorners t;
  if (h.instance == kInvalidIndex) {
    if (!hit_corners(Terrain{}, terrain, h.triangle, h.leaf, &t)) return false;
    *normal = facing_normal(t, nullptr, dir);
    return true;
  }
  const PreparedInstance p = e->prepared ? e->prepared[h.instance] : prepare_instance(*e, h.instance);
  if (!bvh_hit_corners(e->view.prototypes[p.prototype], h.leaf, h.triangle, &t)) return false;
  *normal = facing_normal(t, p.pose.rot, dir);
  return true;
}

}  // namespace wr
