// The peers' Embree 3 side: its scene (built from the same arrays as ours), the two-level scenes of
// moving geometry (one top-level scene per env over the terrain and the env's instances), the rays
// of every pixel built from the conventions documented in wr.h, and tracing them with
// rtcIntersect1 or rtcIntersect16 packets on a persistent thread pool shaped like the library's
// (one task per (env, 8x8 pixel tile), claimed from an atomic counter).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <embree3/rtcore.h>

#include <wr/wr.h>

#include "bench_common.h"

namespace wr_bench {

// Embree's device error callback: die()s with the code and message.
void embree_error(void* user, RTCError code, const char* message);

// ---- a persistent thread pool for Embree, shaped like the library's ---------------------------

// num_threads threads, the calling thread included. run(n, fn) calls fn(i) for every i in
// [0, n), each index claimed from an atomic counter, and returns when all are done.
//
// Embree asks every thread that traces to run with flush-to-zero and denormals-are-zero set
// (it warns of "a severe performance impact" otherwise), so its threads get them: the pool's
// workers for their lifetime, the calling thread for the duration of run(). The library's own
// threads are left in the default mode, which is what its users get.
class Pool {
 public:
  explicit Pool(unsigned num_threads);
  ~Pool();
  void run(uint32_t num_tasks, const std::function<void(uint32_t)>& fn);
  unsigned num_threads() const { return unsigned(workers_.size()) + 1; }  // the caller included

 private:
  void drain();
  void loop();

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
// The RTCMemoryMonitorFunction; `user` is the MemoryMonitor.
bool memory_monitor(void* user, ssize_t bytes, bool post);

// ---- builds -----------------------------------------------------------------------------------

struct EmbreeConfig {
  const char* name;
  RTCBuildQuality quality;
  RTCSceneFlags flags;
  bool render;  // also traced
};

// A scene with Embree-owned copies of the arrays (counted by the monitor, as our copies are);
// *commit_s is the wall clock of rtcCommitScene alone.
RTCScene embree_scene(RTCDevice device, const Mesh& mesh, const EmbreeConfig& cfg, double* commit_s);

// ---- moving geometry: a two-level scene per env -----------------------------------------------

// Embree's form of an instanced scene (wr_scene_create_instanced): Embree instances a scene, not a
// geometry, and a ray traces one scene, so each env gets its own top-level scene holding instance
// 0, the terrain (identity transform, its scene shared by every env), and instances 1 .. num_slots,
// the env's slots, each an instance of its prototype's scene (also shared). Every top-level scene
// is RTC_SCENE_FLAG_DYNAMIC with RTC_BUILD_QUALITY_LOW, Embree's settings for a scene rebuilt every
// frame. hit.instID[0] of a ray is then 0 for the terrain and 1 + slot for a slot.
class EmbreeEnvScenes {
 public:
  EmbreeEnvScenes(RTCDevice device, RTCScene terrain, const std::vector<RTCScene>& prototypes,
                  const std::vector<uint32_t>& slot_prototypes, uint32_t num_envs);
  ~EmbreeEnvScenes();
  EmbreeEnvScenes(const EmbreeEnvScenes&) = delete;
  EmbreeEnvScenes& operator=(const EmbreeEnvScenes&) = delete;

  // The per-frame work of moving geometry in Embree, to be done before the scenes are traced:
  // every slot's transform set from slot_poses ((num_envs x num_slots x 7) world poses: position,
  // then w, x, y, z, as wr's WR_QUAT_WXYZ), rtcCommitGeometry of each, rtcCommitScene of each env's
  // scene (its top-level BVH rebuilt). Envs are spread over the pool, one task each (Embree allows
  // concurrent calls on different scenes).
  void update(Pool& pool, const float* slot_poses);

  const RTCScene* scenes() const { return scenes_.data(); }  // (num_envs) the top-level scenes
  uint32_t num_slots() const { return num_slots_; }

 private:
  std::vector<RTCScene> scenes_;
  std::vector<RTCGeometry> slots_;  // (num_envs x num_slots) the slots' instance geometries
  uint32_t num_slots_ = 0;
};

// ---- Embree rendering -------------------------------------------------------------------------

struct Camera {
  uint32_t width = 0, height = 0;
  float fx = 0, fy = 0, cx = 0, cy = 0, far_clip = kInf;
  Eigen::Vector3f mount_pos;
  Eigen::Quaternionf mount_rot;
  std::vector<float> dirs;  // (height x width x 3) unit camera-frame directions, built once
};

// The camera of a range-depth sensor description, with its camera-frame directions.
Camera make_camera(const wr_camera_desc& d);

enum class EmbreeMode { kSingle, kPacket16 };

// Renders every env's range depth into depth (num_envs x height x width); misses are +inf.
// poses: (num_envs x 7) body poses (x, y, z, w, qx, qy, qz). Env e traces scenes[e] where
// per_env_scenes (EmbreeEnvScenes::scenes), every env scenes[0] otherwise. instance_ids (or null):
// each pixel's hit.instID[0], RTC_INVALID_GEOMETRY_ID for a miss or a hit outside any instance.
void embree_render(Pool& pool, const RTCScene* scenes, bool per_env_scenes, EmbreeMode mode, const Camera& cam,
                   const float* poses, uint32_t num_envs, float* depth, uint32_t* instance_ids = nullptr);

// Every env traces the one scene.
inline void embree_render(Pool& pool, RTCScene scene, EmbreeMode mode, const Camera& cam, const float* poses,
                          uint32_t num_envs, float* depth) {
  embree_render(pool, &scene, false, mode, cam, poses, num_envs, depth);
}

}  // namespace wr_bench
