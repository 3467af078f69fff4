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
//  - Memory per triangle: ours is wr_scene_memory().host_bytes (BVH, triangles in leaf order,
//    parent links); Embree's is counted by rtcSetDeviceMemoryMonitorFunction: the bytes live
//    after the commit (its BVH, leaves and its own copies of the vertex and index buffers, which
//    it keeps, as we keep ours), and the peak while building.
//  - Rays: N envs (--envs, default 256) share one camera (87 deg horizontal FOV, mount pitched
//    30 deg down) at each resolution in {87x58, 106x60}. Bodies stand 0.35-0.65 m above the
//    ground at random (x, y) with random yaw and +-5 deg pitch jitter (fixed seed). The ground
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
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <embree3/rtcore.h>
#include <tiny_obj_loader.h>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define WR_BENCH_HAVE_MXCSR 1
#endif

#include <wr/wr.h>

#ifndef WR_SOURCE_DIR
#define WR_SOURCE_DIR "."
#endif

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kTile = 8;      // task tile side, as the library's CPU backend (kCpuTileSize)
constexpr double kRelTol = 1e-4;   // per-pixel agreement tolerance
constexpr double kMinAgree = 0.999;

// ---- error handling: a benchmark has nothing to recover, it reports and exits 1 -------------

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "wr-bench-vs-embree: %s\n", message.c_str());
  std::exit(1);
}

void wr_ok(wr_status status, const char* call, int line) {
  if (status == WR_SUCCESS) return;
  die("line " + std::to_string(line) + ": " + call + " failed: " + wr_status_string(status) + ": " +
      wr_last_error());
}
#define WR_OK(call) wr_ok((call), #call, __LINE__)

void embree_error(void* /*user*/, RTCError code, const char* message) {
  die("Embree error " + std::to_string(int(code)) + ": " + (message ? message : ""));
}

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Stats {
  double median = 0, min = 0, max = 0;  // seconds
};
Stats summarize(std::vector<double> s) {
  std::sort(s.begin(), s.end());
  const size_t mid = s.size() / 2;
  return Stats{s.size() % 2 ? s[mid] : 0.5 * (s[mid - 1] + s[mid]), s.front(), s.back()};
}

// ---- the mesh, read once --------------------------------------------------------------------

struct Mesh {
  std::vector<float> vertices;    // (num_vertices x 3)
  std::vector<uint32_t> indices;  // (num_triangles x 3)
  size_t num_vertices() const { return vertices.size() / 3; }
  size_t num_triangles() const { return indices.size() / 3; }
};

// Every shape merged into one mesh, polygons fan-triangulated by tinyobjloader.
Mesh read_obj(const std::string& path) {
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(path, config)) die("cannot read " + path + ": " + reader.Error());
  Mesh m;
  m.vertices = reader.GetAttrib().vertices;
  for (const tinyobj::shape_t& shape : reader.GetShapes())
    for (const tinyobj::index_t& idx : shape.mesh.indices) {
      if (idx.vertex_index < 0 || size_t(idx.vertex_index) >= m.num_vertices())
        die(path + ": vertex index out of range");
      m.indices.push_back(uint32_t(idx.vertex_index));
    }
  if (m.indices.empty() || m.indices.size() % 3) die(path + ": no triangles");
  return m;
}

// ---- a persistent thread pool for Embree, shaped like the library's ---------------------------

// Embree asks every thread that traces to run with flush-to-zero and denormals-are-zero set
// (it warns of "a severe performance impact" otherwise), so its threads get them: the pool's
// workers for their lifetime, the calling thread for the duration of run(). The library's own
// threads are left in the default mode, which is what its users get.
#if WR_BENCH_HAVE_MXCSR
constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bits FTZ (15) and DAZ (6)
#endif

// num_threads threads, the calling thread included. run(n, fn) calls fn(i) for every i in
// [0, n), each index claimed from an atomic counter, and returns when all are done.
class Pool {
 public:
  explicit Pool(unsigned num_threads) {
    for (unsigned i = 1; i < num_threads; ++i)
      workers_.emplace_back([this] {
#if WR_BENCH_HAVE_MXCSR
        _mm_setcsr(_mm_getcsr() | kFtzDaz);
#endif
        loop();
      });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  void run(uint32_t num_tasks, const std::function<void(uint32_t)>& fn) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      num_tasks_ = num_tasks;
      next_.store(0, std::memory_order_relaxed);
      busy_ = unsigned(workers_.size());
      ++generation_;
    }
    wake_.notify_all();
#if WR_BENCH_HAVE_MXCSR
    const unsigned saved = _mm_getcsr();
    _mm_setcsr(saved | kFtzDaz);
#endif
    drain();
#if WR_BENCH_HAVE_MXCSR
    _mm_setcsr(saved);
#endif
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
  }

 private:
  void drain() {
    for (;;) {
      const uint32_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= num_tasks_) return;
      (*fn_)(i);
    }
  }
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      drain();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(uint32_t)>* fn_ = nullptr;
  uint32_t num_tasks_ = 0;
  std::atomic<uint32_t> next_{0};
  unsigned busy_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
};

