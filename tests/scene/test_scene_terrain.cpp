// A scene's terrain kinds through the C API, as a user builds and renders them: a height field
// traced through its grid (wr_scene_create_heightfield, WR_TERRAIN_GRID) and legged_gym's grid
// meshes (wr_scene_create_grid_mesh), on the backend under test (support/backend_under_test.h:
// the CPU, and once more a CUDA context where CTest finds a GPU: the cases tagged [backend]),
// each against the BVH of the same triangles (WR_TERRAIN_BVH, wr_scene_create) traced by the
// CPU's scalar path:
//   - every pixel of cameras at 20 poses (grazing, looking up, from below the surface, along the
//     grid's lines), plain and through the pipeline with instances over the terrain, bit for bit,
//     with the same instance ids, on every CPU path this machine runs (the SIMD ones trace a height
//     field's cameras as packets, cpu/packet_grid.h) and on 1 and 2 threads (on CUDA, the kernels of
//     every grid feature set); and small and adversarial fields (2 x 2, 2 x N, a checkerboard, a
//     tilted plane, unequal spacings) likewise;
//   - explicit rays (t bits and triangle ids), and a yaw-aligned 187-ray height scan (IsaacLab's
//     GridPatternCfg(resolution=0.1, size=[1.6, 1.0])) at 10^4 poses;
//   - counts, bounds and the ledger's tags; the grid under the 16 and 24 bytes a sample it promises;
//   - every refusal names its culprit and writes no handle.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "backend_under_test.h"
#include "c_api_world.h"
#include "legged_gym_trimesh.h"

using namespace wr_test::c_api;

namespace {

// A CPU context of `threads` (the references), or with kBackend one of the backend under test.
struct Context {
  static constexpr bool kBackend = true;
  wr_context c = nullptr;
  bool on_backend = false;  // c is the backend under test's (a CUDA one takes device arrays)
  explicit Context(uint32_t threads) { REQUIRE(wr_context_create_cpu(threads, &c) == WR_SUCCESS); }
  Context(uint32_t threads, bool) : on_backend(true) {
    const wr_status status = wr_test::create_backend_context(threads, &c);
    INFO(wr_last_error());
    REQUIRE(status == WR_SUCCESS);
  }
  ~Context() { wr_context_release(c); }
};

bool cuda_under_test() { return wr_test::backend_under_test() == wr_test::Backend::kCuda; }

struct Scene {
  wr_scene s = nullptr;
  explicit Scene(wr_scene scene) : s(scene) {}
  ~Scene() { wr_scene_release(s); }
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;
};

// The scene a creation call wrote to *s (read after the call: `s` is its out argument).
wr_scene checked(wr_status status, const wr_scene* s) {
  INFO(wr_last_error());
  REQUIRE(status == WR_SUCCESS);
  return *s;
}

// Steps, a ramp and noise, in legged_gym's sample order (heights[ix num_y + iy]): ledges whose
// edges lie on the grid's lines, where cameras graze and rays run along cell edges.
struct Field {
  uint32_t nx = 72, ny = 57;
  std::vector<float> h;
  Field() : h(size_t(nx) * ny) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> noise(0.0f, 0.03f);
    for (uint32_t ix = 0; ix < nx; ++ix)
      for (uint32_t iy = 0; iy < ny; ++iy) {
        float z = noise(rng);
        if (ix > 20 && ix < 36) z += 0.15f * float((ix - 20) / 3);  // stairs up along x
        if (iy > 40) z += 0.02f * float(iy - 40);                   // a ramp along y
        if ((ix / 8 + iy / 8) % 5 == 0) z += 0.5f;                  // blocks
        h[size_t(ix) * ny + iy] = z;
      }
  }
  wr_heightfield_desc desc(wr_terrain_kind kind, float base_depth) const {
    wr_heightfield_desc d;
    wr_heightfield_desc_init(&d);
    d.heights = h.data();
    d.num_x = nx, d.num_y = ny, d.layout = WR_HEIGHTFIELD_Y_FASTEST;
    d.spacing_x = d.spacing_y = 0.1f;
    d.origin[0] = -3.0f, d.origin[1] = -2.5f, d.origin[2] = 0.1f;
    d.base_depth = base_depth;
    d.terrain = kind;
    return d;
  }
};

