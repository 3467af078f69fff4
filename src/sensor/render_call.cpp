#include "sensor/render_call.h"

#include <cstring>
#include <string>
#include <type_traits>

#include "errors/status_error.h"

namespace wr {

bool has_per_env_inputs(const PerEnvInputs& inputs) {
  static_assert(std::has_unique_object_representations_v<PerEnvInputs>,
                "PerEnvInputs is compared byte by byte: no padding, no floats");
  const PerEnvInputs none{};
  return std::memcmp(&inputs, &none, sizeof none) != 0;
}

RenderFeatureSet render_features(const SensorPipeline& pipeline, const PipelineCall& call, TerrainKind terrain) {
  RenderFeatureSet f;
  // (the output channels are written by the pipeline's output stage)
  f.pipeline = pipeline.active || has_per_env_inputs(call) || any_channel(call.channels);
  f.instances = num_instances(call.instances) != 0;
  f.terrain = terrain;
  f.pattern = pipeline.params.pattern.enabled;
  return f;
}

RenderCall make_render_call(const char* function, const SensorPipeline& pipeline, uint32_t num_envs,
                            const InstanceView& instances, TerrainKind terrain, const wr_render_args& a,
                            ArgumentsAs as) {
  // An argument's name as the caller spells it: a string literal either way (nothing allocated
  // unless a check fails, so that a render allocates nothing).
  const bool in_args = as == ArgumentsAs::kArgsStruct;
#define WR_ARG(field) (in_args ? "args->" field : field)
  require_non_null(function, a.body_poses, WR_ARG("body_poses"));
  require_element_aligned(function, a.body_poses, WR_ARG("body_poses"));
  require_non_null(function, a.out, WR_ARG("out"));
  const PipelineParams& p = pipeline.params;
  if (p.output.dtype == kDtypeFloat32)
    require_element_aligned(function, static_cast<const float*>(a.out), WR_ARG("out"));
  else
    require_element_aligned(function, static_cast<const uint16_t*>(a.out), WR_ARG("out"));
  // An env's record holds pipeline.pose_floats floats from its pose offset on: one pose (7), or a
  // pattern sensor's frames (its largest frame offset + 7).
  const uint32_t record = pipeline.pose_floats;
  const uint32_t stride = a.pose_stride ? a.pose_stride : record;
  if (stride < 7)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + WR_ARG("pose_stride") + " = " +
                                        std::to_string(stride) +
                                        ": a pose is 7 floats, so the stride must be 0 (7) or at least 7");
  if (uint64_t(a.pose_offset) + record > stride)
    fail(WR_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": " + WR_ARG("pose_offset") + " = " + std::to_string(a.pose_offset) +
             (record == 7 ? std::string(": pose_offset + 7 must be <= pose_stride (")
                          : ": pose_offset + " + std::to_string(record) +
                                " (the sensor's frames: its largest frame pose offset + 7) must be <= pose_stride (") +
             std::to_string(stride) + ")");
  if (a.mounts && p.pattern.num_frames > 1)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + WR_ARG("mounts") +
                                        " is set, but this pattern sensor has " + std::to_string(p.pattern.num_frames) +
                                        " frames per env, whose mounts are its desc's (desc->frame_mounts)");
  const uint64_t need = uint64_t(num_envs) * pipeline.out_bytes_per_env;
  if (a.out_bytes < need)
    fail(WR_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": " + WR_ARG("out_bytes") + " = " + std::to_string(a.out_bytes) + ": the output (" +
             std::to_string(num_envs) + " envs x " + std::to_string(pipeline.out_height) + " x " +
             std::to_string(pipeline.out_width) + " x " + std::to_string(dtype_bytes(p.output.dtype)) +
             " bytes) needs " + std::to_string(need));
  if (a.intrinsics && p.pattern.enabled)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + WR_ARG("intrinsics") +
                                        " is set, but this sensor is a pattern sensor: it has no intrinsics "
                                        "(per-env mounts are args->mounts)");
  if (a.intrinsics) require_element_aligned(function, a.intrinsics, WR_ARG("intrinsics"));
  if (a.mounts) require_element_aligned(function, a.mounts, WR_ARG("mounts"));
  if (a.latency) require_element_aligned(function, a.latency, WR_ARG("latency"));
  if (a.bad_env_count) require_element_aligned(function, a.bad_env_count, WR_ARG("bad_env_count"));
  if (instances.num_slots) require_array(function, a.instance_poses, WR_ARG("instance_poses"));
  if (instances.num_globals) require_array(function, a.global_poses, WR_ARG("global_poses"));
  // The output channels: each output pixel's own camera pixel's (or ray's) hit, as traced.
  const char* not_one_pixel = p.output.resample != kResampleNone ? "it resamples"
                              : p.noise.edges                    ? "edge dropout"
                                                                 : "a history";
  if (a.instance_ids) {
    require_element_aligned(function, a.instance_ids, WR_ARG("instance_ids"));
    if (p.camera_image || p.history > 1)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + WR_ARG("instance_ids") +
                                          " is set, but this sensor's output pixels are not each one camera pixel's (" +
                                          not_one_pixel +
                                          "): ids need no resampling, no edge dropout and history_length <= 1");
  }
  if (a.triangle_ids || a.hit_points || a.hit_normals) {
    const char* which = a.triangle_ids ? WR_ARG("triangle_ids")
                        : a.hit_points ? WR_ARG("hit_points")
                                       : WR_ARG("hit_normals");
    if (p.camera_image)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + which +
                                          " is set, but this sensor's output pixels are not each one camera pixel's (" +
                                          not_one_pixel +
                                          "): hit details need no resampling, no edge dropout and history_length <= 1");
    if (p.history > 1)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + which +
                                          " is set, but this sensor keeps a history of " + std::to_string(p.history) +
                                          " frames: hit details are the rendered frame's, so they need "
                                          "history_length <= 1");
    if (a.triangle_ids) require_element_aligned(function, a.triangle_ids, WR_ARG("triangle_ids"));
    if (a.hit_points) require_element_aligned(function, a.hit_points, WR_ARG("hit_points"));
    if (a.hit_normals) require_element_aligned(function, a.hit_normals, WR_ARG("hit_normals"));
  }
#undef WR_ARG
  RenderCall r{};
  PipelineCall& c = r.call;
  c.body_poses = a.body_poses;
  c.pose_stride = stride;
  c.pose_offset = a.pose_offset;
  c.frame = a.frame;
  c.out = a.out;
#define WR_COPY_ARRAY(name, member) c.member = a.name;
  WR_PIPELINE_CALL_ARRAYS(WR_COPY_ARRAY)
#undef WR_COPY_ARRAY
  c.instances = instances;
  c.instance_poses = instances.num_slots ? a.instance_poses : nullptr;
  c.global_poses = instances.num_globals ? a.global_poses : nullptr;
  r.features = render_features(pipeline, c, terrain);
  r.stream = a.stream;
  r.arguments = as;
  return r;
}

}  // namespace wr
