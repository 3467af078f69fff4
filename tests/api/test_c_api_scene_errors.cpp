// C API contract tests (executable test_c_api; helpers in c_api_world.h): the error paths of scenes
// (wr_scene_create, the scene queries, wr_scene_load_obj, wr_scene_memory, wr_scene_intersect,
// wr_scene_build_seconds). Each failure names its culprit, writes no output and loses nothing:
// the World renders the same image after it as before.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "c_api_world.h"

using namespace wr_test::c_api;

// ---- scenes -------------------------------------------------------------------------------------

TEST_CASE("wr_scene_create and scene queries: error paths", "[c_api]") {
  World w;
  wr_scene s = nullptr;
  // A quad: (4 x 3) vertices, (2 x 3) indices.
  std::vector<float> v = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  std::vector<uint32_t> idx = {0, 1, 2, 0, 2, 3};

  EXPECT_FAIL(wr_scene_create(nullptr, v.data(), 4, idx.data(), 2, &s), WR_ERROR_INVALID_ARGUMENT, "wr_scene_create",
              "context");
  w.expect_intact();
  EXPECT_FAIL(wr_scene_create(w.context, nullptr, 4, idx.data(), 2, &s), WR_ERROR_INVALID_ARGUMENT, "wr_scene_create",
              "vertices");
  w.expect_intact();
  EXPECT_FAIL(wr_scene_create(w.context, v.data(), 4, nullptr, 2, &s), WR_ERROR_INVALID_ARGUMENT, "wr_scene_create",
              "indices");
  w.expect_intact();
  {
    wr_test::MisalignedCopy<float> mv(v);
    wr_test::MisalignedCopy<uint32_t> mi(idx);
    EXPECT_FAIL(wr_scene_create(w.context, mv.get(), 4, idx.data(), 2, &s), WR_ERROR_INVALID_ARGUMENT,
                "wr_scene_create", "vertices", "aligned to 4 bytes");
    w.expect_intact();
    EXPECT_FAIL(wr_scene_create(w.context, v.data(), 4, mi.get(), 2, &s), WR_ERROR_INVALID_ARGUMENT, "wr_scene_create",
                "indices", "aligned to 4 bytes");
    w.expect_intact();
  }
  EXPECT_FAIL(wr_scene_create(w.context, v.data(), 4, idx.data(), 2, nullptr), WR_ERROR_INVALID_ARGUMENT,
              "wr_scene_create", "out");
  w.expect_intact();
  EXPECT_FAIL(wr_scene_create(w.context, v.data(), 0, idx.data(), 2, &s), WR_ERROR_INVALID_ARGUMENT, "wr_scene_create",
              "num_vertices");
  w.expect_intact();
  EXPECT_FAIL(wr_scene_create(w.context, v.data(), 4, idx.data(), 0, &s), WR_ERROR_INVALID_ARGUMENT, "wr_scene_create",
              "num_triangles");
  w.expect_intact();

  SECTION("an index out of range names the first bad triangle, the value and num_vertices") {
    std::vector<uint32_t> bad = {0, 1, 2, 9, 2, 3, 0, 7, 3};  // triangles 1 and 2 are bad
    EXPECT_FAIL(wr_scene_create(w.context, v.data(), 4, bad.data(), 3, &s), WR_ERROR_INVALID_ARGUMENT,
                "wr_scene_create", "triangle 1", "9", "num_vertices");
    CHECK(std::string(wr_last_error()).find("triangle 2") == std::string::npos);
    w.expect_intact();
    bad = {0, 1, 2, 0, 2, 4};  // == num_vertices: one past the end
    EXPECT_FAIL(wr_scene_create(w.context, v.data(), 4, bad.data(), 2, &s), WR_ERROR_INVALID_ARGUMENT,
                "wr_scene_create", "triangle 1", "4", "num_vertices");
    w.expect_intact();
    bad = {0, 1, 0xFFFFFFFFu};
    EXPECT_FAIL(wr_scene_create(w.context, v.data(), 4, bad.data(), 1, &s), WR_ERROR_INVALID_ARGUMENT,
                "wr_scene_create", "triangle 0", "4294967295");
    w.expect_intact();
  }

  SECTION("a non-finite vertex is named") {
    for (float x : {kNaN, kInf, -kInf}) {
      std::vector<float> bad = v;
      bad[2 * 3 + 1] = x;  // vertex 2, y
      EXPECT_FAIL(wr_scene_create(w.context, bad.data(), 4, idx.data(), 2, &s), WR_ERROR_INVALID_ARGUMENT,
                  "wr_scene_create", "vertex 2");
      w.expect_intact();
    }
  }

  SECTION("valid arrays: counts and bounds as given, zero-area triangles accepted") {
    std::vector<uint32_t> with_degenerate = {0, 1, 2, 0, 2, 3, 1, 1, 1};
    REQUIRE(wr_scene_create(w.context, v.data(), 4, with_degenerate.data(), 3, &s) == WR_SUCCESS);
    uint64_t n = 0;
    REQUIRE(wr_scene_num_triangles(s, &n) == WR_SUCCESS);
    CHECK(n == 3);
    float lo[3], hi[3];
    REQUIRE(wr_scene_bounds(s, lo, hi) == WR_SUCCESS);
    CHECK((lo[0] == 0 && lo[1] == 0 && lo[2] == 0 && hi[0] == 1 && hi[1] == 1 && hi[2] == 0));
    wr_scene_release(s);
    // A zero-area triangle's corners count (vertex 4, used only by one), an unused vertex
    // does not (vertex 5).
    std::vector<float> more = v;
    more.insert(more.end(), {5, 0, -2, -7, 9, 9});
    const std::vector<uint32_t> reaching = {0, 1, 2, 4, 4, 0};
    REQUIRE(wr_scene_create(w.context, more.data(), 6, reaching.data(), 2, &s) == WR_SUCCESS);
    REQUIRE(wr_scene_bounds(s, lo, hi) == WR_SUCCESS);
    CHECK((lo[0] == 0 && lo[1] == 0 && lo[2] == -2 && hi[0] == 5 && hi[1] == 1 && hi[2] == 0));
    wr_scene_release(s);
  }

  uint64_t n = 0;
  float lo[3], hi[3];
  EXPECT_FAIL(wr_scene_num_triangles(nullptr, &n), WR_ERROR_INVALID_ARGUMENT, "wr_scene_num_triangles", "scene");
  EXPECT_FAIL(wr_scene_num_triangles(w.scene, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_scene_num_triangles", "out");
  EXPECT_FAIL(wr_scene_bounds(nullptr, lo, hi), WR_ERROR_INVALID_ARGUMENT, "wr_scene_bounds", "scene");
  EXPECT_FAIL(wr_scene_bounds(w.scene, nullptr, hi), WR_ERROR_INVALID_ARGUMENT, "wr_scene_bounds", "out_min");
  EXPECT_FAIL(wr_scene_bounds(w.scene, lo, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_scene_bounds", "out_max");
  w.expect_intact();
}

TEST_CASE("wr_scene_load_obj: error paths", "[c_api]") {
  World w;
  TempDir tmp;
  wr_scene s = nullptr;
  const std::string good = tmp.write("good.obj", "# a unit quad\nv 0 0 0\nv 1 0 0\nv 1 2 0\nv 0 2 3\nf 1 2 3 4\n");

  SECTION("a valid file loads") {
    REQUIRE(wr_scene_load_obj(w.context, good.c_str(), &s) == WR_SUCCESS);
    uint64_t n = 0;
    REQUIRE(wr_scene_num_triangles(s, &n) == WR_SUCCESS);
    CHECK(n == 2);  // the quad, triangulated
    float lo[3], hi[3];
    REQUIRE(wr_scene_bounds(s, lo, hi) == WR_SUCCESS);
    CHECK((lo[0] == 0 && lo[1] == 0 && lo[2] == 0 && hi[0] == 1 && hi[1] == 2 && hi[2] == 3));
    wr_scene_release(s);
  }

  EXPECT_FAIL(wr_scene_load_obj(nullptr, good.c_str(), &s), WR_ERROR_INVALID_ARGUMENT, "wr_scene_load_obj", "context");
  w.expect_intact();
  EXPECT_FAIL(wr_scene_load_obj(w.context, nullptr, &s), WR_ERROR_INVALID_ARGUMENT, "wr_scene_load_obj", "path");
  w.expect_intact();
  EXPECT_FAIL(wr_scene_load_obj(w.context, good.c_str(), nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_scene_load_obj",
              "out");
  w.expect_intact();

  const std::string missing = (tmp.dir / "no_such_file.obj").string();
  EXPECT_FAIL(wr_scene_load_obj(w.context, missing.c_str(), &s), WR_ERROR_IO, "wr_scene_load_obj", missing);
  w.expect_intact();
  const std::string folder = tmp.dir.string();  // exists, but is no readable file
  EXPECT_FAIL(wr_scene_load_obj(w.context, folder.c_str(), &s), WR_ERROR_IO, "wr_scene_load_obj", folder);
  w.expect_intact();
  const std::string no_faces = tmp.write("no_faces.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n");
  EXPECT_FAIL(wr_scene_load_obj(w.context, no_faces.c_str(), &s), WR_ERROR_PARSE, "wr_scene_load_obj", no_faces);
  w.expect_intact();

  // Malformed content: WR_ERROR_PARSE naming "<path>:<line>" (lines count from 1).
  struct Bad {
    const char* what;
    const char* text;
    int line;
  };
  const Bad bad[] = {
      {"a bad number", "v 0 0 0\nv 1 0 0\nv 1 abc 0\nf 1 2 3\n", 3},
      {"a NaN coordinate", "# header\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv nan 0 0\nf 1 2 3\n", 5},
      {"a coordinate overflowing float", "v 0 0 0\nv 1 0 0\nv 0 1 1e40\nf 1 2 3\n", 3},
      {"a face index past the end", "v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 7\n", 5},
      {"a face index 0 (OBJ counts from 1)", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 0 1 2\n", 5},
      {"a relative face index before the first vertex", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -9\n", 4},
      {"a face of two corners", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2\n", 5},
  };
  int k = 0;
  for (const Bad& b : bad) {
    INFO("malformed file with " << b.what);
    const std::string path = tmp.write("bad" + std::to_string(k++) + ".obj", b.text);
    EXPECT_FAIL(wr_scene_load_obj(w.context, path.c_str(), &s), WR_ERROR_PARSE, "wr_scene_load_obj",
                path + ":" + std::to_string(b.line));
    w.expect_intact();
  }
}

TEST_CASE("wr_scene_memory, wr_sensor_memory and wr_scene_intersect: error paths", "[c_api]") {
  World w;
  wr_memory_stats m;
  EXPECT_FAIL(wr_scene_memory(nullptr, &m), WR_ERROR_INVALID_ARGUMENT, "wr_scene_memory", "scene");
  EXPECT_FAIL(wr_scene_memory(w.scene, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_scene_memory", "out");
  EXPECT_FAIL(wr_sensor_memory(nullptr, &m), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_memory", "sensor");
  EXPECT_FAIL(wr_sensor_memory(w.sensor, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_memory", "out");
  w.expect_intact();

  // Three rays straight down from 2 m onto the floor: (3 x 3) origins and directions. A
  // direction of length 2 measures t in units of 2 m, so every hit is at t = 1.
  std::vector<float> o = {-1, 0, 2, -2, 1, 2, -3, -1, 2}, d = {0, 0, -2, 0, 0, -2, 0, 0, -2}, tmax = {5, 5, 5};
  std::vector<float> t(3, kSentinel);
  std::vector<uint32_t> tri(3, 12345u);
  REQUIRE(wr_scene_intersect(w.scene, o.data(), d.data(), tmax.data(), 3, t.data(), tri.data(), nullptr) == WR_SUCCESS);
  for (int i = 0; i < 3; ++i) {
    CHECK(t[i] == Approx(1.0f).epsilon(1e-6));
    CHECK(tri[i] <= 1u);  // one of the two floor triangles
  }
  const std::vector<float> t_ok = t;
  const std::vector<uint32_t> tri_ok = tri;

  // Every failure names its culprit and writes neither output.
  auto expect_untouched = [&] {
    CHECK(all_sentinel(t));
    CHECK(std::all_of(tri.begin(), tri.end(), [](uint32_t x) { return x == 12345u; }));
    std::fill(t.begin(), t.end(), kSentinel);
    std::fill(tri.begin(), tri.end(), 12345u);
    w.expect_intact();
  };
  std::fill(t.begin(), t.end(), kSentinel);
  std::fill(tri.begin(), tri.end(), 12345u);
  EXPECT_FAIL(wr_scene_intersect(nullptr, o.data(), d.data(), nullptr, 3, t.data(), tri.data(), nullptr),
              WR_ERROR_INVALID_ARGUMENT, "wr_scene_intersect", "scene");
  expect_untouched();
  EXPECT_FAIL(wr_scene_intersect(w.scene, nullptr, d.data(), nullptr, 3, t.data(), tri.data(), nullptr),
              WR_ERROR_INVALID_ARGUMENT, "wr_scene_intersect", "origins");
  expect_untouched();
  EXPECT_FAIL(wr_scene_intersect(w.scene, o.data(), nullptr, nullptr, 3, t.data(), tri.data(), nullptr),
              WR_ERROR_INVALID_ARGUMENT, "wr_scene_intersect", "directions");
  expect_untouched();
  EXPECT_FAIL(wr_scene_intersect(w.scene, o.data(), d.data(), nullptr, 3, nullptr, tri.data(), nullptr),
              WR_ERROR_INVALID_ARGUMENT, "wr_scene_intersect", "out_t");
  expect_untouched();
  EXPECT_FAIL(wr_scene_intersect(w.scene, o.data(), d.data(), nullptr, 0, t.data(), tri.data(), nullptr),
              WR_ERROR_INVALID_ARGUMENT, "wr_scene_intersect", "count");
  expect_untouched();
  struct BadRay {
    std::vector<float>* array;
    std::size_t index;  // into the array
    float value;
    const char* culprit;
  };
  const BadRay bad[] = {{&o, 2 * 3 + 0, kNaN, "ray 2"}, {&o, 1 * 3 + 2, kInf, "ray 1"}, {&d, 2 * 3 + 1, -kInf, "ray 2"},
                        {&d, 0 * 3 + 2, kNaN, "ray 0"}, {&tmax, 1, -1.0f, "ray 1"},     {&tmax, 2, kNaN, "ray 2"}};
  for (const BadRay& b : bad) {
    INFO("bad value " << b.value << " expected to name " << b.culprit);
    const float saved = (*b.array)[b.index];
    (*b.array)[b.index] = b.value;
    EXPECT_FAIL(wr_scene_intersect(w.scene, o.data(), d.data(), tmax.data(), 3, t.data(), tri.data(), nullptr),
                WR_ERROR_INVALID_ARGUMENT, "wr_scene_intersect", b.culprit);
    (*b.array)[b.index] = saved;
    expect_untouched();
  }
  {
    INFO("a zero direction");
    std::vector<float> zero = d;
    std::fill(zero.begin() + 3, zero.begin() + 6, 0.0f);
    EXPECT_FAIL(wr_scene_intersect(w.scene, o.data(), zero.data(), nullptr, 3, t.data(), tri.data(), nullptr),
                WR_ERROR_INVALID_ARGUMENT, "wr_scene_intersect", "ray 1");
    expect_untouched();
  }
  // And the scene still answers as before.
  REQUIRE(wr_scene_intersect(w.scene, o.data(), d.data(), tmax.data(), 3, t.data(), tri.data(), nullptr) == WR_SUCCESS);
  CHECK(same_bits(t, t_ok));
  CHECK(tri == tri_ok);
}

TEST_CASE("wr_scene_build_seconds reports the build and rejects NULL", "[c_api]") {
  World w;
  double seconds = -1.0;
  REQUIRE(wr_scene_build_seconds(w.scene, &seconds) == WR_SUCCESS);
  CHECK(seconds >= 0.0);
  CHECK(seconds < 10.0);
  EXPECT_FAIL(wr_scene_build_seconds(nullptr, &seconds), WR_ERROR_INVALID_ARGUMENT, "wr_scene_build_seconds", "scene");
  EXPECT_FAIL(wr_scene_build_seconds(w.scene, nullptr), WR_ERROR_INVALID_ARGUMENT, "wr_scene_build_seconds", "out");
  w.expect_intact();
}

TEST_CASE("memory per tag adds up to the totals, names every tag, and rejects bad tags", "[c_api]") {
  World w;
  wr_memory_stats scene_total{}, sensor_total{};
  REQUIRE(wr_scene_memory(w.scene, &scene_total) == WR_SUCCESS);
  REQUIRE(wr_sensor_memory(w.sensor, &sensor_total) == WR_SUCCESS);
  uint64_t scene_host = 0, scene_device = 0, sensor_host = 0, sensor_device = 0;
  for (int t = 0; t < WR_MEMORY_TAG_COUNT; ++t) {
    const wr_memory_tag tag = static_cast<wr_memory_tag>(t);
    CHECK(std::string(wr_memory_tag_string(tag)) != "unknown");
    uint64_t host = 0, device = 0;
    REQUIRE(wr_scene_memory_tag(w.scene, tag, &host, &device) == WR_SUCCESS);
    scene_host += host;
    scene_device += device;
    REQUIRE(wr_sensor_memory_tag(w.sensor, tag, &host, nullptr) == WR_SUCCESS);
    sensor_host += host;
    REQUIRE(wr_sensor_memory_tag(w.sensor, tag, nullptr, &device) == WR_SUCCESS);
    sensor_device += device;
  }
  CHECK(scene_host == scene_total.host_bytes);
  CHECK(scene_device == scene_total.device_bytes);
  CHECK(sensor_host == sensor_total.host_bytes);
  CHECK(sensor_device == sensor_total.device_bytes);
  // Each array is where it belongs: BVH data in the scene, the template in the sensor.
  uint64_t nodes = 0, tris = 0, ray_template = 0, scratch = 0;
  REQUIRE(wr_scene_memory_tag(w.scene, WR_MEMORY_BVH_NODES, &nodes, nullptr) == WR_SUCCESS);
  REQUIRE(wr_scene_memory_tag(w.scene, WR_MEMORY_BVH_TRIANGLES, &tris, nullptr) == WR_SUCCESS);
  REQUIRE(wr_scene_memory_tag(w.scene, WR_MEMORY_BUILD_SCRATCH, &scratch, nullptr) == WR_SUCCESS);
  REQUIRE(wr_sensor_memory_tag(w.sensor, WR_MEMORY_RAY_TEMPLATE, &ray_template, nullptr) == WR_SUCCESS);
  CHECK(nodes % 32 == 0);
  CHECK(nodes > 0);
  // The room's 5 triangles fit one leaf (splitting them costs more than testing them all), a
  // block of its 11 distinct corners (12 bytes each) and 8 bytes per triangle (corners, id).
  CHECK(tris == 12 * 11 + 8 * kRoomIndices.size() / 3);
  CHECK(scratch == 0);
  CHECK(ray_template == 16ull * w.desc.width * w.desc.height);
  CHECK(std::string(wr_memory_tag_string(static_cast<wr_memory_tag>(99))) == "unknown");

  uint64_t host = 0;
  EXPECT_FAIL(wr_scene_memory_tag(w.scene, WR_MEMORY_TAG_COUNT, &host, nullptr), WR_ERROR_INVALID_ARGUMENT,
              "wr_scene_memory_tag", "tag");
  EXPECT_FAIL(wr_scene_memory_tag(w.scene, WR_MEMORY_BVH_NODES, nullptr, nullptr), WR_ERROR_INVALID_ARGUMENT,
              "wr_scene_memory_tag", "out_host_bytes");
  EXPECT_FAIL(wr_scene_memory_tag(nullptr, WR_MEMORY_BVH_NODES, &host, nullptr), WR_ERROR_INVALID_ARGUMENT,
              "wr_scene_memory_tag", "scene");
  EXPECT_FAIL(wr_sensor_memory_tag(nullptr, WR_MEMORY_RAY_TEMPLATE, &host, nullptr), WR_ERROR_INVALID_ARGUMENT,
              "wr_sensor_memory_tag", "sensor");
  w.expect_intact();
}