wr_scene heightfield(const Context& ctx, const Field& f, wr_terrain_kind kind, float base_depth = 0.3f) {
  const wr_heightfield_desc d = f.desc(kind, base_depth);
  wr_scene s = nullptr;
  return checked(wr_scene_create_heightfield(ctx.c, &d, &s), &s);
}

// 20 body poses (w, x, y, z quaternions) over the field's box lo .. hi: grazing the surface,
// looking up, from below it, along the grid's lines and diagonals, from far outside it.
std::vector<float> camera_poses(const float lo[3], const float hi[3]) {
  std::vector<float> poses;
  const float cx = 0.5f * (lo[0] + hi[0]), cy = 0.5f * (lo[1] + hi[1]);
  const struct {
    float x, y, z, yaw, pitch;
  } views[20] = {{lo[0] + 0.3f, cy, hi[2] + 0.3f, 0, 10},
                 {lo[0] + 0.05f, cy, lo[2] + 0.12f, 0, 1},  // grazing
                 {cx, lo[1] + 0.1f, hi[2] + 0.05f, 90, 0.5f},
                 {cx, cy, hi[2] + 1.5f, 45, 60},
                 {cx, cy, hi[2] + 2.0f, 0, 90},
                 {cx, cy, lo[2] - 0.5f, 30, -70},  // from below
                 {cx - 1, cy, lo[2] - 0.1f, 180, -10},
                 {cx, cy, 0.3f, 0, -40},  // looking up
                 {lo[0] - 2, lo[1] - 2, hi[2] + 1, 45, 20},
                 {hi[0] + 1, cy, hi[2] + 0.5f, 180, 15},
                 {cx, hi[1] + 1, hi[2] + 0.2f, -90, 8},
                 {cx + 0.5f, cy, 0.4f, 0, 0},  // level, into the steps
                 {cx, cy, 0.25f, 90, 0},
                 {cx - 1.0f, cy - 1.0f, 0.8f, 45, 25},
                 {lo[0] + 0.5f, lo[1] + 0.5f, 1.2f, 30, 35},
                 {cx, cy, hi[2] + 0.01f, 135, 2},
                 {hi[0] - 0.5f, hi[1] - 0.5f, 1.0f, -135, 30},
                 {cx, cy, 0.6f, -45, 45},
                 {cx + 0.05f, cy + 0.05f, 3.0f, 0, 89.9f},
                 {lo[0] - 5, cy, 0.5f, 0, 3}};
  for (const auto& v : views) {
    const std::array<float, 4> q = yaw_pitch(v.yaw, v.pitch);
    poses.insert(poses.end(), {v.x, v.y, v.z, q[0], q[1], q[2], q[3]});
  }
  return poses;
}

wr_camera_desc camera() {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, 53, 37, 87.0f);
  d.near_clip = 0.05f;
  d.far_clip = 30.0f;
  d.miss_value = 31.0f;
  d.depth_kind = WR_DEPTH_RANGE;
  return d;
}

std::vector<float> render_plain(const Context& ctx, wr_scene scene, const std::vector<float>& poses) {
  const wr_camera_desc d = camera();
  const uint32_t n = uint32_t(poses.size() / 7);
  wr_sensor sensor = nullptr;
  REQUIRE(wr_sensor_create(scene, &d, n, &sensor) == WR_SUCCESS);
  std::vector<float> out(size_t(n) * d.width * d.height, kSentinel);
  const wr_status status = ctx.on_backend
                               ? wr_test::render_on_backend(sensor, poses.data(), poses.size(), out.data(), out.size())
                               : wr_sensor_render(sensor, poses.data(), out.data(), nullptr);
  INFO(wr_last_error());
  REQUIRE(status == WR_SUCCESS);
  wr_sensor_release(sensor);
  return out;
}

// A box (0.6 x 0.4 x 0.2 m) as the instances' prototype.
wr_scene box_scene(const Context& ctx) {
  const float v[] = {-0.3f, -0.2f, -0.1f, 0.3f, -0.2f, -0.1f, 0.3f, 0.2f, -0.1f, -0.3f, 0.2f, -0.1f,
                     -0.3f, -0.2f, 0.1f,  0.3f, -0.2f, 0.1f,  0.3f, 0.2f, 0.1f,  -0.3f, 0.2f, 0.1f};
  const uint32_t i[] = {0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6, 0, 4, 5, 0, 5, 1,
                        1, 5, 6, 1, 6, 2, 2, 6, 7, 2, 7, 3, 3, 7, 4, 3, 4, 0};
  wr_scene s = nullptr;
  return checked(wr_scene_create(ctx.c, v, 8, i, 12, &s), &s);
}

