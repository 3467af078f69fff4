// The engine plugin warp_raycaster.depth as a plain MuJoCo program uses it: mj_loadPluginLibrary on
// the built library, an MJCF that attaches the sensor to a camera, mj_step. Checked here:
//   - its sensordata is, pixel for pixel, the image the batched adapter (wr_mujoco Scene / Camera and
//     a wr_sensor through wr_sensor_render_ex with the instance poses) renders from the same mjData
//     state, for a camera on a moving body and for a fixed one, with every attribute;
//   - its centre pixel is mj_ray's distance along the optical axis;
//   - terrain = grid over a static hfield: the adapter's image from a grid scene, pixel for pixel,
//     and within 1e-5 of the BVH's (terrain = bvh, and the default);
//   - several sensors, mj_copyData, and the example model file;
//   - every refusal is a compile error (or, outside the compiler, a message to the log handler)
//     naming the plugin, the sensor and the attribute or camera at fault, and nothing crashes;
//   - in fresh processes (plugin_child.cpp, a program that links MuJoCo only): the library loads
//     and renders by itself, MuJoCo's default handler reports an init failure and exits, and a
//     model naming the plugin without the library loaded is refused by MuJoCo.
// Registration is global and lasts the process: load_plugin() loads the library once (CTest runs
// each test case in a process of its own anyway), and the cases that need a process without it
// start one.
#include <sys/wait.h>

#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "plugin_test_support.h"

using namespace wr_mujoco_test;
using Catch::Matchers::Contains;

namespace {

constexpr const char* kPlugin = "warp_raycaster.depth";

// A depth sensor named `name` on camera `camera`, with these <config> elements.
std::string depth_sensor(const std::string& name, const std::string& camera, const std::string& configs) {
  return "<plugin name=\"" + name + "\" plugin=\"" + kPlugin + "\" objtype=\"camera\" objname=\"" + camera + "\">" +
         configs + "</plugin>";
}

// A robot trunk (free) with a head camera inside it and a leg on a hinge, a free ball, over a floor,
// a step and a wall; a fixed camera in the world (camera 0: the world body's cameras come first);
// `sensors` inside <sensor>.
std::string scene_xml(const std::string& sensors, const std::string& extension = "") {
  return std::string(R"(<mujoco>
  <extension><plugin plugin="warp_raycaster.depth">)") +
         extension + R"(</plugin></extension>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <geom name="step" type="box" size="0.4 0.6 0.1" pos="1.6 -0.3 0.1"/>
    <geom name="wall" type="box" size="0.1 3 1" pos="3 0 1"/>
    <body name="trunk" pos="0 0 0.8"><freejoint/>
      <geom name="trunk" type="box" size="0.3 0.15 0.08"/>
      <camera name="head" pos="0.1 0 0" xyaxes="0 -1 0 0.5 0 0.866"/>
      <body name="leg" pos="0.2 0 -0.1"><joint name="hip" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom name="leg" type="box" size="0.03 0.03 0.2" pos="0.05 0 -0.2" euler="0 15 0"/></body>
    </body>
    <body name="ball" pos="1.2 0.7 0.5"><freejoint/><geom name="ball" type="sphere" size="0.15"/></body>
    <camera name="fixed" pos="-1 -1.5 1.5" xyaxes="0.832 -0.555 0 0.25 0.375 0.892"/>
  </worldbody>
  <sensor>)" +
         sensors +
         R"(</sensor>
</mujoco>)";
}

// The head sensor of most tests: an odd size, so that pixel (16, 12) is the optical axis.
std::string head_sensor(const std::string& extra = "") {
  return depth_sensor("head_depth", "head",
                      config("width", "33") + config("height", "25") + config("depth_kind", "range") +
                          config("exclude_own_body", "true") + config("threads", "2") + extra);
}

