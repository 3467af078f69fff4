// What a render writes per output pixel besides its value: the output channels (wr.h,
// wr_render_args: instance_ids, triangle_ids, hit_points, hit_normals), for every sensor, a
// camera's pixels and a pattern's rays alike. The camera stage (depth_pipeline.h, trace_pixel)
// keeps of each pixel one PixelRecord: its value, the scene hit it took and the world ray it
// traced; each backend hands that record, or none for an invalid pixel, to emit_channels once per
// output pixel (the CPU in cpu/cpu_render.cpp, CUDA in kernels/kernel_threads.h), and nothing else
// writes a channel. A new channel is a field here and a line in emit_channels.
//
// A channel is the hit of the pixel's own camera pixel (or ray) as traced, before noise: so
// channels need an output whose every pixel is one camera pixel's (no resampling, no edge dropout)
// and history 1 (sensor/render_call.cpp refuses the rest by name).
#pragma once

#include "hit_surface.h"

namespace wr {

// The channels a render writes: each null or (num_envs x out_h x out_w [x 3]) in the call's
// memory (host pointers on the CPU, device pointers on CUDA).
struct OutputChannels {
  uint32_t* instance_ids;  // the instance hit; kInvalidIndex for the terrain, a miss or a bad env
  uint32_t* triangle_ids;  // the triangle hit within its mesh (the terrain's or the instance's
                           // prototype's); kInvalidIndex for a miss or a bad env
  float* hit_points;       // (x 3) org + t dir: +inf for a miss, NaN for a bad env
  float* hit_normals;      // (x 3) the hit triangle's unit normal facing the ray (facing_normal):
                           // 0 for a miss, NaN for a bad env
};

// Whether any channel is written.
WR_HD bool any_channel(const OutputChannels& ch) {
  return ch.instance_ids != nullptr || ch.triangle_ids != nullptr || ch.hit_points != nullptr ||
         ch.hit_normals != nullptr;
}

// Whether a channel needs the hit's surface (its triangle, where it lies): all but the instance
// ids. The CPU traces such a render pixel by pixel (its SIMD packets keep depth and instance only).
WR_HD bool wants_surface(const OutputChannels& ch) {
  return ch.triangle_ids != nullptr || ch.hit_points != nullptr || ch.hit_normals != nullptr;
}

// A pixel's world ray as its ray source made it (ray_source.h): what the trace took, and what the
// value stage and the channels read.
struct SourceRay {
  WorldRay world;        // the world origin and unit direction
  float tmin, tmax;      // the t interval traced
  float depth_scale;     // t to the reported distance (a camera's template factor; 1 for a pattern)
  RigidTransform frame;  // the sensor's frame the ray is in: the camera in the world, or the
                         // pattern's aligned frame (of the ray's own frame, with several)
};

// What the camera stage keeps of one pixel.
struct PixelRecord {
  float value;  // the camera stage's value (before noise and the output stage)
  SceneHit hit;
  SourceRay ray;
};

// A record of which only the instance is known (the CPU's packets, which keep no surface): for
// the channels without the surface (!wants_surface).
WR_HD PixelRecord instance_record(uint32_t instance) {
  PixelRecord r{};
  r.hit.triangle = kInvalidIndex;
  r.hit.instance = instance;
  return r;
}

// Writes element `at` (num_envs x out_h x out_w indexing) of every channel `ch` asks for, from the
// record `r` of the pixel's trace over the terrain of kind Terrain and the env's instances `e`
// (null: none), or, r null, the invalid values of a bad env. Points and normals in the world, or
// (in_sensor_frame) in the record's sensor frame (r->ray.frame): a camera's, or a pattern's
// aligned frame. The point is org + t dir, with the operations of pattern_value's height.
template <class Terrain>
WR_HD void emit_channels(const OutputChannels& ch, uint64_t at, const typename Terrain::View& terrain,
                         const EnvInstances* e, const PixelRecord* r, bool in_sensor_frame) {
  if (ch.instance_ids) ch.instance_ids[at] = r ? r->hit.instance : kInvalidIndex;
  if (!wants_surface(ch)) return;
  const float nan = quiet_nan_(), inf = infinity_();
  uint32_t triangle = kInvalidIndex;
  Vec3 point{nan, nan, nan}, normal{nan, nan, nan};
  if (r) {
    point = Vec3{inf, inf, inf};
    normal = Vec3{0.0f, 0.0f, 0.0f};
    const WorldRay& w = r->ray.world;
    Vec3 n;
    if (scene_hit_normal<Terrain>(terrain, e, r->hit, w.dir, &n)) {
      const float t = r->hit.t;
      triangle = r->hit.triangle;
      point = Vec3{w.org.x + t * w.dir.x, w.org.y + t * w.dir.y, w.org.z + t * w.dir.z};
      normal = n;
      if (in_sensor_frame) {
        const RigidTransform& f = r->ray.frame;
        point = rotate_inverse(f.rot, point - f.pos);
        normal = rotate_inverse(f.rot, n);
      }
    }
  }
  if (ch.triangle_ids) ch.triangle_ids[at] = triangle;
  if (ch.hit_points)
    ch.hit_points[3 * at] = point.x, ch.hit_points[3 * at + 1] = point.y, ch.hit_points[3 * at + 2] = point.z;
  if (ch.hit_normals)
    ch.hit_normals[3 * at] = normal.x, ch.hit_normals[3 * at + 1] = normal.y, ch.hit_normals[3 * at + 2] = normal.z;
}

}  // namespace wr
