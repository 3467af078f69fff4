// The RL depth pipeline's camera and output stages (wr.h, "The RL depth pipeline"), through the
// public C API on the backend under test, against independent truth: a plain render of the same
// cameras (bit for bit where the stage only moves values), references written here in double
// (Keys' cubic as torch's interpolate, area averages), IEEE conversions the compiler makes
// (_Float16), and closed forms.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "pipeline_test_support.h"

using namespace wr_test::pipeline_tests;

namespace {

constexpr uint32_t kW = 53, kH = 31;  // odd, so that crops and resampling see partial tiles

wr_camera_desc camera(wr_depth_kind kind = WR_DEPTH_PLANE, float miss = -1.0f) {
  wr_camera_desc d = pinhole(kW, kH, 80.0f, kind, miss);
  d.mount_position[0] = 0.2f;
  return d;
}

// Element-wise: both NaN, or the same value within `tol` (absolute), or the same bits.
size_t count_far(const std::vector<float>& want, const std::vector<float>& got, double tol) {
  REQUIRE(want.size() == got.size());
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool ok = (std::isnan(want[i]) && std::isnan(got[i])) || want[i] == got[i] ||
                    std::fabs(double(want[i]) - double(got[i])) <= tol;
    if (!ok && ++bad <= 5) UNSCOPED_INFO("element " << i << ": want " << want[i] << ", got " << got[i]);
  }
  return bad;
}

// torch.nn.functional.interpolate(mode="bicubic", align_corners=False) of one (h x w) image to
// (oh x ow), written plainly in double: source x = (x + 0.5) in/out - 0.5, Keys' cubic with
// a = -0.75 over the four samples around it, indices clamped at the borders.
std::vector<double> bicubic_reference(const std::vector<double>& img, uint32_t w, uint32_t h, uint32_t ow,
                                      uint32_t oh) {
  auto keys = [](double x) {
    const double a = -0.75;
    x = std::fabs(x);
    if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0.0;
  };
  std::vector<double> out(size_t(ow) * oh);
  for (uint32_t y = 0; y < oh; ++y)
    for (uint32_t x = 0; x < ow; ++x) {
      const double sx = (x + 0.5) * w / ow - 0.5, sy = (y + 0.5) * h / oh - 0.5;
      const double fx = std::floor(sx), fy = std::floor(sy);
      double v = 0;
      for (int j = -1; j <= 2; ++j)
        for (int i = -1; i <= 2; ++i) {
          const int cx = std::clamp(int(fx) + i, 0, int(w) - 1), cy = std::clamp(int(fy) + j, 0, int(h) - 1);
          v += img[size_t(cy) * w + cx] * keys(sx - (fx + i)) * keys(sy - (fy + j));
        }
      out[size_t(y) * ow + x] = v;
    }
  return out;
}

// interpolate(mode="area"), i.e. adaptive average pooling: output (x, y) averages the input
// rows [floor(y h / oh), ceil((y + 1) h / oh)) and the columns alike.
std::vector<double> area_reference(const std::vector<double>& img, uint32_t w, uint32_t h, uint32_t ow, uint32_t oh) {
  std::vector<double> out(size_t(ow) * oh);
  for (uint32_t y = 0; y < oh; ++y)
    for (uint32_t x = 0; x < ow; ++x) {
      const uint32_t y0 = y * h / oh, y1 = ((y + 1) * h + oh - 1) / oh;
      const uint32_t x0 = x * w / ow, x1 = ((x + 1) * w + ow - 1) / ow;
      double s = 0;
      for (uint32_t j = y0; j < y1; ++j)
        for (uint32_t i = x0; i < x1; ++i) s += img[size_t(j) * w + i];
      out[size_t(y) * ow + x] = s / double((y1 - y0) * (x1 - x0));
    }
  return out;
}

// The (ch x cw) window at (cx, cy) of env e's (kH x kW) image, in double.
std::vector<double> crop_of(const std::vector<float>& images, uint32_t e, uint32_t cx, uint32_t cy, uint32_t cw,
                            uint32_t ch) {
  std::vector<double> c;
  for (uint32_t y = 0; y < ch; ++y)
    for (uint32_t x = 0; x < cw; ++x) c.push_back(images[size_t(e) * kW * kH + size_t(cy + y) * kW + cx + x]);
  return c;
}

}  // namespace

