// Allocation-failure injection: for every k, the k-th allocation of a creating call (context,
// scene from arrays, scene from an OBJ file or a height field, sensor, sensor with the RL pipeline's history,
// resampling taps and scratch) fails, and then
//   - the call returns WR_ERROR_OUT_OF_MEMORY with a message that starts with its name;
//   - it wrote no handle, and left no byte behind (live bytes are where they were; under
//     AddressSanitizer, LeakSanitizer checks the same at exit);
//   - every object that existed before works as before: the same memory figures, the same
//     image bit for bit, the same explicit-ray hits.
// k runs from 1 until the call makes fewer than k allocations and succeeds.
//
// Where the failures come from: this executable replaces the global operator new / delete
// (replaced_operator_new.h; libwr.so's calls bind to them by ELF symbol interposition, as in
// test_memory_accounting.cpp). That is every allocation the library makes: its tracked arrays
// (TrackedAllocator calls ::operator new), the handles (std::make_unique), every std::string,
// std::vector scratch, std::thread's start-up state, the OBJ reader's arrays and
// std::filesystem's paths. A hook inside TrackedAllocator would see only the tracked arrays, and
// it would be code in the library that only tests use. What this does not reach is what libc
// allocates with malloc on the library's behalf (fopen's FILE, a thread's stack and TLS): those
// fail as I/O or thread errors, not through operator new.
//
// Each attempt runs on a thread of its own, so that the thread-local wr_last_error() string the
// failure writes is freed again when the thread ends, and the live-byte count can be compared
// exactly.
#include <malloc.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "c_api_world.h"
#include "random_scenes.h"
#include "replaced_operator_new.h"

using namespace wr_test::c_api;

// ---- the failing operator new --------------------------------------------------------------

namespace {

std::atomic<bool> g_armed{false};      // count (and fail) allocations only while armed
std::atomic<uint64_t> g_count{0};      // allocations seen since armed
std::atomic<uint64_t> g_fail_at{0};    // the 1-based allocation to fail
std::atomic<bool> g_fired{false};      // that allocation was reached (and failed)
std::atomic<int64_t> g_live_bytes{0};  // usable bytes of the blocks now allocated

}  // namespace

// Blocks come from malloc / posix_memalign and are measured by malloc_usable_size: a block's
// usable size is the same when it is freed as when it was handed out, so the sum is exact for
// telling whether anything is left behind (glibc and the sanitizers' allocators both provide it).
void* wr_test::try_allocate(size_t size, size_t alignment) noexcept {
  if (g_armed.load(std::memory_order_relaxed) && g_count.fetch_add(1) + 1 == g_fail_at.load()) {
    g_fired.store(true);
    return nullptr;
  }
  if (size == 0) size = 1;
  void* p = nullptr;
  if (alignment > alignof(std::max_align_t)) {
    if (posix_memalign(&p, alignment, size) != 0) return nullptr;
  } else {
    p = std::malloc(size);
  }
  if (p) g_live_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(p)));
  return p;
}

void wr_test::release(void* p, size_t) noexcept {
  g_live_bytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)));
  std::free(p);
}

void wr_test::note_aligned_new() noexcept {}

// ---- helpers -------------------------------------------------------------------------------

