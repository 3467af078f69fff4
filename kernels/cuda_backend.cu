// CUDA backend: device buffers and the batched depth kernel.
//
// One launch covers every env. Each warp renders a tile of one env's image (8x4 pixels; the
// shape is a knob, cuda_tuning.h), so its 32 rays share an origin and nearly a direction
// (coherent traversal, few divergent nodes); each thread is one pixel. The BVH and the ray
// template are uploaded once and only read; poses are read from and depth written to the
// caller's device buffers.
#include "cuda_backend.h"
#include "kernel_threads.h"
#include "warp_tiles.h"

#include <cuda_runtime.h>

#include <string>

#include "common/status_error.h"
#include "core/camera.h"

namespace wr {
namespace cuda {
namespace {

// A failed runtime call also leaves its error as the runtime's "last error" (this library's
// own copy of the runtime, linked statically), where the next render's launch check would
// find it and report a launch that went fine as failed: every failure is taken out of there
// once reported. (A sticky error, one that broke the context, stays whatever is done.)
void clear_last_error() noexcept { (void)cudaGetLastError(); }

[[noreturn]] void fail_cuda(const char* function, const char* what, cudaError_t err) {
  clear_last_error();
  const wr_status status = err == cudaErrorMemoryAllocation ? WR_ERROR_OUT_OF_MEMORY : WR_ERROR_DEVICE;
  fail(status, std::string(function) + ": " + what + ": " + cudaGetErrorName(err) + " (" +
                   cudaGetErrorString(err) + ")");
}

void check(const char* function, const char* what, cudaError_t err) {
  if (err != cudaSuccess) fail_cuda(function, what, err);
}

// Makes `ordinal` the calling thread's current device for the length of one library call and
// gives the caller's back at the end: the current device is the driver's, shared with the
// application's own CUDA runtime, and a library call must not move the application's next
// cudaMalloc or launch to another GPU. With a function name a failure to switch is reported
// (nothing has changed then); without one (deleters) it is only cleared.
class CurrentDevice {
 public:
  CurrentDevice(const char* function, int ordinal) : ordinal_(ordinal) {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      clear_last_error();
      previous_ = -1;
    }
    if (previous_ == ordinal_) return;
    const cudaError_t err = cudaSetDevice(ordinal_);
    if (err == cudaSuccess) return;
    previous_ = ordinal_;  // nothing to give back
    if (function) fail_cuda(function, ("cudaSetDevice(" + std::to_string(ordinal_) + ")").c_str(), err);
    clear_last_error();
  }
  ~CurrentDevice() {
    if (previous_ >= 0 && previous_ != ordinal_ && cudaSetDevice(previous_) != cudaSuccess) clear_last_error();
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int ordinal_;
  int previous_ = -1;
};

// One device buffer, recorded in its owner's ledger for as long as it lives.
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  size_t count = 0;
  MemoryLedger* ledger = nullptr;
  MemoryTag tag = MemoryTag::kObjects;

  void free() noexcept {
    if (!ptr) return;
    // A failure here (e.g. a cudaFree while another thread captures a graph in global mode)
    // leaks the buffer; it is no longer this library's either way, so the ledger forgets it.
    if (cudaFree(ptr) != cudaSuccess) clear_last_error();
    if (ledger) ledger->remove(MemorySpace::kDevice, tag, count * sizeof(T));
    ptr = nullptr;
  }
};

template <class T>
void upload(const char* function, const char* what, const T* host, size_t count, MemoryLedger* ledger,
            MemoryTag tag, DeviceArray<T>* out) {
  if (count == 0) {  // e.g. no triangle left after dropping zero-area ones: nothing to upload
    *out = DeviceArray<T>{nullptr, 0, ledger, tag};
    return;
  }
  T* device = nullptr;
  check(function, what, cudaMalloc(&device, count * sizeof(T)));
  const cudaError_t err = cudaMemcpy(device, host, count * sizeof(T), cudaMemcpyHostToDevice);
  if (err != cudaSuccess) {
    cudaFree(device);
    fail_cuda(function, what, err);
  }
  if (ledger) ledger->add(MemorySpace::kDevice, tag, count * sizeof(T));
  *out = DeviceArray<T>{device, count, ledger, tag};
}

// Rejects pointers the device cannot use as global memory of `ordinal`.
void require_device_pointer(const char* function, const void* p, const char* name, int ordinal) {
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the error this query left behind
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + name +
                                        " is not a CUDA device pointer (" + cudaGetErrorString(err) + ")");
  }
  if (attr.type == cudaMemoryTypeUnregistered || attr.type == cudaMemoryTypeHost)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + name +
                                        " is a host pointer; a CUDA sensor reads and writes device memory");
  if (attr.type == cudaMemoryTypeDevice && attr.device != ordinal)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + name + " lives on CUDA device " +
                                        std::to_string(attr.device) + ", the sensor on device " +
                                        std::to_string(ordinal));
}