TEST_CASE("pipeline: all options off, and render_ex without per-env arrays, give the plain render's bits",
          "[pipeline]") {
  Scene scene = heightfield_scene();
  const wr_camera_desc desc = camera();
  const std::vector<float> poses = looking_down(5, 1);
  const std::vector<float> plain = render(scene.get(), desc, poses);
  wr_sensor_options off;
  wr_sensor_options_init(&off);
  Sensor sensor = make_sensor_ex(scene.get(), desc, off, 5);
  CHECK(same_bits(render_f32(sensor.get(), poses), plain));
  // Through the pipeline's own path: an update mask that renders every env.
  const std::vector<uint8_t> all(5, 1);
  wr_render_args a = args_for(poses, nullptr, 0);
  a.update_mask = all.data();
  CHECK(same_bits(render_f32(sensor.get(), a), plain));
  size_t hits = 0;
  for (float v : plain) hits += v > 0.0f;
  CHECK(hits > plain.size() / 2);
}

TEST_CASE("pipeline: per-env intrinsics and mounts equal one-env sensors built with each env's camera, bit for bit",
          "[pipeline]") {
  Scene scene = heightfield_scene();
  for (const wr_depth_kind kind : {WR_DEPTH_PLANE, WR_DEPTH_RANGE}) {
    INFO("depth kind " << kind);
    const wr_camera_desc desc = camera(kind);
    const uint32_t n = 4;
    const std::vector<float> poses = looking_down(n, 2);
    const std::vector<float> intrinsics = {30.0f, 31.0f, 26.5f, 15.5f, 45.0f, 40.0f, 20.0f, 18.25f,
                                           25.5f, 25.5f, 26.0f, 14.0f, 60.0f, 58.0f, 30.0f, 12.0f};
    std::vector<float> mounts;
    for (uint32_t e = 0; e < n; ++e) {
      const Pose m{Vector3d(0.1 * e, 0.05, 0.02 * e), ypr(5.0 * e, -10.0 + 7.0 * e, 2.0 * e)};
      append_pose(mounts, m, desc.quat_order);
    }
    wr_sensor_options on;
    wr_sensor_options_init(&on);
    on.history_length = 2;  // a pipeline sensor (its path), the output unchanged at latency 0
    Sensor sensor = make_sensor_ex(scene.get(), desc, on, n);
    wr_render_args a = args_for(poses, nullptr, 0);
    a.intrinsics = intrinsics.data();
    a.mounts = mounts.data();
    const std::vector<float> got = render_f32(sensor.get(), a);
    for (uint32_t e = 0; e < n; ++e) {
      wr_camera_desc one = desc;
      one.fx = intrinsics[4 * e], one.fy = intrinsics[4 * e + 1];
      one.cx = intrinsics[4 * e + 2], one.cy = intrinsics[4 * e + 3];
      std::copy(&mounts[7 * e], &mounts[7 * e] + 3, one.mount_position);
      std::copy(&mounts[7 * e] + 3, &mounts[7 * e] + 7, one.mount_rotation);
      const std::vector<float> pose(&poses[7 * e], &poses[7 * e] + 7);
      const std::vector<float> want = render(scene.get(), one, pose);
      const std::vector<float> env(got.begin() + e * kW * kH, got.begin() + (e + 1) * kW * kH);
      INFO("env " << e);
      CHECK(same_bits(env, want));
    }
  }
}

TEST_CASE("pipeline: per-env intrinsics, closed form on a plane", "[pipeline]") {
  // A camera 2 m over the plane z = 0 looking straight down: pixel (u, v)'s range is
  // 2 |(1, y, z)| with y = -(u + 0.5 - cx) / fx, z = -(v + 0.5 - cy) / fy: its own intrinsics'.
  Mesh plane;
  const uint32_t a = plane.vertex(-100, -100, 0), b = plane.vertex(100, -100, 0), c = plane.vertex(100, 100, 0),
                 d = plane.vertex(-100, 100, 0);
  plane.triangle(a, b, c);
  plane.triangle(a, c, d);
  Scene scene = make_scene(plane);
  const wr_camera_desc desc = pinhole(kW, kH, 80.0f, WR_DEPTH_RANGE, -1.0f);  // no mount: the camera 2 m up
  const std::vector<float> poses =
      pose_floats({{Vector3d(0, 0, 2), ypr(0, 90, 0)}, {Vector3d(1, 2, 2), ypr(30, 90, 0)}}, WR_QUAT_WXYZ);
  const std::vector<float> k = {20.0f, 24.0f, 10.0f, 18.0f, 70.0f, 35.0f, 40.0f, 2.5f};
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  Sensor sensor = make_sensor_ex(scene.get(), desc, o, 2);
  wr_render_args args = args_for(poses, nullptr, 0);
  args.intrinsics = k.data();
  const std::vector<float> got = render_f32(sensor.get(), args);
  double worst = 0;
  for (uint32_t e = 0; e < 2; ++e)
    for (uint32_t v = 0; v < kH; ++v)
      for (uint32_t u = 0; u < kW; ++u) {
        const double y = -(u + 0.5 - k[4 * e + 2]) / k[4 * e], z = -(v + 0.5 - k[4 * e + 3]) / k[4 * e + 1];
        const double want = 2.0 * std::sqrt(1 + y * y + z * z);
        worst = std::max(worst, std::fabs(got[size_t(e) * kW * kH + v * kW + u] - want) / want);
      }
  CHECK(worst < 1e-5);  // float rays and float t: a few ulps, more at grazing incidence
}

