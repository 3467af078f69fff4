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
#include "scene/scene_terrain.h"
#include "sensor/ray_pattern.h"
#include "sensor/sensor.h"

struct wr_context_ {
  std::atomic<int> refs{1};
  std::unique_ptr<wr::DeviceBackend> device;  // a CPU thread pool or one CUDA GPU
};

// Every scene is one model: a terrain (every ray is traced through it first) and an instance
// table (moving geometry per env and shared; empty for a scene made from a mesh alone). Its
// terrain is its own (made from a mesh: wr_scene_create, _load_obj, _create_heightfield) or
// another scene's, shared (wr_scene_create_instanced holds a reference to that scene); callers
// read both through terrain(), terrain_device() and instances_view(), whichever way it was made.
struct wr_scene_ {
  std::atomic<int> refs{1};
  wr_context context = nullptr;  // holds one reference
  // The terrain (scene/scene_terrain.h: of one kind, core/terrain.h) on the host and on the
  // context's device, where this scene owns it; else shared_terrain's.
  std::unique_ptr<wr::SceneTerrain> own_terrain;
  std::unique_ptr<wr::SceneBackend> own_terrain_device;
  wr_scene shared_terrain = nullptr;  // holds one reference
  // The instance table (host and device), its prototypes (scenes, each holding one reference;
  // recorded in the table's ledger, so declared after it). Null: empty.
  std::unique_ptr<wr::InstanceTable> instances;
  wr::TrackedVector<wr_scene> prototypes;
  std::unique_ptr<wr::InstancesBackend> instances_device;

  const wr::SceneTerrain& terrain() const { return shared_terrain ? shared_terrain->terrain() : *own_terrain; }
  wr::SceneBackend& terrain_device() const {
    return shared_terrain ? shared_terrain->terrain_device() : *own_terrain_device;
  }
  // The table where the context's device reads it: no instances where it is empty.
  wr::InstanceView instances_view() const { return instances_device ? instances_device->view() : wr::InstanceView{}; }
  // Adds what this scene holds itself (wr_scene_memory) to *sum: its own terrain's bytes and its
  // table's (a shared terrain's are its own scene's).
  void add_own_bytes(wr::MemoryLedger* sum) const {
    if (own_terrain) sum->add_all(own_terrain->ledger());
    if (instances) sum->add_all(instances->ledger());
  }
};

// A ray pattern (wr_patterns.h): host rays, copied into each sensor made from it.
struct wr_pattern_ {
  wr::RayPattern pattern;
};

struct wr_sensor_ {
  std::atomic<int> refs{1};
  wr_scene scene = nullptr;                   // holds one reference
  std::unique_ptr<wr::CameraSensor> sensor;   // camera model and template on the host
  std::unique_ptr<wr::SensorBackend> device;  // and the sensor's device data
};
