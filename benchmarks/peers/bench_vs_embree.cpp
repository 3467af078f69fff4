// wr-bench-vs-embree: warp-raycaster's CPU backend against Intel Embree 3, side by side, in one
// process, on the same triangles, the same rays and the same number of threads.
//
// What is compared
//  - Scene: the OBJ (default: the bundled assets/parkour_terrain.obj) is read ONCE with
//    tinyobjloader into (num_vertices x 3) float and (num_triangles x 3) uint32 arrays; the same
//    arrays go to wr_scene_create and into Embree's geometry buffers.
//  - Build: wall clock of wr_scene_create (validation, copy, BVH) against Embree's equivalent
//    (new scene and geometry, copy into Embree-owned buffers, rtcCommitScene; the commit alone
//    is also shown), the median of --reps builds after one warm-up, for several Embree build
//    qualities and scene flags. Embree's device runs --threads TBB threads; ours builds on
//    the context's thread count.
//  - Memory per triangle: ours is wr_scene_memory().host_bytes (BVH nodes, leaf blocks,
//    parent links); Embree's is counted by rtcSetDeviceMemoryMonitorFunction: the bytes live
//    after the commit (its BVH, leaves and its own copies of the vertex and index buffers, which
//    it keeps, as we keep ours), and the peak while building.
//  - Rays: N envs (--envs, default 256) share one camera (87 deg horizontal FOV, mount pitched
//    30 deg down) at each resolution of --sizes (default 87x58 and 106x60). Bodies stand
//    0.35-0.65 m above the ground at random (x, y) with random yaw and +-5 deg pitch jitter (fixed
//    seed). The ground
//    under each body is found once with wr_scene_intersect (untimed).
//    Ours: wr_sensor_render with WR_DEPTH_RANGE (depth = ray t for unit directions).
//    Embree: rays built from the conventions documented in wr.h, in float:
//        d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy), +X fwd, +Y left, +Z up
//        camera_in_world = body_in_world * mount
//    The camera-frame directions (height x width) are computed once per resolution, as
//    wr_sensor_create computes ours once per sensor; everything per env and per pixel (pose to
//    matrix, body * mount, rotating each direction, filling the ray, tracing, writing depth)
//    is inside the timed region for both engines.
//    Embree modes: (1) rtcIntersect1 per ray; (2) rtcIntersect16 on 4x4 pixel packets with
//    RTC_INTERSECT_CONTEXT_FLAG_COHERENT. Work is split like the library splits it: one task
//    per (env, 8x8 pixel tile), claimed from an atomic counter by a persistent pool of
//    --threads threads (the calling thread counts as one, as in wr_context_create_cpu).
//    Embree renders from three scenes: the default build (MEDIUM, RTC_SCENE_FLAG_NONE), HIGH
//    (spatial splits: usually its fastest to trace) and ROBUST (watertight, as ours is).
//  - Timing: the median of --reps renders after one warm-up, std::chrono::steady_clock; the
//    repetitions of all contenders (and of all builds) are interleaved round-robin.
//  - Agreement: per pixel, both miss, or |ours - embree| <= 1e-4 * max(1, |embree|). The
//    fraction that agrees must be >= 99.9% for every Embree mode; otherwise the worst pixels
//    are printed and the program exits 2 (after printing everything else).
//
// Output: markdown on stdout; --csv FILE also writes one row per build and per render.
//
// This file holds main (options, the shared inputs, the order of the phases). The Embree side is
// in embree_side.{h,cpp}, the timed builds and renders and the report in
// timing_and_report.{h,cpp}, errors, clock, mesh, camera and poses in bench_common.{h,cpp}.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <embree3/rtcore.h>

#include <wr/wr.h>

#include "bench_common.h"
#include "embree_side.h"
#include "timing_and_report.h"

#ifndef WR_SOURCE_DIR
#define WR_SOURCE_DIR "."
#endif

