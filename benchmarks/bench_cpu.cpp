// Google Benchmark suite of the CPU backend, through the public C API: BVH build, depth
// render (rays/s for the parkour camera at several env counts) and explicit rays.
//   build/benchmarks/wr-bench-cpu [--benchmark_filter=Render]
// Speed is measured here, never asserted by tests. Quote ratios from one run.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <wr/wr.h>

namespace {

const char* kTerrain = WR_SOURCE_DIR "/assets/parkour_terrain.obj";

void check(wr_status s) {
  if (s != WR_SUCCESS) throw std::runtime_error(wr_last_error());
}

// One context and the bundled terrain, loaded once for the whole run.
struct Fixture {
  wr_context context = nullptr;
  wr_scene scene = nullptr;
  float lo[3], hi[3];
  Fixture() {
    check(wr_context_create(WR_DEVICE_CPU, 0, &context));
    check(wr_scene_load_obj(context, kTerrain, &scene));
    check(wr_scene_bounds(scene, lo, hi));
  }
  ~Fixture() {
    wr_scene_release(scene);
    wr_context_release(context);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

// (n x 7) poses, WXYZ: cameras 1.6 m above the terrain's mid height, random yaw, pitched
// down 0.5 rad, so rays hit the terrain at grazing to steep angles as a robot's would.
std::vector<float> terrain_poses(int n) {
  const Fixture& f = fixture();
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> x(f.lo[0] + 2, f.hi[0] - 2), y(f.lo[1] + 2, f.hi[1] - 2), yaw(-3.14f, 3.14f);
  std::vector<float> poses;
  const float pitch = 0.5f, cp = std::cos(pitch / 2), sp = std::sin(pitch / 2);
  for (int e = 0; e < n; ++e) {
    const float a = yaw(rng), cy = std::cos(a / 2), sy = std::sin(a / 2);
    poses.insert(poses.end(), {x(rng), y(rng), 1.6f, cy * cp, -sy * sp, cy * sp, sy * cp});
  }
  return poses;
}

void BM_BuildBvh(benchmark::State& state) {
  // Parse once, then time wr_scene_create on the arrays (validation + build).
  static std::vector<float> vertices;
  static std::vector<uint32_t> indices;
  if (vertices.empty()) {
    // A heightfield of (n x n) quads: 2 n^2 triangles.
    const int n = 400;
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i)
        vertices.insert(vertices.end(), {0.1f * i, 0.1f * j, 0.2f * std::sin(0.3f * i) * std::cos(0.2f * j)});
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
        indices.insert(indices.end(), {a, b, d, a, d, c});
      }
  }
  for (auto _ : state) {
    wr_scene scene;
    check(wr_scene_create(fixture().context, vertices.data(), vertices.size() / 3, indices.data(), indices.size() / 3,
                          &scene));
    wr_scene_release(scene);
  }
  state.counters["triangles"] = static_cast<double>(indices.size() / 3);
}
BENCHMARK(BM_BuildBvh)->Unit(benchmark::kMillisecond);

// Args: envs, width, height, wr_cpu_path (0 auto, 1 scalar, 2 avx2, 3 avx512).
void BM_Render(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const uint32_t w = static_cast<uint32_t>(state.range(1)), h = static_cast<uint32_t>(state.range(2));
  const wr_cpu_path path = static_cast<wr_cpu_path>(state.range(3));
  if (wr_context_set_cpu_path(fixture().context, path) != WR_SUCCESS) {
    state.SkipWithError(wr_last_error());
    return;
  }
  wr_cpu_path used;
  check(wr_context_cpu_path(fixture().context, &used));
  state.SetLabel(wr_cpu_path_string(used));
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, w, h, 87.0f);
  wr_sensor sensor;
  check(wr_sensor_create(fixture().scene, &desc, n, &sensor));
  const std::vector<float> poses = terrain_poses(n);
  std::vector<float> depth(static_cast<size_t>(n) * w * h);
  for (auto _ : state) check(wr_sensor_render(sensor, poses.data(), depth.data(), nullptr));
  state.counters["rays/s"] =
      benchmark::Counter(static_cast<double>(depth.size()), benchmark::Counter::kIsIterationInvariantRate);
  wr_sensor_release(sensor);
  check(wr_context_set_cpu_path(fixture().context, WR_CPU_PATH_AUTO));
}
BENCHMARK(BM_Render)
    ->Args({64, 106, 60, WR_CPU_PATH_AUTO})
    ->Args({256, 106, 60, WR_CPU_PATH_AUTO})
    ->Args({256, 87, 58, WR_CPU_PATH_AUTO})
    ->Args({1024, 106, 60, WR_CPU_PATH_AUTO})
    ->Args({256, 106, 60, WR_CPU_PATH_SCALAR})  // the same work on each path
    ->Args({256, 106, 60, WR_CPU_PATH_AVX2})
    ->Args({256, 106, 60, WR_CPU_PATH_AVX512})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_IntersectDown(benchmark::State& state) {
  // A height scanner: a grid of vertical rays over the terrain.
  const Fixture& f = fixture();
  const int side = static_cast<int>(state.range(0));
  std::vector<float> origins, directions;
  for (int j = 0; j < side; ++j)
    for (int i = 0; i < side; ++i) {
      origins.insert(origins.end(), {f.lo[0] + (f.hi[0] - f.lo[0]) * (i + 0.5f) / side,
                                     f.lo[1] + (f.hi[1] - f.lo[1]) * (j + 0.5f) / side, f.hi[2] + 1.0f});
      directions.insert(directions.end(), {0.0f, 0.0f, -1.0f});
    }
  std::vector<float> t(origins.size() / 3);
  for (auto _ : state)
    check(
        wr_scene_intersect(f.scene, origins.data(), directions.data(), nullptr, t.size(), t.data(), nullptr, nullptr));
  state.counters["rays/s"] =
      benchmark::Counter(static_cast<double>(t.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_IntersectDown)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
