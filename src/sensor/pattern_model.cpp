#include "sensor/pattern_model.h"

#include <cstring>
#include <string>

#include "errors/field_checks.h"
#include "errors/status_error.h"

namespace wr {
namespace {

// An enum field a C caller may have set to any int.
template <class E>
int enum_int(const E& e) {
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

void require_quaternion(const char* function, const char* field, const float q[4]) {
  float rot[9];
  if (!(q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) && !quat_to_matrix(q[0], q[1], q[2], q[3], rot))
    bad_field(function, field,
              "= (" + num(q[0]) + ", " + num(q[1]) + ", " + num(q[2]) + ", " + num(q[3]) +
                  "): must be a finite quaternion, non-zero or all 0 (the identity)");
}

// The desc checked, and the camera desc the sensor is made as.
wr_camera_desc pattern_camera_desc(const char* function, const wr_ray_sensor_desc& d, uint32_t num_rays) {
  const int order = enum_int(d.quat_order);
  if (order != WR_QUAT_WXYZ && order != WR_QUAT_XYZW)
    bad_field(function, "desc->quat_order", "= " + std::to_string(order) + ": must be WR_QUAT_WXYZ or WR_QUAT_XYZW");
  for (int i = 0; i < 3; ++i) {
    require_length_field(function, "desc->mount_position[" + std::to_string(i) + "]", d.mount_position[i]);
    require_length_field(function, "desc->offset_position[" + std::to_string(i) + "]", d.offset_position[i]);
  }
  require_quaternion(function, "desc->mount_rotation", d.mount_rotation);
  require_quaternion(function, "desc->offset_rotation", d.offset_rotation);
  require_non_negative_field(function, "desc->min_distance", d.min_distance);
  if (!(d.max_distance > d.min_distance))
    bad_field(function, "desc->max_distance",
              "= " + num(d.max_distance) + ": must be greater than min_distance (" + num(d.min_distance) +
                  "); use +infinity for no limit");
  require_finite_field(function, "desc->height_offset", d.height_offset);
  wr_camera_desc c;
  std::memset(&c, 0, sizeof c);
  c.struct_size = sizeof c;
  c.width = num_rays;
  c.height = 1;
  c.fx = c.fy = 1.0f;
  c.near_clip = d.min_distance;
  c.far_clip = d.max_distance;
  c.miss_value = d.miss_value;
  c.depth_kind = WR_DEPTH_RANGE;
  c.quat_order = d.quat_order;
  std::memcpy(c.mount_position, d.mount_position, sizeof c.mount_position);
  std::memcpy(c.mount_rotation, d.mount_rotation, sizeof c.mount_rotation);
  return c;
}

PatternParams pattern_params(const char* function, const wr_ray_sensor_desc& d) {
  PatternParams p{};
  p.enabled = true;
  p.alignment = enum_int(d.alignment);
  p.yaw_rule = enum_int(d.yaw_rule);
  p.value = enum_int(d.value);
  if (p.alignment < WR_ALIGN_BASE || p.alignment > WR_ALIGN_WORLD)
    bad_field(function, "desc->alignment",
              "= " + std::to_string(p.alignment) + ": must be WR_ALIGN_BASE, WR_ALIGN_YAW or WR_ALIGN_WORLD");
  if (p.yaw_rule != WR_YAW_ISAACLAB && p.yaw_rule != WR_YAW_MJLAB)
    bad_field(function, "desc->yaw_rule",
              "= " + std::to_string(p.yaw_rule) + ": must be WR_YAW_ISAACLAB or WR_YAW_MJLAB");
  if (p.value != WR_RAY_DISTANCE && p.value != WR_RAY_HEIGHT)
    bad_field(function, "desc->value", "= " + std::to_string(p.value) + ": must be WR_RAY_DISTANCE or WR_RAY_HEIGHT");
  p.height_offset = d.height_offset;
  const int hit_frame = enum_int(d.hit_frame);
  if (hit_frame != WR_HIT_FRAME_WORLD && hit_frame != WR_HIT_FRAME_PATTERN)
    bad_field(function, "desc->hit_frame",
              "= " + std::to_string(hit_frame) + ": must be WR_HIT_FRAME_WORLD or WR_HIT_FRAME_PATTERN");
  return p;
}

}  // namespace

SensorPipeline make_pattern_pipeline(const char* function, const wr_ray_sensor_desc& desc, const RayPattern& pattern,
                                     const wr_sensor_options* options, wr_camera_desc* camera) {
  const uint32_t pattern_rays = pattern.num_rays();
  PatternParams params = pattern_params(function, desc);
  // Scanning: a window of the pattern per frame (pattern_rays.h, pattern_ray_index).
  const int phase = enum_int(desc.scan_phase);
  if (phase != WR_SCAN_PHASE_ZERO && phase != WR_SCAN_PHASE_HASHED)
    bad_field(function, "desc->scan_phase",
              "= " + std::to_string(phase) + ": must be WR_SCAN_PHASE_ZERO or WR_SCAN_PHASE_HASHED");
  if (desc.rays_per_frame > pattern_rays)
    bad_field(function, "desc->rays_per_frame",
              "= " + std::to_string(desc.rays_per_frame) + ": a window longer than the pattern (" +
                  std::to_string(pattern_rays) + " rays)");
  params.scanning = desc.rays_per_frame != 0;
  params.hashed_phase = params.scanning && phase == WR_SCAN_PHASE_HASHED;
  params.length = pattern_rays;
  params.rays_per_frame = params.scanning ? desc.rays_per_frame : pattern_rays;
  params.seed_lo = static_cast<uint32_t>(desc.scan_seed);
  params.seed_hi = static_cast<uint32_t>(desc.scan_seed >> 32);
  const uint32_t num_rays = params.rays_per_frame;
  *camera = pattern_camera_desc(function, desc, num_rays);
  // Several frames per env: their offsets into the env's record and their mounts.
  const uint32_t frames = desc.num_frames ? desc.num_frames : 1;
  if (frames > kMaxPatternFrames)
    bad_field(function, "desc->num_frames",
              "= " + std::to_string(frames) + ": at most " + std::to_string(kMaxPatternFrames) + " frames per env");
  // The frame arrays describe several frames: with one they would be read and not used.
  if (frames == 1 && desc.frame_pose_offsets)
    bad_field(function, "desc->frame_pose_offsets",
              "is set, but desc->num_frames is " + std::to_string(desc.num_frames) +
                  ": one frame reads the render's pose (pose_offset) and desc->mount_*");
  if (frames == 1 && desc.frame_mounts)
    bad_field(function, "desc->frame_mounts",
              "is set, but desc->num_frames is " + std::to_string(desc.num_frames) +
                  ": one frame is mounted by desc->mount_position and mount_rotation");
  if (desc.frame_pose_offsets) require_element_aligned(function, desc.frame_pose_offsets, "desc->frame_pose_offsets");
  if (desc.frame_mounts) require_element_aligned(function, desc.frame_mounts, "desc->frame_mounts");
  params.num_frames = frames;
  uint32_t pose_floats = 7;
  for (uint32_t f = 0; f < frames; ++f) {
    const std::string at = "[" + std::to_string(f) + "]";
    params.frame_offsets[f] = desc.frame_pose_offsets ? desc.frame_pose_offsets[f] : 7 * f;
    if (params.frame_offsets[f] > (1u << 30))
      bad_field(function, "desc->frame_pose_offsets" + at,
                "= " + std::to_string(params.frame_offsets[f]) + ": at most 2^30 floats into an env's record");
    pose_floats = params.frame_offsets[f] + 7 > pose_floats ? params.frame_offsets[f] + 7 : pose_floats;
    float mount[7];
    std::memcpy(mount, desc.mount_position, 3 * sizeof(float));
    std::memcpy(mount + 3, desc.mount_rotation, 4 * sizeof(float));
    if (desc.frame_mounts) std::memcpy(mount, desc.frame_mounts + 7ull * f, sizeof mount);
    if (desc.frame_mounts)
      for (int k = 0; k < 3; ++k)
        require_length_field(function, "desc->frame_mounts" + at + "[" + std::to_string(k) + "]", mount[k]);
    if (!mount_to_transform(mount, enum_int(desc.quat_order), &params.frame_mounts[f]))
      bad_field(function, desc.frame_mounts ? "desc->frame_mounts" + at : std::string("desc->mount_rotation"),
                "= (" + num(mount[0]) + ", " + num(mount[1]) + ", " + num(mount[2]) + ", " + num(mount[3]) + ", " +
                    num(mount[4]) + ", " + num(mount[5]) + ", " + num(mount[6]) +
                    "): must be finite, its quaternion non-zero or all 0 (the identity)");
  }
  if (frames == 1) pose_floats = 7;  // one frame: the call's pose, as a camera's
  camera->height = frames;
  SensorPipeline pipeline = make_sensor_pipeline(function, *camera, options);
  // What makes an image of the camera's has no meaning for a pattern's rays.
  const PipelineParams& p = pipeline.params;
  const auto refuse = [&](bool bad, const char* field, const char* what) {
    if (bad)
      bad_field(function, std::string("options->") + field,
                std::string("is set, but a pattern sensor's output is its rays, one value each: ") + what);
  };
  refuse(p.output.crop_w != num_rays || p.output.crop_h != frames, "crop_x",
         "no crop (crop_x, crop_y, crop_width, crop_height 0)");
  refuse(p.output.out_w != num_rays || p.output.out_h != frames || p.output.resample != kResampleNone, "out_width",
         "no resampling (out_width, out_height 0, WR_RESAMPLE_NONE)");
  refuse(p.noise.edges, "noise.edge_probability", "no edge dropout");
  refuse(params.value == WR_RAY_HEIGHT && p.noise.any, "noise",
         "no noise on heights (the range noise models are a distance's)");
  if (params.value == WR_RAY_HEIGHT && p.output.dtype == kDtypeUint16Mm)
    bad_field(function, "options->dtype",
              "= WR_DTYPE_UINT16_MM, but the sensor reports heights: millimetres of depth read 0 and below as no "
              "return, and heights are often negative; use WR_DTYPE_FLOAT16 or WR_DTYPE_FLOAT32");
  params.shared_origin = pattern_starts_at_origin(pattern, desc);
  pipeline.params.pattern = params;
  pipeline.params.hits_in_sensor_frame = enum_int(desc.hit_frame) == WR_HIT_FRAME_PATTERN;
  camera->hit_frame = desc.hit_frame;  // (checked above: what wr_sensor_desc reports)
  pipeline.pose_floats = pose_floats;
  pipeline.active = true;  // its value stage is the pipeline's (core/render_features.h)
  return pipeline;
}

void build_pattern_template(const RayPattern& pattern, const wr_ray_sensor_desc& desc, TemplateRay* out) {
  const float* q = desc.offset_rotation;
  const bool turn = !(q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f);
  float rot[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (turn) {
    const bool xyzw = desc.quat_order == WR_QUAT_XYZW;
    quat_to_matrix(xyzw ? q[3] : q[0], xyzw ? q[0] : q[1], xyzw ? q[1] : q[2], xyzw ? q[2] : q[3], rot);
  }
  const uint32_t n = pattern.num_rays();
  for (uint32_t i = 0; i < n; ++i) {
    const float* d = &pattern.directions[3ull * i];
    const float* s = &pattern.starts[3ull * i];
    TemplateRay& dir = out[i];
    TemplateRay& start = out[n + i];
    for (int r = 0; r < 3; ++r) {
      dir.dir[r] = turn ? static_cast<float>(double(rot[3 * r]) * d[0] + double(rot[3 * r + 1]) * d[1] +
                                             double(rot[3 * r + 2]) * d[2])
                        : d[r];
      start.dir[r] = s[r] + desc.offset_position[r];
    }
    dir.depth_scale = 1.0f;
    start.depth_scale = 0.0f;
  }
}

bool pattern_starts_at_origin(const RayPattern& pattern, const wr_ray_sensor_desc& desc) {
  for (uint32_t i = 0; i < pattern.num_rays(); ++i)
    for (int r = 0; r < 3; ++r)
      if (pattern.starts[3ull * i + r] + desc.offset_position[r] != 0.0f) return false;
  return true;
}

}  // namespace wr