struct PipelineOut {
  std::vector<float> depth;
  std::vector<uint32_t> ids;
};

// The pipeline's render (instance ids asked for) of an instanced scene over `terrain`: two slots
// per env, 1.2 and 2 m ahead of its camera.
PipelineOut render_instanced(const Context& ctx, wr_scene terrain, const std::vector<float>& poses) {
  Scene box(box_scene(ctx));
  const uint32_t slots[2] = {0, 0};
  wr_instanced_scene_desc id;
  wr_instanced_scene_desc_init(&id);
  id.terrain = terrain;
  id.prototypes = &box.s;
  id.num_prototypes = 1;
  id.slot_prototypes = slots;
  id.num_slots = 2;
  wr_scene scene_handle = nullptr;
  Scene scene(checked(wr_scene_create_instanced(ctx.c, &id, &scene_handle), &scene_handle));
  const wr_camera_desc d = camera();
  const uint32_t n = uint32_t(poses.size() / 7);
  std::vector<float> slot_poses;
  for (uint32_t e = 0; e < n; ++e)
    for (int s = 0; s < 2; ++s) {
      // along the camera's +X (the body's, no mount): the quaternion's first column
      const float* q = &poses[7 * e + 3];
      const float fx = 1 - 2 * (q[2] * q[2] + q[3] * q[3]), fy = 2 * (q[1] * q[2] + q[0] * q[3]),
                  fz = 2 * (q[1] * q[3] - q[0] * q[2]);
      const float r = 1.2f + 0.8f * float(s);
      slot_poses.insert(slot_poses.end(), {poses[7 * e] + r * fx, poses[7 * e + 1] + r * fy + 0.1f * float(s),
                                           poses[7 * e + 2] + r * fz, 0.9f, 0.1f, 0.3f, 0.2f});
    }
  wr_sensor_options o;
  wr_sensor_options_init(&o);
  o.normalize = 1;
  o.norm_b = 10.0f;
  wr_sensor sensor = nullptr;
  REQUIRE(wr_sensor_create_ex(scene.s, &d, &o, n, &sensor) == WR_SUCCESS);
  PipelineOut out{std::vector<float>(size_t(n) * d.width * d.height, kSentinel),
                  std::vector<uint32_t>(size_t(n) * d.width * d.height, 7u)};
  wr_render_args a;
  wr_render_args_init(&a);
  a.body_poses = poses.data();
  a.out = out.depth.data();
  a.out_bytes = out.depth.size() * sizeof(float);
  a.instance_poses = slot_poses.data();
  a.instance_ids = out.ids.data();
  const wr_status status =
      ctx.on_backend ? wr_test::render_ex_on_backend(sensor, a, 2, 0) : wr_sensor_render_ex(sensor, &a);
  INFO(wr_last_error());
  REQUIRE(status == WR_SUCCESS);
  wr_sensor_release(sensor);
  return out;
}

size_t bit_mismatches(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += !same_bits(a[i], b[i]);
  return n;
}

std::vector<wr_cpu_path> paths_here() {
  std::vector<wr_cpu_path> paths;
  Context probe(1);
  for (wr_cpu_path p : {WR_CPU_PATH_SCALAR, WR_CPU_PATH_AVX2, WR_CPU_PATH_AVX512})
    if (wr_context_set_cpu_path(probe.c, p) == WR_SUCCESS) paths.push_back(p);
  return paths;
}

