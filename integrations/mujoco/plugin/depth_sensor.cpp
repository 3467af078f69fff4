// warp_raycaster.depth: a MuJoCo engine plugin (mjplugin.h, mjPLUGIN_SENSOR) whose sensor is the
// depth image of one of the model's cameras, rendered by warp-raycaster on the CPU for every mjData
// at the position stage, for single-simulation users (the simulate viewer, mujoco.viewer, a plain
// mj_step loop). The image is what wr_mujoco renders for one env (wr_mujoco.h): the static geoms as
// the terrain, the moving geoms posed from mjData.geom_xpos / geom_xmat, the camera from cam_xpos /
// cam_xmat with MuJoCo's intrinsics. ../README.md ("The engine plugin") lists the attributes and
// shows the MJCF.
//
// How MuJoCo 4 drives a sensor plugin, and where each check of ours runs (read in the compiler,
// src/user/user_model.cc TryCompile / CopyPlugins, and src/engine/engine_io.c mj_initPlugin, and
// checked against libmujoco 4.0.0 by tests/test_plugin.cpp):
//   - mj_compile / mj_loadXML ask nsensordata for the sensor's size twice: first while the mjModel
//     is still being filled (CopyPlugins: the sensors' objtype / objid are not copied yet), then when
//     the finished model is validated (mj_validateReferences, also run by mj_loadModel for an MJB).
//     The compiler then makes an mjData (init for each instance), takes one mj_step (compute) and
//     deletes it (destroy). So a model that compiles has already rendered once.
//   - mj_makeData: init; mj_deleteData: destroy; mj_copyData keeps the destination's own
//     plugin_data (engine_io.c saves and restores it), so each mjData renders with its own instance
//     and no copy callback is needed; mj_forward / mj_step: compute at mjSTAGE_POS, after
//     mj_kinematics and mj_camlight (the poses read here are those of the current qpos).
//
// How an error reaches the user (MuJoCo's mechanisms, mujoco.h "Error and memory"):
//   - mju_error inside the compiler fails the compile with our message as its error text (the
//     compiler's log handler longjmps back: mj_loadXML's error buffer, mjs_getError, what simulate
//     shows and what the Python bindings raise as ValueError). Elsewhere mju_error goes to the
//     user's handler (mju_setLogHandler, mju_user_error), or the default one prints it and exits.
//   - We raise it only from the validation call of nsensordata: every attribute, and that the
//     sensor is attached to one perspective camera. The first call never raises (a longjmp from
//     there skips C++ frames of the compiler that hold heap memory: under ASan 52 bytes leak): it
//     returns a placeholder size that the validation call then refuses.
//   - What only init can find (wr_mujoco's refusals: an exclude_own_body it cannot honour, a camera
//     it does not support; out of memory): mju_warning with the message, then init returns -1 as
//     mjplugin.h asks. MuJoCo then frees the mjData and raises "plugin->init failed for plugin id
//     N" through mju_error; the compiler appends the last warnings to its error text, so the user
//     sees that line and ours under it (libmujoco 4.0.0 appends it twice). init never calls
//     mju_error itself: MuJoCo frees the mjData only when init returns -1 (an mju_error from init
//     leaks the whole mjData, 13 MB in the tests' model).
//   - No frame of ours with a non-trivial destructor is live when mju_error may longjmp through it:
//     the checks run in functions that hand their message back in a char buffer.
//   - compute never raises: a render that fails (it cannot for valid poses) writes NaN and warns once.
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mujoco/mjplugin.h>
#include <mujoco/mujoco.h>
#include <wr/wr.h>

#include "wr_mujoco.h"