TEST_CASE("pipeline: poses read in place from simulator state (pose stride and offset)", "[pipeline]") {
  Scene scene = heightfield_scene();
  wr_camera_desc desc = camera();
  desc.quat_order = WR_QUAT_XYZW;  // IsaacGym's root states are (position, xyzw, velocities)
  const uint32_t n = 3, bodies = 4, b = 2;
  const std::vector<float> poses = looking_down(n, 4, WR_QUAT_XYZW);
  const std::vector<float> want = render(scene.get(), desc, poses);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  Sensor sensor = make_sensor_ex(scene.get(), desc, o, n);
  // Root states (N x 13).
  std::vector<float> root(13 * n, 99.0f);
  for (uint32_t e = 0; e < n; ++e) std::copy(&poses[7 * e], &poses[7 * e] + 7, &root[13 * e]);
  wr_render_args a = args_for(root, nullptr, 0);
  a.pose_stride = 13;
  CHECK(same_bits(render_f32(sensor.get(), a), want));
  // Rigid-body states (N x B x 13), the camera's body b.
  std::vector<float> rigid(13 * bodies * n, -7.0f);
  for (uint32_t e = 0; e < n; ++e) std::copy(&poses[7 * e], &poses[7 * e] + 7, &rigid[13 * (bodies * e + b)]);
  a = args_for(rigid, nullptr, 0);
  a.pose_stride = 13 * bodies;
  a.pose_offset = 13 * b;
  CHECK(same_bits(render_f32(sensor.get(), a), want));
}

TEST_CASE("pipeline: a crop is the window of the plain image, bit for bit", "[pipeline]") {
  Scene scene = heightfield_scene();
  const wr_camera_desc desc = camera();
  const std::vector<float> poses = looking_down(3, 5);
  const std::vector<float> plain = render(scene.get(), desc, poses);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.crop_x = 4, o.crop_y = 3, o.crop_width = 45, o.crop_height = 26;
  Sensor sensor = make_sensor_ex(scene.get(), desc, o, 3);
  uint32_t w = 0, h = 0;
  REQUIRE_OK(wr_sensor_output_shape(sensor.get(), &w, &h, nullptr, nullptr));
  CHECK((w == 45 && h == 26));
  const std::vector<float> got = render_f32(sensor.get(), poses);
  std::vector<float> want;
  for (uint32_t e = 0; e < 3; ++e)
    for (double v : crop_of(plain, e, 4, 3, 45, 26)) want.push_back(float(v));
  CHECK(same_bits(got, want));
}

