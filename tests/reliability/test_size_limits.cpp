// Size limits of the C API at their boundaries: element counts near and past 2^32 (and 2^31,
// 2^40, 2^64 where the products of uint32 arguments get there) either work or are refused by
// name before anything is allocated or read.
//   - a sensor's num_envs x height x width must stay below 2^32 pixels (sensor.cpp): just below
//     works, with a 1x1 image for 2^32 - 1 envs (nothing the library holds grows with num_envs);
//     at 2^32, and where the product of the three passes 2^64, it is refused naming all three;
//     an image side of 2^31 or more is refused naming it (camera_model.cpp);
//   - a scene has at most 2^31 - 1 triangles: a larger count is refused before its arrays are
//     read (the arrays here are far shorter than the counts claim);
//   - wr_scene_intersect takes at most 2^40 rays per call, refused likewise past it (the CPU's
//     task numbering at 2^40 itself is test_cpu_task_numbering.cpp's);
//   - a pipeline's output (wr_sensor_create_ex) obeys the same two limits, sides and pixels;
//   - a huge N with a small image renders (2^20 envs of 2 pixels) what each env renders alone.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "c_api_world.h"

using namespace wr_test::c_api;

namespace {

struct Room {
  wr_context context = nullptr;
  wr_scene scene = nullptr;
  Room() {
    REQUIRE(wr_context_create_cpu(2, &context) == WR_SUCCESS);
    REQUIRE(wr_scene_create(context, kRoomVertices.data(), kRoomVertices.size() / 3, kRoomIndices.data(),
                            kRoomIndices.size() / 3, &scene) == WR_SUCCESS);
  }
  ~Room() {
    wr_scene_release(scene);
    wr_context_release(context);
  }
};

wr_camera_desc camera(uint32_t width, uint32_t height) {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, width, height, 90.0f);
  return d;
}

}  // namespace

TEST_CASE("size limits: a sensor just below 2^32 pixels is made, holding nothing per env", "[size_limits]") {
  const Room room;
  struct Size {
    uint32_t width, height, num_envs;
  };
  for (const Size s : {Size{1, 1, 4294967295u}, Size{65536, 1, 65535}, Size{1, 65535, 65537}, Size{2, 2, 1073741823}}) {
    INFO(s.num_envs << " x " << s.height << " x " << s.width);
    const wr_camera_desc d = camera(s.width, s.height);
    wr_sensor sensor = nullptr;
    const wr_status status = wr_sensor_create(room.scene, &d, s.num_envs, &sensor);
    INFO(wr_last_error());
    REQUIRE(status == WR_SUCCESS);
    uint32_t envs = 0;
    REQUIRE(wr_sensor_desc(sensor, nullptr, &envs) == WR_SUCCESS);
    CHECK(envs == s.num_envs);
    wr_memory_stats m{};
    REQUIRE(wr_sensor_memory(sensor, &m) == WR_SUCCESS);
    CHECK(m.per_env_bytes == 0);
    uint64_t template_bytes = 0;
    REQUIRE(wr_sensor_memory_tag(sensor, WR_MEMORY_RAY_TEMPLATE, &template_bytes, nullptr) == WR_SUCCESS);
    CHECK(template_bytes == 16ull * s.width * s.height);  // one 16-byte ray per pixel of one image
    CHECK(m.host_bytes < template_bytes + 4096);
    wr_sensor_release(sensor);
  }
}

