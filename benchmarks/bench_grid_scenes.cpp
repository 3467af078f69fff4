// The grid terrain kinds against the triangle BVH as a user runs them: through the C API, on a
// CPU context of 2 threads, over the extreme-parkour-sized field (parkour_field.h) as a height
// field (wr_scene_create_heightfield, WR_TERRAIN_BVH against WR_TERRAIN_GRID) and as legged_gym's
// grid mesh of it (wr_scene_create against wr_scene_create_grid_mesh; slope threshold 0.75).
//   - the parkour camera (106 x 60, 87 degrees, 1.6 m up, pitched down 0.5 rad) at N = 256,
//     wr_sensor_render: each kind on the context's fastest path (SIMD packets where the CPU has
//     them), the BVH on the scalar path, the height field's kinds also on AVX2's and the grid's on
//     the scalar path;
//   - a VLP-16-like LiDAR (16 x 900 rays, 100 m) as a pattern sensor at N = 256, wr_sensor_render;
//   - IsaacLab's height scan (GridPatternCfg(resolution=0.1, size=[1.6, 1.0]): 187 vertical rays
//     from 20 m up, yaw-aligned) at N = 4096, wr_scene_intersect;
//   - each scene's bytes per height sample (wr_scene_memory) and build seconds.
// Every kind's hits are the same bit for bit (tests/scene/test_scene_terrain.cpp); the hit
// fractions here agree. Speed is measured here, never asserted by tests. Quote ratios from one run.
// The renders run on the context's 2 threads, so every ray row is timed by the wall clock
// (UseRealTime): items_per_second is rays per second of the call as its caller waits for it, not
// per second of the benchmark thread's own CPU time, which leaves out whatever time that thread
// spends waiting for the other.
//   build-tests/benchmarks/wr-bench-grid-scenes [--benchmark_filter=Camera]
#include <benchmark/benchmark.h>

#include <wr/wr.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "parkour_field.h"

namespace {

using namespace wr_bench;

void check(wr_status status, const char* what) {
  if (status == WR_SUCCESS) return;
  std::fprintf(stderr, "%s: %s\n", what, wr_last_error());
  std::exit(1);
}

wr_context context(wr_cpu_path path) {
  wr_context c = nullptr;
  check(wr_context_create_cpu(2, &c), "wr_context_create_cpu");
  check(wr_context_set_cpu_path(c, path), "wr_context_set_cpu_path");
  return c;
}

// kKind: 0 the height field's BVH, 1 its grid, 2 legged_gym's mesh as a BVH, 3 as a grid.
wr_scene make_scene(wr_context c, int kind) {
  wr_scene s = nullptr;
  if (kind < 2) {
    wr_heightfield_desc d;
    wr_heightfield_desc_init(&d);
    d.heights = parkour_heights().data();
    d.num_x = kNx, d.num_y = kNy;
    d.spacing_x = d.spacing_y = kSpacing;
    d.terrain = kind == 0 ? WR_TERRAIN_BVH : WR_TERRAIN_GRID;
    check(wr_scene_create_heightfield(c, &d, &s), "wr_scene_create_heightfield");
  } else {
    const wr_tools::TriangleMesh& m = parkour_legged_gym_mesh();
    const uint64_t nv = m.vertices.size() / 3, nt = m.indices.size() / 3;
    check(kind == 2 ? wr_scene_create(c, m.vertices.data(), nv, m.indices.data(), nt, &s)
                    : wr_scene_create_grid_mesh(c, m.vertices.data(), nv, m.indices.data(), nt, &s),
          "scene creation");
  }
  return s;
}

// The scenes, made once per kind (on a context of the fastest path; a path is the context's, read
// per render, so the scalar runs switch it).
struct Scenes {
  wr_context c = context(WR_CPU_PATH_AUTO);
  wr_scene scene[4] = {};
  double build_s[4] = {};
  wr_scene get(int kind) {
    if (!scene[kind]) {
      scene[kind] = make_scene(c, kind);
      check(wr_scene_build_seconds(scene[kind], &build_s[kind]), "wr_scene_build_seconds");
    }
    return scene[kind];
  }
};
Scenes& scenes() {
  static Scenes s;
  return s;
}

template <int kKind, wr_cpu_path kPath = WR_CPU_PATH_AUTO>
void BM_Camera(benchmark::State& state) {
  Scenes& s = scenes();
  const uint32_t n = 256;
  wr_camera_desc d;
  check(parkour_camera(&d), "parkour_camera");
  wr_sensor sensor = nullptr;
  check(wr_sensor_create(s.get(kKind), &d, n, &sensor), "wr_sensor_create");
  check(wr_context_set_cpu_path(s.c, kPath), "wr_context_set_cpu_path");
  const std::vector<float> poses = parkour_camera_poses(n);
  std::vector<float> depth(size_t(n) * 106 * 60);
  for (auto _ : state) check(wr_sensor_render(sensor, poses.data(), depth.data(), nullptr), "wr_sensor_render");
  check(wr_context_set_cpu_path(s.c, WR_CPU_PATH_AUTO), "wr_context_set_cpu_path");
  size_t hits = 0;
  for (float v : depth) hits += v < 10.0f;
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(depth.size()));
  state.counters["hit_fraction"] = double(hits) / double(depth.size());
  wr_sensor_release(sensor);
}

