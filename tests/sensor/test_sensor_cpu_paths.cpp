// The CPU tracing paths through the public API (wr_context_set_cpu_path and friends): every path
// this CPU runs renders the same images bit for bit, the default resolves to a concrete path,
// and bad requests fail with a message naming the culprit while leaving the context as it was.
// (tests/cpu/test_cpu_packet.cpp checks the packet code itself on harder scenes.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "c_api_world.h"
#include "mesh_builders.h"
#include "sensor_image_check.h"
#include "sensor_poses.h"
#include "sensor_shapes.h"

using namespace wr_test::sensor_tests;
using wr_test::c_api::bad_enum;

namespace {

const wr_cpu_path kConcretePaths[] = {WR_CPU_PATH_SCALAR, WR_CPU_PATH_AVX2, WR_CPU_PATH_AVX512};

// Boxes of many sizes on a floor: rays from inside the cluster in every direction.
Mesh cluster_mesh() {
  Mesh m;
  add_quad(m, Vector3d(-20, -20, 0), Vector3d(40, 0, 0), Vector3d(0, 40, 0), 16, 16);
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> pos(-10, 10), size(0.2, 2.0);
  for (int i = 0; i < 60; ++i) {
    const Vector3d lo(pos(rng), pos(rng), pos(rng) * 0.2 + 2.0);
    add_box(m, lo, lo + Vector3d(size(rng), size(rng), size(rng)), 2);
  }
  return m;
}

// Renders with every concrete path `context` runs (render() returns the image): the first image,
// where *reference is empty, becomes the reference and goes to first(image); every other image must
// equal it bit for bit. Paths this CPU does not run are skipped (the names test says which).
template <class Render, class First>
void check_paths_agree(wr_context context, std::vector<float>* reference, const Render& render, const First& first) {
  for (const wr_cpu_path p : kConcretePaths) {
    INFO("path " << wr_cpu_path_string(p));
    const wr_status s = wr_context_set_cpu_path(context, p);
    if (s == WR_ERROR_UNSUPPORTED) continue;
    REQUIRE(s == WR_SUCCESS);
    const std::vector<float> img = render();
    if (reference->empty()) {
      *reference = img;
      first(img);
    } else {
      CHECK(same_bits(img, *reference));
    }
  }
}

}  // namespace

TEST_CASE("cpu paths: names, and the default resolves to the fastest path this CPU runs", "[sensor][cpu_path]") {
  CHECK(std::string(wr_cpu_path_string(WR_CPU_PATH_AUTO)) == "auto");
  CHECK(std::string(wr_cpu_path_string(WR_CPU_PATH_SCALAR)) == "scalar");
  CHECK(std::string(wr_cpu_path_string(WR_CPU_PATH_AVX2)) == "avx2");
  CHECK(std::string(wr_cpu_path_string(WR_CPU_PATH_AVX512)) == "avx512");
  CHECK(std::string(wr_cpu_path_string(bad_enum<wr_cpu_path>(9))) == "unknown");

  const Context context = make_context(2);
  wr_cpu_path path = WR_CPU_PATH_AUTO;
  REQUIRE_OK(wr_context_cpu_path(context.get(), &path));
  CHECK(path != WR_CPU_PATH_AUTO);
  std::printf("test_sensor: this CPU traces with the %s path by default\n", wr_cpu_path_string(path));
  // No path this CPU runs is faster than the default: the ones above it are unsupported.
  // (The other tests compare only the paths it runs: these are said here, once.)
  for (wr_cpu_path p : kConcretePaths)
    if (p > path) {
      CHECK(wr_context_set_cpu_path(context.get(), p) == WR_ERROR_UNSUPPORTED);
      WARN("not compared on this CPU: " << wr_last_error());
    }
  REQUIRE_OK(wr_context_set_cpu_path(context.get(), WR_CPU_PATH_SCALAR));
  REQUIRE_OK(wr_context_cpu_path(context.get(), &path));
  CHECK(path == WR_CPU_PATH_SCALAR);
  REQUIRE_OK(wr_context_set_cpu_path(context.get(), WR_CPU_PATH_AUTO));
  wr_cpu_path again = WR_CPU_PATH_AUTO;
  REQUIRE_OK(wr_context_cpu_path(context.get(), &again));
  CHECK(again != WR_CPU_PATH_AUTO);
}