TEST_CASE("pipeline: bicubic and area resampling with clip and normalisation against references in double",
          "[pipeline]") {
  Scene scene = heightfield_scene(6);
  const wr_camera_desc desc = camera(WR_DEPTH_PLANE, 2.0f);  // misses read as the clip's far bound
  const uint32_t n = 3;
  const std::vector<float> poses = looking_down(n, 6);
  const std::vector<float> plain = render(scene.get(), desc, poses);
  struct Case {
    wr_resample mode;
    uint32_t ow, oh;
  };
  for (const Case& c :
       {Case{WR_RESAMPLE_BICUBIC, 40, 20}, Case{WR_RESAMPLE_BICUBIC, 70, 45}, Case{WR_RESAMPLE_AREA, 40, 20},
        Case{WR_RESAMPLE_AREA, 13, 7}, Case{WR_RESAMPLE_AREA, 49, 29}}) {
    INFO("mode " << c.mode << ", " << c.ow << " x " << c.oh);
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    o.crop_x = 2, o.crop_y = 1, o.crop_width = 49, o.crop_height = 28;
    o.out_width = c.ow, o.out_height = c.oh;
    o.resample = c.mode;
    o.clip = 1, o.clip_min = 0.5f, o.clip_max = 2.0f;
    o.normalize = 1, o.norm_a = 0.5f, o.norm_b = 2.0f, o.norm_c = -0.5f;
    Sensor sensor = make_sensor_ex(scene.get(), desc, o, n);
    const std::vector<float> got = render_f32(sensor.get(), poses);
    std::vector<float> want;
    for (uint32_t e = 0; e < n; ++e) {
      std::vector<double> crop = crop_of(plain, e, 2, 1, 49, 28);
      for (double& v : crop) v = std::clamp(v, 0.5, 2.0);
      const std::vector<double> r = c.mode == WR_RESAMPLE_BICUBIC ? bicubic_reference(crop, 49, 28, c.ow, c.oh)
                                                                  : area_reference(crop, 49, 28, c.ow, c.oh);
      for (double v : r) want.push_back(float((v - 0.5) / 1.5 - 0.5));
    }
    CHECK(count_far(want, got, 1e-5) == 0);
    double lo = 1e9, hi = -1e9;
    for (float v : got) lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
    CHECK(hi - lo > 0.5);  // a rich image: the comparison means something
  }
}

TEST_CASE("pipeline: the clamp after resampling bounds bicubic's overshoot, which stays without it", "[pipeline]") {
  Scene scene = heightfield_scene(7);
  const wr_camera_desc desc = camera(WR_DEPTH_PLANE, 2.0f);
  const std::vector<float> poses = looking_down(4, 7);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.out_width = 30, o.out_height = 17, o.resample = WR_RESAMPLE_BICUBIC;
  o.clip = 1, o.clip_min = 0.0f, o.clip_max = 2.0f;
  o.normalize = 1, o.norm_a = 0.0f, o.norm_b = 2.0f, o.norm_c = 0.0f;  // [0, 1] before resampling
  Sensor free_sensor = make_sensor_ex(scene.get(), desc, o, 4);
  const std::vector<float> unclamped = render_f32(free_sensor.get(), poses);
  o.clamp = 1, o.clamp_min = 0.0f, o.clamp_max = 1.0f;
  Sensor clamped_sensor = make_sensor_ex(scene.get(), desc, o, 4);
  const std::vector<float> clamped = render_f32(clamped_sensor.get(), poses);
  size_t overshoot = 0;
  for (size_t i = 0; i < unclamped.size(); ++i) {
    overshoot += unclamped[i] < 0.0f || unclamped[i] > 1.0f;
    CHECK(clamped[i] == std::clamp(unclamped[i], 0.0f, 1.0f));
  }
  CHECK(overshoot > 0);  // Keys' cubic rings at the steps
}

TEST_CASE("pipeline: float16 is IEEE round-to-nearest-even of the float32 value, uint16 is round(1000 d)",
          "[pipeline]") {
  Scene scene = heightfield_scene(8);
  const wr_camera_desc desc = camera(WR_DEPTH_RANGE, INFINITY);
  const uint32_t n = 3;
  const std::vector<float> poses = looking_down(n, 8);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.crop_x = 3, o.crop_width = 40;
  Sensor f32 = make_sensor_ex(scene.get(), desc, o, n);
  const std::vector<float> want = render_f32(f32.get(), poses);
  size_t misses = 0;
  for (float v : want) misses += std::isinf(v);
  REQUIRE(misses > 0);  // some pixels see the sky: the invalid value is checked too
  for (const wr_dtype dtype : {WR_DTYPE_FLOAT16, WR_DTYPE_UINT16_MM}) {
    o.dtype = dtype;
    Sensor sensor = make_sensor_ex(scene.get(), desc, o, n);
    uint64_t bytes = 0;
    REQUIRE_OK(wr_sensor_output_shape(sensor.get(), nullptr, nullptr, nullptr, &bytes));
    CHECK(bytes == 40ull * kH * 2);
    std::vector<uint16_t> got(want.size(), 0xABCD);
    REQUIRE_OK(wr_test::render_ex_on_backend(sensor.get(), args_for(poses, got.data(), got.size() * 2)));
    size_t bad = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      uint16_t expect;
      if (dtype == WR_DTYPE_FLOAT16) {
        const _Float16 h = static_cast<_Float16>(want[i]);
        std::memcpy(&expect, &h, 2);
      } else {
        expect = std::isfinite(want[i]) ? uint16_t(std::min(65535.0f, std::round(1000.0f * want[i]))) : 0;
      }
      bad += got[i] != expect;
    }
    INFO("dtype " << dtype);
    CHECK(bad == 0);
  }
}

