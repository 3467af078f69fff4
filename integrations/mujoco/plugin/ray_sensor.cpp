// warp_raycaster.rays: a MuJoCo engine plugin (mjplugin.h, mjPLUGIN_SENSOR) whose sensor is a ray
// pattern (wr_patterns.h: a height scan's grid or a LiDAR's channels x azimuths) traced from a site
// or a body, one value per ray (the distance, or IsaacLab's height scan value), rendered by
// warp-raycaster on the CPU for every mjData at the position stage. Its scene is the depth sensor's
// (the static geoms as the terrain, the moving ones posed from geom_xpos / geom_xmat; one scene per
// mjData for both sensors); the frame is wr_mujoco::SensorFrame's (site_xpos / site_xmat, or the
// body's xpos / xmat: the pattern frame is the site's, +X forward, +Y left, +Z up). ../README.md
// ("The engine plugin") lists the attributes and shows the MJCF.
//
// MuJoCo drives it as it drives warp_raycaster.depth, and errors reach the user the same way
// (depth_sensor.cpp's comment): every attribute, and the attachment to one site or body, are
// checked in nsensordata's validation call (a compile error naming the sensor and the attribute);
// what only the renderer finds fails init with a warning; compute never raises. The sensor's size
// is the pattern's number of rays, known from the attributes alone (MuJoCo asks for it before it
// says what the sensor is attached to).
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

const char* const kAttributes[] = {"pattern",      "size",           "resolution",
                                   "direction",    "ordering",       "channels",
                                   "vertical_fov", "horizontal_fov", "horizontal_resolution",
                                   "alignment",    "yaw_rule",       "offset",
                                   "value",        "height_offset",  "near",
                                   "far",          "miss",           "exclude_own_body",
                                   "threads",      "terrain"};
constexpr int kNumAttributes = static_cast<int>(sizeof kAttributes / sizeof kAttributes[0]);

struct Config {
  wr_pattern_desc pattern;
  wr_ray_sensor_desc sensor;
  CommonConfig common;
};

// ---- Attributes ---------------------------------------------------------------------------------

// An attribute of fixed words: its index in `words`, the first (the default) when unset; -1 with
// the message in *err for another word.
int choice(const mjModel* m, int instance, const char* name, std::initializer_list<const char*> words,
           std::string* err) {
  const std::string v = attribute(m, instance, name);
  if (v.empty()) return 0;
  int i = 0;
  std::string list;
  for (const char* w : words) {
    if (v == w) return i;
    list += std::string(i ? (i + 1 == int(words.size()) ? " or " : ", ") : "") + w;
    ++i;
  }
  *err = attribute_is(name, v) + ": must be " + list;
  return -1;
}

// n reals from attribute `name` into out (as floats or doubles), left as they are when unset.
template <class T>
std::string reals(const mjModel* m, int instance, const char* name, int n, T* out, const char* what) {
  const std::string v = attribute(m, instance, name);
  if (v.empty()) return "";
  double x[3];
  if (!parse_reals(v, n, x)) return attribute_is(name, v) + ": must be " + what;
  for (int i = 0; i < n; ++i) out[i] = static_cast<T>(x[i]);
  return "";
}

