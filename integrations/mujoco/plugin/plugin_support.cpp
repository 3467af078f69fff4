#include "plugin_support.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>

#include <mujoco/mjplugin.h>

namespace warp_raycaster_mujoco_plugin {

// ---- Names in messages ----

std::string label(const mjModel* m, int type, int id, const char* kind) {
  std::string s = std::string(kind) + " " + std::to_string(id);
  const char* n = mj_id2name(m, type, id);
  if (n && *n) s += " '" + std::string(n) + "'";
  return s;
}

std::string prefix(const char* plugin, const mjModel* m, int instance, int sensor) {
  if (sensor >= 0) return std::string(plugin) + ": " + label(m, mjOBJ_SENSOR, sensor, "sensor") + ": ";
  return std::string(plugin) + ": " + label(m, mjOBJ_PLUGIN, instance, "plugin instance") + ": ";
}

void copy_message(const std::string& s, char* out, size_t size) {
  if (!out || size == 0) return;
  std::snprintf(out, size, "%s", s.c_str());
}

// ---- Attributes ----

// (mj_getPluginConfig returns "" for an attribute the MJCF does not set, and NULL only for a name
// that is not an attribute.)
std::string attribute(const mjModel* m, int instance, const char* name) {
  const char* v = mj_getPluginConfig(m, instance, name);
  if (!v) return "";
  std::string s(v);
  const char* space = " \t\r\n\f\v";
  const size_t first = s.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(space) - first + 1);
}

std::string attribute_is(const char* name, const std::string& value) {
  return std::string("attribute ") + name + " = '" + value + "'";
}