// ---- Embree memory accounting -----------------------------------------------------------------

// Called by Embree (from any of its threads) before each allocation (bytes > 0) and after each
// free (bytes < 0).
struct MemoryMonitor {
  std::atomic<int64_t> live{0}, peak{0};
  void reset_peak() { peak.store(live.load()); }
};
bool memory_monitor(void* user, ssize_t bytes, bool /*post*/) {
  MemoryMonitor& m = *static_cast<MemoryMonitor*>(user);
  const int64_t now = m.live.fetch_add(int64_t(bytes)) + int64_t(bytes);
  int64_t peak = m.peak.load();
  while (now > peak && !m.peak.compare_exchange_weak(peak, now)) {
  }
  return true;  // never refuse
}

// ---- builds -----------------------------------------------------------------------------------

struct EmbreeConfig {
  const char* name;
  RTCBuildQuality quality;
  RTCSceneFlags flags;
  bool render;  // also traced
};

struct BuildRow {
  std::string engine, config;
  Stats total, commit;     // seconds; commit only for Embree
  int64_t live_bytes = 0;  // after the build
  int64_t peak_bytes = 0;  // while building (Embree), relative to before
};

// A scene with Embree-owned copies of the arrays (counted by the monitor, as our copies are).
RTCScene embree_scene(RTCDevice device, const Mesh& mesh, const EmbreeConfig& cfg, double* commit_s) {
  RTCScene scene = rtcNewScene(device);
  rtcSetSceneFlags(scene, cfg.flags);
  rtcSetSceneBuildQuality(scene, cfg.quality);
  RTCGeometry geom = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_TRIANGLE);
  rtcSetGeometryBuildQuality(geom, cfg.quality);
  void* v = rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float),
                                    mesh.num_vertices());
  void* i = rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(uint32_t),
                                    mesh.num_triangles());
  std::memcpy(v, mesh.vertices.data(), mesh.vertices.size() * sizeof(float));
  std::memcpy(i, mesh.indices.data(), mesh.indices.size() * sizeof(uint32_t));
  rtcCommitGeometry(geom);
  rtcAttachGeometry(scene, geom);
  rtcReleaseGeometry(geom);
  const auto t0 = Clock::now();
  rtcCommitScene(scene);
  *commit_s = seconds_since(t0);
  return scene;
}

// ---- poses ------------------------------------------------------------------------------------

Eigen::Quaternionf yaw_pitch(double yaw, double pitch) {
  // Pitch about the body's +Y after the yaw; positive pitch turns +X (forward) toward -Z (down).
  return Eigen::Quaternionf((Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) *
                             Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY()))
                                .cast<float>());
}

// (n x 7) body poses (x, y, z, w, qx, qy, qz).
std::vector<float> make_poses(wr_scene scene, uint32_t n, uint32_t seed) {
  float lo[3], hi[3];
  WR_OK(wr_scene_bounds(scene, lo, hi));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<float> origins(3 * size_t(n)), dirs(3 * size_t(n)), t(n);
  for (uint32_t i = 0; i < n; ++i) {
    origins[3 * i] = float(lo[0] + (0.05 + 0.9 * unit(rng)) * (hi[0] - lo[0]));
    origins[3 * i + 1] = float(lo[1] + (0.05 + 0.9 * unit(rng)) * (hi[1] - lo[1]));
    origins[3 * i + 2] = hi[2] + 1.0f;
    dirs[3 * i + 2] = -1.0f;
  }
  WR_OK(wr_scene_intersect(scene, origins.data(), dirs.data(), nullptr, n, t.data(), nullptr, nullptr));
  std::vector<float> poses(7 * size_t(n));
  for (uint32_t i = 0; i < n; ++i) {
    float* p = &poses[7 * size_t(i)];
    const float ground = std::isfinite(t[i]) ? origins[3 * i + 2] - t[i] : lo[2];
    p[0] = origins[3 * i];
    p[1] = origins[3 * i + 1];
    p[2] = ground + float(0.35 + 0.3 * unit(rng));
    const Eigen::Quaternionf q = yaw_pitch(2.0 * kPi * unit(rng), (unit(rng) - 0.5) * 10.0 * kPi / 180.0);
    p[3] = q.w(), p[4] = q.x(), p[5] = q.y(), p[6] = q.z();
  }
  return poses;
}

