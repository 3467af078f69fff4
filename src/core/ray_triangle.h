// Watertight ray/triangle intersection.
// Woop, Benthin, Wald, "Watertight Ray/Triangle Intersection", JCGT 2(1), 2013.
// The ray is sheared so it runs along +z through the origin; the edge functions U, V, W are
// then evaluated in 2D on the sheared vertices. A shared edge gives bit-identical edge
// functions (with opposite sign) for both of its triangles, so a ray can never slip between
// them; when an edge function is exactly zero it is recomputed in double (section 3.3).
// Both faces are hit; a zero-area triangle (det == 0) is never hit.
#pragma once

#include "vec3.h"

namespace wr {

struct RayTriangle {
  Vec3 org;
  int kx, ky, kz;    // permutation of axes: kz is the dominant direction axis
  float sx, sy, sz;  // shear constants
  float ox, oy, oz;  // org[kx], org[ky], org[kz]
};

WR_HD RayTriangle make_ray_triangle(Vec3 org, Vec3 dir) {
  RayTriangle r;
  r.org = org;
  const float ax = fabs_(dir.x), ay = fabs_(dir.y), az = fabs_(dir.z);
  r.kz = (ax > ay) ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
  r.kx = r.kz + 1 == 3 ? 0 : r.kz + 1;
  r.ky = r.kx + 1 == 3 ? 0 : r.kx + 1;
  const float dz = component(dir, r.kz);
  if (dz < 0.0f) {  // keep the winding, so the sign of U, V, W is consistent
    const int t = r.kx;
    r.kx = r.ky;
    r.ky = t;
  }
  r.sx = component(dir, r.kx) / dz;
  r.sy = component(dir, r.ky) / dz;
  r.sz = 1.0f / dz;
  r.ox = component(org, r.kx);
  r.oy = component(org, r.ky);
  r.oz = component(org, r.kz);
  return r;
}

// Distance t along the ray (in units of |dir|) where it crosses the triangle whose vertices
// are a, b, c, if the crossing lies in [tmin, tmax] (both inclusive); otherwise false.
// A vertex is anything vertex_coordinate(a, axis) reads a float coordinate from: a float[3]
// (below) or a LeafVertex of a BVH leaf block (bvh_layout.h). The ray's axis permutation
// indexes the vertices directly.
WR_HD float vertex_coordinate(const float* v, int axis) { return v[axis]; }

template <class Vertex>
WR_HD bool intersect_ray_triangle(const RayTriangle& r, const Vertex& a, const Vertex& b, const Vertex& c, float tmin,
                                  float tmax, float* t_out) {
  const float Akz = vertex_coordinate(a, r.kz) - r.oz, Bkz = vertex_coordinate(b, r.kz) - r.oz,
              Ckz = vertex_coordinate(c, r.kz) - r.oz;
  const float Ax = (vertex_coordinate(a, r.kx) - r.ox) - r.sx * Akz;
  const float Ay = (vertex_coordinate(a, r.ky) - r.oy) - r.sy * Akz;
  const float Bx = (vertex_coordinate(b, r.kx) - r.ox) - r.sx * Bkz;
  const float By = (vertex_coordinate(b, r.ky) - r.oy) - r.sy * Bkz;
  const float Cx = (vertex_coordinate(c, r.kx) - r.ox) - r.sx * Ckz;
  const float Cy = (vertex_coordinate(c, r.ky) - r.oy) - r.sy * Ckz;
  float U = Cx * By - Cy * Bx;
  float V = Ax * Cy - Ay * Cx;
  float W = Bx * Ay - By * Ax;
  if (U == 0.0f || V == 0.0f || W == 0.0f) {  // on an edge: decide exactly in double
    U = static_cast<float>(static_cast<double>(Cx) * By - static_cast<double>(Cy) * Bx);
    V = static_cast<float>(static_cast<double>(Ax) * Cy - static_cast<double>(Ay) * Cx);
    W = static_cast<float>(static_cast<double>(Bx) * Ay - static_cast<double>(By) * Ax);
  }
  if ((U < 0.0f || V < 0.0f || W < 0.0f) && (U > 0.0f || V > 0.0f || W > 0.0f)) return false;
  const float det = U + V + W;
  if (det == 0.0f) return false;  // ray parallel to the triangle, or zero-area triangle
  const float T = U * (r.sz * Akz) + V * (r.sz * Bkz) + W * (r.sz * Ckz);
  const float t = T / det;
  if (!(t >= tmin && t <= tmax)) return false;  // also rejects NaN
  *t_out = t;
  return true;
}

WR_HD bool intersect_ray_triangle(const RayTriangle& r, Vec3 a, Vec3 b, Vec3 c, float tmin, float tmax,
                                  float* t_out) {
  const float fa[3] = {a.x, a.y, a.z}, fb[3] = {b.x, b.y, b.z}, fc[3] = {c.x, c.y, c.z};
  return intersect_ray_triangle(r, fa, fb, fc, tmin, tmax, t_out);
}

}  // namespace wr
