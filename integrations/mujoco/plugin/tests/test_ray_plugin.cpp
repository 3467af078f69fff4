// The engine plugin warp_raycaster.rays (a ray pattern from a site or a body) as a plain MuJoCo
// program uses it: mj_loadPluginLibrary, an MJCF that attaches the sensor to a site, mj_step.
// Checked here:
//   - its sensordata is, ray for ray, what the adapter (wr_mujoco Scene, SensorFrame and a pattern
//     sensor through wr_sensor_render_ex) renders from the same mjData state: IsaacLab's height scan
//     (yaw-aligned, 20 m up, heights) and a LiDAR, on sites of a moving trunk that they exclude,
//     and a grid on a body's frame;
//   - the LiDAR's distances are mj_ray's on the same world rays (bodyexclude = the trunk);
//   - a height scan over an hfield with terrain = grid reads what terrain = bvh reads;
//   - the example model loads from its file and scans;
//   - a bad attribute, an attribute of the other pattern, and an attachment to a camera or to a
//     body's inertial frame are compile errors naming the sensor and the culprit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "plugin_test_support.h"

using namespace wr_mujoco_test;
using Catch::Matchers::Contains;

namespace {

constexpr const char* kPlugin = "warp_raycaster.rays";

// A rays sensor named `name` on the object `objtype` `objname`, with these <config> elements.
std::string rays_sensor(const std::string& name, const std::string& objtype, const std::string& objname,
                        const std::string& configs) {
  return "<plugin name=\"" + name + "\" plugin=\"" + kPlugin + "\" objtype=\"" + objtype + "\" objname=\"" + objname +
         "\">" + configs + "</plugin>";
}

// A robot trunk (free, no camera) with the sites "scan" (at its centre) and "lidar" (forward, up),
// a leg on a hinge, a free ball, over a floor, a step and a wall; `sensors` inside <sensor>.
std::string scene_xml(const std::string& sensors) {
  return std::string(R"(<mujoco>
  <extension><plugin plugin="warp_raycaster.rays"/></extension>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <geom name="step" type="box" size="0.4 0.6 0.1" pos="1.2 -0.3 0.1"/>
    <geom name="wall" type="box" size="0.1 3 1" pos="3 0 1"/>
    <body name="trunk" pos="0 0 0.6"><freejoint/>
      <geom name="trunk" type="box" size="0.3 0.15 0.08"/>
      <site name="scan"/>
      <site name="lidar" pos="0.2 0 0.1" euler="0 0.1 0"/>
      <body name="leg" pos="0.2 0 -0.1"><joint name="hip" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom name="leg" type="box" size="0.03 0.03 0.2" pos="0.05 0 -0.2" euler="0 15 0"/></body>
    </body>
    <body name="ball" pos="1.2 0.7 0.5"><freejoint/><geom name="ball" type="sphere" size="0.15"/></body>
  </worldbody>
  <sensor>)") +
         sensors + R"(</sensor>
</mujoco>)";
}

std::string height_scan_sensor() {
  return rays_sensor("scan", "site", "scan",
                     config("size", "1.6 1.0") + config("resolution", "0.1") + config("alignment", "yaw") +
                         config("offset", "0 0 20") + config("value", "height") + config("height_offset", "0.5") +
                         config("miss", "-1") + config("exclude_own_body", "true") + config("threads", "2"));
}

std::string lidar_sensor() {
  return rays_sensor("lidar", "site", "lidar",
                     config("pattern", "spherical") + config("channels", "8") + config("vertical_fov", "-85 10") +
                         config("horizontal_resolution", "4") + config("far", "10") +
                         config("exclude_own_body", "true"));
}