// What the batched adapter renders for d's state: its own context, scene and camera, one env.
WrImages reference(const mjModel* m, const mjData* d, const char* camera, const wr_mujoco::CameraOptions& co) {
  Context c;
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m);
  const wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m, scene, camera, co);
  return render(scene, cam, {d});
}

// The sensor's data equals ref in every pixel: each value is a float (written from the float
// image) and the same float, or both are NaN.
void require_same_image(const mjModel* m, const mjData* d, const char* sensor, const std::vector<float>& ref) {
  const SensorSlice s = sensor_named(m, sensor);
  REQUIRE(size_t(s.dim) == ref.size());
  size_t differ = 0, first = 0;
  for (size_t k = 0; k < ref.size(); ++k) {
    const mjtNum v = d->sensordata[s.adr + k];
    const float f = static_cast<float>(v);
    const bool same = (std::isnan(v) && std::isnan(ref[k])) || (double(f) == v && f == ref[k]);
    if (!same && differ++ == 0) first = k;
  }
  INFO(sensor << ": " << differ << " of " << ref.size() << " pixels differ; the first, " << first << ": plugin "
              << d->sensordata[s.adr + first] << ", adapter " << ref[first]);
  CHECK(differ == 0);
}

wr_mujoco::CameraOptions head_options() {
  wr_mujoco::CameraOptions co;
  co.width = 33;
  co.height = 25;
  co.depth_kind = WR_DEPTH_RANGE;
  co.exclude_own_body = true;
  return co;
}

// mj_ray along camera `cam`'s optical axis (-Z of cam_xmat, XMLreference "camera") from its
// position: the distance, and the geom hit.
double optical_axis_ray(const mjModel* m, const mjData* d, int cam, int bodyexclude, int* geom) {
  const mjtNum* x = d->cam_xmat + 9 * cam;
  const mjtNum dir[3] = {-x[2], -x[5], -x[8]};
  mjtNum normal[3];
  return mj_ray(m, d, d->cam_xpos + 3 * cam, dir, nullptr, 1, bodyexclude, geom, normal);
}

// A moving start: the trunk drifts forward and turns, the ball rolls, the leg swings.
void push(const mjModel* m, mjData* d) {
  const int trunk = m->jnt_dofadr[m->body_jntadr[mj_name2id(m, mjOBJ_BODY, "trunk")]];
  d->qvel[trunk + 0] = 0.8;
  d->qvel[trunk + 1] = 0.2;
  d->qvel[trunk + 5] = 1.5;
  const int ball = m->jnt_dofadr[m->body_jntadr[mj_name2id(m, mjOBJ_BODY, "ball")]];
  d->qvel[ball + 0] = -0.5;
  d->qvel[m->jnt_dofadr[mj_name2id(m, mjOBJ_JOINT, "hip")]] = 3.0;
}

// ---- The log handler of the runtime error test: plain buffers and a longjmp, nothing with a
// destructor between setjmp and MuJoCo's error (mjfLogHandler: an error handler does not return).
std::jmp_buf g_error_jump;
char g_warnings[4096];
char g_error[1024];

void capture_log(const mjLogMessage* msg) {
  if (msg->level == mjLOG_WARNING) {
    const size_t used = std::strlen(g_warnings);
    std::snprintf(g_warnings + used, sizeof g_warnings - used, "%s\n", msg->subject);
  } else if (msg->level == mjLOG_ERROR) {
    std::snprintf(g_error, sizeof g_error, "%s", msg->subject);
    std::longjmp(g_error_jump, 1);
  }
}

mjData* make_data_or_null(const mjModel* m) {
  if (setjmp(g_error_jump) != 0) return nullptr;
  return mj_makeData(m);
}

// Runs plugin_child with these arguments, stdout and stderr together; the exit status.
int run_child(const std::string& args, std::string* output) {
  const std::string cmd = std::string("'") + WR_MUJOCO_PLUGIN_CHILD + "' " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  output->clear();
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output->append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string quoted(const char* path) { return std::string("'") + path + "'"; }

}  // namespace