TEST_CASE("cpu paths: every path renders bit-identical images", "[sensor][cpu_path]") {
  const Mesh mesh = cluster_mesh();
  const Context context = make_context(2);
  const Scene scene = make_scene(mesh, context.get());
  std::mt19937 rng(23);
  std::vector<Pose> poses;
  for (int i = 0; i < 24; ++i)
    poses.push_back({random_in(rng, Vector3d(-9, -9, 0.5), Vector3d(9, 9, 4)), random_rotation(rng)});
  for (const wr_depth_kind kind : {WR_DEPTH_PLANE, WR_DEPTH_RANGE}) {
    wr_camera_desc desc = pinhole(37, 29, 100.0f, kind, -1.0f);  // partial packets and tiles
    desc.near_clip = 0.3f;
    desc.far_clip = 25.0f;
    const Sensor sensor = make_sensor(scene.get(), desc, uint32_t(poses.size()));
    const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);
    INFO("depth kind " << kind);
    std::vector<float> reference;
    const auto render = [&] {
      std::vector<float> img(pf.size() / 7 * 37 * 29, -7.0f);
      REQUIRE_OK(wr_sensor_render(sensor.get(), pf.data(), img.data(), nullptr));
      return img;
    };
    check_paths_agree(context.get(), &reference, render, [](const std::vector<float>& img) {
      size_t hits = 0;
      for (float d : img) hits += d > 0.0f;
      CHECK(hits > img.size() / 4);  // the scene is in view
      CHECK(hits < img.size());      // and so are misses (beyond far)
    });
  }
}

TEST_CASE("cpu paths: odd sizes, straight up and down, grazing rays, per-env intrinsics and mounts, 1 and 2 threads",
          "[sensor][cpu_path]") {
  // The cases a tile or packet walk gets wrong first: images one pixel wide or high and a single
  // pixel (packets and tiles cut down to one lane or one row), cameras looking straight down and
  // up (rays with an exactly zero component), rays grazing the floor, and intrinsics and mounts
  // that differ between envs (each env's tile rays made from its own), and the same without them.
  // Every path on 1 and 2 threads must give the scalar path's bits on 1 thread.
  const Mesh mesh = cluster_mesh();
  std::vector<Pose> poses = {
      {Vector3d(0.3, -0.7, 3.0), ypr(0, 90, 0)},   // straight down at the floor
      {Vector3d(0.3, -0.7, 0.5), ypr(0, -90, 0)},  // straight up, under the cluster
      {Vector3d(-15, 2.5, 0.02), ypr(10, 0, 0)},   // level, 2 cm over the floor: grazing rays
      {Vector3d(12, -3, 0.4), ypr(200, 0.5, 0)},   // almost level, towards the boxes
  };
  std::mt19937 rng(29);
  for (int i = 0; i < 6; ++i)
    poses.push_back({random_in(rng, Vector3d(-9, -9, 0.5), Vector3d(9, 9, 4)), random_rotation(rng)});
  const uint32_t n = uint32_t(poses.size());
  const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);
  // Mounts: none (identity) for the straight-down and straight-up envs, whose centre column's rays
  // then have an exactly zero y component (x is float rounding's cos 90 degrees); small turns and
  // offsets for the others.
  std::vector<float> mounts;
  for (uint32_t e = 0; e < n; ++e) {
    const Pose m = e < 2 ? Pose{Vector3d::Zero(), Quaterniond::Identity()}
                         : Pose{Vector3d(0.05 * e, -0.02 * e, 0.1), ypr(3.0 * e, -2.0 * e, 1.5 * e)};
    append_pose(mounts, m, WR_QUAT_WXYZ);
  }
  // Odd sides: a centred principal point falls on a pixel centre, so the centre column's camera
  // rays have an exactly zero y component (and the centre pixel's z too).
  const std::vector<std::pair<uint32_t, uint32_t>> sizes = {{1, 1}, {3, 201}, {201, 3}, {17, 5}};
  std::vector<Context> contexts;
  std::vector<Scene> scenes;
  for (const uint32_t threads : {1u, 2u}) {
    contexts.push_back(make_context(threads));
    scenes.push_back(make_scene(mesh, contexts.back().get()));
  }
  size_t hits = 0, misses = 0;
  for (const auto& [w, h] : sizes) {
    // The desc's own camera: 90 degrees across the longer side, centred, square pixels.
    wr_camera_desc desc = pinhole(w, h, 90.0f, WR_DEPTH_RANGE, -1.0f);
    desc.fx = desc.fy = 0.5f * float(std::max(w, h));
    desc.cx = 0.5f * float(w), desc.cy = 0.5f * float(h);
    // Each env its own focal lengths (fields of view from about 50 to 140 degrees across the
    // longer side) and principal point: centred for the vertical envs, anywhere for the others.
    std::vector<float> k;
    for (uint32_t e = 0; e < n; ++e) {
      const float side = float(std::max(w, h));
      const float fx = side * (0.2f + 0.1f * float(e)), fy = fx * (0.9f + 0.05f * float(e % 4));
      const bool centred = e < 2;
      k.insert(k.end(), {fx, fy, float(w) * (centred ? 0.5f : 0.5f + 0.3f * std::sin(float(e))),
                         float(h) * (centred ? 0.5f : 0.5f - 0.3f * std::cos(float(e)))});
    }
    // Plain renders (the desc's camera, no mount: straight into the output) and renders with the
    // per-env intrinsics and mounts (through the pipeline's per-tile rays and buffers).
    for (const bool per_env : {false, true}) {
      std::vector<float> reference;
      for (size_t c = 0; c < contexts.size(); ++c) {
        INFO(w << " x " << h << (per_env ? ", per-env intrinsics and mounts, " : ", plain, ") << (c + 1)
               << " thread(s)");
        const Sensor sensor = make_sensor(scenes[c].get(), desc, n);
        const auto render = [&] {
          std::vector<float> img(size_t(n) * w * h, kSentinel);
          wr_render_args a;
          wr_render_args_init(&a);
          a.body_poses = pf.data();
          a.intrinsics = per_env ? k.data() : nullptr;
          a.mounts = per_env ? mounts.data() : nullptr;
          a.out = img.data();
          a.out_bytes = img.size() * sizeof(float);
          REQUIRE_OK(wr_sensor_render_ex(sensor.get(), &a));
          return img;
        };
        check_paths_agree(contexts[c].get(), &reference, render, [&](const std::vector<float>& img) {
          // Env 0 looks straight down: every pixel sees the floor or a box.
          for (size_t i = 0; i < size_t(w) * h; ++i) CHECK(img[i] > 0.0f);
          for (float d : img) {
            CHECK((d > 0.0f || d == -1.0f));  // a depth or the miss value: every pixel written
            hits += d > 0.0f;
            misses += d == -1.0f;
          }
        });
      }
    }
  }
  CHECK(hits > 0);  // both occur: the images are not all one value
  CHECK(misses > 0);
}

