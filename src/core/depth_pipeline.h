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
#include "pipeline_call.h"
#include "pixel_pipeline.h"
#include "render_features.h"

namespace wr {

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

// The env stage: env e's sensor frame in the world (its ray source's: a camera's pose, a pattern's
// aligned frame) and intrinsics, from the call's arrays (the per-env mounts and intrinsics only
// with the pipeline's features). False for a bad pose, mount or intrinsics (not finite, zero
// quaternion, fx or fy not > 0). The instance poses are checked apart (env_instances_valid), where
// a backend checks them once per env.
template <class F>
WR_HD bool env_camera(const PipelineCall& c, uint32_t env, const PipelineParams& p, RigidTransform* camera,
                      Intrinsics* k) {
  return F::RaySource::template env_frame<F>(c, env, p, camera, k);
}

// Whether every instance pose env e's rays would read is valid (always, without instances).
template <class F>
WR_HD bool env_instances_valid(const PipelineCall& c, const PipelineParams& p, uint32_t env) {
  if constexpr (F::instances) return instance_poses_valid(env_instances(c, p, env));
  return true;
}

// The camera stage of pixel (u, v) of env `env` for a scalar thread: its world ray from the ray
// source (F::RaySource::world_ray, from the env's frame `camera` and intrinsics `k`), the trace (the
// terrain, of F's kind, then `instances`, the env's, where F has them: null for none), the value
// (the source's: with the pipeline the clean depth, +inf for no return, or a pattern's distance or
// height; else the plain depth). *overflowed: the ray overflowed the traversal stack; kPrepared:
// `instances` come prepared (render_pixel's). The hit is what the output channels read.
template <class Variant, class F, bool kPrepared = false>
WR_HD PixelRecord trace_pixel(const typename F::Terrain::View& terrain, const TemplateRay* shared_template,
                              const PipelineCall& c, const EnvInstances* instances, uint32_t env, uint32_t u,
                              uint32_t v, const RigidTransform& camera, const Intrinsics& k, const PipelineParams& p,
                              bool* overflowed) {
  using Source = typename F::RaySource;
  const SourceRay ray = Source::template world_ray<F>(shared_template, c, env, u, v, camera, k, p);
  PixelRecord r;
  r.hit = trace_scene<Variant, kTraversalStackSize, typename F::Terrain, kPrepared>(
      terrain, F::instances ? instances : nullptr, ray.world.org, ray.world.dir, ray.tmin, ray.tmax);
  *overflowed = r.hit.overflowed;
  r.value = Source::template value<F>(r.hit, ray, p);
  return r;
}

// The output channels (output_channels.h) of output element `at`, the output pixel whose camera
// pixel (u, v) of env `env` the camera stage traced to the hit `hit` (null: the env is bad). Only
// where a channel needs the surface, the pixel's world ray is made again from the call (the
// source's env and ray stages, the bits trace_pixel traced), so that no part of the ray, nor the
// env's frame, stays live across the trace on the GPU. `instances`: the env's (null: none).
template <class F>
WR_HD void emit_pixel_channels(const OutputChannels& ch, uint64_t at, const typename F::Terrain::View& terrain,
                               const EnvInstances* instances, const TemplateRay* shared_template, const PipelineCall& c,
                               const PipelineParams& p, uint32_t env, uint32_t u, uint32_t v, const SceneHit* hit) {
  using Source = typename F::RaySource;
  SourceRay ray{};
  if (hit && wants_surface(ch)) {
    RigidTransform frame{};
    Intrinsics k{};
    Source::template env_frame<F>(c, env, p, &frame, &k);  // (valid: the env stage checked it)
    ray = Source::template world_ray<F>(shared_template, c, env, u, v, frame, k, p);
  }
  emit_channels<typename F::Terrain>(ch, at, terrain, F::instances ? instances : nullptr, hit, &ray,
                                     p.hits_in_sensor_frame);
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