// Every camera pixel of `grid` against `bvh` (both scenes of contexts ctx_grid and ctx_bvh, the
// latter on the scalar path): plain, and under instances through the pipeline.
void check_cameras(const Context& ctx_grid, wr_scene grid, const Context& ctx_bvh, wr_scene bvh) {
  float lo[3], hi[3];
  REQUIRE(wr_scene_bounds(bvh, lo, hi) == WR_SUCCESS);
  const std::vector<float> poses = camera_poses(lo, hi);
  const std::vector<float> want = render_plain(ctx_bvh, bvh, poses);
  const PipelineOut want_instanced = render_instanced(ctx_bvh, bvh, poses);
  size_t hits = 0, instance_hits = 0;
  for (float v : want) hits += v < 31.0f;
  for (uint32_t id : want_instanced.ids) instance_hits += id != UINT32_MAX;
  INFO(hits << " of " << want.size() << " pixels hit the terrain, " << instance_hits << " an instance");
  CHECK(hits > want.size() / 2);
  CHECK(hits < want.size());  // some look past it
  CHECK(instance_hits > 100);
  CHECK(bit_mismatches(render_plain(ctx_grid, grid, poses), want) == 0);
  const PipelineOut got = render_instanced(ctx_grid, grid, poses);
  CHECK(bit_mismatches(got.depth, want_instanced.depth) == 0);
  CHECK(got.ids == want_instanced.ids);
}

// The same triangle count and bounds, bit for bit.
void check_same_triangles(wr_scene grid, wr_scene bvh) {
  uint64_t n_bvh = 0, n_grid = 0;
  REQUIRE(wr_scene_num_triangles(bvh, &n_bvh) == WR_SUCCESS);
  REQUIRE(wr_scene_num_triangles(grid, &n_grid) == WR_SUCCESS);
  CHECK(n_grid == n_bvh);
  float lo_b[3], hi_b[3], lo_g[3], hi_g[3];
  REQUIRE(wr_scene_bounds(bvh, lo_b, hi_b) == WR_SUCCESS);
  REQUIRE(wr_scene_bounds(grid, lo_g, hi_g) == WR_SUCCESS);
  for (int a = 0; a < 3; ++a) CHECK((same_bits(lo_b[a], lo_g[a]) && same_bits(hi_b[a], hi_g[a])));
}

}  // namespace

// Calls f(context, what) for every context of the backend under test the kinds are checked on: on
// the CPU 1 and 2 threads on every path this machine runs, on CUDA the one context.
template <class F>
void for_each_backend_context(F&& f) {
  if (cuda_under_test()) {
    const Context ctx(0, Context::kBackend);
    f(ctx, std::string("CUDA"));
    return;
  }
  for (const uint32_t threads : {1u, 2u})
    for (const wr_cpu_path path : paths_here()) {
      const Context ctx(threads, Context::kBackend);
      REQUIRE(wr_context_set_cpu_path(ctx.c, path) == WR_SUCCESS);
      f(ctx, std::to_string(threads) + " threads, path " + wr_cpu_path_string(path));
    }
}

TEST_CASE("a height field's grid renders every pixel as its BVH, on every CPU path and thread count",
          "[grid][backend]") {
  const Field f;
  Context reference(2);
  REQUIRE(wr_context_set_cpu_path(reference.c, WR_CPU_PATH_SCALAR) == WR_SUCCESS);
  for (const float base : {0.0f, 0.3f}) {
    Scene bvh(heightfield(reference, f, WR_TERRAIN_AUTO, base));  // the BVH today (wr.h)
    wr_terrain_kind kind = WR_TERRAIN_AUTO;
    REQUIRE(wr_scene_terrain_kind(bvh.s, &kind) == WR_SUCCESS);
    CHECK(kind == WR_TERRAIN_BVH);
    for_each_backend_context([&](const Context& ctx, const std::string& what) {
      INFO("base " << base << ", " << what);
      Scene grid(heightfield(ctx, f, WR_TERRAIN_GRID, base));
      REQUIRE(wr_scene_terrain_kind(grid.s, &kind) == WR_SUCCESS);
      CHECK(kind == WR_TERRAIN_GRID);
      check_cameras(ctx, grid.s, reference, bvh.s);
    });
  }
}

