// The CUDA backend behind the seam of backend/backend.h: one GPU per context, device buffers
// recorded in their owners' ledgers, uploads at creation, and renders that only enqueue. Host
// C++ over the CUDA runtime (linked statically, so libwr.so loads where no CUDA is installed);
// the kernels themselves are cuda_kernels.cu.
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/backend.h"
#include "errors/status_error.h"
#include "cuda_errors.h"
#include "cuda_kernels.h"
#include "cuda_policy.h"
#include "scene/instance_layout.h"
#include "scene/scene_terrain.h"
#include "sensor/sensor.h"

namespace wr {
namespace cuda {
namespace {

// A failed runtime call also leaves its error as the runtime's "last error" (this library's
// own copy of the runtime, linked statically), where the next render's launch check would
// find it and report a launch that went fine as failed: every failure is taken out of there
// once reported. (A sticky error, one that broke the context, stays whatever is done.)
void clear_last_error() noexcept { (void)cudaGetLastError(); }

[[noreturn]] void fail_cuda(const char* function, const std::string& what, cudaError_t err, wr_status status) {
  clear_last_error();
  fail(status,
       std::string(function) + ": " + what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

void check(const char* function, const char* what, cudaError_t err) {
  if (err != cudaSuccess) fail_cuda(function, what, err, status_of_error(err));
}

// The driver's current-context calls, through the runtime's entry-point query (libwr links no
// libcuda, which machines without a GPU lack). Null where the driver does not give them.
struct DriverContextCalls {
  PFN_cuCtxGetCurrent_v4000 get = nullptr;
  PFN_cuCtxSetCurrent_v4000 set = nullptr;
};

const DriverContextCalls& driver_context_calls() {
  static const DriverContextCalls calls = [] {
    DriverContextCalls c;
    void* get = nullptr;
    void* set = nullptr;
    cudaDriverEntryPointQueryResult found_get{}, found_set{};
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &get, 4000, cudaEnableDefault, &found_get) == cudaSuccess &&
        cudaGetDriverEntryPointByVersion("cuCtxSetCurrent", &set, 4000, cudaEnableDefault, &found_set) == cudaSuccess &&
        found_get == cudaDriverEntryPointSuccess && found_set == cudaDriverEntryPointSuccess) {
      c.get = reinterpret_cast<PFN_cuCtxGetCurrent_v4000>(get);
      c.set = reinterpret_cast<PFN_cuCtxSetCurrent_v4000>(set);
    }
    clear_last_error();
    return c;
  }();
  return calls;
}

// Makes device `ordinal`'s primary context the calling thread's current one for the length of
// one library call, and puts back exactly what was current before: the current context is the
// driver's, shared with the application's own CUDA runtime, and a library call must neither move
// the application's next cudaMalloc or launch to another GPU nor leave a context current on a
// thread that had none (which cudaSetDevice(0) would create on GPU 0). With a function name a
// failure to switch is reported (nothing has changed then); without one (destructors) it is only
// cleared.
class CurrentDevice {
 public:
  CurrentDevice(const char* function, int ordinal) {
    const DriverContextCalls& driver = driver_context_calls();
    if (driver.get && driver.get(&previous_) == CUDA_SUCCESS) restore_ = true;
    const cudaError_t err = cudaSetDevice(ordinal);
    if (err == cudaSuccess) return;
    restore_ = false;  // nothing has changed: nothing to put back
    if (function) fail_cuda(function, "cudaSetDevice(" + std::to_string(ordinal) + ")", err, status_of_error(err));
    clear_last_error();
  }
  ~CurrentDevice() {
    if (!restore_) return;
    CUcontext now = nullptr;
    const DriverContextCalls& driver = driver_context_calls();
    if (driver.get(&now) == CUDA_SUCCESS && now != previous_) (void)driver.set(previous_);
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  CUcontext previous_ = nullptr;
  bool restore_ = false;
};

// One device buffer on device `ordinal`, recorded in its owner's ledger for as long as it lives.
// (Allocated while the owner's creation has the device current; freed with it made current.)
template <class T>
class DeviceArray {
 public:
  DeviceArray(int ordinal, MemoryLedger* ledger, MemoryTag tag) : ordinal_(ordinal), ledger_(ledger), tag_(tag) {}
  ~DeviceArray() { free(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  void allocate(const char* function, const char* what, size_t count) {
    if (count == 0) return;  // e.g. no triangle left after dropping zero-area ones
    T* p = nullptr;
    check(function, what, cudaMalloc(&p, count * sizeof(T)));
    ptr_ = p;
    count_ = count;
    ledger_->add(MemorySpace::kDevice, tag_, bytes());
  }
  T* get() const { return ptr_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  void free() noexcept {
    if (!ptr_) return;
    // A failure here (e.g. a cudaFree while another thread captures a graph in global mode)
    // leaks the buffer; it is no longer this library's either way, so the ledger forgets it.
    const CurrentDevice device(nullptr, ordinal_);
    if (cudaFree(ptr_) != cudaSuccess) clear_last_error();
    ledger_->remove(MemorySpace::kDevice, tag_, bytes());
    ptr_ = nullptr;
  }

  T* ptr_ = nullptr;
  size_t count_ = 0;
  int ordinal_;
  MemoryLedger* ledger_;
  MemoryTag tag_;
};

// What a creation enqueues (uploads, the warm-up launch) goes on a stream of its own, which the
// creation waits for before it returns: a copy from pageable memory may still be in flight when
// cudaMemcpy returns, and a caller's non-blocking stream would not wait for the legacy stream,
// so a render enqueued there right after creation could read the BVH before it has arrived.
class CreationStream {
 public:
  explicit CreationStream(const char* function) : function_(function) {
    check(function, "creating the upload stream", cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~CreationStream() {
    if (cudaStreamDestroy(stream_) != cudaSuccess) clear_last_error();
  }
  CreationStream(const CreationStream&) = delete;
  CreationStream& operator=(const CreationStream&) = delete;

  template <class T>
  void upload(const char* what, const T* host, size_t count, DeviceArray<T>* out) {
    out->allocate(function_, what, count);
    if (count > 0)
      check(function_, what, cudaMemcpyAsync(out->get(), host, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
  }
  template <class T>
  void zero(const char* what, DeviceArray<T>* out) {
    check(function_, what, cudaMemsetAsync(out->get(), 0, out->bytes(), stream_));
  }
  cudaStream_t get() const { return stream_; }
  void finish() { check(function_, "waiting for the uploads", cudaStreamSynchronize(stream_)); }

 private:
  const char* function_;
  cudaStream_t stream_ = nullptr;
};

// Rejects pointers the device cannot use as global memory of `ordinal`.
void require_device_pointer(const char* function, const void* p, const char* name, int ordinal) {
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) {
    const wr_status status = status_of_pointer_query(err);
    fail_cuda(function,
              status == WR_ERROR_INVALID_ARGUMENT ? std::string(name) + " is not a CUDA device pointer"
                                                  : std::string("asking CUDA what ") + name + " points to",
              err, status);
  }
  if (attr.type == cudaMemoryTypeUnregistered || attr.type == cudaMemoryTypeHost)
    fail(WR_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": " + name + " is a host pointer; a CUDA sensor reads and writes device memory");
  if (attr.type == cudaMemoryTypeDevice && attr.device != ordinal)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + name + " lives on CUDA device " +
                                        std::to_string(attr.device) + ", the sensor on device " +
                                        std::to_string(ordinal));
}

// Checks that device `ordinal` exists and can be used, and creates its primary context now, so
// that later calls fail less late.
void open_device(const char* function, int ordinal) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    clear_last_error();
    int driver = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    clear_last_error();
    fail(WR_ERROR_UNSUPPORTED,
         std::string(function) + ": " +
             no_device_reason(err == cudaSuccess ? cudaErrorNoDevice : err, driver, CUDART_VERSION));
  }
  if (ordinal >= count)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": ordinal = " + std::to_string(ordinal) + " but only " +
                                        std::to_string(count) + " CUDA device(s) exist");
  const CurrentDevice device(function, ordinal);
  err = cudaFree(nullptr);
  if (err != cudaSuccess)
    fail_cuda(function, "CUDA device " + std::to_string(ordinal) + " is not usable", err, WR_ERROR_UNSUPPORTED);
}

class CudaSensor final : public SensorBackend {
 public:
  CudaSensor(const char* function, int ordinal, const TerrainView& terrain, CameraSensor& sensor)
      : ordinal_(ordinal), terrain_(terrain), sensor_(sensor) {
    const CurrentDevice device(function, ordinal_);
    CreationStream stream(function);
    stream.upload("uploading the ray template", sensor.ray_template().data(), sensor.ray_template().size(), &rays_);
    overflows_.allocate(function, "allocating the overflow counter", 1);
    stream.zero("clearing the overflow counter", &overflows_);
    // The pipeline's state (sensor/pipeline_options.h).
    const PipelineParams& p = sensor.pipeline().params;
    const uint64_t n = sensor.num_envs();
    if (p.noise.edges) camera_images_.allocate(function, "allocating the camera images", n * p.win_w * p.win_h);
    if (p.camera_image)
      samples_.allocate(function, "allocating the crop samples", n * p.output.crop_w * p.output.crop_h);
    if (p.output.resample != kResampleNone) {
      std::vector<ResampleTaps> x(p.output.out_w), y(p.output.out_h);
      build_resample_taps(p, x.data(), y.data());
      stream.upload("uploading the resampling taps", x.data(), x.size(), &taps_x_);
      stream.upload("uploading the resampling taps", y.data(), y.size(), &taps_y_);
      stream.finish();  // before x and y go
    }
    if (p.history > 1) {
      history_.allocate(function, "allocating the history rings", n * p.history * sensor.pipeline().out_bytes_per_env);
      frames_.allocate(function, "allocating the frame counts", n);
      stream.zero("clearing the frame counts", &frames_);
    }
    // A kernel's first launch does one-time work in the driver: it loads the kernel's module
    // (lazy loading, the default since CUDA 12.2) and grows the context's local memory when the
    // kernel needs more per thread than is reserved; both allocate and may synchronise. So every
    // instantiation a render of this sensor can use (its scene's instances or not; the pipeline's
    // features, and without options the plain ones too; a pattern sensor's ray source) is launched here once over no
    // env (every thread returns at once): render is free of that work from its first call on (a first render captured
    // in a graph included), and a GPU this build has no code for fails here.
    const bool instances = sensor.num_instances() != 0;
    for (const bool pipeline : {true, false}) {
      if (!pipeline && sensor.pipeline().active) continue;
      PipelineCall nothing{};
      check(function, "first launch of the render's kernels",
            launch_render(terrain_, rays_.get(), p, nothing,
                          RenderFeatureSet{pipeline, instances, terrain_.kind, sensor.is_pattern()}, state(), 0,
                          overflows_.get(), stream.get()));
    }
    stream.finish();
  }

  void render(const char* function, const RenderCall& r) override {
    const CurrentDevice device(function, ordinal_);
    const PipelineCall& call = r.call;
    // (wr_sensor_render's parameters are body_poses and depth_out; nothing else is set then.)
    const bool in_args = r.arguments == ArgumentsAs::kArgsStruct;
    require_device_pointer(function, call.body_poses, in_args ? "args->body_poses" : "body_poses", ordinal_);
    require_device_pointer(function, call.out, in_args ? "args->out" : "depth_out", ordinal_);
    const struct {
      const void* p;
      const char* name;
#define WR_ARRAY_ENTRY(name, member) {call.member, "args->" #name},
    } optional[] = {WR_PIPELINE_CALL_ARRAYS(WR_ARRAY_ENTRY){call.instance_poses, "args->instance_poses"},
                    {call.global_poses, "args->global_poses"}};
#undef WR_ARRAY_ENTRY
    for (const auto& a : optional)
      if (a.p) require_device_pointer(function, a.p, a.name, ordinal_);
    const PipelineParams& p = sensor_.pipeline().params;
    const uint32_t n = sensor_.num_envs();
    if (render_blocks(p, call, r.features, n) > 0x7fffffffull)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": too many envs x pixels for one launch");
    check(function, "launching the render's kernels",
          launch_render(terrain_, rays_.get(), p, call, r.features, state(), n, overflows_.get(),
                        static_cast<cudaStream_t>(r.stream)));
  }

  uint64_t stack_overflows(const char* function) override {
    const CurrentDevice device(function, ordinal_);
    // Renders may still run on any stream, non-blocking ones included, which a copy on the
    // default stream would not wait for.
    check(function, "waiting for the device", cudaDeviceSynchronize());
    unsigned long long count = 0;
    check(function, "reading the overflow counter",
          cudaMemcpy(&count, overflows_.get(), sizeof count, cudaMemcpyDeviceToHost));
    return count;
  }

 private:
  PipelineState state() const {
    return PipelineState{camera_images_.get(), samples_.get(), history_.get(),
                         frames_.get(),        taps_x_.get(),  taps_y_.get()};
  }

  int ordinal_;
  TerrainView terrain_;  // the scene's, on this device
  CameraSensor& sensor_;
  LedgerRecord self_{&sensor_.ledger(), MemorySpace::kHost, MemoryTag::kObjects, sizeof(CudaSensor)};
  DeviceArray<TemplateRay> rays_{ordinal_, &sensor_.ledger(), MemoryTag::kRayTemplate};           // (height x width)
  DeviceArray<unsigned long long> overflows_{ordinal_, &sensor_.ledger(), MemoryTag::kCounters};  // one counter
  // The pipeline's per-env state: (num_envs x win_h x win_w) clean depth, (num_envs x crop_h x
  // crop_w) samples, (num_envs x history x the output's bytes) rings, (num_envs) frame counts.
  DeviceArray<float> camera_images_{ordinal_, &sensor_.ledger(), MemoryTag::kCameraImages};
  DeviceArray<float> samples_{ordinal_, &sensor_.ledger(), MemoryTag::kCameraImages};
  DeviceArray<unsigned char> history_{ordinal_, &sensor_.ledger(), MemoryTag::kHistory};
  DeviceArray<uint32_t> frames_{ordinal_, &sensor_.ledger(), MemoryTag::kHistory};
  DeviceArray<ResampleTaps> taps_x_{ordinal_, &sensor_.ledger(), MemoryTag::kRenderScratch};  // (out_w)
  DeviceArray<ResampleTaps> taps_y_{ordinal_, &sensor_.ledger(), MemoryTag::kRenderScratch};  // (out_h)
};

class CudaScene final : public SceneBackend {
 public:
  CudaScene(const char* function, int ordinal, SceneTerrain& scene) : ordinal_(ordinal), scene_(scene) {
    const CurrentDevice device(function, ordinal_);
    CreationStream stream(function);
    // The host's view with every array where the device reads it (the counts and levels as they
    // are): the kind's arrays, each uploaded into a buffer of its ledger tag (an empty one: null).
    view_ = scene.view();
    with_terrain_kind(view_.kind, [&](auto kind) {
      scene.data<decltype(kind)>().for_each_array(
          view_of(kind, view_), [&](MemoryTag tag, const char* what, const auto* host, size_t count, auto& slot) {
            using T = std::remove_const_t<std::remove_pointer_t<std::remove_reference_t<decltype(slot)>>>;
            static_assert(std::is_same<T, std::remove_const_t<std::remove_pointer_t<decltype(host)>>>::value,
                          "an array goes into a pointer of its own type");
            arrays_.push_back(std::make_unique<DeviceArray<unsigned char>>(ordinal_, &scene_.ledger(), tag));
            stream.upload(what, reinterpret_cast<const unsigned char*>(host), count * sizeof(T), arrays_.back().get());
            slot = reinterpret_cast<const T*>(arrays_.back()->get());
          });
    });
    // The intersect kernel's first launch, for the reason given in CudaSensor's constructor.
    check(function, "first launch of the intersect kernel", launch_intersect(view_, ExplicitRays{}, stream.get()));
    stream.finish();
  }

