// Shared by the RL depth pipeline's tests (test_pipeline_*.cpp), through the public C API on the
// backend under test: a bumpy heightfield scene whose depth images are rich (steps, slopes, sky),
// cameras looking down at it, and wr_sensor_render_ex with host arrays.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "backend_under_test.h"
#include "random_scenes.h"
#include "sensor_image_check.h"
#include "sensor_poses.h"

namespace wr_test::pipeline_tests {

using namespace wr_test::sensor_tests;

// A bumpy 16 m heightfield with steps (random_scenes.h), as a scene of the backend under test.
inline Scene heightfield_scene(uint32_t seed = 3) {
  const SoupScene s = random_heightfield(seed, 48, 16.0f);
  Mesh m;
  m.vertices = s.vertices;
  m.indices = s.indices;
  return make_scene(m);
}

// n cameras 1-2.5 m over the heightfield's middle, yawed anywhere, pitched down 20-70 degrees (so
// that some rows see the sky), in `order`.
inline std::vector<float> looking_down(uint32_t n, uint32_t seed, wr_quat_order order = WR_QUAT_WXYZ) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> xy(4.0, 12.0), z(1.0, 2.5), yaw(-180, 180), pitch(20, 70), roll(-10, 10);
  std::vector<Pose> poses;
  for (uint32_t i = 0; i < n; ++i) {
    const double x = xy(rng), y = xy(rng), h = z(rng);
    poses.push_back({Vector3d(x, y, h), ypr(yaw(rng), pitch(rng), roll(rng))});
  }
  return pose_floats(poses, order);
}

inline wr_render_args args_for(const std::vector<float>& poses, void* out, uint64_t out_bytes) {
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = poses.data();
  a.out = out;
  a.out_bytes = out_bytes;
  return a;
}

inline Sensor make_sensor_ex(wr_scene scene, const wr_camera_desc& desc, const wr_sensor_options& o, uint32_t n) {
  wr_sensor s = nullptr;
  REQUIRE_OK(wr_sensor_create_ex(scene, &desc, &o, n, &s));
  return Sensor(s);
}

// One render through the pipeline into a float32 output of the sensor's shape.
inline std::vector<float> render_f32(wr_sensor sensor, const wr_render_args& base) {
  uint32_t n = 0;
  uint64_t bytes = 0;
  REQUIRE_OK(wr_sensor_desc(sensor, nullptr, &n));
  REQUIRE_OK(wr_sensor_output_shape(sensor, nullptr, nullptr, nullptr, &bytes));
  std::vector<float> out(n * bytes / sizeof(float), kSentinel);
  wr_render_args a = base;
  a.out = out.data();
  a.out_bytes = out.size() * sizeof(float);
  REQUIRE_OK(wr_test::render_ex_on_backend(sensor, a));
  return out;
}

inline std::vector<float> render_f32(wr_sensor sensor, const std::vector<float>& poses) {
  return render_f32(sensor, args_for(poses, nullptr, 0));
}

}  // namespace wr_test::pipeline_tests
