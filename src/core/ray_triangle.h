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

// The steps of the test, as templates over the number type: a float for one ray, or a vector of
// floats for the CPU packet path (src/cpu/packet_traversal.h), which runs these very operations
// lane by lane, so both give the same bits.

// A corner relative to the ray's origin, (dx, dy, dz) in the ray's axis order (kx, ky, kz),
// sheared so that the ray runs along +z (section 3.1): X, Y in the ray's 2D frame, and Z the
// scaled distance along it.
template <class D, class S>
WR_HD void shear_corner(D dx, D dy, D dz, const S& sx, const S& sy, const S& sz, S* X, S* Y, S* Z) {
  *X = dx - sx * dz;
  *Y = dy - sy * dz;
  *Z = sz * dz;
}

// The 2D edge functions of the sheared triangle (section 3.2).
template <class F>
WR_HD void edge_functions(const F& Ax, const F& Ay, const F& Bx, const F& By, const F& Cx, const F& Cy, F* U, F* V,
                          F* W) {
  *U = Cx * By - Cy * Bx;
  *V = Ax * Cy - Ay * Cx;
  *W = Bx * Ay - By * Ax;
}

// The same in double, for a ray with an edge function exactly zero (section 3.3): the ray passes
// through an edge or a vertex, and only the exact sign tells which triangle it hits.
WR_HD void edge_functions_exact(float Ax, float Ay, float Bx, float By, float Cx, float Cy, float* U, float* V,
                                float* W) {
  *U = static_cast<float>(static_cast<double>(Cx) * By - static_cast<double>(Cy) * Bx);
  *V = static_cast<float>(static_cast<double>(Ax) * Cy - static_cast<double>(Ay) * Cx);
  *W = static_cast<float>(static_cast<double>(Bx) * Ay - static_cast<double>(By) * Ax);
}

// The numerator of the hit distance t = T / (U + V + W) (section 3.4), from the corners' Z.
template <class F>
WR_HD F hit_numerator(const F& U, const F& V, const F& W, const F& Za, const F& Zb, const F& Zc) {
  return U * Za + V * Zb + W * Zc;
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
  float Ax, Ay, Az, Bx, By, Bz, Cx, Cy, Cz;
  shear_corner(vertex_coordinate(a, r.kx) - r.ox, vertex_coordinate(a, r.ky) - r.oy, vertex_coordinate(a, r.kz) - r.oz,
               r.sx, r.sy, r.sz, &Ax, &Ay, &Az);
  shear_corner(vertex_coordinate(b, r.kx) - r.ox, vertex_coordinate(b, r.ky) - r.oy, vertex_coordinate(b, r.kz) - r.oz,
               r.sx, r.sy, r.sz, &Bx, &By, &Bz);
  shear_corner(vertex_coordinate(c, r.kx) - r.ox, vertex_coordinate(c, r.ky) - r.oy, vertex_coordinate(c, r.kz) - r.oz,
               r.sx, r.sy, r.sz, &Cx, &Cy, &Cz);
  float U, V, W;
  edge_functions(Ax, Ay, Bx, By, Cx, Cy, &U, &V, &W);
  if (U == 0.0f || V == 0.0f || W == 0.0f) edge_functions_exact(Ax, Ay, Bx, By, Cx, Cy, &U, &V, &W);
  if ((U < 0.0f || V < 0.0f || W < 0.0f) && (U > 0.0f || V > 0.0f || W > 0.0f)) return false;
  const float det = U + V + W;
  if (det == 0.0f) return false;  // ray parallel to the triangle, or zero-area triangle
  const float t = hit_numerator(U, V, W, Az, Bz, Cz) / det;
  // Also rejects NaN, and +inf: with coordinates near the float range's end the numerator
  // overflows, and a crossing "at infinity" under tmax = +inf would be a hit no distance reports.
  if (!(t >= tmin && t <= tmax && t < infinity_())) return false;
  *t_out = t;
  return true;
}

WR_HD bool intersect_ray_triangle(const RayTriangle& r, Vec3 a, Vec3 b, Vec3 c, float tmin, float tmax, float* t_out) {
  const float fa[3] = {a.x, a.y, a.z}, fb[3] = {b.x, b.y, b.z}, fc[3] = {c.x, c.y, c.z};
  return intersect_ray_triangle(r, fa, fb, fc, tmin, tmax, t_out);
}

}  // namespace wr