  TerrainView device_view() const override { return view_; }

  void intersect(const char* function, const IntersectCall& call) override {
    const CurrentDevice device(function, ordinal_);
    const ExplicitRays& r = call.rays;
    require_device_pointer(function, r.origins, "origins", ordinal_);
    require_device_pointer(function, r.directions, "directions", ordinal_);
    if (r.tmax) require_device_pointer(function, r.tmax, "tmax", ordinal_);
    require_device_pointer(function, r.out_t, "out_t", ordinal_);
    if (r.out_triangle) require_device_pointer(function, r.out_triangle, "out_triangle", ordinal_);
    if (r.out_instance) require_device_pointer(function, r.out_instance, "out_instance", ordinal_);
    if (r.instance_poses) require_device_pointer(function, r.instance_poses, "args->instance_poses", ordinal_);
    if (r.global_poses) require_device_pointer(function, r.global_poses, "args->global_poses", ordinal_);
    // One launch covers at most 2^31 - 1 blocks (the grid's x limit): about 2^38 rays, below the
    // API's 2^40. Refused by name before anything is enqueued.
    if (blocks_for(r.count) > 0x7fffffffull)
      fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": count = " + std::to_string(r.count) +
                                          " is too large for one launch on a CUDA context: at most " +
                                          std::to_string(0x7fffffffull * kBlockThreads) + " rays");
    check(function, "launching the intersect kernel",
          launch_intersect(view_, r, static_cast<cudaStream_t>(call.stream)));
  }