TEST_CASE("the plugin's sensordata is the batched adapter's image of the same mjData state", "[mujoco][plugin]") {
  Model m = load_with_plugin(scene_xml(head_sensor()));
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  REQUIRE(sensor_named(m.get(), "head_depth").dim == 33 * 25);
  push(m.get(), d.get());
  std::vector<float> first;
  for (int step = 1; step <= 60; ++step) {
    mj_step(m.get(), d.get());
    if (step != 1 && step != 20 && step != 60) continue;
    // mj_step computed the sensors at its position stage, before integrating: the poses in d
    // (cam_xpos, geom_xpos) are that state's, so the adapter renders from d as it is.
    const WrImages ref = reference(m.get(), d.get(), "head", head_options());
    INFO("after step " << step);
    require_same_image(m.get(), d.get(), "head_depth", ref.depth);
    size_t moving = 0;
    for (uint32_t id : ref.ids) moving += id != UINT32_MAX;
    CHECK(moving > 0);  // the leg is in view: instances are part of what is compared
    if (step == 1) first = ref.depth;
    if (step == 60) CHECK(ref.depth != first);  // the camera moved
  }
  // mj_forward recomputes the sensors from the state integrated since.
  mj_forward(m.get(), d.get());
  require_same_image(m.get(), d.get(), "head_depth", reference(m.get(), d.get(), "head", head_options()).depth);
}

TEST_CASE("depth_kind, near, far and miss are the camera's options, on a fixed camera", "[mujoco][plugin]") {
  Model m = load_with_plugin(scene_xml(depth_sensor(
      "fixed_depth", "fixed",
      config("width", "40") + config("height", "30") + config("depth_kind", "plane") + config("near", "2") +
          config("far", "3.5") + config("miss", "-1") + config("exclude_own_body", "false") + config("threads", "1"))));
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  push(m.get(), d.get());
  for (int i = 0; i < 10; ++i) mj_step(m.get(), d.get());
  wr_mujoco::CameraOptions co;
  co.width = 40;
  co.height = 30;
  co.depth_kind = WR_DEPTH_PLANE;
  co.near_clip = 2.0f;
  co.far_clip = 3.5f;
  co.miss_value = -1.0f;
  const std::vector<float> ref = reference(m.get(), d.get(), "fixed", co).depth;
  require_same_image(m.get(), d.get(), "fixed_depth", ref);
  size_t miss = 0, in_range = 0;
  for (float v : ref) {
    miss += v == -1.0f;
    in_range += v >= 2.0f && v <= 3.5f;
  }
  CHECK(miss > 0);
  CHECK(in_range > 0);
  CHECK(miss + in_range == ref.size());
}

TEST_CASE("the centre pixel is mj_ray's distance along the optical axis", "[mujoco][plugin]") {
  Model m = load_with_plugin(scene_xml(
      head_sensor() + depth_sensor("fixed_depth", "fixed",
                                   config("width", "41") + config("height", "31") + config("depth_kind", "plane"))));
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  push(m.get(), d.get());
  const int head = mj_name2id(m.get(), mjOBJ_CAMERA, "head"), fixed = mj_name2id(m.get(), mjOBJ_CAMERA, "fixed");
  for (int step = 1; step <= 40; ++step) {
    mj_step(m.get(), d.get());
    if (step % 10) continue;
    struct Case {
      const char* sensor;
      int cam, width, height, bodyexclude;
    };
    for (const Case& c :
         {Case{"head_depth", head, 33, 25, m->cam_bodyid[head]}, Case{"fixed_depth", fixed, 41, 31, -1}}) {
      int geom = -1;
      const double t = optical_axis_ray(m.get(), d.get(), c.cam, c.bodyexclude, &geom);
      const SensorSlice s = sensor_named(m.get(), c.sensor);
      const double v = d->sensordata[s.adr + (c.height / 2) * c.width + c.width / 2];
      INFO(c.sensor << " after step " << step << ": mj_ray " << t << " (geom " << geom << "), plugin " << v);
      REQUIRE(t > 0);
      // An exact shape (the floor, the step or the wall, not the tessellated ball): float rounding only.
      REQUIRE(m->geom_type[geom] != mjGEOM_SPHERE);
      CHECK(std::fabs(v - t) <= 1e-4 * t);
    }
  }
}