bool parse_integer(const std::string& s, long long lo, long long hi, long long* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_real(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_reals(const std::string& s, int n, double* out) {
  std::istringstream in(s);
  for (int i = 0; i < n; ++i) {
    std::string word;
    if (!(in >> word) || !parse_real(word, &out[i]) || !std::isfinite(out[i]) || !fits_float(out[i])) return false;
  }
  std::string rest;
  return !(in >> rest);
}

bool fits_float(double v) { return !std::isfinite(v) || std::fabs(v) <= double(std::numeric_limits<float>::max()); }

std::string parse_common(const mjModel* m, int instance, CommonConfig* out) {
  CommonConfig c;
  double x = 0.0;
  long long n = 0;
  const std::string near_text = attribute(m, instance, "near");
  if (!near_text.empty()) {
    if (!parse_real(near_text, &x) || !std::isfinite(x) || x < 0.0 || !fits_float(x))
      return attribute_is("near", near_text) + ": must be a finite number of metres, 0 or more";
    c.near_clip = static_cast<float>(x);
  }
  const std::string far_text = attribute(m, instance, "far");
  if (!far_text.empty()) {
    if (!parse_real(far_text, &x) || std::isnan(x) || !fits_float(x))
      return attribute_is("far", far_text) + ": must be a number of metres (inf: no limit)";
    c.far_clip = static_cast<float>(x);
  }
  if (!(c.far_clip > c.near_clip)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", double(c.near_clip));
    return attribute_is("far", far_text.empty() ? "inf" : far_text) + ": must be greater than near = " + buf;
  }
  const std::string miss_text = attribute(m, instance, "miss");
  if (!miss_text.empty()) {
    if (!parse_real(miss_text, &x) || !fits_float(x))
      return attribute_is("miss", miss_text) + ": must be a number, inf, -inf or nan (within a float's range)";
    c.miss = static_cast<float>(x);
  }
  // MJCF's booleans are "true" and "false" (XMLreference).
  const std::string own = attribute(m, instance, "exclude_own_body");
  if (own.empty() || own == "false") {
    c.exclude_own_body = false;
  } else if (own == "true") {
    c.exclude_own_body = true;
  } else {
    return attribute_is("exclude_own_body", own) + ": must be true or false";
  }
  const std::string threads = attribute(m, instance, "threads");
  if (!threads.empty()) {
    if (!parse_integer(threads, 0, kMaxThreads, &n))
      return attribute_is("threads", threads) + ": must be a whole number from 0 (one per hardware thread) to " +
             std::to_string(kMaxThreads);
    c.threads = static_cast<uint32_t>(n);
  }
  const std::string terrain = attribute(m, instance, "terrain");
  if (terrain == "bvh") {
    c.terrain = WR_TERRAIN_BVH;
  } else if (terrain == "grid") {
    c.terrain = WR_TERRAIN_GRID;
  } else if (!terrain.empty() && terrain != "auto") {
    return attribute_is("terrain", terrain) + ": must be auto, bvh or grid";
  }
  *out = c;
  return "";
}

std::vector<int> sensors_of(const mjModel* m, int instance) {
  std::vector<int> ids;
  for (int i = 0; i < m->nsensor; ++i)
    if (m->sensor_plugin[i] == instance) ids.push_back(i);
  return ids;
}

std::string one_sensor_per_instance(const mjModel* m, int instance, const char* what) {
  const std::vector<int> ids = sensors_of(m, instance);
  if (ids.size() <= 1) return "";
  std::string list;
  for (size_t i = 0; i < ids.size(); ++i) list += (i ? ", " : "") + std::to_string(ids[i]);
  return label(m, mjOBJ_PLUGIN, instance, "plugin instance") + " is used by sensors " + list +
         ": one sensor per instance (give each " + what + " its own <plugin> element)";
}

std::string attached_to(const mjModel* m, int sensor) {
  const int type = m->sensor_objtype[sensor];
  const int id = m->sensor_objid[sensor];
  if (type == mjOBJ_UNKNOWN) return "nothing";
  const char* t = mju_type2Str(type);
  std::string what = (t ? std::string(t) : "object type " + std::to_string(type)) + " " + std::to_string(id);
  const char* n = id >= 0 ? mj_id2name(m, type, id) : nullptr;
  if (n && *n) what += " '" + std::string(n) + "'";
  return what;
}

// ---- Per-mjData state ----

Shared::~Shared() {
  scene.reset();
  wr_context_release(context);
}

namespace {

// The threads building a scene now: wr_mujoco::Scene::build makes a scratch mjData of the model
// (mj_makeData, to pose the static geoms at qpos0), which calls the plugins' init again on the same
// thread. Those nested instances stay dormant (no renderer, compute does nothing), so the recursion
// ends. A list under a mutex rather than a thread_local: LeakSanitizer misreads the dynamic TLS of
// a dlopen'd library at exit (a crash of its tracer in the plugin's ASan tests).
std::mutex g_building_mutex;
std::vector<std::thread::id> g_building_threads;

bool building_scene() {
  const std::lock_guard<std::mutex> lock(g_building_mutex);
  return std::find(g_building_threads.begin(), g_building_threads.end(), std::this_thread::get_id()) !=
         g_building_threads.end();
}

struct BuildingScene {
  BuildingScene() {
    const std::lock_guard<std::mutex> lock(g_building_mutex);
    g_building_threads.push_back(std::this_thread::get_id());
  }
  ~BuildingScene() {
    const std::lock_guard<std::mutex> lock(g_building_mutex);
    g_building_threads.erase(
        std::find(g_building_threads.begin(), g_building_threads.end(), std::this_thread::get_id()));
  }
  BuildingScene(const BuildingScene&) = delete;
  BuildingScene& operator=(const BuildingScene&) = delete;
};

bool is_plugin(const mjModel* m, int instance, const char* name) {
  const mjpPlugin* p = mjp_getPluginAtSlot(m->plugin[instance]);
  return p && p->name && std::strcmp(p->name, name) == 0;
}

bool is_ours(const mjModel* m, int instance) {
  return is_plugin(m, instance, kDepthPluginName) || is_plugin(m, instance, kRaysPluginName);
}

// The named bodies that carry a rays sensor excluding its own body (a site's body, or the body).
std::vector<std::string> excluding_sensor_bodies(const mjModel* m) {
  std::vector<std::string> names;
  for (int s = 0; s < m->nsensor; ++s) {
    const int instance = m->sensor_plugin[s];
    if (instance < 0 || !is_plugin(m, instance, kRaysPluginName)) continue;
    if (attribute(m, instance, "exclude_own_body") != "true") continue;
    const int type = m->sensor_objtype[s], id = m->sensor_objid[s];
    int body = -1;
    if (type == mjOBJ_SITE && id >= 0 && id < m->nsite) body = m->site_bodyid[id];
    if (type == mjOBJ_XBODY && id >= 0 && id < m->nbody) body = id;
    const char* name = body > 0 ? mj_id2name(m, mjOBJ_BODY, body) : nullptr;
    if (name && *name) names.emplace_back(name);
  }
  return names;
}

}  // namespace

PluginInstance* instance_of(const mjData* d, int instance) {
  return reinterpret_cast<PluginInstance*>(d->plugin_data[instance]);
}

std::shared_ptr<Shared> shared_for(const mjModel* m, const mjData* d, int instance, const CommonConfig& c) {
  for (int j = 0; j < instance; ++j) {
    if (!is_ours(m, j)) continue;
    const PluginInstance* other = instance_of(d, j);
    if (other && other->shared && other->shared->threads == c.threads && other->shared->terrain == c.terrain)
      return other->shared;
  }
  auto shared = std::make_shared<Shared>();
  shared->threads = c.threads;
  shared->terrain = c.terrain;
  if (wr_context_create_cpu(c.threads, &shared->context) != WR_SUCCESS)
    throw wr_mujoco::Error(std::string("wr_context_create_cpu failed: ") + wr_last_error());
  wr_mujoco::SceneOptions options;
  options.sensor_bodies = excluding_sensor_bodies(m);
  options.terrain = c.terrain;
  const BuildingScene building;
  shared->scene.emplace(wr_mujoco::Scene::build(shared->context, m, options));
  return shared;
}

// ---- The callbacks' shared parts ----

namespace {

// The size, or -1 with the message in msg.
int size_or_message(const char* plugin, const mjModel* m, int instance, int sensor, SizeOf size_of, char* msg,
                    size_t size) noexcept {
  const bool validating = m->sensor_type[sensor] == mjSENS_PLUGIN;
  try {
    std::string err;
    const int64_t n = size_of(m, instance, sensor, validating, &err);
    if (err.empty() && n > std::numeric_limits<int>::max()) err = "more values than a sensor may have (2147483647)";
    if (err.empty()) return static_cast<int>(n);
    if (!validating) return 1;
    copy_message(prefix(plugin, m, instance, sensor) + err, msg, size);
  } catch (...) {
    if (!validating) return 1;
    std::snprintf(msg, size, "%s: out of memory while checking sensor %d", plugin, sensor);
  }
  return -1;
}

}  // namespace

int sensor_size(const char* plugin, const mjModel* m, int instance, int sensor, SizeOf size_of) {
  char msg[kMessageSize] = "";
  const int n = size_or_message(plugin, m, instance, sensor, size_of, msg, sizeof msg);
  if (n >= 0) return n;
  mju_error("%s", msg);
  return 1;  // a user error handler returned (it should not): the placeholder
}

void destroy(mjData* d, int instance) {
  delete instance_of(d, instance);
  d->plugin_data[instance] = 0;
}

void PluginInstance::allocate(size_t count) {
  pose.assign(7, 0.0f);
  instance_poses.assign(7 * size_t(shared->scene->num_slots()), 0.0f);
  values.assign(count, 0.0f);
}

namespace {

// make's instance, or null with the message in msg: exceptions become messages here.
PluginInstance* create(const char* plugin, const mjModel* m, mjData* d, int instance, int sensor, MakeInstance make,
                       char* msg, size_t size) noexcept {
  try {
    std::string err;
    std::unique_ptr<PluginInstance> in = make(m, d, instance, sensor, &err);
    if (in) return in.release();
    copy_message(prefix(plugin, m, instance, sensor) + err, msg, size);
  } catch (const std::bad_alloc&) {
    std::snprintf(msg, size, "%s: out of memory while making the renderer of sensor %d", plugin, sensor);
  } catch (const std::exception& e) {
    try {
      copy_message(prefix(plugin, m, instance, sensor) + e.what(), msg, size);
    } catch (...) {
      std::snprintf(msg, size, "%s: sensor %d: %s", plugin, sensor, e.what());
    }
  } catch (...) {
    std::snprintf(msg, size, "%s: sensor %d: unknown error while making its renderer", plugin, sensor);
  }
  return nullptr;
}

// Renders the instance from d into its sensordata; false (message in msg) if the render failed.
// Allocates nothing: the buffers are the instance's.
bool render(const char* plugin, const mjModel* m, mjData* d, PluginInstance* in, char* msg, size_t size) noexcept {
  mjtNum* out = d->sensordata + m->sensor_adr[in->sensor_id];
  try {
    const wr_mujoco::Scene& scene = *in->shared->scene;
    in->fill_pose(d, in->pose.data());
    if (scene.num_slots()) scene.fill_instance_poses(d, in->instance_poses.data());
    wr_render_args args;
    wr_render_args_init(&args);
    args.body_poses = in->pose.data();
    args.instance_poses = scene.num_slots() ? in->instance_poses.data() : nullptr;
    args.global_poses = scene.global_poses();
    args.out = in->values.data();
    args.out_bytes = in->values.size() * sizeof(float);
    if (wr_sensor_render_ex(in->sensor, &args) == WR_SUCCESS) {
      for (size_t k = 0; k < in->values.size(); ++k) out[k] = static_cast<mjtNum>(in->values[k]);
      return true;
    }
    std::snprintf(msg, size, "%s: sensor %d: wr_sensor_render_ex failed: %s (its sensordata is NaN)", plugin,
                  in->sensor_id, wr_last_error());
  } catch (const std::exception& e) {
    std::snprintf(msg, size, "%s: sensor %d: %s (its sensordata is NaN)", plugin, in->sensor_id, e.what());
  }
  for (size_t k = 0; k < in->values.size(); ++k) out[k] = std::numeric_limits<mjtNum>::quiet_NaN();
  return false;
}

}  // namespace

int init_instance(const char* plugin, const mjModel* m, mjData* d, int instance, MakeInstance make) {
  d->plugin_data[instance] = 0;
  if (building_scene()) return 0;  // the scratch mjData of Scene::build: dormant
  char msg[kMessageSize] = "";
  int sensor = -1;
  for (int i = 0; i < m->nsensor && sensor < 0; ++i)
    if (m->sensor_plugin[i] == instance) sensor = i;
  if (sensor < 0) return 0;  // no sensor uses this instance: dormant
  PluginInstance* in = create(plugin, m, d, instance, sensor, make, msg, sizeof msg);
  if (in) {
    d->plugin_data[instance] = reinterpret_cast<uintptr_t>(in);
    return 0;
  }
  // MuJoCo frees d now without destroying this instance. libmujoco 4.0.0 destroys the instances
  // before it; the 3.x sources do not: release ours here, so that neither leaks (destroy of a
  // released one does nothing).
  for (int j = 0; j < instance; ++j)
    if (is_ours(m, j)) destroy(d, j);
  mju_warning("%s", msg);
  return -1;
}

void compute_instance(const char* plugin, const mjModel* m, mjData* d, int instance) {
  PluginInstance* in = instance_of(d, instance);
  if (!in) return;  // dormant
  char msg[kMessageSize] = "";
  if (!render(plugin, m, d, in, msg, sizeof msg) && !in->warned) {
    in->warned = true;
    mju_warning("%s", msg);
  }
}

void register_sensor_plugin(const char* name, const char* const* attributes, int num_attributes,
                            int (*nsensordata)(const mjModel*, int, int), int (*init)(const mjModel*, mjData*, int),
                            void (*compute)(const mjModel*, mjData*, int, int)) {
  // A plugin compiled against other headers would hand MuJoCo a struct of another layout (mjpPlugin,
  // mjModel and mjData change between versions): refuse, as simulate refuses a header / library
  // mismatch.
  if (mj_version() != mjVERSION_HEADER) {
    mju_warning(
        "%s: built against MuJoCo %d but loaded into MuJoCo %s: not registered (rebuild it against this "
        "MuJoCo)",
        name, mjVERSION_HEADER, mj_versionString());
    return;
  }
  // Another copy of this library (another path) already registered it: a second registration of a
  // different mjpPlugin under the same name would be an mju_error (mjp_registerPlugin), here.
  if (mjp_getPlugin(name, nullptr)) {
    mju_warning("%s: already registered by another library; this copy is not registered", name);
    return;
  }
  mjpPlugin p;
  mjp_defaultPlugin(&p);
  p.name = name;
  p.capabilityflags |= mjPLUGIN_SENSOR;
  p.nattribute = num_attributes;
  p.attributes = attributes;
  p.needstage = mjSTAGE_POS;
  p.nstate = [](const mjModel*, int) { return 0; };  // stateless: recomputed from d
  p.nsensordata = nsensordata;
  p.init = init;
  p.destroy = destroy;
  p.reset = [](const mjModel*, mjtNum*, void*, int) {};  // nothing to reset: no state, no history
  p.compute = compute;
  mjp_registerPlugin(&p);
}

}  // namespace warp_raycaster_mujoco_plugin