TEST_CASE("small and adversarial height fields render every pixel as their BVH, on every CPU path", "[grid][backend]") {
  // 2 x 2 and 2 x N samples, a 0 / 1 m checkerboard (vertical-ish walls on every grid line), a tilted
  // plane, and a field whose spacing differs in x and y; each with and without its base.
  struct Small {
    const char* what;
    uint32_t nx, ny;
    float sx, sy;
    float (*z)(uint32_t, uint32_t);
  };
  const Small fields[] = {
      {"2 x 2", 2, 2, 2.0f, 1.5f, [](uint32_t ix, uint32_t iy) { return 0.3f * float(ix) + 0.2f * float(iy); }},
      {"2 x 9", 2, 9, 1.0f, 0.4f, [](uint32_t ix, uint32_t iy) { return 0.1f * float((ix * 7 + iy * 3) % 5); }},
      {"checkerboard", 24, 19, 0.25f, 0.25f, [](uint32_t ix, uint32_t iy) { return float((ix + iy) % 2); }},
      {"tilted plane", 17, 23, 0.3f, 0.3f,
       [](uint32_t ix, uint32_t iy) { return 0.2f * float(ix) - 0.1f * float(iy); }},
      {"stretched", 31, 11, 0.05f, 0.6f, [](uint32_t ix, uint32_t iy) { return 0.05f * float((ix * iy) % 7); }},
  };
  Context reference(2);
  REQUIRE(wr_context_set_cpu_path(reference.c, WR_CPU_PATH_SCALAR) == WR_SUCCESS);
  for (const Small& f : fields)
    for (const float base : {0.0f, 0.4f}) {
      std::vector<float> h(size_t(f.nx) * f.ny);
      for (uint32_t iy = 0; iy < f.ny; ++iy)
        for (uint32_t ix = 0; ix < f.nx; ++ix) h[size_t(iy) * f.nx + ix] = f.z(ix, iy);
      wr_heightfield_desc d;
      wr_heightfield_desc_init(&d);
      d.heights = h.data();
      d.num_x = f.nx, d.num_y = f.ny, d.layout = WR_HEIGHTFIELD_X_FASTEST;
      d.spacing_x = f.sx, d.spacing_y = f.sy;
      d.origin[0] = -0.5f * f.sx * float(f.nx - 1), d.origin[1] = -0.4f * f.sy * float(f.ny - 1);
      d.base_depth = base;
      d.terrain = WR_TERRAIN_BVH;
      wr_scene s = nullptr;
      Scene bvh(checked(wr_scene_create_heightfield(reference.c, &d, &s), &s));
      float lo[3], hi[3];
      REQUIRE(wr_scene_bounds(bvh.s, lo, hi) == WR_SUCCESS);
      const std::vector<float> poses = camera_poses(lo, hi);
      const std::vector<float> want = render_plain(reference, bvh.s, poses);
      size_t hits = 0;
      for (float v : want) hits += v < 31.0f;
      CHECK(hits > want.size() / 10);
      for_each_backend_context([&](const Context& ctx, const std::string& what) {
        INFO(f.what << ", base " << base << ", " << what);
        d.terrain = WR_TERRAIN_GRID;
        Scene grid(checked(wr_scene_create_heightfield(ctx.c, &d, &s), &s));
        CHECK(bit_mismatches(render_plain(ctx, grid.s, poses), want) == 0);
      });
    }
}

TEST_CASE("legged_gym's grid meshes render every pixel as wr_scene_create's BVH of the same arrays",
          "[grid][backend]") {
  // The field in legged_gym's raw units (vertical_scale 0.005 m), its mesh made as
  // convert_heightfield_to_trimesh makes it (tools/common/legged_gym_trimesh.h, a reimplementation
  // from its published source), with slope thresholds 0, 0.75 and 1.5 (vertices moved into walls).
  const Field f;
  wr_tools::RawField raw{f.nx, f.ny, std::vector<int16_t>(f.h.size())};
  for (size_t k = 0; k < f.h.size(); ++k) raw.h[k] = int16_t(std::lround(f.h[k] / 0.005f));
  Context reference(2);
  REQUIRE(wr_context_set_cpu_path(reference.c, WR_CPU_PATH_SCALAR) == WR_SUCCESS);
  for (const double threshold : {0.0, 0.75, 1.5}) {
    const wr_tools::TriangleMesh m = wr_tools::convert_heightfield_to_trimesh(raw, 0.1, 0.005, threshold);
    const uint64_t nv = m.vertices.size() / 3, nt = m.indices.size() / 3;
    wr_scene s = nullptr;
    Scene bvh(checked(wr_scene_create(reference.c, m.vertices.data(), nv, m.indices.data(), nt, &s), &s));
    for_each_backend_context([&](const Context& ctx, const std::string& what) {
      INFO("slope threshold " << threshold << ", " << what);
      Scene grid(checked(wr_scene_create_grid_mesh(ctx.c, m.vertices.data(), nv, m.indices.data(), nt, &s), &s));
      wr_terrain_kind kind = WR_TERRAIN_AUTO;
      REQUIRE(wr_scene_terrain_kind(grid.s, &kind) == WR_SUCCESS);
      CHECK(kind == WR_TERRAIN_GRID);
      check_same_triangles(grid.s, bvh.s);
      check_cameras(ctx, grid.s, reference, bvh.s);
    });
  }
}

