// The one render around the per-pixel pipeline (pixel_pipeline.h), written once for every backend
// and every feature set (render_features.h; wr.h, "The RL depth pipeline"): the env stage with
// the render's per-env arrays (pose stride, per-env mounts and intrinsics), the camera stage (a
// pixel's clean depth), and the output stage per output pixel (noise.h, then output_stage.h) with
// the env's history ring. A render without the pipeline's stages (RenderFeatures::pipeline false)
// keeps only the env stage's pose and the camera stage, whose value is then the output.
//
// The CPU backend (src/cpu/cpu_render.cpp) runs these per run of tiles on its threads; the CUDA
// kernels (kernels/kernel_threads.h) run them one thread per pixel. They share these functions,
// so the bits are the same.
#pragma once

#include "noise.h"
#include "output_stage.h"
#include "pixel_pipeline.h"
#include "render_features.h"

namespace wr {

// A sensor's pipeline constants (made on the host from wr_sensor_options: sensor/pipeline_options).
struct PipelineParams {
  DepthParams depth;      // the desc's, but miss_value = +inf: the camera stage's "no return"
  DepthParams plain;      // the desc's as they are: a render without the pipeline's stages
  Intrinsics intrinsics;  // the desc's
  bool plane_depth;       // WR_DEPTH_PLANE
  uint32_t cam_w, cam_h;  // the camera image
  // The window of the camera image the camera stage traces: the crop, grown by one pixel on each
  // side (within the image) where edge dropout reads the neighbours.
  uint32_t win_x, win_y, win_w, win_h;
  bool camera_image;  // the output is made from the crop's samples as an image (resampling or
                      // edge dropout read other pixels); else each output pixel is traced alone
  NoiseParams noise;
  OutputParams output;
  uint32_t history;         // frames per env's ring; 1: none
  bool isolate;             // WR_BAD_POSE_ISOLATE
  uint32_t exclude_groups;  // instance groups this camera does not see (instances.h)
  PatternParams pattern{};  // a pattern sensor's (pattern_rays.h); pattern.enabled false for a camera
};

// A render's optional per-env arrays: all null in a render that has none. Only pointers, so that
// "the call has per-env inputs" is "some byte here is not zero" (sensor/render_call.cpp): a field
// added here reaches the feature set without a list kept by hand (tests/sensor/test_render_call.cpp).
struct PerEnvInputs {
  const float* intrinsics;     // (num_envs x 4) or null: the desc's
  const float* mounts;         // (num_envs x 7) or null: the desc's
  const uint32_t* latency;     // (num_envs) or null: 0
  const uint8_t* update_mask;  // (num_envs) or null: every env
  const uint8_t* reset_mask;   // (num_envs) or null: none
  uint32_t* bad_env_count;     // or null
  uint8_t* bad_env_mask;       // (num_envs) or null
  uint32_t* instance_ids;      // (num_envs x out_h x out_w) the instance each output pixel's ray hit
                               // (kInvalidIndex: the terrain or nothing), or null; only where each
                               // output pixel is its own camera pixel's (!camera_image, history 1)
  // A pattern sensor's (history 1): each ray's hit (RayHitDetails), or null.
  uint32_t* triangle_ids;  // (num_envs x out_h x out_w)
  float* hit_points;       // (num_envs x out_h x out_w x 3)
  float* hit_normals;      // (num_envs x out_h x out_w x 3)
};

// One render's inputs and outputs: host pointers on the CPU, device pointers on CUDA.
struct PipelineCall : PerEnvInputs {
  const float* body_poses;  // env e: body_poses + e * pose_stride + pose_offset, 7 floats
  uint32_t pose_stride, pose_offset;
  uint64_t frame;  // of the noise
  void* out;       // (num_envs x out_h x out_w) of the dtype
  // The scene's moving geometry (instances.h); num_instances(instances) == 0 for none.
  InstanceView instances;
  const float* instance_poses;  // (num_envs x num_slots x 7), or null without slots
  const float* global_poses;    // (num_globals x 7), or null without globals
};

// What env e's rays see besides the terrain.
WR_HD EnvInstances env_instances(const PipelineCall& c, const PipelineParams& p, uint32_t env) {
  EnvInstances e;
  e.view = c.instances;
  e.slot_poses = c.instance_poses ? c.instance_poses + 7ull * c.instances.num_slots * env : nullptr;
  e.global_poses = c.global_poses;
  e.quat_order = p.depth.quat_order;
  e.exclude_groups = p.exclude_groups;
  e.prepared = nullptr;
  return e;
}

// What the library holds per env for the pipeline on CUDA (null where the options need none; the
// CPU keeps the first two per thread instead).
struct PipelineState {
  float* camera_images;        // (num_envs x win_h x win_w) clean depth: with edge dropout only
  float* samples;              // (num_envs x crop_h x crop_w) the crop's samples: with p.camera_image
  void* history;               // (num_envs x history x out_h x out_w) of the dtype, history > 1 only
  uint32_t* frames;            // (num_envs) frames each env has rendered, history > 1 only
  const ResampleTaps* taps_x;  // (out_w) what each output column reads of the crop, where resampling
  const ResampleTaps* taps_y;  // (out_h) and each output row (make_resample_taps; built at creation)
};

// Frame f of env `env` of a pattern sensor of several frames, aligned (pattern_frame): its body
// pose p.pattern.frame_offsets[f] floats into the env's record, times its mount. False for a bad
// pose.
WR_HD bool pattern_env_frame(const PipelineCall& c, uint32_t env, uint32_t f, const PipelineParams& p,
                             RigidTransform* out) {
  RigidTransform body;
  if (!pose_to_transform(
          c.body_poses + static_cast<uint64_t>(env) * c.pose_stride + c.pose_offset + p.pattern.frame_offsets[f],
          p.depth.quat_order, &body))
    return false;
  *out = pattern_frame(compose(body, p.pattern.frame_mounts[f]), p.pattern);
  return true;
}

// The env stage: env e's camera in the world and its intrinsics, from the call's arrays (the
// per-env mounts and intrinsics only with the pipeline's features). False for a bad pose, mount or
// intrinsics (not finite, zero quaternion, fx or fy not > 0). The instance poses are checked apart
// (env_instances_valid), where a backend checks them once per env. For a pattern sensor
// (F::pattern) *camera is the pattern's aligned frame (pattern_frame) of the sensor's pose (of
// several frames: frame 0's, every frame's pose checked).
template <class F>
WR_HD bool env_camera(const PipelineCall& c, uint32_t env, const PipelineParams& p, RigidTransform* camera,
                      Intrinsics* k) {
  if constexpr (F::pattern) {
    // Several frames: every frame's pose must be valid; *camera is frame 0's (camera_depth makes
    // each row's frame).
    if (p.pattern.num_frames > 1) {
      *k = p.intrinsics;
      for (uint32_t f = p.pattern.num_frames; f-- > 0;)
        if (!pattern_env_frame(c, env, f, p, camera)) return false;
      return true;
    }
  }
  RigidTransform body;
  if (!pose_to_transform(c.body_poses + static_cast<uint64_t>(env) * c.pose_stride + c.pose_offset, p.depth.quat_order,
                         &body))
    return false;
  RigidTransform mount = p.depth.mount;
  *k = p.intrinsics;
  if constexpr (F::pipeline) {
    if (c.mounts && !mount_to_transform(c.mounts + 7ull * env, p.depth.quat_order, &mount)) return false;
    if (c.intrinsics) {
      const float* ki = c.intrinsics + 4ull * env;
      *k = Intrinsics{ki[0], ki[1], ki[2], ki[3]};
      if (!valid_intrinsics(*k)) return false;
    }
  }
  *camera = compose(body, mount);
  if constexpr (F::pattern) *camera = pattern_frame(*camera, p.pattern);
  return true;
}

// Whether every instance pose env e's rays would read is valid (always, without instances).
template <class F>
WR_HD bool env_instances_valid(const PipelineCall& c, const PipelineParams& p, uint32_t env) {
  if constexpr (F::instances) return instance_poses_valid(env_instances(c, p, env));
  return true;
}

// The depth parameters of the camera stage: the pipeline's (miss = +inf, "no return", for the
// output stage to map), or without it the desc's (the value is the output).
template <class F>
WR_HD const DepthParams& camera_stage_params(const PipelineParams& p) {
  if constexpr (F::pipeline) return p.depth;
  return p.plain;
}

// The camera stage of pixel (u, v) of env `env` for a scalar thread: its ray from the ray source
// (the shared template, or made from the env's own intrinsics; for a pattern, the pattern ray that
// output ray u reads in the call's frame, pattern_ray_index, from the env's aligned frame `camera`), the trace (the
// terrain, of F's kind, then `instances`, the env's, where F has them: null for none), the value (camera_stage_params:
// the clean depth, +inf for no return, with the pipeline; else the plain depth; a pattern's distance or height, or
// p.depth.miss_value, the pipeline's +inf, for no return). *overflowed and *instance (or null) as render_pixel's;
// kPrepared: `instances` come prepared (render_pixel's). *details (or null; a pattern's only): the ray's hit
// (pattern_hit_details).
template <class Variant, class F, bool kPrepared = false>
WR_HD float camera_depth(const typename F::Terrain::View& terrain, const TemplateRay* shared_template,
                         const PipelineCall& c, const EnvInstances* instances, uint32_t env, uint32_t u, uint32_t v,
                         const RigidTransform& camera, const Intrinsics& k, const PipelineParams& p, bool* overflowed,
                         uint32_t* instance, RayHitDetails* details = nullptr) {
  if constexpr (F::pattern) {
    static_assert(F::pipeline, "a pattern sensor's value stage is the pipeline's");
    // Row v is frame v's (several frames: its own body and mount; the env stage checked its pose).
    RigidTransform frame = camera;
    if (p.pattern.num_frames > 1) pattern_env_frame(c, env, v, p, &frame);
    const WorldRay r =
        pattern_world_ray(shared_template, pattern_ray_index(p.pattern, env, c.frame, u), frame, p.pattern);
    const SceneHit hit = trace_scene<Variant, kTraversalStackSize, typename F::Terrain, kPrepared>(
        terrain, F::instances ? instances : nullptr, r.org, r.dir, p.depth.near_clip, p.depth.far_clip);
    *overflowed = hit.overflowed;
    if (instance) *instance = hit.instance;
    if (details)
      *details = pattern_hit_details<typename F::Terrain>(terrain, F::instances ? instances : nullptr, hit, r, frame,
                                                          p.pattern);
    return pattern_value(hit.t, hit.triangle != kInvalidIndex, r, frame, p.pattern, p.depth.miss_value);
  } else {
    const TemplateRay ray = source_ray(typename F::RaySource{}, shared_template, p.cam_w,
                                       F::pipeline && c.intrinsics != nullptr, k, p.plane_depth, u, v);
    return render_pixel<Variant, typename F::Terrain, kTraversalStackSize, kPrepared>(
        terrain, F::instances ? instances : nullptr, ray, camera, camera_stage_params<F>(p), overflowed, instance);
  }
}

// Whether the call asks for a pattern sensor's hit details (RayHitDetails).
WR_HD bool wants_hit_details(const PipelineCall& c) {
  return c.triangle_ids != nullptr || c.hit_points != nullptr || c.hit_normals != nullptr;
}

// Output ray i of an env whose output starts at element out_at (a pattern sensor's: history 1)
// hit as `d` says, or (d null) its env is bad: UINT32_MAX and NaN.
WR_HD void emit_hit_details(const PipelineCall& c, uint64_t out_at, uint32_t i, const RayHitDetails* d) {
  const uint64_t at = out_at + i;
  const float nan = quiet_nan_();
  if (c.triangle_ids) c.triangle_ids[at] = d ? d->triangle : kInvalidIndex;
  if (c.hit_points) {
    const Vec3 v = d ? d->point : Vec3{nan, nan, nan};
    c.hit_points[3 * at] = v.x, c.hit_points[3 * at + 1] = v.y, c.hit_points[3 * at + 2] = v.z;
  }
  if (c.hit_normals) {
    const Vec3 v = d ? d->normal : Vec3{nan, nan, nan};
    c.hit_normals[3 * at] = v.x, c.hit_normals[3 * at + 1] = v.y, c.hit_normals[3 * at + 2] = v.z;
  }
}

// The latency of env e in this call; >= p.history means a bad value on the device.
WR_HD uint32_t env_latency(const PipelineCall& c, uint32_t env) { return c.latency ? c.latency[env] : 0u; }

// Where env e's output pixels of this frame go, the same for all of them (env_output, once per env):
// into out, and with history > 1 into the env's ring (every slot on the env's first frame or a
// reset), out then holding the frame latency(e) renders ago.
struct EnvOutput {
  uint64_t out_at;    // element of out of the env's pixel 0
  uint64_t write_at;  // element of the ring of the slot this frame goes to (history > 1)
  uint64_t ring_at;   // element of the ring of the env's slot 0 (history > 1)
  uint64_t read_at;   // element of the ring the output is read from (delayed)
  bool fill;          // every slot of the ring
  bool delayed;       // latency > 0: out reads the ring
  bool bad_latency;   // latency >= history (device data): out is invalid
};

WR_HD EnvOutput env_output(const PipelineParams& p, const PipelineCall& c, const PipelineState& s, uint32_t env) {
  const uint64_t pixels = static_cast<uint64_t>(p.output.out_w) * p.output.out_h;
  EnvOutput e{};
  e.out_at = env * pixels;
  const uint32_t latency = env_latency(c, env);
  e.bad_latency = latency >= p.history;
  if (p.history <= 1) return e;
  const uint32_t done = s.frames[env], slot = done % p.history;
  e.ring_at = static_cast<uint64_t>(env) * p.history * pixels;
  e.write_at = e.ring_at + slot * pixels;
  e.fill = done == 0 || (c.reset_mask && c.reset_mask[env]);
  e.delayed = !e.bad_latency && latency > 0;
  if (e.delayed) e.read_at = e.ring_at + ((slot + p.history - latency) % p.history) * pixels;
  return e;
}

// Output pixel i of env e has the value v (before its dtype) in this frame: into the history and
// the output as `e` says. Nothing here for an env the update mask leaves out.
WR_HD void emit_output(const PipelineParams& p, const PipelineCall& c, const PipelineState& s, const EnvOutput& e,
                       uint32_t i, float v) {
  const int dtype = p.output.dtype;
  const uint32_t bits = encode_output(v, dtype);
  if (p.history > 1) {
    if (e.fill) {
      const uint64_t pixels = static_cast<uint64_t>(p.output.out_w) * p.output.out_h;
      for (uint32_t k = 0; k < p.history; ++k) put_output(s.history, e.ring_at + k * pixels + i, bits, dtype);
    } else {
      put_output(s.history, e.write_at + i, bits, dtype);
    }
  }
  const uint32_t shown = e.bad_latency ? encode_output(quiet_nan_(), dtype)
                         : e.delayed   ? get_output(s.history, e.read_at + i, dtype)
                                       : bits;
  put_output(c.out, e.out_at + i, shown, dtype);
}

// After every output pixel of env e has been emitted: its frame count (history > 1).
WR_HD void advance_history(const PipelineParams& p, const PipelineState& s, uint32_t env) {
  if (p.history > 1) s.frames[env] += 1;
}

// Clean depth of camera pixel (u, v) from an env's traced window (p.win_*).
struct WindowImage {
  const float* image;  // (win_h x win_w)
  uint32_t x0, y0, width;
  WR_HD float operator()(uint32_t u, uint32_t v) const {
    return image[static_cast<uint64_t>(v - y0) * width + (u - x0)];
  }
};

// The clean depth of one pixel, wherever it is asked for (a pixel whose noise reads no neighbour).
struct OnePixel {
  float depth;
  WR_HD float operator()(uint32_t, uint32_t) const { return depth; }
};

// The crop's sample of camera pixel (u, v): noise (noise.h) on its clean depth (`clean(u, v)`,
// neighbours too where edge dropout is on), then the invalid treatment and the clip.
template <class Clean>
WR_HD float camera_sample(const Clean& clean, uint32_t u, uint32_t v, const PipelineParams& p, uint32_t env,
                          uint64_t frame, float offset) {
  return sample_value(noisy_depth(clean, u, v, p.cam_w, p.cam_h, p.noise, env, frame, offset), p.output);
}

// The crop's samples of an env, (crop_h x crop_w), as output_value reads them.
struct CropSamples {
  const float* samples;
  uint32_t width;
  WR_HD float operator()(uint32_t i, uint32_t j) const { return samples[static_cast<uint64_t>(j) * width + i]; }
};

// Output pixel (x, y) of an env, before its dtype, from the env's crop samples. Without
// resampling (samples made for edge dropout alone) there are no taps: s.taps_x is null then, and
// not even a reference to its element may be formed (on the GPU the load could be hoisted).
WR_HD float output_from_samples(const float* samples, uint32_t x, uint32_t y, const PipelineParams& p,
                                const PipelineState& s) {
  const ResampleTaps none{};
  const bool resampled = p.output.resample != kResampleNone;
  return output_value(CropSamples{samples, p.output.crop_w}, x, y, resampled ? s.taps_x[x] : none,
                      resampled ? s.taps_y[y] : none, p.output);
}

// Output pixel (x, y) for a pipeline whose output pixel reads only its own camera pixel (no
// resampling, no edge dropout): `depth` is that pixel's clean depth.
struct OneSample {
  float sample;
  WR_HD float operator()(uint32_t, uint32_t) const { return sample; }
};
WR_HD float output_from_pixel(float depth, uint32_t x, uint32_t y, const PipelineParams& p, uint32_t env,
                              uint64_t frame, float offset) {
  const float s = camera_sample(OnePixel{depth}, p.output.crop_x + x, p.output.crop_y + y, p, env, frame, offset);
  const ResampleTaps none{};  // no resampling here
  return output_value(OneSample{s}, x, y, none, none, p.output);
}

// Whether env e is rendered by this call.
WR_HD bool env_updated(const PipelineCall& c, uint32_t env) { return !c.update_mask || c.update_mask[env] != 0; }

}  // namespace wr