// Every attribute, or the message naming the first bad one (empty: *out holds them all). The
// pattern's own checks (a zero direction, no ray, too many) are wr_pattern_create's (make_pattern).
std::string parse_config(const mjModel* m, int instance, Config* out) {
  Config c;
  wr_pattern_desc_init(&c.pattern);
  wr_ray_sensor_desc_init(&c.sensor);
  c.sensor.quat_order = WR_QUAT_WXYZ;  // SensorFrame's poses
  std::string err;
  const int kind = choice(m, instance, "pattern", {"grid", "spherical"}, &err);
  if (kind < 0) return err;
  if (kind == 0) {
    c.pattern.kind = WR_PATTERN_GRID;
    c.pattern.grid_size[0] = 1.6, c.pattern.grid_size[1] = 1.0;  // IsaacLab's height scan
    if (!(err = reals(m, instance, "size", 2, c.pattern.grid_size, "two lengths in metres, x and y")).empty())
      return err;
    if (!(err = reals(m, instance, "resolution", 1, &c.pattern.grid_resolution, "a spacing in metres")).empty())
      return err;
    if (!(err = reals(m, instance, "direction", 3, c.pattern.grid_direction, "a direction, x y z")).empty()) return err;
    const int ordering = choice(m, instance, "ordering", {"xy", "ij"}, &err);
    if (ordering < 0) return err;
    c.pattern.grid_ordering = ordering == 0 ? WR_GRID_XY : WR_GRID_IJ;
  } else {
    c.pattern.kind = WR_PATTERN_SPHERICAL;
    c.pattern.channels = 16;  // IsaacLab's LidarPatternCfg defaults
    c.pattern.vertical_fov[0] = -15, c.pattern.vertical_fov[1] = 15;
    c.pattern.horizontal_fov[0] = -180, c.pattern.horizontal_fov[1] = 180;
    c.pattern.horizontal_resolution = 0.2;
    const std::string channels = attribute(m, instance, "channels");
    long long n = 0;
    if (!channels.empty()) {
      if (!parse_integer(channels, 1, 1 << 16, &n))
        return attribute_is("channels", channels) + ": must be a whole number from 1 to 65536";
      c.pattern.channels = static_cast<uint32_t>(n);
    }
    if (!(err = reals(m, instance, "vertical_fov", 2, c.pattern.vertical_fov, "two angles in degrees")).empty())
      return err;
    if (!(err = reals(m, instance, "horizontal_fov", 2, c.pattern.horizontal_fov, "two angles in degrees")).empty())
      return err;
    if (!(err = reals(m, instance, "horizontal_resolution", 1, &c.pattern.horizontal_resolution, "an angle in degrees"))
             .empty())
      return err;
  }
  // Attributes of the other kind are refused rather than ignored.
  static const char* const kGridOnly[] = {"size", "resolution", "direction", "ordering"};
  static const char* const kSphericalOnly[] = {"channels", "vertical_fov", "horizontal_fov", "horizontal_resolution"};
  for (const char* name : kind == 0 ? kSphericalOnly : kGridOnly)
    if (!attribute(m, instance, name).empty())
      return std::string("attribute ") + name + " is set, but pattern is " + (kind == 0 ? "grid" : "spherical") +
             ": it belongs to pattern = " + (kind == 0 ? "spherical" : "grid");

  const int alignment = choice(m, instance, "alignment", {"base", "yaw", "world"}, &err);
  if (alignment < 0) return err;
  c.sensor.alignment = static_cast<wr_ray_alignment>(alignment);
  const int yaw_rule = choice(m, instance, "yaw_rule", {"isaaclab", "mjlab"}, &err);
  if (yaw_rule < 0) return err;
  c.sensor.yaw_rule = static_cast<wr_yaw_rule>(yaw_rule);
  if (!(err = reals(m, instance, "offset", 3, c.sensor.offset_position, "a position in metres, x y z")).empty())
    return err;
  const int value = choice(m, instance, "value", {"distance", "height"}, &err);
  if (value < 0) return err;
  c.sensor.value = static_cast<wr_ray_value>(value);
  if (!(err = reals(m, instance, "height_offset", 1, &c.sensor.height_offset, "a length in metres")).empty())
    return err;
  if (!(err = parse_common(m, instance, &c.common)).empty()) return err;
  c.sensor.min_distance = c.common.near_clip;
  c.sensor.max_distance = c.common.far_clip;
  c.sensor.miss_value = c.common.miss;
  *out = c;
  return "";
}

// The pattern the attributes describe, or the library's message naming what it refuses.
struct Pattern {
  wr_pattern p = nullptr;
  ~Pattern() { wr_pattern_release(p); }
};
std::string make_pattern(const wr_pattern_desc& d, Pattern* out, uint32_t* rays) {
  if (wr_pattern_create(&d, &out->p) != WR_SUCCESS) return std::string("the pattern: ") + wr_last_error();
  wr_pattern_num_rays(out->p, rays);
  return "";
}

// ---- The sensor's attachment --------------------------------------------------------------------

