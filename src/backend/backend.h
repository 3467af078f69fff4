// The one seam between the C API and a backend (Embree's Device / DeviceGPU split is the model):
// what a context's device, a scene's device data and a sensor's device data do. Plain C++, no
// CUDA header. src/cpu implements it for the CPU (cpu_backend.cpp), kernels/ for CUDA; a build
// without CUDA links src/backend/cuda_unavailable.cpp instead, whose make_cuda_backend reports
// WR_ERROR_UNSUPPORTED with the reason (CMake decides which, once). src/api checks the
// arguments every backend needs, owns the handles, and makes one call into the backend per
// function.
//
// Every function may throw StatusError (errors/status_error.h) with a message that starts with
// `function` (the C API function's name) and names the culprit; a throw leaves every object as it
// was. Host-side objects (SceneTerrain, CameraSensor) stay the API's: a backend reads them and records its own
// allocations in their ledgers.
#pragma once

#include <cstdint>
#include <memory>

#include "core/depth_pipeline.h"
#include "core/explicit_rays.h"
#include "core/pose_gather.h"
#include "scene/bvh_builder.h"
#include "sensor/render_call.h"

namespace wr {

class InstanceTable;
class SceneTerrain;
class CameraSensor;

// Explicit rays (wr_scene_intersect, _ex), arguments already checked for null, alignment and
// count, the scene's instance table (core/instances.h) filled in where it has one.
struct IntersectCall {
  ExplicitRays rays;  // core/explicit_rays.h
  void* stream;       // a cudaStream_t on CUDA (null: the default stream); unused on the CPU
};

// A sensor's data on its device, made by SceneBackend::create_sensor.
class SensorBackend {
 public:
  virtual ~SensorBackend() = default;
  // The one render (wr_sensor_render and wr_sensor_render_ex: sensor/render_call.h, the call's
  // arrays checked for what needs no reading of their data, its feature set derived), compiled for
  // call.features. CPU: checks the host data (cpu/host_data_checks.h: bad envs named and nothing
  // written, or left to be made invalid where the sensor isolates them), renders, returns when
  // done. CUDA: checks that the pointers are device memory, enqueues on call.stream, allocates
  // and synchronises nothing.
  virtual void render(const char* function, const RenderCall& call) = 0;
  // Rays that overflowed the traversal stack since creation (CUDA: synchronises the device).
  virtual uint64_t stack_overflows(const char* function) = 0;
};

// A scene's data on its device (its terrain, uploaded once where the device has its own memory).
class SceneBackend {
 public:
  virtual ~SceneBackend() = default;
  // The terrain where this device's kernels read it (host or device pointers): an instanced
  // scene's table names its prototypes by their BVH's.
  virtual TerrainView device_view() const = 0;
  // The rays' instance table (call.rays.instances) is already where this device reads it.
  virtual void intersect(const char* function, const IntersectCall& call) = 0;
  // The device data of `sensor`, a sensor of this scene; `sensor` (its camera model, template and
  // ledger) outlives what this returns.
  virtual std::unique_ptr<SensorBackend> create_sensor(const char* function, CameraSensor& sensor) = 0;
};

// An instanced scene's table on its device (scene/instance_layout.h), made by
// DeviceBackend::create_instances; renders and explicit rays read it through view().
class InstancesBackend {
 public:
  virtual ~InstancesBackend() = default;
  virtual InstanceView view() const = 0;
};

// A context's device: a CPU thread pool, or one CUDA GPU.
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  // How this device's scenes build their BVH (the SAH weights its traversal was tuned for, and
  // the host threads that build it).
  virtual BvhBuildOptions bvh_build_options() const = 0;
  // The device data of `scene` (a BVH built with bvh_build_options(), or a grid); `scene` outlives it.
  virtual std::unique_ptr<SceneBackend> create_scene(const char* function, SceneTerrain& scene) = 0;
  // An instanced scene's table where this device reads it (its bytes in table's ledger); `table`
  // outlives it.
  virtual std::unique_ptr<InstancesBackend> create_instances(const char* function, InstanceTable& table) = 0;
  // Whether its calls read and write host memory (the CPU) or the device's own (a GPU).
  virtual bool reads_host_memory() const = 0;
  // Threads a render runs on (wr_context_num_threads): the CPU pool's, 1 for a GPU's host side.
  virtual uint32_t num_threads() const = 0;
  // The CPU tracing path (a wr_cpu_path value) of this device's renders. A device that has none
  // throws WR_ERROR_INVALID_ARGUMENT; a path this CPU cannot run, WR_ERROR_UNSUPPORTED.
  virtual void set_cpu_path(const char* function, int path) = 0;
  virtual int cpu_path(const char* function) const = 0;  // never WR_CPU_PATH_AUTO
  // Poses from matrices (wr_gather_poses; core/pose_gather.h), arguments already checked (on the
  // host: every index too). CPU: on the calling thread, done on return. CUDA: checks that the
  // pointers are device memory, enqueues on `stream`, allocates and synchronises nothing.
  virtual void gather_poses(const char* function, const PoseGather& gather, void* stream) = 0;
};

// A CPU device with num_threads threads (0: one per hardware thread). src/cpu/cpu_backend.cpp.
std::unique_ptr<DeviceBackend> make_cpu_backend(const char* function, uint32_t num_threads);

// CUDA device `ordinal` (>= 0): kernels/cuda_device.cpp, or, in a build without CUDA,
// src/backend/cuda_unavailable.cpp (WR_ERROR_UNSUPPORTED). No usable driver or device:
// WR_ERROR_UNSUPPORTED; an ordinal past the last device: WR_ERROR_INVALID_ARGUMENT.
std::unique_ptr<DeviceBackend> make_cuda_backend(const char* function, int ordinal);

}  // namespace wr
