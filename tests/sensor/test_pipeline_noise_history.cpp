// The RL depth pipeline's noise models, history ring and per-env isolation (wr.h, "The RL depth
// pipeline"), through the public C API on the backend under test: statistics on a wall at a known
// depth, reproducibility, a model of the history written here, and every bad argument named.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "pipeline_test_support.h"

using namespace wr_test::pipeline_tests;
using Catch::Matchers::Contains;

namespace {

constexpr uint32_t kSide = 64;  // the wall tests' images: 64 x 64

// The wall x = 3 (a big square), and n cameras at the origin looking along +X: every pixel's plane
// depth is exactly 3.
Scene wall_scene() {
  Mesh m;
  const uint32_t a = m.vertex(3, -100, -100), b = m.vertex(3, 100, -100), c = m.vertex(3, 100, 100),
                 d = m.vertex(3, -100, 100);
  m.triangle(a, b, c);
  m.triangle(a, c, d);
  return make_scene(m);
}

std::vector<float> facing_wall(uint32_t n) {
  std::vector<float> p;
  for (uint32_t e = 0; e < n; ++e) p.insert(p.end(), {0.0f, 0.01f * e, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f});
  return p;
}

wr_camera_desc wall_camera() { return pinhole(kSide, kSide, 60.0f, WR_DEPTH_PLANE, INFINITY); }

struct Moments {
  double n = 0, mean = 0, sd = 0;
};

Moments moments(const std::vector<float>& v, double centre) {
  Moments m;
  double s = 0, s2 = 0;
  for (float x : v) {
    if (!std::isfinite(x)) continue;
    s += x - centre;
    s2 += (x - centre) * (x - centre);
    m.n += 1;
  }
  m.mean = centre + s / m.n;
  m.sd = std::sqrt(s2 / m.n - (s / m.n) * (s / m.n));
  return m;
}

}  // namespace

TEST_CASE("noise: range-dependent Gaussian on a wall at 3 m has the mean and sigma(d) = a + b d + c d^2",
          "[pipeline][noise]") {
  Scene scene = wall_scene();
  const uint32_t n = 32;  // 32 x 64 x 64 = 131072 pixels
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.noise.seed = 7;
  o.noise.range_sigma[0] = 0.01f, o.noise.range_sigma[1] = 0.005f, o.noise.range_sigma[2] = 0.002f;
  Sensor sensor = make_sensor_ex(scene.get(), wall_camera(), o, n);
  const std::vector<float> img = render_f32(sensor.get(), facing_wall(n));
  const double sigma = 0.01 + 0.005 * 3 + 0.002 * 9;
  const Moments m = moments(img, 3.0);
  REQUIRE(m.n == img.size());
  // Four standard errors: of the mean sigma / sqrt(n), of the standard deviation sigma / sqrt(2 n).
  CHECK(std::fabs(m.mean - 3.0) < 4 * sigma / std::sqrt(m.n));
  CHECK(std::fabs(m.sd - sigma) < 4 * sigma / std::sqrt(2 * m.n));
  // Normal: the fraction within one sigma.
  double within = 0;
  for (float x : img) within += std::fabs(x - 3.0) < sigma;
  const double p1 = 0.682689492;
  CHECK(std::fabs(within / m.n - p1) < 4 * std::sqrt(p1 * (1 - p1) / m.n));
}

