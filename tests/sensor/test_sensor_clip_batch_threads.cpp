// What the depth sensor writes, through the public C API (libwr.so) only: near / far clipping of
// the reported value and miss_value, a batch of envs laid out as one-env renders would write them
// and nothing outside its buffer, and bit-identical images for any thread count (conventions in
// sensor_image_check.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "backend_under_test.h"
#include "mesh_builders.h"
#include "sensor_image_check.h"
#include "sensor_poses.h"
#include "sensor_shapes.h"

using namespace wr_test::sensor_tests;  // the helpers of this test family, shared by its files

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

}  // namespace

// -------------------------------------------------------------------------------------------------
// 6. near_clip, far_clip and miss_value bound the REPORTED value.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: near and far clip the reported value, and misses hold miss_value", "[sensor][clip]") {
  // Wall A at x = 5 (|y|, |z| <= 20), wall B behind it at x = 8 (|y|, |z| <= 40). Camera at the
  // origin looking along +X with a 90 deg field of view: wall A fills the image; the plane depth is
  // 5 at every pixel, the range 5 / d_cam.x grows to ~7.9 in the corners.
  Mesh m;
  add_quad(m, Vector3d(5, -20, -20), Vector3d(0, 40, 0), Vector3d(0, 0, 40), 4, 4);
  add_quad(m, Vector3d(8, -40, -40), Vector3d(0, 80, 0), Vector3d(0, 0, 80), 4, 4);
  const Scene scene = make_scene(m);
  const uint32_t W = 64, H = 48;

  // Truth of a ray from the camera: the nearest wall whose reported value is >= near (nearer ones
  // do not occlude), reported if <= far, else a miss. Values within 1e-4 of a clip plane are unsure.
  auto truth_with_clip = [](const wr_camera_desc& desc) {
    return [desc](uint32_t, const Rigid& cam, const Vector3d& dc, const Vector3d& dw) {
      const Truth walls[2] = {square_truth(cam.t, dw, 0, 5.0, 0, 0, 20.0), square_truth(cam.t, dw, 0, 8.0, 0, 0, 40.0)};
      for (const Truth& w : walls) {
        if (w.kind == Truth::kUnsure) return unsure();
        if (w.kind == Truth::kMiss) continue;
        const double reported = desc.depth_kind == WR_DEPTH_PLANE ? w.t * dc.x() : w.t;
        const double near = desc.near_clip, far = desc.far_clip;
        if (std::fabs(reported - near) < 1e-4 * reported || std::fabs(reported - far) < 1e-4 * reported)
          return unsure();
        if (reported < near) continue;  // clipped away: look behind it
        if (reported > far) return miss();
        return w;
      }
      return miss();
    };
  };
  auto range_at = [&](const wr_camera_desc& d, uint32_t u, uint32_t v) { return 5.0 / ray_cam(d, u, v).x(); };

  struct Case {
    const char* name;
    wr_depth_kind kind;
    float near_clip, far_clip, miss_value;
    double all_pixels;  // every pixel's expected value, or NaN when it varies per pixel
  };
  const double varies = std::numeric_limits<double>::quiet_NaN();
  const Case cases[] = {
      {"PLANE, no clipping: wall A at 5", WR_DEPTH_PLANE, 0.0f, kInf, -1.0f, 5.0},
      {"PLANE, near 6 hides wall A: wall B at 8", WR_DEPTH_PLANE, 6.0f, kInf, -1.0f, 8.0},
      {"PLANE, far 4: nothing", WR_DEPTH_PLANE, 0.0f, 4.0f, -1.0f, -1.0},
      {"PLANE, near 6, far 7: wall A clipped, wall B too far", WR_DEPTH_PLANE, 6.0f, 7.0f, -2.5f, -2.5},
      // Plane depth 5 is inside [0, 5.5] at every pixel although the corner ranges are ~7.9.
      {"PLANE, far 5.5: corners still report 5", WR_DEPTH_PLANE, 0.0f, 5.5f, -1.0f, 5.0},
      {"PLANE, near 4.5 far 5.5", WR_DEPTH_PLANE, 4.5f, 5.5f, -1.0f, 5.0},
      {"RANGE, far 5.5: the corners are misses", WR_DEPTH_RANGE, 0.0f, 5.5f, -1.0f, varies},
      {"RANGE, near 6: the centre sees wall B, the corners wall A", WR_DEPTH_RANGE, 6.0f, kInf, -1.0f, varies},
      {"RANGE, no clipping", WR_DEPTH_RANGE, 0.0f, kInf, kNaN, varies},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      wr_camera_desc desc = pinhole(W, H, 90.0f, c.kind, c.miss_value);
      desc.near_clip = c.near_clip;
      desc.far_clip = c.far_clip;
      const std::vector<float> pf = pose_floats({{Vector3d::Zero(), Quaterniond::Identity()}}, WR_QUAT_WXYZ);
      const std::vector<float> img = render(scene.get(), desc, pf);
      const Report r = check_image(img, desc, pf, truth_with_clip(desc));
      CHECK_REPORT(r);
      CHECK(r.unsure < long(W * H) / 20);
      if (!std::isnan(c.all_pixels)) {
        for (float x : img) REQUIRE(x == Approx(c.all_pixels).epsilon(1e-5));
      }
      // The scenario is as constructed: the corner's range lies beyond 5.5 and 6, the centre's below.
      CHECK(range_at(desc, 0, 0) > 6.5);
      CHECK(range_at(desc, W / 2, H / 2) < 5.5);
      if (c.kind == WR_DEPTH_RANGE && c.far_clip == 5.5f) {
        CHECK(img[0] == -1.0f);
        CHECK(img[(H / 2) * W + W / 2] == Approx(range_at(desc, W / 2, H / 2)).epsilon(1e-5));
      }
      if (c.kind == WR_DEPTH_RANGE && c.near_clip == 6.0f) {
        CHECK(img[0] == Approx(range_at(desc, 0, 0)).epsilon(1e-5));
        CHECK(img[(H / 2) * W + W / 2] == Approx(8.0 / 5.0 * range_at(desc, W / 2, H / 2)).epsilon(1e-5));
      }
    }
  }

  SECTION("custom miss_value where nothing is hit (-7, NaN, default +inf)") {
    // Yawed 60 deg left: the right part of the image sees the walls, the left part nothing.
    const std::vector<float> pf = pose_floats({{Vector3d(0, 0, 0.5), ypr(60, 0, 0)}}, WR_QUAT_WXYZ);
    std::vector<float> hits_of_first;
    for (float miss_value : {-7.0f, kNaN, kInf}) {
      INFO("miss_value " << miss_value);
      wr_camera_desc desc = pinhole(W, H, 90.0f, WR_DEPTH_RANGE, miss_value);
      const std::vector<float> img = render(scene.get(), desc, pf);
      const Report r = check_image(img, desc, pf, truth_with_clip(desc));
      CHECK_REPORT(r);
      CHECK(r.misses > long(W * H) / 4);
      CHECK(r.hits > long(W * H) / 10);
      // Hits are the same whatever the miss value.
      std::vector<float> hits_only;
      for (float x : img)
        if (!is_miss(x, miss_value)) hits_only.push_back(x);
      if (hits_of_first.empty())
        hits_of_first = hits_only;
      else
        CHECK(same_bits(hits_only, hits_of_first));
    }
  }
}