// Occupancy knob (cuda_tuning.h): with a minimum of resident blocks, ptxas caps the registers.
#if WR_CUDA_MIN_BLOCKS_PER_SM > 0
#define WR_KERNEL_BOUNDS __launch_bounds__(kBlockThreads, WR_CUDA_MIN_BLOCKS_PER_SM)
#else
#define WR_KERNEL_BOUNDS __launch_bounds__(kBlockThreads)
#endif

// The kernels are launches of kernel_threads.h, one thread per pixel or ray.
__global__ void WR_KERNEL_BOUNDS
    depth_kernel(BvhView bvh, const TemplateRay* __restrict__ rays, DepthParams params, WarpTiles tiles,
                 const float* __restrict__ body_poses, float* __restrict__ depth_out,
                 unsigned long long* __restrict__ overflows) {
  const uint64_t thread = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (depth_thread(thread, bvh, rays, params, tiles, body_poses, depth_out)) atomicAdd(overflows, 1ull);
}

__global__ void WR_KERNEL_BOUNDS
    intersect_kernel(BvhView bvh, const float* __restrict__ origins, const float* __restrict__ directions,
                     const float* __restrict__ tmax, uint64_t count, float* __restrict__ out_t,
                     uint32_t* __restrict__ out_triangle) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  intersect_thread(i, bvh, origins, directions, tmax, count, out_t, out_triangle);
}

}  // namespace

struct DeviceBvh {
  int ordinal = 0;
  MemoryLedger* ledger = nullptr;  // where this struct itself is recorded
  DeviceArray<BvhNode> nodes;
  DeviceArray<uint32_t> leaf_words;
  DeviceArray<uint32_t> parents;
  BvhView view() const { return BvhView{nodes.ptr, leaf_words.ptr, parents.ptr}; }
};

struct DeviceSensor {
  int ordinal = 0;
  MemoryLedger* ledger = nullptr;  // where this struct itself is recorded
  BvhView bvh{};
  DeviceArray<TemplateRay> rays;               // (height x width)
  DeviceArray<unsigned long long> overflows;  // one counter
  DepthParams params{};
  uint32_t width = 0, height = 0, num_envs = 0;
};

void open_device(const char* function, int ordinal) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    clear_last_error();
    fail(WR_ERROR_UNSUPPORTED, std::string(function) + ": no usable CUDA driver or device: " +
                                   cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
  }
  if (count == 0) fail(WR_ERROR_UNSUPPORTED, std::string(function) + ": no CUDA device present");
  if (ordinal >= count)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": ordinal = " + std::to_string(ordinal) +
                                        " but only " + std::to_string(count) + " CUDA device(s) exist");
  const CurrentDevice device(function, ordinal);
  err = cudaFree(nullptr);  // creates the primary context now, so later calls fail less late
  if (err != cudaSuccess) {
    clear_last_error();
    fail(WR_ERROR_UNSUPPORTED, std::string(function) + ": CUDA device " + std::to_string(ordinal) +
                                   " is not usable: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                                   ")");
  }
}

namespace {

// A kernel's first launch does one-time work in the driver: it loads the kernel's module (lazy
// loading, the default since CUDA 12.2), and it grows the context's local memory when the kernel
// needs more per thread than is reserved (cuCtxSetLimit, CU_LIMIT_STACK_SIZE); both allocate on
// the device and may synchronise. So scene and sensor creation launch their kernel once over no
// pixel or ray (every thread returns at once): render is then free of that work from its first
// call on, a first render captured into a graph included, and a GPU this build has no code for
// fails at creation. Launched on the default stream and not waited for.
void launch_empty_depth_kernel(const char* function, const DeviceSensor& s) {
  const WarpTiles none = WarpTiles::make(s.width, s.height, 0);  // no warp has a pixel
  depth_kernel<<<1, kBlockThreads>>>(s.bvh, s.rays.ptr, s.params, none, nullptr, nullptr, s.overflows.ptr);
  check(function, "first launch of the depth kernel", cudaGetLastError());
}

void launch_empty_intersect_kernel(const char* function, const DeviceBvh& bvh) {
  intersect_kernel<<<1, kBlockThreads>>>(bvh.view(), nullptr, nullptr, nullptr, 0, nullptr, nullptr);
  check(function, "first launch of the intersect kernel", cudaGetLastError());
}

}  // namespace

void DeviceBvhDeleter::operator()(DeviceBvh* p) const noexcept {
  if (!p) return;
  const CurrentDevice device(nullptr, p->ordinal);
  p->nodes.free();
  p->leaf_words.free();
  p->parents.free();
  if (p->ledger) p->ledger->remove(MemorySpace::kHost, MemoryTag::kObjects, sizeof(DeviceBvh));
  delete p;
}