TEST_CASE("pipeline: REP 117 sentinels: -inf too close, +inf no return (missed or beyond far), NaN dropped out",
          "[pipeline]") {
  Scene scene = heightfield_scene(9);
  wr_camera_desc desc = camera(WR_DEPTH_RANGE, 7.0f);
  desc.far_clip = 3.0f;
  const std::vector<float> poses = looking_down(4, 9);
  const std::vector<float> plain = render(scene.get(), desc, poses);  // misses and beyond-far: 7
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.invalid_mode = WR_INVALID_REP117;
  o.noise.min_range = 1.5f;
  o.noise.dropout_probability = 0.1f;
  o.noise.seed = 42;
  Sensor sensor = make_sensor_ex(scene.get(), desc, o, 4);
  const std::vector<float> got = render_f32(sensor.get(), poses);
  size_t near = 0, none = 0, dropped = 0, kept = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (plain[i] == 7.0f) {
      CHECK(got[i] == INFINITY);  // no return: nothing within [near, far]
      ++none;
    } else if (plain[i] < 1.5f) {
      CHECK(got[i] == -INFINITY);  // too close comes before dropout (wr_noise_desc)
      ++near;
    } else if (std::isnan(got[i])) {
      ++dropped;
    } else {
      CHECK(got[i] == plain[i]);
      ++kept;
    }
  }
  INFO(near << " too close, " << none << " no return, " << dropped << " dropped, " << kept << " kept");
  CHECK((near > 50 && none > 50 && kept > 500));
  CHECK(dropped == Approx(0.1 * (dropped + kept)).margin(4 * std::sqrt(0.09 * (dropped + kept))));
  // With the miss value instead, every one of them reads 7.
  o.invalid_mode = WR_INVALID_MISS_VALUE;
  Sensor miss = make_sensor_ex(scene.get(), desc, o, 4);
  const std::vector<float> m = render_f32(miss.get(), poses);
  for (size_t i = 0; i < got.size(); ++i) CHECK((std::isfinite(got[i]) ? m[i] == got[i] : m[i] == 7.0f));
}

TEST_CASE("pipeline: the IsaacGym flow (pinhole, then WR_QUAT_XYZW) gives an upright camera", "[pipeline]") {
  // The floor z = 0, a camera 1 m up looking along +X: the bottom rows see the floor, the top rows
  // the sky. A mount written in WXYZ and read as XYZW would roll it 180 degrees.
  Mesh floor;
  const uint32_t a = floor.vertex(-100, -100, 0), b = floor.vertex(100, -100, 0), c = floor.vertex(100, 100, 0),
                 d = floor.vertex(-100, 100, 0);
  floor.triangle(a, b, c);
  floor.triangle(a, c, d);
  Scene scene = make_scene(floor);
  wr_camera_desc desc;
  REQUIRE_OK(wr_camera_desc_pinhole(&desc, 16, 12, 90.0f));
  desc.quat_order = WR_QUAT_XYZW;
  const std::vector<float> pose = {0, 0, 1, 0, 0, 0, 1};  // identity, xyzw
  for (const float pitch : {0.0f, 30.0f}) {
    INFO("mount pitch " << pitch);
    if (pitch != 0.0f) REQUIRE_OK(wr_camera_desc_set_mount_angles(&desc, pitch, 0.0f, 0.0f));
    const std::vector<float> img = render(scene.get(), desc, pose);
    for (uint32_t u = 0; u < 16; ++u) {
      CHECK(std::isinf(img[u]));               // top row: sky (miss value +inf)
      CHECK(std::isfinite(img[11 * 16 + u]));  // bottom row: floor
    }
    // Plane depth of every bottom-row pixel: the unnormalised camera ray (1, y, z), pitched down by
    // p about +Y, falls by sin p - cos p z per unit along the optical axis, from 1 m up.
    const double p = pitch * 3.14159265358979323846 / 180.0, z = -(11.5 - 6.0) / desc.fy;
    for (uint32_t u = 0; u < 16; ++u)
      CHECK(img[11 * 16 + u] == Approx(1.0 / (std::sin(p) - std::cos(p) * z)).epsilon(1e-5));
  }
}