TEST_CASE("two sensors share the scene, and mj_copyData keeps each mjData's own renderer", "[mujoco][plugin]") {
  Model m = load_with_plugin(
      scene_xml(head_sensor() + depth_sensor("fixed_depth", "fixed",
                                             config("width", "24") + config("height", "18") + config("threads", "2"))));
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  push(m.get(), d.get());
  for (int i = 0; i < 15; ++i) mj_step(m.get(), d.get());
  wr_mujoco::CameraOptions fixed_options;
  fixed_options.width = 24;
  fixed_options.height = 18;
  require_same_image(m.get(), d.get(), "head_depth", reference(m.get(), d.get(), "head", head_options()).depth);
  require_same_image(m.get(), d.get(), "fixed_depth", reference(m.get(), d.get(), "fixed", fixed_options).depth);

  Data copy(mj_copyData(nullptr, m.get(), d.get()));
  REQUIRE(copy != nullptr);
  REQUIRE(copy->plugin_data[0] != d->plugin_data[0]);  // its own instance, made by init
  for (int i = 0; i < 25; ++i) mj_step(m.get(), copy.get());
  mj_forward(m.get(), d.get());
  // Each renders its own state: d where it was, the copy 25 steps on.
  require_same_image(m.get(), d.get(), "head_depth", reference(m.get(), d.get(), "head", head_options()).depth);
  require_same_image(m.get(), copy.get(), "head_depth", reference(m.get(), copy.get(), "head", head_options()).depth);
  require_same_image(m.get(), copy.get(), "fixed_depth", reference(m.get(), copy.get(), "fixed", fixed_options).depth);
  const SensorSlice s = sensor_named(m.get(), "head_depth");
  CHECK(!std::equal(d->sensordata + s.adr, d->sensordata + s.adr + s.dim, copy->sensordata + s.adr));
}

TEST_CASE("the example model loads from its file and renders its head camera", "[mujoco][plugin]") {
  load_plugin();
  char error[1024] = "";
  Model m(mj_loadXML(WR_MUJOCO_PLUGIN_EXAMPLE, nullptr, error, sizeof error));
  INFO(WR_MUJOCO_PLUGIN_EXAMPLE << ": " << error);
  REQUIRE(m != nullptr);
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  for (int i = 0; i < 100; ++i) mj_step(m.get(), d.get());
  wr_mujoco::CameraOptions co;
  co.width = 64;
  co.height = 48;
  co.near_clip = 0.05f;
  co.far_clip = 10.0f;
  co.exclude_own_body = true;
  require_same_image(m.get(), d.get(), "head_depth", reference(m.get(), d.get(), "head", co).depth);
}

