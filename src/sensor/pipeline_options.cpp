#include "sensor/pipeline_options.h"

#include <cmath>
#include <cstring>
#include <string>

#include "errors/field_checks.h"
#include "errors/status_error.h"
#include "sensor/camera_model.h"

namespace wr {
namespace {

[[noreturn]] void bad_option(const char* function, const char* field, const std::string& why) {
  bad_field(function, std::string("options->") + field, why);
}

// An enum field a C caller may have set to any int (read as one: an out-of-range enum value is
// undefined behaviour in C++).
template <class E>
int enum_value(const E& e) {
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

void require_enum(const char* function, const char* field, int v, int lo, int hi, const char* names) {
  if (v < lo || v > hi) bad_option(function, field, "= " + std::to_string(v) + ": must be one of " + names);
}

void require_finite(const char* function, const char* field, float v) {
  require_finite_field(function, std::string("options->") + field, v);
}

void require_probability(const char* function, const char* field, float v) {
  if (!(v >= 0.0f && v <= 1.0f)) bad_option(function, field, "= " + num(v) + ": must be a probability in [0, 1]");
}

void require_non_negative(const char* function, const char* field, float v) {
  require_non_negative_field(function, std::string("options->") + field, v);
}

NoiseParams make_noise(const char* function, const wr_noise_desc& n) {
  require_non_negative(function, "noise.min_range", n.min_range);
  require_non_negative(function, "noise.edge_threshold", n.edge_threshold);
  require_probability(function, "noise.edge_probability", n.edge_probability);
  require_probability(function, "noise.dropout_probability", n.dropout_probability);
  const char* sigma_names[3] = {"noise.range_sigma[0]", "noise.range_sigma[1]", "noise.range_sigma[2]"};
  for (int i = 0; i < 3; ++i) require_finite(function, sigma_names[i], n.range_sigma[i]);
  require_non_negative(function, "noise.disparity_focal_baseline", n.disparity_focal_baseline);
  if (n.disparity_focal_baseline > 0.0f && !(std::isfinite(n.disparity_step) && n.disparity_step > 0.0f))
    bad_option(function, "noise.disparity_step",
               "= " + num(n.disparity_step) + ": must be finite and > 0 when noise.disparity_focal_baseline is set");
  require_non_negative(function, "noise.env_offset", n.env_offset);
  NoiseParams p{};
  p.seed_lo = static_cast<uint32_t>(n.seed);
  p.seed_hi = static_cast<uint32_t>(n.seed >> 32);
  p.min_range = n.min_range;
  p.edges = n.edge_threshold > 0.0f && n.edge_probability > 0.0f;
  p.edge_threshold = n.edge_threshold;
  p.edge_probability = p.edges ? n.edge_probability : 0.0f;
  p.dropout_probability = n.dropout_probability;
  p.sigma_a = n.range_sigma[0];
  p.sigma_b = n.range_sigma[1];
  p.sigma_c = n.range_sigma[2];
  p.focal_baseline = n.disparity_focal_baseline;
  p.disparity_step = n.disparity_step;
  p.env_offset = n.env_offset;
  p.any = p.min_range > 0.0f || p.edges || p.dropout_probability > 0.0f || p.sigma_a != 0.0f || p.sigma_b != 0.0f ||
          p.sigma_c != 0.0f || p.focal_baseline > 0.0f || p.env_offset > 0.0f;
  return p;
}

}  // namespace

SensorPipeline make_sensor_pipeline(const char* function, const wr_camera_desc& desc, const wr_sensor_options* in) {
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  if (in) o = *in;  // the C API read the caller's struct as far as its struct_size reaches

  SensorPipeline s;
  PipelineParams& p = s.params;
  p.plain = make_depth_params(desc);
  p.depth = p.plain;
  p.depth.miss_value = INFINITY;  // the camera stage's "no return"; the output stage maps it
  p.intrinsics = intrinsics_of(desc);
  p.plane_depth = desc.depth_kind == WR_DEPTH_PLANE;
  p.hits_in_sensor_frame = desc.hit_frame == WR_HIT_FRAME_SENSOR;  // (a pattern sensor's set from its own desc)
  p.cam_w = desc.width;
  p.cam_h = desc.height;

  OutputParams& out = p.output;
  if (o.crop_x >= desc.width)
    bad_option(function, "crop_x",
               "= " + std::to_string(o.crop_x) + ": must be below desc->width (" + std::to_string(desc.width) + ")");
  if (o.crop_y >= desc.height)
    bad_option(function, "crop_y",
               "= " + std::to_string(o.crop_y) + ": must be below desc->height (" + std::to_string(desc.height) + ")");
  out.crop_x = o.crop_x;
  out.crop_y = o.crop_y;
  out.crop_w = o.crop_width ? o.crop_width : desc.width - o.crop_x;
  out.crop_h = o.crop_height ? o.crop_height : desc.height - o.crop_y;
  if (uint64_t(out.crop_x) + out.crop_w > desc.width)
    bad_option(function, "crop_width",
               "= " + std::to_string(out.crop_w) + ": crop_x + crop_width must be <= desc->width (" +
                   std::to_string(desc.width) + ")");
  if (uint64_t(out.crop_y) + out.crop_h > desc.height)
    bad_option(function, "crop_height",
               "= " + std::to_string(out.crop_h) + ": crop_y + crop_height must be <= desc->height (" +
                   std::to_string(desc.height) + ")");
  const int resample = enum_value(o.resample);
  require_enum(function, "resample", resample, WR_RESAMPLE_NONE, WR_RESAMPLE_BICUBIC,
               "WR_RESAMPLE_NONE, WR_RESAMPLE_AREA, WR_RESAMPLE_BICUBIC");
  out.resample = resample;
  out.out_w = o.out_width ? o.out_width : out.crop_w;
  out.out_h = o.out_height ? o.out_height : out.crop_h;
  // As the camera's sides (camera_model.cpp): below 2^31, so that out_w x out_h x 4 bytes fits 64
  // bits and a side plus a tile's width fits 32.
  if (out.out_w >= (1u << 31))
    bad_option(function, "out_width", "= " + std::to_string(out.out_w) + ": must be below 2^31");
  if (out.out_h >= (1u << 31))
    bad_option(function, "out_height", "= " + std::to_string(out.out_h) + ": must be below 2^31");
  if (resample == WR_RESAMPLE_NONE && (out.out_w != out.crop_w || out.out_h != out.crop_h))
    bad_option(function, "out_width",
               "x out_height = " + std::to_string(out.out_w) + " x " + std::to_string(out.out_h) +
                   ": with WR_RESAMPLE_NONE the output is the crop (" + std::to_string(out.crop_w) + " x " +
                   std::to_string(out.crop_h) + "); choose a resampling");
  if (out.out_w == out.crop_w && out.out_h == out.crop_h) out.resample = kResampleNone;  // nothing to resample
  out.scale_x = static_cast<float>(out.crop_w) / static_cast<float>(out.out_w);
  out.scale_y = static_cast<float>(out.crop_h) / static_cast<float>(out.out_h);

  const int invalid = enum_value(o.invalid_mode);
  require_enum(function, "invalid_mode", invalid, WR_INVALID_MISS_VALUE, WR_INVALID_REP117,
               "WR_INVALID_MISS_VALUE, WR_INVALID_REP117");
  out.rep117 = invalid == WR_INVALID_REP117;
  out.miss_value = desc.miss_value;
  out.clip = o.clip != 0;
  if (out.clip && !(o.clip_min <= o.clip_max))
    bad_option(
        function, "clip_min",
        "= " + num(o.clip_min) + ", clip_max = " + num(o.clip_max) + ": need clip_min <= clip_max (neither NaN)");
  out.clip_min = o.clip_min;
  out.clip_max = o.clip_max;
  out.normalize = o.normalize != 0;
  if (out.normalize) {
    require_finite(function, "norm_a", o.norm_a);
    require_finite(function, "norm_b", o.norm_b);
    require_finite(function, "norm_c", o.norm_c);
    if (o.norm_a == o.norm_b)
      bad_option(function, "norm_b", "= norm_a = " + num(o.norm_a) + ": (d - a) / (b - a) needs a != b");
  }
  out.norm_a = o.norm_a;
  out.norm_b = o.norm_b;
  out.norm_c = o.norm_c;
  out.clamp = o.clamp != 0;
  if (out.clamp && !(o.clamp_min <= o.clamp_max))
    bad_option(
        function, "clamp_min",
        "= " + num(o.clamp_min) + ", clamp_max = " + num(o.clamp_max) + ": need clamp_min <= clamp_max (neither NaN)");
  out.clamp_min = o.clamp_min;
  out.clamp_max = o.clamp_max;
  const int dtype = enum_value(o.dtype);
  require_enum(function, "dtype", dtype, WR_DTYPE_FLOAT32, WR_DTYPE_UINT16_MM,
               "WR_DTYPE_FLOAT32, WR_DTYPE_FLOAT16, WR_DTYPE_UINT16_MM");
  out.dtype = dtype;

  constexpr uint32_t kMaxHistory = 1024;
  if (o.history_length > kMaxHistory)
    bad_option(function, "history_length",
               "= " + std::to_string(o.history_length) + ": at most " + std::to_string(kMaxHistory) + " frames");
  p.history = o.history_length > 1 ? o.history_length : 1;
  const int bad_pose = enum_value(o.bad_pose_mode);
  require_enum(function, "bad_pose_mode", bad_pose, WR_BAD_POSE_FAIL, WR_BAD_POSE_ISOLATE,
               "WR_BAD_POSE_FAIL, WR_BAD_POSE_ISOLATE");
  p.isolate = bad_pose == WR_BAD_POSE_ISOLATE;
  p.noise = make_noise(function, o.noise);
  p.exclude_groups = o.exclude_groups;  // every bit means a group (0-31): nothing to check

  // The traced window: the crop, and where edge dropout reads neighbours, one pixel around it.
  const uint32_t grow = p.noise.edges ? 1u : 0u;
  p.win_x = out.crop_x >= grow ? out.crop_x - grow : 0u;
  p.win_y = out.crop_y >= grow ? out.crop_y - grow : 0u;
  const uint32_t x1 = out.crop_x + out.crop_w + grow < desc.width ? out.crop_x + out.crop_w + grow : desc.width;
  const uint32_t y1 = out.crop_y + out.crop_h + grow < desc.height ? out.crop_y + out.crop_h + grow : desc.height;
  p.win_w = x1 - p.win_x;
  p.win_h = y1 - p.win_y;
  p.camera_image = out.resample != kResampleNone || p.noise.edges;

  s.out_width = out.out_w;
  s.out_height = out.out_h;
  s.out_bytes_per_env = uint64_t(out.out_w) * out.out_h * dtype_bytes(out.dtype);
  const bool plain_output = out.crop_w == desc.width && out.crop_h == desc.height && out.resample == kResampleNone &&
                            !out.rep117 && !out.clip && !out.normalize && !out.clamp && out.dtype == kDtypeFloat32;
  s.active = !plain_output || p.history > 1 || p.isolate || p.noise.any;
  return s;
}

void build_resample_taps(const PipelineParams& p, ResampleTaps* columns, ResampleTaps* rows) {
  const OutputParams& o = p.output;
  if (o.resample == kResampleNone) return;
  for (uint32_t x = 0; x < o.out_w; ++x) columns[x] = make_resample_taps(x, o.crop_w, o.out_w, o.scale_x, o.resample);
  for (uint32_t y = 0; y < o.out_h; ++y) rows[y] = make_resample_taps(y, o.crop_h, o.out_h, o.scale_y, o.resample);
}

}  // namespace wr
