// A depth render by the CPU backend's internals (cpu_render), as the reference of tests that
// check another way of rendering the same images: the SIMD packet paths (test_cpu_packet.cpp)
// and the CUDA kernels' per-thread code (test_kernel_threads.cpp). Tests only.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include <wr/wr.h>

#include "cpu/cpu_render.h"
#include "sensor/camera_model.h"
#include "sensor/pipeline_options.h"

namespace wr_test {

struct CpuRendered {
  std::vector<float> depth;  // (num_envs x height x width)
  uint64_t overflows = 0;    // rays that overflowed the traversal stack
};

// Renders (poses.size() / 7) envs of `desc` on `bvh` with the CPU path `path`: the plain render
// (no pipeline stage, no instances). The poses are not validated: an env with a bad pose gets
// NaN, as on the device.
inline CpuRendered render_on_cpu(const wr::BvhView& bvh, const wr_camera_desc& desc, const std::vector<float>& poses,
                                 wr_cpu_path path, unsigned threads = 2) {
  std::vector<wr::TemplateRay> rays(size_t(desc.width) * desc.height);
  wr::build_ray_template(desc, rays.data());
  wr::ThreadPool pool(threads);
  std::atomic<uint64_t> overflows{0};
  CpuRendered out;
  const uint32_t num_envs = uint32_t(poses.size() / 7);
  out.depth.assign(size_t(num_envs) * desc.width * desc.height, -1.0f);
  const wr::SensorPipeline pipeline = wr::make_sensor_pipeline("render_on_cpu", desc, nullptr);
  wr::CpuRenderJob job{};
  job.terrain = wr::bvh_terrain(bvh);
  job.rays = rays.data();
  job.params = &pipeline.params;
  job.call.body_poses = poses.data();
  job.call.pose_stride = 7;
  job.call.out = out.depth.data();
  job.features = wr::RenderFeatureSet{false, false};
  job.num_envs = num_envs;
  job.stack_overflows = &overflows;
  job.path = path;
  wr::cpu_render(pool, job);
  out.overflows = overflows.load();
  return out;
}

}  // namespace wr_test