// The same sensors through the adapter: its own context and scene (the trunk given a group of its
// own, as the plugin gives the bodies whose rays sensors exclude them).
struct Reference {
  Context ctx;
  wr_mujoco::Scene scene;
  explicit Reference(const mjModel* m) : scene(make(ctx.ctx, m)) {}
  static wr_mujoco::Scene make(wr_context c, const mjModel* m) {
    wr_mujoco::SceneOptions so;
    so.sensor_bodies = {"trunk"};
    return wr_mujoco::Scene::build(c, m, so);
  }
  // What a pattern sensor of `pattern` and `desc` on `frame` renders from d (one env); the world
  // rays it traced in *starts and *dirs where they are not null.
  std::vector<float> render(const mjData* d, const wr_mujoco::SensorFrame& frame, const wr_pattern_desc& pattern,
                            const wr_ray_sensor_desc& desc, std::vector<float>* starts = nullptr,
                            std::vector<float>* dirs = nullptr) const {
    wr_pattern p = nullptr;
    REQUIRE_OK(wr_pattern_create(&pattern, &p));
    uint32_t rays = 0;
    REQUIRE_OK(wr_pattern_num_rays(p, &rays));
    wr_sensor_options o = frame.sensor_options();
    wr_sensor sensor = nullptr;
    REQUIRE_OK(wr_sensor_create_pattern(scene.handle(), p, &desc, &o, 1, &sensor));
    std::vector<float> pose(7), inst(7 * size_t(scene.num_slots())), out(rays);
    frame.fill_pose(d, pose.data());
    scene.fill_instance_poses(d, inst.data());
    wr_render_args a;
    wr_render_args_init(&a);
    a.body_poses = pose.data();
    a.instance_poses = inst.data();
    a.out = out.data();
    a.out_bytes = out.size() * sizeof(float);
    REQUIRE_OK(wr_sensor_render_ex(sensor, &a));
    if (starts && dirs) {
      starts->assign(3 * size_t(rays), 0.0f);
      dirs->assign(3 * size_t(rays), 0.0f);
      REQUIRE_OK(wr_sensor_world_rays(sensor, pose.data(), nullptr, 0, 0, starts->data(), dirs->data()));
    }
    wr_sensor_release(sensor);
    wr_pattern_release(p);
    return out;
  }
};

wr_pattern_desc scan_pattern() {
  wr_pattern_desc p;
  wr_pattern_desc_init(&p);
  p.grid_size[0] = 1.6, p.grid_size[1] = 1.0;
  return p;
}
wr_ray_sensor_desc scan_desc() {
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  d.alignment = WR_ALIGN_YAW;
  d.offset_position[2] = 20.0f;
  d.value = WR_RAY_HEIGHT;
  d.height_offset = 0.5f;
  d.miss_value = -1.0f;
  return d;
}
wr_pattern_desc lidar_pattern() {
  wr_pattern_desc p;
  wr_pattern_desc_init(&p);
  p.kind = WR_PATTERN_SPHERICAL;
  p.channels = 8;
  p.vertical_fov[0] = -85, p.vertical_fov[1] = 10;
  p.horizontal_fov[0] = -180, p.horizontal_fov[1] = 180;
  p.horizontal_resolution = 4.0;
  return p;
}
wr_ray_sensor_desc lidar_desc() {
  wr_ray_sensor_desc d;
  wr_ray_sensor_desc_init(&d);
  d.max_distance = 10.0f;
  return d;
}

// The sensor's data equals ref on every ray (each value the float written, or both NaN).
void require_same_values(const mjModel* m, const mjData* d, const char* sensor, const std::vector<float>& ref) {
  const SensorSlice s = sensor_named(m, sensor);
  REQUIRE(size_t(s.dim) == ref.size());
  size_t differ = 0;
  for (size_t k = 0; k < ref.size(); ++k) {
    const mjtNum v = d->sensordata[s.adr + k];
    differ += !((std::isnan(v) && std::isnan(ref[k])) || (double(float(v)) == v && float(v) == ref[k]));
  }
  INFO(sensor << ": " << differ << " of " << ref.size() << " rays differ");
  CHECK(differ == 0);
}

// A moving start: the trunk drifts forward and turns, the ball rolls, the leg swings.
void push(const mjModel* m, mjData* d) {
  const int trunk = m->jnt_dofadr[m->body_jntadr[mj_name2id(m, mjOBJ_BODY, "trunk")]];
  d->qvel[trunk + 0] = 0.8;
  d->qvel[trunk + 5] = 1.2;
  d->qvel[m->jnt_dofadr[m->body_jntadr[mj_name2id(m, mjOBJ_BODY, "ball")]]] = -0.5;
  d->qvel[m->jnt_dofadr[mj_name2id(m, mjOBJ_JOINT, "hip")]] = 3.0;
}

}  // namespace

TEST_CASE("a rays sensor's sensordata is the adapter's pattern sensor on the same site", "[mujoco][plugin]") {
  Model m = load_with_plugin(scene_xml(height_scan_sensor() + lidar_sensor()));
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  CHECK(sensor_named(m.get(), "scan").dim == 187);  // IsaacLab's height scan
  CHECK(sensor_named(m.get(), "lidar").dim == 8 * 90);
  push(m.get(), d.get());
  const Reference ref(m.get());
  const auto scan_frame = wr_mujoco::SensorFrame::at_site(m.get(), ref.scene, "scan", true);
  const auto lidar_frame = wr_mujoco::SensorFrame::at_site(m.get(), ref.scene, "lidar", true);
  for (int step = 1; step <= 40; ++step) {
    mj_step(m.get(), d.get());
    if (step != 1 && step != 40) continue;
    INFO("after step " << step);
    const std::vector<float> heights = ref.render(d.get(), scan_frame, scan_pattern(), scan_desc());
    require_same_values(m.get(), d.get(), "scan", heights);
    size_t seen = 0;
    for (float h : heights) seen += h != -1.0f;
    CHECK(seen == heights.size());  // the floor is everywhere below
    const std::vector<float> distances = ref.render(d.get(), lidar_frame, lidar_pattern(), lidar_desc());
    require_same_values(m.get(), d.get(), "lidar", distances);
  }
}