  std::unique_ptr<SensorBackend> create_sensor(const char* function, CameraSensor& sensor) override {
    return std::make_unique<CudaSensor>(function, ordinal_, view_, sensor);
  }

 private:
  int ordinal_;
  SceneTerrain& scene_;
  TerrainView view_;  // the terrain's, on this device
  LedgerRecord self_{&scene_.ledger(), MemorySpace::kHost, MemoryTag::kObjects, sizeof(CudaScene)};
  // The terrain's arrays (its kind's for_each_array), each a buffer of its ledger tag.
  std::vector<std::unique_ptr<DeviceArray<unsigned char>>> arrays_;
};

// An instanced scene's table (scene/instance_layout.h) uploaded once: each prototype's BVH view
// (already device pointers) and each instance's prototype and group.
class CudaInstances final : public InstancesBackend {
 public:
  CudaInstances(const char* function, int ordinal, InstanceTable& table) : ordinal_(ordinal), table_(table) {
    const CurrentDevice device(function, ordinal_);
    CreationStream stream(function);
    const InstanceView host = table.host_view();
    const uint32_t n = num_instances(host);
    stream.upload("uploading the prototypes' BVH views", host.prototypes, table.num_prototypes(), &prototypes_);
    stream.upload("uploading the instances' prototypes", host.prototype, n, &prototype_);
    stream.upload("uploading the instances' groups", host.group, n, &group_);
    stream.finish();
  }