namespace warp_raycaster_mujoco_plugin {
namespace {

constexpr char kPluginName[] = "warp_raycaster.depth";

// The compiler keeps 500 characters of an engine error, "engine error: " included
// (user_model.cc's kErrorBufferSize): messages are kept shorter than that.
constexpr size_t kMessageSize = 480;

const char* const kAttributes[] = {"width", "height", "depth_kind",       "near",
                                   "far",   "miss",   "exclude_own_body", "threads"};
constexpr int kNumAttributes = static_cast<int>(sizeof kAttributes / sizeof kAttributes[0]);

// wr_context_create_cpu's limit.
constexpr long long kMaxThreads = 4096;

struct Config {
  uint32_t width = 0, height = 0;
  wr_depth_kind depth_kind = WR_DEPTH_PLANE;
  float near_clip = 0.0f;
  float far_clip = std::numeric_limits<float>::infinity();
  float miss = std::numeric_limits<float>::infinity();
  bool exclude_own_body = false;
  uint32_t threads = 0;
};

// ---- Names in messages --------------------------------------------------------------------------

std::string label(const mjModel* m, int type, int id, const char* kind) {
  std::string s = std::string(kind) + " " + std::to_string(id);
  const char* n = mj_id2name(m, type, id);
  if (n && *n) s += " '" + std::string(n) + "'";
  return s;
}

// "warp_raycaster.depth: sensor 3 'head_depth': ", the sensor named as MuJoCo numbers it.
std::string prefix(const mjModel* m, int instance, int sensor) {
  if (sensor >= 0) return std::string(kPluginName) + ": " + label(m, mjOBJ_SENSOR, sensor, "sensor") + ": ";
  return std::string(kPluginName) + ": " + label(m, mjOBJ_PLUGIN, instance, "plugin instance") + ": ";
}

void copy_message(const std::string& s, char* out, size_t size) {
  if (!out || size == 0) return;
  std::snprintf(out, size, "%s", s.c_str());
}

// ---- Attributes ---------------------------------------------------------------------------------

// The attribute's text without surrounding white space; "" when the MJCF does not set it
// (mj_getPluginConfig returns "" then, and NULL only for a name that is not an attribute).
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

// A real number as strtod reads it, the whole text: "inf", "-inf" and "nan" included.
bool parse_real(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

// A float holds it: a finite double beyond FLT_MAX has no float (the conversion is undefined).
bool fits_float(double v) { return !std::isfinite(v) || std::fabs(v) <= double(std::numeric_limits<float>::max()); }

// Every attribute, or the message naming the first bad one (empty: *out holds them all).
std::string parse_config(const mjModel* m, int instance, Config* out) {
  Config c;
  long long n = 0;
  double x = 0.0;

  // The size is not the camera's resolution by default: nsensordata is first asked while the
  // sensor's camera is unknown (above), and its answer fixes the sensordata layout.
  for (const char* side : {"width", "height"}) {
    const std::string v = attribute(m, instance, side);
    if (v.empty())
      return std::string("attribute ") + side +
             " is missing: give width and height in pixels (MuJoCo sizes a sensor before it says which camera "
             "it is on, so the camera's resolution cannot be the default)";
    if (!parse_integer(v, 1, std::numeric_limits<int32_t>::max(), &n))
      return attribute_is(side, v) + ": must be a whole number of pixels, 1 or more";
    (side[0] == 'w' ? c.width : c.height) = static_cast<uint32_t>(n);
  }
  // nsensordata returns an int.
  if (uint64_t(c.width) * c.height > uint64_t(std::numeric_limits<int>::max()))
    return "width x height = " + std::to_string(c.width) + " x " + std::to_string(c.height) +
           ": more pixels than a sensor may have (2147483647)";

  const std::string kind = attribute(m, instance, "depth_kind");
  if (kind.empty() || kind == "plane") {
    c.depth_kind = WR_DEPTH_PLANE;
  } else if (kind == "range") {
    c.depth_kind = WR_DEPTH_RANGE;
  } else {
    return attribute_is("depth_kind", kind) + ": must be plane or range";
  }

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
  *out = c;
  return "";
}

// ---- The sensor's attachment --------------------------------------------------------------------

std::vector<int> sensors_of(const mjModel* m, int instance) {
  std::vector<int> ids;
  for (int i = 0; i < m->nsensor; ++i)
    if (m->sensor_plugin[i] == instance) ids.push_back(i);
  return ids;
}

// That the instance has one sensor, on a perspective camera (the finished model only: objtype and
// objid are set). Empty when it does.
std::string check_attachment(const mjModel* m, int instance, int sensor) {
  const std::vector<int> ids = sensors_of(m, instance);
  if (ids.size() > 1) {
    std::string list;
    for (size_t i = 0; i < ids.size(); ++i) list += (i ? ", " : "") + std::to_string(ids[i]);
    return label(m, mjOBJ_PLUGIN, instance, "plugin instance") + " is used by sensors " + list +
           ": one sensor per instance (give each camera its own <plugin> element)";
  }
  const int type = m->sensor_objtype[sensor];
  const int id = m->sensor_objid[sensor];
  if (type != mjOBJ_CAMERA) {
    std::string what = "nothing";
    if (type != mjOBJ_UNKNOWN) {
      const char* t = mju_type2Str(type);
      what = (t ? std::string(t) : "object type " + std::to_string(type)) + " " + std::to_string(id);
      const char* n = id >= 0 ? mj_id2name(m, type, id) : nullptr;
      if (n && *n) what += " '" + std::string(n) + "'";
    }
    return "must be attached to a camera: <plugin ... objtype=\"camera\" objname=\"<camera>\"/> (it is attached to " +
           what + ")";
  }
  if (id < 0 || id >= m->ncam)
    return "camera " + std::to_string(id) + " is out of range: the model has " + std::to_string(m->ncam) + " cameras";
  if (m->cam_projection[id] != mjPROJ_PERSPECTIVE)
    return label(m, mjOBJ_CAMERA, id, "camera") +
           ": orthographic projection is not supported (the library renders pinhole cameras)";
  return "";
}

// nsensordata's work: the size, or -1 with the message in msg. During the compiler's first call
// (the model's sensor arrays not filled yet: sensor_type is mjSENS_PLUGIN only once they are) bad
// attributes give a placeholder size of 1 and no message: the validation call refuses them.
int size_or_message(const mjModel* m, int instance, int sensor, char* msg, size_t size) noexcept {
  const bool validating = m->sensor_type[sensor] == mjSENS_PLUGIN;
  try {
    Config c;
    std::string err = parse_config(m, instance, &c);
    if (err.empty() && validating) err = check_attachment(m, instance, sensor);
    if (err.empty()) return static_cast<int>(c.width * c.height);
    if (!validating) return 1;
    copy_message(prefix(m, instance, sensor) + err, msg, size);
  } catch (...) {
    if (!validating) return 1;
    std::snprintf(msg, size, "%s: out of memory while checking sensor %d", kPluginName, sensor);
  }
  return -1;
}

// ---- Per-mjData state ---------------------------------------------------------------------------

// A context and the model's scene: built once per mjData and shared by its instances of this
// plugin that ask for the same thread count (the scene depends on the model only).
struct Shared {
  uint32_t threads = 0;
  wr_context context = nullptr;
  std::optional<wr_mujoco::Scene> scene;
  Shared() = default;
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;
  ~Shared() {
    scene.reset();
    wr_context_release(context);
  }
};

// One instance's renderer, in d->plugin_data[instance]: everything compute needs, allocated here.
struct Instance {
  std::shared_ptr<Shared> shared;
  wr_mujoco::Camera camera;
  wr_sensor sensor = nullptr;
  int sensor_id = -1;
  size_t pixels = 0;
  std::vector<float> pose;            // 7: the camera's pose (wr_mujoco: the env's body pose)
  std::vector<float> instance_poses;  // 7 x num_slots: the moving geoms
  std::vector<float> depth;           // height x width
  bool warned = false;                // compute warns once per instance
  Instance() = default;
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  ~Instance() { wr_sensor_release(sensor); }
};

// Set while this thread builds a scene: wr_mujoco::Scene::build makes a scratch mjData of the
// model (mj_makeData, to pose the static geoms at qpos0), which calls this plugin's init again.
// Those nested instances stay dormant (no renderer, compute does nothing), so the recursion ends.
thread_local bool t_building_scene = false;

struct BuildingScene {
  bool previous;
  BuildingScene() : previous(t_building_scene) { t_building_scene = true; }
  ~BuildingScene() { t_building_scene = previous; }
  BuildingScene(const BuildingScene&) = delete;
  BuildingScene& operator=(const BuildingScene&) = delete;
};

bool is_this_plugin(const mjModel* m, int instance) {
  const mjpPlugin* p = mjp_getPluginAtSlot(m->plugin[instance]);
  return p && p->name && std::strcmp(p->name, kPluginName) == 0;
}

Instance* instance_of(const mjData* d, int instance) { return reinterpret_cast<Instance*>(d->plugin_data[instance]); }

std::shared_ptr<Shared> shared_for(const mjModel* m, const mjData* d, int instance, uint32_t threads) {
  for (int j = 0; j < instance; ++j) {
    if (!is_this_plugin(m, j)) continue;
    const Instance* other = instance_of(d, j);
    if (other && other->shared && other->shared->threads == threads) return other->shared;
  }
  auto shared = std::make_shared<Shared>();
  shared->threads = threads;
  if (wr_context_create_cpu(threads, &shared->context) != WR_SUCCESS)
    throw wr_mujoco::Error(std::string("wr_context_create_cpu failed: ") + wr_last_error());
  const BuildingScene building;
  shared->scene.emplace(wr_mujoco::Scene::build(shared->context, m));
  return shared;
}

// init's work: the instance's renderer, or NULL with the message in msg. An instance that no
// sensor uses (an <instance> no <sensor><plugin> names) is left without one, as are the nested
// ones of Scene::build: *dormant is set and NULL returned.
Instance* create_instance(const mjModel* m, mjData* d, int instance, bool* dormant, char* msg, size_t size) noexcept {
  *dormant = false;
  int sensor = -1;
  try {
    const std::vector<int> ids = sensors_of(m, instance);
    if (ids.empty()) {
      *dormant = true;
      return nullptr;
    }
    sensor = ids[0];
    // Again, for a model that did not come from the compiler (an MJB file) or was edited since.
    Config c;
    std::string err = parse_config(m, instance, &c);
    if (err.empty()) err = check_attachment(m, instance, sensor);
    if (!err.empty()) {
      copy_message(prefix(m, instance, sensor) + err, msg, size);
      return nullptr;
    }
    const int64_t pixels = int64_t(c.width) * c.height;
    if (m->sensor_dim[sensor] != pixels) {
      copy_message(prefix(m, instance, sensor) + "sensor_dim = " + std::to_string(m->sensor_dim[sensor]) +
                       ", but width x height = " + std::to_string(pixels) + " (the model was edited after compiling?)",
                   msg, size);
      return nullptr;
    }

    auto in = std::make_unique<Instance>();
    in->sensor_id = sensor;
    in->pixels = static_cast<size_t>(pixels);
    in->shared = shared_for(m, d, instance, c.threads);
    const wr_mujoco::Scene& scene = *in->shared->scene;

    wr_mujoco::CameraOptions co;
    co.width = c.width;
    co.height = c.height;
    co.depth_kind = c.depth_kind;
    co.near_clip = c.near_clip;
    co.far_clip = c.far_clip;
    co.miss_value = c.miss;
    co.exclude_own_body = c.exclude_own_body;
    in->camera = wr_mujoco::Camera::from_model(m, scene, m->sensor_objid[sensor], co);

    wr_sensor_options opts = in->camera.sensor_options();
    // A pose that is not finite (a diverged simulation) makes this image NaN instead of failing
    // the render (wr.h, wr_bad_pose_mode); valid poses render exactly as without it.
    opts.bad_pose_mode = WR_BAD_POSE_ISOLATE;
    if (wr_sensor_create_ex(scene.handle(), &in->camera.desc, &opts, 1, &in->sensor) != WR_SUCCESS)
      throw wr_mujoco::Error(std::string("wr_sensor_create_ex failed: ") + wr_last_error());

    in->pose.assign(7, 0.0f);
    in->instance_poses.assign(7 * size_t(scene.num_slots()), 0.0f);
    in->depth.assign(in->pixels, 0.0f);
    return in.release();
  } catch (const std::bad_alloc&) {
    std::snprintf(msg, size, "%s: out of memory while making the renderer of sensor %d", kPluginName, sensor);
  } catch (const std::exception& e) {
    try {
      copy_message(prefix(m, instance, sensor) + e.what(), msg, size);
    } catch (...) {
      std::snprintf(msg, size, "%s: sensor %d: %s", kPluginName, sensor, e.what());
    }
  } catch (...) {
    std::snprintf(msg, size, "%s: sensor %d: unknown error while making its renderer", kPluginName, sensor);
  }
  return nullptr;
}

// Renders the instance's image from d into its sensordata; false (message in msg) if the render
// failed. Allocates nothing: the buffers are the instance's.
bool render(const mjModel* m, mjData* d, Instance* in, char* msg, size_t size) noexcept {
  mjtNum* out = d->sensordata + m->sensor_adr[in->sensor_id];
  try {
    const wr_mujoco::Scene& scene = *in->shared->scene;
    in->camera.fill_pose(d, in->pose.data());
    if (scene.num_slots()) scene.fill_instance_poses(d, in->instance_poses.data());
    wr_render_args args;
    wr_render_args_init(&args);
    args.body_poses = in->pose.data();
    args.instance_poses = scene.num_slots() ? in->instance_poses.data() : nullptr;
    args.out = in->depth.data();
    args.out_bytes = in->pixels * sizeof(float);
    if (wr_sensor_render_ex(in->sensor, &args) == WR_SUCCESS) {
      for (size_t k = 0; k < in->pixels; ++k) out[k] = static_cast<mjtNum>(in->depth[k]);
      return true;
    }
    std::snprintf(msg, size, "%s: sensor %d: wr_sensor_render_ex failed: %s (its sensordata is NaN)", kPluginName,
                  in->sensor_id, wr_last_error());
  } catch (const std::exception& e) {
    std::snprintf(msg, size, "%s: sensor %d: %s (its sensordata is NaN)", kPluginName, in->sensor_id, e.what());
  }
  for (size_t k = 0; k < in->pixels; ++k) out[k] = std::numeric_limits<mjtNum>::quiet_NaN();
  return false;
}

// ---- The callbacks (no C++ exception and no live destructor crosses into MuJoCo) ------------------

int nstate(const mjModel*, int) { return 0; }  // stateless: the image is recomputed from d

int nsensordata(const mjModel* m, int instance, int sensor) {
  char msg[kMessageSize] = "";
  const int n = size_or_message(m, instance, sensor, msg, sizeof msg);
  if (n >= 0) return n;
  mju_error("%s", msg);
  return 1;  // a user error handler returned (it should not): the placeholder
}

void destroy(mjData* d, int instance) {
  delete instance_of(d, instance);
  d->plugin_data[instance] = 0;
}

int init(const mjModel* m, mjData* d, int instance) {
  d->plugin_data[instance] = 0;
  if (t_building_scene) return 0;  // the scratch mjData of Scene::build: dormant
  char msg[kMessageSize] = "";
  bool dormant = false;
  Instance* in = create_instance(m, d, instance, &dormant, msg, sizeof msg);
  if (in || dormant) {
    d->plugin_data[instance] = reinterpret_cast<uintptr_t>(in);
    return 0;
  }
  // MuJoCo frees d now without destroying this instance. libmujoco 4.0.0 destroys the instances
  // before it; the 3.x sources do not: release ours here, so that neither leaks (destroy of a
  // released one does nothing).
  for (int j = 0; j < instance; ++j)
    if (is_this_plugin(m, j)) destroy(d, j);
  mju_warning("%s", msg);
  return -1;
}

void reset(const mjModel*, mjtNum*, void*, int) {}  // nothing to reset: no state, no history

void compute(const mjModel* m, mjData* d, int instance, int) {
  Instance* in = instance_of(d, instance);
  if (!in) return;  // dormant
  char msg[kMessageSize] = "";
  if (!render(m, d, in, msg, sizeof msg) && !in->warned) {
    in->warned = true;
    mju_warning("%s", msg);
  }
}

void register_plugin() {
  // A plugin compiled against other headers would hand MuJoCo a struct of another layout (mjpPlugin,
  // mjModel and mjData change between versions): refuse, as simulate refuses a header / library
  // mismatch.
  if (mj_version() != mjVERSION_HEADER) {
    mju_warning(
        "%s: built against MuJoCo %d but loaded into MuJoCo %s: not registered (rebuild it against this "
        "MuJoCo)",
        kPluginName, mjVERSION_HEADER, mj_versionString());
    return;
  }
  // Another copy of this library (another path) already registered it: a second registration of a
  // different mjpPlugin under the same name would be an mju_error (mjp_registerPlugin), here.
  if (mjp_getPlugin(kPluginName, nullptr)) {
    mju_warning("%s: already registered by another library; this copy is not registered", kPluginName);
    return;
  }
  mjpPlugin p;
  mjp_defaultPlugin(&p);
  p.name = kPluginName;
  p.capabilityflags |= mjPLUGIN_SENSOR;
  p.nattribute = kNumAttributes;
  p.attributes = kAttributes;
  p.needstage = mjSTAGE_POS;  // cam_xpos / geom_xpos: the position stage, no velocities needed
  p.nstate = nstate;
  p.nsensordata = nsensordata;
  p.init = init;
  p.destroy = destroy;
  p.reset = reset;
  p.compute = compute;
  mjp_registerPlugin(&p);
}

}  // namespace

// Registers the plugin when the library is loaded (mj_loadPluginLibrary, mj_loadAllPluginLibraries,
// or linked in): mjplugin.h's mjPLUGIN_LIB_INIT, as MuJoCo's own plugins do.
mjPLUGIN_LIB_INIT(warp_raycaster_depth) { register_plugin(); }

}  // namespace warp_raycaster_mujoco_plugin
