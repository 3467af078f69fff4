// wr_scene_memory / wr_sensor_memory against what operator new actually handed out.
//
// This executable replaces every form of the global operator new / delete (plain, array,
// nothrow, sized, aligned, and their combinations; C++17 [new.delete]) with versions that count
// the live bytes REQUESTED (not malloc_usable_size, which includes the allocator's rounding).
// libwr.so is a shared object linked against the same libstdc++, and its undefined references
// to operator new/delete bind to the first definition in the global lookup scope, which is this
// executable's (ELF symbol interposition). So every byte the library allocates with new
// (including through its TrackedAllocator and std::make_unique) is counted here, and the
// ledger figures can be checked to the byte:
//   live bytes gained across wr_scene_create / wr_scene_load_obj == wr_scene_memory().host_bytes
//   live bytes gained across wr_sensor_create == wr_sensor_memory().host_bytes
//   releasing everything returns the live bytes to where they started.
// The first test case checks the interposition assumption itself, so nothing here can pass
// vacuously with counters that never move.
//
// Bookkeeping is map-free: each block carries a 16-byte header right in front of the pointer
// handed out, holding the requested size and the offset back to the start of the underlying
// malloc / posix_memalign block. For alignments above 16 the offset is the alignment itself
// (the block is allocated with that alignment, so base + alignment is aligned too), which
// keeps the header inside the block whatever the alignment.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "random_scenes.h"
#include "replaced_operator_new.h"

// ---- counting operator new / delete ------------------------------------------------------

namespace {

std::atomic<int64_t> g_live_bytes{0};        // requested bytes currently allocated
std::atomic<uint64_t> g_alloc_calls{0};      // every successful operator new
std::atomic<uint64_t> g_aligned_calls{0};    // the align_val_t forms among them
std::atomic<uint64_t> g_free_calls{0};       // every operator delete of a non-null pointer
std::atomic<uint64_t> g_size_mismatches{0};  // sized deletes whose size differs from the request

struct BlockHeader {
  size_t offset;  // user pointer - start of the malloc'd block
  size_t size;    // bytes requested by the caller
};
constexpr size_t kHeaderBytes = 16;  // keeps plain blocks at malloc's 16-byte alignment
static_assert(sizeof(BlockHeader) <= kHeaderBytes, "header must fit in front of the block");
static_assert(alignof(std::max_align_t) <= kHeaderBytes, "plain new must stay max-aligned");

}  // namespace

// The hooks of replaced_operator_new.h.
void* wr_test::try_allocate(size_t size, size_t alignment) noexcept {
  const bool over_aligned = alignment > kHeaderBytes;
  const size_t offset = over_aligned ? alignment : kHeaderBytes;
  if (size > SIZE_MAX - offset) return nullptr;
  void* base = nullptr;
  if (over_aligned) {
    if (posix_memalign(&base, alignment, offset + size) != 0) return nullptr;
  } else {
    base = std::malloc(offset + size);
    if (!base) return nullptr;
  }
  char* user = static_cast<char*>(base) + offset;
  const BlockHeader header{offset, size};
  std::memcpy(user - sizeof(BlockHeader), &header, sizeof header);
  g_live_bytes.fetch_add(static_cast<int64_t>(size), std::memory_order_relaxed);
  g_alloc_calls.fetch_add(1, std::memory_order_relaxed);
  return user;
}

// expected_size: the size a sized delete passed, or SIZE_MAX for the unsized forms.
void wr_test::release(void* p, size_t expected_size) noexcept {
  char* user = static_cast<char*>(p);
  BlockHeader header;
  std::memcpy(&header, user - sizeof(BlockHeader), sizeof header);
  if (expected_size != SIZE_MAX && expected_size != header.size)
    g_size_mismatches.fetch_add(1, std::memory_order_relaxed);
  g_live_bytes.fetch_sub(static_cast<int64_t>(header.size), std::memory_order_relaxed);
  g_free_calls.fetch_add(1, std::memory_order_relaxed);
  std::free(user - header.offset);
}

void wr_test::note_aligned_new() noexcept { g_aligned_calls.fetch_add(1, std::memory_order_relaxed); }

// ---- helpers -------------------------------------------------------------------------------
//
// No Catch2 macro runs between two readings of the live-byte counter: INFO and the assertion
// macros keep reusable string streams and message vectors whose capacity persists, which
// would show up as bytes the library never allocated. Statuses and readings are stored and
// asserted afterwards.