namespace {

// "WxH" (each 1 to 4096, nothing after) into *w, *h.
bool parse_size(const std::string& text, unsigned* w, unsigned* h) {
  char tail = 0;
  return std::sscanf(text.c_str(), "%ux%u%c", w, h, &tail) == 2 && *w >= 1 && *h >= 1 && *w <= 4096 && *h <= 4096;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wr_bench;
  CLI::App app{"wr-bench-vs-embree: warp-raycaster's CPU backend against Embree 3 on the same scene, rays and threads",
               "wr-bench-vs-embree"};
  Options opt;
  opt.obj_path = WR_SOURCE_DIR "/assets/parkour_terrain.obj";
  opt.threads = std::max(1u, std::thread::hardware_concurrency());
  app.add_option("--obj", opt.obj_path, "scene (Wavefront OBJ)")->capture_default_str();
  app.add_option("--envs", opt.num_envs, "number of envs (cameras) per render")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  app.add_option("--threads", opt.threads, "threads for both engines (renders and builds)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--reps", opt.reps, "timed repetitions per row (median reported), after one warm-up")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--far", opt.far_clip, "far clip / tfar, metres (default: none)");
  app.add_option("--seed", opt.seed, "pose seed")->capture_default_str();
  app.add_option("--embree-config", opt.embree_config, "extra rtcNewDevice config, e.g. frequency_level=simd512");
  app.add_option("--csv", opt.csv_path, "also write one CSV row per build and per render to FILE");
  std::vector<std::string> sizes;
  app.add_option("--sizes", sizes, "camera resolutions, WxH each (default: 87x58 106x60)")
      ->delimiter(',')
      ->check([](const std::string& v) {
        unsigned w = 0, h = 0;
        return parse_size(v, &w, &h) ? std::string() : "'" + v + "' is not WxH (1 to 4096 each)";
      });
  CLI11_PARSE(app, argc, argv);
  if (!sizes.empty()) {
    opt.sizes.clear();
    for (const std::string& v : sizes) {
      unsigned w = 0, h = 0;
      parse_size(v, &w, &h);  // checked above
      opt.sizes.emplace_back(w, h);
    }
  }

  // ---- the scene, read once ----
  const auto t_read = Clock::now();
  const Mesh mesh = read_obj(opt.obj_path);
  const double read_s = seconds_since(t_read);

  wr_context context = nullptr;
  WR_OK(wr_context_create_cpu(opt.threads, &context));
  uint32_t wr_threads = 0;
  WR_OK(wr_context_num_threads(context, &wr_threads));

  const std::string device_config =
      "threads=" + std::to_string(opt.threads) + (opt.embree_config.empty() ? "" : "," + opt.embree_config);
  RTCDevice device = rtcNewDevice(device_config.c_str());
  if (!device)
    die("rtcNewDevice(\"" + device_config + "\") failed: error " + std::to_string(int(rtcGetDeviceError(nullptr))));
  rtcSetDeviceErrorFunction(device, embree_error, nullptr);
  MemoryMonitor monitor;
  rtcSetDeviceMemoryMonitorFunction(device, memory_monitor, &monitor);
  const long embree_version = long(rtcGetDeviceProperty(device, RTC_DEVICE_PROPERTY_VERSION));

  wr_cpu_path path;
  WR_OK(wr_context_cpu_path(context, &path));
  print_header(opt, mesh, read_s, wr_threads, wr_cpu_path_string(path), embree_version, device_config);
  Builds builds = time_builds(opt, mesh, context, device, monitor);
  print_builds(builds, mesh);
  const Renders renders = time_renders(opt, builds, context);
  print_ratios(opt, builds, renders, mesh);
  if (!opt.csv_path.empty()) write_csv(opt, builds, renders, mesh);

  for (RenderScene& rs : builds.embree_scenes) rtcReleaseScene(rs.scene);
  rtcReleaseDevice(device);
  wr_scene_release(builds.scene);
  wr_context_release(context);
  return renders.all_agree ? 0 : 2;
}
