// wr-bench-memory: what one shared BVH and one shared ray template save against per-camera
// designs, measured in one run.
//
//   One command:  cmake --build build --target bench-memory
//   (scripts/run-benchmarks.sh --only memory: prints the tables below into
//   benchmarks/results/memory-<date>-cpu.md, writes the CSV beside it, and draws its plot, the
//   .png, with plot_memory.py)
//
// Three strategies (strategy.h) each really allocate and really render the same depth
// images of the bundled terrain (assets/parkour_terrain.obj): 106 x 60 pixels, 87 degrees
// horizontal FOV, plane depth, cameras 0.4 m above the ground under them (found by a 1x1
// downward probe sensor, as apps/wr_demo.cpp does), random yaw, pitched 30 degrees down:
//   a. shared          this library: one wr_sensor for N envs + the caller's [N, H, W] output
//   b. ray buffers     IsaacLab RayCasterCamera's per-env ray buffers, 72 bytes per ray
//   c. render targets  IsaacGym-style per-camera RGBA8 + float32 targets, one sensor each
// (b) and (c) must produce (a)'s depth images per pixel (relative error <= 1e-4).
//
// For every N (default 32 64 128 192 512 1024 4096) and strategy, in a forked child
// (child_process.h says why), it records:
//   reported  the library's accounting (wr_scene_memory + wr_sensor_memory) plus the
//             strategy's own buffers, counted exactly as allocated;
//   measured  from outside: the RSS delta (/proc/self/statm) from just after
//             wr_context_create to after the scene and the strategy exist with every page
//             touched; on a GPU the cudaMemGetInfo delta over the same span;
//   time      per frame, std::chrono, the median of a few frames (fewer at large N: at most
//             --ray-budget rays per measurement, at least one frame).
// Then it fits memory = init + slope * N by least squares (Eigen) per strategy and source,
// prints the fits, host RAM as the library loads, and whether the design targets hold:
// shared per-env bytes inside the library <= 64; shared init <= 100 bytes per triangle;
// ray-buffer slope ~= 72 bytes per ray.
//
// Without WR_BUILT_WITH_CUDA (a build without CUDA) everything runs on the CPU backend;
// with it, --device auto uses the GPU where one is usable (buffers on the device, the
// driver's figures as the measured source) and the CPU otherwise.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <wr/wr.h>

#include "buffer.h"
#include "child_process.h"
#include "linear_fit.h"
#include "process_memory.h"
#include "strategy.h"
#include "workload.h"

#ifndef WR_SOURCE_DIR
#define WR_SOURCE_DIR "."
#endif

namespace {

using namespace wrbench;
using Clock = std::chrono::steady_clock;

constexpr double kTolerance = 1e-4;  // largest relative depth error of (b), (c) against (a)
constexpr double kMiB = 1024.0 * 1024.0;

// ---- what children report (plain data in shared memory) ------------------------------------

struct DeviceChoice {
  int ok = 0;
  int use_cuda = 0;
  char note[400] = {};  // why the CPU was used where CUDA was asked for or built in
};

struct LoadReport {
  int ok = 0;
  uint64_t rss_start = 0, rss_context = 0, rss_scene = 0, rss_sensor = 0;  // bytes
  uint64_t dev_context = 0, dev_scene = 0, dev_sensor = 0;                 // device bytes in use
  uint64_t triangles = 0;
  uint32_t threads = 0;
  double scene_load_s = 0;
  wr_memory_stats scene{}, sensor{};  // the 1-env sensor of the workload's camera
};

struct Measurement {
  int ok = 0;
  int strategy = 0;
  uint32_t num_envs = 0;
  ByteCount scene, library, own;  // scene: wr_scene_memory; library: the strategy's sensors
  uint64_t per_env_field = 0;     // largest wr_memory_stats::per_env_bytes of its sensors
  int64_t rss_delta = 0;          // after strategy creation - after context creation
  int64_t anon_delta = 0;         // the same, anonymous pages only (code pages left out)
  int64_t rss_growth_frames = 0;  // after the frames - after creation (render allocates nothing)
  int64_t device_delta = 0;       // cudaMemGetInfo: in use after - in use before
  double create_s = 0;
  int frames = 0;
  double ms_median = 0, ms_min = 0, ms_max = 0;
  int compared = 0;  // 1 when checked against (a)'s images
  double max_rel_error = 0;
  uint64_t pixels_over = 0, pixels = 0;
  double hit_fraction = 0;