namespace {

int64_t live() { return g_live_bytes.load(); }

// Keeps the compiler from eliding the self-test's allocations (-fallocation-dce).
void* volatile g_sink = nullptr;

struct Context {
  wr_context handle = nullptr;
  explicit Context(uint32_t threads) { REQUIRE_OK(wr_context_create_cpu(threads, &handle)); }
  ~Context() { wr_context_release(handle); }
};

std::string source_dir() {
  const char* dir = std::getenv("WR_SOURCE_DIR");  // set by CTest; else run from the source root
  return dir ? dir : ".";
}

// The fields every CPU-context object must satisfy whatever it is.
void check_cpu_stats_shape(const wr_memory_stats& m) {
  CHECK(m.device_bytes == 0);
  CHECK(m.per_env_bytes == 0);
  CHECK(m.shared_bytes == m.host_bytes + m.device_bytes);
  CHECK(m.host_bytes > 0);
}

wr_camera_desc pinhole(uint32_t width, uint32_t height) {
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, width, height, 87.0f);
  return desc;
}

// One create -> query -> release cycle, with the counter read between the steps.
struct Cycle {
  wr_status create_status = WR_ERROR_INTERNAL, memory_status = WR_ERROR_INTERNAL;
  wr_memory_stats stats{};
  int64_t gained = 0;          // live bytes added by the create call
  int64_t query_changed = 0;   // live bytes the memory query itself changed
  int64_t after_release = 0;   // live bytes left once released (relative to before the create)
  uint64_t alloc_calls = 0;    // operator new calls during the create
  uint64_t aligned_calls = 0;  // of which the align_val_t forms
  std::string error;           // wr_last_error() when the create failed
};

// create(&handle) -> status; memory(handle, &stats) -> status; release(handle).
template <class Handle, class Create, class Memory, class Release>
Cycle run_cycle(Create create, Memory memory, Release release, Handle* keep = nullptr) {
  Cycle c;
  Handle handle = nullptr;
  const uint64_t calls0 = g_alloc_calls.load(), aligned0 = g_aligned_calls.load();
  const int64_t start = live();
  c.create_status = create(&handle);
  const int64_t created = live();
  c.alloc_calls = g_alloc_calls.load() - calls0;
  c.aligned_calls = g_aligned_calls.load() - aligned0;
  if (c.create_status == WR_SUCCESS) c.memory_status = memory(handle, &c.stats);
  const int64_t queried = live();
  if (keep) {
    *keep = handle;
  } else {
    release(handle);
  }
  const int64_t released = live();
  c.gained = created - start;
  c.query_changed = queried - created;
  c.after_release = released - start;
  if (c.create_status != WR_SUCCESS) c.error = wr_last_error();
  return c;
}

Cycle scene_cycle(wr_context context, const wr_test::SoupScene& s) {
  return run_cycle<wr_scene>(
      [&](wr_scene* out) {
        return wr_scene_create(context, s.vertices.data(), s.vertices.size() / 3, s.indices.data(), s.num_triangles(),
                               out);
      },
      wr_scene_memory, wr_scene_release);
}

Cycle sensor_cycle(wr_scene scene, const wr_camera_desc& desc, uint32_t num_envs) {
  return run_cycle<wr_sensor>([&](wr_sensor* out) { return wr_sensor_create(scene, &desc, num_envs, out); },
                              wr_sensor_memory, wr_sensor_release);
}

// The checks every successful cycle must pass.
void check_cycle(const Cycle& c) {
  INFO("create error: " << c.error);
  REQUIRE(c.create_status == WR_SUCCESS);
  REQUIRE(c.memory_status == WR_SUCCESS);
  CHECK(static_cast<int64_t>(c.stats.host_bytes) == c.gained);
  CHECK(c.query_changed == 0);
  CHECK(c.after_release == 0);
  check_cpu_stats_shape(c.stats);
}

wr_scene make_scene(wr_context context, const wr_test::SoupScene& s) {
  wr_scene scene = nullptr;
  REQUIRE_OK(
      wr_scene_create(context, s.vertices.data(), s.vertices.size() / 3, s.indices.data(), s.num_triangles(), &scene));
  return scene;
}

}  // namespace

// ---- tests -----------------------------------------------------------------------------------

