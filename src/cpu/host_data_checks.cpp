#include "cpu/host_data_checks.h"

#include <cmath>

#include "errors/status_error.h"

namespace wr {
namespace {

// Why a pose the check refused is bad.
const char* bad_pose_reason(const float* pose) {
  for (int i = 0; i < 7; ++i)
    if (!std::isfinite(pose[i])) return "not finite";
  return "the quaternion is zero";
}

}  // namespace

std::string format_floats(const float* v, int n) {
  std::string s = "(";
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + num(v[i]);
  return s + ")";
}

void validate_instance_poses(const char* function, const char* prefix, const InstanceView& table,
                             const float* slot_poses, const float* global_poses, uint64_t num_envs,
                             const uint8_t* update_mask, int quat_order, const char* consequence) {
  RigidTransform t;
  for (uint32_t g = 0; g < table.num_globals; ++g)
    if (!pose_to_transform(global_poses + 7ull * g, quat_order, &t))
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + prefix + "global_poses of global instance " +
                                          std::to_string(g) + " (instance " + std::to_string(table.num_slots + g) +
                                          ") = " + format_floats(global_poses + 7ull * g, 7) +
                                          ": not finite, or a zero quaternion; " + consequence);
  for (uint64_t env = 0; env < num_envs; ++env)
    for (uint32_t s = 0; s < table.num_slots && (!update_mask || update_mask[env]); ++s) {
      const uint64_t at = 7ull * (env * table.num_slots + s);
      if (!pose_to_transform(slot_poses + at, quat_order, &t))
        fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + prefix + "instance_poses of env " +
                                            std::to_string(env) + ", slot " + std::to_string(s) + " (floats " +
                                            std::to_string(at) + "...) = " + format_floats(slot_poses + at, 7) +
                                            ": not finite, or a zero quaternion; " + consequence);
    }
}

void validate_render_host_data(const char* function, const PipelineParams& p, const RenderCall& r, uint32_t num_envs) {
  const PipelineCall& c = r.call;
  const char* prefix = argument_prefix(r.arguments);
  const bool pipeline = r.features.pipeline;
  const bool isolate = pipeline && p.isolate;  // isolated: the render makes such envs invalid
  if (r.features.instances && !isolate)
    validate_instance_poses(function, prefix, c.instances, c.instance_poses, c.global_poses, num_envs, c.update_mask,
                            p.depth.quat_order, "nothing was rendered");
  for (uint32_t env = 0; env < num_envs; ++env) {
    if (c.latency && c.latency[env] >= p.history)
      fail(WR_ERROR_INVALID_ARGUMENT,
           std::string(function) + ": " + prefix + "latency of env " + std::to_string(env) + " = " +
               std::to_string(c.latency[env]) +
               (c.latency[env] >= 0x80000000u
                    ? " (" + std::to_string(int32_t(c.latency[env])) + " as an int32: latencies are not negative)"
                    : std::string()) +
               ": must be below the history length (" + std::to_string(p.history) + ")" +
               (p.history <= 1 ? "; a latency needs a history: make the sensor with history_length >= 2" : ""));
    if (isolate || !env_updated(c, env)) continue;
    // Every pose the env's rays read: one, or a pattern sensor's frames' (at their offsets).
    const uint32_t frames = r.features.pattern && p.pattern.num_frames > 1 ? p.pattern.num_frames : 1;
    RigidTransform t;
    for (uint32_t f = 0; f < frames; ++f) {
      const uint64_t at = uint64_t(env) * c.pose_stride + c.pose_offset + (frames > 1 ? p.pattern.frame_offsets[f] : 0);
      const float* pose = c.body_poses + at;
      if (!pose_to_transform(pose, p.depth.quat_order, &t))
        fail(WR_ERROR_INVALID_ARGUMENT,
             std::string(function) + ": " + prefix + "body_poses of env " + std::to_string(env) +
                 (frames > 1 ? ", frame " + std::to_string(f) : std::string()) + " (floats " + std::to_string(at) +
                 "...) = " + format_floats(pose, 7) + ": " + bad_pose_reason(pose) + "; nothing was rendered");
    }
    if (c.mounts && !mount_to_transform(c.mounts + 7ull * env, p.depth.quat_order, &t))
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + prefix + "mounts of env " + std::to_string(env) +
                                          " = " + format_floats(c.mounts + 7ull * env, 7) +
                                          ": not finite; nothing was rendered");
    if (c.intrinsics) {
      const float* k = c.intrinsics + 4ull * env;
      if (!valid_intrinsics(Intrinsics{k[0], k[1], k[2], k[3]}))
        fail(WR_ERROR_INVALID_ARGUMENT,
             std::string(function) + ": " + prefix + "intrinsics of env " + std::to_string(env) +
                 " = (fx, fy, cx, cy) " + format_floats(k, 4) +
                 ": fx and fy must be finite and > 0, cx and cy finite; nothing was rendered");
    }
  }
}

namespace {

[[noreturn]] void bad_ray(const char* function, const char* array, uint64_t ray, const float* v, int n,
                          const char* why) {
  fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + array + " of ray " + std::to_string(ray) + " = " +
                                      (n == 1 ? num(v[0]) : format_floats(v, n)) + " " + why);
}

}  // namespace

void validate_explicit_rays(const char* function, const ExplicitRays& r) {
  for (uint64_t i = 0; i < r.count; ++i) {
    const float* o = r.origins + 3 * i;
    const float* d = r.directions + 3 * i;
    if (!(std::isfinite(o[0]) && std::isfinite(o[1]) && std::isfinite(o[2])))
      bad_ray(function, "origins", i, o, 3, "is not finite");
    if (!(std::isfinite(d[0]) && std::isfinite(d[1]) && std::isfinite(d[2])))
      bad_ray(function, "directions", i, d, 3, "is not finite");
    if (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f) bad_ray(function, "directions", i, d, 3, "is zero");
    if (r.tmax && !(r.tmax[i] >= 0.0f)) bad_ray(function, "tmax", i, r.tmax + i, 1, "must be >= 0 (+inf allowed)");
  }
  if (num_instances(r.instances) != 0)
    validate_instance_poses(function, "args->", r.instances, r.instance_poses, r.global_poses, r.count / r.rays_per_env,
                            nullptr, r.quat_order, "nothing was traced");
}

}  // namespace wr
