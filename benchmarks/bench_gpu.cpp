// wr-bench-gpu: times the CUDA backend's batched depth render, and what its scene and sensor
// cost in device memory.
//
// A standalone program, not a Google Benchmark suite: GPU work is timed with CUDA events
// recorded on the render's stream around each render (host clocks would time only the
// enqueue), and each row reports the median of the timed renders after warm-ups.
//
// Grid: terrains {assets/parkour_terrain.obj (or, where it is missing, a generated stand-in),
// a generated ~1M-triangle terrain} x resolutions {87x58, 106x60} x N in {64, 256, 1024, 4096,
// 8192} envs. Cameras: 87 degrees horizontal FOV, plane depth, far clip --far metres; each env
// stands 0.3-0.7 m above the ground under it (found by a 1x1 downward probe sensor on the same
// scene), looks in a random direction and is pitched down 15-45 degrees, rolled up to 5.
//
// Device memory is read two ways: the driver's cudaMemGetInfo delta around scene and sensor
// creation (granular: the driver maps memory in pages of up to 2 MiB), and the library's own
// accounting (wr_scene_memory / wr_sensor_memory).
//
// Without a usable CUDA device it prints "no CUDA device: <reason>" and exits with kNoDevice, so
// that a run on a machine without a GPU can never pass for a measurement (scripts/gpu-check.sh
// reports it as not run).
//
// Before the first timed scene, one tiny scene and sensor are created and rendered (warm_up): the
// driver's one-time work in a process (loading the kernels' module, at their first launch, and
// setting up local memory) would otherwise land in the first terrain's create time and device
// memory and in the first row's sensor memory (tests/kernels/test_cuda_memory.cpp warms up the same way).
//
// Output: markdown tables on stdout (scripts/gpu-check.sh copies them into
// benchmarks/results/); --csv FILE also writes one CSV row per render configuration.
//
// --grid-kinds times the grid terrain kinds against the BVH instead (grid_kinds below): the
// extreme-parkour-sized field (tools/workload/parkour_field.h) as a height field and as
// legged_gym's mesh of it, each as a BVH and as a grid, under the grid scenes' CPU benchmark's
// rays (bench_grid_scenes.cpp) and the cost model's (wr-warp-model --grid-kinds).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime.h>

#include <wr/wr.h>

#include "gpu_workload.h"
#include "parkour_field.h"

#ifndef WR_SOURCE_DIR
#define WR_SOURCE_DIR "."
#endif

namespace {

using wr_bench::Mesh;

// ---- error handling: a benchmark has nothing to recover, it reports and exits 1 -----------------

void cuda_ok(cudaError_t err, const char* call, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "wr-bench-gpu: line %d: %s failed: %s (%s)\n", line, call, cudaGetErrorName(err),
               cudaGetErrorString(err));
  std::exit(1);
}
#define CUDA_OK(call) cuda_ok((call), #call, __LINE__)

void wr_ok(wr_status status, const char* call, int line) {
  if (status == WR_SUCCESS) return;
  std::fprintf(stderr, "wr-bench-gpu: line %d: %s failed: %s: %s\n", line, call, wr_status_string(status),
               wr_last_error());
  std::exit(1);
}
#define WR_OK(call) wr_ok((call), #call, __LINE__)

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