TEST_CASE("memory: the counting operator new sees every form, and libwr.so's allocations", "[memory]") {
  SECTION("every form counts the requested bytes and returns suitably aligned memory") {
    const int64_t start = live();
    void* a = ::operator new(100);
    g_sink = a;
    const int64_t after_a = live() - start;
    void* b = ::operator new[](3, std::nothrow);
    g_sink = b;
    void* c = ::operator new(40, std::align_val_t(256));
    g_sink = c;
    void* d = ::operator new[](7, std::align_val_t(4), std::nothrow);  // below 16: still valid
    g_sink = d;
    void* e = ::operator new(0);  // must be a unique non-null pointer
    g_sink = e;
    const int64_t after_all = live() - start;
    ::operator delete (a, size_t{100});
    ::operator delete[](b, std::nothrow);
    ::operator delete (c, size_t{40}, std::align_val_t(256));
    ::operator delete[](d, std::align_val_t(4), std::nothrow);
    ::operator delete(e);
    const int64_t after_free = live() - start;
    CHECK(after_a == 100);
    CHECK(after_all == 150);
    CHECK(after_free == 0);
    CHECK(reinterpret_cast<uintptr_t>(a) % alignof(std::max_align_t) == 0);
    CHECK(reinterpret_cast<uintptr_t>(c) % 256 == 0);
    CHECK(reinterpret_cast<uintptr_t>(d) % 4 == 0);
    CHECK(e != nullptr);
  }
  SECTION("a new-expression in this executable goes through the hooks") {
    const uint64_t calls0 = g_alloc_calls.load();
    const int64_t start = live();
    auto* v = new std::vector<double>(1000);
    g_sink = v;
    const int64_t held = live() - start;
    const uint64_t calls = g_alloc_calls.load() - calls0;
    delete v;
    const int64_t after = live() - start;
    CHECK(held == static_cast<int64_t>(sizeof(std::vector<double>) + 1000 * sizeof(double)));
    CHECK(calls == 2);
    CHECK(after == 0);
  }
  SECTION("libwr.so's allocations are interposed: wr_scene_create moves the counters") {
    Context ctx(1);
    const wr_test::SoupScene s = wr_test::random_soup(3, 50);
    const Cycle c = scene_cycle(ctx.handle, s);
    check_cycle(c);
    // A scene holds at least the 36 bytes of vertices per triangle in leaf order, so the count
    // must move by more than that; and the BVH arrays come from TrackedAllocator, which uses
    // the aligned operator new.
    CHECK(c.gained >= static_cast<int64_t>(50 * 36));
    CHECK(c.alloc_calls >= 5);
    CHECK(c.aligned_calls >= 3);
  }
  CHECK(g_size_mismatches.load() == 0);
}

TEST_CASE("memory: a scene's host_bytes equal the bytes wr_scene_create allocated and kept", "[memory]") {
  struct Case {
    const char* name;
    wr_test::SoupScene mesh;
  };
  std::vector<Case> cases;
  cases.push_back({"1 triangle", wr_test::random_soup(1, 1)});
  cases.push_back({"7 triangles", wr_test::random_soup(2, 7)});
  cases.push_back({"300-triangle soup", wr_test::random_soup(3, 300)});
  cases.push_back({"8 x 8 heightfield", wr_test::random_heightfield(4, 8, 5.0f)});
  // Above the builder's parallel threshold (16384 triangles): subtrees built on their own
  // threads, whose scratch must be gone when the call returns.
  cases.push_back({"100 x 100 heightfield (20000 triangles)", wr_test::random_heightfield(5, 100, 20.0f)});
  cases.push_back({"30000-triangle soup", wr_test::random_soup(6, 30000)});

  for (uint32_t threads : {1u, 2u}) {
    Context ctx(threads);
    for (const Case& c : cases) {
      INFO(c.name << ", context threads " << threads);
      const Cycle cycle = scene_cycle(ctx.handle, c.mesh);
      check_cycle(cycle);
      // At least the leaf blocks (each vertex in use once, 12 bytes, and 8 bytes per
      // triangle: corner indices and id) and the root node.
      const std::set<uint32_t> used(c.mesh.indices.begin(), c.mesh.indices.end());
      CHECK(cycle.stats.host_bytes >= c.mesh.num_triangles() * 8 + used.size() * 12 + 32);
    }
  }
  CHECK(g_size_mismatches.load() == 0);
}