// -------------------------------------------------------------------------------------------------
// 7. Batching: N envs render what N one-env sensors render, and stay inside their buffer.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: a batch of envs renders exactly what one-env sensors render", "[sensor][batch]") {
  const Vector3d lo(-3.75, -2.25, -0.5), hi(6.25, 3.75, 3.5);
  Mesh box;
  add_box(box, lo, hi, 20);
  const Scene scene = make_scene(box);
  std::mt19937 rng(99);
  std::vector<Pose> poses;
  for (int i = 0; i < 9; ++i)
    poses.push_back({random_in(rng, lo + Vector3d::Constant(0.5), hi - Vector3d::Constant(0.5)), random_rotation(rng)});
  const wr_camera_desc desc = pinhole(40, 30, 75.0f, WR_DEPTH_RANGE, -1.0f);
  const size_t image = size_t(desc.width) * desc.height;

  const std::vector<float> batch = render(scene.get(), desc, pose_floats(poses, WR_QUAT_WXYZ));
  for (size_t e = 0; e < poses.size(); ++e) {
    INFO("env " << e);
    const std::vector<float> single = render(scene.get(), desc, pose_floats({poses[e]}, WR_QUAT_WXYZ));
    CHECK(std::memcmp(single.data(), batch.data() + e * image, image * sizeof(float)) == 0);
  }
  // The envs really differ, and the images are the right ones.
  CHECK(std::memcmp(batch.data(), batch.data() + image, image * sizeof(float)) != 0);
  CHECK_REPORT(check_image(batch, desc, pose_floats(poses, WR_QUAT_WXYZ),
                           [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
                             return hit(box_exit(cam.t, dw, lo, hi), 1e-4);
                           }));

  // A 3-env render writes its [3][H][W] buffer whole and nothing around it.
  const size_t guard = 257;
  const float guard_value = 4242.5f;
  std::vector<float> buffer(guard + 3 * image + guard, guard_value);
  std::fill(buffer.begin() + guard, buffer.begin() + guard + 3 * image, kSentinel);
  const Sensor sensor = make_sensor(scene.get(), desc, 3);
  const std::vector<float> three = pose_floats({poses[3], poses[4], poses[5]}, WR_QUAT_WXYZ);
  REQUIRE_OK(wr_test::render_on_backend(sensor.get(), three.data(), three.size(), buffer.data(), buffer.size(), guard));
  long guards_touched = 0, unwritten = 0;
  for (size_t i = 0; i < guard; ++i) guards_touched += buffer[i] != guard_value;
  for (size_t i = guard + 3 * image; i < buffer.size(); ++i) guards_touched += buffer[i] != guard_value;
  for (size_t i = guard; i < guard + 3 * image; ++i) unwritten += buffer[i] == kSentinel;
  CHECK(guards_touched == 0);
  CHECK(unwritten == 0);
  CHECK(std::memcmp(buffer.data() + guard, batch.data() + 3 * image, 3 * image * sizeof(float)) == 0);
}

