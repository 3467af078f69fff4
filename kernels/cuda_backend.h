// CUDA backend, as the C API (plain C++, no CUDA headers) sees it. Implemented in
// cuda_backend.cu; the kernel runs the very same src/core code as the CPU backend.
// Every function throws wr::StatusError: WR_ERROR_UNSUPPORTED when no usable driver or
// device exists (with the CUDA error text), WR_ERROR_DEVICE for other CUDA failures,
// WR_ERROR_OUT_OF_MEMORY when device memory runs out.
#pragma once

#include <cstdint>
#include <memory>

#include "core/camera.h"
#include "memory/memory_ledger.h"
#include "scene/bvh_builder.h"

namespace wr {
namespace cuda {

// Checks that device `ordinal` exists and can be used (creates its primary context).
void open_device(const char* function, int ordinal);

// Device buffers are recorded in `ledger` (the owning scene's or sensor's) when allocated
// and removed when freed.

// A BVH uploaded once to one device, shared by every sensor of the scene.
struct DeviceBvh;
struct DeviceBvhDeleter {
  void operator()(DeviceBvh* p) const noexcept;
};
using DeviceBvhPtr = std::unique_ptr<DeviceBvh, DeviceBvhDeleter>;
DeviceBvhPtr upload_bvh(const char* function, int ordinal, const Bvh& bvh, MemoryLedger* ledger);

// Enqueues wr_scene_intersect on `stream`: origins, directions (count x 3), tmax (count or
// null), out_t (count), out_triangle (count or null), all device pointers (a host pointer
// is rejected). A ray with a non-finite origin/direction or zero direction gets NaN.
void intersect(const char* function, const DeviceBvh& bvh, const float* origins, const float* directions,
               const float* tmax, uint64_t count, float* out_t, uint32_t* out_triangle, void* stream);

// A sensor's device data: the ray template (height x width) and an overflow counter.
struct DeviceSensor;
struct DeviceSensorDeleter {
  void operator()(DeviceSensor* p) const noexcept;
};
using DeviceSensorPtr = std::unique_ptr<DeviceSensor, DeviceSensorDeleter>;
// rays: (height x width) host template, copied to the device.
DeviceSensorPtr create_sensor(const char* function, int ordinal, const DeviceBvh& bvh, const TemplateRay* rays,
                              const DepthParams& params, uint32_t width, uint32_t height, uint32_t num_envs,
                              MemoryLedger* ledger);

// Enqueues one render of every env on `stream` (a cudaStream_t; NULL = default stream).
// body_poses: (num_envs x 7) and depth_out: (num_envs x height x width), device pointers
// (a host pointer is rejected with WR_ERROR_INVALID_ARGUMENT). Allocates nothing and does
// not synchronise; an env whose pose is not finite gets an image of NaN.
void render(const char* function, DeviceSensor& sensor, const float* body_poses, float* depth_out, void* stream);

// Rays that overflowed the traversal stack so far. Synchronises with the device.
uint64_t stack_overflows(const char* function, const DeviceSensor& sensor);

}  // namespace cuda
}  // namespace wr