TEST_CASE("a rays height scan with terrain = grid over an hfield reads what terrain = bvh reads",
          "[mujoco][plugin][hfield]") {
  // The floor an hfield (3 x 3 m, bumpy); the same scan on the same site over a grid scene and a
  // BVH scene (two scenes: sensors share one only at equal threads and terrain).
  std::string xml = scene_xml(
      height_scan_sensor() +
      rays_sensor("scan_bvh", "site", "scan",
                  config("size", "1.6 1.0") + config("alignment", "yaw") + config("offset", "0 0 20") +
                      config("value", "height") + config("height_offset", "0.5") + config("miss", "-1") +
                      config("exclude_own_body", "true") + config("threads", "2") + config("terrain", "bvh")));
  const size_t scan = xml.find("<plugin name=\"scan\"");
  xml.replace(xml.find("</plugin>", scan), 0, config("terrain", "grid"));
  std::string elevation;
  for (int k = 0; k < 16 * 16; ++k) elevation += std::to_string((k * 29) % 13 / 12.0) + " ";
  xml.replace(xml.find("<geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>"),
              std::strlen("<geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>"),
              "<geom name=\"floor\" type=\"hfield\" hfield=\"floor\"/>");
  xml.replace(xml.find("<worldbody>"), 0,
              "<asset><hfield name=\"floor\" nrow=\"16\" ncol=\"16\" size=\"3 3 0.15 0.1\" elevation=\"" + elevation +
                  "\"/></asset>");
  Model m = load_with_plugin(xml);
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  push(m.get(), d.get());
  for (int step = 1; step <= 40; ++step) {
    mj_step(m.get(), d.get());
    if (step != 1 && step != 40) continue;
    INFO("after step " << step);
    const SensorSlice grid = sensor_named(m.get(), "scan"), bvh = sensor_named(m.get(), "scan_bvh");
    REQUIRE(grid.dim == 187);
    REQUIRE(bvh.dim == 187);
    size_t seen = 0;
    double largest = 0.0;
    for (int k = 0; k < 187; ++k) {
      const mjtNum g = d->sensordata[grid.adr + k], b = d->sensordata[bvh.adr + k];
      seen += b != -1.0;
      largest = std::max(largest, std::fabs(g - b));
    }
    CHECK(seen == 187);  // the hfield is everywhere below
    // The grid's samples are the hfield's in its own frame moved by the geom's position, the BVH's
    // corners the model's world positions: the same triangles within a float's rounding, a few
    // ulps of the 20 m distance (ulp 1.9e-6 m) apart.
    CHECK(largest <= 2e-5);
  }
}

TEST_CASE("a rays LiDAR's distances are mj_ray's on the same rays, the trunk excluded", "[mujoco][plugin]") {
  Model m = load_with_plugin(scene_xml(lidar_sensor()));
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  push(m.get(), d.get());
  const Reference ref(m.get());
  const auto frame = wr_mujoco::SensorFrame::at_site(m.get(), ref.scene, "lidar", true);
  const int trunk = mj_name2id(m.get(), mjOBJ_BODY, "trunk");
  size_t compared = 0, robot = 0;
  for (int step = 1; step <= 30; ++step) {
    mj_step(m.get(), d.get());
    if (step % 10) continue;
    std::vector<float> starts, dirs;
    ref.render(d.get(), frame, lidar_pattern(), lidar_desc(), &starts, &dirs);
    const SensorSlice s = sensor_named(m.get(), "lidar");
    for (int r = 0; r < s.dim; ++r) {
      const mjtNum pnt[3] = {starts[3 * r], starts[3 * r + 1], starts[3 * r + 2]};
      const mjtNum vec[3] = {dirs[3 * r], dirs[3 * r + 1], dirs[3 * r + 2]};
      int geom = -1;
      const mjtNum t = mj_ray(m.get(), d.get(), pnt, vec, nullptr, 1, trunk, &geom, nullptr);
      const double v = d->sensordata[s.adr + r];
      INFO("step " << step << ", ray " << r << ": plugin " << v << ", mj_ray " << t << " (geom " << geom << ")");
      if (t < 0 || t > 10.0) {
        CHECK(std::isinf(v));
        continue;
      }
      if (m->geom_type[geom] == mjGEOM_SPHERE) continue;  // tessellated: within the scene's tolerance
      CHECK(std::fabs(v - t) <= 1e-4 * std::max(1.0, t));
      ++compared;
      robot += m->geom_bodyid[geom] != 0;
    }
  }
  CHECK(compared > 3 * 8 * 90 / 3);  // most rays hit an exact shape: agreement means something
  CHECK(robot > 0);                  // the leg is seen (the trunk is excluded)
}

