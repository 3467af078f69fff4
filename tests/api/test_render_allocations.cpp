// wr_sensor_render and wr_scene_intersect allocate nothing (wr.h: "render never allocates").
//
// This executable counts every heap allocation CALL in the process, from any thread:
//  - the global operator new / delete, every form (plain, array, nothrow, sized, aligned);
//  - malloc, calloc, realloc, free and the aligned C allocators (posix_memalign,
//    aligned_alloc, memalign, valloc, pvalloc).
// How malloc is counted, and why this way: the executable defines malloc & co. itself and
// forwards to glibc's exported __libc_malloc / __libc_free / ... entry points. glibc supports
// replacing malloc by ELF symbol interposition (glibc manual, "Replacing malloc"): libwr.so,
// libstdc++ and libc's own internal callers (strdup, snprintf's buffers, thread start-up) all
// reach malloc through the dynamic symbol table, where the executable's definition comes first.
// The alternatives are worse: the __malloc_hook family was removed in glibc 2.34, and a
// dlsym(RTLD_NEXT, "malloc") wrapper must survive dlsym itself calling calloc before it is
// resolved. Forwarding to __libc_* keeps every block a genuine glibc block, so a pointer that
// reached free by some path that bypassed the counters (say an internal libc alias) is still
// freed correctly; at worst such a path goes uncounted, which the operator new counters,
// which cannot be bypassed by libwr.so, back up. operator new forwards to __libc_malloc
// directly, so each allocation is counted exactly once, in the family that was called.
//
// The self-test case checks that the counters move for allocations made inside libwr.so
// (operator new from wr_scene_create) and inside libc (strdup), so a zero below is a real zero.
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "random_scenes.h"
#include "replaced_operator_new.h"

// ---- counting allocators -------------------------------------------------------------------

extern "C" {
// glibc's own entry points of its allocator (exported, GLIBC_2.2.5).
void* __libc_malloc(size_t size);
void __libc_free(void* p);
void* __libc_calloc(size_t n, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void* __libc_valloc(size_t size);
void* __libc_pvalloc(size_t size);
}

namespace {

std::atomic<uint64_t> g_new_calls{0};     // operator new, every form
std::atomic<uint64_t> g_delete_calls{0};  // operator delete of a non-null pointer
std::atomic<uint64_t> g_malloc_calls{0};  // malloc, calloc, realloc, and the aligned C forms
std::atomic<uint64_t> g_free_calls{0};    // free of a non-null pointer

void count(std::atomic<uint64_t>& counter) { counter.fetch_add(1, std::memory_order_relaxed); }

}  // namespace

// The hooks of replaced_operator_new.h. operator new forwards to __libc_malloc directly, so an
// allocation is counted once, as a new, and not again as a malloc.
void* wr_test::try_allocate(size_t size, size_t alignment) noexcept {
  if (size == 0) size = 1;  // a unique non-null pointer
  void* p = alignment > alignof(std::max_align_t) ? __libc_memalign(alignment, size) : __libc_malloc(size);
  if (p) count(g_new_calls);
  return p;
}

void wr_test::release(void* p, size_t) noexcept {
  count(g_delete_calls);
  __libc_free(p);
}

void wr_test::note_aligned_new() noexcept {}

extern "C" {
void* malloc(size_t size) noexcept {
  count(g_malloc_calls);
  return __libc_malloc(size);
}
void* calloc(size_t n, size_t size) noexcept {
  count(g_malloc_calls);
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t size) noexcept {
  count(g_malloc_calls);
  return __libc_realloc(p, size);
}
void free(void* p) noexcept {
  if (p) count(g_free_calls);
  __libc_free(p);
}
void* memalign(size_t alignment, size_t size) noexcept {
  count(g_malloc_calls);
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) noexcept {
  count(g_malloc_calls);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  count(g_malloc_calls);
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) return EINVAL;
  void* p = __libc_memalign(alignment, size);
  if (!p && size != 0) return ENOMEM;
  *out = p;
  return 0;
}
void* valloc(size_t size) noexcept {
  count(g_malloc_calls);
  return __libc_valloc(size);
}
void* pvalloc(size_t size) noexcept {
  count(g_malloc_calls);
  return __libc_pvalloc(size);
}
}  // extern "C"

