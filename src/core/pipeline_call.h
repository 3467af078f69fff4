// One render's constants, inputs and outputs, as every backend passes them to the per-pixel
// pipeline (depth_pipeline.h): the sensor's constants (PipelineParams, made once on the host), the
// call's arrays, its per-env inputs (PerEnvInputs) apart from its outputs (`out` and the output
// channels, output_channels.h).
#pragma once

#include "noise.h"
#include "output_channels.h"
#include "output_stage.h"
#include "pattern_rays.h"

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
  // The output channels' points and normals (output_channels.h) in the sensor's frame (the camera's;
  // a pattern's aligned frame) rather than the world's (wr_hit_frame).
  bool hits_in_sensor_frame;
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
};

// One render's inputs and outputs: host pointers on the CPU, device pointers on CUDA.
struct PipelineCall : PerEnvInputs {
  const float* body_poses;  // env e: body_poses + e * pose_stride + pose_offset, 7 floats
  uint32_t pose_stride, pose_offset;
  uint64_t frame;           // of the noise
  void* out;                // (num_envs x out_h x out_w) of the dtype
  OutputChannels channels;  // what the render writes besides `out` (output_channels.h); all null: none
  // The scene's moving geometry (instances.h); num_instances(instances) == 0 for none.
  InstanceView instances;
  const float* instance_poses;  // (num_envs x num_slots x 7), or null without slots
  const float* global_poses;    // (num_globals x 7), or null without globals
};

// The call's optional arrays, each as X(its name in wr_render_args, its member of PipelineCall): the
// one list that copies them from the C arguments (sensor/render_call.cpp) and that checks them
// where they must be device memory (kernels/cuda_device.cpp). A new per-env input or output
// channel is a member above and a line here. (The instance poses are read only where the scene
// has such instances: make_render_call sets them apart.)
#define WR_PIPELINE_CALL_ARRAYS(X)       \
  X(intrinsics, intrinsics)              \
  X(mounts, mounts)                      \
  X(latency, latency)                    \
  X(update_mask, update_mask)            \
  X(reset_mask, reset_mask)              \
  X(bad_env_count, bad_env_count)        \
  X(bad_env_mask, bad_env_mask)          \
  X(instance_ids, channels.instance_ids) \
  X(triangle_ids, channels.triangle_ids) \
  X(hit_points, channels.hit_points)     \
  X(hit_normals, channels.hit_normals)

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

// The depth parameters of the camera stage: the pipeline's (miss = +inf, "no return", for the
// output stage to map), or without it the desc's (the value is the output).
template <class F>
WR_HD const DepthParams& camera_stage_params(const PipelineParams& p) {
  if constexpr (F::pipeline) return p.depth;
  return p.plain;
}

}  // namespace wr