TEST_CASE("explicit rays and a yaw-aligned 187-ray height scan at 10^4 poses: the grid's hits are the BVH's",
          "[grid][backend]") {
  const Field f;
  Context ctx(2), under_test(2, Context::kBackend);
  Scene bvh(heightfield(ctx, f, WR_TERRAIN_BVH));
  Scene grid(heightfield(under_test, f, WR_TERRAIN_GRID));
  float lo[3], hi[3];
  REQUIRE(wr_scene_bounds(bvh.s, lo, hi) == WR_SUCCESS);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> o, d;
  // Random rays from around the field towards points in it, some almost level.
  for (int k = 0; k < 100000; ++k) {
    const float ox = lo[0] - 1 + (hi[0] - lo[0] + 2) * u(rng), oy = lo[1] - 1 + (hi[1] - lo[1] + 2) * u(rng);
    const float oz = lo[2] - 0.5f + (hi[2] - lo[2] + 2) * u(rng);
    const float tx = lo[0] + (hi[0] - lo[0]) * u(rng), ty = lo[1] + (hi[1] - lo[1]) * u(rng);
    const float tz = k % 4 == 0 ? oz + 0.01f * (u(rng) - 0.8f) : lo[2] + (hi[2] - lo[2]) * u(rng);
    o.insert(o.end(), {ox, oy, oz});
    d.insert(d.end(), {tx - ox, ty - oy, tz - oz});
  }
  // IsaacLab's height scan: GridPatternCfg(resolution=0.1, size=[1.6, 1.0]): 17 x 11 starts in the
  // body's frame, yaw-aligned (the starts turned by the base's yaw, the directions world -Z), lifted
  // by the pattern offset of 20 m; at 10^4 base poses over the field.
  for (int p = 0; p < 10000; ++p) {
    const float bx = lo[0] + (hi[0] - lo[0]) * u(rng), by = lo[1] + (hi[1] - lo[1]) * u(rng);
    const float yaw = 6.2831853f * u(rng), c = std::cos(yaw), s = std::sin(yaw);
    for (int i = 0; i < 17; ++i)
      for (int j = 0; j < 11; ++j) {
        const float px = -0.8f + 0.1f * float(i), py = -0.5f + 0.1f * float(j);
        o.insert(o.end(), {bx + c * px - s * py, by + s * px + c * py, 20.0f});
        d.insert(d.end(), {0.0f, 0.0f, -1.0f});
      }
  }
  const uint64_t n = o.size() / 3;
  std::vector<float> t_bvh(n, kSentinel), t_grid(n, kSentinel);
  std::vector<uint32_t> id_bvh(n, 7u), id_grid(n, 7u);
  REQUIRE(wr_scene_intersect(bvh.s, o.data(), d.data(), nullptr, n, t_bvh.data(), id_bvh.data(), nullptr) ==
          WR_SUCCESS);
  REQUIRE(wr_test::intersect_on_backend(grid.s, o.data(), d.data(), nullptr, n, t_grid.data(), id_grid.data()) ==
          WR_SUCCESS);
  size_t hits = 0;
  for (uint32_t id : id_bvh) hits += id != UINT32_MAX;
  INFO(n << " rays, " << hits << " hits");
  CHECK(hits > n / 2);
  CHECK(bit_mismatches(t_grid, t_bvh) == 0);
  CHECK(id_grid == id_bvh);
}

