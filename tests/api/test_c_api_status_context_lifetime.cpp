// C API contract tests (executable test_c_api; helpers in c_api_world.h): the version,
// wr_status_string, the
// thread rules of wr_last_error, contexts and their error paths, releasing handles in any order,
// and different sensors rendering from different threads at once.
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "c_api_world.h"

using namespace wr_test::c_api;

// ---- the version ---------------------------------------------------------------------------------

TEST_CASE("wr_version and wr_version_string are the header's version, in the order WR_MAKE_VERSION gives", "[c_api]") {
  CHECK(wr_version() == WR_VERSION);
  CHECK(WR_VERSION == WR_MAKE_VERSION(WR_VERSION_MAJOR, WR_VERSION_MINOR, WR_VERSION_PATCH));
  REQUIRE(wr_version_string() != nullptr);
  CHECK(std::string(wr_version_string()) == WR_VERSION_STRING);
  CHECK(std::string(WR_VERSION_STRING) == std::to_string(WR_VERSION_MAJOR) + "." + std::to_string(WR_VERSION_MINOR) +
                                              "." + std::to_string(WR_VERSION_PATCH));
  // Versions compare as numbers, component by component.
  CHECK(WR_MAKE_VERSION(0, 2, 0) > WR_MAKE_VERSION(0, 1, 999));
  CHECK(WR_MAKE_VERSION(1, 0, 0) > WR_MAKE_VERSION(0, 999, 999));
  CHECK(WR_MAKE_VERSION(0, 10, 0) > WR_MAKE_VERSION(0, 9, 0));
  // 0.2 is the first version whose wr_camera_desc starts with struct_size (wr.h).
  CHECK(wr_version() >= WR_MAKE_VERSION(0, 2, 0));
  // 0.3 is the first with the terrain kinds (wr_scene_create_grid_mesh, wr_heightfield_desc.terrain).
  CHECK(wr_version() >= WR_MAKE_VERSION(0, 3, 0));
  // 0.4 is the first with the ray patterns (wr_pattern_create, wr_sensor_create_pattern).
  CHECK(wr_version() >= WR_MAKE_VERSION(0, 4, 0));
}

// ---- status strings and the last-error message --------------------------------------------------

TEST_CASE("wr_status_string names every status, and unknown values", "[c_api]") {
  CHECK(std::string(wr_status_string(WR_SUCCESS)) == "WR_SUCCESS");
  CHECK(std::string(wr_status_string(WR_ERROR_INVALID_ARGUMENT)) == "WR_ERROR_INVALID_ARGUMENT");
  CHECK(std::string(wr_status_string(WR_ERROR_IO)) == "WR_ERROR_IO");
  CHECK(std::string(wr_status_string(WR_ERROR_PARSE)) == "WR_ERROR_PARSE");
  CHECK(std::string(wr_status_string(WR_ERROR_OUT_OF_MEMORY)) == "WR_ERROR_OUT_OF_MEMORY");
  CHECK(std::string(wr_status_string(WR_ERROR_UNSUPPORTED)) == "WR_ERROR_UNSUPPORTED");
  CHECK(std::string(wr_status_string(WR_ERROR_DEVICE)) == "WR_ERROR_DEVICE");
  CHECK(std::string(wr_status_string(WR_ERROR_INTERNAL)) == "WR_ERROR_INTERNAL");
  for (int v : {8, 100, -1, std::numeric_limits<int>::max(), std::numeric_limits<int>::min()}) {
    const char* s = wr_status_string(bad_enum<wr_status>(v));
    REQUIRE(s != nullptr);
    CHECK(std::string(s) == "WR_STATUS_UNKNOWN");
  }
}