TEST_CASE("cpu paths: bad requests name the culprit and change nothing", "[sensor][cpu_path][c_api]") {
  const Context context = make_context(1);
  REQUIRE_OK(wr_context_set_cpu_path(context.get(), WR_CPU_PATH_SCALAR));
  EXPECT_FAIL(wr_context_set_cpu_path(nullptr, WR_CPU_PATH_SCALAR), WR_ERROR_INVALID_ARGUMENT,
              "wr_context_set_cpu_path", "context");
  EXPECT_FAIL(wr_context_set_cpu_path(context.get(), bad_enum<wr_cpu_path>(4)), WR_ERROR_INVALID_ARGUMENT,
              "wr_context_set_cpu_path", "path = 4");
  EXPECT_FAIL(wr_context_set_cpu_path(context.get(), bad_enum<wr_cpu_path>(-1)), WR_ERROR_INVALID_ARGUMENT,
              "wr_context_set_cpu_path", "path = -1");
  wr_cpu_path path = WR_CPU_PATH_AUTO;
  EXPECT_FAIL(wr_context_cpu_path(nullptr, &path), WR_ERROR_INVALID_ARGUMENT, "wr_context_cpu_path", "context");
  EXPECT_FAIL(wr_context_cpu_path(context.get(), nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_context_cpu_path", "out");
  REQUIRE_OK(wr_context_cpu_path(context.get(), &path));
  CHECK(path == WR_CPU_PATH_SCALAR);  // the failed calls left it alone

  wr_context cuda = nullptr;
  if (wr_context_create(WR_DEVICE_CUDA, 0, &cuda) != WR_SUCCESS) {
    WARN("CUDA context check skipped: " << wr_last_error());
    return;
  }
  const Context owned(cuda);
  EXPECT_FAIL(wr_context_set_cpu_path(cuda, WR_CPU_PATH_AUTO), WR_ERROR_INVALID_ARGUMENT, "wr_context_set_cpu_path",
              "CUDA context");
  EXPECT_FAIL(wr_context_cpu_path(cuda, &path), WR_ERROR_INVALID_ARGUMENT, "wr_context_cpu_path", "CUDA context");
}