// -------------------------------------------------------------------------------------------------
// 8. Thread counts: bit-identical images from 1, 2, 3 and 8 threads.
// -------------------------------------------------------------------------------------------------
namespace {

double terrain(double x, double y) {
  return 0.8 * std::sin(0.35 * x) * std::cos(0.27 * y) + 0.25 * std::sin(1.3 * x + 0.7 * y) + 0.1 * std::cos(2.9 * y);
}

// A bumpy heightfield over [-24, 24]^2, (96 x 96) cells of 0.5 m, two triangles each.
Mesh terrain_mesh() {
  Mesh m;
  const int n = 96;
  const double step = 0.5, x0 = -24.0;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i)
      m.vertex(Vector3d(x0 + i * step, x0 + j * step, terrain(x0 + i * step, x0 + j * step)));
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + (n + 1) + 1, d = a + (n + 1);
      add_split_quad(m, a, b, c, d, (i + j) % 2 == 0);
    }
  }
  return m;
}

// Brute-force nearest hit over every triangle of a mesh, in double (Moller & Trumbore, "Fast,
// Minimum Storage Ray/Triangle Intersection", JGT 1997). Rays whose nearest surface is decided by
// less than `eps` in barycentric coordinates (a silhouette) are unsure.
struct BruteForce {
  struct Tri {
    Vector3d v0, e1, e2, n;
  };
  std::vector<Tri> tris;
  explicit BruteForce(const Mesh& m) {
    for (uint64_t t = 0; t < m.num_triangles(); ++t) {
      const Vector3d a = m.position(m.indices[3 * t]), b = m.position(m.indices[3 * t + 1]),
                     c = m.position(m.indices[3 * t + 2]);
      tris.push_back({a, b - a, c - a, (b - a).cross(c - a).normalized()});
    }
  }
  Truth trace(const Vector3d& o, const Vector3d& d) const {
    const double inf = std::numeric_limits<double>::infinity(), eps = 2e-4;
    double t_exact = inf, t_strict = inf, t_loose = inf, cos_inc = 1.0;
    for (const Tri& tri : tris) {
      const Vector3d p = d.cross(tri.e2);
      const double det = tri.e1.dot(p);
      if (det == 0.0) continue;
      const Vector3d s = o - tri.v0;
      const double b1 = s.dot(p) / det;
      const Vector3d q = s.cross(tri.e1);
      const double b2 = d.dot(q) / det, t = tri.e2.dot(q) / det;
      if (!(t > 0.0)) continue;
      const double b0 = 1.0 - b1 - b2, lo = std::min(b0, std::min(b1, b2));
      if (lo >= -eps && t < t_loose) t_loose = t;
      if (lo >= eps && t < t_strict) t_strict = t;
      if (lo >= 0.0 && t < t_exact) {
        t_exact = t;
        cos_inc = tri.n.dot(d);
      }
    }
    if (std::isinf(t_loose)) return miss();
    // No robust hit, or a nearer surface within eps of being hit: a silhouette.
    if (std::isinf(t_strict) || t_loose < t_strict * (1.0 - 1e-3)) return unsure();
    return hit(t_exact, grazing_tol(cos_inc));
  }
};

}  // namespace

