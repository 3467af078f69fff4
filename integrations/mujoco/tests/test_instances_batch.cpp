// Moving bodies as instances, per env:
//   - env isolation: envs in different states each see their own bodies only (each env against
//     mj_ray on its own mjData);
//   - the camera's own body excluded when asked, as mj_ray's bodyexclude = cam_bodyid (and MuJoCo's
//     camera rangefinder, which excludes it always) has it; not excluded, it is seen;
//   - the group rule: one group per moving body with a camera, 0 for the rest;
//   - mjBatch: poses from mjb_output's arrays equal those from each simulation's mjData, and the
//     batch renders as mj_ray sees each simulation.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "mujoco_test_support.h"

using namespace wr_mujoco_test;

namespace {

// A robot (a free trunk box with a head camera inside it and a leg below) and a free ball, over
// a floor and a wall.
// (The resolution is the model's: the camera rangefinder's sensordata is sized from it when compiled.)
std::string robot_xml(int width, int height) {
  return R"(<mujoco><worldbody>
  <geom name="floor" type="plane" size="0 0 1"/>
  <geom name="wall" type="box" size="0.1 3 1" pos="3 0 1"/>
  <body name="trunk" pos="0 0 0.6"><freejoint/>
    <geom name="trunk" type="box" size="0.3 0.15 0.08"/>
    <camera name="head" pos="0.1 0 0" xyaxes="0 -1 0 0.5 0 0.866" resolution=")" +
         std::to_string(width) + " " + std::to_string(height) + R"("/>
    <body name="leg" pos="0.2 0 -0.1"><joint type="hinge" axis="0 1 0"/>
      <geom name="leg" type="box" size="0.03 0.03 0.2" pos="0.05 0 -0.2" euler="0 15 0"/></body>
  </body>
  <body name="ball" pos="1.2 0 0.3"><freejoint/><geom name="ball" type="box" size="0.15 0.15 0.15"/></body>
</worldbody>
<sensor><rangefinder name="rf" camera="head" data="dist"/></sensor></mujoco>)";
}

// Two different states: the robot and the ball moved, the leg swung.
std::vector<std::vector<double>> robot_states() {
  return {
      {0, 0, 0.6, 1, 0, 0, 0, 0.4, 1.2, 0.0, 0.3, 1, 0, 0, 0},
      {0.3, 0.5, 0.55, 0.985, 0.0, 0.0, 0.174, -0.3, 1.5, 0.9, 0.4, 0.92, 0.2, 0.1, 0.3},
  };
}

}  // namespace

TEST_CASE("envs in different states each see their own moving bodies only", "[mujoco][instances]") {
  Model m = load(robot_xml(64, 48));
  std::vector<Data> ds;
  for (const auto& q : robot_states()) ds.push_back(forward(m.get(), q));
  Context c;
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
  REQUIRE(scene.num_slots() == 3);  // trunk, leg, ball
  wr_mujoco::CameraOptions co;
  co.depth_kind = WR_DEPTH_RANGE;
  co.exclude_own_body = true;  // the camera sits inside the trunk
  const wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m.get(), scene, "head", co);
  const WrImages img = render(scene, cam, {ds[0].get(), ds[1].get()});
  const size_t hw = size_t(cam.desc.width) * cam.desc.height;
  for (size_t e = 0; e < ds.size(); ++e) {
    const MjImage mj = mj_image(m.get(), ds[e].get(), cam, nullptr, cam.body);
    require_exact_agreement(("own env, env " + std::to_string(e)).c_str(), img.depth.data() + e * hw, mj);
    // Against the other env's state, the images differ: what env e saw was its own.
    const MjImage other = mj_image(m.get(), ds[1 - e].get(), cam, nullptr, cam.body);
    const Agreement a = compare_exact(img.depth.data() + e * hw, other);
    CHECK(a.fraction() < 0.9);
    // Instance ids: the slot hit is the geom mj_ray hit (the leg and the ball are in view).
    size_t moving = 0, same = 0;
    for (size_t k = 0; k < hw; ++k) {
      const uint32_t id = img.ids[e * hw + k];
      if (id == UINT32_MAX) continue;
      moving++;
      same += mj.t[k] >= 0 && scene.slot_geom(id) == mj.geom[k];
    }
    INFO("env " << e << ": " << same << " of " << moving << " instance pixels name mj_ray's geom");
    CHECK(moving > 0);
    CHECK(same >= moving - moving / 100);
  }
}

