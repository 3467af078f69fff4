// The per-pixel pipeline: what one pixel of one env does, written once and run by every backend
// (the CPU's scalar path, the hand-off of its SIMD packet path, the CUDA kernel's threads):
//
//   env stage, once per env   body pose -> camera in the world (camera_from_body_pose, camera.h)
//   ray stage                 template ray + camera -> world ray and its t interval (make_pixel_ray)
//   trace                     the terrain (terrain.h: its kind's trace, the BVH's being the one
//                             traversal of bvh_traverse.h), in the caller's variant, then the
//                             env's instances (instances.h)
//   value stage               the hit -> the reported value: depth kind, clip, miss (pixel_value)
//
// render_pixel runs the last three. The packet path (src/cpu/packet_traversal.h) makes its rays
// with make_pixel_ray's operations lane by lane, traces them together, and hands each lane's hit
// to pixel_value, so that everything after the trace exists once.
#pragma once

#include "bvh_traverse.h"
#include "camera.h"
#include "instances.h"

namespace wr {

// The world-space ray of one pixel: the template direction turned by the camera, and the
// distance interval [tmin, tmax] that the clip range allows (near/far divided by depth_scale,
// since the reported value is t * depth_scale).
struct PixelRay {
  Vec3 dir;
  float tmin, tmax;
};

WR_HD PixelRay make_pixel_ray(const TemplateRay& ray, const RigidTransform& camera, const DepthParams& p) {
  PixelRay r;
  r.dir = rotate(camera.rot, Vec3{ray.dir[0], ray.dir[1], ray.dir[2]});
  r.tmin = p.near_clip / ray.depth_scale;
  r.tmax = p.far_clip / ray.depth_scale;
  return r;
}

// The reported value of a traced pixel: t (in units of the template ray, which is unit) times
// the ray's depth factor, or the miss value when nothing was hit in [tmin, tmax]. Rounding of
// t * depth_scale is clamped back into [near, far] (see wr.h).
WR_HD float pixel_value(float t, uint32_t triangle, float depth_scale, const DepthParams& p) {
  if (triangle == kInvalidIndex) return p.miss_value;
  return fmin_(fmax_(t * depth_scale, p.near_clip), p.far_clip);
}
WR_HD float pixel_value(float t, uint32_t triangle, const TemplateRay& ray, const DepthParams& p) {
  return pixel_value(t, triangle, ray.depth_scale, p);
}

// One pixel from its template ray and its env's camera: the ray, the trace (the terrain, of the
// kind Terrain (terrain.h), and the env's instances where `instances` is not null: instances.h),
// the reported value. *overflowed: the ray overflowed the traversal stack (it is still exact, see
// bvh_traverse.h). *instance (where not null): the instance hit, kInvalidIndex for the terrain or
// nothing. kPrepared: the instances come prepared (trace_instances).
template <class Variant, class Terrain = BvhTerrain, int kStackSize = kTraversalStackSize, bool kPrepared = false>
WR_HD float render_pixel(const typename Terrain::View& terrain, const EnvInstances* instances, const TemplateRay& ray,
                         const RigidTransform& camera, const DepthParams& p, bool* overflowed, uint32_t* instance) {
  const PixelRay r = make_pixel_ray(ray, camera, p);
  const SceneHit hit =
      trace_scene<Variant, kStackSize, Terrain, kPrepared>(terrain, instances, camera.pos, r.dir, r.tmin, r.tmax);
  *overflowed = hit.overflowed;
  if (instance) *instance = hit.instance;
  return pixel_value(hit.t, hit.triangle, ray, p);
}

// The terrain alone.
template <class Variant, class Terrain = BvhTerrain, int kStackSize = kTraversalStackSize>
WR_HD float render_pixel(const typename Terrain::View& terrain, const TemplateRay& ray, const RigidTransform& camera,
                         const DepthParams& p, bool* overflowed) {
  return render_pixel<Variant, Terrain, kStackSize>(terrain, nullptr, ray, camera, p, overflowed, nullptr);
}

}  // namespace wr