TEST_CASE("memory: a sensor's host_bytes equal the bytes wr_sensor_create allocated and kept", "[memory]") {
  Context ctx(2);
  wr_scene scene = make_scene(ctx.handle, wr_test::random_heightfield(7, 16, 8.0f));
  wr_memory_stats scene_stats{};
  REQUIRE_OK(wr_scene_memory(scene, &scene_stats));

  struct Size {
    uint32_t width, height;
  };
  uint64_t bytes_1x1 = 0;
  for (const Size sz : {Size{1, 1}, Size{17, 5}, Size{64, 48}, Size{320, 240}, Size{1, 1000}}) {
    for (uint32_t num_envs : {1u, 3u, 4096u}) {
      INFO(sz.width << " x " << sz.height << ", " << num_envs << " envs");
      const Cycle c = sensor_cycle(scene, pinhole(sz.width, sz.height), num_envs);
      check_cycle(c);
      // The ray template is one 16-byte TemplateRay per pixel; everything else (the objects,
      // counters) is the same whatever the image size, and nothing depends on num_envs.
      if (bytes_1x1 == 0) bytes_1x1 = c.stats.host_bytes;  // the first size is 1 x 1
      CHECK(c.stats.host_bytes - bytes_1x1 == 16ull * (uint64_t(sz.width) * sz.height - 1));
      // The sensor's figures exclude its scene's, and leave them alone.
      wr_memory_stats now{};
      REQUIRE_OK(wr_scene_memory(scene, &now));
      CHECK(now.host_bytes == scene_stats.host_bytes);
    }
  }
  wr_scene_release(scene);
  CHECK(g_size_mismatches.load() == 0);
}

TEST_CASE("memory: nothing grows with num_envs: 1 env and 4096 envs report the same bytes", "[memory]") {
  Context ctx(1);
  wr_scene scene = make_scene(ctx.handle, wr_test::random_soup(8, 500));
  const wr_camera_desc desc = pinhole(96, 64);
  wr_sensor one = nullptr, many = nullptr;
  auto create_one = [&](wr_sensor* out) { return wr_sensor_create(scene, &desc, 1, out); };
  auto create_many = [&](wr_sensor* out) { return wr_sensor_create(scene, &desc, 4096, out); };
  const int64_t start = live();
  // Both alive at once: the second sensor's bytes are its own, not a reuse of the first's.
  const Cycle a = run_cycle<wr_sensor>(create_one, wr_sensor_memory, wr_sensor_release, &one);
  const Cycle b = run_cycle<wr_sensor>(create_many, wr_sensor_memory, wr_sensor_release, &many);
  const int64_t both = live() - start;
  wr_sensor_release(many);
  wr_sensor_release(one);
  const int64_t after = live() - start;
  REQUIRE(a.create_status == WR_SUCCESS);
  REQUIRE(b.create_status == WR_SUCCESS);
  CHECK(static_cast<int64_t>(a.stats.host_bytes) == a.gained);
  CHECK(static_cast<int64_t>(b.stats.host_bytes) == b.gained);
  CHECK(a.gained == b.gained);
  CHECK(a.stats.host_bytes == b.stats.host_bytes);
  CHECK(a.stats.device_bytes == b.stats.device_bytes);
  CHECK(a.stats.shared_bytes == b.stats.shared_bytes);
  CHECK(a.stats.per_env_bytes == 0);
  CHECK(b.stats.per_env_bytes == 0);
  CHECK(both == a.gained + b.gained);
  CHECK(after == 0);
  wr_scene_release(scene);
}

TEST_CASE("memory: releasing in any order returns every byte", "[memory]") {
  const wr_test::SoupScene mesh = wr_test::random_heightfield(9, 12, 6.0f);
  const wr_camera_desc desc = pinhole(40, 30);
  for (int order = 0; order < 3; ++order) {
    INFO("release order " << order);
    int64_t mark[6] = {};
    wr_memory_stats scene_stats{}, sensor_stats{};
    wr_status st[5] = {};
    mark[0] = live();
    wr_context context = nullptr;
    st[0] = wr_context_create_cpu(2, &context);
    mark[1] = live();  // after the context (a thread pool: not accounted to any scene)
    wr_scene scene = nullptr;
    st[1] = wr_scene_create(context, mesh.vertices.data(), mesh.vertices.size() / 3, mesh.indices.data(),
                            mesh.num_triangles(), &scene);
    mark[2] = live();
    wr_sensor sensor = nullptr;
    st[2] = wr_sensor_create(scene, &desc, 8, &sensor);
    mark[3] = live();
    st[3] = wr_scene_memory(scene, &scene_stats);
    st[4] = wr_sensor_memory(sensor, &sensor_stats);
    const int64_t scene_bytes = mark[2] - mark[1], sensor_bytes = mark[3] - mark[2];
    if (order == 0) {  // children first
      wr_sensor_release(sensor);
      mark[4] = live() - mark[1];  // expect the scene's bytes
      wr_scene_release(scene);
      mark[5] = live() - mark[1];  // expect 0
      wr_context_release(context);
    } else if (order == 1) {  // parents first: the sensor keeps the scene (and its bytes) alive
      wr_context_release(context);
      wr_scene_release(scene);
      mark[4] = live() - mark[1];  // expect scene + sensor
      mark[5] = 0;
      wr_sensor_release(sensor);
    } else {  // scene, then sensor, then context
      wr_scene_release(scene);
      mark[4] = live() - mark[1];  // expect scene + sensor
      wr_sensor_release(sensor);
      mark[5] = live() - mark[1];  // expect 0
      wr_context_release(context);
    }
    const int64_t end = live() - mark[0];
    for (wr_status s : st) REQUIRE(s == WR_SUCCESS);
    CHECK(static_cast<int64_t>(scene_stats.host_bytes) == scene_bytes);
    CHECK(static_cast<int64_t>(sensor_stats.host_bytes) == sensor_bytes);
    CHECK(mark[4] == (order == 0 ? scene_bytes : scene_bytes + sensor_bytes));
    CHECK(mark[5] == 0);
    CHECK(end == 0);
  }
}

