// Shared by the test_c_api_*.cpp files (one executable, test_c_api): the contract checks of the
// public C API (include/wr/wr.h) through libwr.so only.
//
// EXPECT_FAIL checks a failed call: its status and a wr_last_error() that starts with the C
// function name and names the culprit. World is a working context + scene + sensor and the image
// it renders, to prove after each failure that nothing was lost. Plus the room scene and poses
// every file renders, and a temporary folder for OBJ files.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "float_bits.h"

namespace wr_test::c_api {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kSentinel = -12345.0f;  // never a depth the test scenes can produce
constexpr double kPi = 3.14159265358979323846;

// An enum holding an out-of-range value, as a C caller can pass. Stored through memcpy because a
// C++ static_cast to a value outside an unfixed enum's range is undefined behaviour.
template <class E>
inline E bad_enum(int value) {
  static_assert(sizeof(E) == sizeof(int), "C enums of wr.h are int-sized");
  E e;
  std::memcpy(&e, &value, sizeof value);
  return e;
}

// Checks a failed call: its status, and a wr_last_error() starting with "<function>:" and
// containing every substring in `parts`.
inline void expect_error(wr_status got, wr_status want, const char* function,
                         std::initializer_list<std::string> parts) {
  const char* msg = wr_last_error();
  REQUIRE(msg != nullptr);
  const std::string m(msg);
  INFO("wr_last_error() = \"" << m << "\"");
  CHECK(std::string(wr_status_string(got)) == wr_status_string(want));
  CHECK(m.rfind(std::string(function) + ":", 0) == 0);
  for (const std::string& p : parts) {
    INFO("expected substring \"" << p << "\"");
    CHECK(m.find(p) != std::string::npos);
  }
}

// Runs `call`, which must fail with `status`; see expect_error.
#define EXPECT_FAIL(call, status, function, ...)                       \
  do {                                                                 \
    INFO("call: " #call);                                              \
    const wr_status s_ = (call);                                       \
    wr_test::c_api::expect_error(s_, status, function, {__VA_ARGS__}); \
  } while (0)

using wr_test::same_bits;

inline bool all_sentinel(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::memcmp(&x, &kSentinel, sizeof x) == 0; });
}

// Hamilton product a * b of (w, x, y, z) quaternions.
inline std::array<float, 4> qmul(const std::array<float, 4>& a, const std::array<float, 4>& b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}

// Body orientation: yaw about world +Z, then pitch about the body +Y (positive = look down).
inline std::array<float, 4> yaw_pitch(double yaw_deg, double pitch_deg) {
  const double y = yaw_deg * kPi / 360.0, p = pitch_deg * kPi / 360.0;
  return qmul({float(std::cos(y)), 0.f, 0.f, float(std::sin(y))}, {float(std::cos(p)), 0.f, float(std::sin(p)), 0.f});
}

// A room every test camera sees whole (no pixel misses): a floor at z = 0 from x = -100 to 8, a
// tall wall at x = 8 and a sloped triangle in front of it. (8 x 3) vertices, (5 x 3) indices.
inline const std::vector<float> kRoomVertices = {
    -100, -100, 0,    8, -100, 0,    8, 100, 0,   -100, 100,  0,    // floor
    8,    -100, -100, 8, 100,  -100, 8, 100, 100, 8,    -100, 100,  // wall
    4,    -1,   0,    4, 1,    0,    6, 0,   1.5f};                 // ramp (vertices 8..10)
inline const std::vector<uint32_t> kRoomIndices = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 8, 9, 10};

// (num_envs x 7) poses in w, x, y, z order: env i stands at a different place and looks a bit
// down with a different yaw, so every env's image differs.
inline std::vector<float> room_poses(uint32_t num_envs) {
  std::vector<float> p;
  for (uint32_t i = 0; i < num_envs; ++i) {
    const auto q = yaw_pitch(10.0 * (double(i) - 2.0), 10.0);
    p.insert(p.end(),
             {-2.0f + 0.5f * float(i), 0.3f * float(i) - 0.6f, 1.0f + 0.1f * float(i), q[0], q[1], q[2], q[3]});
  }
  return p;
}

