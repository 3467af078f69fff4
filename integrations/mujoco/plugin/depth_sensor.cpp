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
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <mujoco/mjplugin.h>
#include <mujoco/mujoco.h>
#include <wr/wr.h>

#include "plugin_support.h"
#include "wr_mujoco.h"

namespace warp_raycaster_mujoco_plugin {
namespace {

const char* const kAttributes[] = {"width", "height",           "depth_kind", "near",   "far",
                                   "miss",  "exclude_own_body", "threads",    "terrain"};
constexpr int kNumAttributes = static_cast<int>(sizeof kAttributes / sizeof kAttributes[0]);

struct Config {
  uint32_t width = 0, height = 0;
  wr_depth_kind depth_kind = WR_DEPTH_PLANE;
  CommonConfig common;
};

// ---- Attributes ---------------------------------------------------------------------------------

// Every attribute, or the message naming the first bad one (empty: *out holds them all).
std::string parse_config(const mjModel* m, int instance, Config* out) {
  Config c;
  long long n = 0;

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

  const std::string common = parse_common(m, instance, &c.common);
  if (!common.empty()) return common;
  *out = c;
  return "";
}

// ---- The sensor's attachment --------------------------------------------------------------------

// That the instance has one sensor, on a perspective camera (the finished model only: objtype and
// objid are set). Empty when it does.
std::string check_attachment(const mjModel* m, int instance, int sensor) {
  const std::string one = one_sensor_per_instance(m, instance, "camera");
  if (!one.empty()) return one;
  const int type = m->sensor_objtype[sensor];
  const int id = m->sensor_objid[sensor];
  if (type != mjOBJ_CAMERA)
    return "must be attached to a camera: <plugin ... objtype=\"camera\" objname=\"<camera>\"/> (it is attached to " +
           attached_to(m, sensor) + ")";
  if (id < 0 || id >= m->ncam)
    return "camera " + std::to_string(id) + " is out of range: the model has " + std::to_string(m->ncam) + " cameras";
  if (m->cam_projection[id] != mjPROJ_PERSPECTIVE)
    return label(m, mjOBJ_CAMERA, id, "camera") +
           ": orthographic projection is not supported (the library renders pinhole cameras)";
  return "";
}

// nsensordata's work (sensor_size): width x height.
int64_t size_of(const mjModel* m, int instance, int sensor, bool attached, std::string* err) {
  Config c;
  *err = parse_config(m, instance, &c);
  if (err->empty() && attached) *err = check_attachment(m, instance, sensor);
  return int64_t(c.width) * c.height;
}

// ---- Per-mjData state ---------------------------------------------------------------------------

// One instance's renderer: the camera, beside what every sensor of ours keeps.
struct Instance : PluginInstance {
  wr_mujoco::Camera camera;
  void fill_pose(const mjData* d, float* out) const override { camera.fill_pose(d, out); }
};

// init's work (init_instance): the camera's renderer, or null with the reason.
std::unique_ptr<PluginInstance> make_instance(const mjModel* m, mjData* d, int instance, int sensor, std::string* err) {
  Config c;
  *err = parse_config(m, instance, &c);
  if (err->empty()) *err = check_attachment(m, instance, sensor);
  if (!err->empty()) return nullptr;
  const int64_t pixels = int64_t(c.width) * c.height;
  if (m->sensor_dim[sensor] != pixels) {
    *err = "sensor_dim = " + std::to_string(m->sensor_dim[sensor]) +
           ", but width x height = " + std::to_string(pixels) + " (the model was edited after compiling?)";
    return nullptr;
  }
  auto in = std::make_unique<Instance>();
  in->sensor_id = sensor;
  in->shared = shared_for(m, d, instance, c.common);
  const wr_mujoco::Scene& scene = *in->shared->scene;
  wr_mujoco::CameraOptions co;
  co.width = c.width;
  co.height = c.height;
  co.depth_kind = c.depth_kind;
  co.near_clip = c.common.near_clip;
  co.far_clip = c.common.far_clip;
  co.miss_value = c.common.miss;
  co.exclude_own_body = c.common.exclude_own_body;
  in->camera = wr_mujoco::Camera::from_model(m, scene, m->sensor_objid[sensor], co);
  wr_sensor_options opts = in->camera.sensor_options();
  // A pose that is not finite (a diverged simulation) makes this image NaN instead of failing
  // the render (wr.h, wr_bad_pose_mode); valid poses render exactly as without it.
  opts.bad_pose_mode = WR_BAD_POSE_ISOLATE;
  if (wr_sensor_create_ex(scene.handle(), &in->camera.desc, &opts, 1, &in->sensor) != WR_SUCCESS)
    throw wr_mujoco::Error(std::string("wr_sensor_create_ex failed: ") + wr_last_error());
  in->allocate(static_cast<size_t>(pixels));
  return in;
}

}  // namespace

void register_depth_plugin() { register_sensor<kDepthPluginName, size_of, make_instance>(kAttributes, kNumAttributes); }

}  // namespace warp_raycaster_mujoco_plugin
