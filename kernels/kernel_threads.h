// What one thread of each CUDA kernel does, as plain host/device code. The kernels of
// cuda_kernels.cu are launches of these functions and nothing else; tests/test_kernel_threads.cpp
// runs every thread of a launch on the CPU (an emulated grid, for every tile shape) and compares
// the result with the CPU backend's, so the kernels' indexing, their handling of bad poses and
// rays, and their output layout are checked without a GPU.
#pragma once

#include "core/depth_pipeline.h"
#include "core/explicit_rays.h"
#include "core/pixel_pipeline.h"
#include "core/traversal_variant.h"
#include "cuda_tuning.h"
#include "warp_tiles.h"

namespace wr {
namespace cuda {

// The traversal as the kernels run it: the GPU's form, with the loop shape of the tuning knob.
using CudaTraversal = TraversalVariant<WR_CUDA_NESTED_LOOPS != 0, GpuTraversal::select_node_planes,
                                       GpuTraversal::minmax_slab>;

// Thread `thread` of the depth kernel: renders the pixel WarpTiles assigns it, if any, into
// depth_out (num_envs x height x width). body_poses: (num_envs x 7); rays: (height x width).
// An env whose pose is not finite (or has a zero quaternion) gets NaN at every pixel; other envs
// are not affected. Returns true when this thread's ray overflowed the traversal stack.
WR_HD bool depth_thread(uint64_t thread, const BvhView& bvh, const TemplateRay* rays, const DepthParams& params,
                        const WarpTiles& tiles, const float* body_poses, float* depth_out) {
  uint32_t env, u, v;
  if (!tiles.pixel_of(thread, &env, &u, &v)) return false;
  const uint32_t pixel = v * tiles.width + u;
  float* out = depth_out + static_cast<uint64_t>(env) * tiles.width * tiles.height + pixel;
  RigidTransform camera;
  if (!camera_from_body_pose(body_poses + 7ull * env, params, &camera)) {
    *out = quiet_nan_();  // a bad pose poisons only its own env's image
    return false;
  }
  bool overflowed;
  *out = render_pixel<CudaTraversal>(bvh, load_template_ray(rays + pixel), camera, params, &overflowed);
  return overflowed;
}

// Thread `i` of the intersect kernel (wr_scene_intersect, _ex on a CUDA context): ray i of the
// batch (core/explicit_rays.h). A ray that the CPU would reject (non-finite, zero direction,
// negative tmax), or one of an env with a bad instance pose, gets NaN and kInvalidIndex: on the
// device it cannot be reported before the results are written.
WR_HD void intersect_thread(uint64_t i, const BvhView& bvh, const ExplicitRays& rays) {
  if (i >= rays.count) return;
  intersect_explicit_ray<CudaTraversal>(bvh, rays, i, false);
}

// ---- the RL depth pipeline (core/depth_pipeline.h): up to four kernels per render ------------------

// Thread `thread` of the camera-image kernel (only where p.camera_image): the pixel of env's traced
// window that `tiles` (over win_w x win_h) assigns it, traced. Its clean depth goes into
// s.camera_images where edge dropout will read the neighbours (the sample kernel makes the samples
// then); else (the window is the crop) its sample goes into s.samples. Envs the call leaves out or
// whose camera is bad are skipped (the output kernel handles them). Returns true when its ray
// overflowed the traversal stack.
WR_HD bool pipeline_camera_thread(uint64_t thread, const BvhView& bvh, const TemplateRay* rays,
                                  const PipelineParams& p, const PipelineCall& c, const WarpTiles& tiles,
                                  const PipelineState& s) {
  uint32_t env, x, y;
  if (!tiles.pixel_of(thread, &env, &x, &y) || !env_updated(c, env)) return false;
  RigidTransform camera;
  Intrinsics k;
  if (!env_camera(c, env, p, &camera, &k)) return false;
  bool overflowed;
  const uint32_t u = p.win_x + x, v = p.win_y + y;
  const float d = camera_depth<CudaTraversal>(bvh, rays, c, env, u, v, camera, k, p, &overflowed, nullptr);
  if (p.noise.edges)
    s.camera_images[(static_cast<uint64_t>(env) * p.win_h + y) * p.win_w + x] = d;
  else
    s.samples[(static_cast<uint64_t>(env) * p.output.crop_h + y) * p.output.crop_w + x] =
        camera_sample(OnePixel{d}, u, v, p, env, c.frame, env_offset(p.noise, env, c.frame));
  return overflowed;
}

// Thread `thread` of the sample kernel (edge dropout only): the crop pixel of env that `tiles`
// (over crop_w x crop_h) assigns it, its sample from the env's clean window.
WR_HD void pipeline_sample_thread(uint64_t thread, const PipelineParams& p, const PipelineCall& c,
                                  const WarpTiles& tiles, const PipelineState& s) {
  uint32_t env, i, j;
  if (!tiles.pixel_of(thread, &env, &i, &j) || !env_updated(c, env)) return;
  RigidTransform camera;
  Intrinsics k;
  if (!env_camera(c, env, p, &camera, &k)) return;
  const WindowImage clean{s.camera_images + static_cast<uint64_t>(env) * p.win_w * p.win_h, p.win_x, p.win_y, p.win_w};
  s.samples[(static_cast<uint64_t>(env) * p.output.crop_h + j) * p.output.crop_w + i] = camera_sample(
      clean, p.output.crop_x + i, p.output.crop_y + j, p, env, c.frame, env_offset(p.noise, env, c.frame));
}

struct OutputThreadResult {
  bool overflowed;  // its ray overflowed the traversal stack
  bool bad_env;     // it reports its env as bad (one thread per env: output pixel 0)
};

// Thread `thread` of the output kernel: the output pixel of env that `tiles` (over out_w x out_h)
// assigns it, made from the crop's samples (p.camera_image) or from its own camera pixel traced
// here, emitted into the history and the output (and its instance id into c.instance_ids, where
// asked). A bad env's output is NaN, and its pixel 0 writes the env's bad_env_mask entry and
// reports it for the count.
WR_HD OutputThreadResult pipeline_output_thread(uint64_t thread, const BvhView& bvh, const TemplateRay* rays,
                                                const PipelineParams& p, const PipelineCall& c, const WarpTiles& tiles,
                                                const PipelineState& s) {
  OutputThreadResult r{false, false};
  uint32_t env, x, y;
  if (!tiles.pixel_of(thread, &env, &x, &y) || !env_updated(c, env)) return r;
  RigidTransform camera;
  Intrinsics k;
  const bool valid = env_camera(c, env, p, &camera, &k);  // (a bad latency: emit_output's)
  if (x == 0 && y == 0) {
    if (c.bad_env_mask) c.bad_env_mask[env] = valid ? 0 : 1;
    r.bad_env = !valid;
  }
  const uint32_t i = y * p.output.out_w + x;
  const EnvOutput to = env_output(p, c, s, env);
  if (!valid) {
    emit_output(p, c, s, to, i, quiet_nan_());
    if (c.instance_ids) c.instance_ids[to.out_at + i] = kInvalidIndex;
    return r;
  }
  float v;
  if (p.camera_image) {
    v = output_from_samples(s.samples + static_cast<uint64_t>(env) * p.output.crop_w * p.output.crop_h, x, y, p, s);
  } else {
    uint32_t instance;
    const float d = camera_depth<CudaTraversal>(bvh, rays, c, env, p.output.crop_x + x, p.output.crop_y + y, camera, k,
                                                p, &r.overflowed, &instance);
    if (c.instance_ids) c.instance_ids[to.out_at + i] = instance;
    v = output_from_pixel(d, x, y, p, env, c.frame, env_offset(p.noise, env, c.frame));
  }
  emit_output(p, c, s, to, i, v);
  return r;
}

// Thread `env` of the history kernel (history > 1): the env's frame count, after its frame.
WR_HD void pipeline_history_thread(uint64_t env, uint32_t num_envs, const PipelineParams& p, const PipelineCall& c,
                                   const PipelineState& s) {
  if (env >= num_envs || !env_updated(c, static_cast<uint32_t>(env))) return;
  advance_history(p, s, static_cast<uint32_t>(env));
}

}  // namespace cuda
}  // namespace wr