TEST_CASE("the camera's own body is excluded when asked, as mj_ray's bodyexclude and the rangefinder have it",
          "[mujoco][instances][exclude]") {
  Model m = load(robot_xml(40, 30));
  Data d = forward(m.get(), robot_states()[1]);
  Context c;
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
  const int trunk = mj_name2id(m.get(), mjOBJ_BODY, "trunk");
  CHECK(scene.body_group(trunk) == 1);  // the one moving body with a camera
  CHECK(scene.body_group(mj_name2id(m.get(), mjOBJ_BODY, "leg")) == 0);
  CHECK(scene.body_group(mj_name2id(m.get(), mjOBJ_BODY, "ball")) == 0);

  wr_mujoco::CameraOptions co;
  co.depth_kind = WR_DEPTH_RANGE;
  co.exclude_own_body = true;
  const wr_mujoco::Camera excluding = wr_mujoco::Camera::from_model(m.get(), scene, "head", co);
  CHECK(excluding.body == trunk);
  CHECK(excluding.exclude_groups == (1u << 1));
  CHECK(excluding.sensor_options().exclude_groups == (1u << 1));
  const WrImages out = render(scene, excluding, {d.get()});
  require_exact_agreement("own body excluded vs mj_ray(bodyexclude = cam_bodyid)", out.depth.data(),
                          mj_image(m.get(), d.get(), excluding, nullptr, trunk));
  // MuJoCo's camera rangefinder excludes the camera's body too.
  MjImage rf;
  const mjtNum* data = d->sensordata + m->sensor_adr[mj_name2id(m.get(), mjOBJ_SENSOR, "rf")];
  for (size_t k = 0; k < out.depth.size(); ++k) {
    rf.t.push_back(data[k] < 0 ? -1.0 : data[k]);
    rf.geom.push_back(-1);
    rf.cosine.push_back(0);
  }
  require_exact_agreement("own body excluded vs the camera rangefinder", out.depth.data(), rf);

  // Not excluded, the camera inside the trunk sees the trunk's inside on every pixel.
  co.exclude_own_body = false;
  const wr_mujoco::Camera seeing = wr_mujoco::Camera::from_model(m.get(), scene, "head", co);
  CHECK(seeing.exclude_groups == 0);
  const WrImages in = render(scene, seeing, {d.get()});
  require_exact_agreement("own body seen vs mj_ray(bodyexclude = -1)", in.depth.data(),
                          mj_image(m.get(), d.get(), seeing, nullptr, -1));
  float farthest = 0;
  for (float t : in.depth) farthest = std::max(farthest, t);  // +inf for a miss
  CHECK(farthest < 0.4f);
}

TEST_CASE("mjBatch: poses from mjb_output's arrays, and the batch rendered as mj_ray sees each simulation",
          "[mujoco][instances][batch]") {
  Model m = load(robot_xml(48, 36));
  const int nsim = 3;
  mjBatchConfig config;
  mjb_defaultConfig(&config);
  config.nthread = 1;
  char error[512] = "";
  mjBatch* b = mjb_makeBatch(m.get(), nsim, &config, error, sizeof error);
  INFO("mjb_makeBatch: " << error);
  REQUIRE(b != nullptr);
  const wr_mujoco::BatchOutputs outputs = wr_mujoco::request_batch_outputs(b);
  CHECK(outputs.nsim == nsim);
  // Each simulation in its own state, then mj_forward's positions.
  int qsize = 0;
  mjtNum* qpos = mjb_stateComponent(b, mjSTATE_QPOS, &qsize);
  REQUIRE(qsize == m->nq);
  const int nstate = mjb_nstate(b);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  std::vector<std::vector<double>> states;
  for (int s = 0; s < nsim; ++s) {
    std::vector<double> q = robot_states()[s % 2];
    q[0] += u(rng);
    q[1] += u(rng);
    q[7] += u(rng);  // the leg's hinge
    q[8] += u(rng);
    for (int i = 0; i < m->nq; ++i) qpos[size_t(s) * nstate + i] = q[i];
    states.push_back(q);
  }
  REQUIRE(mjb_forward(b, nullptr, 0, mjSTAGE_POS) == 0);

  Context c;
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(c.ctx, m.get());
  wr_mujoco::CameraOptions co;
  co.depth_kind = WR_DEPTH_RANGE;
  co.exclude_own_body = true;
  const wr_mujoco::Camera cam = wr_mujoco::Camera::from_model(m.get(), scene, "head", co);
  const uint32_t S = scene.num_slots();
  std::vector<float> inst(size_t(nsim) * S * 7), poses(size_t(nsim) * 7);
  scene.fill_instance_poses_batch(outputs, inst.data());
  cam.fill_pose_batch(outputs, poses.data());

  // The same from each simulation's own mjData.
  std::vector<Data> ds;
  for (int s = 0; s < nsim; ++s) {
    ds.push_back(forward(m.get(), states[s]));
    std::vector<float> one(size_t(S) * 7), pose(7);
    scene.fill_instance_poses(ds.back().get(), one.data());
    cam.fill_pose(ds.back().get(), pose.data());
    for (size_t i = 0; i < one.size(); ++i) CHECK(inst[size_t(s) * S * 7 + i] == Approx(one[i]).margin(1e-6));
    for (int i = 0; i < 7; ++i) CHECK(poses[size_t(s) * 7 + i] == Approx(pose[i]).margin(1e-6));
  }

  // Render the batch's poses; each env against mj_ray on its simulation.
  wr_sensor_options opts = cam.sensor_options();
  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create_ex(scene.handle(), &cam.desc, &opts, nsim, &sensor));
  const size_t hw = size_t(cam.desc.width) * cam.desc.height;
  std::vector<float> depth(nsim * hw);
  wr_render_args args;
  wr_render_args_init(&args);
  args.body_poses = poses.data();
  args.instance_poses = inst.data();
  args.out = depth.data();
  args.out_bytes = depth.size() * sizeof(float);
  REQUIRE_OK(wr_sensor_render_ex(sensor, &args));
  wr_sensor_release(sensor);
  for (int s = 0; s < nsim; ++s)
    require_exact_agreement(("mjBatch sim " + std::to_string(s)).c_str(), depth.data() + s * hw,
                            mj_image(m.get(), ds[s].get(), cam, nullptr, cam.body));

  // After a step, the same arrays hold the new state.
  REQUIRE(mjb_step(b, nullptr, 0, 5, mjSTAGE_POS) == 0);
  std::vector<float> later(inst.size());
  scene.fill_instance_poses_batch(outputs, later.data());
  CHECK(later != inst);
  mjb_deleteBatch(b);
}
