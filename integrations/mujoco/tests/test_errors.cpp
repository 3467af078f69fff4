// Named errors: every refusal is a wr_mujoco::Error whose message names the culprit (the camera,
// the geom by id and name, the option, the mjBatch), and nothing is skipped silently.
#include <string>

#include <catch2/catch.hpp>

#include "mujoco_test_support.h"

using namespace wr_mujoco_test;
using Catch::Matchers::Contains;

namespace {

const char* kXml = R"(<mujoco><worldbody>
  <geom name="floor" type="plane" size="0 0 1"/>
  <geom name="pillar" type="box" size="0.2 0.2 1" pos="1 0 1"/>
  <camera name="fixed" pos="0 -3 1" xyaxes="1 0 0 0 0.3 1"/>
  <camera name="ortho" projection="orthographic" fovy="2" pos="0 -3 1"/>
  <body name="bot" pos="0 0 0.5"><freejoint/><geom name="hull" type="sphere" size="0.2"/>
    <camera name="eye" pos="0.1 0 0"/></body>
</worldbody></mujoco>)";

}  // namespace

TEST_CASE("a model without the named camera is a named error", "[mujoco][errors]") {
  Model m = load(kXml);
  Context c;
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
  CHECK_THROWS_WITH(wr_mujoco::Camera::from_model(m.get(), scene, "nose"),
                    Contains("no camera named 'nose'") && Contains("'fixed', 'ortho', 'eye'"));
  CHECK_THROWS_WITH(wr_mujoco::Camera::from_model(m.get(), scene, 7),
                    Contains("camera 7 is out of range") && Contains("3 cameras"));
  CHECK_THROWS_AS(wr_mujoco::Camera::from_model(m.get(), scene, static_cast<const char*>(nullptr)), wr_mujoco::Error);
  CHECK_THROWS_WITH(wr_mujoco::Camera::from_model(m.get(), scene, "ortho"),
                    Contains("camera 1 'ortho'") && Contains("orthographic"));
  wr_mujoco::CameraOptions half;
  half.width = 32;
  CHECK_THROWS_WITH(wr_mujoco::Camera::from_model(m.get(), scene, "eye", half),
                    Contains("camera 2 'eye'") && Contains("options.height"));
}

TEST_CASE("exclude_own_body refuses what it cannot hide, by name", "[mujoco][errors][exclude]") {
  Model m = load(kXml);
  Context c;
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
  wr_mujoco::CameraOptions co;
  co.exclude_own_body = true;
  // The world body's geoms are the terrain.
  CHECK_THROWS_WITH(wr_mujoco::Camera::from_model(m.get(), scene, "fixed", co),
                    Contains("camera 0 'fixed'") && Contains("body 0 'world'") && Contains("terrain"));
  CHECK(wr_mujoco::Camera::from_model(m.get(), scene, "eye", co).exclude_groups == (1u << 1));

  // 33 moving bodies with a camera each: the first 31 have groups 1..31, the rest none.
  std::string xml = "<mujoco><worldbody>";
  for (int i = 0; i < 33; ++i)
    xml += "<body name=\"b" + std::to_string(i) + "\" pos=\"" + std::to_string(i) +
           " 0 1\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\"/><camera name=\"c" + std::to_string(i) +
           "\"/></body>";
  xml += "</worldbody></mujoco>";
  Model many = load(xml);
  const wr_mujoco::Scene big = wr_mujoco::Scene::build(c.ctx, many.get());
  CHECK(wr_mujoco::Camera::from_model(many.get(), big, "c0", co).exclude_groups == (1u << 1));
  CHECK(wr_mujoco::Camera::from_model(many.get(), big, "c30", co).exclude_groups == (1u << 31));
  CHECK_THROWS_WITH(wr_mujoco::Camera::from_model(many.get(), big, "c31", co),
                    Contains("camera 31 'c31'") && Contains("body 32 'b31'") && Contains("31st"));
  co.exclude_own_body = false;
  CHECK(wr_mujoco::Camera::from_model(many.get(), big, "c32", co).exclude_groups == 0);
  for (const wr_mujoco::Slot& s : big.slots()) CHECK(s.group == (s.body <= 31 ? uint32_t(s.body) : 0u));

  // A scene of another model.
  CHECK_THROWS_WITH(wr_mujoco::Camera::from_model(m.get(), big, "eye"), Contains("another model"));
}

TEST_CASE("unsupported and bad geom types are named, and skipped ones are listed", "[mujoco][errors][geoms]") {
  Context c;
  {
    Model m = load(kXml);
    m->geom_type[1] = mjGEOM_SDF;  // as a plugin's SDF geom would be
    CHECK_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, m.get()),
                      Contains("geom 1 'pillar'") && Contains("sdf") && Contains("not supported"));
    wr_mujoco::SceneOptions skip;
    skip.skip_unsupported = true;
    const wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get(), skip);
    REQUIRE(scene.skipped().size() == 1);
    CHECK_THAT(scene.skipped()[0], Contains("geom 1 'pillar'") && Contains("skipped"));
    CHECK(scene.num_static_geoms() == 1);
  }
  {
    Model m = load(kXml);
    m->geom_type[2] = 42;
    CHECK_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, m.get()), Contains("geom 2 'hull'") && Contains("geom_type = 42"));
    CHECK_THROWS_WITH(wr_mujoco::geom_mesh(m.get(), 2), Contains("geom 2 'hull'"));
  }
  {
    Model m = load(kXml);
    m->geom_size[3 * 2] = -1;  // the sphere's radius
    CHECK_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, m.get()), Contains("geom 2 'hull'") && Contains("radius"));
  }
  Model m = load(kXml);
  CHECK_THROWS_WITH(wr_mujoco::geom_mesh(m.get(), 9), Contains("geom 9 is out of range"));
  // A tolerance that asks for too many triangles, or none at all.
  wr_mujoco::SceneOptions fine;
  fine.tolerance = 1e-12;
  CHECK_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, m.get(), fine), Contains("geom 2 'hull'") && Contains("tolerance"));
  fine.tolerance = 0;
  CHECK_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, m.get(), fine), Contains("options.tolerance"));
  fine.tolerance = 1e-3;
  fine.plane_half_extent = -1;
  CHECK_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, m.get(), fine), Contains("options.plane_half_extent"));
  CHECK_THROWS_WITH(wr_mujoco::Scene::build(nullptr, m.get()), Contains("ctx is NULL"));
  CHECK_THROWS_WITH(wr_mujoco::Scene::build(c.ctx, nullptr), Contains("m is NULL"));
}

TEST_CASE("pose and batch functions name bad arguments", "[mujoco][errors][batch]") {
  Model m = load(kXml);
  Context c;
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
  float out[7 * 4];
  CHECK_THROWS_WITH(scene.fill_instance_poses(nullptr, out), Contains("d is NULL"));
  CHECK_THROWS_WITH(scene.fill_instance_poses_batch(nullptr, nullptr, 2, out), Contains("geom_xpos is NULL"));
  CHECK_THROWS_WITH(scene.fill_instance_poses_batch(nullptr, nullptr, -1, out), Contains("nsim = -1"));
  CHECK_THROWS_WITH(wr_mujoco::request_batch_outputs(nullptr), Contains("b is NULL"));
  const wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m.get(), scene, "eye");
  CHECK_THROWS_WITH(cam.fill_pose_batch(nullptr, nullptr, 1, out), Contains("cam_xpos is NULL"));
  CHECK_THROWS_WITH(scene.body_group(99), Contains("body 99 is out of range"));
}
