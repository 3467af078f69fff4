// The CPU backend's render through the RL depth pipeline (core/depth_pipeline.h): one env per
// task on the context's thread pool; its camera window traced tile by tile (SIMD packets or the
// scalar pipeline, as cpu_render), then its output pixels made and emitted into the history and
// the output.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/depth_pipeline.h"
#include "cpu/cpu_simd.h"
#include "cpu/thread_pool.h"

namespace wr {

struct CpuPipelineJob {
  BvhView bvh;
  const TemplateRay* rays;     // (cam_h x cam_w) the sensor's shared template
  const PipelineParams* params;
  PipelineCall call;           // host pointers; host data already validated (bad envs only if isolating)
  PipelineState state;         // history and frame counts (the CPU keeps images per thread: below)
  uint32_t num_envs;
  float* thread_windows;       // (threads x win_h x win_w) clean depth, with edge dropout
  float* thread_samples;       // (threads x crop_h x crop_w) the crop's samples, where params->camera_image
  PreparedInstance* thread_instances;  // (threads x num_instances) the env's instances, prepared once
  uint32_t num_instances;      // of the scene's table: call.instances' slots + globals
  std::atomic<uint64_t>* stack_overflows;
  CpuSimd simd;
};

// Renders every updated env of the job. Allocates nothing; the result does not depend on the
// thread count or the SIMD path. Writes *call.bad_env_count and call.bad_env_mask where given.
void cpu_render_pipeline(ThreadPool& pool, const CpuPipelineJob& job);

}  // namespace wr
