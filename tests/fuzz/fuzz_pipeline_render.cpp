// Fuzz harness: the RL pipeline's argument surface, wr_sensor_options (wr_sensor_create_ex) and
// the per-env arrays of wr_render_args (wr_sensor_render_ex), on the room of fuzz_support.h.
// Options, intrinsics, mounts and poses are drawn from NaN, the infinities, huge, denormal and
// signed-zero values as often as from plain ones; enum fields from any int; counts and indices
// from just inside and just outside their ranges.
//   - wr_sensor_create_ex succeeds exactly when the options are valid as this harness reads
//     wr.h (options_valid) and the output is below 2^32 pixels; otherwise
//     WR_ERROR_INVALID_ARGUMENT naming the function, and no handle written;
//   - wr_sensor_output_shape is the crop's or the asked size, in the asked dtype;
//   - each of a few renders succeeds exactly when its arguments are valid (render_failure): a
//     refused one names the argument or the first bad env, and writes nothing (output, bad-env
//     count and mask);
//   - nothing is lost: sensor A gets every call, sensor B (the same options) only those that
//     succeed, on the scalar path; after each, both outputs, counts and masks are the same bytes
//     (so a failed call left A's history as it was, and the scalar and packet paths agree);
//   - an env the update mask leaves out keeps its output bytes and its mask entry; an isolated
//     bad env is counted, marked, and (shown without delay) invalid: NaN, or 0 in millimetres.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_support.h"

