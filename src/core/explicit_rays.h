// Explicit rays (wr_scene_intersect, wr_scene_intersect_ex): one ray of a batch, written once for
// the CPU backend's tasks and the CUDA intersect kernel's threads.
#pragma once

#include "instances.h"

namespace wr {

// A batch of explicit rays: host pointers on the CPU, device pointers on CUDA.
struct ExplicitRays {
  const float* origins;     // (count x 3)
  const float* directions;  // (count x 3), need not be unit: t is in units of |direction|
  const float* tmax;        // (count), or null for +inf
  uint64_t count;
  // An instanced scene's instances (instances.h): the rays are consecutive blocks of rays_per_env,
  // block e seeing env e's slots and every global instance.
  InstanceView instances;       // num_instances 0: the terrain alone
  const float* instance_poses;  // (envs x num_slots x 7), or null without slots
  const float* global_poses;    // (num_globals x 7), or null without globals
  int quat_order;
  uint32_t exclude_groups;
  uint64_t rays_per_env;   // >= 1
  float* out_t;            // (count): nearest t, +inf for a miss
  uint32_t* out_triangle;  // (count) or null: the triangle id in the mesh hit, kInvalidIndex for a miss
  uint32_t* out_instance;  // (count) or null: the instance hit, kInvalidIndex for the terrain or a miss
};

// What ray i's env sees besides the terrain.
WR_HD EnvInstances ray_instances(const ExplicitRays& r, uint64_t i) {
  EnvInstances e;
  e.view = r.instances;
  e.slot_poses = r.instance_poses ? r.instance_poses + 7ull * r.instances.num_slots * (i / r.rays_per_env) : nullptr;
  e.global_poses = r.global_poses;
  e.quat_order = r.quat_order;
  e.exclude_groups = r.exclude_groups;
  e.prepared = nullptr;
  return e;
}

// Whether ray i is one the CPU refuses (wr.h): a non-finite origin or direction, a zero direction,
// a negative or NaN tmax.
WR_HD bool explicit_ray_valid(const ExplicitRays& r, uint64_t i) {
  const float* o = r.origins + 3 * i;
  const float* d = r.directions + 3 * i;
  const float t_far = r.tmax ? r.tmax[i] : infinity_();
  return is_finite_(o[0]) && is_finite_(o[1]) && is_finite_(o[2]) && is_finite_(d[0]) && is_finite_(d[1]) &&
         is_finite_(d[2]) && (d[0] != 0.0f || d[1] != 0.0f || d[2] != 0.0f) && t_far >= 0.0f;
}

// Ray i of the batch traced (through the terrain, of the kind Terrain, and its env's instances)
// and its results written. `checked`: the host has validated the rays and poses already; else
// (the device) a bad ray, or a bad pose of its env's instances, gets out_t = NaN and kInvalidIndex.
template <class Variant, class Terrain = BvhTerrain>
WR_HD void intersect_explicit_ray(const typename Terrain::View& terrain, const ExplicitRays& r, uint64_t i,
                                  bool checked) {
  const EnvInstances e = ray_instances(r, i);
  const bool instanced = num_instances(e.view) != 0;
  if (!checked && (!explicit_ray_valid(r, i) || (instanced && !instance_poses_valid(e)))) {
    r.out_t[i] = quiet_nan_();
    if (r.out_triangle) r.out_triangle[i] = kInvalidIndex;
    if (r.out_instance) r.out_instance[i] = kInvalidIndex;
    return;
  }
  const float* o = r.origins + 3 * i;
  const float* d = r.directions + 3 * i;
  const SceneHit hit = trace_scene<Variant, kTraversalStackSize, Terrain>(
      terrain, instanced ? &e : nullptr, Vec3{o[0], o[1], o[2]}, Vec3{d[0], d[1], d[2]}, 0.0f,
      r.tmax ? r.tmax[i] : infinity_());
  r.out_t[i] = hit.triangle != kInvalidIndex ? hit.t : infinity_();
  if (r.out_triangle) r.out_triangle[i] = hit.triangle;
  if (r.out_instance) r.out_instance[i] = hit.instance;
}

}  // namespace wr