TEST_CASE("size limits: a sensor of 2^32 pixels or more is refused naming its sizes", "[size_limits]") {
  const Room room;
  struct Case {
    uint32_t width, height, num_envs;
    const char* product;  // as the message states it
  };
  const Case cases[] = {
      {1, 1, 4294967295u, nullptr},  // the largest that works (above), for contrast: skipped below
      {65536, 1, 65536, "4294967296"},
      {2, 1, 2147483648u, "4294967296"},
      {65536, 65536, 1, "4294967296"},
      {2147483647u, 1, 3, "6442450941"},
      {2147483647u, 2147483647u, 1, "4611686014132420609"},
      // The product of the three passes 2^64 here: in 64-bit arithmetic it wrapped to 0.
      {1073741824u, 1073741824u, 16, "more than 2^64"},
      {2147483647u, 2147483647u, 4294967295u, "more than 2^64"},
  };
  for (const Case& c : cases) {
    if (!c.product) continue;
    INFO(c.num_envs << " x " << c.height << " x " << c.width);
    const wr_camera_desc d = camera(c.width, c.height);
    const wr_sensor kUnwritten = reinterpret_cast<wr_sensor>(uintptr_t(0x5a5a5a50));
    wr_sensor sensor = kUnwritten;
    // A template of width x height rays would be allocated first if the check came late: at
    // these sizes that is an out-of-memory error (or a length error), not this one.
    EXPECT_FAIL(wr_sensor_create(room.scene, &d, c.num_envs, &sensor), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create",
                "num_envs x desc->height x desc->width = " + std::to_string(c.num_envs) + " x " +
                    std::to_string(c.height) + " x " + std::to_string(c.width) + " = " + c.product + " pixels",
                "below 2^32");
    CHECK(sensor == kUnwritten);
  }
}

TEST_CASE("size limits: an image side of 2^31 or more is refused naming it", "[size_limits]") {
  // Both backends compute a pixel's coordinates as a tile's corner plus its side in 32 bits,
  // which for a side near 2^32 wrapped around and left the image's last tiles unrendered.
  const Room room;
  for (const uint32_t side : {2147483648u, 4294967288u, 4294967295u}) {
    INFO("side " << side);
    wr_sensor sensor = nullptr;
    const wr_camera_desc wide = camera(side, 1), tall = camera(1, side);
    EXPECT_FAIL(wr_sensor_create(room.scene, &wide, 1, &sensor), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create",
                "desc->width = " + std::to_string(side) + ": must be below 2^31");
    EXPECT_FAIL(wr_sensor_create(room.scene, &tall, 1, &sensor), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create",
                "desc->height = " + std::to_string(side) + ": must be below 2^31");
    CHECK(sensor == nullptr);
  }
}

TEST_CASE("size limits: a pipeline output of 2^32 pixels or more, or a side of 2^31, is refused naming it",
          "[size_limits]") {
  // A resampled output can be far larger than the camera's image: the camera's limit alone would
  // let its pixel index (32 bits on both backends) and its byte count (64 bits) wrap around.
  const Room room;
  const wr_camera_desc d = camera(1, 1);  // so that 2^32 - 1 envs of it are within the camera's limit
  struct Case {
    uint32_t out_width, out_height, num_envs;
    const char* product;  // as the message states it
  };
  const Case cases[] = {
      {65536, 65536, 1, "4294967296"},
      {65536, 256, 256, "4294967296"},
      {2147483647u, 2147483647u, 1, "4611686014132420609"},
      {2147483647u, 2147483647u, 4294967295u, "more than 2^64"},
  };
  for (const Case& c : cases) {
    INFO(c.num_envs << " x " << c.out_height << " x " << c.out_width);
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    o.resample = WR_RESAMPLE_BICUBIC, o.out_width = c.out_width, o.out_height = c.out_height;
    o.history_length = 1024;  // the rings would be 2^44 bytes and more, allocated first if the check came late
    wr_sensor sensor = nullptr;
    EXPECT_FAIL(wr_sensor_create_ex(room.scene, &d, &o, c.num_envs, &sensor), WR_ERROR_INVALID_ARGUMENT,
                "wr_sensor_create_ex",
                "num_envs x the output's height x width = " + std::to_string(c.num_envs) + " x " +
                    std::to_string(c.out_height) + " x " + std::to_string(c.out_width) + " = " + c.product + " pixels",
                "below 2^32");
    CHECK(sensor == nullptr);
  }
  for (const uint32_t side : {2147483648u, 4294967295u}) {
    INFO("side " << side);
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    o.resample = WR_RESAMPLE_AREA, o.out_width = side, o.out_height = 1;
    wr_sensor sensor = nullptr;
    EXPECT_FAIL(wr_sensor_create_ex(room.scene, &d, &o, 1, &sensor), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create_ex",
                "options->out_width = " + std::to_string(side) + ": must be below 2^31");
    o.out_width = 1, o.out_height = side;
    EXPECT_FAIL(wr_sensor_create_ex(room.scene, &d, &o, 1, &sensor), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create_ex",
                "options->out_height = " + std::to_string(side) + ": must be below 2^31");
    CHECK(sensor == nullptr);
  }
  // Just below the limit it is made (no history: nothing of that size is allocated at creation
  // but the resampling taps, one per output column and row).
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.resample = WR_RESAMPLE_AREA, o.out_width = 65535, o.out_height = 65537;
  wr_sensor sensor = nullptr;
  const wr_status made = wr_sensor_create_ex(room.scene, &d, &o, 1, &sensor);
  INFO(wr_last_error());
  REQUIRE(made == WR_SUCCESS);
  uint32_t w = 0, h = 0;
  uint64_t bytes = 0;
  REQUIRE(wr_sensor_output_shape(sensor, &w, &h, nullptr, &bytes) == WR_SUCCESS);
  CHECK(w == 65535);
  CHECK(h == 65537);
  CHECK(bytes == 4ull * 65535 * 65537);
  wr_sensor_release(sensor);
}

