// The CPU backend behind the seam of backend/backend.h: a thread pool per context, and host
// memory throughout. Scenes trace the host terrain the SceneTerrain built; sensors render through cpu_render
// (SIMD packets or the scalar pipeline, for the call's feature set) and explicit rays through
// cpu_intersect.
#include <atomic>
#include <string>
#include <system_error>

#include <wr/wr.h>

#include "backend/backend.h"
#include "errors/status_error.h"
#include "cpu/cpu_intersect.h"
#include "cpu/cpu_render.h"
#include "cpu/cpu_simd.h"
#include "cpu/host_data_checks.h"
#include "cpu/thread_pool.h"
#include "memory/memory_ledger.h"
#include "memory/tracked_allocator.h"
#include "scene/instance_layout.h"
#include "scene/scene_terrain.h"
#include "sensor/sensor.h"

namespace wr {
namespace {

constexpr uint32_t kMaxThreads = 4096;

class CpuDevice final : public DeviceBackend {
 public:
  CpuDevice(const char* function, uint32_t num_threads) {
    if (num_threads > kMaxThreads)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": num_threads = " + std::to_string(num_threads) +
                                          " exceeds " + std::to_string(kMaxThreads));
    try {
      pool_ = std::make_unique<ThreadPool>(num_threads);
    } catch (const std::system_error& e) {
      fail(WR_ERROR_OUT_OF_MEMORY, std::string(function) + ": could not start the thread pool's threads: " + e.what());
    }
  }

  BvhBuildOptions bvh_build_options() const override {
    BvhBuildOptions options;  // the defaults are the CPU's (bvh_builder.h)
    options.num_threads = pool_->num_threads();
    return options;
  }
  std::unique_ptr<SceneBackend> create_scene(const char* function, SceneTerrain& scene) override;
  std::unique_ptr<InstancesBackend> create_instances(const char* function, InstanceTable& table) override;
  uint32_t num_threads() const override { return pool_->num_threads(); }
  bool reads_host_memory() const override { return true; }

  void set_cpu_path(const char* function, int path) override {
    if (path < WR_CPU_PATH_AUTO || path > WR_CPU_PATH_AVX512)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": path = " + std::to_string(path) +
                                          " is not a wr_cpu_path (0 auto, 1 scalar, 2 avx2, 3 avx512)");
    const auto p = static_cast<wr_cpu_path>(path);
    if (p != WR_CPU_PATH_AUTO && !cpu_path_supported(p))
      fail(WR_ERROR_UNSUPPORTED, std::string(function) + ": this CPU cannot run the " + wr_cpu_path_string(p) +
                                     " path (the fastest it runs: " + wr_cpu_path_string(best_cpu_path()) + ")");
    path_.store(path);
  }
  int cpu_path(const char*) const override { return tracing_path(); }
  void gather_poses(const char*, const PoseGather& gather, void*) override {
    const uint64_t n = uint64_t(gather.num_batches) * gather.count;
    for (uint64_t i = 0; i < n; ++i) gather_pose(gather, i);
  }

  // The path a render that starts now traces with (never WR_CPU_PATH_AUTO).
  wr_cpu_path tracing_path() const {
    const auto path = static_cast<wr_cpu_path>(path_.load());
    return path == WR_CPU_PATH_AUTO ? best_cpu_path() : path;
  }
  ThreadPool& pool() const { return *pool_; }

 private:
  std::unique_ptr<ThreadPool> pool_;
  std::atomic<int> path_{WR_CPU_PATH_AUTO};
};

class CpuSensor final : public SensorBackend {
 public:
  CpuSensor(const CpuDevice& device, CameraSensor& sensor) : device_(device), sensor_(sensor) {
    const PipelineParams& p = sensor.pipeline().params;
    if (p.history > 1) {
      history_.resize(static_cast<size_t>(sensor.num_envs()) * p.history * sensor.pipeline().out_bytes_per_env);
      frames_.assign(sensor.num_envs(), 0u);
    }
    const size_t threads = device.num_threads();
    if (p.noise.edges) windows_.resize(threads * p.win_w * p.win_h);
    if (p.camera_image) samples_.resize(threads * p.output.crop_w * p.output.crop_h);
    prepared_.resize(threads * sensor.num_instances());
    if (p.output.resample != kResampleNone) {
      taps_x_.resize(p.output.out_w);
      taps_y_.resize(p.output.out_h);
      build_resample_taps(p, taps_x_.data(), taps_y_.data());
    }
  }