namespace {

// What one attempt saw. Plain data only: filled on the attempt's thread, read on the test's.
struct Attempt {
  wr_status status = WR_ERROR_INTERNAL;
  bool fired = false;           // the k-th allocation happened (and failed)
  bool handle_written = false;  // the out handle changed
  int64_t leaked = 0;           // live bytes after the attempt minus before
  char message[512] = {};       // wr_last_error() of a failed call
};

// Runs create(&handle) on a thread of its own with allocation k failing (k = 0: none), then
// releases what it made (on success). `Handle` is a wr_* handle type.
template <class Handle, class Create, class Release>
Attempt attempt(uint64_t k, Create create, Release release) {
  Attempt a;
  const int64_t before = g_live_bytes.load();
  std::thread([&] {
    Handle sentinel = reinterpret_cast<Handle>(static_cast<uintptr_t>(0x5a5a5a50));
    Handle handle = sentinel;
    g_count.store(0);
    g_fired.store(false);
    g_fail_at.store(k);
    g_armed.store(true);
    a.status = create(&handle);
    g_armed.store(false);
    a.fired = g_fired.load();
    a.handle_written = handle != sentinel;
    std::strncpy(a.message, wr_last_error(), sizeof a.message - 1);
    if (a.status == WR_SUCCESS) release(handle);
  }).join();
  a.leaked = g_live_bytes.load() - before;
  return a;
}

// The objects that exist before the failing calls, and what they answer when all is well.
struct Witness {
  World world;  // context (2 threads), room scene, 5-env sensor, its baseline image
  wr_memory_stats scene_memory{}, sensor_memory{};
  std::vector<float> t_ref;
  Witness() {
    REQUIRE(wr_scene_memory(world.scene, &scene_memory) == WR_SUCCESS);
    REQUIRE(wr_sensor_memory(world.sensor, &sensor_memory) == WR_SUCCESS);
    t_ref = intersect();
  }
  std::vector<float> intersect() const {
    const float o[6] = {-3, 0, 2, 0, 1, 0.5f}, d[6] = {0, 0, -1, 1, 0, 0};
    std::vector<float> t(2, kSentinel);
    REQUIRE(wr_scene_intersect(world.scene, o, d, nullptr, 2, t.data(), nullptr, nullptr) == WR_SUCCESS);
    return t;
  }
  void expect_intact() const {
    world.expect_intact();  // answers as before, renders the baseline image bit for bit
    wr_memory_stats m{};
    REQUIRE(wr_scene_memory(world.scene, &m) == WR_SUCCESS);
    CHECK(std::memcmp(&m, &scene_memory, sizeof m) == 0);
    REQUIRE(wr_sensor_memory(world.sensor, &m) == WR_SUCCESS);
    CHECK(std::memcmp(&m, &sensor_memory, sizeof m) == 0);
    CHECK(same_bits(intersect(), t_ref));
  }
};

// Fails every allocation of create in turn (see the file comment); returns how many it made.
template <class Handle, class Create, class Release>
uint64_t fail_each_allocation(const Witness& witness, const char* function, Create create, Release release) {
  // Once without failures: it must work, and leave nothing behind once released.
  const Attempt clean = attempt<Handle>(0, create, release);
  INFO(function << " without failures: " << clean.message);
  REQUIRE(clean.status == WR_SUCCESS);
  CHECK(clean.leaked == 0);

  uint64_t k = 1;
  for (;; ++k) {
    const Attempt a = attempt<Handle>(k, create, release);
    if (!a.fired) {  // the call made fewer than k allocations
      INFO(function << ": allocation " << k << " never came: " << a.message);
      CHECK(a.status == WR_SUCCESS);
      CHECK(a.leaked == 0);
      break;
    }
    // Asserted only when wrong: thousands of passing CHECKs would swamp the report.
    const std::string message = a.message;
    const bool named = message.rfind(std::string(function) + ": ", 0) == 0 &&
                       message.find("[WR_ERROR_OUT_OF_MEMORY]") != std::string::npos;
    if (a.status != WR_ERROR_OUT_OF_MEMORY || !named || a.handle_written || a.leaked != 0) {
      INFO(function << " with allocation " << k << " failing: " << wr_status_string(a.status) << ", \"" << message
                    << "\", handle written: " << a.handle_written << ", leaked " << a.leaked << " bytes");
      CHECK(a.status == WR_ERROR_OUT_OF_MEMORY);
      CHECK(named);
      CHECK_FALSE(a.handle_written);
      CHECK(a.leaked == 0);
    }
    witness.expect_intact();
  }
  return k - 1;
}

// A concave polygon (ear clipping), a quad, a triangle and a line: every path of the loader.
const char* const kObjText =
    "# allocation-failure test\n"
    "mtllib missing.mtl\n"
    "o shape\n"
    "v 0 0 0\nv 4 0 0\nv 4 4 0\nv 2 1 0\nv 0 4 0\n"
    "v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
    "vn 0 0 1\nvt 0 0\n"
    "f 1 2 3 4 5\n"
    "g quad\n"
    "f 6//1 7//1 8//1 9//1\n"
    "f 1/1 2/1 6/1\n"
    "l 1 2\n";

}  // namespace