TEST_CASE("a bad attribute value is a compile error naming the sensor and the attribute", "[mujoco][plugin][errors]") {
  struct Case {
    std::string configs, expected;
  };
  const std::string size = config("width", "8") + config("height", "6");
  const std::vector<Case> cases = {
      {config("width", "abc") + config("height", "6"), "attribute width = 'abc': must be a whole number of pixels"},
      {config("width", "8") + config("height", "-3"), "attribute height = '-3': must be a whole number of pixels"},
      {config("width", "8.5") + config("height", "6"), "attribute width = '8.5'"},
      {config("width", "0") + config("height", "6"), "attribute width = '0'"},
      {config("height", "6"), "attribute width is missing"},
      {config("width", "8"), "attribute height is missing"},
      {config("width", "65536") + config("height", "65536"), "more pixels than a sensor may have"},
      {size + config("depth_kind", "foo"), "attribute depth_kind = 'foo': must be plane or range"},
      {size + config("near", "-1"), "attribute near = '-1': must be a finite number of metres, 0 or more"},
      {size + config("near", "inf"), "attribute near = 'inf'"},
      {size + config("near", "1e39"), "attribute near = '1e39'"},
      {size + config("far", "x"), "attribute far = 'x': must be a number of metres"},
      {size + config("near", "2") + config("far", "1"), "attribute far = '1': must be greater than near = 2"},
      {size + config("miss", "none"), "attribute miss = 'none': must be a number, inf, -inf or nan"},
      {size + config("exclude_own_body", "yes"), "attribute exclude_own_body = 'yes': must be true or false"},
      {size + config("threads", "-2"), "attribute threads = '-2': must be a whole number from 0"},
      {size + config("threads", "5000"), "attribute threads = '5000'"},
      {size + config("terrain", "mesh"), "attribute terrain = 'mesh': must be auto, bvh or grid"},
  };
  for (const Case& c : cases) {
    const std::string err = compile_error(scene_xml(depth_sensor("d", "head", c.configs)));
    INFO(c.configs);
    CHECK_THAT(err, Contains("warp_raycaster.depth: sensor 0 'd': ") && Contains(c.expected));
  }
  // An attribute the plugin does not have is MuJoCo's own refusal, by name.
  CHECK_THAT(compile_error(scene_xml(depth_sensor("d", "head", size + config("widht", "8")))),
             Contains("unrecognized attribute 'plugin:widht'"));
  // Good values, spelled with spaces and in every form, compile.
  CHECK(compile_error(scene_xml(depth_sensor("d", "head",
                                             config("width", " 8 ") + config("height", "+6") + config("near", "0") +
                                                 config("far", "inf") + config("miss", "nan") + config("threads", "0") +
                                                 config("terrain", " auto ")))) == "");
}

TEST_CASE("a sensor that is not on one perspective camera is a compile error naming it", "[mujoco][plugin][errors]") {
  const std::string size = config("width", "8") + config("height", "6");
  // On a site.
  std::string xml = scene_xml("<plugin name=\"d\" plugin=\"warp_raycaster.depth\" objtype=\"site\" objname=\"s\">" +
                              size + "</plugin>");
  xml.replace(xml.find("<geom name=\"trunk\""), 0, "<site name=\"s\"/>");
  CHECK_THAT(compile_error(xml), Contains("warp_raycaster.depth: sensor 0 'd': must be attached to a camera") &&
                                     Contains("it is attached to site 0 's'"));
  // On nothing.
  CHECK_THAT(compile_error(scene_xml("<plugin name=\"d\" plugin=\"warp_raycaster.depth\">" + size + "</plugin>")),
             Contains("sensor 0 'd': must be attached to a camera") && Contains("it is attached to nothing"));
  // On a camera the model does not have: MuJoCo's compiler names it.
  CHECK_THAT(compile_error(scene_xml(depth_sensor("d", "nose", size))), Contains("'nose'"));
  // On an orthographic camera.
  std::string ortho = scene_xml(depth_sensor("d", "fixed", size));
  ortho.replace(ortho.find("<camera name=\"fixed\""), std::strlen("<camera name=\"fixed\""),
                "<camera name=\"fixed\" projection=\"orthographic\" fovy=\"2\"");
  CHECK_THAT(compile_error(ortho),
             Contains("sensor 0 'd': camera 0 'fixed': orthographic projection is not supported"));
  // Two sensors on one <instance>.
  const std::string shared =
      "<plugin name=\"a\" instance=\"depth\" objtype=\"camera\" objname=\"head\"/>"
      "<plugin name=\"b\" instance=\"depth\" objtype=\"camera\" objname=\"fixed\"/>";
  CHECK_THAT(compile_error(scene_xml(shared, "<instance name=\"depth\">" + size + "</instance>")),
             Contains("plugin instance 0 'depth' is used by sensors 0, 1: one sensor per instance"));
  // The same attributes through one <instance> and one sensor compile.
  CHECK(compile_error(scene_xml("<plugin name=\"a\" instance=\"depth\" objtype=\"camera\" objname=\"head\"/>",
                                "<instance name=\"depth\">" + size + "</instance>")) == "");
}