  void render(const char* function, const RenderCall& call) override {
    const PipelineParams& p = sensor_.pipeline().params;
    validate_render_host_data(function, p, call, sensor_.num_envs());
    CpuRenderJob job;
    job.terrain = sensor_.scene().view();
    job.rays = sensor_.ray_template().data();
    job.params = &p;
    job.call = call.call;
    job.features = call.features;
    job.state = PipelineState{nullptr, nullptr, history_.data(), frames_.data(), taps_x_.data(), taps_y_.data()};
    job.num_envs = sensor_.num_envs();
    job.thread_windows = windows_.data();
    job.thread_samples = samples_.data();
    job.thread_instances = prepared_.data();
    job.num_instances = sensor_.num_instances();
    job.stack_overflows = &stack_overflows_;
    job.path = device_.tracing_path();
    cpu_render(device_.pool(), job);
  }

  uint64_t stack_overflows(const char*) override { return stack_overflows_.load(std::memory_order_relaxed); }

 private:
  const CpuDevice& device_;
  CameraSensor& sensor_;
  std::atomic<uint64_t> stack_overflows_{0};
  LedgerRecord self_{&sensor_.ledger(), MemorySpace::kHost, MemoryTag::kObjects, sizeof(CpuSensor)};
  // The pipeline's state (sensor/pipeline_options.h): each env's history ring (num_envs x history x
  // the output's bytes) and frame count; each thread's camera window (threads x win_h x win_w,
  // with edge dropout) and crop samples (threads x crop_h x crop_w, with resampling or edges).
  TrackedVector<unsigned char> history_{TrackedAllocator<unsigned char>(&sensor_.ledger(), MemoryTag::kHistory)};
  TrackedVector<uint32_t> frames_{TrackedAllocator<uint32_t>(&sensor_.ledger(), MemoryTag::kHistory)};
  TrackedVector<float> windows_{TrackedAllocator<float>(&sensor_.ledger(), MemoryTag::kRenderScratch)};
  TrackedVector<float> samples_{TrackedAllocator<float>(&sensor_.ledger(), MemoryTag::kRenderScratch)};
  // each thread's instances of the env it renders, prepared once per env (threads x num_instances)
  TrackedVector<PreparedInstance> prepared_{
      TrackedAllocator<PreparedInstance>(&sensor_.ledger(), MemoryTag::kRenderScratch)};
  // what each output column and row reads of the crop (out_w, out_h), where resampling
  TrackedVector<ResampleTaps> taps_x_{TrackedAllocator<ResampleTaps>(&sensor_.ledger(), MemoryTag::kRenderScratch)};
  TrackedVector<ResampleTaps> taps_y_{TrackedAllocator<ResampleTaps>(&sensor_.ledger(), MemoryTag::kRenderScratch)};
};

class CpuScene final : public SceneBackend {
 public:
  CpuScene(const CpuDevice& device, SceneTerrain& scene) : device_(device), scene_(scene) {}

  TerrainView device_view() const override { return scene_.view(); }

  void intersect(const char* function, const IntersectCall& call) override {
    validate_explicit_rays(function, call.rays);
    cpu_intersect(device_.pool(), CpuIntersectJob{scene_.view(), call.rays});
  }

  std::unique_ptr<SensorBackend> create_sensor(const char*, CameraSensor& sensor) override {
    return std::make_unique<CpuSensor>(device_, sensor);
  }

 private:
  const CpuDevice& device_;
  SceneTerrain& scene_;
  LedgerRecord self_{&scene_.ledger(), MemorySpace::kHost, MemoryTag::kObjects, sizeof(CpuScene)};
};

std::unique_ptr<SceneBackend> CpuDevice::create_scene(const char*, SceneTerrain& scene) {
  return std::make_unique<CpuScene>(*this, scene);
}

// The host table as it is.
class CpuInstances final : public InstancesBackend {
 public:
  explicit CpuInstances(InstanceTable& table) : table_(table) {}
  InstanceView view() const override { return table_.host_view(); }

 private:
  InstanceTable& table_;
  LedgerRecord self_{&table_.ledger(), MemorySpace::kHost, MemoryTag::kObjects, sizeof(CpuInstances)};
};

std::unique_ptr<InstancesBackend> CpuDevice::create_instances(const char*, InstanceTable& table) {
  return std::make_unique<CpuInstances>(table);
}

}  // namespace

std::unique_ptr<DeviceBackend> make_cpu_backend(const char* function, uint32_t num_threads) {
  return std::make_unique<CpuDevice>(function, num_threads);
}

}  // namespace wr