  uint64_t reported(Space s) const { return scene.in(s) + library.in(s) + own.in(s); }
  int64_t measured(Space s) const { return s == Space::kHost ? rss_delta : device_delta; }
};

// ---- children -------------------------------------------------------------------------------

wr_scene load_scene(wr_context context, const Workload& w) {
  wr_scene scene = nullptr;
  WR_CHECK(wr_scene_load_obj(context, w.obj_path.c_str(), &scene));
  return scene;
}

int choose_device(const std::string& wanted, const Workload& w, DeviceChoice* out) {
  out->ok = 1;
  if (wanted == "cpu") return 0;
  if (!built_with_cuda()) {
    if (wanted == "cuda") die("--device cuda: this build has no CUDA (configure with -DWR_ENABLE_CUDA=ON)");
    std::snprintf(out->note, sizeof out->note, "built without CUDA");
    return 0;
  }
  wr_context context = nullptr;
  const wr_status status = wr_context_create(WR_DEVICE_CUDA, w.ordinal, &context);
  if (status == WR_SUCCESS) {
    wr_context_release(context);
    out->use_cuda = 1;
    return 0;
  }
  if (wanted == "cuda") die("--device cuda: %s: %s", wr_status_string(status), wr_last_error());
  std::snprintf(out->note, sizeof out->note, "no usable CUDA device: %s", wr_last_error());
  return 0;
}

// Host RAM (and device memory) as the library comes into use, and the camera poses.
int load_and_place(Space space, const Workload& w, uint32_t max_envs, LoadReport* out, float* poses) {
  out->rss_start = resident_bytes();
  wr_context context = create_context(space, w);
  WR_CHECK(wr_context_num_threads(context, &out->threads));
  release_free_heap();
  out->rss_context = resident_bytes();
  if (space == Space::kDevice) out->dev_context = device_used_bytes();
  const auto t0 = Clock::now();
  wr_scene scene = load_scene(context, w);
  out->scene_load_s = std::chrono::duration<double>(Clock::now() - t0).count();
  release_free_heap();
  out->rss_scene = resident_bytes();
  if (space == Space::kDevice) out->dev_scene = device_used_bytes();
  const wr_camera_desc desc = camera_desc(w);
  wr_sensor sensor = nullptr;
  WR_CHECK(wr_sensor_create(scene, &desc, 1, &sensor));
  release_free_heap();
  out->rss_sensor = resident_bytes();
  if (space == Space::kDevice) out->dev_sensor = device_used_bytes();
  WR_CHECK(wr_scene_num_triangles(scene, &out->triangles));
  WR_CHECK(wr_scene_memory(scene, &out->scene));
  WR_CHECK(wr_sensor_memory(sensor, &out->sensor));
  wr_sensor_release(sensor);

  void* stream = create_stream(space);
  const std::vector<float> p = place_cameras(scene, space, stream, max_envs, w);
  std::memcpy(poses, p.data(), p.size() * sizeof(float));
  destroy_stream(space, stream);
  wr_scene_release(scene);
  wr_context_release(context);
  out->ok = 1;
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// One (strategy, N): create, measure, render, check against (a)'s images in `reference`.
int measure(StrategyKind kind, uint32_t n, Space space, const Workload& w, const float* poses, int max_frames,
            double ray_budget, float* reference, Measurement* m) {
  m->strategy = int(kind);
  m->num_envs = n;
  wr_context context = create_context(space, w);
  void* stream = create_stream(space);
  release_free_heap();
  const uint64_t rss0 = resident_bytes(), anon0 = resident_anonymous_bytes();
  const uint64_t dev0 = space == Space::kDevice ? device_used_bytes() : 0;

  const auto t0 = Clock::now();
  wr_scene scene = load_scene(context, w);
  StrategyInput in;
  in.scene = scene;
  in.desc = camera_desc(w);
  in.num_envs = n;
  in.host_poses = poses;
  in.space = space;
  in.stream = stream;
  std::unique_ptr<Strategy> strategy = make_strategy(kind, in);
  m->create_s = std::chrono::duration<double>(Clock::now() - t0).count();
  release_free_heap();
  const uint64_t rss1 = resident_bytes(), anon1 = resident_anonymous_bytes();
  const uint64_t dev1 = space == Space::kDevice ? device_used_bytes() : 0;
  m->rss_delta = int64_t(rss1) - int64_t(rss0);
  m->anon_delta = int64_t(anon1) - int64_t(anon0);
  m->device_delta = int64_t(dev1) - int64_t(dev0);

  wr_memory_stats scene_stats{};
  WR_CHECK(wr_scene_memory(scene, &scene_stats));
  m->scene.host = scene_stats.host_bytes, m->scene.device = scene_stats.device_bytes;
  m->library = strategy->library_bytes();
  m->own = strategy->own_bytes();
  m->per_env_field = std::max(scene_stats.per_env_bytes, strategy->library_per_env_bytes());

  const double rays_per_frame = double(n) * w.rays();
  m->frames = int(std::clamp(std::floor(ray_budget / rays_per_frame), 1.0, double(std::max(1, max_frames))));
  std::vector<double> ms;
  for (int f = 0; f < m->frames; ++f) {
    const auto f0 = Clock::now();
    strategy->render_frame();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - f0).count());
  }
  m->ms_median = median(ms);
  m->ms_min = *std::min_element(ms.begin(), ms.end());
  m->ms_max = *std::max_element(ms.begin(), ms.end());
  release_free_heap();
  m->rss_growth_frames = int64_t(resident_bytes()) - int64_t(rss1);