// ---- helpers -------------------------------------------------------------------------------

namespace {

constexpr double kPi = 3.14159265358979323846;

// Allocation and release calls of every kind, read together.
struct Counts {
  uint64_t news, deletes, mallocs, frees;
  static Counts now() {
    return Counts{g_new_calls.load(), g_delete_calls.load(), g_malloc_calls.load(), g_free_calls.load()};
  }
  Counts operator-(const Counts& o) const {
    return Counts{news - o.news, deletes - o.deletes, mallocs - o.mallocs, frees - o.frees};
  }
  uint64_t allocations() const { return news + mallocs; }
  uint64_t total() const { return news + deletes + mallocs + frees; }
};

// Closed box room [-4, 4]^2 x [0, 3] with a bumpy heightfield floor inside: every ray from
// inside hits something, so every pixel does the full traversal work.
wr_test::SoupScene room_scene() {
  wr_test::SoupScene s = wr_test::random_heightfield(11, 24, 8.0f);
  for (size_t i = 0; i < s.vertices.size(); i += 3) {
    s.vertices[i] -= 4.0f;
    s.vertices[i + 1] -= 4.0f;
  }
  const float box[8][3] = {{-4, -4, -0.1f}, {4, -4, -0.1f}, {4, 4, -0.1f}, {-4, 4, -0.1f},
                           {-4, -4, 3},     {4, -4, 3},     {4, 4, 3},     {-4, 4, 3}};
  const uint32_t base = static_cast<uint32_t>(s.vertices.size() / 3);
  for (const auto& v : box) s.vertices.insert(s.vertices.end(), {v[0], v[1], v[2]});
  const uint32_t faces[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  for (const auto& f : faces)
    s.indices.insert(s.indices.end(), {base + f[0], base + f[1], base + f[2], base + f[0], base + f[2], base + f[3]});
  return s;
}

// (num_envs x 7) poses inside the room, WXYZ, looking around with a slight downward pitch.
std::vector<float> poses(uint32_t num_envs, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> xy(-3.0f, 3.0f), z(0.8f, 2.0f), yaw(-kPi, kPi);
  std::vector<float> p;
  for (uint32_t e = 0; e < num_envs; ++e) {
    const double half_yaw = 0.5 * yaw(rng), half_pitch = 0.5 * 0.3;
    // q = yaw about Z * pitch about Y, (w, x, y, z)
    const double cy = std::cos(half_yaw), sy = std::sin(half_yaw), cp = std::cos(half_pitch), sp = std::sin(half_pitch);
    p.insert(p.end(), {xy(rng), xy(rng), z(rng), float(cy * cp), float(-sy * sp), float(cy * sp), float(sy * cp)});
  }
  return p;
}

struct World {
  wr_context context = nullptr;
  wr_scene scene = nullptr;
  explicit World(uint32_t threads) {
    REQUIRE_OK(wr_context_create_cpu(threads, &context));
    const wr_test::SoupScene s = room_scene();
    REQUIRE_OK(wr_scene_create(context, s.vertices.data(), s.vertices.size() / 3, s.indices.data(), s.num_triangles(),
                               &scene));
  }
  ~World() {
    wr_scene_release(scene);
    wr_context_release(context);
  }
};

volatile char* g_sink = nullptr;

}  // namespace

// ---- tests -----------------------------------------------------------------------------------

TEST_CASE("allocations: the counters see operator new in libwr.so and malloc in libc", "[allocations]") {
  const Counts c0 = Counts::now();
  World world(1);  // wr_scene_create: operator new from inside libwr.so
  const Counts c1 = Counts::now();
  char* dup = strdup("counted by the interposed malloc");  // malloc called from inside libc
  g_sink = dup;
  const Counts c2 = Counts::now();
  free(dup);
  void* p = nullptr;
  const int rc = posix_memalign(&p, 64, 100);
  g_sink = static_cast<char*>(p);
  free(p);
  const Counts c3 = Counts::now();
  CHECK((c1 - c0).news >= 5);
  CHECK((c2 - c1).mallocs >= 1);
  CHECK(rc == 0);
  CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
  CHECK((c3 - c2).mallocs == 1);
  CHECK((c3 - c2).frees == 2);
}

TEST_CASE("allocations: wr_sensor_render allocates nothing, first render included", "[allocations]") {
  for (uint32_t threads : {1u, 2u, 4u}) {
    World world(threads);
    for (const uint32_t num_envs : {1u, 7u, 64u}) {
      for (const wr_depth_kind kind : {WR_DEPTH_PLANE, WR_DEPTH_RANGE}) {
        INFO(threads << " threads, " << num_envs << " envs, depth kind " << kind);
        wr_camera_desc desc;
        wr_camera_desc_pinhole(&desc, 48, 36, 90.0f);
        desc.depth_kind = kind;
        desc.near_clip = 0.05f;
        desc.far_clip = 6.0f;
        wr_sensor sensor = nullptr;
        REQUIRE_OK(wr_sensor_create(world.scene, &desc, num_envs, &sensor));
        const std::vector<float> pose_a = poses(num_envs, 1), pose_b = poses(num_envs, 2);
        std::vector<float> depth(size_t(num_envs) * 48 * 36, -1.0f);

        // Nothing may run between the counter readings but the renders themselves.
        constexpr int kRenders = 6;
        wr_status status[kRenders];
        Counts per_render[kRenders];
        for (int r = 0; r < kRenders; ++r) {
          const Counts before = Counts::now();
          status[r] = wr_sensor_render(sensor, (r % 2 ? pose_b : pose_a).data(), depth.data(), nullptr);
          per_render[r] = Counts::now() - before;
        }
        for (int r = 0; r < kRenders; ++r) {
          INFO("render " << r);
          REQUIRE(status[r] == WR_SUCCESS);
          CHECK(per_render[r].allocations() == 0);
          CHECK(per_render[r].total() == 0);
        }
        // The renders did real work: every pixel of the closed room holds a depth in range.
        size_t in_range = 0;
        for (float d : depth) in_range += (d >= desc.near_clip && d <= desc.far_clip) ? 1 : 0;
        CHECK(in_range > depth.size() / 2);
        wr_sensor_release(sensor);
      }
    }
  }
}

TEST_CASE("allocations: wr_sensor_render_ex with every pipeline option on allocates nothing", "[allocations]") {
  for (uint32_t threads : {1u, 2u}) {
    World world(threads);
    for (const wr_resample mode : {WR_RESAMPLE_BICUBIC, WR_RESAMPLE_AREA}) {
      INFO(threads << " threads, resample " << mode);
      const uint32_t n = 9;
      wr_camera_desc desc;
      wr_camera_desc_pinhole(&desc, 48, 36, 90.0f);
      desc.far_clip = 6.0f;
      wr_sensor_options o;
      wr_sensor_options_init(&o);
      o.crop_x = 2, o.crop_y = 1, o.crop_width = 44, o.crop_height = 34;
      o.out_width = 30, o.out_height = 20, o.resample = mode;
      o.invalid_mode = WR_INVALID_REP117;
      o.clip = 1, o.clip_max = 4.0f;
      o.normalize = 1, o.norm_b = 4.0f, o.norm_c = -0.5f;
      o.clamp = 1, o.clamp_min = -0.5f, o.clamp_max = 0.5f;
      o.dtype = WR_DTYPE_FLOAT16;
      o.history_length = 4;
      o.bad_pose_mode = WR_BAD_POSE_ISOLATE;
      o.noise.seed = 3, o.noise.min_range = 0.2f, o.noise.edge_threshold = 0.1f, o.noise.edge_probability = 0.5f;
      o.noise.dropout_probability = 0.01f, o.noise.range_sigma[2] = 0.01f, o.noise.env_offset = 0.02f;
      o.noise.disparity_focal_baseline = 20.0f, o.noise.disparity_step = 0.1f;
      wr_sensor sensor = nullptr;
      REQUIRE_OK(wr_sensor_create_ex(world.scene, &desc, &o, n, &sensor));
      std::vector<float> state(13 * n, 0.0f);  // root states (N x 13), xyzw read as wxyz here: any pose will do
      const std::vector<float> p = poses(n, 3);
      for (uint32_t e = 0; e < n; ++e) std::copy(&p[7 * e], &p[7 * e] + 7, &state[13 * e]);
      std::vector<float> intrinsics, mounts;
      for (uint32_t e = 0; e < n; ++e) {
        intrinsics.insert(intrinsics.end(), {24.0f + e, 24.0f + e, 24.0f, 18.0f});
        mounts.insert(mounts.end(), {0.1f, 0.0f, 0.05f, 1.0f, 0.0f, 0.05f * e, 0.0f});
      }
      std::vector<uint32_t> latency(n);
      std::vector<uint8_t> update(n, 1), reset(n, 0), bad(n);
      for (uint32_t e = 0; e < n; ++e) latency[e] = e % 4;
      update[3] = 0, reset[5] = 1;
      std::vector<uint16_t> out(n * 30 * 20, 0);
      uint32_t bad_count = 0;
      wr_render_args a;
      wr_render_args_init(&a);
      a.body_poses = state.data(), a.pose_stride = 13, a.intrinsics = intrinsics.data(), a.mounts = mounts.data();
      a.latency = latency.data(), a.update_mask = update.data(), a.reset_mask = reset.data();
      a.out = out.data(), a.out_bytes = out.size() * 2, a.bad_env_count = &bad_count, a.bad_env_mask = bad.data();
      constexpr int kRenders = 5;
      wr_status status[kRenders];
      Counts per_render[kRenders];
      for (int r = 0; r < kRenders; ++r) {
        a.frame = uint64_t(r);
        const Counts before = Counts::now();
        status[r] = wr_sensor_render_ex(sensor, &a);
        per_render[r] = Counts::now() - before;
      }
      for (int r = 0; r < kRenders; ++r) {
        INFO("render " << r);
        REQUIRE(status[r] == WR_SUCCESS);
        CHECK(per_render[r].allocations() == 0);
        CHECK(per_render[r].total() == 0);
      }
      size_t written = 0;
      for (uint16_t v : out) written += v != 0;
      CHECK(written > out.size() / 2);  // the renders did real work
      CHECK(bad_count == 0);
      wr_sensor_release(sensor);
    }
  }
}

TEST_CASE("allocations: a pattern sensor's render allocates nothing, first render included", "[allocations]") {
  // A LiDAR of one origin (the CPU's packets), a scanning one (a window per frame, hashed phases)
  // and a height scan of three frames per env (rows from their own poses and mounts).
  for (uint32_t threads : {1u, 2u}) {
    World world(threads);
    wr_pattern_desc lidar_d, grid_d;
    wr_pattern_desc_init(&lidar_d);
    lidar_d.kind = WR_PATTERN_SPHERICAL;
    lidar_d.channels = 8;
    lidar_d.vertical_fov[0] = -30, lidar_d.vertical_fov[1] = 10;
    lidar_d.horizontal_fov[0] = -180, lidar_d.horizontal_fov[1] = 180;
    lidar_d.horizontal_resolution = 2.0;
    wr_pattern_desc_init(&grid_d);
    grid_d.grid_size[0] = 1.6, grid_d.grid_size[1] = 1.0;
    wr_pattern lidar = nullptr, grid = nullptr;
    REQUIRE_OK(wr_pattern_create(&lidar_d, &lidar));
    REQUIRE_OK(wr_pattern_create(&grid_d, &grid));
    const uint32_t n = 7;
    const float feet[21] = {0.2f, 0.1f, 0, 1, 0, 0, 0, 0.2f, -0.1f, 0, 1, 0, 0, 0, -0.2f, 0, 0, 1, 0, 0, 0};
    for (int kind = 0; kind < 3; ++kind) {
      INFO(threads << " threads, sensor " << kind);
      wr_ray_sensor_desc d;
      wr_ray_sensor_desc_init(&d);
      d.max_distance = 20.0f;
      if (kind == 1) d.rays_per_frame = 500, d.scan_phase = WR_SCAN_PHASE_HASHED;
      if (kind == 2) {
        d.alignment = WR_ALIGN_YAW, d.value = WR_RAY_HEIGHT, d.offset_position[2] = 2.0f;
        d.num_frames = 3, d.frame_mounts = feet;
      }
      wr_sensor sensor = nullptr;
      REQUIRE_OK(wr_sensor_create_pattern(world.scene, kind == 2 ? grid : lidar, &d, nullptr, n, &sensor));
      uint64_t bytes = 0;
      REQUIRE_OK(wr_sensor_output_shape(sensor, nullptr, nullptr, nullptr, &bytes));
      std::vector<float> out(n * bytes / sizeof(float), -5.0f);
      const std::vector<float> p = poses(n, 4);
      std::vector<float> record(n * 21);  // three frames' poses per env for the height scan
      for (uint32_t e = 0; e < n; ++e)
        for (int f = 0; f < 3; ++f) std::copy(&p[7 * e], &p[7 * e] + 7, &record[21 * e + 7 * f]);
      std::vector<float> starts(3 * bytes / sizeof(float)), dirs(starts.size());
      wr_render_args a;
      wr_render_args_init(&a);
      a.body_poses = kind == 2 ? record.data() : p.data();
      a.out = out.data(), a.out_bytes = out.size() * sizeof(float);
      constexpr int kCalls = 5;
      wr_status status[kCalls], rays_status[kCalls];
      Counts per_render[kCalls], per_rays[kCalls];
      for (int r = 0; r < kCalls; ++r) {
        a.frame = uint64_t(r);
        Counts before = Counts::now();
        status[r] = wr_sensor_render_ex(sensor, &a);
        per_render[r] = Counts::now() - before;
        before = Counts::now();
        rays_status[r] = wr_sensor_world_rays(sensor, a.body_poses, nullptr, 0, a.frame, starts.data(), dirs.data());
        per_rays[r] = Counts::now() - before;
      }
      for (int r = 0; r < kCalls; ++r) {
        INFO("call " << r);
        REQUIRE(status[r] == WR_SUCCESS);
        REQUIRE(rays_status[r] == WR_SUCCESS);
        CHECK(per_render[r].total() == 0);
        CHECK(per_rays[r].total() == 0);
      }
      size_t written = 0;
      for (float v : out) written += v != -5.0f && std::isfinite(v);
      CHECK(written > out.size() / 4);  // the renders did real work
      wr_sensor_release(sensor);
    }
    wr_pattern_release(lidar);
    wr_pattern_release(grid);
  }
}

TEST_CASE("allocations: rendering and tracing through instances allocates nothing", "[allocations]") {
  for (uint32_t threads : {1u, 2u}) {
    World world(threads);
    // Prototype: a 0.4 m cube; 3 slots per env (two of them one group the camera excludes), 1 global.
    const float cube[] = {-0.2f, -0.2f, -0.2f, 0.2f, -0.2f, -0.2f, 0.2f, 0.2f, -0.2f, -0.2f, 0.2f, -0.2f,
                          -0.2f, -0.2f, 0.2f,  0.2f, -0.2f, 0.2f,  0.2f, 0.2f, 0.2f,  -0.2f, 0.2f, 0.2f};
    const uint32_t tris[] = {0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6, 0, 4, 5, 0, 5, 1,
                             1, 5, 6, 1, 6, 2, 2, 6, 7, 2, 7, 3, 3, 7, 4, 3, 4, 0};
    wr_scene box = nullptr, scene = nullptr;
    REQUIRE_OK(wr_scene_create(world.context, cube, 8, tris, 12, &box));
    const uint32_t protos[] = {0, 0, 0}, groups[] = {0, 1, 1}, global_protos[] = {0};
    wr_instanced_scene_desc d;
    wr_instanced_scene_desc_init(&d);
    d.terrain = world.scene, d.prototypes = &box, d.num_prototypes = 1;
    d.slot_prototypes = protos, d.slot_groups = groups, d.num_slots = 3;
    d.global_prototypes = global_protos, d.num_globals = 1;
    REQUIRE_OK(wr_scene_create_instanced(world.context, &d, &scene));
    const uint32_t n = 7;
    const std::vector<float> body = poses(n, 4);
    std::vector<float> slots, global = {0, 0, 1.2f, 1, 0, 0, 0};
    for (uint32_t e = 0; e < n; ++e) {
      // 1-2 m along the camera's optical axis (the body's +X: R (1, 0, 0) of its w, x, y, z).
      const float* q = &body[7 * e + 3];
      const float fwd[3] = {1 - 2 * (q[2] * q[2] + q[3] * q[3]), 2 * (q[1] * q[2] + q[0] * q[3]),
                            2 * (q[1] * q[3] - q[0] * q[2])};
      for (uint32_t s = 0; s < 3; ++s) {
        const float ahead = 1.0f + 0.5f * s;
        slots.insert(slots.end(), {body[7 * e] + ahead * fwd[0], body[7 * e + 1] + ahead * fwd[1],
                                   body[7 * e + 2] + ahead * fwd[2] + 0.3f * s, 1, 0, 0, 0});
      }
    }
    wr_camera_desc desc;
    wr_camera_desc_pinhole(&desc, 48, 36, 90.0f);
    desc.far_clip = 6.0f;
    wr_sensor_options o;
    wr_sensor_options_init(&o);
    o.exclude_groups = 1u << 1;
    wr_sensor sensor = nullptr;
    REQUIRE_OK(wr_sensor_create_ex(scene, &desc, &o, n, &sensor));
    std::vector<float> depth(size_t(n) * 48 * 36, -1.0f);
    std::vector<uint32_t> ids(depth.size(), 7u);
    wr_render_args a;
    wr_render_args_init(&a);
    a.body_poses = body.data(), a.out = depth.data(), a.out_bytes = depth.size() * 4;
    a.instance_poses = slots.data(), a.global_poses = global.data(), a.instance_ids = ids.data();
    // Explicit rays, one block per env: straight ahead of each camera's body.
    std::vector<float> origins(body.size() / 7 * 3), directions(origins.size(), 0.0f), t(n);
    std::vector<uint32_t> tri(n), inst(n);
    for (uint32_t e = 0; e < n; ++e) {
      std::copy(&body[7 * e], &body[7 * e] + 3, &origins[3 * e]);
      directions[3 * e] = 1.0f;
    }
    wr_intersect_args ia;
    wr_intersect_args_init(&ia);
    ia.origins = origins.data(), ia.directions = directions.data(), ia.count = n, ia.num_envs = n;
    ia.instance_poses = slots.data(), ia.global_poses = global.data();
    ia.out_t = t.data(), ia.out_triangle = tri.data(), ia.out_instance = inst.data();
    constexpr int kCalls = 4;
    wr_status status[2 * kCalls];
    Counts per_call[2 * kCalls];
    for (int r = 0; r < kCalls; ++r) {
      Counts before = Counts::now();
      status[2 * r] = wr_sensor_render_ex(sensor, &a);
      per_call[2 * r] = Counts::now() - before;
      before = Counts::now();
      status[2 * r + 1] = wr_scene_intersect_ex(scene, &ia);
      per_call[2 * r + 1] = Counts::now() - before;
    }
    for (int r = 0; r < 2 * kCalls; ++r) {
      INFO(threads << " threads, " << (r % 2 ? "wr_scene_intersect_ex" : "wr_sensor_render_ex") << " " << r / 2);
      REQUIRE(status[r] == WR_SUCCESS);
      CHECK(per_call[r].allocations() == 0);
      CHECK(per_call[r].total() == 0);
    }
    size_t slot0 = 0;
    for (uint32_t id : ids) slot0 += id == 0;
    CHECK(slot0 > 0);  // the renders saw the instances
    wr_sensor_release(sensor);
    wr_scene_release(scene);
    wr_scene_release(box);
  }
}

TEST_CASE("allocations: only a failing render allocates (its error message)", "[allocations]") {
  // A render that fails formats the message for wr_last_error() and throws it internally to
  // the C boundary; both allocate. That is allowed: the contract is about the success path.
  // What must hold is that the failure leaves nothing behind that makes later renders allocate.
  for (uint32_t threads : {1u, 4u}) {
    INFO(threads << " threads");
    World world(threads);
    wr_camera_desc desc;
    wr_camera_desc_pinhole(&desc, 32, 24, 80.0f);
    wr_sensor sensor = nullptr;
    REQUIRE_OK(wr_sensor_create(world.scene, &desc, 5, &sensor));
    const std::vector<float> good = poses(5, 3);
    std::vector<float> bad = good;
    bad[7 * 3 + 4] = std::numeric_limits<float>::quiet_NaN();  // env 3
    std::vector<float> depth(5 * 32 * 24, -1.0f);

    const Counts c0 = Counts::now();
    const wr_status ok1 = wr_sensor_render(sensor, good.data(), depth.data(), nullptr);
    const Counts c1 = Counts::now();
    const wr_status failed = wr_sensor_render(sensor, bad.data(), depth.data(), nullptr);
    const Counts c2 = Counts::now();
    const wr_status ok2 = wr_sensor_render(sensor, good.data(), depth.data(), nullptr);
    const wr_status ok3 = wr_sensor_render(sensor, good.data(), depth.data(), nullptr);
    const Counts c3 = Counts::now();
    const std::string message = wr_last_error();

    CHECK(ok1 == WR_SUCCESS);
    CHECK(failed == WR_ERROR_INVALID_ARGUMENT);
    CHECK(message.find("env 3") != std::string::npos);
    CHECK(ok2 == WR_SUCCESS);
    CHECK(ok3 == WR_SUCCESS);
    CHECK((c1 - c0).total() == 0);
    CHECK((c2 - c1).allocations() > 0);  // the error message (allowed); proves the hooks are live
    CHECK((c3 - c2).total() == 0);
    wr_sensor_release(sensor);
  }
}

TEST_CASE("allocations: wr_scene_intersect with valid input allocates nothing", "[allocations]") {
  for (uint32_t threads : {1u, 2u, 4u}) {
    INFO(threads << " threads");
    World world(threads);
    std::mt19937 rng(17 + threads);
    std::uniform_real_distribution<float> pos(-3.5f, 3.5f), dir(-1.0f, 1.0f);
    // 3000 rays: several 256-ray tasks, so every pool thread takes part.
    const size_t n = 3000;
    std::vector<float> o(3 * n), d(3 * n), tmax(n), t(n);
    std::vector<uint32_t> tri(n);
    for (size_t i = 0; i < n; ++i) {
      o[3 * i] = pos(rng);
      o[3 * i + 1] = pos(rng);
      o[3 * i + 2] = 1.5f;
      for (int a = 0; a < 3; ++a) d[3 * i + a] = dir(rng);
      d[3 * i + 2] -= 1.001f;  // never zero
      tmax[i] = i % 3 ? std::numeric_limits<float>::infinity() : 2.0f;
    }
    constexpr int kCalls = 4;
    wr_status status[kCalls];
    Counts per_call[kCalls];
    for (int c = 0; c < kCalls; ++c) {
      const Counts before = Counts::now();
      status[c] = wr_scene_intersect(world.scene, o.data(), d.data(), c % 2 ? nullptr : tmax.data(), n, t.data(),
                                     c < 2 ? tri.data() : nullptr, nullptr);
      per_call[c] = Counts::now() - before;
    }
    for (int c = 0; c < kCalls; ++c) {
      INFO("call " << c);
      REQUIRE(status[c] == WR_SUCCESS);
      CHECK(per_call[c].total() == 0);
    }
    // The last call had tmax = NULL, and the rays point down inside the closed room: all hit.
    size_t hits = 0;
    for (float x : t) hits += std::isfinite(x) ? 1 : 0;
    CHECK(hits == n);
  }
}