TEST_CASE("noise: dropout fraction, disparity quantisation steps and the per-env offset", "[pipeline][noise]") {
  Scene scene = wall_scene();
  const uint32_t n = 32;
  const std::vector<float> poses = facing_wall(n);
  SECTION("dropout") {
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    o.noise.seed = 11;
    o.noise.dropout_probability = 0.2f;
    Sensor sensor = make_sensor_ex(scene.get(), wall_camera(), o, n);
    const std::vector<float> img = render_f32(sensor.get(), poses);
    double dropped = 0;
    for (float x : img) {
      dropped += std::isinf(x);                                      // invalid, as the miss value (+inf) here
      if (!std::isinf(x)) REQUIRE(x == Approx(3.0f).epsilon(1e-6));  // t dir.x rounds to 3 within an ulp
    }
    CHECK(std::fabs(dropped / img.size() - 0.2) < 4 * std::sqrt(0.2 * 0.8 / img.size()));
  }
  SECTION("quantisation: every depth is f B / (k step) for an integer k") {
    Scene hf = heightfield_scene(12);
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    o.noise.disparity_focal_baseline = 40.0f * 0.12f;
    o.noise.disparity_step = 0.25f;
    Sensor sensor = make_sensor_ex(hf.get(), wall_camera(), o, 4);
    const std::vector<float> img = render_f32(sensor.get(), looking_down(4, 12));
    std::map<long, int> steps;
    size_t finite = 0;
    for (float x : img) {
      if (!std::isfinite(x)) continue;
      ++finite;
      const double k = 40.0 * 0.12 / (double(x) * 0.25);
      CHECK(std::fabs(k - std::round(k)) < 1e-3 * k);
      steps[std::lround(k)] += 1;
    }
    CHECK(finite > img.size() / 2);
    CHECK(steps.size() > 5);  // a range of depths: several disparity steps
  }
  SECTION("per-env offset: one value per env and frame, within the bound") {
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    o.noise.seed = 5;
    o.noise.env_offset = 0.1f;
    Sensor sensor = make_sensor_ex(scene.get(), wall_camera(), o, n);
    wr_render_args a = args_for(poses, nullptr, 0);
    const std::vector<float> f0 = render_f32(sensor.get(), a);
    a.frame = 1;
    const std::vector<float> f1 = render_f32(sensor.get(), a);
    std::vector<double> offsets;
    for (uint32_t e = 0; e < n; ++e) {
      const float o0 = f0[e * kSide * kSide] - 3.0f;
      CHECK(std::fabs(o0) <= 0.1f + 1e-6f);
      for (uint32_t i = 0; i < kSide * kSide; ++i)  // the same offset (the clean depths differ by ulps)
        REQUIRE(f0[e * kSide * kSide + i] == Approx(f0[e * kSide * kSide]).epsilon(1e-6));
      CHECK(f1[e * kSide * kSide] != f0[e * kSide * kSide]);  // another frame, another offset
      offsets.push_back(o0);
    }
    std::sort(offsets.begin(), offsets.end());
    CHECK(std::unique(offsets.begin(), offsets.end()) == offsets.end());  // another env, another offset
  }
}