TEST_CASE("the grid's counts, bounds and ledger: under 16 bytes a sample, under its own tags", "[grid]") {
  const Field f;
  Context ctx(2);
  for (const float base : {0.0f, 0.3f}) {
    INFO("base " << base);
    Scene bvh(heightfield(ctx, f, WR_TERRAIN_BVH, base));
    Scene grid(heightfield(ctx, f, WR_TERRAIN_GRID, base));
    check_same_triangles(grid.s, bvh.s);
    wr_memory_stats m{};
    REQUIRE(wr_scene_memory(grid.s, &m) == WR_SUCCESS);
    const uint64_t samples = uint64_t(f.nx) * f.ny;
    uint64_t grid_samples = 0, pyramid = 0, nodes = 0, sum = 0;
    REQUIRE(wr_scene_memory_tag(grid.s, WR_MEMORY_GRID_SAMPLES, &grid_samples, nullptr) == WR_SUCCESS);
    REQUIRE(wr_scene_memory_tag(grid.s, WR_MEMORY_GRID_PYRAMID, &pyramid, nullptr) == WR_SUCCESS);
    REQUIRE(wr_scene_memory_tag(grid.s, WR_MEMORY_BVH_NODES, &nodes, nullptr) == WR_SUCCESS);
    for (int t = 0; t < WR_MEMORY_TAG_COUNT; ++t) {
      uint64_t host = 0;
      REQUIRE(wr_scene_memory_tag(grid.s, static_cast<wr_memory_tag>(t), &host, nullptr) == WR_SUCCESS);
      sum += host;
    }
    CHECK(sum == m.host_bytes);
    CHECK(grid_samples == 4 * (samples + f.nx + f.ny));  // z per sample, x per column, y per row
    CHECK(pyramid > 0);
    CHECK((base > 0 ? nodes > 0 : nodes == 0));  // a base's sides are a BVH of their own
    CHECK(m.per_env_bytes == 0);
    CHECK(double(grid_samples + pyramid) / double(samples) < 7.0);
    CHECK(double(m.host_bytes) / double(samples) < 16.0);
    wr_memory_stats b{};
    REQUIRE(wr_scene_memory(bvh.s, &b) == WR_SUCCESS);
    CHECK(b.host_bytes > 5 * m.host_bytes);
  }
  CHECK(std::string(wr_memory_tag_string(WR_MEMORY_GRID_SAMPLES)) == "grid_samples");
  CHECK(std::string(wr_memory_tag_string(WR_MEMORY_GRID_PYRAMID)) == "grid_pyramid");
  CHECK(std::string(wr_terrain_kind_string(WR_TERRAIN_GRID)) == "grid");
  CHECK(std::string(wr_terrain_kind_string(bad_enum<wr_terrain_kind>(9))) == "unknown");
}

TEST_CASE("a grid mesh's memory: under 24 bytes a sample, under the grid's tags", "[grid]") {
  const Field f;
  wr_tools::RawField raw{f.nx, f.ny, std::vector<int16_t>(f.h.size())};
  for (size_t k = 0; k < f.h.size(); ++k) raw.h[k] = int16_t(std::lround(f.h[k] / 0.005f));
  const wr_tools::TriangleMesh m = wr_tools::convert_heightfield_to_trimesh(raw, 0.1, 0.005, 0.75);
  Context ctx(2);
  wr_scene s = nullptr;
  Scene grid(checked(wr_scene_create_grid_mesh(ctx.c, m.vertices.data(), m.vertices.size() / 3, m.indices.data(),
                                               m.indices.size() / 3, &s),
                     &s));
  wr_memory_stats stats{};
  REQUIRE(wr_scene_memory(grid.s, &stats) == WR_SUCCESS);
  uint64_t samples = 0, pyramid = 0;
  REQUIRE(wr_scene_memory_tag(grid.s, WR_MEMORY_GRID_SAMPLES, &samples, nullptr) == WR_SUCCESS);
  REQUIRE(wr_scene_memory_tag(grid.s, WR_MEMORY_GRID_PYRAMID, &pyramid, nullptr) == WR_SUCCESS);
  // Exactly: an x per vertex row, a y per column, a 64-byte line per 14 vertices (their z and
  // flags), the moved vertices' x and y, the reach (4 floats per cell row and column) and, where
  // some triangles have zero area, their bits.
  const uint64_t rows = raw.rows, cols = raw.cols, triangles = m.indices.size() / 3;
  uint64_t moved = 0;
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < cols; ++c) {
      const float* v = &m.vertices[3 * (r * cols + c)];
      moved += v[0] != float(double(r) * 0.1) || v[1] != float(double(c) * 0.1);
    }
  REQUIRE(moved > 0);
  const uint64_t expected =
      4 * (rows + cols) + 64 * ((rows * cols + 13) / 14) + 8 * moved + 4 * (2 * (rows - 1) + 2 * (cols - 1));
  CHECK((samples == expected || samples == expected + 4 * ((triangles + 31) / 32)));
  CHECK(pyramid > 0);
  CHECK(double(stats.host_bytes) / double(m.vertices.size() / 3) < 24.0);
}

