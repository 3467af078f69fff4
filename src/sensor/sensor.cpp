#include "sensor/sensor.h"

#include <limits>
#include <string>

#include "errors/status_error.h"
#include "sensor/camera_model.h"
#include "sensor/pattern_model.h"

namespace wr {

CameraSensor::CameraSensor(const char* function, const SceneTerrain& scene, const wr_camera_desc& desc,
                           const wr_sensor_options* options, uint32_t num_envs, uint32_t num_instances)
    : scene_(scene),
      desc_(desc),
      num_envs_(num_envs),
      num_instances_(num_instances),
      template_(TrackedAllocator<TemplateRay>(&ledger_, MemoryTag::kRayTemplate)) {
  validate_camera_desc(function, desc);
  pipeline_ = make_sensor_pipeline(function, desc, options);
  check_sizes(function);
  template_.resize(static_cast<size_t>(desc.width) * desc.height);
  build_ray_template(desc, template_.data());
  params_ = make_depth_params(desc);
}

void CameraSensor::check_sizes(const char* function) const {
  if (num_envs_ == 0) fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": num_envs is 0: must be at least 1");
  // Below 2^32 pixels per sensor: the CPU backend numbers its tasks in 32 bits (cpu_render.h) and
  // the GPU indexes a pixel within an image in 32 bits. Checked before anything is allocated. The
  // product of three uint32 can pass 2^64: width x height (< 2^64) is checked alone first.
  const uint64_t image = static_cast<uint64_t>(desc_.width) * desc_.height;
  if (image >= (1ull << 32) || image * num_envs_ >= (1ull << 32)) {
    const bool fits = image <= std::numeric_limits<uint64_t>::max() / num_envs_;  // num_envs_ >= 1 here
    const std::string product = fits ? std::to_string(image * num_envs_) : "more than 2^64";
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) +
                                        ": num_envs x desc->height x desc->width = " + std::to_string(num_envs_) +
                                        " x " + std::to_string(desc_.height) + " x " + std::to_string(desc_.width) +
                                        " = " + product + " pixels: must be below 2^32 per sensor");
  }
  // The output likewise (a resampled one can be larger than the camera's image): both backends
  // index an output pixel within an image in 32 bits.
  const uint64_t out_image = uint64_t(pipeline_.out_width) * pipeline_.out_height;  // sides < 2^31
  if (out_image >= (1ull << 32) || out_image * num_envs_ >= (1ull << 32)) {
    const bool fits = out_image <= std::numeric_limits<uint64_t>::max() / num_envs_;
    fail(WR_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": num_envs x the output's height x width = " + std::to_string(num_envs_) + " x " +
             std::to_string(pipeline_.out_height) + " x " + std::to_string(pipeline_.out_width) + " = " +
             (fits ? std::to_string(out_image * num_envs_) : "more than 2^64") +
             " pixels: must be below 2^32 per sensor");
  }
  // So the history rings, at most 1024 frames (pipeline_options.cpp) of 4 bytes a pixel, stay
  // below 2^44 bytes: their sizes fit the ledger's and the allocators' 64 bits.
}

CameraSensor::CameraSensor(const char* function, const SceneTerrain& scene, const RayPattern& pattern,
                           const wr_ray_sensor_desc& desc, const wr_sensor_options* options, uint32_t num_envs,
                           uint32_t num_instances)
    : scene_(scene),
      num_envs_(num_envs),
      num_instances_(num_instances),
      template_(TrackedAllocator<TemplateRay>(&ledger_, MemoryTag::kRayTemplate)) {
  pipeline_ = make_pattern_pipeline(function, desc, pattern, options, &desc_);
  check_sizes(function);
  template_.resize(2ull * pattern.num_rays());
  build_pattern_template(pattern, desc, template_.data());
  params_ = make_depth_params(desc_);
}

}  // namespace wr
