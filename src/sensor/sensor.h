// A depth sensor: one camera model and its ray template, shared by num_envs envs of one
// scene. Everything render touches is allocated here, at creation.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include <wr/wr.h>

#include "core/camera.h"
#include "cpu/cpu_simd.h"
#include "memory/tracked_allocator.h"
#include "scene/scene.h"

namespace wr {

class ThreadPool;

class Sensor {
 public:
  // Validates desc and num_envs (messages prefixed with `function`) and builds the template.
  Sensor(const char* function, const Scene& scene, const wr_camera_desc& desc, uint32_t num_envs);

  // CPU render. body_poses: (num_envs x 7); depth_out: (num_envs x height x width), host.
  // Every pose is checked before anything is written: a bad one throws
  // WR_ERROR_INVALID_ARGUMENT naming the env and leaves depth_out untouched. simd: the
  // tracing path (cpu/cpu_simd.h), one this CPU runs.
  void render_cpu(ThreadPool& pool, CpuSimd simd, const float* body_poses, float* depth_out);

  const wr_camera_desc& desc() const { return desc_; }
  uint32_t num_envs() const { return num_envs_; }
  const TrackedVector<TemplateRay>& ray_template() const { return template_; }
  MemoryLedger& ledger() { return ledger_; }
  const MemoryLedger& ledger() const { return ledger_; }
  const DepthParams& params() const { return params_; }
  const Scene& scene() const { return scene_; }
  uint64_t stack_overflows() const { return stack_overflows_.load(std::memory_order_relaxed); }

 private:
  MemoryLedger ledger_;  // declared first: outlives template_, whose memory it records
  const Scene& scene_;
  wr_camera_desc desc_;
  uint32_t num_envs_;
  TrackedVector<TemplateRay> template_;  // (height x width), shared by every env
  DepthParams params_;
  std::atomic<uint64_t> stack_overflows_{0};
};

// Checks (num_envs x 7) host poses; throws naming the first bad env.
void validate_body_poses(const char* function, const float* body_poses, uint32_t num_envs, int quat_order);

}  // namespace wr