TEST_CASE("the grid's refusals name their culprit and write no handle", "[grid]") {
  const Field f;
  Context ctx(1);
  wr_scene out = nullptr;
  SECTION("a terrain kind outside the enum") {
    wr_heightfield_desc d = f.desc(bad_enum<wr_terrain_kind>(7), 0.0f);
    EXPECT_FAIL(wr_scene_create_heightfield(ctx.c, &d, &out), WR_ERROR_INVALID_ARGUMENT, "wr_scene_create_heightfield",
                "desc->terrain = 7", "WR_TERRAIN_GRID (2)");
  }
  SECTION("a grid asked for a field whose columns float cannot tell apart") {
    wr_heightfield_desc d = f.desc(WR_TERRAIN_GRID, 0.0f);
    d.origin[0] = 3.0e7f;  // spacing 0.1 m is below float's step there
    EXPECT_FAIL(wr_scene_create_heightfield(ctx.c, &d, &out), WR_ERROR_INVALID_ARGUMENT, "wr_scene_create_heightfield",
                "WR_TERRAIN_GRID", "cannot be traced as a grid");
    d.terrain = WR_TERRAIN_AUTO;  // the default is the BVH, which takes any field
    Scene s(checked(wr_scene_create_heightfield(ctx.c, &d, &out), &out));
    wr_terrain_kind kind = WR_TERRAIN_AUTO;
    REQUIRE(wr_scene_terrain_kind(s.s, &kind) == WR_SUCCESS);
    CHECK(kind == WR_TERRAIN_BVH);
    out = nullptr;
  }
  SECTION("a mesh out of convert_heightfield_to_trimesh's layout") {
    wr_tools::RawField raw{5, 4, std::vector<int16_t>(20, 0)};
    wr_tools::TriangleMesh m = wr_tools::convert_heightfield_to_trimesh(raw, 0.1, 0.005, -1.0);
    std::swap(m.indices[13], m.indices[14]);  // triangle 4: cell (0, 2)'s first
    EXPECT_FAIL(wr_scene_create_grid_mesh(ctx.c, m.vertices.data(), m.vertices.size() / 3, m.indices.data(),
                                          m.indices.size() / 3, &out),
                WR_ERROR_INVALID_ARGUMENT, "wr_scene_create_grid_mesh", "triangles 4 and 5", "cell (0, 2)");
    EXPECT_FAIL(wr_scene_create_grid_mesh(ctx.c, m.vertices.data(), m.vertices.size() / 3, m.indices.data(), 1, &out),
                WR_ERROR_INVALID_ARGUMENT, "wr_scene_create_grid_mesh", "at least 2 triangles");
    const float bad[9] = {0, 0, 0, 1, 0, NAN, 0, 1, 0};  // the mesh checks of wr_scene_create come first
    const uint32_t tri[6] = {0, 1, 2, 0, 2, 1};
    EXPECT_FAIL(wr_scene_create_grid_mesh(ctx.c, bad, 3, tri, 2, &out), WR_ERROR_INVALID_ARGUMENT,
                "wr_scene_create_grid_mesh", "vertex 1");
  }
  SECTION("a grid as an instance's prototype") {
    Scene terrain(heightfield(ctx, f, WR_TERRAIN_GRID));
    Scene proto(heightfield(ctx, f, WR_TERRAIN_GRID));
    const uint32_t slot = 0;
    wr_instanced_scene_desc d;
    wr_instanced_scene_desc_init(&d);
    d.terrain = terrain.s;  // a grid terrain is fine
    d.prototypes = &proto.s;
    d.num_prototypes = 1;
    d.slot_prototypes = &slot;
    d.num_slots = 1;
    EXPECT_FAIL(wr_scene_create_instanced(ctx.c, &d, &out), WR_ERROR_INVALID_ARGUMENT, "wr_scene_create_instanced",
                "desc->prototypes[0]", "is a grid terrain", "WR_TERRAIN_BVH");
  }
  CHECK(out == nullptr);
}
