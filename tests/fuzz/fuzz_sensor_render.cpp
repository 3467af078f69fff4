// Fuzz harness: the camera description (wr_sensor_create) and the render arguments
// (wr_sensor_render) on a fixed scene, with fields and poses drawn from NaN, the infinities,
// huge, denormal and signed-zero values as often as from plain ones, and enum fields from any int.
//   - wr_sensor_create succeeds exactly when the description is valid as wr.h states it (the
//     harness's own reading of the rules), and num_envs x height x width < 2^32; otherwise
//     WR_ERROR_INVALID_ARGUMENT naming the function (and nothing allocated: a sensor whose
//     pixels pass the limit is asked for at sizes no memory holds);
//   - wr_sensor_render succeeds exactly when every pose is finite with a non-zero quaternion;
//     otherwise it names the first bad env and writes nothing;
//   - every pixel it writes is miss_value (bit for bit) or a depth in [near_clip, far_clip];
//   - the scalar path and the SIMD packet path this CPU runs give the same image, bit for bit
//     (wr.h: every path gives bit-identical depth);
//   - body quaternions scaled by 2^80 or 2^-80 (the same rotations) give the same image.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_support.h"

namespace {

using wr_fuzz::check;
using wr_fuzz::pose_valid;

bool finite_positive(float f) { return std::isfinite(f) && f > 0.0f; }

// wr.h's rules for a camera description, read independently of the library's code.
bool desc_valid(const wr_camera_desc& d) {
  int kind, order;
  std::memcpy(&kind, &d.depth_kind, sizeof kind);
  std::memcpy(&order, &d.quat_order, sizeof order);
  bool ok = d.width >= 1 && d.height >= 1 && d.width < (1u << 31) && d.height < (1u << 31) && finite_positive(d.fx) &&
            finite_positive(d.fy) && std::isfinite(d.cx) && std::isfinite(d.cy) && std::isfinite(d.near_clip) &&
            d.near_clip >= 0.0f && d.far_clip > d.near_clip && (kind == WR_DEPTH_PLANE || kind == WR_DEPTH_RANGE) &&
            (order == WR_QUAT_WXYZ || order == WR_QUAT_XYZW);
  // The mount's quaternion: any finite one, all four 0 being the identity.
  for (int i = 0; i < 3; ++i) ok = ok && std::isfinite(d.mount_position[i]);
  for (int i = 0; i < 4; ++i) ok = ok && std::isfinite(d.mount_rotation[i]);
  return ok;
}

// The description and poses, for the report of a broken contract.
std::string describe(const wr_camera_desc& d, const std::vector<float>& poses) {
  char buf[512];
  int kind, order;
  std::memcpy(&kind, &d.depth_kind, sizeof kind);
  std::memcpy(&order, &d.quat_order, sizeof order);
  std::snprintf(buf, sizeof buf,
                "desc %ux%u f=(%.9g, %.9g) c=(%.9g, %.9g) clip=[%.9g, %.9g] miss=%.9g kind=%d order=%d "
                "mount=(%.9g, %.9g, %.9g | %.9g, %.9g, %.9g, %.9g); poses",
                d.width, d.height, d.fx, d.fy, d.cx, d.cy, d.near_clip, d.far_clip, d.miss_value, kind, order,
                d.mount_position[0], d.mount_position[1], d.mount_position[2], d.mount_rotation[0], d.mount_rotation[1],
                d.mount_rotation[2], d.mount_rotation[3]);
  std::string out = buf;
  for (size_t i = 0; i < poses.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.9g", i % 7 ? ", " : " | ", poses[i]);
    out += buf;
  }
  return out;
}

std::vector<float> render(wr_sensor sensor, const std::vector<float>& poses, size_t pixels, wr_status* status) {
  std::vector<float> out(pixels, -7.25f);
  *status = wr_sensor_render(sensor, poses.data(), out.data(), nullptr);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wr_fuzz::Bytes in(data, size);
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, 8, 6, 90.0f);
  const uint8_t fields = in.take<uint8_t>();  // which groups of fields the input overrides
  uint32_t num_envs = 1 + in.below(4);
  const bool huge = (fields & 0xc0) == 0xc0;  // sizes past what any memory holds
  if (huge) {
    d.width = in.take<uint32_t>();
    d.height = in.take<uint32_t>();
    num_envs = in.take<uint32_t>();
  } else {
    d.width = 1 + in.below(12);
    d.height = 1 + in.below(10);
  }
  if (fields & 1) d.fx = in.special_float(), d.fy = in.special_float();
  if (fields & 2) d.cx = in.special_float(), d.cy = in.special_float();
  if (fields & 4) d.near_clip = in.special_float(), d.far_clip = in.special_float();
  if (fields & 8) d.miss_value = in.special_float();
  if (fields & 16) {
    const int kind = in.take<uint8_t>() < 230 ? in.below(2) : in.take<int>();
    const int order = in.take<uint8_t>() < 230 ? in.below(2) : in.take<int>();
    std::memcpy(&d.depth_kind, &kind, sizeof kind);
    std::memcpy(&d.quat_order, &order, sizeof order);
  }
  if (fields & 32) {
    for (float& f : d.mount_position) f = in.special_float();
    for (float& f : d.mount_rotation) f = in.special_float();
  }

