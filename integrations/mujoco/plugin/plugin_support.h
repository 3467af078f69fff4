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

// The attributes both sensors have: near, far, miss, exclude_own_body, threads, terrain.
struct CommonConfig {
  float near_clip = 0.0f;
  float far_clip = std::numeric_limits<float>::infinity();
  float miss = std::numeric_limits<float>::infinity();
  bool exclude_own_body = false;
  uint32_t threads = 0;
  wr_terrain_kind terrain = WR_TERRAIN_AUTO;  // the scene's (wr_mujoco::SceneOptions::terrain)
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
// sensor that ask for the same thread count and terrain kind (the scene depends on the model and
// the kind only).
struct Shared {
  uint32_t threads = 0;
  wr_terrain_kind terrain = WR_TERRAIN_AUTO;
  wr_context context = nullptr;
  std::optional<wr_mujoco::Scene> scene;
  Shared() = default;
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;
  ~Shared();
};

// What each sensor's instance keeps in d->plugin_data[instance]: the scene, its one-env
// wr_sensor and the buffers a render fills (nothing is allocated per step).
struct PluginInstance {
  std::shared_ptr<Shared> shared;
  wr_sensor sensor = nullptr;
  int sensor_id = -1;
  std::vector<float> pose;            // 7: the env's body pose (the camera's, the site's)
  std::vector<float> instance_poses;  // 7 x num_slots: the moving geoms
  std::vector<float> values;          // the sensor's data, as floats
  bool warned = false;                // compute warns once per instance
  PluginInstance() = default;
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;
  virtual ~PluginInstance() { wr_sensor_release(sensor); }
  // The env's body pose (7 floats: position, w x y z) from d.
  virtual void fill_pose(const mjData* d, float* out) const = 0;
  // Sizes the buffers: `count` values over the shared scene.
  void allocate(size_t count);
};

PluginInstance* instance_of(const mjData* d, int instance);

// The Shared of another instance of ours in d with c's threads and terrain, or a new one (its
// scene's terrain kind c.terrain: wr_mujoco::SceneOptions::terrain). Its scene gives
// the bodies of the rays sensors that exclude their own body a group of their own
// (wr_mujoco::SceneOptions::sensor_bodies).
std::shared_ptr<Shared> shared_for(const mjModel* m, const mjData* d, int instance, const CommonConfig& c);

// ---- The callbacks' shared parts ----

// A sensor's part of nsensordata: its size from its attributes, the attachment checked too where
// `attached` (the finished model); or the reason in *err. May throw.
using SizeOf = int64_t (*)(const mjModel* m, int instance, int sensor, bool attached, std::string* err);
// nsensordata: the size. During the compiler's first call (the model's sensor arrays not filled
// yet: sensor_type is mjSENS_PLUGIN only once they are) a refusal gives a placeholder size of 1
// and no message; the validation call raises it (mju_error) naming the plugin and sensor.
int sensor_size(const char* plugin, const mjModel* m, int instance, int sensor, SizeOf size_of);

// A sensor's part of init: the instance for sensor `sensor` of plugin instance `instance`, its
// attributes and attachment checked again (for a model that did not come from the compiler, an
// MJB file, or was edited since), or null with the reason in *err. May throw.
using MakeInstance = std::unique_ptr<PluginInstance> (*)(const mjModel* m, mjData* d, int instance, int sensor,
                                                         std::string* err);
// init: an instance no sensor uses (an <instance> no <sensor><plugin> names), and the nested ones
// of Scene::build, stay dormant; else `make`'s instance, or its refusal (or exception) as a
// warning naming the plugin and sensor, the instances of ours released, and -1.
int init_instance(const char* plugin, const mjModel* m, mjData* d, int instance, MakeInstance make);
// compute: the instance's render from d into its sensordata (NaN where it fails, warned once).
void compute_instance(const char* plugin, const mjModel* m, mjData* d, int instance);
void destroy(mjData* d, int instance);
// Registers a sensor plugin named `name` (stateless: the data is recomputed from each mjData at the
// position stage, the stage that has site_xpos, cam_xpos and geom_xpos) with these attributes and
// callbacks; nothing where it was built against another MuJoCo than the one loaded, or where
// another copy of this library registered the name already (a warning each).
void register_sensor_plugin(const char* name, const char* const* attributes, int num_attributes,
                            int (*nsensordata)(const mjModel*, int, int), int (*init)(const mjModel*, mjData*, int),
                            void (*compute)(const mjModel*, mjData*, int, int));

// A sensor's registration: its name, size and instances (kSizeOf, kMake), and the callbacks MuJoCo
// calls made from them (sensor_size, init_instance, compute_instance).
template <const char* kName, SizeOf kSizeOf, MakeInstance kMake>
void register_sensor(const char* const* attributes, int num_attributes) {
  register_sensor_plugin(
      kName, attributes, num_attributes,
      [](const mjModel* m, int instance, int sensor) { return sensor_size(kName, m, instance, sensor, kSizeOf); },
      [](const mjModel* m, mjData* d, int instance) { return init_instance(kName, m, d, instance, kMake); },
      [](const mjModel* m, mjData* d, int instance, int) { compute_instance(kName, m, d, instance); });
}

// The two sensors' registrations (plugin_library.cpp registers both when the library is loaded).
void register_depth_plugin();
void register_rays_plugin();

}  // namespace warp_raycaster_mujoco_plugin
