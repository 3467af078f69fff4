// The structs behind the opaque C handles. Each holds a reference count and a reference to
// its parent: a sensor keeps its scene alive, a scene keeps its context alive, so the user
// may release them in any order.
#pragma once

#include <atomic>
#include <memory>

#include <wr/wr.h>

#include "cpu/thread_pool.h"
#include "scene/scene.h"
#include "sensor/sensor.h"
#if WR_WITH_CUDA
#include "cuda_backend.h"
#endif

struct wr_context_ {
  std::atomic<int> refs{1};
  wr_device device = WR_DEVICE_CPU;
  int ordinal = 0;
  std::unique_ptr<wr::ThreadPool> pool;  // CPU contexts
  std::atomic<int> cpu_path{WR_CPU_PATH_AUTO};  // wr_cpu_path of CPU contexts' renders
};

struct wr_scene_ {
  std::atomic<int> refs{1};
  wr_context context = nullptr;  // holds one reference
  std::unique_ptr<wr::Scene> scene;
#if WR_WITH_CUDA
  wr::cuda::DeviceBvhPtr device_bvh;  // CUDA contexts: the BVH uploaded once
#endif
};

struct wr_sensor_ {
  std::atomic<int> refs{1};
  wr_scene scene = nullptr;  // holds one reference
  std::unique_ptr<wr::Sensor> sensor;  // camera model, template and CPU render
#if WR_WITH_CUDA
  wr::cuda::DeviceSensorPtr device_sensor;  // CUDA contexts: template on the device
#endif
};