  const uint64_t pixels = uint64_t(d.width) * d.height;  // per env; < 2^64
  // num_envs x pixels >= 2^32, without overflowing 64 bits.
  const bool too_many = pixels >= (1ull << 32) || (num_envs != 0 && pixels * num_envs >= (1ull << 32));
  const bool valid = desc_valid(d) && num_envs >= 1 && !too_many;
  if (!valid || huge) {
    if (valid) return 0;  // valid but huge: would allocate its template, not this harness's subject
    wr_sensor sensor = nullptr;
    const wr_status s = wr_sensor_create(wr_fuzz::room_scene(), &d, num_envs, &sensor);
    check(s == WR_ERROR_INVALID_ARGUMENT, "an invalid description was not refused",
          wr_status_string(s) + std::string(": ") + wr_last_error());
    wr_fuzz::check_message(s, "wr_sensor_create");
    check(sensor == nullptr, "a failed call wrote the handle");
    return 0;
  }
  wr_sensor sensor = nullptr;
  const wr_status created = wr_sensor_create(wr_fuzz::room_scene(), &d, num_envs, &sensor);
  check(created == WR_SUCCESS, "a valid description was refused", wr_last_error());

  std::vector<float> poses;
  for (uint32_t e = 0; e < num_envs; ++e) {
    const uint8_t kind = in.take<uint8_t>();
    float p[7] = {-2.0f + float(e), 0.5f * float(e), 1.0f, 1, 0, 0, 0};
    if (kind & 1)
      for (int i = 0; i < 3; ++i) p[i] = in.special_float();
    if (kind & 2)
      for (int i = 3; i < 7; ++i) p[i] = in.special_float();
    poses.insert(poses.end(), p, p + 7);
  }
  int first_bad = -1;
  for (uint32_t e = 0; e < num_envs && first_bad < 0; ++e)
    if (!pose_valid(&poses[7 * e])) first_bad = int(e);

  const size_t total = size_t(num_envs) * pixels;
  wr_status s;
  const std::vector<float> image = render(sensor, poses, total, &s);
  if (first_bad >= 0) {
    check(s == WR_ERROR_INVALID_ARGUMENT, "a bad pose was not refused", wr_status_string(s));
    wr_fuzz::check_message(s, "wr_sensor_render");
    check(std::string(wr_last_error()).find("env " + std::to_string(first_bad) + " ") != std::string::npos,
          "the first bad env is not named", wr_last_error());
    for (float v : image) check(v == -7.25f, "a refused render wrote pixels");
  } else {
    check(s == WR_SUCCESS, "a render of good poses failed", wr_last_error());
    for (size_t i = 0; i < total; ++i) {
      const float v = image[i];
      const bool miss = std::memcmp(&v, &d.miss_value, sizeof v) == 0;
      check(miss || (v >= d.near_clip && v <= d.far_clip), "a pixel is neither the miss value nor in [near, far]",
            "pixel " + std::to_string(i) + " = " + std::to_string(v) + "; " + describe(d, poses));
    }
    // The scalar path must agree bit for bit with the packet path the context runs by default.
    check(wr_context_set_cpu_path(wr_fuzz::context(), WR_CPU_PATH_SCALAR) == WR_SUCCESS, "set_cpu_path");
    wr_status scalar_status;
    const std::vector<float> scalar = render(sensor, poses, total, &scalar_status);
    check(wr_context_set_cpu_path(wr_fuzz::context(), WR_CPU_PATH_AUTO) == WR_SUCCESS, "set_cpu_path");
    check(scalar_status == WR_SUCCESS, "the scalar render failed", wr_last_error());
    for (size_t i = 0; i < total; ++i)
      check(std::memcmp(&scalar[i], &image[i], sizeof(float)) == 0, "the scalar and packet paths differ",
            "pixel " + std::to_string(i) + ": " + std::to_string(scalar[i]) + " vs " + std::to_string(image[i]) + "; " +
                describe(d, poses));

    // A quaternion scaled by a power of two is the same rotation, and quat_to_matrix (camera.h)
    // gives it the same bits: 2^80 and 2^-80 take every well-conditioned quaternion (largest
    // component in [2^-10, 2^10], every other one zero or within 2^-10 of it) out of float's
    // squared range and back; the image must not change.
    const float scale = in.take<uint8_t>() & 1 ? 0x1p80f : 0x1p-80f;
    std::vector<float> scaled = poses;
    for (uint32_t e = 0; e < num_envs; ++e) {
      float* q = &scaled[7 * e + 3];
      float m = 0.0f;
      for (int i = 0; i < 4; ++i) m = std::fmax(m, std::fabs(q[i]));
      bool conditioned = m >= 0x1p-10f && m <= 0x1p10f;
      for (int i = 0; i < 4; ++i) conditioned = conditioned && (q[i] == 0.0f || std::fabs(q[i]) >= m * 0x1p-10f);
      if (conditioned)
        for (int i = 0; i < 4; ++i) q[i] *= scale;
    }
    wr_status scaled_status;
    const std::vector<float> rescaled = render(sensor, scaled, total, &scaled_status);
    check(scaled_status == WR_SUCCESS, "the render of the rescaled quaternions failed", wr_last_error());
    check(std::memcmp(rescaled.data(), image.data(), total * sizeof(float)) == 0,
          "a quaternion scaled by a power of two changed the image", describe(d, poses));
  }
  wr_sensor_release(sensor);
  return 0;
}