TEST_CASE(
    "noise: one seed gives the same bits for every thread count and CPU path, and envs and frames are independent",
    "[pipeline][noise][threads]") {
  Scene scene = heightfield_scene(13);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.noise.seed = 0x123456789abcull;
  o.noise.range_sigma[0] = 0.02f, o.noise.range_sigma[2] = 0.01f;
  o.noise.dropout_probability = 0.05f;
  o.noise.edge_threshold = 0.2f, o.noise.edge_probability = 0.5f;
  o.noise.env_offset = 0.03f;
  o.out_width = 40, o.out_height = 24, o.resample = WR_RESAMPLE_AREA;
  const wr_camera_desc desc = pinhole(53, 31, 80.0f, WR_DEPTH_PLANE, 2.0f);
  const std::vector<float> poses = looking_down(6, 13);
  std::vector<float> first;
  for (const uint32_t threads : {1u, 2u, 3u}) {
    Context ctx = wr_test::make_context(threads);
    Mesh m;
    const wr_test::SoupScene s = wr_test::random_heightfield(13, 48, 16.0f);
    m.vertices = s.vertices;
    m.indices = s.indices;
    Scene sc = make_scene(m, ctx.get());
    for (const wr_cpu_path path : {WR_CPU_PATH_SCALAR, WR_CPU_PATH_AVX2, WR_CPU_PATH_AVX512}) {
      if (wr_context_set_cpu_path(ctx.get(), path) != WR_SUCCESS) continue;  // not on this CPU
      Sensor sensor = make_sensor_ex(sc.get(), desc, o, 6);
      const std::vector<float> img = render_f32(sensor.get(), poses);
      if (first.empty())
        first = img;
      else
        CHECK(same_bits(img, first));
    }
  }
  (void)scene;
  // Envs 0 and 1 with the same pose: the same clean image, independent noise.
  wr_sensor_options g;
  wr_sensor_options_init(&g);
  g.noise.seed = 3;
  g.noise.range_sigma[0] = 0.05f;
  Scene wall = wall_scene();
  Sensor sensor = make_sensor_ex(wall.get(), wall_camera(), g, 2);
  std::vector<float> same_pose = facing_wall(1);
  same_pose.insert(same_pose.end(), same_pose.begin(), same_pose.end());
  wr_render_args a = args_for(same_pose, nullptr, 0);
  const std::vector<float> f0 = render_f32(sensor.get(), a);
  a.frame = 1;
  const std::vector<float> f1 = render_f32(sensor.get(), a);
  auto correlation = [](const float* x, const float* y, size_t n) {
    double sx = 0, sy = 0, sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; ++i) {
      sx += x[i] - 3.0, sy += y[i] - 3.0, sxy += (x[i] - 3.0) * (y[i] - 3.0);
      sxx += (x[i] - 3.0) * (x[i] - 3.0), syy += (y[i] - 3.0) * (y[i] - 3.0);
    }
    const double cov = sxy / n - sx / n * sy / n;
    return cov / std::sqrt((sxx / n - sx / n * sx / n) * (syy / n - sy / n * sy / n));
  };
  const size_t px = kSide * kSide;
  CHECK(std::fabs(correlation(f0.data(), f0.data() + px, px)) < 4 / std::sqrt(double(px)));  // env 0 vs env 1
  CHECK(std::fabs(correlation(f0.data(), f1.data(), px)) < 4 / std::sqrt(double(px)));       // frame 0 vs 1
  // And a replayed frame reproduces.
  a.frame = 0;
  CHECK(same_bits(render_f32(sensor.get(), a), f0));
}

TEST_CASE("noise: edge dropout takes exactly the pixels next to a depth step", "[pipeline][noise]") {
  Scene scene = heightfield_scene(14);
  const wr_camera_desc desc = pinhole(53, 31, 80.0f, WR_DEPTH_PLANE, INFINITY);
  const std::vector<float> poses = looking_down(3, 14);
  const std::vector<float> clean = render(scene.get(), desc, poses);
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.invalid_mode = WR_INVALID_REP117;
  o.noise.edge_threshold = 0.15f;
  o.noise.edge_probability = 1.0f;
  o.crop_x = 1, o.crop_y = 1, o.crop_width = 50, o.crop_height = 28;  // neighbours outside the crop count
  Sensor sensor = make_sensor_ex(scene.get(), desc, o, 3);
  const std::vector<float> got = render_f32(sensor.get(), poses);
  size_t edges = 0, checked = 0;
  for (uint32_t e = 0; e < 3; ++e)
    for (uint32_t y = 0; y < 28; ++y)
      for (uint32_t x = 0; x < 50; ++x) {
        const uint32_t u = x + 1, v = y + 1;
        const float* img = &clean[size_t(e) * 53 * 31];
        const float d = img[v * 53 + u];
        if (std::isinf(d)) continue;
        bool step = false;
        for (const auto& nb : {std::pair<int, int>{-1, 0}, {1, 0}, {0, -1}, {0, 1}}) {
          const int nu = int(u) + nb.first, nv = int(v) + nb.second;
          if (nu < 0 || nu >= 53 || nv < 0 || nv >= 31) continue;
          const float dn = img[nv * 53 + nu];
          step = step || std::isinf(dn) || std::fabs(dn - d) > 0.15f;
        }
        const float g = got[size_t(e) * 50 * 28 + y * 50 + x];
        CHECK((step ? std::isnan(g) : g == d));
        edges += step;
        ++checked;
      }
  CHECK(edges > 20);
  CHECK(edges < checked / 2);
}