TEST_CASE("a rays grid on a body's frame is the adapter's at that body", "[mujoco][plugin]") {
  Model m = load_with_plugin(scene_xml(rays_sensor("under", "xbody", "trunk",
                                                   config("size", "0.6 0.4") + config("resolution", "0.2") +
                                                       config("ordering", "ij") + config("exclude_own_body", "true"))));
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  push(m.get(), d.get());
  for (int i = 0; i < 15; ++i) mj_step(m.get(), d.get());
  const Reference ref(m.get());
  wr_pattern_desc p = scan_pattern();
  p.grid_size[0] = 0.6, p.grid_size[1] = 0.4, p.grid_resolution = 0.2, p.grid_ordering = WR_GRID_IJ;
  wr_ray_sensor_desc desc;
  wr_ray_sensor_desc_init(&desc);
  const auto frame = wr_mujoco::SensorFrame::at_body(m.get(), ref.scene, "trunk", true);
  const std::vector<float> want = ref.render(d.get(), frame, p, desc);
  CHECK(want.size() == 4u * 3u);
  require_same_values(m.get(), d.get(), "under", want);
  for (float v : want) CHECK(std::isfinite(v));  // the floor, through the excluded trunk
}

TEST_CASE("a bad rays attribute or attachment is a compile error naming the sensor and the culprit",
          "[mujoco][plugin][errors]") {
  struct Case {
    std::string configs, objtype, objname, message;
  };
  const Case cases[] = {
      {config("pattern", "cone"), "site", "scan", "attribute pattern = 'cone': must be grid or spherical"},
      {config("size", "1.6"), "site", "scan", "attribute size = '1.6': must be two lengths in metres"},
      {config("resolution", "0"), "site", "scan", "desc->grid_resolution"},
      {config("channels", "16"), "site", "scan", "attribute channels is set, but pattern is grid"},
      {config("pattern", "spherical") + config("resolution", "0.1"), "site", "scan",
       "attribute resolution is set, but pattern is spherical"},
      {config("alignment", "heading"), "site", "scan", "attribute alignment = 'heading': must be base, yaw or world"},
      {config("value", "depth"), "site", "scan", "must be distance or height"},
      {config("far", "-1"), "site", "scan", "attribute far = '-1': must be greater than near"},
      {"", "body", "trunk", "inertial frame: attach it to the body's own frame, objtype=\"xbody\""},
      {"", "geom", "floor", "must be attached to a site or a body's frame"},
  };
  for (const Case& c : cases) {
    INFO(c.configs << " on " << c.objtype << " " << c.objname);
    const std::string err = compile_error(scene_xml(rays_sensor("bad", c.objtype, c.objname, c.configs)));
    CHECK_THAT(err, Contains(kPlugin) && Contains("sensor 0 'bad'") && Contains(c.message));
  }
  // And a good one compiles.
  CHECK(compile_error(scene_xml(rays_sensor("good", "site", "scan", config("pattern", "spherical")))) == "");
}

TEST_CASE("the rays example model loads from its file and scans", "[mujoco][plugin]") {
  load_plugin();
  char error[1024] = "";
  Model m(mj_loadXML(WR_MUJOCO_RAYS_EXAMPLE, nullptr, error, sizeof error));
  INFO(error);
  REQUIRE(m != nullptr);
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  for (int i = 0; i < 5; ++i) mj_step(m.get(), d.get());
  const SensorSlice scan = sensor_named(m.get(), "height_scan"), lidar = sensor_named(m.get(), "lidar");
  REQUIRE(scan.dim == 187);
  REQUIRE(lidar.dim == 16 * 90);
  // The trunk's centre is about 0.6 m over the floor: heights near 0.6 - 0.5, a step's lower.
  for (int r = 0; r < scan.dim; ++r) CHECK(std::fabs(d->sensordata[scan.adr + r] - 0.1) < 0.15);
  size_t returns = 0;
  for (int r = 0; r < lidar.dim; ++r) returns += std::isfinite(d->sensordata[lidar.adr + r]);
  CHECK(returns > size_t(lidar.dim) / 3);
}