TEST_CASE("size limits: 2^20 envs of a 2-pixel image render what each env renders alone", "[size_limits]") {
  const Room room;
  const uint32_t n = 1u << 20;
  wr_camera_desc d = camera(2, 1);
  d.depth_kind = WR_DEPTH_RANGE;
  wr_sensor big = nullptr, one = nullptr;
  REQUIRE(wr_sensor_create(room.scene, &d, n, &big) == WR_SUCCESS);
  REQUIRE(wr_sensor_create(room.scene, &d, 1, &one) == WR_SUCCESS);
  // Envs in 64 distinct poses, repeated; env e gets pose e % 64.
  const std::vector<float> distinct = room_poses(64);
  std::vector<float> poses(7ull * n);
  for (uint32_t e = 0; e < n; ++e)
    for (int i = 0; i < 7; ++i) poses[7ull * e + i] = distinct[7 * (e % 64) + i];
  std::vector<float> alone[64];
  for (uint32_t k = 0; k < 64; ++k)
    alone[k] = render_ok(one, std::vector<float>(distinct.begin() + 7 * k, distinct.begin() + 7 * k + 7));
  std::vector<float> depth(2ull * n, kSentinel);
  REQUIRE(wr_sensor_render(big, poses.data(), depth.data(), nullptr) == WR_SUCCESS);
  uint64_t wrong = 0;
  for (uint32_t e = 0; e < n; ++e)
    for (int p = 0; p < 2; ++p) wrong += !same_bits(depth[2ull * e + p], alone[e % 64][p]);
  CHECK(wrong == 0);
  wr_sensor_release(big);
  wr_sensor_release(one);
}

TEST_CASE("size limits: more than 2^31 - 1 triangles are refused before the arrays are read", "[size_limits]") {
  const Room room;
  // Arrays of one triangle: reading as many as the counts claim would run far past them (and
  // AddressSanitizer, in the sanitizer run, would say so).
  const float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const uint32_t i[3] = {0, 1, 2};
  for (const uint64_t count : {2147483648ull, 4294967295ull, 4294967296ull, 1ull << 40}) {
    INFO(count << " triangles");
    wr_scene scene = nullptr;
    EXPECT_FAIL(wr_scene_create(room.context, v, 3, i, count, &scene), WR_ERROR_INVALID_ARGUMENT, "wr_scene_create",
                "num_triangles = " + std::to_string(count) + " is too large: at most 2147483647");
    CHECK(scene == nullptr);
  }
}

TEST_CASE("size limits: more than 2^40 explicit rays are refused before any is read", "[size_limits]") {
  const Room room;
  const float o[3] = {0, 0, 1}, d[3] = {0, 0, -1};
  float t[1] = {kSentinel};
  uint32_t tri[1] = {7};
  for (const uint64_t count : {(1ull << 40) + 1, 1ull << 62, ~0ull}) {
    INFO(count << " rays");
    EXPECT_FAIL(wr_scene_intersect(room.scene, o, d, nullptr, count, t, tri, nullptr), WR_ERROR_INVALID_ARGUMENT,
                "wr_scene_intersect", "count = " + std::to_string(count) + " exceeds 2^40 rays");
    CHECK(same_bits(t[0], kSentinel));
    CHECK(tri[0] == 7);
  }
}