// ---- Embree rendering -------------------------------------------------------------------------

struct Camera {
  uint32_t width = 0, height = 0;
  float fx = 0, fy = 0, cx = 0, cy = 0, far_clip = kInf;
  Eigen::Vector3f mount_pos;
  Eigen::Quaternionf mount_rot;
  std::vector<float> dirs;  // (height x width x 3) unit camera-frame directions, built once
};

Camera make_camera(const wr_camera_desc& d) {
  Camera c;
  c.width = d.width, c.height = d.height, c.fx = d.fx, c.fy = d.fy, c.cx = d.cx, c.cy = d.cy;
  c.far_clip = d.far_clip;
  c.mount_pos = Eigen::Vector3f(d.mount_position[0], d.mount_position[1], d.mount_position[2]);
  c.mount_rot = Eigen::Quaternionf(d.mount_rotation[0], d.mount_rotation[1], d.mount_rotation[2],
                                   d.mount_rotation[3]).normalized();
  c.dirs.resize(3 * size_t(d.width) * d.height);
  for (uint32_t v = 0; v < d.height; ++v)
    for (uint32_t u = 0; u < d.width; ++u) {
      const Eigen::Vector3f dir =
          Eigen::Vector3f(1.0f, -((float(u) + 0.5f) - c.cx) / c.fx, -((float(v) + 0.5f) - c.cy) / c.fy).normalized();
      float* o = &c.dirs[3 * (size_t(v) * d.width + u)];
      o[0] = dir.x(), o[1] = dir.y(), o[2] = dir.z();
    }
  return c;
}

// World rotation and origin of one env's camera: camera_in_world = body_in_world * mount.
struct CameraPose {
  Eigen::Matrix3f rot;
  Eigen::Vector3f pos;
};
inline CameraPose camera_pose(const Camera& cam, const float* body) {
  const Eigen::Quaternionf q = Eigen::Quaternionf(body[3], body[4], body[5], body[6]).normalized();
  const Eigen::Matrix3f r = q.toRotationMatrix();
  return CameraPose{r * cam.mount_rot.toRotationMatrix(), Eigen::Vector3f(body[0], body[1], body[2]) + r * cam.mount_pos};
}

enum class EmbreeMode { kSingle, kPacket16 };

// Renders every env's range depth into depth (num_envs x height x width); misses are +inf.
void embree_render(Pool& pool, RTCScene scene, EmbreeMode mode, const Camera& cam, const float* poses,
                   uint32_t num_envs, float* depth) {
  const uint32_t tiles_x = (cam.width + kTile - 1) / kTile;
  const uint32_t tiles_per_env = tiles_x * ((cam.height + kTile - 1) / kTile);
  const std::function<void(uint32_t)> task = [&](uint32_t index) {
    const uint32_t env = index / tiles_per_env, tile = index % tiles_per_env;
    const uint32_t u0 = (tile % tiles_x) * kTile, v0 = (tile / tiles_x) * kTile;
    const uint32_t u1 = std::min(u0 + kTile, cam.width), v1 = std::min(v0 + kTile, cam.height);
    float* image = depth + size_t(env) * cam.width * cam.height;
    const CameraPose pose = camera_pose(cam, poses + 7 * size_t(env));
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    if (mode == EmbreeMode::kSingle) {
      for (uint32_t v = v0; v < v1; ++v)
        for (uint32_t u = u0; u < u1; ++u) {
          const size_t pixel = size_t(v) * cam.width + u;
          const Eigen::Vector3f d = pose.rot * Eigen::Map<const Eigen::Vector3f>(&cam.dirs[3 * pixel]);
          RTCRayHit rh;
          rh.ray.org_x = pose.pos.x(), rh.ray.org_y = pose.pos.y(), rh.ray.org_z = pose.pos.z();
          rh.ray.dir_x = d.x(), rh.ray.dir_y = d.y(), rh.ray.dir_z = d.z();
          rh.ray.tnear = 0.0f;
          rh.ray.tfar = cam.far_clip;
          rh.ray.time = 0.0f;
          rh.ray.mask = 0xFFFFFFFFu;
          rh.ray.id = 0;
          rh.ray.flags = 0;
          rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
          rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
          rtcIntersect1(scene, &context, &rh);
          image[pixel] = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID ? rh.ray.tfar : kInf;
        }
      return;
    }
    context.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
    for (uint32_t pv = v0; pv < v1; pv += 4)
      for (uint32_t pu = u0; pu < u1; pu += 4) {
        alignas(64) RTCRayHit16 rh;
        alignas(64) int valid[16];
        for (int k = 0; k < 16; ++k) {
          const uint32_t u = pu + uint32_t(k % 4), v = pv + uint32_t(k / 4);
          const bool in = u < u1 && v < v1;
          valid[k] = in ? -1 : 0;
          const size_t pixel = in ? size_t(v) * cam.width + u : 0;
          const Eigen::Vector3f d = pose.rot * Eigen::Map<const Eigen::Vector3f>(&cam.dirs[3 * pixel]);
          rh.ray.org_x[k] = pose.pos.x(), rh.ray.org_y[k] = pose.pos.y(), rh.ray.org_z[k] = pose.pos.z();
          rh.ray.dir_x[k] = d.x(), rh.ray.dir_y[k] = d.y(), rh.ray.dir_z[k] = d.z();
          rh.ray.tnear[k] = 0.0f;
          rh.ray.tfar[k] = cam.far_clip;
          rh.ray.time[k] = 0.0f;
          rh.ray.mask[k] = 0xFFFFFFFFu;
          rh.ray.id[k] = 0;
          rh.ray.flags[k] = 0;
          rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
          rh.hit.instID[0][k] = RTC_INVALID_GEOMETRY_ID;
        }
        rtcIntersect16(valid, scene, &context, &rh);
        for (int k = 0; k < 16; ++k) {
          if (!valid[k]) continue;
          const uint32_t u = pu + uint32_t(k % 4), v = pv + uint32_t(k / 4);
          image[size_t(v) * cam.width + u] = rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID ? rh.ray.tfar[k] : kInf;
        }
      }
  };
  pool.run(tiles_per_env * num_envs, task);
}