namespace {

using wr_fuzz::check;
using wr_fuzz::fail;
using wr_fuzz::pose_valid;

constexpr uint8_t kOutFill = 0xa5, kMaskFill = 0x5a;
constexpr uint32_t kCountFill = 0xdeadbeef;

// An enum field: usually in or next to its range, sometimes any int.
template <class E>
void fuzz_enum(wr_fuzz::Bytes& in, E* field, uint32_t count) {
  const int v = in.take<uint8_t>() < 230 ? int(in.below(count + 1)) : in.take<int>();
  std::memcpy(field, &v, sizeof v);
}

template <class E>
int enum_int(const E& e) {
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// A noise parameter: usually off or a plain probability-sized value, sometimes special.
float noise_value(wr_fuzz::Bytes& in) {
  const uint8_t kind = in.take<uint8_t>();
  if (kind < 100) return 0.0f;
  if (kind < 200) return float(in.below(101)) / 100.0f;
  return in.special_float();
}

bool finite_non_negative(float v) { return std::isfinite(v) && v >= 0.0f; }
bool probability(float v) { return v >= 0.0f && v <= 1.0f; }

struct Shape {
  uint32_t width, height, bytes_per_pixel;
  uint64_t pixels() const { return uint64_t(width) * height; }
};

// wr.h's rules for the options of a sensor of `num_envs` cameras of w x h, read independently of
// the library's code; the output's shape where they hold.
bool options_valid(const wr_sensor_options& o, uint32_t w, uint32_t h, uint32_t num_envs, Shape* shape) {
  if (o.crop_x >= w || o.crop_y >= h) return false;
  const uint64_t cw = o.crop_width ? o.crop_width : w - o.crop_x, ch = o.crop_height ? o.crop_height : h - o.crop_y;
  if (o.crop_x + cw > w || o.crop_y + ch > h) return false;
  const int resample = enum_int(o.resample), invalid = enum_int(o.invalid_mode), dtype = enum_int(o.dtype);
  if (resample < WR_RESAMPLE_NONE || resample > WR_RESAMPLE_BICUBIC) return false;
  const uint64_t ow = o.out_width ? o.out_width : cw, oh = o.out_height ? o.out_height : ch;
  if (resample == WR_RESAMPLE_NONE && (ow != cw || oh != ch)) return false;
  if (ow >= (1u << 31) || oh >= (1u << 31) || ow * oh >= (1ull << 32) || ow * oh * num_envs >= (1ull << 32))
    return false;
  if (invalid != WR_INVALID_MISS_VALUE && invalid != WR_INVALID_REP117) return false;
  if (o.clip && !(o.clip_min <= o.clip_max)) return false;
  if (o.normalize &&
      !(std::isfinite(o.norm_a) && std::isfinite(o.norm_b) && std::isfinite(o.norm_c) && o.norm_a != o.norm_b))
    return false;
  if (o.clamp && !(o.clamp_min <= o.clamp_max)) return false;
  if (dtype < WR_DTYPE_FLOAT32 || dtype > WR_DTYPE_UINT16_MM) return false;
  if (o.history_length > 1024) return false;
  const int bad_pose = enum_int(o.bad_pose_mode);
  if (bad_pose != WR_BAD_POSE_FAIL && bad_pose != WR_BAD_POSE_ISOLATE) return false;
  const wr_noise_desc& n = o.noise;
  if (!finite_non_negative(n.min_range) || !finite_non_negative(n.edge_threshold) || !probability(n.edge_probability) ||
      !probability(n.dropout_probability) || !finite_non_negative(n.disparity_focal_baseline) ||
      !finite_non_negative(n.env_offset))
    return false;
  for (float s : n.range_sigma)
    if (!std::isfinite(s)) return false;
  if (n.disparity_focal_baseline > 0.0f && !(std::isfinite(n.disparity_step) && n.disparity_step > 0.0f)) return false;
  *shape = Shape{uint32_t(ow), uint32_t(oh), dtype == WR_DTYPE_FLOAT32 ? 4u : 2u};
  return true;
}

bool all_finite(const float* v, int n) {
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

bool intrinsics_valid(const float* k) {  // fx, fy finite and > 0; cx, cy finite
  return all_finite(k, 4) && k[0] > 0.0f && k[1] > 0.0f;
}

// One render's arrays, owned here; args() points a wr_render_args at them.
struct Call {
  uint32_t stride = 0, offset = 0;  // as given (0: 7)
  uint64_t frame = 0;
  std::vector<float> poses, intrinsics, mounts;
  std::vector<uint32_t> latency;
  std::vector<uint8_t> update, reset;
  bool count = false, mask = false;
  uint64_t out_bytes = 0;

  wr_render_args args(void* out, uint32_t* bad_count, uint8_t* bad_mask) const {
    wr_render_args a;
    wr_render_args_init(&a);
    a.body_poses = poses.data();
    a.pose_stride = stride;
    a.pose_offset = offset;
    a.intrinsics = intrinsics.empty() ? nullptr : intrinsics.data();
    a.mounts = mounts.empty() ? nullptr : mounts.data();
    a.frame = frame;
    a.latency = latency.empty() ? nullptr : latency.data();
    a.update_mask = update.empty() ? nullptr : update.data();
    a.reset_mask = reset.empty() ? nullptr : reset.data();
    a.out = out;
    a.out_bytes = out_bytes;
    a.bad_env_count = count ? bad_count : nullptr;
    a.bad_env_mask = mask ? bad_mask : nullptr;
    return a;
  }
  const float* pose(uint32_t env) const { return &poses[uint64_t(env) * (stride ? stride : 7) + offset]; }
  bool updated(uint32_t env) const { return update.empty() || update[env]; }
  bool env_bad(uint32_t env) const {  // its camera cannot be made (isolated, or refused)
    return !pose_valid(pose(env)) || (!mounts.empty() && !all_finite(&mounts[7ull * env], 7)) ||
           (!intrinsics.empty() && !intrinsics_valid(&intrinsics[4ull * env]));
  }
};

Call make_call(wr_fuzz::Bytes& in, uint32_t num_envs, uint32_t history, uint64_t bytes_per_env) {
  Call c;
  const uint8_t parts = in.take<uint8_t>();
  c.frame = in.below(4);
  if (parts & 1) {
    c.stride = in.take<uint8_t>() < 240 ? 7 + in.below(7) : in.below(7);  // 0..6: 0 is 7, the rest refused
    const uint32_t stride = c.stride ? c.stride : 7;
    c.offset = in.take<uint8_t>() < 240 ? (stride >= 7 ? in.below(stride - 6) : 0) : in.below(16);
  }
  const uint32_t stride = c.stride ? c.stride : 7;
  c.poses.assign(uint64_t(num_envs) * stride + c.offset + 7, 0.25f);  // room for a refused offset
  for (uint32_t e = 0; e < num_envs; ++e) {
    float* p = &c.poses[uint64_t(e) * stride + c.offset];
    const float good[7] = {-2.0f + float(e), 0.5f * float(e), 1.0f, 1, 0, 0, 0};
    std::memcpy(p, good, sizeof good);
    const uint8_t kind = in.take<uint8_t>();
    if (kind & 1)
      for (int i = 0; i < 3; ++i) p[i] = in.special_float();
    if (kind & 2)
      for (int i = 3; i < 7; ++i) p[i] = in.special_float();
  }
  if (parts & 2) {
    for (uint32_t e = 0; e < num_envs; ++e) {
      float k[4] = {4.0f + float(in.below(8)), 4.0f + float(in.below(8)), float(in.below(12)), float(in.below(10))};
      if (in.take<uint8_t>() >= 200)
        for (float& f : k) f = in.special_float();
      c.intrinsics.insert(c.intrinsics.end(), k, k + 4);
    }
  }
  if (parts & 4) {
    for (uint32_t e = 0; e < num_envs; ++e) {
      float m[7] = {0.1f * float(in.below(4)), 0, 0.05f, 0, 0, 0, 0};  // all-zero quaternion: the identity
      if (in.take<uint8_t>() >= 200)
        for (float& f : m) f = in.special_float();
      c.mounts.insert(c.mounts.end(), m, m + 7);
    }
  }
  if (parts & 8)
    for (uint32_t e = 0; e < num_envs; ++e)
      c.latency.push_back(in.take<uint8_t>() < 240 ? in.below(history + 1) : in.take<uint32_t>());
  if (parts & 16)
    for (uint32_t e = 0; e < num_envs; ++e) c.update.push_back(in.take<uint8_t>() & 3 ? 1 : 0);
  if (parts & 32)
    for (uint32_t e = 0; e < num_envs; ++e) c.reset.push_back(in.take<uint8_t>() & 1);
  c.count = parts & 64;
  c.mask = parts & 128;
  c.out_bytes = num_envs * bytes_per_env;
  if (in.take<uint8_t>() >= 245) c.out_bytes -= 1;
  return c;
}

// What a host render must refuse, in the order wr.h's checks name it (empty: nothing).
std::string render_failure(const Call& c, uint32_t num_envs, uint32_t history, bool isolate, uint64_t bytes_per_env) {
  const uint32_t stride = c.stride ? c.stride : 7;
  if (stride < 7) return "args->pose_stride";
  if (uint64_t(c.offset) + 7 > stride) return "args->pose_offset";
  if (c.out_bytes < num_envs * bytes_per_env) return "args->out_bytes";
  for (uint32_t e = 0; e < num_envs; ++e) {
    if (!c.latency.empty() && c.latency[e] >= (history > 1 ? history : 1)) return "env " + std::to_string(e) + " ";
    if (!isolate && c.updated(e) && c.env_bad(e)) return "env " + std::to_string(e) + " ";
  }
  return "";
}

bool invalid_value(const uint8_t* at, int dtype) {
  if (dtype == WR_DTYPE_FLOAT32) {
    float v;
    std::memcpy(&v, at, 4);
    return std::isnan(v);
  }
  uint16_t h;
  std::memcpy(&h, at, 2);
  if (dtype == WR_DTYPE_FLOAT16) return (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
  return h == 0;  // millimetres: 0 where the value is not finite
}

// The state of one sensor's outputs after a call.
struct Result {
  wr_status status;
  std::vector<uint8_t> out, mask;
  uint32_t count = kCountFill;
};

Result render(wr_sensor sensor, const Call& c, uint32_t num_envs, uint64_t out_size) {
  Result r;
  r.out.assign(out_size, kOutFill);
  r.mask.assign(num_envs, kMaskFill);
  const wr_render_args a = c.args(r.out.data(), &r.count, r.mask.data());
  r.status = wr_sensor_render_ex(sensor, &a);
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wr_fuzz::Bytes in(data, size);
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, 8, 6, 90.0f);
  const uint8_t fields = in.take<uint8_t>();  // which groups of options the input sets
  d.width = 1 + in.below(12);
  d.height = 1 + in.below(10);
  if (in.take<uint8_t>() & 1) d.depth_kind = WR_DEPTH_RANGE;
  if (in.take<uint8_t>() & 1) d.quat_order = WR_QUAT_XYZW;
  const uint32_t num_envs = 1 + in.below(4);

  wr_sensor_options o;
  wr_sensor_options_init(&o);
  if (fields & 1) {
    o.crop_x = in.below(d.width + 1), o.crop_y = in.below(d.height + 1);
    o.crop_width = in.below(d.width + 2), o.crop_height = in.below(d.height + 2);
    if (in.take<uint8_t>() >= 250) o.crop_width = in.take<uint32_t>(), o.crop_height = in.take<uint32_t>();
  }
  const bool huge = (fields & 0xc0) == 0xc0;  // output sizes past what any memory holds
  if (fields & 2) {
    fuzz_enum(in, &o.resample, 3);
    o.out_width = huge ? in.take<uint32_t>() : in.below(20);
    o.out_height = huge ? in.take<uint32_t>() : in.below(20);
  }
  if (fields & 4) {
    fuzz_enum(in, &o.invalid_mode, 2);
    fuzz_enum(in, &o.dtype, 3);
  }
  if (fields & 8) {
    const uint8_t which = in.take<uint8_t>();
    o.clip = which & 1, o.normalize = which & 2, o.clamp = which & 4;
    o.clip_min = in.special_float(), o.clip_max = in.special_float();
    o.norm_a = in.special_float(), o.norm_b = in.special_float(), o.norm_c = in.special_float();
    o.clamp_min = in.special_float(), o.clamp_max = in.special_float();
  }
  if (fields & 16) {
    o.history_length = in.take<uint8_t>() < 240 ? in.below(5) : in.take<uint32_t>();
    fuzz_enum(in, &o.bad_pose_mode, 2);
  }
  if (fields & 32) {
    wr_noise_desc& n = o.noise;
    n.seed = in.take<uint64_t>();
    n.min_range = noise_value(in), n.edge_threshold = noise_value(in), n.edge_probability = noise_value(in);
    n.dropout_probability = noise_value(in);
    for (float& s : n.range_sigma) s = noise_value(in);
    n.disparity_focal_baseline = noise_value(in), n.disparity_step = noise_value(in), n.env_offset = noise_value(in);
  }

  Shape shape{};
  const bool valid = options_valid(o, d.width, d.height, num_envs, &shape);
  if (!valid) {
    const wr_sensor kUnwritten = reinterpret_cast<wr_sensor>(uintptr_t(0x5a5a5a50));
    wr_sensor sensor = kUnwritten;
    const wr_status s = wr_sensor_create_ex(wr_fuzz::room_scene(), &d, &o, num_envs, &sensor);
    check(s == WR_ERROR_INVALID_ARGUMENT, "invalid options were not refused",
          wr_status_string(s) + std::string(": ") + wr_last_error());
    wr_fuzz::check_message(s, "wr_sensor_create_ex");
    check(sensor == kUnwritten, "a failed call wrote the handle");
    return 0;
  }
  if (shape.pixels() * num_envs > (1u << 16)) return 0;  // valid but large: not this harness's subject
  wr_sensor a = nullptr, b = nullptr;
  check(wr_sensor_create_ex(wr_fuzz::room_scene(), &d, &o, num_envs, &a) == WR_SUCCESS, "valid options were refused",
        wr_last_error());
  check(wr_sensor_create_ex(wr_fuzz::room_scene(), &d, &o, num_envs, &b) == WR_SUCCESS, "the twin was refused",
        wr_last_error());
  uint32_t w = 0, h = 0;
  wr_dtype dtype{};
  uint64_t bytes_per_env = 0;
  check(wr_sensor_output_shape(a, &w, &h, &dtype, &bytes_per_env) == WR_SUCCESS, "wr_sensor_output_shape",
        wr_last_error());
  check(w == shape.width && h == shape.height && enum_int(dtype) == enum_int(o.dtype) &&
            bytes_per_env == shape.pixels() * shape.bytes_per_pixel,
        "wr_sensor_output_shape is not the asked one",
        std::to_string(w) + " x " + std::to_string(h) + " of " + std::to_string(enum_int(dtype)) + ", " +
            std::to_string(bytes_per_env) + " bytes");

  const uint32_t history = o.history_length;
  const bool isolate = enum_int(o.bad_pose_mode) == WR_BAD_POSE_ISOLATE;
  const uint64_t out_size = num_envs * bytes_per_env;
  for (uint32_t call = 0, calls = 1 + in.below(4); call < calls; ++call) {
    const Call c = make_call(in, num_envs, history, bytes_per_env);
    const std::string refused = render_failure(c, num_envs, history, isolate, bytes_per_env);
    const Result ra = render(a, c, num_envs, out_size);
    const std::string where = "call " + std::to_string(call) + ": ";
    if (!refused.empty()) {
      check(ra.status == WR_ERROR_INVALID_ARGUMENT, "invalid render arguments were not refused",
            where + refused + ": " + wr_status_string(ra.status));
      wr_fuzz::check_message(ra.status, "wr_sensor_render_ex");
      check(std::string(wr_last_error()).find(refused) != std::string::npos, "the culprit is not named",
            where + refused + " in " + wr_last_error());
      for (uint8_t v : ra.out) check(v == kOutFill, "a refused render wrote its output");
      for (uint8_t v : ra.mask) check(v == kMaskFill, "a refused render wrote the bad-env mask");
      check(ra.count == kCountFill, "a refused render wrote the bad-env count");
      continue;
    }
    check(ra.status == WR_SUCCESS, "a valid render failed", where + wr_last_error());
    check(wr_context_set_cpu_path(wr_fuzz::context(), WR_CPU_PATH_SCALAR) == WR_SUCCESS, "set_cpu_path");
    const Result rb = render(b, c, num_envs, out_size);
    check(wr_context_set_cpu_path(wr_fuzz::context(), WR_CPU_PATH_AUTO) == WR_SUCCESS, "set_cpu_path");
    check(rb.status == WR_SUCCESS, "the twin's render failed", where + wr_last_error());
    // (the detail strings of the loops over bytes are built only for a failure: once per byte, they
    // took most of a large output's time, past libFuzzer's timeout on a busy machine)
    for (uint64_t i = 0; i < out_size; ++i)
      if (ra.out[i] != rb.out[i])
        fail("the sensors' outputs differ (a failed call changed the history, or the paths differ)",
             where + "byte " + std::to_string(i));
    check(ra.mask == rb.mask && ra.count == rb.count, "the sensors' bad-env reports differ", where);

    uint32_t bad = 0;
    for (uint32_t e = 0; e < num_envs; ++e) {
      const uint8_t* env_out = &ra.out[e * bytes_per_env];
      if (!c.updated(e)) {
        for (uint64_t i = 0; i < bytes_per_env; ++i)
          if (env_out[i] != kOutFill)
            fail("an env the update mask leaves out was written", where + "env " + std::to_string(e));
        if (c.mask) check(ra.mask[e] == kMaskFill, "the mask entry of an env left out was written", where);
        continue;
      }
      const bool env_bad = c.env_bad(e);  // only an isolating sensor renders one
      bad += env_bad;
      if (c.mask)
        check(ra.mask[e] == (env_bad ? 1 : 0), "the bad-env mask is wrong", where + "env " + std::to_string(e));
      const bool delayed = !c.latency.empty() && c.latency[e] > 0;
      if (env_bad && !delayed)
        for (uint64_t i = 0; i < bytes_per_env; i += shape.bytes_per_pixel)
          if (!invalid_value(env_out + i, enum_int(o.dtype)))
            fail("an isolated bad env's output is valid", where + "env " + std::to_string(e));
    }
    if (c.count)
      check(ra.count == bad, "the bad-env count is wrong",
            where + std::to_string(ra.count) + " vs " + std::to_string(bad));
  }
  wr_sensor_release(a);
  wr_sensor_release(b);
  return 0;
}