TEST_CASE("wr_last_error is never NULL: empty on a fresh thread, kept across successes", "[c_api]") {
  bool fresh_non_null = false;
  std::string fresh_text = "x";
  std::thread([&] {
    const char* m = wr_last_error();
    fresh_non_null = m != nullptr;
    if (m) fresh_text = m;
  }).join();
  REQUIRE(fresh_non_null);
  CHECK(fresh_text.empty());

  REQUIRE(wr_last_error() != nullptr);
  EXPECT_FAIL(wr_context_create_cpu(0, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_context_create_cpu", "out");
  const std::string failure = wr_last_error();
  wr_context c = nullptr;
  REQUIRE(wr_context_create_cpu(1, &c) == WR_SUCCESS);
  wr_context_release(c);
  // "Message of the last failed call": a success does not clear it.
  REQUIRE(wr_last_error() != nullptr);
  CHECK(std::string(wr_last_error()) == failure);
}

TEST_CASE("wr_last_error is thread-local", "[c_api]") {
  World w;
  wr_scene s = nullptr;
  EXPECT_FAIL(wr_scene_create(w.context, nullptr, 3, kRoomIndices.data(), 1, &s), WR_ERROR_INVALID_ARGUMENT,
              "wr_scene_create", "vertices");
  const std::string mine = wr_last_error();
  REQUIRE(!mine.empty());

  std::string theirs, theirs_fresh;
  wr_status theirs_status = WR_SUCCESS;
  std::thread([&] {
    theirs_fresh = wr_last_error();
    wr_sensor sensor = nullptr;
    theirs_status = wr_sensor_create(w.scene, nullptr, 1, &sensor);
    theirs = wr_last_error();
  }).join();
  CHECK(theirs_fresh.empty());  // the other thread did not see this thread's failure
  CHECK(theirs_status == WR_ERROR_INVALID_ARGUMENT);
  CHECK(theirs.rfind("wr_sensor_create:", 0) == 0);
  CHECK(std::string(wr_last_error()) == mine);  // nor did its failure change this thread's message
  w.expect_intact();
}

// ---- contexts -----------------------------------------------------------------------------------

TEST_CASE("wr_context_create / _create_cpu / _num_threads: error paths", "[c_api]") {
  World w;
  wr_context c = nullptr;

  EXPECT_FAIL(wr_context_create(WR_DEVICE_CPU, 0, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_context_create", "out");
  w.expect_intact();
  EXPECT_FAIL(wr_context_create_cpu(4, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_context_create_cpu", "out");
  w.expect_intact();
  for (int v : {2, 7, -1}) {
    EXPECT_FAIL(wr_context_create(bad_enum<wr_device>(v), 0, &c), WR_ERROR_INVALID_ARGUMENT, "wr_context_create",
                "device");
    w.expect_intact();
  }

  // CUDA: must be WR_ERROR_UNSUPPORTED without CUDA built in or without a GPU.
  const wr_status cuda = wr_context_create(WR_DEVICE_CUDA, 0, &c);
  if (cuda == WR_SUCCESS) {
    WARN(
        "wr_context_create(WR_DEVICE_CUDA) succeeded: a CUDA device is present, so the "
        "WR_ERROR_UNSUPPORTED path cannot be checked on this machine");
    wr_context_release(c);
  } else {
    expect_error(cuda, WR_ERROR_UNSUPPORTED, "wr_context_create", {"CUDA"});
  }
  w.expect_intact();

  uint32_t n = 0;
  EXPECT_FAIL(wr_context_num_threads(nullptr, &n), WR_ERROR_INVALID_ARGUMENT, "wr_context_num_threads", "context");
  EXPECT_FAIL(wr_context_num_threads(w.context, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_context_num_threads", "out");
  w.expect_intact();

  // The successful paths, with the values they document.
  REQUIRE(wr_context_create_cpu(3, &c) == WR_SUCCESS);
  REQUIRE(wr_context_num_threads(c, &n) == WR_SUCCESS);
  CHECK(n == 3);
  wr_context_release(c);
  REQUIRE(wr_context_create(WR_DEVICE_CPU, 5, &c) == WR_SUCCESS);  // ordinal is ignored for the CPU
  REQUIRE(wr_context_num_threads(c, &n) == WR_SUCCESS);
  CHECK(n >= 1);
  wr_context_release(c);
}

TEST_CASE("wr_context_create_cpu rejects an absurd thread count by name", "[c_api]") {
  wr_context c = nullptr;
  EXPECT_FAIL(wr_context_create_cpu(4097, &c), WR_ERROR_INVALID_ARGUMENT, "wr_context_create_cpu", "num_threads");
  CHECK(c == nullptr);
  REQUIRE(wr_context_create_cpu(4, &c) == WR_SUCCESS);
  uint32_t n = 0;
  REQUIRE(wr_context_num_threads(c, &n) == WR_SUCCESS);
  CHECK(n == 4);
  wr_context_release(c);
}

// ---- lifetimes and threads ----------------------------------------------------------------------

TEST_CASE("handles release in any order, and releasing NULL does nothing", "[c_api]") {
  wr_context_release(nullptr);
  wr_scene_release(nullptr);
  wr_sensor_release(nullptr);

  wr_context c = nullptr;
  wr_scene s = nullptr;
  wr_sensor sensor = nullptr;
  REQUIRE(wr_context_create_cpu(2, &c) == WR_SUCCESS);
  REQUIRE(wr_scene_create(c, kRoomVertices.data(), kRoomVertices.size() / 3, kRoomIndices.data(),
                          kRoomIndices.size() / 3, &s) == WR_SUCCESS);
  const wr_camera_desc d = room_desc();
  REQUIRE(wr_sensor_create(s, &d, 3, &sensor) == WR_SUCCESS);
  const std::vector<float> poses = room_poses(3);
  const std::vector<float> before = render_ok(sensor, poses);

  // The sensor keeps the scene alive and the scene the context.
  wr_scene_release(s);
  wr_context_release(c);
  CHECK(same_bits(render_ok(sensor, poses), before));
  wr_sensor_release(sensor);

  // The other way round: a scene outlives its context and still makes sensors.
  REQUIRE(wr_context_create_cpu(1, &c) == WR_SUCCESS);
  REQUIRE(wr_scene_create(c, kRoomVertices.data(), kRoomVertices.size() / 3, kRoomIndices.data(),
                          kRoomIndices.size() / 3, &s) == WR_SUCCESS);
  wr_context_release(c);
  REQUIRE(wr_sensor_create(s, &d, 3, &sensor) == WR_SUCCESS);
  wr_sensor_release(sensor);
  REQUIRE(wr_sensor_create(s, &d, 3, &sensor) == WR_SUCCESS);
  wr_scene_release(s);
  CHECK(same_bits(render_ok(sensor, poses), before));  // thread count does not change the image
  wr_sensor_release(sensor);
}

TEST_CASE("different sensors render from different threads at once as they do one after the other", "[c_api]") {
  World w;
  // Four sensors of different sizes, kinds and env counts on the shared scene and context.
  std::vector<wr_sensor> sensors;
  std::vector<std::vector<float>> poses, expected;
  for (uint32_t k = 0; k < 4; ++k) {
    wr_camera_desc d;
    wr_camera_desc_pinhole(&d, 24 + 8 * k, 16 + 4 * k, 60.0f + 15.0f * float(k));
    d.depth_kind = (k % 2) ? WR_DEPTH_RANGE : WR_DEPTH_PLANE;
    wr_sensor s = nullptr;
    REQUIRE(wr_sensor_create(w.scene, &d, 2 + k, &s) == WR_SUCCESS);
    sensors.push_back(s);
    poses.push_back(room_poses(2 + k));
  }
  for (std::size_t k = 0; k < sensors.size(); ++k) expected.push_back(render_ok(sensors[k], poses[k]));

  // Catch2 assertions are not thread-safe: each thread only counts its mismatches.
  constexpr int kRounds = 20;
  std::vector<int> mismatches(sensors.size(), 0);
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < sensors.size(); ++k) {
    threads.emplace_back([&, k] {
      std::vector<float> out(expected[k].size());
      for (int r = 0; r < kRounds; ++r) {
        std::fill(out.begin(), out.end(), kSentinel);
        if (wr_sensor_render(sensors[k], poses[k].data(), out.data(), nullptr) != WR_SUCCESS ||
            !same_bits(out, expected[k]))
          ++mismatches[k];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::size_t k = 0; k < sensors.size(); ++k) {
    INFO("sensor " << k);
    CHECK(mismatches[k] == 0);
  }
  for (wr_sensor s : sensors) wr_sensor_release(s);
  w.expect_intact();
}
