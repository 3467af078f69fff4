// C API contract tests (executable test_c_api; helpers in c_api_world.h): the error paths of
// sensors (wr_sensor_create with every bad camera field, wr_sensor_render with every bad pose, the
// sensor queries), which write nothing and lose nothing; the normalisation of non-unit
// quaternions; and wr_camera_desc_pinhole.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "c_api_world.h"

using namespace wr_test::c_api;

// ---- sensors ------------------------------------------------------------------------------------

TEST_CASE("wr_sensor_create: error paths", "[c_api]") {
  World w;
  wr_sensor s = nullptr;
  const wr_camera_desc ok = room_desc();

  EXPECT_FAIL(wr_sensor_create(nullptr, &ok, 1, &s), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create", "scene");
  w.expect_intact();
  EXPECT_FAIL(wr_sensor_create(w.scene, nullptr, 1, &s), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create", "desc");
  w.expect_intact();
  EXPECT_FAIL(wr_sensor_create(w.scene, &ok, 1, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create", "out");
  w.expect_intact();
  EXPECT_FAIL(wr_sensor_create(w.scene, &ok, 0, &s), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create", "num_envs");
  w.expect_intact();

  // Each bad field on its own, on an otherwise valid description.
  auto expect_bad = [&](const char* field, auto mutate) {
    INFO("bad field " << field);
    wr_camera_desc d = ok;
    mutate(d);
    EXPECT_FAIL(wr_sensor_create(w.scene, &d, 1, &s), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_create", field);
    w.expect_intact();
  };
  expect_bad("desc->width", [](wr_camera_desc& d) { d.width = 0; });
  expect_bad("desc->height", [](wr_camera_desc& d) { d.height = 0; });
  for (float x : {0.0f, -0.0f, -1.0f, kNaN, kInf, -kInf}) {
    expect_bad("desc->fx", [x](wr_camera_desc& d) { d.fx = x; });
    expect_bad("desc->fy", [x](wr_camera_desc& d) { d.fy = x; });
  }
  for (float x : {kNaN, kInf, -kInf}) {
    expect_bad("desc->cx", [x](wr_camera_desc& d) { d.cx = x; });
    expect_bad("desc->cy", [x](wr_camera_desc& d) { d.cy = x; });
    expect_bad("desc->mount_position", [x](wr_camera_desc& d) { d.mount_position[1] = x; });
    expect_bad("desc->mount_rotation", [x](wr_camera_desc& d) { d.mount_rotation[2] = x; });
  }
  for (float x : {-0.1f, -kInf, kNaN, kInf}) expect_bad("desc->near_clip", [x](wr_camera_desc& d) { d.near_clip = x; });
  expect_bad("desc->far_clip", [](wr_camera_desc& d) { d.far_clip = d.near_clip; });
  expect_bad("desc->far_clip", [](wr_camera_desc& d) { d.far_clip = d.near_clip * 0.5f; });
  expect_bad("desc->far_clip", [](wr_camera_desc& d) { d.far_clip = -kInf; });
  expect_bad("desc->far_clip", [](wr_camera_desc& d) { d.far_clip = kNaN; });
  for (int v : {2, 100, -1}) {
    expect_bad("desc->depth_kind", [v](wr_camera_desc& d) { d.depth_kind = bad_enum<wr_depth_kind>(v); });
    expect_bad("desc->quat_order", [v](wr_camera_desc& d) { d.quat_order = bad_enum<wr_quat_order>(v); });
  }
  expect_bad("desc->mount_rotation", [](wr_camera_desc& d) {
    for (float& q : d.mount_rotation) q = 0.0f;
    d.mount_rotation[3] = -kInf;
  });

  SECTION("the edges of the valid ranges are accepted, and the desc is kept as given") {
    wr_camera_desc d = ok;
    d.near_clip = 0.0f;
    d.far_clip = kInf;
    d.miss_value = kNaN;
    d.cx = -1000.0f;  // any finite principal point, even off the image
    d.width = 1;
    d.height = 1;
    d.quat_order = WR_QUAT_XYZW;
    d.mount_rotation[0] = 0.0f;  // a non-unit (x, y, z, w) rotation: normalised, not rejected
    d.mount_rotation[1] = 0.0f;
    d.mount_rotation[2] = 0.0f;
    d.mount_rotation[3] = 2.5f;
    REQUIRE(wr_sensor_create(w.scene, &d, 3, &s) == WR_SUCCESS);
    wr_camera_desc got{};
    got.struct_size = sizeof got;
    uint32_t n = 0;
    REQUIRE(wr_sensor_desc(s, &got, &n) == WR_SUCCESS);
    CHECK(std::memcmp(&got, &d, sizeof d) == 0);
    CHECK(n == 3);
    wr_sensor_release(s);
  }

  SECTION("struct_size: fields past the caller's count as 0, and a size the library cannot hold is refused") {
    expect_bad("desc->struct_size = 0", [](wr_camera_desc& d) { d.struct_size = 0; });
    expect_bad("desc->struct_size = 3", [](wr_camera_desc& d) { d.struct_size = 3; });
    expect_bad("wr_camera_desc_pinhole", [](wr_camera_desc& d) { d.struct_size = sizeof d + 4; });
    // A desc that ends before the mount (a caller built when it had none): the identity mount,
    // whatever the caller's memory holds past its size.
    wr_camera_desc d = ok;
    d.struct_size = offsetof(wr_camera_desc, mount_position);
    d.mount_position[0] = 5.0f;
    d.mount_rotation[0] = 0.5f;
    REQUIRE(wr_sensor_create(w.scene, &d, 2, &s) == WR_SUCCESS);
    wr_camera_desc got{};
    got.struct_size = sizeof got;
    REQUIRE(wr_sensor_desc(s, &got, nullptr) == WR_SUCCESS);
    CHECK(got.struct_size == sizeof got);
    CHECK(std::memcmp(&got, &ok, offsetof(wr_camera_desc, mount_position)) == 0);
    for (float x : got.mount_position) CHECK(x == 0.0f);
    for (float x : got.mount_rotation) CHECK(x == 0.0f);
    wr_sensor_release(s);
  }
}

TEST_CASE("wr_sensor_render and sensor queries: error paths write nothing and lose nothing", "[c_api]") {
  World w;
  std::vector<float> out(w.depth_size(), kSentinel);

  EXPECT_FAIL(wr_sensor_render(nullptr, w.poses.data(), out.data(), nullptr), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_render", "sensor");
  CHECK(all_sentinel(out));
  w.expect_intact();
  EXPECT_FAIL(wr_sensor_render(w.sensor, nullptr, out.data(), nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_render",
              "body_poses");
  CHECK(all_sentinel(out));
  w.expect_intact();
  EXPECT_FAIL(wr_sensor_render(w.sensor, w.poses.data(), nullptr, nullptr), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_render", "depth_out");
  w.expect_intact();
  {
    INFO("arrays not aligned to 4 bytes");
    wr_test::MisalignedCopy<float> poses(w.poses), depth(out);
    const std::vector<unsigned char> depth_bytes = depth.bytes();
    EXPECT_FAIL(wr_sensor_render(w.sensor, poses.get(), out.data(), nullptr), WR_ERROR_INVALID_ARGUMENT,
                "wr_sensor_render", "body_poses", "aligned");
    CHECK(all_sentinel(out));
    EXPECT_FAIL(wr_sensor_render(w.sensor, w.poses.data(), depth.get(), nullptr), WR_ERROR_INVALID_ARGUMENT,
                "wr_sensor_render", "depth_out", "aligned");
    CHECK(depth.bytes() == depth_bytes);
    w.expect_intact();
  }

  // A bad pose in one env fails the whole call, naming the env, before anything is written.
  struct BadPose {
    uint32_t env;
    int component;  // 0..2 position, 3..6 quaternion (w, x, y, z)
    float value;
  };
  const BadPose bad[] = {{3, 0, kNaN}, {3, 2, kInf},  {3, 1, -kInf}, {3, 3, kNaN},
                         {3, 5, kInf}, {3, 6, -kInf}, {0, 4, kNaN},  {World::kEnvs - 1, 1, kNaN}};
  for (const BadPose& b : bad) {
    INFO("env " << b.env << ", pose component " << b.component << " = " << b.value);
    std::vector<float> poses = w.poses;
    poses[b.env * 7 + b.component] = b.value;
    std::fill(out.begin(), out.end(), kSentinel);
    EXPECT_FAIL(wr_sensor_render(w.sensor, poses.data(), out.data(), nullptr), WR_ERROR_INVALID_ARGUMENT,
                "wr_sensor_render", "env " + std::to_string(b.env));
    CHECK(all_sentinel(out));
    w.expect_intact();
  }
  {
    INFO("zero quaternion in env 2");
    std::vector<float> poses = w.poses;
    std::fill(poses.begin() + 2 * 7 + 3, poses.begin() + 2 * 7 + 7, 0.0f);
    std::fill(out.begin(), out.end(), kSentinel);
    EXPECT_FAIL(wr_sensor_render(w.sensor, poses.data(), out.data(), nullptr), WR_ERROR_INVALID_ARGUMENT,
                "wr_sensor_render", "env 2");
    CHECK(all_sentinel(out));
    w.expect_intact();
  }

  wr_camera_desc d{};
  d.struct_size = sizeof d;
  uint32_t n = 0;
  uint64_t overflows = 0;
  EXPECT_FAIL(wr_sensor_desc(nullptr, &d, &n), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_desc", "sensor");
  {
    INFO("out_desc->struct_size: refused outside [4, sizeof], nothing written; inside, the fields that fit");
    for (uint32_t size : {0u, 3u, uint32_t(sizeof d + 4)}) {
      wr_camera_desc out{};
      out.struct_size = size;
      out.width = 12345;
      n = 77;
      EXPECT_FAIL(wr_sensor_desc(w.sensor, &out, &n), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_desc",
                  "out_desc->struct_size = " + std::to_string(size));
      CHECK(out.struct_size == size);
      CHECK(out.width == 12345);
      CHECK(n == 77);
    }
    const uint32_t to_height = offsetof(wr_camera_desc, fx);  // struct_size, width, height
    wr_camera_desc out{};
    out.struct_size = to_height;
    out.fx = -7.0f;
    REQUIRE(wr_sensor_desc(w.sensor, &out, nullptr) == WR_SUCCESS);
    CHECK(out.struct_size == to_height);
    CHECK(out.width == w.desc.width);
    CHECK(out.height == w.desc.height);
    CHECK(out.fx == -7.0f);  // past the caller's struct: untouched
  }
  // wr.h does not say whether one of the two outputs may be NULL; both NULL is surely an error.
  EXPECT_FAIL(wr_sensor_desc(w.sensor, nullptr, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_desc", "out_desc",
              "out_num_envs");
  EXPECT_FAIL(wr_sensor_stack_overflows(nullptr, &overflows), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_stack_overflows",
              "sensor");
  EXPECT_FAIL(wr_sensor_stack_overflows(w.sensor, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_stack_overflows",
              "out");
  w.expect_intact();
  REQUIRE(wr_sensor_stack_overflows(w.sensor, &overflows) == WR_SUCCESS);
  CHECK(overflows == 0);  // a 5-triangle BVH is two levels deep
}

// ---- quaternions and the desc helper ------------------------------------------------------------

TEST_CASE("non-unit quaternions are normalised (poses and mount)", "[c_api]") {
  World w;
  for (float scale : {3.7f, 0.02f, -1.0f}) {  // -q is the same rotation as q
    INFO("body quaternions scaled by " << scale);
    std::vector<float> poses = w.poses;
    for (uint32_t e = 0; e < World::kEnvs; ++e)
      for (int c = 3; c < 7; ++c) poses[e * 7 + c] *= scale;
    CHECK(close_rel(render_ok(w.sensor, poses), w.baseline, 1e-5f));
  }

  // A tilted mount, given as a unit and as a scaled quaternion.
  wr_camera_desc unit = w.desc;
  const auto q = yaw_pitch(-15.0, 5.0);
  std::copy(q.begin(), q.end(), unit.mount_rotation);
  unit.mount_position[2] = 0.25f;
  wr_camera_desc scaled = unit;
  for (float& c : scaled.mount_rotation) c *= 3.7f;
  wr_sensor a = nullptr, b = nullptr;
  REQUIRE(wr_sensor_create(w.scene, &unit, World::kEnvs, &a) == WR_SUCCESS);
  REQUIRE(wr_sensor_create(w.scene, &scaled, World::kEnvs, &b) == WR_SUCCESS);
  const std::vector<float> ia = render_ok(a, w.poses), ib = render_ok(b, w.poses);
  CHECK(close_rel(ia, ib, 1e-5f));
  CHECK(!close_rel(ia, w.baseline, 1e-3f));  // the mount really moved the camera
  wr_sensor_release(a);
  wr_sensor_release(b);
}

TEST_CASE("wr_camera_desc_pinhole fills exactly the documented values", "[c_api]") {
  struct Case {
    uint32_t w, h;
    float hfov;
  };
  for (const Case& c : {Case{640, 480, 90.0f}, Case{100, 50, 60.0f}, Case{7, 3, 120.0f}}) {
    INFO(c.w << "x" << c.h << ", hfov " << c.hfov);
    wr_camera_desc d;
    std::memset(&d, 0xAB, sizeof d);  // every field must be overwritten
    wr_camera_desc_pinhole(&d, c.w, c.h, c.hfov);
    const double f = (c.w / 2.0) / std::tan(c.hfov * kPi / 360.0);
    CHECK(d.width == c.w);
    CHECK(d.height == c.h);
    CHECK(d.fx == Approx(f).epsilon(1e-6));
    CHECK(d.fy == Approx(f).epsilon(1e-6));
    CHECK(d.cx == c.w / 2.0f);
    CHECK(d.cy == c.h / 2.0f);
    CHECK(d.near_clip == 0.0f);
    CHECK(d.far_clip == kInf);
    CHECK(d.miss_value == kInf);
    CHECK(d.depth_kind == WR_DEPTH_PLANE);
    CHECK(d.quat_order == WR_QUAT_WXYZ);
    CHECK((d.mount_position[0] == 0 && d.mount_position[1] == 0 && d.mount_position[2] == 0));
    // all 0: the identity whatever quat_order (wr.h), so setting WR_QUAT_XYZW afterwards keeps it
    CHECK(
        (d.mount_rotation[0] == 0 && d.mount_rotation[1] == 0 && d.mount_rotation[2] == 0 && d.mount_rotation[3] == 0));
  }
  CHECK(wr_camera_desc_pinhole(nullptr, 640, 480, 90.0f) == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(wr_last_error(), Catch::Contains("desc is NULL"));
}

TEST_CASE("wr_camera_desc_pinhole refuses a FOV outside [1, 180) degrees and a zero size, by name", "[c_api]") {
  wr_camera_desc d;
  REQUIRE(wr_camera_desc_pinhole(&d, 106, 60, 87.0f) == WR_SUCCESS);
  const wr_camera_desc before = d;
  for (float hfov : {180.0f, 200.0f, 0.99f, 0.0f, -87.0f, kNaN, kInf}) {
    INFO("hfov " << hfov);
    CHECK(wr_camera_desc_pinhole(&d, 106, 60, hfov) == WR_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(wr_last_error(), Catch::Contains("wr_camera_desc_pinhole: hfov_degrees"));
    CHECK(std::memcmp(&d, &before, sizeof d) == 0);  // untouched
  }
  CHECK(wr_camera_desc_pinhole(&d, 106, 60, 1.0f) == WR_SUCCESS);  // the bounds themselves
  CHECK(wr_camera_desc_pinhole(&d, 106, 60, 179.9f) == WR_SUCCESS);
  CHECK(wr_camera_desc_pinhole(&d, 0, 60, 87.0f) == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(wr_last_error(), Catch::Contains("width x height = 0 x 60"));
}