TEST_CASE("allocation failures: the hooks see libwr's allocations", "[allocation_failures]") {
  // wr_scene_create through libwr.so must allocate through this executable's operator new, or
  // every case below would pass without failing anything.
  const Witness witness;
  const Attempt a = attempt<wr_scene>(
      1,
      [&](wr_scene* out) {
        return wr_scene_create(witness.world.context, kRoomVertices.data(), kRoomVertices.size() / 3,
                               kRoomIndices.data(), kRoomIndices.size() / 3, out);
      },
      wr_scene_release);
  CHECK(a.fired);
  CHECK(a.status == WR_ERROR_OUT_OF_MEMORY);
}

TEST_CASE("allocation failures: wr_context_create_cpu", "[allocation_failures]") {
  const Witness witness;
  for (uint32_t threads : {1u, 4u}) {
    INFO(threads << " threads");
    const uint64_t n = fail_each_allocation<wr_context>(
        witness, "wr_context_create_cpu", [&](wr_context* out) { return wr_context_create_cpu(threads, out); },
        wr_context_release);
    CHECK(n >= 3);
  }
}

TEST_CASE("allocation failures: wr_scene_create, small and large enough for a parallel build",
          "[allocation_failures]") {
  const Witness witness;
  // 4 build threads on a scene past every threshold of the builder's own threads: failures then
  // also strike inside those threads, and while they run.
  wr_context four = nullptr;
  REQUIRE(wr_context_create_cpu(4, &four) == WR_SUCCESS);
  const wr_test::SoupScene small = wr_test::random_soup(3, 200);
  const wr_test::SoupScene large = wr_test::random_heightfield(4, 190, 30.0f);  // 72,200 triangles
  for (const auto* scene : {&small, &large}) {
    for (wr_context context : {witness.world.context, four}) {
      INFO(scene->num_triangles() << " triangles, context " << (context == four ? "of 4 threads" : "of 2"));
      const uint64_t n = fail_each_allocation<wr_scene>(
          witness, "wr_scene_create",
          [&](wr_scene* out) {
            return wr_scene_create(context, scene->vertices.data(), scene->vertices.size() / 3, scene->indices.data(),
                                   scene->num_triangles(), out);
          },
          wr_scene_release);
      CHECK(n >= 5);
    }
  }
  wr_context_release(four);
}

TEST_CASE("allocation failures: wr_scene_load_obj", "[allocation_failures]") {
  const Witness witness;
  const TempDir dir;
  const std::string path = dir.write("scene.obj", kObjText);
  const uint64_t n = fail_each_allocation<wr_scene>(
      witness, "wr_scene_load_obj",
      [&](wr_scene* out) { return wr_scene_load_obj(witness.world.context, path.c_str(), out); }, wr_scene_release);
  CHECK(n >= 10);
}

TEST_CASE("allocation failures: wr_scene_create_heightfield, with and without a base", "[allocation_failures]") {
  const Witness witness;
  std::vector<float> heights(23 * 17);
  for (size_t i = 0; i < heights.size(); ++i) heights[i] = float(i % 7) * 0.1f;
  for (const float base : {0.0f, 0.5f}) {
    INFO("base_depth " << base);
    wr_heightfield_desc d;
    wr_heightfield_desc_init(&d);
    d.heights = heights.data(), d.num_x = 23, d.num_y = 17, d.spacing_x = 0.1f, d.spacing_y = 0.1f, d.base_depth = base;
    const uint64_t n = fail_each_allocation<wr_scene>(
        witness, "wr_scene_create_heightfield",
        [&](wr_scene* out) { return wr_scene_create_heightfield(witness.world.context, &d, out); }, wr_scene_release);
    CHECK(n >= 7);  // the mesh's two arrays, then what wr_scene_create allocates
  }
}