// That the instance has one sensor, on a site or a body's frame (the finished model only). Empty
// when it does. objtype "body" is a body's inertial frame in MuJoCo's sensors (xipos), not the
// frame its children and sites are placed in: refused, naming "xbody" (xpos, xmat), which is.
std::string check_attachment(const mjModel* m, int instance, int sensor) {
  const std::string one = one_sensor_per_instance(m, instance, "site or body");
  if (!one.empty()) return one;
  const int type = m->sensor_objtype[sensor];
  const int id = m->sensor_objid[sensor];
  if (type == mjOBJ_BODY)
    return "is attached to " + attached_to(m, sensor) +
           ", a body's inertial frame: attach it to the body's own frame, objtype=\"xbody\", or to a site";
  if (type != mjOBJ_SITE && type != mjOBJ_XBODY)
    return "must be attached to a site or a body's frame: <plugin ... objtype=\"site\" objname=\"<site>\"/> or "
           "objtype=\"xbody\" (it is attached to " +
           attached_to(m, sensor) + ")";
  const int count = type == mjOBJ_SITE ? m->nsite : m->nbody;
  if (id < 0 || id >= count)
    return attached_to(m, sensor) + " is out of range: the model has " + std::to_string(count) +
           (type == mjOBJ_SITE ? " sites" : " bodies");
  return "";
}

// nsensordata's work (sensor_size): the pattern's number of rays.
int64_t size_of(const mjModel* m, int instance, int sensor, bool attached, std::string* err) {
  Config c;
  Pattern pattern;
  uint32_t rays = 0;
  *err = parse_config(m, instance, &c);
  if (err->empty()) *err = make_pattern(c.pattern, &pattern, &rays);
  if (err->empty() && attached) *err = check_attachment(m, instance, sensor);
  return rays;
}

// ---- Per-mjData state ---------------------------------------------------------------------------

// One instance's renderer: the site's or body's frame, beside what every sensor of ours keeps.
struct Instance : PluginInstance {
  wr_mujoco::SensorFrame frame;
  void fill_pose(const mjData* d, float* out) const override { frame.fill_pose(d, out); }
};

// init's work (init_instance): the pattern sensor on the site or body, or null with the reason.
std::unique_ptr<PluginInstance> make_instance(const mjModel* m, mjData* d, int instance, int sensor, std::string* err) {
  Config c;
  Pattern pattern;
  uint32_t rays = 0;
  *err = parse_config(m, instance, &c);
  if (err->empty()) *err = make_pattern(c.pattern, &pattern, &rays);
  if (err->empty()) *err = check_attachment(m, instance, sensor);
  if (err->empty() && m->sensor_dim[sensor] != int64_t(rays))
    *err = "sensor_dim = " + std::to_string(m->sensor_dim[sensor]) + ", but the pattern has " + std::to_string(rays) +
           " rays (the model was edited after compiling?)";
  if (!err->empty()) return nullptr;
  auto in = std::make_unique<Instance>();
  in->sensor_id = sensor;
  in->shared = shared_for(m, d, instance, c.common);
  const wr_mujoco::Scene& scene = *in->shared->scene;
  const int id = m->sensor_objid[sensor];
  in->frame = m->sensor_objtype[sensor] == mjOBJ_SITE
                  ? wr_mujoco::SensorFrame::at_site_id(m, scene, id, c.common.exclude_own_body)
                  : wr_mujoco::SensorFrame::at_body_id(m, scene, id, c.common.exclude_own_body);
  wr_sensor_options opts = in->frame.sensor_options();
  opts.bad_pose_mode = WR_BAD_POSE_ISOLATE;  // a diverged simulation: NaN values, as the depth sensor's
  if (wr_sensor_create_pattern(scene.handle(), pattern.p, &c.sensor, &opts, 1, &in->sensor) != WR_SUCCESS)
    throw wr_mujoco::Error(std::string("wr_sensor_create_pattern failed: ") + wr_last_error());
  in->allocate(rays);
  return in;
}

}  // namespace

void register_rays_plugin() { register_sensor<kRaysPluginName, size_of, make_instance>(kAttributes, kNumAttributes); }

}  // namespace warp_raycaster_mujoco_plugin