TEST_CASE("what only the renderer can refuse fails the compile with the plugin's message", "[mujoco][plugin][errors]") {
  // The fixed camera's body is the world: its geoms are the terrain, which cannot be excluded.
  const std::string err = compile_error(scene_xml(
      depth_sensor("d", "fixed", config("width", "8") + config("height", "6") + config("exclude_own_body", "true"))));
  CHECK_THAT(err, Contains("plugin->init failed for plugin id 0") && Contains("warp_raycaster.depth: sensor 0 'd': ") &&
                      Contains("camera 0 'fixed': exclude_own_body") && Contains("welded to the world"));
  // A grid terrain needs a static hfield, which this model does not have.
  CHECK_THAT(compile_error(scene_xml(
                 depth_sensor("d", "head", config("width", "8") + config("height", "6") + config("terrain", "grid")))),
             Contains("plugin->init failed for plugin id 0") && Contains("warp_raycaster.depth: sensor 0 'd': ") &&
                 Contains("options.terrain = WR_TERRAIN_GRID") && Contains("no static hfield"));
}

TEST_CASE("terrain = grid traces the model's static hfield through the grid kind, as the adapter's grid scene",
          "[mujoco][plugin][hfield]") {
  // An hfield ground with a static box on it, a free trunk whose camera looks down at both; the
  // same camera's sensor with terrain = grid, with bvh and with the default (auto: the BVH).
  const std::string size = config("width", "24") + config("height", "18") + config("threads", "2");
  std::string xml = R"(<mujoco>
  <extension><plugin plugin="warp_raycaster.depth"/></extension>
  <asset><hfield name="ground" nrow="14" ncol="11" size="2.0 1.5 0.4 0.2" elevation=")";
  for (int k = 0; k < 14 * 11; ++k) xml += std::to_string((k * 37) % 19 / 18.0) + " ";
  xml += R"("/></asset>
  <worldbody>
    <geom name="ground" type="hfield" hfield="ground" pos="0.3 -0.2 0"/>
    <geom name="block" type="box" size="0.2 0.3 0.25" pos="0.8 0.4 0.5"/>
    <body name="trunk" pos="0 0 1.6"><freejoint/>
      <geom name="trunk" type="box" size="0.3 0.15 0.08"/>
      <camera name="head" pos="0.1 0 0" xyaxes="0 -1 0 0.7 0 0.714"/>
    </body>
  </worldbody>
  <sensor>)" +
         depth_sensor("grid", "head", size + config("terrain", "grid")) +
         depth_sensor("bvh", "head", size + config("terrain", "bvh")) + depth_sensor("auto", "head", size) +
         R"(</sensor>