TEST_CASE("memory: wr_scene_load_obj keeps exactly host_bytes (parse temporaries freed)", "[memory]") {
  Context ctx(2);
  const std::string path = source_dir() + "/assets/parkour_small.obj";
  const Cycle c = run_cycle<wr_scene>([&](wr_scene* out) { return wr_scene_load_obj(ctx.handle, path.c_str(), out); },
                                      wr_scene_memory, wr_scene_release);
  check_cycle(c);
  // Parsing allocates far more than it keeps (the file's bytes, the growing mesh),
  // so the equality above really says the temporaries are gone.
  CHECK(c.alloc_calls > 10);

  wr_scene scene = nullptr;
  REQUIRE_OK(wr_scene_load_obj(ctx.handle, path.c_str(), &scene));
  uint64_t triangles = 0;
  REQUIRE_OK(wr_scene_num_triangles(scene, &triangles));
  wr_scene_release(scene);
  CHECK(triangles == 7368);  // assets/README.md
  const double per_triangle = double(c.stats.host_bytes) / double(triangles);
  std::printf("parkour_small.obj: %llu triangles, scene host_bytes %llu = %.2f bytes per triangle\n",
              static_cast<unsigned long long>(triangles), static_cast<unsigned long long>(c.stats.host_bytes),
              per_triangle);
  CHECK(per_triangle <= 100.0);
  CHECK(g_size_mismatches.load() == 0);
}

TEST_CASE("memory: failed creates keep nothing but the last error message", "[memory]") {
  Context ctx(1);
  const float vertices[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const uint32_t bad_indices[3] = {0, 1, 9};
  const uint32_t good_indices[3] = {0, 1, 2};
  wr_scene scene = nullptr;
  REQUIRE_OK(wr_scene_create(ctx.handle, vertices, 3, good_indices, 1, &scene));
  wr_camera_desc bad_desc = pinhole(8, 8);
  bad_desc.fx = -1.0f;
  const std::string missing = source_dir() + "/assets/no_such_file.obj";

  // The first failure of each kind may grow wr_last_error()'s storage; identical failures after
  // it replace the message with one of the same length, so any other growth is a leak.
  wr_scene no_scene = nullptr;
  wr_sensor no_sensor = nullptr;
  auto fail_scene = [&] { return wr_scene_create(ctx.handle, vertices, 3, bad_indices, 1, &no_scene); };
  auto fail_sensor = [&] { return wr_sensor_create(scene, &bad_desc, 1, &no_sensor); };
  auto fail_obj = [&] { return wr_scene_load_obj(ctx.handle, missing.c_str(), &no_scene); };
  int64_t growth[3] = {};
  wr_status last[3] = {};
  int k = 0;
  auto measure = [&](auto&& fail) {
    last[k] = fail();
    const int64_t start = live();
    for (int i = 0; i < 10; ++i) last[k] = fail();
    growth[k++] = live() - start;
  };
  measure(fail_scene);
  measure(fail_sensor);
  measure(fail_obj);
  CHECK(last[0] == WR_ERROR_INVALID_ARGUMENT);
  CHECK(last[1] == WR_ERROR_INVALID_ARGUMENT);
  CHECK(last[2] == WR_ERROR_IO);
  CHECK(growth[0] == 0);
  CHECK(growth[1] == 0);
  CHECK(growth[2] == 0);
  CHECK(no_scene == nullptr);
  CHECK(no_sensor == nullptr);
  wr_scene_release(scene);
}