inline wr_camera_desc room_desc() {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, 16, 12, 90.0f);
  d.near_clip = 0.1f;
  d.far_clip = 50.0f;
  d.miss_value = -1.0f;
  d.depth_kind = WR_DEPTH_RANGE;
  return d;
}

// A working context + scene + sensor and the image it renders, to prove after each failure that
// nothing was lost: the objects still answer and render the same image bit for bit.
struct World {
  static constexpr uint32_t kEnvs = 5;
  wr_context context = nullptr;
  wr_scene scene = nullptr;
  wr_sensor sensor = nullptr;
  wr_camera_desc desc = room_desc();
  std::vector<float> poses = room_poses(kEnvs);
  std::vector<float> baseline;

  World() {
    REQUIRE(wr_context_create_cpu(2, &context) == WR_SUCCESS);
    REQUIRE(wr_scene_create(context, kRoomVertices.data(), kRoomVertices.size() / 3, kRoomIndices.data(),
                            kRoomIndices.size() / 3, &scene) == WR_SUCCESS);
    REQUIRE(wr_sensor_create(scene, &desc, kEnvs, &sensor) == WR_SUCCESS);
    baseline = render();
    // The room is seen whole: every pixel holds a hit inside the clip range.
    for (float d : baseline) REQUIRE((d >= desc.near_clip && d <= desc.far_clip));
    REQUIRE(*std::min_element(baseline.begin(), baseline.end()) < *std::max_element(baseline.begin(), baseline.end()));
  }
  ~World() {
    wr_sensor_release(sensor);
    wr_scene_release(scene);
    wr_context_release(context);
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  std::size_t depth_size() const { return std::size_t(kEnvs) * desc.width * desc.height; }
  std::vector<float> render() const {
    std::vector<float> out(depth_size(), kSentinel);
    REQUIRE(wr_sensor_render(sensor, poses.data(), out.data(), nullptr) == WR_SUCCESS);
    return out;
  }
  // Every object answers as before and the sensor renders the baseline image again.
  void expect_intact() const {
    uint32_t threads = 0;
    REQUIRE(wr_context_num_threads(context, &threads) == WR_SUCCESS);
    CHECK(threads == 2);
    uint64_t tris = 0;
    REQUIRE(wr_scene_num_triangles(scene, &tris) == WR_SUCCESS);
    CHECK(tris == kRoomIndices.size() / 3);
    float lo[3], hi[3];
    REQUIRE(wr_scene_bounds(scene, lo, hi) == WR_SUCCESS);
    CHECK((lo[0] == -100 && lo[1] == -100 && lo[2] == -100 && hi[0] == 8 && hi[1] == 100 && hi[2] == 100));
    wr_camera_desc got{};
    got.struct_size = sizeof got;
    uint32_t envs = 0;
    REQUIRE(wr_sensor_desc(sensor, &got, &envs) == WR_SUCCESS);
    CHECK(std::memcmp(&got, &desc, sizeof desc) == 0);
    CHECK(envs == kEnvs);
    CHECK(same_bits(render(), baseline));
  }
};

// Renders `poses` with `sensor`, which must succeed; (num_envs x height x width) floats.
inline std::vector<float> render_ok(wr_sensor sensor, const std::vector<float>& poses) {
  wr_camera_desc d{};
  d.struct_size = sizeof d;
  uint32_t n = 0;
  REQUIRE(wr_sensor_desc(sensor, &d, &n) == WR_SUCCESS);
  std::vector<float> out(std::size_t(n) * d.width * d.height, kSentinel);
  REQUIRE(wr_sensor_render(sensor, poses.data(), out.data(), nullptr) == WR_SUCCESS);
  return out;
}

// True when a and b agree within `rel` relative error, element by element (equal infinities agree).
inline bool close_rel(const std::vector<float>& a, const std::vector<float>& b, float rel) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    if (!(std::fabs(a[i] - b[i]) <= rel * std::max(std::fabs(a[i]), std::fabs(b[i])))) return false;
  }
  return true;
}

// A file in a fresh temporary folder, removed with the folder at scope exit.
struct TempDir {
  std::filesystem::path dir;
  TempDir() {
    static std::atomic<int> counter{0};
    dir = std::filesystem::temp_directory_path() /
          ("wr_test_c_api_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
};

}  // namespace wr_test::c_api