TEST_CASE("allocation failures: wr_scene_create_instanced, and a sensor on it", "[allocation_failures]") {
  // The witness's scene serves as the terrain and as the prototype of every instance.
  const Witness witness;
  const uint32_t slot_prototypes[] = {0, 0, 0}, slot_groups[] = {0, 1, 2}, global_prototypes[] = {0};
  wr_instanced_scene_desc d;
  wr_instanced_scene_desc_init(&d);
  d.terrain = witness.world.scene, d.prototypes = &witness.world.scene, d.num_prototypes = 1;
  d.slot_prototypes = slot_prototypes, d.slot_groups = slot_groups, d.num_slots = 3;
  d.global_prototypes = global_prototypes, d.num_globals = 1;
  const uint64_t n = fail_each_allocation<wr_scene>(
      witness, "wr_scene_create_instanced",
      [&](wr_scene* out) { return wr_scene_create_instanced(witness.world.context, &d, out); }, wr_scene_release);
  CHECK(n >= 5);  // the handle, the table's three arrays, the prototypes' handles, the device's table
  wr_scene instanced = nullptr;
  REQUIRE(wr_scene_create_instanced(witness.world.context, &d, &instanced) == WR_SUCCESS);
  wr_camera_desc cd;
  wr_camera_desc_pinhole(&cd, 40, 30, 80.0f);
  const uint64_t m = fail_each_allocation<wr_sensor>(
      witness, "wr_sensor_create_ex",
      [&](wr_sensor* out) { return wr_sensor_create_ex(instanced, &cd, nullptr, 7, out); }, wr_sensor_release);
  CHECK(m >= 4);  // a plain sensor's, and each render thread's place for the prepared instances
  wr_scene_release(instanced);
}

TEST_CASE("allocation failures: wr_sensor_create", "[allocation_failures]") {
  const Witness witness;
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, 40, 30, 80.0f);
  const uint64_t n = fail_each_allocation<wr_sensor>(
      witness, "wr_sensor_create", [&](wr_sensor* out) { return wr_sensor_create(witness.world.scene, &d, 7, out); },
      wr_sensor_release);
  CHECK(n >= 3);
}

TEST_CASE("allocation failures: wr_sensor_create_ex with the pipeline's history, taps and scratch",
          "[allocation_failures]") {
  // Each option set allocates something the plain sensor does not: the history rings and their
  // frame counts, the resampling taps of every output column and row, and the per-thread camera
  // images (the crop's samples; with edge dropout, the clean depth around the crop).
  const Witness witness;
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, 40, 30, 80.0f);
  wr_sensor_options history, resampled, edges;
  wr_sensor_options_init(&history);
  history.history_length = 3;
  wr_sensor_options_init(&resampled);
  resampled.crop_x = 2, resampled.crop_width = 34, resampled.crop_height = 28;
  resampled.out_width = 17, resampled.out_height = 9, resampled.resample = WR_RESAMPLE_BICUBIC;
  resampled.dtype = WR_DTYPE_FLOAT16;
  edges = resampled;
  edges.resample = WR_RESAMPLE_AREA, edges.history_length = 2;
  edges.noise.edge_threshold = 0.2f, edges.noise.edge_probability = 0.5f;
  for (const wr_sensor_options* options : {&history, &resampled, &edges}) {
    INFO("history " << options->history_length << ", resample " << options->resample << ", edge dropout "
                    << options->noise.edge_probability);
    const uint64_t n = fail_each_allocation<wr_sensor>(
        witness, "wr_sensor_create_ex",
        [&](wr_sensor* out) { return wr_sensor_create_ex(witness.world.scene, &d, options, 7, out); },
        wr_sensor_release);
    CHECK(n >= 4);
  }
}
