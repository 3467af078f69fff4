// A sensor on the host (named apart from wr.hpp's wr::Sensor): a depth camera (one camera model
// and its ray template) or a pattern sensor (a ray pattern as its template: core/pattern_rays.h),
// shared by num_envs envs of one scene, whatever the backend (a backend's sensor reads it:
// backend/backend.h). Everything render touches is allocated at creation, here and by the backend.
#pragma once

#include <cstdint>

#include <wr/wr.h>

#include "core/camera.h"
#include "memory/tracked_allocator.h"
#include "scene/scene_terrain.h"
#include "sensor/pipeline_options.h"
#include "sensor/ray_pattern.h"

namespace wr {

class CameraSensor {
 public:
  // Validates desc, the pipeline's options (NULL: all off) and num_envs (messages prefixed with
  // `function`) and builds the template. num_instances: what an instanced scene's table holds
  // (slots + globals; 0 for a mesh scene), for the backend to size its render scratch.
  CameraSensor(const char* function, const SceneTerrain& scene, const wr_camera_desc& desc,
               const wr_sensor_options* options, uint32_t num_envs, uint32_t num_instances = 0);

  // A pattern sensor (wr_sensor_create_pattern): `pattern`'s rays with desc's mount, offset,
  // alignment, range and value; its camera desc (desc()) is made of them: num_rays x 1, range
  // depth, the mount, the distances as the clip range, the miss value.
  CameraSensor(const char* function, const SceneTerrain& scene, const RayPattern& pattern,
               const wr_ray_sensor_desc& desc, const wr_sensor_options* options, uint32_t num_envs,
               uint32_t num_instances = 0);

  uint32_t num_instances() const { return num_instances_; }
  bool is_pattern() const { return pipeline_.params.pattern.enabled; }

  const wr_camera_desc& desc() const { return desc_; }
  uint32_t num_envs() const { return num_envs_; }
  // A camera's (height x width) template rays; a pattern's (2 x num_rays): directions, then starts.
  const TrackedVector<TemplateRay>& ray_template() const { return template_; }
  MemoryLedger& ledger() { return ledger_; }
  const MemoryLedger& ledger() const { return ledger_; }
  const DepthParams& params() const { return params_; }
  const SceneTerrain& scene() const { return scene_; }
  const SensorPipeline& pipeline() const { return pipeline_; }

 private:
  // The checks both kinds share, after desc_ and pipeline_ are made.
  void check_sizes(const char* function) const;

  MemoryLedger ledger_;  // declared first: outlives template_, whose memory it records
  const SceneTerrain& scene_;
  wr_camera_desc desc_;
  uint32_t num_envs_;
  uint32_t num_instances_;
  TrackedVector<TemplateRay> template_;  // (height x width), or (2 x num_rays): shared by every env
  DepthParams params_;
  SensorPipeline pipeline_;
};

}  // namespace wr