TEST_CASE("sensor: images are bit-identical for 1, 2, 3 and 8 threads", "[sensor][threads]") {
  const Mesh mesh = terrain_mesh();
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> xy(-8, 8), up(1.0, 2.0), yaw(-180, 180), pitch(5, 45), roll(-10, 10);
  std::vector<Pose> poses;
  for (int i = 0; i < 16; ++i) {
    const double x = xy(rng), y = xy(rng);
    // 1 m above the analytic surface is above the mesh too (it deviates from it by < 0.1 m).
    poses.push_back({Vector3d(x, y, terrain(x, y) + up(rng)), ypr(yaw(rng), pitch(rng), roll(rng))});
  }
  const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);
  const wr_camera_desc desc = pinhole(64, 48, 90.0f, WR_DEPTH_PLANE, -1.0f);

  std::vector<float> reference;
  for (uint32_t threads : {1u, 2u, 3u, 8u}) {
    INFO(threads << " threads");
    const Context context = make_context(threads);
    uint32_t got_threads = 0;
    REQUIRE_OK(wr_context_num_threads(context.get(), &got_threads));
    CHECK(got_threads == threads);
    const Scene scene = make_scene(mesh, context.get());
    const std::vector<float> img = render(scene.get(), desc, pf);
    if (reference.empty())
      reference = img;
    else
      CHECK(same_bits(img, reference));
  }

  // The images are real: a sample of the pixels of four envs against brute force in double.
  const BruteForce brute(mesh);
  const std::vector<float> four(pf.begin(), pf.begin() + 4 * 7);
  const std::vector<float> first4(reference.begin(), reference.begin() + 4 * 64 * 48);
  long sampled = 0;
  const Report r =
      check_image(first4, desc, four, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
        if (sampled++ % 3 != 0) return unsure();
        return brute.trace(cam.t, dw);
      });
  CHECK_REPORT(r);
  CHECK(r.hits > 4 * 64 * 48 / 3 / 3);
  CHECK(r.misses > 0);  // rays above the horizon
}