</mujoco>)";
  Model m = load_with_plugin(xml);
  Data d(mj_makeData(m.get()));
  REQUIRE(d != nullptr);
  const int trunk = m->jnt_dofadr[m->body_jntadr[mj_name2id(m.get(), mjOBJ_BODY, "trunk")]];
  d->qvel[trunk + 0] = 0.6;
  d->qvel[trunk + 5] = 1.0;
  wr_mujoco::CameraOptions co;
  co.width = 24;
  co.height = 18;
  for (int step = 1; step <= 20; ++step) {
    mj_step(m.get(), d.get());
    if (step != 1 && step != 20) continue;
    INFO("after step " << step);
    // Each sensor is, pixel for pixel, the adapter's image from a scene of its kind.
    Context c;
    wr_mujoco::SceneOptions grid_options;
    grid_options.terrain = WR_TERRAIN_GRID;
    const wr_mujoco::Scene grid = wr_mujoco::Scene::build(c.ctx, m.get(), grid_options);
    const wr_mujoco::Scene bvh = wr_mujoco::Scene::build(c.ctx, m.get());
    const WrImages g = render(grid, wr_mujoco::Camera::from_model(m.get(), grid, "head", co), {d.get()});
    const WrImages b = render(bvh, wr_mujoco::Camera::from_model(m.get(), bvh, "head", co), {d.get()});
    require_same_image(m.get(), d.get(), "grid", g.depth);
    require_same_image(m.get(), d.get(), "bvh", b.depth);
    require_same_image(m.get(), d.get(), "auto", b.depth);
    // The grid sees the hfield and the box as the BVH does.
    size_t hits = 0, same = 0;
    for (size_t k = 0; k < g.depth.size(); ++k) {
      hits += std::isfinite(b.depth[k]);
      same += std::isfinite(b.depth[k]) ? std::fabs(g.depth[k] - b.depth[k]) <= 1e-5f * b.depth[k]
                                        : !std::isfinite(g.depth[k]);
    }
    CHECK(hits > g.depth.size() / 2);
    CHECK(same == g.depth.size());
  }
}

TEST_CASE("an init failure outside the compiler reaches the log handler, and nothing is left",
          "[mujoco][plugin][errors]") {
  Model m = load_with_plugin(scene_xml(head_sensor()));
  // A model edited after compiling (as a program may): init checks again.
  m->cam_projection[mj_name2id(m.get(), mjOBJ_CAMERA, "head")] = mjPROJ_ORTHOGRAPHIC;
  g_warnings[0] = g_error[0] = '\0';
  const mjfLogHandler previous = mju_setLogHandler(capture_log);
  mjData* d = make_data_or_null(m.get());
  mju_setLogHandler(previous);
  mj_deleteData(d);  // NULL: MuJoCo freed it (an ASan build checks that nothing leaks)
  CHECK(d == nullptr);
  CHECK_THAT(std::string(g_warnings),
             Contains("warp_raycaster.depth: sensor 0 'head_depth': camera 1 'head': orthographic"));
  CHECK_THAT(std::string(g_error), Contains("plugin->init failed for plugin id 0"));
}

TEST_CASE("in a fresh process the library loads and renders with MuJoCo alone", "[mujoco][plugin][process]") {
  std::string out;
  const int rc = run_child("step " + quoted(WR_MUJOCO_PLUGIN_PATH) + " " + quoted(WR_MUJOCO_PLUGIN_EXAMPLE), &out);
  INFO(out);
  CHECK(rc == 0);
  CHECK_THAT(out, Contains("head_depth: 3072 values") && Contains("0 not finite"));
}

TEST_CASE("in a fresh process MuJoCo's default handler reports an init failure and exits",
          "[mujoco][plugin][process]") {
  std::string out;
  const int rc =
      run_child("init-error " + quoted(WR_MUJOCO_PLUGIN_PATH) + " " + quoted(WR_MUJOCO_PLUGIN_EXAMPLE), &out);
  INFO(out);
  CHECK(rc == 1);  // exit(EXIT_FAILURE), MuJoCo's default for an error: no crash
  CHECK_THAT(out, Contains("warp_raycaster.depth: sensor 0 'head_depth': camera 0 'head': orthographic") &&
                      Contains("plugin->init failed for plugin id 0"));
}

TEST_CASE("without the library loaded, a model naming the plugin is MuJoCo's named error",
          "[mujoco][plugin][process]") {
  std::string out;
  const int rc = run_child("not-loaded " + quoted(WR_MUJOCO_PLUGIN_EXAMPLE), &out);
  INFO(out);
  CHECK(rc == 0);
  CHECK_THAT(out, Contains("warp_raycaster.depth"));
}