TEST_CASE(
    "history: with a pose per frame, env e's output at frame t is its image of frame t - latency[e], with masks and "
    "resets",
    "[pipeline][history]") {
  Scene scene = heightfield_scene(15);
  const wr_camera_desc desc = pinhole(24, 16, 80.0f, WR_DEPTH_RANGE, INFINITY);
  const uint32_t n = 3, T = 4;
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.history_length = T;
  o.dtype = WR_DTYPE_FLOAT16;  // the ring holds the output's dtype
  Sensor sensor = make_sensor_ex(scene.get(), desc, o, n);
  wr_sensor_options f16;
  wr_sensor_options_init(&f16);
  f16.dtype = WR_DTYPE_FLOAT16;
  Sensor now = make_sensor_ex(scene.get(), desc, f16, n);  // every frame's own image, for the model
  const size_t px = 24 * 16;
  const std::vector<uint32_t> latency = {0, 1, 3};
  std::vector<std::deque<std::vector<uint16_t>>> model(n);  // per env: the last T frames, oldest first
  std::vector<uint16_t> out(n * px, 0x1234);
  for (uint32_t t = 0; t < 9; ++t) {
    INFO("frame " << t);
    const std::vector<float> poses = looking_down(n, 100 + t);
    std::vector<uint16_t> frame(n * px);
    REQUIRE_OK(wr_test::render_ex_on_backend(now.get(), args_for(poses, frame.data(), frame.size() * 2)));
    std::vector<uint8_t> update(n, 1), reset(n, 0);
    if (t == 4) update[1] = 0;  // env 1 not rendered: output and history untouched
    if (t == 6) reset[2] = 1;   // env 2's history becomes this frame
    const std::vector<uint16_t> before = out;
    wr_render_args a = args_for(poses, out.data(), out.size() * 2);
    a.latency = latency.data();
    a.update_mask = update.data();
    a.reset_mask = reset.data();
    REQUIRE_OK(wr_test::render_ex_on_backend(sensor.get(), a));
    for (uint32_t e = 0; e < n; ++e) {
      const std::vector<uint16_t> img(frame.begin() + e * px, frame.begin() + (e + 1) * px);
      if (update[e]) {
        if (model[e].empty() || reset[e]) {
          model[e].assign(T, img);
        } else {
          model[e].pop_front();
          model[e].push_back(img);
        }
      }
      const std::vector<uint16_t> want =
          update[e] ? model[e][T - 1 - latency[e]]
                    : std::vector<uint16_t>(before.begin() + e * px, before.begin() + (e + 1) * px);
      const std::vector<uint16_t> got(out.begin() + e * px, out.begin() + (e + 1) * px);
      INFO("env " << e << (update[e] ? "" : " (masked)") << (reset[e] ? " (reset)" : ""));
      CHECK(got == want);
    }
  }
  // The ring is what the options imply, per env, exactly.
  wr_memory_stats m{};
  REQUIRE_OK(wr_sensor_memory(sensor.get(), &m));
  uint64_t host = 0, device = 0;
  REQUIRE_OK(wr_sensor_memory_tag(sensor.get(), WR_MEMORY_HISTORY, &host, &device));
  CHECK(host + device == n * (T * px * 2 + 4));
  CHECK(m.per_env_bytes == T * px * 2 + 4);
}

