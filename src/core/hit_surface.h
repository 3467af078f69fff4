// The surface a hit lies on, for the outputs that report more than a distance (the output
// channels' points and normals: output_channels.h): the corners of the triangle a trace took, found
// again from what the trace kept (its id, and for a BVH the leaf block holding it:
// TraceResult::leaf) by its kind's hit_corners (each kind's header), and its normal.
// Nothing here runs unless such an output is asked for, so the traversal itself only records
// where its hit lies.
#pragma once

#include "instances.h"
#include "terrain.h"

namespace wr {

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
