// Moving geometry over the shared terrain: the two-level trace, one copy for every backend.
//
// An instanced scene (wr_scene_create_instanced) is the terrain's BVH plus prototype meshes, each
// with its own BVH built once and shared by every env, and a table of instances: num_slots slots
// per env (env e's instance i is posed by its own pose) and num_globals instances every env sees
// (posed once per render). A ray of env e is traced through the terrain's BVH, then through the
// BVH of each of the env's instances and each global one, in the instance's frame: the ray turned
// by the inverse of the instance's pose (a rigid motion, so t is the same in both frames). No env
// sees another env's instances; an instance whose group is in the camera's exclusion mask is not
// traced at all.
//
// Closest hit over every level: the lowest t, ties to the earlier level (the terrain, then the
// instances by id: env slots 0 .. num_slots - 1, then globals num_slots ..), and within one BVH
// to the lowest triangle id (bvh_traverse.h). No atomics: a ray's levels are traced one after
// the other by the thread that owns the ray, so the result is the same on every backend, path
// and thread count.
//
// Instances are tested one by one, not through a tree over them: an env has few (a quadruped's
// links, 5-30), and a per-env tree would have to be rebuilt every render in memory held per env.
// Each is first culled by the world ray against its prototype's root box as posed (a box around
// it in the world, made a little larger than rounding could make it: a cull only saves work, it
// never decides a hit), and only a ray that enters it is turned into the instance's frame.
#pragma once

#include "bvh_traverse.h"
#include "camera.h"
#include "terrain.h"