  // Everything below happens after the measurement: the output copy may cost what it likes.
  m->pixels = uint64_t(n) * w.rays();
  std::vector<float> out(m->pixels);
  strategy->read_output(out.data());
  uint64_t hits = 0;
  for (float v : out) hits += std::isfinite(v);
  m->hit_fraction = double(hits) / double(m->pixels);
  if (kind == StrategyKind::kShared) {
    std::memcpy(reference, out.data(), out.size() * sizeof(float));
  } else if (reference) {
    m->compared = 1;
    for (uint64_t i = 0; i < m->pixels; ++i) {
      const float a = reference[i], b = out[i];
      double err = 0;
      if (std::isfinite(a) && std::isfinite(b))
        err = std::fabs(double(b) - double(a)) / std::max(std::fabs(double(a)), 1e-6);
      else if (!(a == b))  // +inf == +inf is a shared miss; anything else (NaN, inf vs finite) is wrong
        err = INFINITY;
      m->max_rel_error = std::max(m->max_rel_error, err);
      m->pixels_over += err > kTolerance;
    }
  }

  strategy.reset();
  wr_scene_release(scene);
  destroy_stream(space, stream);
  wr_context_release(context);
  m->ok = 1;
  return 0;
}

// ---- reporting --------------------------------------------------------------------------------

double kib(double bytes) { return bytes / 1024.0; }

struct FitRow {
  StrategyKind kind;
  std::string source;
  LinearFit fit;
};

const char* pass(bool ok) { return ok ? "PASS" : "FAIL"; }

}  // namespace

