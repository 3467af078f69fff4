// See embree_side.h.
#include "embree_side.h"

#include <algorithm>
#include <cstring>
#include <string>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define WR_BENCH_HAVE_MXCSR 1
#endif

namespace wr_bench {
namespace {

constexpr uint32_t kTile = 8;  // task tile side, as the library's CPU backend (kCpuTileSize)

#if WR_BENCH_HAVE_MXCSR
constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bits FTZ (15) and DAZ (6)
#endif

}  // namespace

void embree_error(void* /*user*/, RTCError code, const char* message) {
  die("Embree error " + std::to_string(int(code)) + ": " + (message ? message : ""));
}

// ---- the thread pool --------------------------------------------------------------------------

Pool::Pool(unsigned num_threads) {
  for (unsigned i = 1; i < num_threads; ++i)
    workers_.emplace_back([this] {
#if WR_BENCH_HAVE_MXCSR
      _mm_setcsr(_mm_getcsr() | kFtzDaz);
#endif
      loop();
    });
}

Pool::~Pool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void Pool::run(uint32_t num_tasks, const std::function<void(uint32_t)>& fn) {
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

void Pool::drain() {
  for (;;) {
    const uint32_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= num_tasks_) return;
    (*fn_)(i);
  }
}

void Pool::loop() {
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

// ---- Embree memory accounting -----------------------------------------------------------------

bool memory_monitor(void* user, ssize_t bytes, bool /*post*/) {
  MemoryMonitor& m = *static_cast<MemoryMonitor*>(user);
  const int64_t now = m.live.fetch_add(int64_t(bytes)) + int64_t(bytes);
  int64_t peak = m.peak.load();
  while (now > peak && !m.peak.compare_exchange_weak(peak, now)) {
  }
  return true;  // never refuse
}

// ---- builds -----------------------------------------------------------------------------------

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

// ---- moving geometry: a two-level scene per env -----------------------------------------------

namespace {

// An instance geometry of `scene` in `device`, one time step (its transform set later).
RTCGeometry new_instance(RTCDevice device, RTCScene scene) {
  RTCGeometry g = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_INSTANCE);
  rtcSetGeometryInstancedScene(g, scene);
  rtcSetGeometryTimeStepCount(g, 1);
  return g;
}

// A 7-float pose (position, then w, x, y, z) as Embree's column-major 3x4 local-to-world matrix.
void pose_to_xfm(const float* pose, float xfm[12]) {
  const Eigen::Matrix3f r = Eigen::Quaternionf(pose[3], pose[4], pose[5], pose[6]).normalized().toRotationMatrix();
  for (int c = 0; c < 3; ++c)
    for (int row = 0; row < 3; ++row) xfm[3 * c + row] = r(row, c);
  xfm[9] = pose[0], xfm[10] = pose[1], xfm[11] = pose[2];
}

}  // namespace

EmbreeEnvScenes::EmbreeEnvScenes(RTCDevice device, RTCScene terrain, const std::vector<RTCScene>& prototypes,
                                 const std::vector<uint32_t>& slot_prototypes, uint32_t num_envs)
    : num_slots_(uint32_t(slot_prototypes.size())) {
  const float identity[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  scenes_.reserve(num_envs);
  slots_.reserve(size_t(num_envs) * num_slots_);
  for (uint32_t e = 0; e < num_envs; ++e) {
    RTCScene scene = rtcNewScene(device);
    rtcSetSceneFlags(scene, RTC_SCENE_FLAG_DYNAMIC);
    rtcSetSceneBuildQuality(scene, RTC_BUILD_QUALITY_LOW);
    RTCGeometry ground = new_instance(device, terrain);
    rtcSetGeometryTransform(ground, 0, RTC_FORMAT_FLOAT3X4_COLUMN_MAJOR, identity);
    rtcCommitGeometry(ground);
    rtcAttachGeometryByID(scene, ground, 0);
    rtcReleaseGeometry(ground);  // the scene holds it; it never changes
    for (uint32_t i = 0; i < num_slots_; ++i) {
      if (slot_prototypes[i] >= prototypes.size()) die("EmbreeEnvScenes: slot prototype out of range");
      RTCGeometry g = new_instance(device, prototypes[slot_prototypes[i]]);
      rtcSetGeometryTransform(g, 0, RTC_FORMAT_FLOAT3X4_COLUMN_MAJOR, identity);
      rtcAttachGeometryByID(scene, g, 1 + i);
      slots_.push_back(g);  // kept: update() sets its transform every frame
    }
    scenes_.push_back(scene);
  }
}

EmbreeEnvScenes::~EmbreeEnvScenes() {
  for (RTCGeometry g : slots_) rtcReleaseGeometry(g);
  for (RTCScene s : scenes_) rtcReleaseScene(s);
}

void EmbreeEnvScenes::update(Pool& pool, const float* slot_poses) {
  pool.run(uint32_t(scenes_.size()), [&](uint32_t env) {
    for (uint32_t i = 0; i < num_slots_; ++i) {
      float xfm[12];
      pose_to_xfm(slot_poses + 7 * (size_t(env) * num_slots_ + i), xfm);
      RTCGeometry g = slots_[size_t(env) * num_slots_ + i];
      rtcSetGeometryTransform(g, 0, RTC_FORMAT_FLOAT3X4_COLUMN_MAJOR, xfm);
      rtcCommitGeometry(g);
    }
    rtcCommitScene(scenes_[env]);
  });
}

// ---- Embree rendering -------------------------------------------------------------------------

Camera make_camera(const wr_camera_desc& d) {
  Camera c;
  c.width = d.width, c.height = d.height, c.fx = d.fx, c.fy = d.fy, c.cx = d.cx, c.cy = d.cy;
  c.far_clip = d.far_clip;
  c.mount_pos = Eigen::Vector3f(d.mount_position[0], d.mount_position[1], d.mount_position[2]);
  c.mount_rot = Eigen::Quaternionf(d.mount_rotation[0], d.mount_rotation[1], d.mount_rotation[2], d.mount_rotation[3])
                    .normalized();
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

namespace {

// World rotation and origin of one env's camera: camera_in_world = body_in_world * mount.
struct CameraPose {
  Eigen::Matrix3f rot;
  Eigen::Vector3f pos;
};
inline CameraPose camera_pose(const Camera& cam, const float* body) {
  const Eigen::Quaternionf q = Eigen::Quaternionf(body[3], body[4], body[5], body[6]).normalized();
  const Eigen::Matrix3f r = q.toRotationMatrix();
  return CameraPose{r * cam.mount_rot.toRotationMatrix(),
                    Eigen::Vector3f(body[0], body[1], body[2]) + r * cam.mount_pos};
}

}  // namespace

void embree_render(Pool& pool, const RTCScene* scenes, bool per_env_scenes, EmbreeMode mode, const Camera& cam,
                   const float* poses, uint32_t num_envs, float* depth, uint32_t* instance_ids) {
  const uint32_t tiles_x = (cam.width + kTile - 1) / kTile;
  const uint32_t tiles_per_env = tiles_x * ((cam.height + kTile - 1) / kTile);
  const auto render_tile = [&](uint32_t env, uint32_t tile, const CameraPose& pose) {
    const uint32_t u0 = (tile % tiles_x) * kTile, v0 = (tile / tiles_x) * kTile;
    const uint32_t u1 = std::min(u0 + kTile, cam.width), v1 = std::min(v0 + kTile, cam.height);
    const RTCScene scene = scenes[per_env_scenes ? env : 0];
    float* image = depth + size_t(env) * cam.width * cam.height;
    uint32_t* ids = instance_ids ? instance_ids + size_t(env) * cam.width * cam.height : nullptr;
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
          if (ids) ids[pixel] = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID ? rh.hit.instID[0] : RTC_INVALID_GEOMETRY_ID;
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
          const bool hit = rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID;
          image[size_t(v) * cam.width + u] = hit ? rh.ray.tfar[k] : kInf;
          if (ids) ids[size_t(v) * cam.width + u] = hit ? rh.hit.instID[0][k] : RTC_INVALID_GEOMETRY_ID;
        }
      }
  };
  // Tasks of consecutive tiles of one env, split exactly as the library's CPU backend splits
  // them (src/cpu/cpu_render.cpp): as large as still gives every thread 16 tasks, at most a
  // whole env, so both engines get the same per-core locality.
  const uint64_t per_task = uint64_t(tiles_per_env) * num_envs / (16ull * pool.num_threads());
  const uint32_t tiles_per_task = uint32_t(std::clamp<uint64_t>(per_task, 1, tiles_per_env));
  const uint32_t tasks_per_env = (tiles_per_env + tiles_per_task - 1) / tiles_per_task;
  pool.run(tasks_per_env * num_envs, [&](uint32_t index) {
    const uint32_t env = index / tasks_per_env, first = index % tasks_per_env * tiles_per_task;
    const CameraPose pose = camera_pose(cam, poses + 7 * size_t(env));  // once per task, as the library
    for (uint32_t tile = first; tile < std::min(first + tiles_per_task, tiles_per_env); ++tile)
      render_tile(env, tile, pose);
  });
}

}  // namespace wr_bench
