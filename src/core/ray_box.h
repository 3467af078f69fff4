// Robust ray/box slab test.
// Ize, "Robust BVH Ray Traversal", JCGT 2(2), 2013: computing slab distances with
// (b - o) * (1/d) in float can round a true hit into a miss; scaling the far distance by
// 1 + 2*gamma(3) makes the test conservative, so traversal never loses a hit to rounding.
#pragma once

#include "traversal_variant.h"
#include "vec3.h"

namespace wr {

// 1 + 2*gamma(3), gamma(n) = n*eps / (1 - n*eps), eps = 2^-24 (Ize 2013, section 3.3).
constexpr float kRobustFarScale = 1.0000003576279f;

struct RayBox {
  Vec3 org;
  Vec3 inv_dir;  // 1/d per axis; +inf for a zero component (-0 is treated as +0)
  bool neg[3];   // inv_dir < 0: the slab is entered through bmax on that axis
};

// Entry and exit of the ray through the three slabs within [tmin, tmax], from the six slab
// distances. A template over the number type: the CPU packet path (src/cpu/packet_traversal.h)
// runs these very operations on a vector of rays, one lane per ray.
template <class F>
WR_HD void slab_near_far(F nx, F fx, F ny, F fy, F nz, F fz, F tmin, F tmax, F* t_near, F* t_far) {
  F tnear = tmin, tfar = tmax;
  tnear = nx > tnear ? nx : tnear;
  tnear = ny > tnear ? ny : tnear;
  tnear = nz > tnear ? nz : tnear;
  tfar = fx < tfar ? fx : tfar;
  tfar = fy < tfar ? fy : tfar;
  tfar = fz < tfar ? fz : tfar;
  *t_near = tnear;
  *t_far = tfar;
}

// The interval test shared by the box tests below: entered before it is left, with the far
// side widened by kRobustFarScale.
//
// Variant::minmax_slab (traversal_variant.h: the GPU's form) takes the maximum and minimum with
// fmax_/fmin_. They agree with slab_near_far: the accumulators start at tmin and tmax, never NaN
// here, and both ignore a NaN slab value; a tie of +0 and -0 may keep the other zero, which no
// comparison downstream can tell apart.
template <class Variant>
WR_HD bool slab_interval(float nx, float fx, float ny, float fy, float nz, float fz, float tmin, float tmax,
                         float* t_entry) {
  float tfar;
  if constexpr (Variant::minmax_slab) {
    *t_entry = fmax_(fmax_(fmax_(tmin, nx), ny), nz);
    tfar = fmin_(fmin_(fmin_(tmax, fx), fy), fz);
  } else {
    slab_near_far(nx, fx, ny, fy, nz, fz, tmin, tmax, t_entry, &tfar);
  }
  return *t_entry <= tfar * kRobustFarScale;
}

WR_HD RayBox make_ray_box(Vec3 org, Vec3 dir) {
  RayBox r;
  r.org = org;
  // x + 0.0f turns -0 into +0, so a zero component always gives +inf.
  r.inv_dir = Vec3{1.0f / (dir.x + 0.0f), 1.0f / (dir.y + 0.0f), 1.0f / (dir.z + 0.0f)};
  r.neg[0] = r.inv_dir.x < 0.0f;
  r.neg[1] = r.inv_dir.y < 0.0f;
  r.neg[2] = r.inv_dir.z < 0.0f;
  return r;
}

// Returns true when the ray overlaps the closed box [bmin, bmax] within [tmin, tmax];
// *t_entry is the distance where it enters (>= tmin).
// Each slab's entry plane is chosen by the direction's sign, so no min/max of the two slab
// distances is needed. A zero direction component with the origin exactly on a slab plane
// gives 0 * inf = NaN for that plane; the comparisons below are written `s > acc ? s : acc`
// so a NaN slab value never replaces the accumulator: such a ray lies in the closed slab,
// and the slab does not constrain it (PBRT 3rd ed., section 3.1.2, uses the same idiom).
template <class Variant = HostTraversal>
WR_HD bool intersect_ray_box(const RayBox& r, const float bmin[3], const float bmax[3], float tmin, float tmax,
                             float* t_entry) {
  const float nx = ((r.neg[0] ? bmax[0] : bmin[0]) - r.org.x) * r.inv_dir.x;
  const float fx = ((r.neg[0] ? bmin[0] : bmax[0]) - r.org.x) * r.inv_dir.x;
  const float ny = ((r.neg[1] ? bmax[1] : bmin[1]) - r.org.y) * r.inv_dir.y;
  const float fy = ((r.neg[1] ? bmin[1] : bmax[1]) - r.org.y) * r.inv_dir.y;
  const float nz = ((r.neg[2] ? bmax[2] : bmin[2]) - r.org.z) * r.inv_dir.z;
  const float fz = ((r.neg[2] ? bmin[2] : bmax[2]) - r.org.z) * r.inv_dir.z;
  return slab_interval<Variant>(nx, fx, ny, fy, nz, fz, tmin, tmax, t_entry);
}

}  // namespace wr
