// The CUDA backend behind the seam of backend/backend.h: one GPU per context, device buffers
// recorded in their owners' ledgers, uploads at creation, and renders that only enqueue. Host
// C++ over the CUDA runtime (linked statically, so libwr.so loads where no CUDA is installed);
// the kernels themselves are cuda_kernels.cu.
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstring>
#include <string>
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
    const bool in_args = std::strcmp(r.args_prefix, "args->") == 0;
    require_device_pointer(function, call.body_poses, in_args ? "args->body_poses" : "body_poses", ordinal_);
    require_device_pointer(function, call.out, in_args ? "args->out" : "depth_out", ordinal_);
    const struct {
      const void* p;
      const char* name;
    } optional[] = {{call.intrinsics, "args->intrinsics"},
                    {call.mounts, "args->mounts"},
                    {call.latency, "args->latency"},
                    {call.update_mask, "args->update_mask"},
                    {call.reset_mask, "args->reset_mask"},
                    {call.bad_env_count, "args->bad_env_count"},
                    {call.bad_env_mask, "args->bad_env_mask"},
                    {call.instance_poses, "args->instance_poses"},
                    {call.global_poses, "args->global_poses"},
                    {call.channels.instance_ids, "args->instance_ids"},
                    {call.channels.triangle_ids, "args->triangle_ids"},
                    {call.channels.hit_points, "args->hit_points"},
                    {call.channels.hit_normals, "args->hit_normals"}};
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
    const TerrainView host = scene.view();
    view_.kind = host.kind;
    if (host.kind == TerrainKind::kBvh) {
      view_.bvh = upload_bvh(stream, scene.bvh(), &nodes_, &leaf_words_, &parents_);
    } else if (host.kind == TerrainKind::kGrid) {
      // The host's view with its arrays where the device reads them (the counts and levels as they are).
      const GridTerrainData& g = scene.grid();
      view_.grid = host.grid;
      view_.grid.xs = upload(stream, "uploading the grid's columns", g.xs.data(), g.xs.size(), &grid_xs_);
      view_.grid.ys = upload(stream, "uploading the grid's rows", g.ys.data(), g.ys.size(), &grid_ys_);
      view_.grid.zs = upload(stream, "uploading the grid's samples", g.zs.data(), g.zs.size(), &grid_zs_);
      view_.grid.bounds =
          upload(stream, "uploading the grid's pyramid", g.bounds.data(), g.bounds.size(), &grid_pyramid_);
      view_.grid.sides = g.has_sides() ? upload_bvh(stream, g.sides, &nodes_, &leaf_words_, &parents_) : BvhView{};
    } else {
      const GridMeshData& m = scene.grid_mesh();
      view_.grid_mesh = host.grid_mesh;
      view_.grid_mesh.xs = upload(stream, "uploading the grid's rows", m.xs.data(), m.xs.size(), &grid_xs_);
      view_.grid_mesh.ys = upload(stream, "uploading the grid's columns", m.ys.data(), m.ys.size(), &grid_ys_);
      view_.grid_mesh.lines =
          upload(stream, "uploading the grid's vertex z and flags", m.lines.data(), m.lines.size(), &lines_);
      view_.grid_mesh.moved_xy = m.moved_xy.empty() ? nullptr
                                                    : upload(stream, "uploading the grid's moved vertices",
                                                             m.moved_xy.data(), m.moved_xy.size(), &moved_xy_);
      view_.grid_mesh.ranges =
          upload(stream, "uploading the grid's pyramid", m.ranges.data(), m.ranges.size(), &grid_pyramid_);
      view_.grid_mesh.side_boxes = m.side_boxes.empty()
                                       ? nullptr
                                       : upload(stream, "uploading the grid's side boxes", m.side_boxes.data(),
                                                m.side_boxes.size(), &side_boxes_);
      view_.grid_mesh.reach = upload(stream, "uploading the grid's reach", m.reach.data(), m.reach.size(), &reach_);
      view_.grid_mesh.zero_area = m.zero_area.empty() ? nullptr
                                                      : upload(stream, "uploading the grid's zero-area bits",
                                                               m.zero_area.data(), m.zero_area.size(), &bits_);
    }
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
  template <class T>
  static const T* upload(CreationStream& stream, const char* what, const T* host, size_t count, DeviceArray<T>* out) {
    stream.upload(what, host, count, out);
    return out->get();
  }
  static BvhView upload_bvh(CreationStream& stream, const Bvh& bvh, DeviceArray<BvhNode>* nodes,
                            DeviceArray<uint32_t>* leaf_words, DeviceArray<uint32_t>* parents) {
    stream.upload("uploading BVH nodes", bvh.nodes.data(), bvh.nodes.size(), nodes);
    stream.upload("uploading BVH leaf blocks", bvh.leaf_words.data(), bvh.leaf_words.size(), leaf_words);
    stream.upload("uploading BVH parents", bvh.parents.data(), bvh.parents.size(), parents);
    return BvhView{nodes->get(), leaf_words->get(), parents->get()};
  }

  int ordinal_;
  SceneTerrain& scene_;
  TerrainView view_;  // the terrain's, on this device
  LedgerRecord self_{&scene_.ledger(), MemorySpace::kHost, MemoryTag::kObjects, sizeof(CudaScene)};
  // The BVH (a BVH terrain's, or a height field's base's).
  DeviceArray<BvhNode> nodes_{ordinal_, &scene_.ledger(), MemoryTag::kBvhNodes};
  DeviceArray<uint32_t> leaf_words_{ordinal_, &scene_.ledger(), MemoryTag::kBvhTriangles};
  DeviceArray<uint32_t> parents_{ordinal_, &scene_.ledger(), MemoryTag::kBvhParents};
  // A grid's arrays: a height field's columns, rows, samples and pyramid; a grid mesh's rows'
  // x, columns' y, vertex z and flags, moved vertices, reach, pyramid and zero-area bits.
  DeviceArray<float> grid_xs_{ordinal_, &scene_.ledger(), MemoryTag::kGridSamples};
  DeviceArray<float> grid_ys_{ordinal_, &scene_.ledger(), MemoryTag::kGridSamples};
  DeviceArray<float> grid_zs_{ordinal_, &scene_.ledger(), MemoryTag::kGridSamples};
  DeviceArray<uint32_t> lines_{ordinal_, &scene_.ledger(), MemoryTag::kGridSamples};
  DeviceArray<float> moved_xy_{ordinal_, &scene_.ledger(), MemoryTag::kGridSamples};
  DeviceArray<float> reach_{ordinal_, &scene_.ledger(), MemoryTag::kGridSamples};
  DeviceArray<float> grid_pyramid_{ordinal_, &scene_.ledger(), MemoryTag::kGridPyramid};
  DeviceArray<float> side_boxes_{ordinal_, &scene_.ledger(), MemoryTag::kGridPyramid};
  DeviceArray<uint32_t> bits_{ordinal_, &scene_.ledger(), MemoryTag::kGridSamples};
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