// ---- agreement --------------------------------------------------------------------------------

struct Agreement {
  double fraction = 0;
  size_t disagree = 0;
  struct Pixel {
    size_t index;
    float ours, theirs;
    double error;
  };
  std::vector<Pixel> worst;  // up to 10, worst first
};

Agreement compare(const std::vector<float>& ours, const std::vector<float>& theirs) {
  Agreement a;
  std::vector<Agreement::Pixel> bad;
  for (size_t i = 0; i < ours.size(); ++i) {
    const double x = ours[i], y = theirs[i];
    const bool miss_x = !std::isfinite(x), miss_y = !std::isfinite(y);
    if (miss_x && miss_y) continue;
    const double err = miss_x != miss_y ? double(kInf) : std::fabs(x - y);
    if (err <= kRelTol * std::max(1.0, std::fabs(y))) continue;
    bad.push_back({i, ours[i], theirs[i], err});
  }
  a.disagree = bad.size();
  a.fraction = 1.0 - double(bad.size()) / double(ours.size());
  std::sort(bad.begin(), bad.end(), [](const Agreement::Pixel& p, const Agreement::Pixel& q) {
    return p.error > q.error;
  });
  bad.resize(std::min<size_t>(bad.size(), 10));
  a.worst = bad;
  return a;
}

// ---- report rows -----------------------------------------------------------------------------