// A Velodyne VLP-16-like LiDAR (16 channels over [-15, 15] degrees, 900 azimuths over 360, 100 m)
// as a pattern sensor at N = 256, 1.6 m over the field (the camera's poses), traced as a one-row
// camera: its packets are rows of consecutive azimuths of one channel, sharing the sensor's origin.
template <int kKind>
void BM_Lidar(benchmark::State& state) {
  Scenes& s = scenes();
  const uint32_t n = 256;
  wr_pattern_desc pd;
  wr_pattern_desc_init(&pd);
  pd.kind = WR_PATTERN_SPHERICAL;
  pd.channels = 16;
  pd.vertical_fov[0] = -15.0, pd.vertical_fov[1] = 15.0;
  pd.horizontal_fov[0] = -180.0, pd.horizontal_fov[1] = 180.0;
  pd.horizontal_count = 900;
  wr_pattern pattern = nullptr;
  check(wr_pattern_create(&pd, &pattern), "wr_pattern_create");
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  d.max_distance = 100.0f;
  wr_sensor sensor = nullptr;
  check(wr_sensor_create_pattern(s.get(kKind), pattern, &d, nullptr, n, &sensor), "wr_sensor_create_pattern");
  wr_pattern_release(pattern);
  const std::vector<float> poses = parkour_camera_poses(n);
  std::vector<float> out(size_t(n) * 16 * 900);
  for (auto _ : state) check(wr_sensor_render(sensor, poses.data(), out.data(), nullptr), "wr_sensor_render");
  size_t hits = 0;
  for (float v : out) hits += std::isfinite(v);
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(out.size()));
  state.counters["hit_fraction"] = double(hits) / double(out.size());
  wr_sensor_release(sensor);
}

template <int kKind>
void BM_HeightScan(benchmark::State& state) {
  wr_scene scene = scenes().get(kKind);
  std::vector<float> o, d;
  parkour_height_scan(4096, &o, &d);
  const uint64_t n = o.size() / 3;
  std::vector<float> t(n);
  for (auto _ : state)
    check(wr_scene_intersect(scene, o.data(), d.data(), nullptr, n, t.data(), nullptr, nullptr), "intersect");
  size_t hits = 0;
  for (float v : t) hits += std::isfinite(v);
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
  state.counters["hit_fraction"] = double(hits) / double(n);
}

template <int kKind>
void BM_Memory(benchmark::State& state) {
  Scenes& s = scenes();
  wr_memory_stats m{};
  check(wr_scene_memory(s.get(kKind), &m), "wr_scene_memory");
  for (auto _ : state) benchmark::DoNotOptimize(m.host_bytes);
  state.counters["bytes_per_sample"] = double(m.host_bytes) / (double(kNx) * kNy);
  state.counters["build_s"] = s.build_s[kKind];
}

// Every ray row: in milliseconds, timed by the wall clock (UseRealTime, the file's first comment
// says why).
void ray_row(benchmark::internal::Benchmark* b) { b->Unit(benchmark::kMillisecond)->UseRealTime(); }

BENCHMARK_TEMPLATE(BM_Memory, 0)->Name("Memory_HeightField_Bvh")->Iterations(1);
BENCHMARK_TEMPLATE(BM_Memory, 1)->Name("Memory_HeightField_Grid")->Iterations(1);
BENCHMARK_TEMPLATE(BM_Camera, 0)->Name("Camera_HeightField_Bvh")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Camera, 0, WR_CPU_PATH_SCALAR)->Name("Camera_HeightField_Bvh_Scalar")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Camera, 1)->Name("Camera_HeightField_Grid")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Camera, 1, WR_CPU_PATH_SCALAR)->Name("Camera_HeightField_Grid_Scalar")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Camera, 0, WR_CPU_PATH_AVX2)->Name("Camera_HeightField_Bvh_Avx2")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Camera, 1, WR_CPU_PATH_AVX2)->Name("Camera_HeightField_Grid_Avx2")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Lidar, 0)->Name("Lidar_HeightField_Bvh")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Lidar, 1)->Name("Lidar_HeightField_Grid")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_HeightScan, 0)->Name("HeightScan_HeightField_Bvh")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_HeightScan, 1)->Name("HeightScan_HeightField_Grid")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Memory, 2)->Name("Memory_GridMesh_Bvh")->Iterations(1);
BENCHMARK_TEMPLATE(BM_Memory, 3)->Name("Memory_GridMesh_Grid")->Iterations(1);
BENCHMARK_TEMPLATE(BM_Camera, 2)->Name("Camera_GridMesh_Bvh")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Camera, 2, WR_CPU_PATH_SCALAR)->Name("Camera_GridMesh_Bvh_Scalar")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Camera, 3)->Name("Camera_GridMesh_Grid")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Lidar, 2)->Name("Lidar_GridMesh_Bvh")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_Lidar, 3)->Name("Lidar_GridMesh_Grid")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_HeightScan, 2)->Name("HeightScan_GridMesh_Bvh")->Apply(ray_row);
BENCHMARK_TEMPLATE(BM_HeightScan, 3)->Name("HeightScan_GridMesh_Grid")->Apply(ray_row);

}  // namespace

BENCHMARK_MAIN();
