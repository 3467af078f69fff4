// MJCF cameras as the library's cameras, against MuJoCo's own camera model:
//   - orientation: a box left of / above the optical axis lands in the left columns / top rows;
//   - the pose: the library's camera axes are mjv_cameraFrame's forward, -right and up;
//   - fovy cameras: depth per pixel equals MuJoCo's camera rangefinder (its own rays through pixel
//     centres, mju_camPixelRay), range and plane depth alike;
//   - fovy and focal / sensorsize / principal (lengths or pixels): the image spans exactly the
//     frustum mjv_updateCamera gives MuJoCo's renderer (glFrustum's left, right, bottom, top).
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "mujoco_test_support.h"

using namespace wr_mujoco_test;

namespace {

// Pixels of env 0's image whose depth is finite, as (u, v).
std::vector<std::pair<uint32_t, uint32_t>> hit_pixels(const WrImages& img, const wr_camera_desc& desc) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t v = 0; v < desc.height; ++v)
    for (uint32_t u = 0; u < desc.width; ++u)
      if (std::isfinite(img.depth[size_t(v) * desc.width + u])) out.emplace_back(u, v);
  return out;
}

}  // namespace

TEST_CASE("a box left of the camera lands in the left columns, one above it in the top rows", "[mujoco][camera]") {
  // The camera looks along world +x (its x, right, is world -y; its y, up, is world +z).
  for (const char* where : {"left", "above"}) {
    const std::string box = std::string(where) == "left" ? "pos=\"5 1.5 0\"" : "pos=\"5 0 1.2\"";
    const std::string xml =
        "<mujoco><worldbody><camera name=\"cam\" pos=\"0 0 0\" xyaxes=\"0 -1 0 0 0 1\" fovy=\"60\" "
        "resolution=\"64 48\"/><geom type=\"box\" size=\"0.3 0.3 0.3\" " +
        box + "/></worldbody></mujoco>";
    Model m = load(xml);
    Data d = forward(m.get());
    Context c;
    wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
    wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m.get(), scene, "cam");
    const WrImages img = render(scene, cam, {d.get()});
    const auto hits = hit_pixels(img, cam.desc);
    INFO(where << ": " << hits.size() << " pixels hit");
    REQUIRE(hits.size() > 10);
    for (const auto& [u, v] : hits) {
      if (std::string(where) == "left") {
        CHECK(u < cam.desc.width / 2);
      } else {
        CHECK(v < cam.desc.height / 2);
      }
    }
  }
}

TEST_CASE("the camera pose has mjv_cameraFrame's forward, -right and up as its axes", "[mujoco][camera]") {
  const double pos[3] = {1.0, -2.0, 1.5}, target[3] = {0.2, 0.5, 0.1};
  const std::string xml =
      "<mujoco><worldbody><body pos=\"0.3 0.1 0.2\" euler=\"10 20 30\"><freejoint/>"
      "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"0.1 0.1 0.1\"/>"
      "<camera name=\"cam\" " +
      look_at(pos, target) +
      "/></body>"
      "<camera name=\"tracker\" mode=\"track\" pos=\"0 -3 1\" euler=\"70 0 0\"/>"
      "</worldbody></mujoco>";
  Model m = load(xml);
  Data d = forward(m.get(), {0.2, 0.1, 0.4, 0.9, 0.1, -0.3, 0.2});
  Context c;
  wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
  for (const char* name : {"cam", "tracker"}) {
    const wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m.get(), scene, name);
    float pose[7];
    cam.fill_pose(d.get(), pose);
    mjtNum q[4] = {pose[3], pose[4], pose[5], pose[6]}, r[9];
    mju_normalize4(q);
    mju_quat2Mat(r, q);
    mjvCamera vcam;
    mjv_defaultCamera(&vcam);
    vcam.type = mjCAMERA_FIXED;
    vcam.fixedcamid = cam.id;
    mjtNum head[3], fwd[3], up[3], right[3];
    mjv_cameraFrame(head, fwd, up, right, d.get(), &vcam);
    INFO(name);
    for (int i = 0; i < 3; ++i) {
      CHECK(pose[i] == Approx(head[i]).margin(1e-6));
      CHECK(r[3 * i + 0] == Approx(fwd[i]).margin(1e-6));     // +X forward
      CHECK(r[3 * i + 1] == Approx(-right[i]).margin(1e-6));  // +Y left
      CHECK(r[3 * i + 2] == Approx(up[i]).margin(1e-6));      // +Z up
    }
  }
}