struct RenderRow {
  uint32_t width = 0, height = 0;
  std::string engine, mode, bvh;
  Stats time;
  double mrays = 0, hit_fraction = 0;
  Agreement agree;  // against ours; unused for ours
  bool is_ours = false;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wr-bench-vs-embree: warp-raycaster's CPU backend against Embree 3 on the same scene, rays and threads",
               "wr-bench-vs-embree"};
  std::string obj_path = WR_SOURCE_DIR "/assets/parkour_terrain.obj";
  std::string csv_path, embree_config;
  uint32_t num_envs = 256, seed = 12345;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  int reps = 5;
  float far_clip = kInf;
  app.add_option("--obj", obj_path, "scene (Wavefront OBJ)")->capture_default_str();
  app.add_option("--envs", num_envs, "number of envs (cameras) per render")->capture_default_str()->check(
      CLI::Range(1u, 1u << 20));
  app.add_option("--threads", threads, "threads for both engines (renders and builds)")->capture_default_str()->check(
      CLI::Range(1u, 1024u));
  app.add_option("--reps", reps, "timed repetitions per row (median reported), after one warm-up")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--far", far_clip, "far clip / tfar, metres (default: none)");
  app.add_option("--seed", seed, "pose seed")->capture_default_str();
  app.add_option("--embree-config", embree_config, "extra rtcNewDevice config, e.g. frequency_level=simd512");
  app.add_option("--csv", csv_path, "also write one CSV row per build and per render to FILE");
  CLI11_PARSE(app, argc, argv);

  // ---- the scene, read once ----
  const auto t_read = Clock::now();
  const Mesh mesh = read_obj(obj_path);
  const double read_s = seconds_since(t_read);
  const double tris = double(mesh.num_triangles());

  wr_context context = nullptr;
  WR_OK(wr_context_create_cpu(threads, &context));
  uint32_t wr_threads = 0;
  WR_OK(wr_context_num_threads(context, &wr_threads));

  const std::string device_config = "threads=" + std::to_string(threads) +
                                    (embree_config.empty() ? "" : "," + embree_config);
  RTCDevice device = rtcNewDevice(device_config.c_str());
  if (!device) die("rtcNewDevice(\"" + device_config + "\") failed: error " + std::to_string(int(rtcGetDeviceError(nullptr))));
  rtcSetDeviceErrorFunction(device, embree_error, nullptr);
  MemoryMonitor monitor;
  rtcSetDeviceMemoryMonitorFunction(device, memory_monitor, &monitor);
  const long embree_version = long(rtcGetDeviceProperty(device, RTC_DEVICE_PROPERTY_VERSION));

  char cpu_model[256] = "unknown";
  {
    std::ifstream info("/proc/cpuinfo");
    std::string line;
    while (std::getline(info, line))
      if (line.rfind("model name", 0) == 0) {
        std::snprintf(cpu_model, sizeof cpu_model, "%s", line.substr(line.find(':') + 2).c_str());
        break;
      }
  }

  std::printf("# wr-bench-vs-embree\n\n");
  std::printf("- CPU: %s, %u hardware threads; both engines use %u threads (wr context: %u)\n", cpu_model,
              std::thread::hardware_concurrency(), threads, wr_threads);
  std::printf("- Embree %ld.%ld.%ld, device config \"%s\"\n", embree_version / 10000, (embree_version / 100) % 100,
              embree_version % 100, device_config.c_str());
  std::printf("- scene: %s: %zu vertices, %zu triangles (tinyobjloader read %.2f s; the same arrays go to both)\n",
              obj_path.c_str(), mesh.num_vertices(), mesh.num_triangles(), read_s);
  char far_text[32] = "none";
  if (std::isfinite(far_clip)) std::snprintf(far_text, sizeof far_text, "%g m", double(far_clip));
  std::printf("- cameras: %u envs, 87 deg horizontal FOV, mount pitched 30 deg down, bodies 0.35-0.65 m above the "
              "ground, random yaw, +-5 deg pitch jitter (seed %u); range depth, far clip %s\n",
              num_envs, seed, far_text);
  std::printf("- Embree rays: camera-frame directions precomputed once per resolution (as wr_sensor_create does "
              "ours); pose, body * mount, world rays, trace and depth write are timed for both. Embree work: one "
              "task per (env, 8x8 tile) on a %u-thread pool (FTZ/DAZ set, as Embree asks)\n",
              threads);
  std::printf("- timing: median of %d after 1 warm-up, std::chrono::steady_clock; repetitions interleaved "
              "round-robin across engines and modes\n\n",
              reps);
  std::fflush(stdout);

  // ---- builds ----
  // Repetition r == 0 is the warm-up (it also starts Embree's TBB threads); the repetitions go
  // round-robin over ours and every Embree configuration. The last build of each is kept: ours
  // and the traced Embree ones render below; memory is read from it.
  const EmbreeConfig embree_configs[] = {
      {"MEDIUM, FLAG_NONE (default)", RTC_BUILD_QUALITY_MEDIUM, RTC_SCENE_FLAG_NONE, true},
      {"HIGH, FLAG_NONE", RTC_BUILD_QUALITY_HIGH, RTC_SCENE_FLAG_NONE, true},
      {"MEDIUM, FLAG_ROBUST", RTC_BUILD_QUALITY_MEDIUM, RTC_SCENE_FLAG_ROBUST, true},
      {"LOW, FLAG_NONE", RTC_BUILD_QUALITY_LOW, RTC_SCENE_FLAG_NONE, false},
      {"MEDIUM, FLAG_COMPACT", RTC_BUILD_QUALITY_MEDIUM, RTC_SCENE_FLAG_COMPACT, false},
  };
  constexpr size_t kNumEmbreeConfigs = sizeof embree_configs / sizeof embree_configs[0];
  struct RenderScene {
    std::string name;
    RTCScene scene;
  };
  std::vector<RenderScene> embree_scenes;
  std::vector<BuildRow> builds;
  builds.push_back(BuildRow{"warp-raycaster", "wr_scene_create (binned SAH)", {}, {}, 0, 0});
  for (const EmbreeConfig& cfg : embree_configs) builds.push_back(BuildRow{"Embree", cfg.name, {}, {}, 0, 0});
  std::vector<std::vector<double>> totals(builds.size()), commits(builds.size());
  wr_scene scene = nullptr;
  for (int r = 0; r <= reps; ++r) {
    {
      wr_scene s = nullptr;
      const auto t0 = Clock::now();
      WR_OK(wr_scene_create(context, mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(),
                            mesh.num_triangles(), &s));
      const double dt = seconds_since(t0);
      if (r > 0) totals[0].push_back(dt);
      if (r == reps) {
        scene = s;
      } else {
        wr_scene_release(s);
      }
    }
    for (size_t k = 0; k < kNumEmbreeConfigs; ++k) {
      const EmbreeConfig& cfg = embree_configs[k];
      BuildRow& row = builds[k + 1];
      const int64_t before = monitor.live.load();
      monitor.reset_peak();
      double commit_s = 0;
      const auto t0 = Clock::now();
      RTCScene s = embree_scene(device, mesh, cfg, &commit_s);
      const double dt = seconds_since(t0);
      if (r > 0) totals[k + 1].push_back(dt), commits[k + 1].push_back(commit_s);
      if (r == reps) {
        row.live_bytes = monitor.live.load() - before;
        row.peak_bytes = monitor.peak.load() - before;
      }
      if (r == reps && cfg.render) {
        embree_scenes.push_back({cfg.name, s});
      } else {
        rtcReleaseScene(s);
      }
    }
  }
  for (size_t k = 0; k < builds.size(); ++k) {
    builds[k].total = summarize(totals[k]);
    if (k > 0) builds[k].commit = summarize(commits[k]);
  }
  {
    wr_memory_stats mem{};
    WR_OK(wr_scene_memory(scene, &mem));
    builds[0].live_bytes = int64_t(mem.host_bytes);
  }

  std::printf("## BVH build and memory (%zu triangles)\n\n", mesh.num_triangles());
  std::printf("| engine | build | build ms (median) | min | max | commit ms (Embree) | bytes/triangle (live) | "
              "MiB live | MiB peak while building |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const BuildRow& b : builds) {
    const bool embree = b.engine == "Embree";
    char commit[32] = "-", peak[32] = "-";
    if (embree) {
      std::snprintf(commit, sizeof commit, "%.1f", b.commit.median * 1e3);
      std::snprintf(peak, sizeof peak, "%.1f", double(b.peak_bytes) / (1 << 20));
    }
    std::printf("| %s | %s | %.1f | %.1f | %.1f | %s | %.1f | %.1f | %s |\n", b.engine.c_str(), b.config.c_str(),
                b.total.median * 1e3, b.total.min * 1e3, b.total.max * 1e3, commit, double(b.live_bytes) / tris,
                double(b.live_bytes) / (1 << 20), peak);
  }
  std::printf("\nOurs: wr_scene_memory().host_bytes (BVH nodes, triangles in leaf order, parent links). Embree: "
              "bytes its memory monitor reports live after the build, its own vertex + index buffers included "
              "(%.1f bytes/triangle of them); peak = most bytes live at once while building.\n\n",
              double(mesh.vertices.size() * sizeof(float) + mesh.indices.size() * sizeof(uint32_t)) / tris);
  std::fflush(stdout);

  // ---- renders ----
  const std::vector<float> poses = make_poses(scene, num_envs, seed);
  const std::vector<std::pair<uint32_t, uint32_t>> resolutions = {{87, 58}, {106, 60}};
  Pool pool(threads);
  std::vector<RenderRow> renders;
  bool all_agree = true;

  std::printf("## Renders (%u envs, %u threads)\n\n", num_envs, threads);
  std::printf("| WxH | engine | mode | BVH | ms/render (median) | min | max | M rays/s | hits %% | agrees with ours |\n"
              "|---|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  auto print_row = [](const RenderRow& r) {
    char agree[32] = "-";
    if (!r.is_ours) std::snprintf(agree, sizeof agree, "%.4f%%", 100.0 * r.agree.fraction);
    std::printf("| %ux%u | %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.1f | %s |\n", r.width, r.height,
                r.engine.c_str(), r.mode.c_str(), r.bvh.c_str(), r.time.median * 1e3, r.time.min * 1e3,
                r.time.max * 1e3, r.mrays, 100.0 * r.hit_fraction, agree);
    std::fflush(stdout);
  };
  std::vector<std::string> failures;

  for (const auto& res : resolutions) {
    wr_camera_desc desc;
    wr_camera_desc_pinhole(&desc, res.first, res.second, 87.0f);
    desc.depth_kind = WR_DEPTH_RANGE;
    desc.far_clip = far_clip;
    desc.miss_value = kInf;
    const Eigen::Quaternionf mount = yaw_pitch(0.0, 30.0 * kPi / 180.0);
    desc.mount_position[0] = 0.1f, desc.mount_position[1] = 0.0f, desc.mount_position[2] = 0.05f;
    desc.mount_rotation[0] = mount.w(), desc.mount_rotation[1] = mount.x();
    desc.mount_rotation[2] = mount.y(), desc.mount_rotation[3] = mount.z();
    wr_sensor sensor = nullptr;
    WR_OK(wr_sensor_create(scene, &desc, num_envs, &sensor));
    const Camera cam = make_camera(desc);
    const size_t pixels = size_t(num_envs) * res.first * res.second;
    auto hit_fraction = [&](const std::vector<float>& d) {
      return double(std::count_if(d.begin(), d.end(), [](float x) { return std::isfinite(x); })) / double(pixels);
    };

    // Every contender renders once to warm up, then the timed repetitions go round-robin
    // (ours, then each Embree mode, then ours again, ...), so that load from other processes
    // on a shared machine falls on all of them alike rather than on whichever ran in a bad
    // second. Each keeps its own output for the comparison.
    struct Contender {
      RenderRow row;
      std::function<void(float*)> render;
      std::vector<float> depth;
      std::vector<double> times;
    };
    std::vector<Contender> contenders;
    {
      Contender c;
      c.row.engine = "warp-raycaster", c.row.mode = "wr_sensor_render", c.row.bvh = "binned SAH";
      c.row.is_ours = true;
      c.render = [&](float* out) { WR_OK(wr_sensor_render(sensor, poses.data(), out, nullptr)); };
      contenders.push_back(std::move(c));
    }
    for (const EmbreeMode mode : {EmbreeMode::kSingle, EmbreeMode::kPacket16})
      for (const RenderScene& rs : embree_scenes) {
        Contender c;
        c.row.engine = "Embree";
        c.row.mode = mode == EmbreeMode::kSingle ? "rtcIntersect1" : "rtcIntersect16 4x4 coherent";
        c.row.bvh = rs.name;
        const RTCScene es = rs.scene;
        c.render = [&pool, es, mode, &cam, &poses, num_envs](float* out) {
          embree_render(pool, es, mode, cam, poses.data(), num_envs, out);
        };
        contenders.push_back(std::move(c));
      }
    for (Contender& c : contenders) {
      c.row.width = res.first, c.row.height = res.second;
      c.depth.assign(pixels, std::nanf(""));
      c.render(c.depth.data());  // warm-up
    }
    for (int r = 0; r < reps; ++r)
      for (Contender& c : contenders) {
        const auto t0 = Clock::now();
        c.render(c.depth.data());
        c.times.push_back(seconds_since(t0));
      }

    const std::vector<float>& ours = contenders[0].depth;
    for (Contender& c : contenders) {
      RenderRow& row = c.row;
      row.time = summarize(c.times);
      row.mrays = double(pixels) / row.time.median / 1e6;
      row.hit_fraction = hit_fraction(c.depth);
      if (!row.is_ours) row.agree = compare(ours, c.depth);
      print_row(row);
      if (!row.is_ours && row.agree.fraction < kMinAgree) {
        all_agree = false;
        char head[256];
        std::snprintf(head, sizeof head, "%ux%u %s on %s: %zu of %zu pixels disagree (%.4f%% agree); worst:",
                      res.first, res.second, row.mode.c_str(), row.bvh.c_str(), row.agree.disagree, pixels,
                      100.0 * row.agree.fraction);
        std::string msg = head;
        for (const Agreement::Pixel& p : row.agree.worst) {
          const size_t per_env = size_t(res.first) * res.second;
          char line[160];
          std::snprintf(line, sizeof line, "\n  env %zu u %zu v %zu: ours %.7g, Embree %.7g", p.index / per_env,
                        (p.index % per_env) % res.first, (p.index % per_env) / res.first, double(p.ours),
                        double(p.theirs));
          msg += line;
        }
        failures.push_back(msg);
      }
      renders.push_back(row);
    }
    wr_sensor_release(sensor);
  }

  // ---- ratios ----
  std::printf("\n## Ratios\n\nRays per second, ours / Embree's (> 1: warp-raycaster traces faster):\n\n");
  std::printf("| WxH | ours / Embree1 default | ours / Embree16 default | ours / best Embree1 | ours / best Embree16 |\n"
              "|---|---:|---:|---:|---:|\n");
  for (const auto& res : resolutions) {
    double ours = 0, e1_default = 0, e16_default = 0, e1_best = 0, e16_best = 0;
    for (const RenderRow& r : renders) {
      if (r.width != res.first || r.height != res.second) continue;
      if (r.is_ours) {
        ours = r.mrays;
        continue;
      }
      const bool single = r.mode == "rtcIntersect1";
      const bool is_default = r.bvh == embree_configs[0].name;
      if (single) {
        e1_best = std::max(e1_best, r.mrays);
        if (is_default) e1_default = r.mrays;
      } else {
        e16_best = std::max(e16_best, r.mrays);
        if (is_default) e16_default = r.mrays;
      }
    }
    std::printf("| %ux%u | %.2f | %.2f | %.2f | %.2f |\n", res.first, res.second, ours / e1_default, ours / e16_default,
                ours / e1_best, ours / e16_best);
  }
  const BuildRow& wb = builds[0];
  const BuildRow& eb = builds[1];
  double fastest_build = eb.total.median, smallest = double(eb.live_bytes);
  std::string fastest_name = eb.config, smallest_name = eb.config;
  for (size_t i = 1; i < builds.size(); ++i) {
    if (builds[i].total.median < fastest_build) fastest_build = builds[i].total.median, fastest_name = builds[i].config;
    if (double(builds[i].live_bytes) < smallest) smallest = double(builds[i].live_bytes), smallest_name = builds[i].config;
  }
  std::printf("\n- rays/s: ratios above are our M rays/s over Embree's (rtcIntersect1 / rtcIntersect16) on its "
              "default BVH and on its fastest BVH for that mode.\n");
  std::printf("- build time, ours / Embree default: %.2f (%.1f ms / %.1f ms); ours / Embree fastest (%s): %.2f "
              "(< 1: ours builds faster)\n",
              wb.total.median / eb.total.median, wb.total.median * 1e3, eb.total.median * 1e3, fastest_name.c_str(),
              wb.total.median / fastest_build);
  std::printf("- bytes per triangle, ours / Embree default: %.2f (%.1f / %.1f); ours / Embree smallest (%s): %.2f "
              "(< 1: ours is smaller)\n",
              double(wb.live_bytes) / double(eb.live_bytes), double(wb.live_bytes) / tris,
              double(eb.live_bytes) / tris, smallest_name.c_str(), double(wb.live_bytes) / smallest);
  std::printf("- agreement: per pixel both miss or |ours - Embree| <= %g * max(1, |Embree|); required >= %.1f%%: %s\n",
              kRelTol, 100.0 * kMinAgree, all_agree ? "every Embree mode passes" : "FAILED");
  for (const std::string& f : failures) std::printf("\n%s\n", f.c_str());

  if (!csv_path.empty()) {
    std::ofstream csv(csv_path);
    csv << "kind,engine,config,mode,width,height,num_envs,threads,triangles,ms_median,ms_min,ms_max,mrays_per_s,"
           "hit_fraction,agree_fraction,commit_ms_median,live_bytes,bytes_per_triangle,peak_bytes\n";
    for (const BuildRow& b : builds) {
      csv << "build," << b.engine << ",\"" << b.config << "\",,,," << num_envs << ',' << threads << ','
          << mesh.num_triangles() << ',' << b.total.median * 1e3 << ',' << b.total.min * 1e3 << ','
          << b.total.max * 1e3 << ",,,,";
      if (b.engine == "Embree") csv << b.commit.median * 1e3;
      csv << ',' << b.live_bytes << ',' << double(b.live_bytes) / tris << ',';
      if (b.engine == "Embree") csv << b.peak_bytes;
      csv << '\n';
    }
    for (const RenderRow& r : renders)
      csv << "render," << r.engine << ",\"" << r.bvh << "\"," << r.mode << ',' << r.width << ',' << r.height << ','
          << num_envs << ',' << threads << ',' << mesh.num_triangles() << ',' << r.time.median * 1e3 << ','
          << r.time.min * 1e3 << ',' << r.time.max * 1e3 << ',' << r.mrays << ',' << r.hit_fraction << ','
          << (r.is_ours ? 1.0 : r.agree.fraction) << ",,,,\n";
    if (!csv) die("could not write " + csv_path);
    std::printf("\nwrote %s\n", csv_path.c_str());
  }

  for (RenderScene& rs : embree_scenes) rtcReleaseScene(rs.scene);
  rtcReleaseDevice(device);
  wr_scene_release(scene);
  wr_context_release(context);
  return all_agree ? 0 : 2;
}