size_t device_free_bytes() {
  CUDA_OK(cudaDeviceSynchronize());
  size_t free_bytes = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

// The exit status without a usable CUDA device: neither success nor a benchmark failure (1).
constexpr int kNoDevice = 2;

// The process's one-time CUDA work, done on a one-triangle scene and a 1x1 sensor (see the top).
void warm_up(wr_context context, cudaStream_t stream) {
  const float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const uint32_t i[3] = {0, 1, 2};
  wr_scene scene = nullptr;
  WR_OK(wr_scene_create(context, v, 3, i, 1, &scene));
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 1, 1, 10.0f);
  wr_sensor sensor = nullptr;
  WR_OK(wr_sensor_create(scene, &desc, 1, &sensor));
  float *d_pose = nullptr, *d_depth = nullptr;
  const float pose[7] = {0.2f, 0.2f, 1.0f, 1, 0, 1, 0};  // above the triangle, looking down
  CUDA_OK(cudaMalloc(&d_pose, sizeof pose));
  CUDA_OK(cudaMalloc(&d_depth, sizeof(float)));
  CUDA_OK(cudaMemcpyAsync(d_pose, pose, sizeof pose, cudaMemcpyHostToDevice, stream));
  WR_OK(wr_sensor_render(sensor, d_pose, d_depth, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaFree(d_pose));
  CUDA_OK(cudaFree(d_depth));
  wr_sensor_release(sensor);
  wr_scene_release(scene);
}

// ---- terrains -----------------------------------------------------------------------------------

struct Terrain {
  std::string name;
  wr_scene scene = nullptr;
  uint64_t triangles = 0;
  double build_s = 0;             // wall clock of wr_scene_create / _load_obj (parse, BVH, upload)
  double driver_delta_bytes = 0;  // cudaMemGetInfo free before - after
  wr_memory_stats stats{};        // the library's own accounting
};

// The scene create() makes (a wr_status call writing it into its wr_scene*), named `name`, with
// its create time and device memory.
template <class Create>
Terrain measure_scene(const std::string& name, const Create& create) {
  Terrain t;
  t.name = name;
  const size_t free_before = device_free_bytes();
  const auto t0 = std::chrono::steady_clock::now();
  WR_OK(create(&t.scene));
  t.build_s = seconds_since(t0);
  t.driver_delta_bytes = double(free_before) - double(device_free_bytes());
  WR_OK(wr_scene_num_triangles(t.scene, &t.triangles));
  WR_OK(wr_scene_memory(t.scene, &t.stats));
  return t;
}

// Builds a scene on `context` from an OBJ file (path non-empty) or from `mesh`, measuring time
// and device memory.
Terrain make_terrain(wr_context context, const std::string& name, const std::string& path, const Mesh* mesh) {
  return measure_scene(name, [&](wr_scene* scene) {
    if (!path.empty()) return wr_scene_load_obj(context, path.c_str(), scene);
    return wr_scene_create(context, mesh->vertices.data(), mesh->vertices.size() / 3, mesh->indices.data(),
                           mesh->indices.size() / 3, scene);
  });
}

// ---- poses --------------------------------------------------------------------------------------

// Ground height under `count` random (x, y) in the inner 90% of the scene's footprint, found by
// one render of a 1x1 plane-depth camera per point, looking straight down from above the scene.
// Returns (count x 3) points: x, y, ground z (the scene's lowest z where the probe misses).
std::vector<float> ground_points(wr_scene scene, uint32_t count, uint32_t seed, cudaStream_t stream) {
  float lo[3], hi[3];
  WR_OK(wr_scene_bounds(scene, lo, hi));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> fx(lo[0] + 0.05f * (hi[0] - lo[0]), hi[0] - 0.05f * (hi[0] - lo[0]));
  std::uniform_real_distribution<float> fy(lo[1] + 0.05f * (hi[1] - lo[1]), hi[1] - 0.05f * (hi[1] - lo[1]));
  const float top = hi[2] + 1.0f;
  std::vector<float> poses(7 * size_t(count));
  for (uint32_t i = 0; i < count; ++i) {
    float* p = &poses[7 * size_t(i)];
    p[0] = fx(rng), p[1] = fy(rng), p[2] = top;
    p[3] = 1, p[4] = 0, p[5] = 1, p[6] = 0;  // (w, x, y, z) = +90 degree pitch, normalised by the library
  }
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 1, 1, 10.0f);
  wr_sensor probe = nullptr;
  WR_OK(wr_sensor_create(scene, &desc, count, &probe));
  float *d_poses = nullptr, *d_depth = nullptr;
  CUDA_OK(cudaMalloc(&d_poses, poses.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_depth, count * sizeof(float)));
  CUDA_OK(cudaMemcpyAsync(d_poses, poses.data(), poses.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  WR_OK(wr_sensor_render(probe, d_poses, d_depth, stream));
  std::vector<float> depth(count);
  CUDA_OK(cudaMemcpyAsync(depth.data(), d_depth, count * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaFree(d_poses));
  CUDA_OK(cudaFree(d_depth));
  wr_sensor_release(probe);
  std::vector<float> points(3 * size_t(count));
  for (uint32_t i = 0; i < count; ++i) {
    points[3 * i] = poses[7 * size_t(i)];
    points[3 * i + 1] = poses[7 * size_t(i) + 1];
    points[3 * i + 2] = std::isfinite(depth[i]) ? top - depth[i] : lo[2];
  }
  return points;
}

// ---- timing -------------------------------------------------------------------------------------

// Holds a stream until opened, so that every timed render is enqueued before the GPU starts on the
// first: the events then time the renders back to back on the GPU. Without it a short render can
// finish before the host has enqueued the next one, and each event pair would time the host's
// enqueueing instead (its cost is reported on its own, as host us per call).
struct StreamGate {
  std::atomic<bool> open{false};
  static void CUDART_CB wait(void* self) {  // runs on the CUDA runtime's callback thread
    const auto* gate = static_cast<const StreamGate*>(self);
    while (!gate->open.load()) std::this_thread::yield();
  }
};

struct Timing {
  double ms_median = 0, ms_min = 0, ms_max = 0;  // GPU time of one call, CUDA events
  double host_us_per_call = 0;                   // wall clock of one call on the host (enqueue)
};

// Times enqueue() (a wr_status call that enqueues work on `stream`): `warmups` calls, then
// `iterations` timed ones with an event pair each, all enqueued back to back as a simulation loop
// would, behind a gate (StreamGate), read after one synchronisation at the end.
template <class Enqueue>
Timing time_enqueued(const Enqueue& enqueue, int warmups, int iterations, cudaStream_t stream) {
  for (int i = 0; i < warmups; ++i) WR_OK(enqueue());
  CUDA_OK(cudaStreamSynchronize(stream));
  const size_t timed = size_t(iterations);
  std::vector<cudaEvent_t> start(timed), stop(timed);
  for (int i = 0; i < iterations; ++i) {
    CUDA_OK(cudaEventCreate(&start[size_t(i)]));
    CUDA_OK(cudaEventCreate(&stop[size_t(i)]));
  }
  StreamGate gate;
  CUDA_OK(cudaLaunchHostFunc(stream, StreamGate::wait, &gate));
  double host_s = 0;
  for (int i = 0; i < iterations; ++i) {
    CUDA_OK(cudaEventRecord(start[size_t(i)], stream));
    const auto t0 = std::chrono::steady_clock::now();
    const wr_status status = enqueue();
    host_s += seconds_since(t0);
    if (status != WR_SUCCESS) gate.open.store(true);  // let the stream go before exiting
    WR_OK(status);
    CUDA_OK(cudaEventRecord(stop[size_t(i)], stream));
  }
  gate.open.store(true);
  CUDA_OK(cudaStreamSynchronize(stream));
  Timing t;
  t.host_us_per_call = host_s / iterations * 1e6;
  std::vector<double> ms(timed);
  for (int i = 0; i < iterations; ++i) {
    float elapsed = 0;
    CUDA_OK(cudaEventElapsedTime(&elapsed, start[size_t(i)], stop[size_t(i)]));
    ms[size_t(i)] = elapsed;
    CUDA_OK(cudaEventDestroy(start[size_t(i)]));
    CUDA_OK(cudaEventDestroy(stop[size_t(i)]));
  }
  std::sort(ms.begin(), ms.end());
  const size_t mid = ms.size() / 2;
  t.ms_median = ms.size() % 2 ? ms[mid] : 0.5 * (ms[mid - 1] + ms[mid]);
  t.ms_min = ms.front();
  t.ms_max = ms.back();
  return t;
}

struct Row {
  std::string terrain;
  uint64_t triangles = 0;
  uint32_t n = 0, width = 0, height = 0;
  double ms_median = 0, ms_min = 0, ms_max = 0, grays = 0, hit_fraction = 0;
  double host_us_per_call = 0;     // wall clock of one wr_sensor_render call on the host (enqueue)
  double sensor_driver_bytes = 0;  // cudaMemGetInfo delta around wr_sensor_create
  uint64_t sensor_lib_bytes = 0;   // wr_sensor_memory device_bytes
  double output_bytes = 0;         // the caller's depth buffer (N x H x W floats), for scale
};

// A sensor of `desc` on t's scene for the n envs of `poses` (n x 7), timed (time_enqueued), with
// its device memory and a sanity figure: the share of pixels that hold something other than the
// miss value (a hit within the clip range). Near zero would mean the cameras look at nothing and
// the timing measures empty space.
struct CameraRun {
  Timing timing;
  double hit_fraction = 0;
  double sensor_driver_bytes = 0;  // cudaMemGetInfo delta around wr_sensor_create
  uint64_t sensor_lib_bytes = 0;   // wr_sensor_memory device_bytes
};

CameraRun time_camera(const Terrain& t, const wr_camera_desc& desc, const std::vector<float>& poses, uint32_t n,
                      int warmups, int iterations, cudaStream_t stream) {
  CameraRun run;
  const size_t free_before = device_free_bytes();
  wr_sensor sensor = nullptr;
  WR_OK(wr_sensor_create(t.scene, &desc, n, &sensor));
  run.sensor_driver_bytes = double(free_before) - double(device_free_bytes());
  wr_memory_stats stats{};
  WR_OK(wr_sensor_memory(sensor, &stats));
  run.sensor_lib_bytes = stats.device_bytes;

  const size_t pixels = size_t(n) * desc.width * desc.height;
  float *d_poses = nullptr, *d_depth = nullptr;
  CUDA_OK(cudaMalloc(&d_poses, poses.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_depth, pixels * sizeof(float)));
  CUDA_OK(cudaMemcpyAsync(d_poses, poses.data(), poses.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  run.timing =
      time_enqueued([&] { return wr_sensor_render(sensor, d_poses, d_depth, stream); }, warmups, iterations, stream);

  std::vector<float> depth(pixels);
  CUDA_OK(cudaMemcpyAsync(depth.data(), d_depth, pixels * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  const float miss = desc.miss_value;
  const size_t hits =
      size_t(std::count_if(depth.begin(), depth.end(), [miss](float v) { return std::isfinite(v) && !(v == miss); }));
  run.hit_fraction = double(hits) / double(pixels);

  CUDA_OK(cudaFree(d_poses));
  CUDA_OK(cudaFree(d_depth));
  wr_sensor_release(sensor);
  return run;
}

Row time_config(const Terrain& t, const std::vector<float>& ground, uint32_t n, uint32_t width, uint32_t height,
                float far_clip, int warmups, int iterations, cudaStream_t stream, std::mt19937& rng) {
  Row row;
  row.terrain = t.name;
  row.triangles = t.triangles;
  row.n = n, row.width = width, row.height = height;
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, width, height, wr_bench::kHfovDegrees);
  desc.far_clip = far_clip;
  const CameraRun run = time_camera(t, desc, wr_bench::robot_poses(ground, n, rng), n, warmups, iterations, stream);
  const size_t pixels = size_t(n) * width * height;
  row.output_bytes = double(pixels) * sizeof(float);
  row.sensor_driver_bytes = run.sensor_driver_bytes;
  row.sensor_lib_bytes = run.sensor_lib_bytes;
  row.host_us_per_call = run.timing.host_us_per_call;
  row.ms_median = run.timing.ms_median;
  row.ms_min = run.timing.ms_min;
  row.ms_max = run.timing.ms_max;
  row.grays = double(pixels) / (row.ms_median * 1e-3) / 1e9;
  row.hit_fraction = run.hit_fraction;
  return row;
}

// ---- the grid terrain kinds (--grid-kinds) -------------------------------------------------------

// kind: 0 the height field as a BVH, 1 as a grid, 2 legged_gym's mesh of it as a BVH, 3 as a grid.
const char* const kKindNames[4] = {"height field, BVH", "height field, grid", "legged_gym mesh, BVH",
                                   "legged_gym mesh, grid"};

// The scene of `kind`, its create time (the library's: the samples or mesh are made before).
Terrain make_kind_scene(wr_context context, int kind) {
  if (kind < 2) {
    wr_heightfield_desc d;
    wr_heightfield_desc_init(&d);
    d.heights = wr_bench::parkour_heights().data();
    d.num_x = wr_bench::kNx, d.num_y = wr_bench::kNy;
    d.spacing_x = d.spacing_y = wr_bench::kSpacing;
    d.terrain = kind == 0 ? WR_TERRAIN_BVH : WR_TERRAIN_GRID;
    return measure_scene(kKindNames[kind],
                         [&](wr_scene* scene) { return wr_scene_create_heightfield(context, &d, scene); });
  }
  const wr_tools::TriangleMesh& m = wr_bench::parkour_legged_gym_mesh();
  const uint64_t nv = m.vertices.size() / 3, nt = m.indices.size() / 3;
  return measure_scene(kKindNames[kind], [&](wr_scene* scene) {
    return kind == 2 ? wr_scene_create(context, m.vertices.data(), nv, m.indices.data(), nt, scene)
                     : wr_scene_create_grid_mesh(context, m.vertices.data(), nv, m.indices.data(), nt, scene);
  });
}

// IsaacLab's height scan at n envs (wr_scene_intersect over n x 187 rays).
Timing time_kind_scan(const Terrain& t, uint32_t n, int warmups, int iterations, cudaStream_t stream,
                      double* hit_fraction, uint64_t* rays) {
  std::vector<float> o, d;
  wr_bench::parkour_height_scan(int(n), &o, &d);
  const uint64_t count = o.size() / 3;
  float *d_o = nullptr, *d_d = nullptr, *d_t = nullptr;
  CUDA_OK(cudaMalloc(&d_o, o.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_d, d.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_t, count * sizeof(float)));
  CUDA_OK(cudaMemcpyAsync(d_o, o.data(), o.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  CUDA_OK(cudaMemcpyAsync(d_d, d.data(), d.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  const Timing timing =
      time_enqueued([&] { return wr_scene_intersect(t.scene, d_o, d_d, nullptr, count, d_t, nullptr, stream); },
                    warmups, iterations, stream);
  std::vector<float> out(count);
  CUDA_OK(cudaMemcpyAsync(out.data(), d_t, count * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  *hit_fraction =
      double(std::count_if(out.begin(), out.end(), [](float v) { return std::isfinite(v); })) / double(count);
  *rays = count;
  CUDA_OK(cudaFree(d_o));
  CUDA_OK(cudaFree(d_d));
  CUDA_OK(cudaFree(d_t));
  return timing;
}

// The four kinds one after the other (each scene released before the next is made): the scene's
// device memory and create time, the parkour camera at N = 256 and 4096, the height scan at
// N = 4096.
void grid_kinds(wr_context context, int warmups, int iterations, cudaStream_t stream) {
  std::printf("## Grid terrain kinds: the extreme-parkour-sized field (%u x %u samples at %g m)\n\n", wr_bench::kNx,
              wr_bench::kNy, double(wr_bench::kSpacing));
  std::printf(
      "| kind | create s | device MiB (driver) | device MiB (library) | device bytes/sample (library) | rays | N | "
      "ms (median) | ms min | ms max | G rays/s | hits %% | host us/call |\n"
      "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  const double samples = double(wr_bench::kNx) * wr_bench::kNy;
  for (int kind = 0; kind < 4; ++kind) {
    Terrain t = make_kind_scene(context, kind);
    const auto row = [&](const char* rays_name, uint32_t n, uint64_t rays, const Timing& timing, double hits) {
      std::printf("| %s | %.2f | %.1f | %.1f | %.2f | %s | %u | %.3f | %.3f | %.3f | %.2f | %.1f | %.1f |\n",
                  t.name.c_str(), t.build_s, mib(t.driver_delta_bytes), mib(double(t.stats.device_bytes)),
                  double(t.stats.device_bytes) / samples, rays_name, n, timing.ms_median, timing.ms_min, timing.ms_max,
                  double(rays) / (timing.ms_median * 1e-3) / 1e9, 100.0 * hits, timing.host_us_per_call);
      std::fflush(stdout);
    };
    wr_camera_desc desc;
    WR_OK(wr_bench::parkour_camera(&desc));
    for (uint32_t n : {256u, 4096u}) {
      const CameraRun run =
          time_camera(t, desc, wr_bench::parkour_camera_poses(int(n)), n, warmups, iterations, stream);
      row("camera 106x60", n, uint64_t(n) * desc.width * desc.height, run.timing, run.hit_fraction);
    }
    double hits = 0;
    uint64_t rays = 0;
    const Timing timing = time_kind_scan(t, 4096, warmups, iterations, stream, &hits, &rays);
    row("height scan, 187 rays", 4096, rays, timing, hits);
    wr_scene_release(t.scene);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wr-bench-gpu: CUDA-event timings and device memory of warp-raycaster's batched depth render",
               "wr-bench-gpu"};
  std::string csv_path;
  bool quick = false, sweep = false;
  int ordinal = 0;
  float far_clip = wr_bench::kFarClip;
  std::string obj_path = WR_SOURCE_DIR "/assets/parkour_terrain.obj";
  app.add_option("--csv", csv_path, "also write one CSV row per configuration to FILE");
  app.add_flag("--quick", quick, "a short run: N in {64, 1024}, 106x60 only, 1 warm-up + 5 timed renders");
  app.add_flag("--sweep", sweep,
               "the rows of the targets only, for timing build variants side by side "
               "(scripts/gpu-check.sh): N in {64, 4096}, 106x60, 2 warm-ups + 10 timed renders")
      ->excludes("--quick");
  bool kinds = false;
  app.add_flag("--grid-kinds", kinds,
               "the grid terrain kinds against the BVH on the extreme-parkour-sized field, instead of the "
               "render grid: 3 warm-ups + 20 timed calls (5 with --quick)")
      ->excludes("--sweep")
      ->excludes("--csv");
  app.add_option("--device", ordinal, "CUDA device ordinal")->capture_default_str();
  app.add_option("--far", far_clip, "far clip of the cameras, metres")->capture_default_str();
  app.add_option("--obj", obj_path, "the bundled terrain (a generated one stands in where it is missing)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  // ---- the device, or a clean exit without one ----
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    // The library's reason says what is missing (no driver at all, and the driver this build
    // needs) where the runtime's text would send the user to update a driver there is not.
    wr_context unused = nullptr;
    if (wr_context_create(WR_DEVICE_CUDA, ordinal, &unused) != WR_SUCCESS)
      std::printf("no CUDA device: %s\n", wr_last_error());
    else if (probe != cudaSuccess)
      std::printf("no CUDA device: %s (%s)\n", cudaGetErrorName(probe), cudaGetErrorString(probe));
    else
      std::printf("no CUDA device: cudaGetDeviceCount found none\n");
    wr_context_release(unused);
    return kNoDevice;
  }
  wr_context context = nullptr;
  const wr_status created = wr_context_create(WR_DEVICE_CUDA, ordinal, &context);
  if (created == WR_ERROR_UNSUPPORTED) {
    std::printf("no CUDA device: %s\n", wr_last_error());
    return kNoDevice;
  }
  WR_OK(created);
  CUDA_OK(cudaSetDevice(ordinal));
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, ordinal));
  int driver = 0, runtime = 0;
  CUDA_OK(cudaDriverGetVersion(&driver));
  CUDA_OK(cudaRuntimeGetVersion(&runtime));
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const std::vector<uint32_t> envs = quick   ? std::vector<uint32_t>{64, 1024}
                                     : sweep ? std::vector<uint32_t>{64, 4096}
                                             : std::vector<uint32_t>{64, 256, 1024, 4096, 8192};
  const std::vector<std::pair<uint32_t, uint32_t>> resolutions =
      quick || sweep ? std::vector<std::pair<uint32_t, uint32_t>>{{106, 60}}
                     : std::vector<std::pair<uint32_t, uint32_t>>{{87, 58}, {106, 60}};
  const int warmups = quick ? 1 : sweep ? 2 : 3, iterations = quick ? 5 : sweep ? 10 : 20;
  const uint32_t max_envs = *std::max_element(envs.begin(), envs.end());

  std::printf("# wr-bench-gpu\n\n");
  std::printf("- device: %s (%d SMs, %.1f GiB), compute capability %d.%d, ordinal %d\n", prop.name,
              prop.multiProcessorCount, double(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), prop.major,
              prop.minor, ordinal);
  std::printf("- CUDA driver API %d.%d, runtime %d.%d\n", driver / 1000, (driver % 1000) / 10, runtime / 1000,
              (runtime % 1000) / 10);
  if (kinds) {
    std::printf(
        "- rays: the parkour camera (106x60, 87 deg, far clip 10 m, 1.6 m up, pitched down 0.5 rad) through "
        "wr_sensor_render, IsaacLab's 187-ray height scan (vertical, from 20 m) through wr_scene_intersect "
        "(tools/workload/parkour_field.h: the rays of wr-bench-grid-scenes on the CPU)\n");
  } else {
    std::printf(
        "- cameras: 87 deg horizontal FOV, plane depth, far clip %g m, 0.3-0.7 m above the ground, "
        "pitched down 15-45 deg, random heading\n",
        double(far_clip));
  }
  std::printf(
      "- timing: %d warm-up + %d timed calls per row on one non-blocking stream, all enqueued "
      "before the GPU starts on them, CUDA events around each call; ms is the median; host us/call "
      "is the mean wall clock of one call (the enqueue)\n\n",
      warmups, iterations);
  std::fflush(stdout);

  warm_up(context, stream);

  if (kinds) {
    grid_kinds(context, warmups, iterations, stream);
    CUDA_OK(cudaStreamDestroy(stream));
    wr_context_release(context);
    return 0;
  }

  // ---- scenes ----
  std::vector<Terrain> terrains;
  {
    std::ifstream obj(obj_path);
    if (obj.good()) {
      terrains.push_back(make_terrain(context, "parkour_terrain.obj", obj_path, nullptr));
    } else {
      std::printf("note: %s is missing; a generated 400x400 heightfield stands in for it\n\n", obj_path.c_str());
      const Mesh stand_in = wr_bench::generated_terrain(400, 0.1f, 100, 42);
      terrains.push_back(make_terrain(context, "stand-in 400x400 heightfield", "", &stand_in));
    }
  }
  {
    const Mesh big = wr_bench::million_triangle_terrain();
    terrains.push_back(make_terrain(context, "generated 708x708 + boxes", "", &big));
  }

  std::printf("## Scenes (device memory: driver = cudaMemGetInfo delta, library = wr_scene_memory)\n\n");
  std::printf(
      "| terrain | triangles | create s (parse, BVH, upload) | device MiB (driver) | device MiB (library) | host MiB "
      "(library) |\n|---|---:|---:|---:|---:|---:|\n");
  for (const Terrain& t : terrains)
    std::printf("| %s | %llu | %.2f | %.1f | %.1f | %.1f |\n", t.name.c_str(),
                static_cast<unsigned long long>(t.triangles), t.build_s, mib(t.driver_delta_bytes),
                mib(double(t.stats.device_bytes)), mib(double(t.stats.host_bytes)));
  std::printf("\n");
  std::fflush(stdout);

  // ---- renders ----
  std::printf(
      "## Renders (sensor memory: driver = cudaMemGetInfo delta around wr_sensor_create, library = "
      "wr_sensor_memory; output = the caller's N x H x W float buffer)\n\n");
  std::printf(
      "| terrain | triangles | N | WxH | ms/render (median) | ms min | ms max | G rays/s | hits %% | "
      "host us/call | sensor KiB (driver) | sensor KiB (library) | output MiB |\n"
      "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  std::vector<Row> rows;
  std::mt19937 rng(2024);
  for (size_t k = 0; k < terrains.size(); ++k) {
    const std::vector<float> ground = ground_points(terrains[k].scene, max_envs, uint32_t(100 + k), stream);
    for (const auto& res : resolutions)
      for (uint32_t n : envs) {
        const Row r =
            time_config(terrains[k], ground, n, res.first, res.second, far_clip, warmups, iterations, stream, rng);
        std::printf("| %s | %llu | %u | %ux%u | %.3f | %.3f | %.3f | %.2f | %.1f | %.1f | %.0f | %.1f | %.1f |\n",
                    r.terrain.c_str(), static_cast<unsigned long long>(r.triangles), r.n, r.width, r.height,
                    r.ms_median, r.ms_min, r.ms_max, r.grays, 100.0 * r.hit_fraction, r.host_us_per_call,
                    r.sensor_driver_bytes / 1024.0, double(r.sensor_lib_bytes) / 1024.0, mib(r.output_bytes));
        std::fflush(stdout);
        rows.push_back(r);
      }
  }

  if (!csv_path.empty()) {
    std::ofstream csv(csv_path);
    csv << "terrain,triangles,num_envs,width,height,ms_median,ms_min,ms_max,grays_per_s,hit_fraction,"
           "scene_build_s,scene_device_bytes_driver,scene_device_bytes_library,sensor_device_bytes_driver,"
           "sensor_device_bytes_library,output_bytes,host_us_per_call\n";
    for (const Row& r : rows) {
      const Terrain& t =
          *std::find_if(terrains.begin(), terrains.end(), [&](const Terrain& x) { return x.name == r.terrain; });
      csv << '"' << r.terrain << "\"," << r.triangles << ',' << r.n << ',' << r.width << ',' << r.height << ','
          << r.ms_median << ',' << r.ms_min << ',' << r.ms_max << ',' << r.grays << ',' << r.hit_fraction << ','
          << t.build_s << ',' << t.driver_delta_bytes << ',' << t.stats.device_bytes << ',' << r.sensor_driver_bytes
          << ',' << r.sensor_lib_bytes << ',' << r.output_bytes << ',' << r.host_us_per_call << '\n';
    }
    if (!csv) {
      std::fprintf(stderr, "wr-bench-gpu: could not write %s\n", csv_path.c_str());
      return 1;
    }
    std::printf("\nwrote %s\n", csv_path.c_str());
  }

  for (Terrain& t : terrains) wr_scene_release(t.scene);
  CUDA_OK(cudaStreamDestroy(stream));
  wr_context_release(context);
  return 0;
}
