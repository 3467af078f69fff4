// What a render writes per output pixel besides its value: the output channels (wr.h,
// wr_render_args: instance_ids, triangle_ids, hit_points, hit_normals), for every sensor, a
// camera's pixels and a pattern's rays alike. The camera stage (depth_pipeline.h, trace_pixel)
// keeps of each pixel one PixelRecord: its value and the scene hit it took; each backend hands
// that hit, or none for an invalid pixel, to emit_pixel_channels (depth_pipeline.h), and so to
// emit_channels here, once per output pixel (the CPU in cpu/cpu_render.cpp, CUDA in
// kernels/kernel_threads.h), and nothing else writes a channel. A new channel is a field here and
// a line in emit_channels.
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

// What the camera stage keeps of one pixel: its value and the scene hit it took. Its world ray is
// not kept: where a channel needs it, the backend has the ray source make it again (the same bits),
// so that on the GPU nothing of the ray stays live across the trace (depth_pipeline.h,
// emit_pixel_channels).
struct PixelRecord {
  float value;  // the camera stage's value (before noise and the output stage)
  SceneHit hit;
};

// Writes element `at` (num_envs x out_h x out_w indexing) of every channel `ch` asks for: the hit
// `h` of the world ray `r` (r is read only where wants_surface(ch)) over the terrain of kind
// Terrain and the env's instances `e` (null: none), or, h null, the invalid values of a bad env.
// Points and normals in the world, or (in_sensor_frame) in the ray's sensor frame (r->frame: a
// camera's, or a pattern's aligned frame). The point is org + t dir, with the operations of
// pattern_value's height.
template <class Terrain>
WR_HD void emit_channels(const OutputChannels& ch, uint64_t at, const typename Terrain::View& terrain,
                         const EnvInstances* e, const SceneHit* h, const SourceRay* r, bool in_sensor_frame) {
  if (ch.instance_ids) ch.instance_ids[at] = h ? h->instance : kInvalidIndex;
  if (!wants_surface(ch)) return;
  const float nan = quiet_nan_(), inf = infinity_();
  uint32_t triangle = kInvalidIndex;
  Vec3 point{nan, nan, nan}, normal{nan, nan, nan};
  if (h) {
    point = Vec3{inf, inf, inf};
    normal = Vec3{0.0f, 0.0f, 0.0f};
    const WorldRay& w = r->world;
    Vec3 n;
    if (scene_hit_normal<Terrain>(terrain, e, *h, w.dir, &n)) {
      const float t = h->t;
      triangle = h->triangle;
      point = Vec3{w.org.x + t * w.dir.x, w.org.y + t * w.dir.y, w.org.z + t * w.dir.z};
      normal = n;
      if (in_sensor_frame) {
        point = rotate_inverse(r->frame.rot, point - r->frame.pos);
        normal = rotate_inverse(r->frame.rot, n);
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