  InstanceView view() const override {
    return InstanceView{prototypes_.get(), prototype_.get(), group_.get(), table_.num_slots(), table_.num_globals()};
  }

 private:
  int ordinal_;
  InstanceTable& table_;
  LedgerRecord self_{&table_.ledger(), MemorySpace::kHost, MemoryTag::kObjects, sizeof(CudaInstances)};
  DeviceArray<BvhView> prototypes_{ordinal_, &table_.ledger(), MemoryTag::kInstanceTable};
  DeviceArray<uint32_t> prototype_{ordinal_, &table_.ledger(), MemoryTag::kInstanceTable};
  DeviceArray<uint32_t> group_{ordinal_, &table_.ledger(), MemoryTag::kInstanceTable};
};

class CudaDevice final : public DeviceBackend {
 public:
  CudaDevice(const char* function, int ordinal) : ordinal_(ordinal) { open_device(function, ordinal); }

  BvhBuildOptions bvh_build_options() const override {
    BvhBuildOptions options = cuda::bvh_build_options();
    options.num_threads = 0;  // the build runs on the host: every hardware thread
    return options;
  }
  std::unique_ptr<SceneBackend> create_scene(const char* function, SceneTerrain& scene) override {
    return std::make_unique<CudaScene>(function, ordinal_, scene);
  }
  std::unique_ptr<InstancesBackend> create_instances(const char* function, InstanceTable& table) override {
    return std::make_unique<CudaInstances>(function, ordinal_, table);
  }
  uint32_t num_threads() const override { return 1; }
  bool reads_host_memory() const override { return false; }
  void set_cpu_path(const char* function, int) override { no_cpu_path(function); }
  int cpu_path(const char* function) const override { no_cpu_path(function); }
  void gather_poses(const char* function, const PoseGather& g, void* stream) override {
    const CurrentDevice device(function, ordinal_);
    require_device_pointer(function, g.positions, "desc->positions", ordinal_);
    require_device_pointer(function, g.matrices, "desc->matrices", ordinal_);
    require_device_pointer(function, g.indices, "desc->indices", ordinal_);
    require_device_pointer(function, g.out, "out", ordinal_);
    check(function, "launching the pose gather kernel", launch_gather_poses(g, static_cast<cudaStream_t>(stream)));
  }

 private:
  [[noreturn]] static void no_cpu_path(const char* function) {
    fail(WR_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": context is a CUDA context; the CPU path applies to CPU contexts only");
  }

  int ordinal_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<DeviceBackend> make_cuda_backend(const char* function, int ordinal) {
  return std::make_unique<cuda::CudaDevice>(function, ordinal);
}

}  // namespace wr
