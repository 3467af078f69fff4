// What the engine plugin's two sensors share (depth_sensor.cpp: warp_raycaster.depth, a camera's
// depth image; ray_sensor.cpp: warp_raycaster.rays, a height scan's or a LiDAR's pattern): reading
// their MJCF attributes, naming a sensor in a message, the scene one mjData's instances share, and
// the callbacks' error handling, whose reasons depth_sensor.cpp's comment gives (how MuJoCo 4 drives
// a sensor plugin and how an error reaches the user).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>
#include <wr/wr.h>

#include "wr_mujoco.h"

namespace warp_raycaster_mujoco_plugin {

constexpr char kDepthPluginName[] = "warp_raycaster.depth";
constexpr char kRaysPluginName[] = "warp_raycaster.rays";

// The compiler keeps 500 characters of an engine error, "engine error: " included
// (user_model.cc's kErrorBufferSize): messages are kept shorter than that.
constexpr size_t kMessageSize = 480;

// wr_context_create_cpu's limit.
constexpr long long kMaxThreads = 4096;

// ---- Names in messages ----

// "sensor 3 'head_depth'": an object as MuJoCo numbers it, and its name where it has one.
std::string label(const mjModel* m, int type, int id, const char* kind);
// "<plugin>: sensor 3 'head_depth': ", or the plugin instance where the sensor is not known.
std::string prefix(const char* plugin, const mjModel* m, int instance, int sensor);
void copy_message(const std::string& s, char* out, size_t size);

// ---- Attributes ----

// The attribute's text without surrounding white space; "" when the MJCF does not set it.
std::string attribute(const mjModel* m, int instance, const char* name);
// "attribute <name> = '<value>'"
std::string attribute_is(const char* name, const std::string& value);
bool parse_integer(const std::string& s, long long lo, long long hi, long long* out);
// A real number as strtod reads it, the whole text: "inf", "-inf" and "nan" included.
bool parse_real(const std::string& s, double* out);
// n reals separated by white space ("1.6 1.0"), each finite and within a float's range.
bool parse_reals(const std::string& s, int n, double* out);
// A float holds it: a finite double beyond FLT_MAX has no float (the conversion is undefined).
bool fits_float(double v);

// The attributes both sensors have: near, far, miss, exclude_own_body, threads.
struct CommonConfig {
  float near_clip = 0.0f;
  float far_clip = std::numeric_limits<float>::infinity();
  float miss = std::numeric_limits<float>::infinity();
  bool exclude_own_body = false;
  uint32_t threads = 0;
};
// Those attributes, or the message naming the first bad one (empty: *out holds them).
std::string parse_common(const mjModel* m, int instance, CommonConfig* out);

// The sensors using plugin instance `instance`.
std::vector<int> sensors_of(const mjModel* m, int instance);
// "" where plugin instance `instance` has at most one sensor, else the message (`what`: what
// each sensor is on, "camera" or "site or body").
std::string one_sensor_per_instance(const mjModel* m, int instance, const char* what);
// What the sensor is attached to: "site 2 'scan'", or "nothing".
std::string attached_to(const mjModel* m, int sensor);

// ---- Per-mjData state ----

// A context and the model's scene: built once per mjData and shared by its instances of either
// sensor that ask for the same thread count (the scene depends on the model only).
struct Shared {
  uint32_t threads = 0;
  wr_context context = nullptr;
  std::optional<wr_mujoco::Scene> scene;
  Shared() = default;
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;
  ~Shared();
};

// What each sensor's instance keeps in d->plugin_data[instance].
struct PluginInstance {
  std::shared_ptr<Shared> shared;
  PluginInstance() = default;
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;
  virtual ~PluginInstance() = default;
};

PluginInstance* instance_of(const mjData* d, int instance);

// The Shared of another instance of ours in d with these threads, or a new one. Its scene gives
// the bodies of the rays sensors that exclude their own body a group of their own
// (wr_mujoco::SceneOptions::sensor_bodies).
std::shared_ptr<Shared> shared_for(const mjModel* m, const mjData* d, int instance, uint32_t threads);

// Whether this thread is building a scene: wr_mujoco::Scene::build makes a scratch mjData of the
// model, which calls the plugins' init again; those nested instances stay dormant.
bool building_scene();

// ---- The callbacks' shared parts ----

// nsensordata: `size` is the size, or -1 with the message in msg: raised here (mju_error).
int size_or_error(int size, const char* msg);
// init, given what the sensor's create function made: `in` (kept), dormant (none, fine), or
// neither (its message in msg: warned, the instances of ours released, -1).
int finish_init(const mjModel* m, mjData* d, int instance, PluginInstance* in, bool dormant, const char* msg);
void destroy(mjData* d, int instance);
// Whether a plugin of this name may be registered: built against the MuJoCo loaded, and not
// registered yet by another copy of this library (each a warning otherwise).
bool may_register(const char* name);

// The two sensors' registrations (plugin_library.cpp registers both when the library is loaded).
void register_depth_plugin();
void register_rays_plugin();

}  // namespace warp_raycaster_mujoco_plugin