int main(int argc, char** argv) {
  pin_malloc_thresholds();  // first of all: every child inherits it

  CLI::App app{
      "wr-bench-memory: memory and time of a shared sensor vs per-camera ray buffers vs per-camera "
      "render targets",
      "wr-bench-memory"};
  Workload w;
  w.obj_path = WR_SOURCE_DIR "/assets/parkour_terrain.obj";
  std::vector<uint32_t> envs = {32, 64, 128, 192, 512, 1024, 4096};
  bool quick = false;
  int frames = 3;
  double ray_budget = 0;  // 0: 3e7 rays on the CPU, 3e9 on a GPU (run times: benchmarks/results/memory-*.md)
  std::string device = "auto", csv_path;
  auto* envs_opt =
      app.add_option("--envs", envs, "env counts N to measure (at least two)")->delimiter(',')->capture_default_str();
  app.add_flag("--quick", quick, "a small set: N in {16, 32, 64, 128}")->excludes(envs_opt);
  app.add_option("--frames", frames, "most frames timed per measurement (the median is reported)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--ray-budget", ray_budget,
                 "fewer frames where frames x N x rays would exceed this (0: 3e7 on the CPU, 3e9 on a GPU)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--device", device, "where to render: auto (CUDA where usable), cpu, cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--ordinal", w.ordinal, "CUDA device ordinal")->capture_default_str();
  app.add_option("--threads", w.threads, "CPU context threads (0: one per hardware thread)")->capture_default_str();
  app.add_option("--obj", w.obj_path, "terrain mesh (Wavefront OBJ)")->capture_default_str();
  app.add_option("--csv", csv_path,
                 "write one CSV row per (strategy, N) to FILE (benchmarks/memory/plot_memory.py draws it)");
  CLI11_PARSE(app, argc, argv);
  if (quick) envs = {16, 32, 64, 128};
  std::sort(envs.begin(), envs.end());
  envs.erase(std::unique(envs.begin(), envs.end()), envs.end());
  if (envs.size() < 2 || envs.front() == 0) die("--envs: give at least two different env counts, each >= 1");
  const uint32_t max_envs = envs.back();
  if (!std::ifstream(w.obj_path).good()) die("%s: cannot open the terrain mesh", w.obj_path.c_str());

  // ---- device, host RAM as the library loads, poses ----
  SharedRegion choice_region(sizeof(DeviceChoice));
  DeviceChoice* choice = new (choice_region.data()) DeviceChoice;
  if (run_in_child([&] { return choose_device(device, w, choice); }) != 0 || !choice->ok)
    die("choosing the device failed (see above)");
  const Space space = choice->use_cuda ? Space::kDevice : Space::kHost;
  const char* space_name = space == Space::kDevice ? "cuda" : "cpu";
  const char* measured_name = space == Space::kDevice ? "cudaMemGetInfo" : "RSS";
  if (ray_budget == 0) ray_budget = space == Space::kDevice ? 3e9 : 3e7;

  SharedRegion load_region(sizeof(LoadReport)), pose_region(size_t(max_envs) * 7 * sizeof(float));
  LoadReport* load = new (load_region.data()) LoadReport;
  if (run_in_child([&] { return load_and_place(space, w, max_envs, load, pose_region.as<float>()); }) != 0 || !load->ok)
    die("loading the scene or placing the cameras failed (see above)");
  const float* poses = pose_region.as<float>();

  const wr_camera_desc desc = camera_desc(w);
  std::printf("# wr-bench-memory\n\n");
  std::printf("device: %s%s%s; %u CPU thread(s)\n", space == Space::kDevice ? "CUDA device " : "CPU",
              space == Space::kDevice ? std::to_string(w.ordinal).c_str() : "",
              choice->note[0] ? (std::string(" (") + choice->note + ")").c_str() : "", load->threads);
  std::printf("scene: %s, %llu triangles, loaded in %.2f s\n", w.obj_path.c_str(),
              static_cast<unsigned long long>(load->triangles), load->scene_load_s);
  std::printf(
      "camera: %ux%u = %u rays, %.0f deg HFOV (fx %.2f), plane depth, no clipping; %.1f m above the ground "
      "under it (1x1 downward probe), random yaw, pitched %.0f deg down\n",
      w.width, w.height, w.rays(), double(w.hfov_degrees), double(desc.fx), double(w.camera_height),
      double(w.pitch_degrees));
  std::printf(
      "frames: median of min(%d, max(1, %.3g / (N x rays))) per measurement; each measurement in its own "
      "forked process\n\n",
      frames, ray_budget);

  // ---- measurements ----
  SharedRegion reference_region(size_t(max_envs) * w.rays() * sizeof(float));
  SharedRegion measurement_region(sizeof(Measurement));
  std::vector<Measurement> results;
  std::printf(
      "## Measurements (reported = wr_scene_memory + wr_sensor_memory + the strategy's own buffers; "
      "measured = %s delta from after wr_context_create)\n\n",
      measured_name);
  std::printf(
      "| strategy | N | reported MiB | measured MiB | measured - reported KiB | anonymous RSS - reported "
      "KiB | ms/frame (median) | frames | max rel. error vs (a) | pixels > 1e-4 | hits %% |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (uint32_t n : envs) {
    bool have_reference = false;
    for (int k = 0; k < kNumStrategies; ++k) {
      const StrategyKind kind = StrategyKind(k);
      Measurement* m = new (measurement_region.data()) Measurement;
      float* reference = (kind == StrategyKind::kShared || have_reference) ? reference_region.as<float>() : nullptr;
      const int code =
          run_in_child([&] { return measure(kind, n, space, w, poses, frames, ray_budget, reference, m); });
      if (code != 0 || !m->ok) {
        std::printf("| %s | %u | failed (%s %d) | | | | | | | | |\n", strategy_name(kind), n,
                    code < 0 ? "signal" : "exit code", code < 0 ? -code : code);
        continue;
      }
      if (kind == StrategyKind::kShared) have_reference = true;
      results.push_back(*m);
      const double rep = double(m->reported(space)), meas = double(m->measured(space));
      char err[64] = "(reference)";
      char over[32] = "";
      if (m->compared) {
        std::snprintf(err, sizeof err, "%.3g", m->max_rel_error);
        std::snprintf(over, sizeof over, "%llu", static_cast<unsigned long long>(m->pixels_over));
      }
      std::printf("| %s | %u | %.2f | %.2f | %+.1f | %+.1f | %.2f | %d | %s | %s | %.1f |\n", strategy_name(kind), n,
                  rep / kMiB, meas / kMiB, kib(meas - rep),
                  kib(double(m->anon_delta) - double(m->reported(Space::kHost))), m->ms_median, m->frames, err, over,
                  100.0 * m->hit_fraction);
      std::fflush(stdout);
    }
  }
  if (results.empty()) die("every measurement failed");

  // ---- fits ----
  std::vector<FitRow> fits;
  auto fit_of = [&](StrategyKind kind, auto value) {
    std::vector<double> x, y;
    for (const Measurement& m : results)
      if (m.strategy == int(kind)) x.push_back(m.num_envs), y.push_back(value(m));
    return fit_line(x, y);
  };
  for (int k = 0; k < kNumStrategies; ++k) {
    const StrategyKind kind = StrategyKind(k);
    fits.push_back({kind, "reported (library + own)",
                    fit_of(kind, [&](const Measurement& m) { return double(m.reported(space)); })});
    fits.push_back({kind, std::string("measured (") + measured_name + ")",
                    fit_of(kind, [&](const Measurement& m) { return double(m.measured(space)); })});
  }
  const LinearFit shared_library = fit_of(
      StrategyKind::kShared, [&](const Measurement& m) { return double(m.scene.in(space) + m.library.in(space)); });
  fits.push_back({StrategyKind::kShared, "library only (scene + sensor)", shared_library});

  std::printf("\n## Fits: memory = init + slope x N (least squares over every N)\n\n");
  std::printf(
      "| strategy | source | init (bytes) | slope (bytes/env) | slope per ray (bytes) | R^2 | largest residual "
      "(bytes) |\n|---|---|---:|---:|---:|---:|---:|\n");
  for (const FitRow& f : fits) {
    if (!f.fit.valid) {
      std::printf("| %s | %s | (too few points) | | | | |\n", strategy_name(f.kind), f.source.c_str());
      continue;
    }
    std::printf("| %s | %s | %.0f | %.1f | %.3f | %.6f | %.0f |\n", strategy_name(f.kind), f.source.c_str(), f.fit.init,
                f.fit.slope, f.fit.slope / w.rays(), f.fit.r_squared, f.fit.max_residual);
  }

  // ---- host RAM as the library loads ----
  const LinearFit& shared_rep = fits[0].fit;
  const LinearFit& shared_meas = fits[1].fit;
  std::printf("\n## Host RAM (RSS of the process, measured in a fresh child)\n\n");
  std::printf("| step | RSS MiB | increase KiB | library reports KiB |\n|---|---:|---:|---:|\n");
  std::printf("| program start (libwr linked, not yet used) | %.2f | | |\n", load->rss_start / kMiB);
  std::printf("| + wr_context_create (%s) | %.2f | %+.0f | |\n", space_name, load->rss_context / kMiB,
              kib(double(load->rss_context) - double(load->rss_start)));
  std::printf("| + wr_scene_load_obj (%llu triangles) | %.2f | %+.0f | %.0f |\n",
              static_cast<unsigned long long>(load->triangles), load->rss_scene / kMiB,
              kib(double(load->rss_scene) - double(load->rss_context)), kib(double(load->scene.host_bytes)));
  std::printf("| + wr_sensor_create (%ux%u, 1 env) | %.2f | %+.0f | %.0f |\n", w.width, w.height,
              load->rss_sensor / kMiB, kib(double(load->rss_sensor) - double(load->rss_scene)),
              kib(double(load->sensor.host_bytes)));
  if (space == Space::kHost)
    std::printf(
        "| + per env, shared strategy (fit slope: measured / reported, caller's pose + image included) | "
        "| %+.3f | %.3f |\n",
        kib(shared_meas.slope), kib(shared_rep.slope));
  else
    std::printf(
        "| device: after context %.1f MiB in use; + scene %+.0f KiB (library %.0f); + sensor %+.0f KiB "
        "(library %.0f) | | | |\n",
        load->dev_context / kMiB, kib(double(load->dev_scene) - double(load->dev_context)),
        kib(double(load->scene.device_bytes)), kib(double(load->dev_sensor) - double(load->dev_scene)),
        kib(double(load->sensor.device_bytes)));

  // ---- targets ----
  const LinearFit& rays_rep = fits[2].fit;
  const LinearFit& rays_meas = fits[3].fit;
  uint64_t per_env_field = std::max(load->scene.per_env_bytes, load->sensor.per_env_bytes);
  double worst_error = 0;
  uint64_t worst_over = 0;
  int64_t worst_growth = INT64_MIN, least_growth = INT64_MAX;
  int compared = 0;
  for (const Measurement& m : results) {
    per_env_field = std::max(per_env_field, m.per_env_field);
    worst_growth = std::max(worst_growth, m.rss_growth_frames);
    least_growth = std::min(least_growth, m.rss_growth_frames);
    if (m.compared) ++compared, worst_error = std::max(worst_error, m.max_rel_error), worst_over += m.pixels_over;
  }
  const double init_per_triangle = shared_rep.init / double(load->triangles);
  const bool t1 = shared_library.valid && shared_library.slope <= 64.0 && per_env_field <= 64;
  const bool t2 = shared_rep.valid && init_per_triangle <= 100.0;
  const bool t3 = rays_rep.valid && std::fabs(rays_rep.slope / w.rays() - 72.0) <= 1.0 && rays_meas.valid &&
                  std::fabs(rays_meas.slope / w.rays() - 72.0) <= 1.0;
  const bool t4 = compared == 2 * int(envs.size()) && worst_over == 0;
  std::printf("\n## Targets\n\n");
  std::printf(
      "- %s shared per-env bytes inside the library <= 64: fit slope of the library's own bytes %.2f "
      "bytes/env, wr_memory_stats.per_env_bytes %llu\n",
      pass(t1), shared_library.slope, static_cast<unsigned long long>(per_env_field));
  std::printf(
      "- %s shared init <= 100 bytes per triangle: %.1f bytes/triangle reported (%.0f bytes / %llu "
      "triangles); measured %.1f\n",
      pass(t2), init_per_triangle, shared_rep.init, static_cast<unsigned long long>(load->triangles),
      shared_meas.init / double(load->triangles));
  std::printf("- %s ray-buffer slope ~= 72 bytes/ray (within 1): reported %.3f, measured %.3f bytes/ray\n", pass(t3),
              rays_rep.slope / w.rays(), rays_meas.slope / w.rays());
  std::printf(
      "- %s (b) and (c) render (a)'s depth images: %d of %zu comparisons made, largest relative error %.3g, "
      "%llu pixels over %.0e\n",
      pass(t4), compared, 2 * envs.size(), worst_error, static_cast<unsigned long long>(worst_over), kTolerance);
  std::printf(
      "- rendering keeps no memory: RSS growth over the timed frames %+.0f to %+.0f KiB across every "
      "(strategy, N) (code pages the first frame faults in; it would grow with N if a frame allocated)\n",
      kib(double(least_growth)), kib(double(worst_growth)));

  // ---- the CSV (its plot: benchmarks/memory/plot_memory.py) ----
  if (!csv_path.empty()) {
    std::ofstream csv(csv_path);
    csv << "strategy,device,num_envs,width,height,rays_per_env,triangles,scene_host_bytes,scene_device_bytes,"
           "sensors_host_bytes,sensors_device_bytes,own_host_bytes,own_device_bytes,reported_bytes,measured_bytes,"
           "rss_delta_bytes,rss_anonymous_delta_bytes,device_delta_bytes,rss_growth_over_frames_bytes,create_s,frames,"
           "ms_median,ms_min,ms_max,"
           "compared,max_rel_error,pixels_over_tolerance,pixels,hit_fraction\n";
    for (const Measurement& m : results)
      csv << strategy_name(StrategyKind(m.strategy)) << ',' << space_name << ',' << m.num_envs << ',' << w.width << ','
          << w.height << ',' << w.rays() << ',' << load->triangles << ',' << m.scene.host << ',' << m.scene.device
          << ',' << m.library.host << ',' << m.library.device << ',' << m.own.host << ',' << m.own.device << ','
          << m.reported(space) << ',' << m.measured(space) << ',' << m.rss_delta << ',' << m.anon_delta << ','
          << m.device_delta << ',' << m.rss_growth_frames << ',' << m.create_s << ',' << m.frames << ',' << m.ms_median
          << ',' << m.ms_min << ',' << m.ms_max << ',' << m.compared << ',' << (m.compared ? m.max_rel_error : 0.0)
          << ',' << m.pixels_over << ',' << m.pixels << ',' << m.hit_fraction << '\n';
    if (!csv) die("%s: could not write the CSV", csv_path.c_str());
    std::printf("\nwrote %s\n", csv_path.c_str());
  }
  return t1 && t2 && t3 && t4 ? 0 : 3;
}
