// What one thread of each CUDA kernel does, as plain host/device code. The kernels of
// cuda_kernels.cu are launches of these functions and nothing else; tests/kernels/test_kernel_threads.cpp
// runs every thread of a launch on the CPU (an emulated grid of blocks, for every tile shape and
// every feature set, with the blocks' shared phase: tests/support/emulated_launch.h) and compares the
// result with the CPU backend's, so the kernels' indexing, their handling of bad poses and rays,
// and their output layout are checked without a GPU.
//
// One render is up to four kernels, each a template over the render's feature set
// (core/render_features.h), instantiated per set: so a render without instances runs a kernel
// without the instance loop, and one without the pipeline's stages a kernel of the camera stage
// alone (the plain depth image).
#pragma once

#include "core/depth_pipeline.h"
#include "core/explicit_rays.h"
#include "core/pixel_pipeline.h"
#include "core/pose_gather.h"
#include "core/traversal_variant.h"
#include "cuda_tuning.h"
#include "warp_tiles.h"

namespace wr {
namespace cuda {

// The traversal as the kernels run it: the GPU's form, with the loop shape of the tuning knob.
using CudaTraversal =
    TraversalVariant<WR_CUDA_NESTED_LOOPS != 0, GpuTraversal::select_node_planes, GpuTraversal::minmax_slab>;

// Thread `i` of the intersect kernel (wr_scene_intersect, _ex on a CUDA context): ray i of the
// batch (core/explicit_rays.h), through the scene's terrain of the kind Terrain. A ray that the CPU would reject
// (non-finite, zero direction, negative tmax), or one of an env with a bad instance pose, gets NaN and kInvalidIndex:
// on the device it cannot be reported before the results are written.
template <class Terrain = BvhTerrain>
WR_HD void intersect_thread(uint64_t i, const typename Terrain::View& terrain, const ExplicitRays& rays) {
  if (i >= rays.count) return;
  intersect_explicit_ray<CudaTraversal, Terrain>(terrain, rays, i, false);
}

// Thread `i` of the pose gather kernel (wr_gather_poses on a CUDA context): pose i of the gather.
WR_HD void gather_pose_thread(uint64_t i, const PoseGather& g) {
  if (i >= uint64_t(g.num_batches) * g.count) return;
  gather_pose(g, i);
}

// ---- the render: up to four kernels per render ---------------------------------------------------

// At most this many bytes of prepared instances per block (shared memory; CUDA gives every block
// 48 KiB without opting in): a scene with more has each ray prepare its instances itself.
constexpr uint32_t kMaxBlockInstanceBytes = 32 * 1024;

// How many instances of a call a block prepares together (0: none, each ray prepares its own).
WR_HD uint32_t block_instance_count(const PipelineCall& c) {
  const uint32_t n = num_instances(c.instances);
  return n != 0 && uint64_t(n) * sizeof(PreparedInstance) <= kMaxBlockInstanceBytes ? n : 0u;
}

// The instances of a block's env, prepared by the block together (the kernels of an instanced
// render whose tiles are made with env_blocks, kShared): in shared memory on the GPU.
struct BlockInstances {
  const PreparedInstance* prepared;  // (num_instances) the env's (kShared), or null: each ray prepares them
  bool valid;                        // with prepared: every instance pose of the env is valid
};

// The grids of one render's launches (cuda_kernels.cu launches them, the emulated launch runs
// them): the camera-image kernel over the window, the sample kernel over the crop, the output
// kernel over the output; where blocks prepare their env's instances, the first and last with
// env_blocks tiles.
struct RenderGrids {
  uint32_t block_instances;  // instances each block prepares in shared memory (0: none)
  WarpTiles window, crop, out;
  uint64_t history_blocks;  // one thread per env
};

WR_HD RenderGrids render_grids(const PipelineParams& p, const PipelineCall& c, const RenderFeatureSet& f,
                               uint32_t num_envs) {
  RenderGrids g;
  g.block_instances = f.instances ? block_instance_count(c) : 0u;
  const bool env_blocks = g.block_instances != 0;
  g.window = WarpTiles::make(p.win_w, p.win_h, num_envs, kTileWShift, kBlockThreads, env_blocks);
  g.crop = WarpTiles::make(p.output.crop_w, p.output.crop_h, num_envs);
  g.out = WarpTiles::make(p.output.out_w, p.output.out_h, num_envs, kTileWShift, kBlockThreads, env_blocks);
  g.history_blocks = blocks_for(num_envs);
  return g;
}

// The shared phase of a block of an instanced kernel, before its barrier: thread t (of
// block_threads) prepares instances t, t + block_threads, ... of env `env` into `prepared` (the
// block's shared memory), and returns whether every pose it read is valid (the block ANDs them at
// the barrier: BlockInstances::valid). A bad pose of an excluded instance is bad all the same, as
// instance_poses_valid says.
WR_HD bool prepare_block_instances(const PipelineCall& c, const PipelineParams& p, uint32_t env, uint32_t t,
                                   uint32_t block_threads, PreparedInstance* prepared) {
  const EnvInstances e = env_instances(c, p, env);
  const uint32_t n = num_instances(e.view);
  bool valid = true;
  for (uint32_t i = t; i < n; i += block_threads) {
    RigidTransform unused;
    valid = pose_to_transform(instance_pose(e, i), e.quat_order, &unused) && valid;
    prepared[i] = prepare_instance(e, i);
  }
  return valid;
}

// The env stage of a thread of env `env`: its camera and intrinsics (env_camera), and with F's
// instances the env's (*instances: prepared by the block where kShared, else by each ray) and their
// poses' check. False for a bad env. Each kernel of an instanced render is instantiated both ways
// (kShared or not), so that neither carries the other's code.
template <class F, bool kShared>
WR_HD bool thread_env(const PipelineCall& c, const PipelineParams& p, uint32_t env, const BlockInstances& block,
                      RigidTransform* camera, Intrinsics* k, EnvInstances* instances) {
  if constexpr (F::instances) {
    *instances = env_instances(c, p, env);
    if constexpr (kShared) {
      instances->prepared = block.prepared;
      if (!block.valid) return false;
    } else {
      if (!instance_poses_valid(*instances)) return false;
    }
  }
  return env_camera<F>(c, env, p, camera, k);
}

// Thread `thread` of the camera-image kernel (only with the pipeline's features, where
// p.camera_image): the pixel of env's traced window that `tiles` (over win_w x win_h) assigns it,
// traced. Its clean depth goes into s.camera_images where edge dropout will read the neighbours
// (the sample kernel makes the samples then); else (the window is the crop) its sample goes into
// s.samples. Envs the call leaves out or whose camera is bad are skipped (the output kernel
// handles them). Returns true when its ray overflowed the traversal stack.
template <class F, bool kShared>
WR_HD bool camera_thread(uint64_t thread, const typename F::Terrain::View& terrain, const TemplateRay* rays,
                         const PipelineParams& p, const PipelineCall& c, const WarpTiles& tiles, const PipelineState& s,
                         const BlockInstances& block) {
  static_assert(F::pipeline, "the camera image is the pipeline's");
  uint32_t env, x, y;
  if (!tiles.pixel_of(thread, &env, &x, &y) || !env_updated(c, env)) return false;
  RigidTransform camera{};  // (set by thread_env where it returns true; zeroed for the compiler's sake)
  Intrinsics k{};
  EnvInstances instances{};
  if (!thread_env<F, kShared>(c, p, env, block, &camera, &k, &instances)) return false;
  bool overflowed;
  const uint32_t u = p.win_x + x, v = p.win_y + y;
  const float d =
      trace_pixel<CudaTraversal, F, kShared>(terrain, rays, c, &instances, env, u, v, camera, k, p, &overflowed).value;
  if (p.noise.edges)
    s.camera_images[(static_cast<uint64_t>(env) * p.win_h + y) * p.win_w + x] = d;
  else
    s.samples[(static_cast<uint64_t>(env) * p.output.crop_h + y) * p.output.crop_w + x] =
        camera_sample(OnePixel{d}, u, v, p, env, c.frame, env_offset(p.noise, env, c.frame));
  return overflowed;
}

// Thread `thread` of the sample kernel (edge dropout only): the crop pixel of env that `tiles`
// (over crop_w x crop_h) assigns it, its sample from the env's clean window. A bad env (whose
// window the camera kernel left) is skipped.
template <class F>
WR_HD void sample_thread(uint64_t thread, const PipelineParams& p, const PipelineCall& c, const WarpTiles& tiles,
                         const PipelineState& s) {
  static_assert(F::pipeline, "the samples are the pipeline's");
  uint32_t env, i, j;
  if (!tiles.pixel_of(thread, &env, &i, &j) || !env_updated(c, env)) return;
  RigidTransform camera;
  Intrinsics k;
  if (!env_instances_valid<F>(c, p, env) || !env_camera<F>(c, env, p, &camera, &k)) return;
  const WindowImage clean{s.camera_images + static_cast<uint64_t>(env) * p.win_w * p.win_h, p.win_x, p.win_y, p.win_w};
  s.samples[(static_cast<uint64_t>(env) * p.output.crop_h + j) * p.output.crop_w + i] = camera_sample(
      clean, p.output.crop_x + i, p.output.crop_y + j, p, env, c.frame, env_offset(p.noise, env, c.frame));
}

struct OutputThreadResult {
  bool overflowed;  // its ray overflowed the traversal stack
  bool bad_env;     // it reports its env as bad (one thread per env: output pixel 0)
};

// Thread `thread` of the output kernel: the output pixel of env that `tiles` (over out_w x out_h)
// assigns it. Without the pipeline's features: its camera pixel traced, the plain depth written
// to c.out (float32), NaN for a bad env. With them: made from the crop's samples (p.camera_image)
// or from its own camera pixel traced here, emitted into the history and the output (and its
// output channels, emit_channels, where asked); a bad env's output is NaN,
// and its pixel 0 writes the env's bad_env_mask entry and reports it for the count.
template <class F, bool kShared>
WR_HD OutputThreadResult output_thread(uint64_t thread, const typename F::Terrain::View& terrain,
                                       const TemplateRay* rays, const PipelineParams& p, const PipelineCall& c,
                                       const WarpTiles& tiles, const PipelineState& s, const BlockInstances& block) {
  OutputThreadResult r{false, false};
  uint32_t env, x, y;
  if (!tiles.pixel_of(thread, &env, &x, &y)) return r;
  if constexpr (F::pipeline)
    if (!env_updated(c, env)) return r;
  RigidTransform camera{};  // (set by thread_env where it returns true; zeroed for the compiler's sake)
  Intrinsics k{};
  EnvInstances instances{};
  const bool valid =
      thread_env<F, kShared>(c, p, env, block, &camera, &k, &instances);  // (a bad latency: emit_output's)
  const uint32_t i = y * p.output.out_w + x;
  if constexpr (!F::pipeline) {
    float* out = static_cast<float*>(c.out) + static_cast<uint64_t>(env) * p.output.out_w * p.output.out_h + i;
    if (!valid) {
      *out = quiet_nan_();  // a bad pose poisons only its own env's image
      return r;
    }
    *out = trace_pixel<CudaTraversal, F, kShared>(terrain, rays, c, &instances, env, x, y, camera, k, p, &r.overflowed)
               .value;
    return r;
  } else {
    if (x == 0 && y == 0) {
      if (c.bad_env_mask) c.bad_env_mask[env] = valid ? 0 : 1;
      r.bad_env = !valid;
    }
    const EnvOutput to = env_output(p, c, s, env);
    if (!valid) {
      emit_output(p, c, s, to, i, quiet_nan_());
      emit_pixel_channels<F>(c.channels, to.out_at + i, terrain, &instances, rays, c, p, env, 0, 0, nullptr);
      return r;
    }
    float v;
    if (p.camera_image) {  // (no channels: sensor/render_call.cpp refuses them)
      v = output_from_samples(s.samples + static_cast<uint64_t>(env) * p.output.crop_w * p.output.crop_h, x, y, p, s);
    } else {
      const uint32_t u = p.output.crop_x + x, w = p.output.crop_y + y;
      const PixelRecord rec =
          trace_pixel<CudaTraversal, F, kShared>(terrain, rays, c, &instances, env, u, w, camera, k, p, &r.overflowed);
      emit_pixel_channels<F>(c.channels, to.out_at + i, terrain, &instances, rays, c, p, env, u, w, &rec.hit);
      v = output_from_pixel(rec.value, x, y, p, env, c.frame, env_offset(p.noise, env, c.frame));
    }
    emit_output(p, c, s, to, i, v);
    return r;
  }
}

// Thread `env` of the history kernel (history > 1): the env's frame count, after its frame.
WR_HD void history_thread(uint64_t env, uint32_t num_envs, const PipelineParams& p, const PipelineCall& c,
                          const PipelineState& s) {
  if (env >= num_envs || !env_updated(c, static_cast<uint32_t>(env))) return;
  advance_history(p, s, static_cast<uint32_t>(env));
}

}  // namespace cuda
}  // namespace wr