DeviceBvhPtr upload_bvh(const char* function, int ordinal, const Bvh& bvh, MemoryLedger* ledger) {
  const CurrentDevice device(function, ordinal);
  DeviceBvhPtr d(new DeviceBvh);
  d->ordinal = ordinal;
  d->ledger = ledger;
  if (ledger) ledger->add(MemorySpace::kHost, MemoryTag::kObjects, sizeof(DeviceBvh));
  upload(function, "uploading BVH nodes", bvh.nodes.data(), bvh.nodes.size(), ledger, MemoryTag::kBvhNodes,
         &d->nodes);
  upload(function, "uploading BVH leaf blocks", bvh.leaf_words.data(), bvh.leaf_words.size(), ledger,
         MemoryTag::kBvhTriangles, &d->leaf_words);
  upload(function, "uploading BVH parents", bvh.parents.data(), bvh.parents.size(), ledger,
         MemoryTag::kBvhParents, &d->parents);
  launch_empty_intersect_kernel(function, *d);
  return d;
}

void DeviceSensorDeleter::operator()(DeviceSensor* p) const noexcept {
  if (!p) return;
  const CurrentDevice device(nullptr, p->ordinal);
  p->rays.free();
  p->overflows.free();
  if (p->ledger) p->ledger->remove(MemorySpace::kHost, MemoryTag::kObjects, sizeof(DeviceSensor));
  delete p;
}

DeviceSensorPtr create_sensor(const char* function, int ordinal, const DeviceBvh& bvh, const TemplateRay* rays,
                              const DepthParams& params, uint32_t width, uint32_t height, uint32_t num_envs,
                              MemoryLedger* ledger) {
  const CurrentDevice device(function, ordinal);
  DeviceSensorPtr s(new DeviceSensor);
  s->ordinal = ordinal;
  s->ledger = ledger;
  if (ledger) ledger->add(MemorySpace::kHost, MemoryTag::kObjects, sizeof(DeviceSensor));
  s->bvh = bvh.view();
  s->params = params;
  s->width = width;
  s->height = height;
  s->num_envs = num_envs;
  upload(function, "uploading the ray template", rays, static_cast<size_t>(width) * height, ledger,
         MemoryTag::kRayTemplate, &s->rays);
  const unsigned long long zero = 0;
  upload(function, "allocating the overflow counter", &zero, 1, ledger, MemoryTag::kCounters, &s->overflows);
  launch_empty_depth_kernel(function, *s);
  return s;
}

void render(const char* function, DeviceSensor& s, const float* body_poses, float* depth_out, void* stream) {
  const CurrentDevice device(function, s.ordinal);
  require_device_pointer(function, body_poses, "body_poses", s.ordinal);
  require_device_pointer(function, depth_out, "depth_out", s.ordinal);
  const WarpTiles tiles = WarpTiles::make(s.width, s.height, s.num_envs);
  if (tiles.blocks > 0x7fffffffull)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": too many envs x pixels for one launch");
  depth_kernel<<<static_cast<unsigned>(tiles.blocks), kBlockThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      s.bvh, s.rays.ptr, s.params, tiles, body_poses, depth_out, s.overflows.ptr);
  check(function, "launching the depth kernel", cudaGetLastError());
}

void intersect(const char* function, const DeviceBvh& bvh, const float* origins, const float* directions,
               const float* tmax, uint64_t count, float* out_t, uint32_t* out_triangle, void* stream) {
  const CurrentDevice device(function, bvh.ordinal);
  require_device_pointer(function, origins, "origins", bvh.ordinal);
  require_device_pointer(function, directions, "directions", bvh.ordinal);
  if (tmax) require_device_pointer(function, tmax, "tmax", bvh.ordinal);
  require_device_pointer(function, out_t, "out_t", bvh.ordinal);
  if (out_triangle) require_device_pointer(function, out_triangle, "out_triangle", bvh.ordinal);
  const uint64_t blocks = (count + kBlockThreads - 1) / kBlockThreads;
  if (blocks > 0x7fffffffull) fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": count is too large");
  intersect_kernel<<<static_cast<unsigned>(blocks), kBlockThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      bvh.view(), origins, directions, tmax, count, out_t, out_triangle);
  check(function, "launching the intersect kernel", cudaGetLastError());
}

uint64_t stack_overflows(const char* function, const DeviceSensor& s) {
  const CurrentDevice device(function, s.ordinal);
  // Renders may still run on any stream, non-blocking ones included, which a copy on the
  // default stream would not wait for.
  check(function, "waiting for the device", cudaDeviceSynchronize());
  unsigned long long count = 0;
  check(function, "reading the overflow counter",
        cudaMemcpy(&count, s.overflows.ptr, sizeof count, cudaMemcpyDeviceToHost));
  return count;
}

}  // namespace cuda
}  // namespace wr