TEST_CASE("isolation: bad envs are made invalid and reported, the others rendered, and the default fails by name",
          "[pipeline][isolation]") {
  Scene scene = heightfield_scene(16);
  const wr_camera_desc desc = pinhole(20, 12, 80.0f, WR_DEPTH_PLANE, INFINITY);
  const uint32_t n = 4;
  std::vector<float> poses = looking_down(n, 16);
  const std::vector<float> plain = render(scene.get(), desc, poses);
  poses[7 * 1 + 2] = NAN;                               // env 1: a NaN position
  for (int k = 3; k < 7; ++k) poses[7 * 2 + k] = 0.0f;  // env 2: a zero quaternion
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.bad_pose_mode = WR_BAD_POSE_ISOLATE;
  Sensor sensor = make_sensor_ex(scene.get(), desc, o, n);
  std::vector<float> out(n * 240, 5.0f);
  std::vector<uint8_t> mask(n, 7);
  uint32_t count = 99;
  wr_render_args a = args_for(poses, out.data(), out.size() * 4);
  a.bad_env_mask = mask.data();
  a.bad_env_count = &count;
  REQUIRE_OK(wr_test::render_ex_on_backend(sensor.get(), a));
  CHECK(count == 2);
  CHECK(mask == std::vector<uint8_t>{0, 1, 1, 0});
  for (uint32_t e = 0; e < n; ++e)
    for (uint32_t i = 0; i < 240; ++i) {
      const float g = out[e * 240 + i];
      if (e == 1 || e == 2)
        CHECK(std::isnan(g));
      else
        CHECK(same_bits(g, plain[e * 240 + i]));
    }
  // The default mode: on host data the call fails naming env 1 and writes nothing; on the device
  // the bad envs are NaN (wr.h).
  wr_sensor_options off;
  wr_sensor_options_init(&off);
  off.history_length = 2;
  Sensor strict = make_sensor_ex(scene.get(), desc, off, n);
  std::fill(out.begin(), out.end(), 5.0f);
  a = args_for(poses, out.data(), out.size() * 4);
  const wr_status s = wr_test::render_ex_on_backend(strict.get(), a);
  if (wr_test::backend_under_test() == wr_test::Backend::kCpu) {
    CHECK(s == WR_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(wr_last_error(), Contains("args->body_poses of env 1"));
    for (float v : out) CHECK(v == 5.0f);
  } else {
    REQUIRE_OK(s);
    for (uint32_t i = 0; i < 240; ++i) CHECK((std::isnan(out[240 + i]) && std::isnan(out[2 * 240 + i])));
  }
}

TEST_CASE("pipeline: every bad option and argument is refused by name, and nothing is lost", "[pipeline][errors]") {
  Scene scene = heightfield_scene(17);
  const wr_camera_desc desc = pinhole(20, 12, 80.0f, WR_DEPTH_PLANE, INFINITY);
  auto bad_option = [&](const char* field, void (*change)(wr_sensor_options&)) {
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    change(o);
    wr_sensor s = nullptr;
    INFO("option " << field);
    CHECK(wr_sensor_create_ex(scene.get(), &desc, &o, 2, &s) == WR_ERROR_INVALID_ARGUMENT);
    CHECK(s == nullptr);
    CHECK_THAT(wr_last_error(), Contains(std::string("wr_sensor_create_ex: options->") + field));
  };
  bad_option("struct_size", [](wr_sensor_options& o) { o.struct_size = 0; });
  bad_option("struct_size", [](wr_sensor_options& o) { o.struct_size = sizeof o + 4; });
  bad_option("crop_x", [](wr_sensor_options& o) { o.crop_x = 20; });
  bad_option("crop_y", [](wr_sensor_options& o) { o.crop_y = 12; });
  bad_option("crop_width", [](wr_sensor_options& o) { o.crop_x = 5, o.crop_width = 16; });
  bad_option("crop_height", [](wr_sensor_options& o) { o.crop_height = 13; });
  bad_option("out_width", [](wr_sensor_options& o) { o.out_width = 10; });  // resample NONE
  bad_option("resample", [](wr_sensor_options& o) { o.resample = static_cast<wr_resample>(3); });
  bad_option("invalid_mode", [](wr_sensor_options& o) { o.invalid_mode = static_cast<wr_invalid_mode>(-1); });
  bad_option("clip_min", [](wr_sensor_options& o) { o.clip = 1, o.clip_min = 2, o.clip_max = 1; });
  bad_option("norm_b", [](wr_sensor_options& o) { o.normalize = 1, o.norm_a = 1, o.norm_b = 1; });
  bad_option("norm_a", [](wr_sensor_options& o) { o.normalize = 1, o.norm_a = NAN, o.norm_b = 1; });
  bad_option("clamp_min", [](wr_sensor_options& o) { o.clamp = 1, o.clamp_min = NAN; });
  bad_option("dtype", [](wr_sensor_options& o) { o.dtype = static_cast<wr_dtype>(9); });
  bad_option("history_length", [](wr_sensor_options& o) { o.history_length = 100000; });
  bad_option("bad_pose_mode", [](wr_sensor_options& o) { o.bad_pose_mode = static_cast<wr_bad_pose_mode>(2); });
  bad_option("noise.dropout_probability", [](wr_sensor_options& o) { o.noise.dropout_probability = 1.5f; });
  bad_option("noise.edge_probability", [](wr_sensor_options& o) { o.noise.edge_probability = -0.1f; });
  bad_option("noise.min_range", [](wr_sensor_options& o) { o.noise.min_range = -1; });
  bad_option("noise.range_sigma[1]", [](wr_sensor_options& o) { o.noise.range_sigma[1] = INFINITY; });
  bad_option("noise.disparity_step", [](wr_sensor_options& o) { o.noise.disparity_focal_baseline = 4; });
  bad_option("noise.env_offset", [](wr_sensor_options& o) { o.noise.env_offset = NAN; });

  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.history_length = 3;
  Sensor sensor = make_sensor_ex(scene.get(), desc, o, 2);
  const std::vector<float> poses = looking_down(2, 17);
  const std::vector<float> good = render_f32(sensor.get(), poses);
  std::vector<float> out(2 * 240, 5.0f);
  auto bad_arg = [&](const char* what, wr_render_args a) {
    INFO("argument " << what);
    std::fill(out.begin(), out.end(), 5.0f);
    CHECK(wr_test::render_ex_on_backend(sensor.get(), a) == WR_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(wr_last_error(), Contains(what));
    for (float v : out) REQUIRE(v == 5.0f);
  };
  wr_render_args a = args_for(poses, out.data(), out.size() * 4);
  wr_render_args b = a;
  b.struct_size = 0;
  bad_arg("args->struct_size", b);
  b = a, b.out_bytes = out.size() * 4 - 1;
  bad_arg("args->out_bytes", b);
  b = a, b.pose_stride = 5;
  bad_arg("args->pose_stride", b);
  b = a, b.pose_stride = 9, b.pose_offset = 3;
  bad_arg("args->pose_offset", b);
  b = a, b.body_poses = nullptr;
  bad_arg("args->body_poses is NULL", b);
  b = a, b.out = nullptr;
  bad_arg("args->out is NULL", b);
  if (wr_test::backend_under_test() == wr_test::Backend::kCpu) {  // the checks that read host data
    const std::vector<uint32_t> latency = {0, 3};
    b = a, b.latency = latency.data();
    bad_arg("args->latency of env 1 = 3", b);
    const std::vector<float> k = {30, 30, 10, 6, -1, 30, 10, 6};
    b = a, b.intrinsics = k.data();
    bad_arg("args->intrinsics of env 1", b);
    std::vector<float> m(14, 0.0f);
    m[7 + 4] = NAN;
    b = a, b.mounts = m.data();
    bad_arg("args->mounts of env 1", b);
  }
  CHECK(wr_sensor_render_ex(sensor.get(), nullptr) == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(wr_last_error(), Contains("wr_sensor_render_ex: args is NULL"));
  // Nothing was lost: the sensor renders as before (its history moved on only by good calls).
  CHECK(render_f32(sensor.get(), poses).size() == good.size());
}
