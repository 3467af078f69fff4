// Contract tests of the public C API (include/wr/wr.h), through libwr.so only.
//
// Every error path: the returned status, a message that starts with the C function name and
// names the culprit (argument, camera field, triangle, vertex, env, file:line), and "nothing is
// lost": a failing render leaves the depth buffer untouched and every existing object renders
// the same image after any failure as before it. Plus the thread rules of wr_last_error and of
// rendering, releasing handles in any order, wr_status_string, wr_camera_desc_pinhole and the
// normalisation of non-unit quaternions.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "float_bits.h"

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kSentinel = -12345.0f;  // never a depth the test scenes can produce
constexpr double kPi = 3.14159265358979323846;

// An enum holding an out-of-range value, as a C caller can pass. Stored through memcpy because a
// C++ static_cast to a value outside an unfixed enum's range is undefined behaviour.
template <class E>
E bad_enum(int value) {
  static_assert(sizeof(E) == sizeof(int), "C enums of wr.h are int-sized");
  E e;
  std::memcpy(&e, &value, sizeof value);
  return e;
}

// Checks a failed call: its status, and a wr_last_error() starting with "<function>:" and
// containing every substring in `parts`.
void expect_error(wr_status got, wr_status want, const char* function, std::initializer_list<std::string> parts) {
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
#define EXPECT_FAIL(call, status, function, ...)        \
  do {                                                   \
    INFO("call: " #call);                                \
    const wr_status s_ = (call);                         \
    expect_error(s_, status, function, {__VA_ARGS__});   \
  } while (0)

using wr_test::same_bits;

bool all_sentinel(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::memcmp(&x, &kSentinel, sizeof x) == 0; });
}

// Hamilton product a * b of (w, x, y, z) quaternions.
std::array<float, 4> qmul(const std::array<float, 4>& a, const std::array<float, 4>& b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}

// Body orientation: yaw about world +Z, then pitch about the body +Y (positive = look down).
std::array<float, 4> yaw_pitch(double yaw_deg, double pitch_deg) {
  const double y = yaw_deg * kPi / 360.0, p = pitch_deg * kPi / 360.0;
  return qmul({float(std::cos(y)), 0.f, 0.f, float(std::sin(y))}, {float(std::cos(p)), 0.f, float(std::sin(p)), 0.f});
}

// A room every test camera sees whole (no pixel misses): a floor at z = 0 from x = -100 to 8, a
// tall wall at x = 8 and a sloped triangle in front of it. (8 x 3) vertices, (5 x 3) indices.
const std::vector<float> kRoomVertices = {
    -100, -100, 0,    8, -100, 0,   8, 100, 0,   -100, 100, 0,    // floor
    8,    -100, -100, 8, 100, -100, 8, 100, 100, 8,    -100, 100,  // wall
    4,    -1,   0,    4, 1,    0,   6, 0,   1.5f};                  // ramp (vertices 8..10)
const std::vector<uint32_t> kRoomIndices = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 8, 9, 10};

// (num_envs x 7) poses in w, x, y, z order: env i stands at a different place and looks a bit
// down with a different yaw, so every env's image differs.
std::vector<float> room_poses(uint32_t num_envs) {
  std::vector<float> p;
  for (uint32_t i = 0; i < num_envs; ++i) {
    const auto q = yaw_pitch(10.0 * (double(i) - 2.0), 10.0);
    p.insert(p.end(), {-2.0f + 0.5f * float(i), 0.3f * float(i) - 0.6f, 1.0f + 0.1f * float(i), q[0], q[1], q[2], q[3]});
  }
  return p;
}

wr_camera_desc room_desc() {
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
    wr_camera_desc got;
    uint32_t envs = 0;
    REQUIRE(wr_sensor_desc(sensor, &got, &envs) == WR_SUCCESS);
    CHECK(std::memcmp(&got, &desc, sizeof desc) == 0);
    CHECK(envs == kEnvs);
    CHECK(same_bits(render(), baseline));
  }
};

// Renders `poses` with `sensor`, which must succeed; (num_envs x height x width) floats.
std::vector<float> render_ok(wr_sensor sensor, const std::vector<float>& poses) {
  wr_camera_desc d;
  uint32_t n = 0;
  REQUIRE(wr_sensor_desc(sensor, &d, &n) == WR_SUCCESS);
  std::vector<float> out(std::size_t(n) * d.width * d.height, kSentinel);
  REQUIRE(wr_sensor_render(sensor, poses.data(), out.data(), nullptr) == WR_SUCCESS);
  return out;
}

// True when a and b agree within `rel` relative error, element by element (equal infinities agree).
bool close_rel(const std::vector<float>& a, const std::vector<float>& b, float rel) {
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

}  // namespace

// ---- status strings and the last-error message ------------------------------------------------

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

// ---- contexts ----------------------------------------------------------------------------------

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
    WARN("wr_context_create(WR_DEVICE_CUDA) succeeded: a CUDA device is present, so the "
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

// ---- scenes --------------------------------------------------------------------------------------

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

// ---- sensors -----------------------------------------------------------------------------------------

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
    wr_camera_desc got;
    uint32_t n = 0;
    REQUIRE(wr_sensor_desc(s, &got, &n) == WR_SUCCESS);
    CHECK(std::memcmp(&got, &d, sizeof d) == 0);
    CHECK(n == 3);
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

  // A bad pose in one env fails the whole call, naming the env, before anything is written.
  struct BadPose {
    uint32_t env;
    int component;  // 0..2 position, 3..6 quaternion (w, x, y, z)
    float value;
  };
  const BadPose bad[] = {{3, 0, kNaN},  {3, 2, kInf},  {3, 1, -kInf}, {3, 3, kNaN},
                         {3, 5, kInf},  {3, 6, -kInf}, {0, 4, kNaN},  {World::kEnvs - 1, 1, kNaN}};
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

  wr_camera_desc d;
  uint32_t n = 0;
  uint64_t overflows = 0;
  EXPECT_FAIL(wr_sensor_desc(nullptr, &d, &n), WR_ERROR_INVALID_ARGUMENT, "wr_sensor_desc", "sensor");
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
  REQUIRE(wr_scene_intersect(w.scene, o.data(), d.data(), tmax.data(), 3, t.data(), tri.data(), nullptr) ==
          WR_SUCCESS);
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
  const BadRay bad[] = {{&o, 2 * 3 + 0, kNaN, "ray 2"},   {&o, 1 * 3 + 2, kInf, "ray 1"},
                        {&d, 2 * 3 + 1, -kInf, "ray 2"},  {&d, 0 * 3 + 2, kNaN, "ray 0"},
                        {&tmax, 1, -1.0f, "ray 1"},       {&tmax, 2, kNaN, "ray 2"}};
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
  REQUIRE(wr_scene_intersect(w.scene, o.data(), d.data(), tmax.data(), 3, t.data(), tri.data(), nullptr) ==
          WR_SUCCESS);
  CHECK(same_bits(t, t_ok));
  CHECK(tri == tri_ok);
}

// ---- quaternions, lifetimes, threads, desc helper ----------------------------------------------------

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

TEST_CASE("handles release in any order; releasing NULL does nothing", "[c_api]") {
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
    CHECK((d.mount_rotation[0] == 1 && d.mount_rotation[1] == 0 && d.mount_rotation[2] == 0 &&
           d.mount_rotation[3] == 0));
  }
  wr_camera_desc_pinhole(nullptr, 640, 480, 90.0f);  // does nothing, and does not crash
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