namespace wr {

// A scene's instance table, where its device reads it (host or device pointers).
struct InstanceView {
  const BvhView* prototypes;  // (num_prototypes) each prototype's BVH
  const uint32_t* prototype;  // (num_slots + num_globals) the prototype of each instance
  const uint32_t* group;      // (num_slots + num_globals) its group, < 32
  uint32_t num_slots;         // per env
  uint32_t num_globals;       // shared by every env
};

struct PreparedInstance;  // below

// What the rays of one env see besides the terrain.
struct EnvInstances {
  InstanceView view;
  const float* slot_poses;           // the env's (num_slots x 7) poses, or null when num_slots is 0
  const float* global_poses;         // (num_globals x 7), or null when num_globals is 0
  int quat_order;                    // QuatOrder of both
  uint32_t exclude_groups;           // bit g set: instances of group g are not seen
  const PreparedInstance* prepared;  // the env's, made once (prepare_instance), or null: per ray
};

WR_HD uint32_t num_instances(const InstanceView& v) { return v.num_slots + v.num_globals; }

// The 7 floats of instance i's pose.
WR_HD const float* instance_pose(const EnvInstances& e, uint32_t i) {
  return i < e.view.num_slots ? e.slot_poses + 7ull * i : e.global_poses + 7ull * (i - e.view.num_slots);
}

// Whether every pose env e's rays would read is finite with a non-zero quaternion (those of excluded
// groups included: a bad pose is bad whoever looks).
WR_HD bool instance_poses_valid(const EnvInstances& e) {
  const uint32_t n = num_instances(e.view);
  for (uint32_t i = 0; i < n; ++i) {
    RigidTransform t;
    if (!pose_to_transform(instance_pose(e, i), e.quat_order, &t)) return false;
  }
  return true;
}

// r^T v: a direction from the world into the frame whose rotation is r.
WR_HD Vec3 rotate_inverse(const float r[9], Vec3 v) {
  return Vec3{r[0] * v.x + r[3] * v.y + r[6] * v.z, r[1] * v.x + r[4] * v.y + r[7] * v.z,
              r[2] * v.x + r[5] * v.y + r[8] * v.z};
}

// One instance as the rays of an env meet it: its pose, and where its prototype's root box lies in
// the world. Made once per env and render where the backend keeps a place for it (the CPU, per
// thread), else once per ray (prepare_instance: the same bits either way).
struct PreparedInstance {
  RigidTransform pose;     // world from instance
  float bmin[3], bmax[3];  // a world box around the posed prototype
  uint32_t prototype;      // kInvalidIndex: not seen (its group is excluded, or its pose is bad)
};

WR_HD PreparedInstance prepare_instance(const EnvInstances& e, uint32_t i) {
  PreparedInstance p;
  p.prototype = kInvalidIndex;
  const uint32_t group = load_readonly(e.view.group + i);
  // A bad pose was checked before (the env is invalid then) and is only skipped here.
  if (e.exclude_groups >> group & 1u || !pose_to_transform(instance_pose(e, i), e.quat_order, &p.pose)) return p;
  p.prototype = load_readonly(e.view.prototype + i);
  const BvhNode root = load_node(e.view.prototypes[p.prototype].nodes);
  // The posed box's bounds: centre R c + t, half extents |R| h (Arvo, "Transforming Axis-Aligned
  // Bounding Boxes", Graphics Gems 1990), grown by a relative 2^-16 and an absolute 2^-16 of the
  // coordinates' size so that float rounding of the products cannot make them tighter than exact.
  const Vec3 c{0.5f * (root.bmin[0] + root.bmax[0]), 0.5f * (root.bmin[1] + root.bmax[1]),
               0.5f * (root.bmin[2] + root.bmax[2])};
  const float h[3] = {0.5f * (root.bmax[0] - root.bmin[0]), 0.5f * (root.bmax[1] - root.bmin[1]),
                      0.5f * (root.bmax[2] - root.bmin[2])};
  const Vec3 wc = rotate(p.pose.rot, c) + p.pose.pos;
  const float wcs[3] = {wc.x, wc.y, wc.z};
  const float* r = p.pose.rot;
  const float size = fabs_(c.x) + fabs_(c.y) + fabs_(c.z) + h[0] + h[1] + h[2];
  for (int a = 0; a < 3; ++a) {
    const float extent = fabs_(r[3 * a]) * h[0] + fabs_(r[3 * a + 1]) * h[1] + fabs_(r[3 * a + 2]) * h[2];
    const float grown = extent * (1.0f + 0x1p-16f) + (size + fabs_(wcs[a])) * 0x1p-16f;
    p.bmin[a] = wcs[a] - grown;
    p.bmax[a] = wcs[a] + grown;
  }
  return p;
}

// Whether no ray of a camera at `camera` can hit the instance: its world box lies wholly behind the
// camera's image plane through its origin (every pixel's ray goes forward, along +X of the
// camera, wr.h), by more than rounding. For a camera render's per-env preparation; never for
// explicit rays or a pattern sensor's (its rays go every way).
WR_HD bool behind_camera(const PreparedInstance& p, const RigidTransform& camera) {
  const float f[3] = {camera.rot[0], camera.rot[3], camera.rot[6]};  // the optical axis in the world
  const float o[3] = {camera.pos.x, camera.pos.y, camera.pos.z};
  float nearest_behind = 0.0f, size = 0.0f;  // the box's farthest point along f, relative to o
  for (int a = 0; a < 3; ++a) {
    const float c = 0.5f * (p.bmin[a] + p.bmax[a]) - o[a], h = 0.5f * (p.bmax[a] - p.bmin[a]);
    nearest_behind += c * f[a] + fabs_(f[a]) * h;
    size += fabs_(c) + h;
  }
  return nearest_behind < -size * 0x1p-16f;
}

// One prepared instance `p` (instance i, entered by the ray: the caller's cull) traced: the ray
// org + t dir, t in [tmin, best->t], turned into the instance's frame, through its prototype's BVH
// with the stack *stack, improving *best and setting *instance to i where its hit is taken.
// Returns whether the trace overflowed its stack.
template <class Variant, int kStackSize>
WR_HD bool trace_instance(TraversalStack<kStackSize>* stack, const EnvInstances& e, const PreparedInstance& p,
                          uint32_t i, Vec3 org, Vec3 dir, float tmin, TraceResult* best, uint32_t* instance) {
  const Vec3 o = rotate_inverse(p.pose.rot, org - p.pose.pos);
  const Vec3 d = rotate_inverse(p.pose.rot, dir);
  const TraceResult hit = trace_closest_hit<Variant>(stack, e.view.prototypes[p.prototype], o, d, tmin, best->t);
  // An earlier level keeps a tie; tmax is inclusive, so the first hit at exactly tmax counts.
  if (hit.triangle != kInvalidIndex && (hit.t < best->t || best->triangle == kInvalidIndex)) {
    best->t = hit.t;
    best->triangle = hit.triangle;
    best->leaf = hit.leaf;
    *instance = i;
  }
  return hit.overflowed;
}

// The ray org + t dir, t in [tmin, best->t], through every instance env `e` sees, in id order,
// improving *best (the terrain's hit, or tmax and no triangle) and setting *instance to the
// instance of the hit taken (left as it is where the terrain's stays), each BVH traced with the
// stack *stack. `prepared`: the env's instances made by prepare_instance (num_instances of them),
// or null to make them here. Returns whether a trace overflowed its stack. kPrepared: `prepared` is
// never null (the caller knows it at compile time: a kernel whose block prepared them), so that no
// per-ray preparation is compiled in.
template <class Variant, bool kPrepared = false, int kStackSize>
WR_HD bool trace_instances(TraversalStack<kStackSize>* stack, const EnvInstances& e, const PreparedInstance* prepared,
                           Vec3 org, Vec3 dir, float tmin, TraceResult* best, uint32_t* instance) {
  bool overflowed = false;
  const uint32_t n = num_instances(e.view);
  const RayBox world = make_ray_box(org, dir);
  const auto trace = [&](const PreparedInstance& p, uint32_t i) {
    float entry;
    if (p.prototype != kInvalidIndex && intersect_ray_box<Variant>(world, p.bmin, p.bmax, tmin, best->t, &entry))
      overflowed = trace_instance<Variant>(stack, e, p, i, org, dir, tmin, best, instance) || overflowed;
  };
  for (uint32_t i = 0; i < n; ++i) {
    if constexpr (kPrepared) {
      trace(prepared[i], i);
    } else {  // a value, not a reference to one of two places: the GPU keeps it in registers
      const PreparedInstance p = prepared ? prepared[i] : prepare_instance(e, i);
      trace(p, i);
    }
  }
  return overflowed;
}

// The nearest hit of the ray over the terrain `bvh` and the instances `e` (null: the terrain alone).
struct SceneHit {
  float t;            // as TraceResult
  uint32_t triangle;  // the triangle id within the mesh hit (the terrain's or the prototype's)
  uint32_t instance;  // the instance hit; kInvalidIndex for the terrain or nothing
  bool overflowed;
  NodeLink leaf;  // as TraceResult: where a BVH's hit triangle lies (hit_surface.h)
};

// The terrain is of the kind `Terrain` (terrain.h); the instances' prototypes are BVHs. kPrepared:
// as trace_instances'.
template <class Variant, int kStackSize = kTraversalStackSize, class Terrain = BvhTerrain, bool kPrepared = false>
WR_HD SceneHit trace_scene(const typename Terrain::View& terrain, const EnvInstances* e, Vec3 org, Vec3 dir, float tmin,
                           float tmax) {
  TraceScratch<kStackSize> scratch;  // the terrain's, then each instance's (one at a time)
  TraceResult best = trace_terrain<Variant>(&scratch, Terrain{}, terrain, org, dir, tmin, tmax);
  SceneHit h{best.t, best.triangle, kInvalidIndex, best.overflowed, best.leaf};
  if (e && num_instances(e->view) != 0) {
    h.overflowed =
        trace_instances<Variant, kPrepared>(&scratch.bvh, *e, e->prepared, org, dir, tmin, &best, &h.instance) ||
        h.overflowed;
    h.t = best.t;
    h.triangle = best.triangle;
    h.leaf = best.leaf;
  }
  return h;
}

}  // namespace wr
