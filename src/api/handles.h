// The structs behind the opaque C handles. Each holds a reference count and a reference to
// its parent: a sensor keeps its scene alive, a scene keeps its context alive, so the user
// may release them in any order. Each holds its host object and its device data (the backend's,
// backend/backend.h), declared in that order so that the device data, which reads the host
// object and records its bytes in the host object's ledger, goes first.
#pragma once

#include <atomic>
#include <memory>

#include <wr/wr.h>

#include "backend/backend.h"
#include "scene/instance_layout.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

struct wr_context_ {
  std::atomic<int> refs{1};
  std::unique_ptr<wr::DeviceBackend> device;  // a CPU thread pool or one CUDA GPU
};

struct wr_scene_ {
  std::atomic<int> refs{1};
  wr_context context = nullptr;  // holds one reference
  std::unique_ptr<wr::Scene> scene;           // a mesh scene: the mesh's BVH on the host
  std::unique_ptr<wr::SceneBackend> device;   // and on the context's device
  // An instanced scene (wr_scene_create_instanced; scene and device above are null): its terrain
  // and prototypes (mesh scenes, each holding one reference) and its table, host and device.
  wr_scene terrain = nullptr;
  std::unique_ptr<wr::InstanceTable> instances;
  wr::TrackedVector<wr_scene> prototypes;     // recorded in the table's ledger (so declared after it)
  std::unique_ptr<wr::InstancesBackend> instances_device;
};

struct wr_sensor_ {
  std::atomic<int> refs{1};
  wr_scene scene = nullptr;  // holds one reference
  std::unique_ptr<wr::Sensor> sensor;         // camera model and template on the host
  std::unique_ptr<wr::SensorBackend> device;  // and the sensor's device data
};