TEST_CASE("a fovy camera's depth is MuJoCo's camera rangefinder's, range and plane", "[mujoco][camera][rangefinder]") {
  // MuJoCo's camera-attached rangefinder casts one mj_ray per pixel centre through its own camera
  // model (mju_camPixelRay) and excludes the camera's body; the camera rides on a body of its own.
  const double pos[3] = {0.2, -2.5, 2.2}, target[3] = {0.0, 0.3, 0.0};  // the floor fills the image
  const std::string xml =
      "<mujoco><worldbody><geom type=\"plane\" size=\"0 0 1\"/>"
      "<geom type=\"box\" size=\"0.3 0.2 0.5\" pos=\"-0.6 0.2 0.5\" euler=\"0 0 30\"/>"
      "<geom type=\"box\" size=\"0.2 0.6 0.1\" pos=\"0.7 0.5 0.6\" euler=\"20 0 10\"/>"
      "<body name=\"rig\"><freejoint/><inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"0.1 0.1 0.1\"/><camera "
      "name=\"cam\" " +
      look_at(pos, target) +
      " fovy=\"50\" resolution=\"48 36\"/></body></worldbody>"
      "<sensor><rangefinder name=\"dist\" camera=\"cam\" data=\"dist\"/>"
      "<rangefinder name=\"depth\" camera=\"cam\" data=\"depth\"/></sensor></mujoco>";
  Model m = load(xml);
  Data d = forward(m.get(), {0.1, -0.1, 0.05, 0.995, 0.0, 0.05, 0.08});
  Context c;
  wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
  for (wr_depth_kind kind : {WR_DEPTH_RANGE, WR_DEPTH_PLANE}) {
    wr_mujoco::CameraOptions co;
    co.depth_kind = kind;
    const wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m.get(), scene, "cam", co);
    REQUIRE(cam.desc.width == 48);
    REQUIRE(cam.desc.height == 36);
    const WrImages img = render(scene, cam, {d.get()});
    const int sensor = mj_name2id(m.get(), mjOBJ_SENSOR, kind == WR_DEPTH_RANGE ? "dist" : "depth");
    const mjtNum* data = d->sensordata + m->sensor_adr[sensor];
    MjImage mj;
    for (size_t k = 0; k < img.depth.size(); ++k) {
      mj.t.push_back(data[k] < 0 ? -1.0 : data[k]);  // -1: no hit (XMLreference sensor/rangefinder)
      mj.geom.push_back(-1);
      mj.cosine.push_back(0);
    }
    require_exact_agreement(
        kind == WR_DEPTH_RANGE ? "fovy camera vs rangefinder dist" : "fovy camera vs rangefinder depth",
        img.depth.data(), mj);
  }
}

TEST_CASE("fovy and focal/sensorsize/principal cameras span the frustum of MuJoCo's renderer",
          "[mujoco][camera][frustum]") {
  const std::string xml =
      "<mujoco><worldbody>"
      "<camera name=\"fovy\" fovy=\"57\" resolution=\"80 60\"/>"
      "<camera name=\"focal\" sensorsize=\"0.024 0.016\" focal=\"0.018 0.020\" resolution=\"96 64\"/>"
      "<camera name=\"principal\" sensorsize=\"0.02 0.015\" focal=\"0.01 0.011\" principal=\"0.002 -0.003\" "
      "resolution=\"64 48\"/>"
      "<camera name=\"pixels\" sensorsize=\"4 3\" focalpixel=\"40 50\" principalpixel=\"3 -2\" resolution=\"64 48\"/>"
      "</worldbody></mujoco>";
  Model m = load(xml);
  Data d = forward(m.get());
  Context c;
  wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
  mjvScene scn;
  mjv_defaultScene(&scn);
  mjv_makeScene(m.get(), &scn, 10);
  for (int id = 0; id < m->ncam; ++id) {
    const wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m.get(), scene, id);
    mjvCamera vcam;
    mjv_defaultCamera(&vcam);
    vcam.type = mjCAMERA_FIXED;
    vcam.fixedcamid = id;
    mjv_updateCamera(m.get(), d.get(), &vcam, &scn);
    const mjvGLCamera& gl = scn.camera[0];
    // render_gl3.c: glFrustum(center - halfwidth, center + halfwidth, bottom, top, near, far), the
    // half-width from the viewport's aspect when frustum_width is 0 (fovy cameras).
    const double W = cam.desc.width, H = cam.desc.height;
    const double halfwidth = gl.frustum_width ? double(gl.frustum_width)
                                              : 0.5 * W / H * (double(gl.frustum_top) - double(gl.frustum_bottom));
    const double near = gl.frustum_near;
    INFO("camera " << cam.name << ": fx " << cam.desc.fx << " fy " << cam.desc.fy << " cx " << cam.desc.cx << " cy "
                   << cam.desc.cy);
    // The image's left, right, top and bottom edges, in units of the distance along the optical axis.
    CHECK(cam.desc.cx / cam.desc.fx == Approx((halfwidth - gl.frustum_center) / near).epsilon(1e-5));
    CHECK((W - cam.desc.cx) / cam.desc.fx == Approx((halfwidth + gl.frustum_center) / near).epsilon(1e-5));
    CHECK(cam.desc.cy / cam.desc.fy == Approx(gl.frustum_top / near).epsilon(1e-5));
    CHECK((H - cam.desc.cy) / cam.desc.fy == Approx(-gl.frustum_bottom / near).epsilon(1e-5));
  }
  mjv_freeScene(&scn);

  // focalpixel / principalpixel are pixels: the optical axis p_x left and p_y up of the centre.
  const wr_mujoco::Camera px = wr_mujoco::Camera::from_model(m.get(), scene, "pixels");
  CHECK(px.desc.fx == Approx(40));
  CHECK(px.desc.fy == Approx(50));
  CHECK(px.desc.cx == Approx(32 - 3));
  CHECK(px.desc.cy == Approx(24 + 2));
  // fovy: square pixels, the vertical field of view.
  const wr_mujoco::Camera fv = wr_mujoco::Camera::from_model(m.get(), scene, "fovy");
  CHECK(fv.desc.fx == fv.desc.fy);
  CHECK(2 * std::atan(0.5 * 60 / fv.desc.fy) * 180 / 3.14159265358979323846 == Approx(57).epsilon(1e-6));
  // A resolution given overrides the model's; the intrinsics follow it.
  wr_mujoco::CameraOptions co;
  co.width = 128;
  co.height = 96;
  const wr_mujoco::Camera big = wr_mujoco::Camera::from_model(m.get(), scene, "pixels", co);
  CHECK(big.desc.width == 128);
  CHECK(big.desc.fx == Approx(80));
  CHECK(big.desc.cx == Approx(64 - 6));
}
