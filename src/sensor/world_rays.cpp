#include "sensor/world_rays.h"

#include <cstring>
#include <string>

#include "core/render_features.h"
#include "errors/status_error.h"

namespace wr {
namespace {

// Every ray of the sensor through its source's env and ray stages: a call whose every env reads
// `body_pose` (stride 0) and whose constants carry the caller's mount.
template <class Source>
void write_rays(const CameraSensor& sensor, const PipelineParams& p, const float* body_pose, uint32_t env,
                uint64_t frame, float* starts, float* directions) {
  using F = RenderFeatures<true, false, Source, BvhTerrain>;
  PipelineCall c{};
  c.body_poses = body_pose;
  c.frame = frame;
  RigidTransform sensor_frame{};
  Intrinsics k{};
  Source::template env_frame<F>(c, env, p, &sensor_frame, &k);  // (its poses were checked)
  const SensorPipeline& s = sensor.pipeline();
  for (uint32_t y = 0; y < s.out_height; ++y)
    for (uint32_t x = 0; x < s.out_width; ++x) {
      const SourceRay r = Source::template world_ray<F>(sensor.ray_template().data(), c, env, p.output.crop_x + x,
                                                        p.output.crop_y + y, sensor_frame, k, p);
      const float o[3] = {r.world.org.x, r.world.org.y, r.world.org.z};
      const float d[3] = {r.world.dir.x, r.world.dir.y, r.world.dir.z};
      const uint64_t at = 3 * (uint64_t(y) * s.out_width + x);
      std::memcpy(starts + at, o, sizeof o);
      std::memcpy(directions + at, d, sizeof d);
    }
}

}  // namespace

void sensor_world_rays(const char* fn, const CameraSensor& s, const float* body_pose, const float* mount, uint32_t env,
                       uint64_t frame, float* starts, float* directions) {
  PipelineParams p = s.pipeline().params;
  if (env >= s.num_envs())
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": env = " + std::to_string(env) + ": the sensor has " +
                                        std::to_string(s.num_envs()) + " envs");
  if (p.camera_image)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) +
                                        ": this camera's output pixels are not each one camera pixel's (" +
                                        (p.output.resample != kResampleNone ? "it resamples" : "edge dropout") +
                                        "): world rays need no resampling and no edge dropout");
  const bool pattern = s.is_pattern();
  const uint32_t frames = pattern ? p.pattern.num_frames : 1;
  if (frames > 1 && mount)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": mount is set, but the sensor has " + std::to_string(frames) +
                                        " frames, whose mounts are its desc's");
  // Every frame's pose and the mount first, so that a bad one is refused before anything is
  // written.
  for (uint32_t f = 0; f < frames; ++f) {
    RigidTransform unused;
    if (!pose_to_transform(frames > 1 ? body_pose + p.pattern.frame_offsets[f] : body_pose, p.depth.quat_order,
                           &unused))
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": body_pose" +
                                          (frames > 1 ? " of frame " + std::to_string(f) : std::string()) +
                                          " is not finite or its quaternion is zero");
  }
  if (mount && !mount_to_transform(mount, p.depth.quat_order, &p.depth.mount))
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(fn) + ": mount is not finite or its quaternion is zero");
  if (pattern)
    write_rays<PatternRays>(s, p, body_pose, env, frame, starts, directions);
  else
    write_rays<CameraTemplateRays>(s, p, body_pose, env, frame, starts, directions);
}

}  // namespace wr
