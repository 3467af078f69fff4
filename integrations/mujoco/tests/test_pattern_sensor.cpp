// Pattern sensors on a MuJoCo model (wr_mujoco::SensorFrame) against mj_ray on the very rays the
// library traces (wr_sensor_world_rays): IsaacLab's height scan on the site "height_scan" and a
// LiDAR on the site "lidar" of assets/mujoco/quadruped_parkour.xml, the trunk excluded (mj_ray's
// bodyexclude = the trunk), for envs standing and tilted at several places of the terrain (a ray
// that slips through a vertex or edge of mj_ray's triangle test, which is not watertight, must hit
// where the library's did once moved by 10 microns); and the frames' poses against MuJoCo's
// site_xpos / site_xmat and xpos / xmat.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "mujoco_test_support.h"

using namespace wr_mujoco_test;

namespace {

Model load_quadruped() {
  const char* dir = std::getenv("WR_SOURCE_DIR");
  const std::string path = std::string(dir ? dir : ".") + "/assets/mujoco/quadruped_parkour.xml";
  char error[1024] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
  INFO("mj_loadXML: " << error);
  REQUIRE(m != nullptr);
  return Model(m);
}

// The robot at (x, y), 0.45 m above the highest terrain point under its base, heading yaw and
// tilted by roll and pitch (radians), its legs in the keyframe's stance.
Data place(const mjModel* m, double x, double y, double z, double roll, double pitch, double yaw) {
  Data d(mj_makeData(m));
  REQUIRE(d != nullptr);
  mj_resetDataKeyframe(m, d.get(), 0);
  const double cr = std::cos(roll / 2), sr = std::sin(roll / 2), cp = std::cos(pitch / 2), sp = std::sin(pitch / 2);
  const double cy = std::cos(yaw / 2), sy = std::sin(yaw / 2);
  const double q[7] = {x,
                       y,
                       z,
                       cr * cp * cy + sr * sp * sy,
                       sr * cp * cy - cr * sp * sy,
                       cr * sp * cy + sr * cp * sy,
                       cr * cp * sy - sr * sp * cy};
  for (int i = 0; i < 7; ++i) d->qpos[i] = q[i];
  mj_forward(m, d.get());
  return d;
}

struct PatternCase {
  const char* site;
  wr_pattern_desc pattern;
  wr_ray_sensor_desc desc;
};

}  // namespace

TEST_CASE("a site-mounted height scan and LiDAR agree with mj_ray on every ray, the trunk excluded",
          "[mujoco][pattern]") {
  const Model model = load_quadruped();
  const mjModel* m = model.get();
  Context ctx;
  wr_mujoco::SceneOptions so;
  so.geomgroup = {1, 1, 1, 0, 0, 0};  // the model's seen groups (its header)
  so.sensor_bodies = {"trunk"};
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(ctx.ctx, m, so);
  const int trunk = mj_name2id(m, mjOBJ_BODY, "trunk");

  PatternCase scan{"height_scan", {}, {}};
  wr_pattern_desc_init(&scan.pattern);
  scan.pattern.grid_size[0] = 1.6, scan.pattern.grid_size[1] = 1.0;
  wr_ray_sensor_desc_init(&scan.desc);
  scan.desc.alignment = WR_ALIGN_YAW;
  scan.desc.offset_position[2] = 20.0f;
  PatternCase lidar{"lidar", {}, {}};
  wr_pattern_desc_init(&lidar.pattern);
  lidar.pattern.kind = WR_PATTERN_SPHERICAL;
  lidar.pattern.channels = 8;
  lidar.pattern.vertical_fov[0] = -40, lidar.pattern.vertical_fov[1] = 10;
  lidar.pattern.horizontal_fov[0] = -180, lidar.pattern.horizontal_fov[1] = 180;
  lidar.pattern.horizontal_resolution = 3.0;
  wr_ray_sensor_desc_init(&lidar.desc);
  lidar.desc.max_distance = 30.0f;

  // Envs on the first tiles' spawn points and between them, standing and tilted.
  std::vector<Data> ds;
  ds.push_back(place(m, 4.0, 4.0, -0.82, 0.0, 0.0, 0.3));
  ds.push_back(place(m, 7.5, 3.2, -0.6, 0.2, -0.15, 2.0));
  ds.push_back(place(m, 5.0, 6.0, -0.5, -0.3, 0.25, -1.2));
  const uint32_t n = uint32_t(ds.size());
  for (const PatternCase* c : {&scan, &lidar}) {
    INFO("site " << c->site);
    const wr_mujoco::SensorFrame frame = wr_mujoco::SensorFrame::at_site(m, scene, c->site, true);
    CHECK(frame.body == trunk);
    CHECK(frame.exclude_groups == 1u << scene.body_group(trunk));
    wr_pattern pattern = nullptr;
    REQUIRE_OK(wr_pattern_create(&c->pattern, &pattern));
    wr_sensor_options o = frame.sensor_options();
    wr_sensor sensor = nullptr;
    REQUIRE_OK(wr_sensor_create_pattern(scene.handle(), pattern, &c->desc, &o, n, &sensor));
    uint32_t rays = 0;
    REQUIRE_OK(wr_pattern_num_rays(pattern, &rays));
    std::vector<float> poses(7 * n), inst(7 * size_t(n) * scene.num_slots()), out(size_t(n) * rays);
    for (uint32_t e = 0; e < n; ++e) {
      frame.fill_pose(ds[e].get(), &poses[7 * e]);
      scene.fill_instance_poses(ds[e].get(), &inst[7 * size_t(e) * scene.num_slots()]);
    }
    wr_render_args a;
    wr_render_args_init(&a);
    a.body_poses = poses.data();
    a.instance_poses = inst.data();
    a.out = out.data();
    a.out_bytes = out.size() * sizeof(float);
    REQUIRE_OK(wr_sensor_render_ex(sensor, &a));
    size_t both_hit = 0, agree = 0, hit_miss = 0, robot_hits = 0;
    for (uint32_t e = 0; e < n; ++e) {
      std::vector<float> starts(3 * size_t(rays)), dirs(3 * size_t(rays));
      REQUIRE_OK(wr_sensor_world_rays(sensor, &poses[7 * e], nullptr, e, 0, starts.data(), dirs.data()));
      for (uint32_t r = 0; r < rays; ++r) {
        const mjtNum pnt[3] = {starts[3 * r], starts[3 * r + 1], starts[3 * r + 2]};
        const mjtNum vec[3] = {dirs[3 * r], dirs[3 * r + 1], dirs[3 * r + 2]};
        int geom = -1;
        mjtNum t = mj_ray(m, ds[e].get(), pnt, vec, so.geomgroup.data(), 1, trunk, &geom, nullptr);
        if (t > c->desc.max_distance) t = -1;  // beyond the sensor's range
        const float got = out[size_t(e) * rays + r];
        INFO("env " << e << ", ray " << r << ": ours " << got << ", mj_ray " << t << " (geom " << geom << ")");
        if (t < 0 && !std::isfinite(got)) {
          ++agree;
        } else if (t >= 0 && std::isfinite(got)) {
          ++both_hit;
          robot_hits += geom >= 0 && m->geom_bodyid[geom] != 0;
          // The terrain is a mesh and the robot boxes: exact shapes, float rounding apart.
          const bool close = std::fabs(double(got) - t) <= 1e-4 * std::max(1.0, t);
          CHECK(close);
          agree += close;
        } else {
          // mj_ray's triangle test is not watertight (the library's is): a ray through a vertex or
          // an edge shared by two of the terrain's triangles can slip through it. Such a ray, moved
          // by 10 microns, hits where the library's did.
          bool slipped = false;
          if (t < 0 && std::isfinite(got)) {
            const mjtNum moved[3] = {pnt[0] + 1e-5, pnt[1] + 0.7e-5, pnt[2]};
            const mjtNum t2 = mj_ray(m, ds[e].get(), moved, vec, so.geomgroup.data(), 1, trunk, &geom, nullptr);
            slipped = t2 >= 0 && std::fabs(double(got) - t2) <= 1e-4 * std::max(1.0, t2);
          }
          CHECK(slipped);
          ++hit_miss;
        }
      }
    }
    CHECK(hit_miss * 1000 <= size_t(n) * rays + 1000);  // such slips are rare
    CHECK(agree + hit_miss == size_t(n) * rays);
    CHECK(both_hit > size_t(n) * rays / 3);  // most rays hit: agreement means something
    if (c == &lidar) CHECK(robot_hits > 0);  // the LiDAR sees the legs (the trunk is excluded)
    wr_sensor_release(sensor);
    wr_pattern_release(pattern);
  }
}

TEST_CASE("sensor frames are MuJoCo's site and body poses, one env or an mjBatch's arrays", "[mujoco][pattern]") {
  const Model model = load_quadruped();
  const mjModel* m = model.get();
  Context ctx;
  wr_mujoco::SceneOptions so;
  so.geomgroup = {1, 1, 1, 0, 0, 0};
  const wr_mujoco::Scene scene = wr_mujoco::Scene::build(ctx.ctx, m, so);
  const Data d0 = place(m, 4.0, 4.0, -0.8, 0.1, 0.2, 0.7), d1 = place(m, 6.0, 5.0, -0.7, -0.2, 0.0, -2.0);
  const wr_mujoco::SensorFrame site = wr_mujoco::SensorFrame::at_site(m, scene, "lidar");
  const wr_mujoco::SensorFrame body = wr_mujoco::SensorFrame::at_body(m, scene, "FL_shank");
  CHECK(site.exclude_groups == 0u);
  // The batch arrays as an mjBatch holds them: (nsim x nsite x ...) and (nsim x nbody x ...).
  std::vector<mjtNum> site_xpos, site_xmat, xpos, xmat;
  for (const mjData* d : {d0.get(), d1.get()}) {
    site_xpos.insert(site_xpos.end(), d->site_xpos, d->site_xpos + 3 * m->nsite);
    site_xmat.insert(site_xmat.end(), d->site_xmat, d->site_xmat + 9 * m->nsite);
    xpos.insert(xpos.end(), d->xpos, d->xpos + 3 * m->nbody);
    xmat.insert(xmat.end(), d->xmat, d->xmat + 9 * m->nbody);
  }
  std::vector<float> batch_site(14), batch_body(14);
  site.fill_pose_batch(site_xpos.data(), site_xmat.data(), 2, batch_site.data());
  body.fill_pose_batch(xpos.data(), xmat.data(), 2, batch_body.data());
  int e = 0;
  for (const mjData* d : {d0.get(), d1.get()}) {
    float p[7], b[7];
    site.fill_pose(d, p);
    body.fill_pose(d, b);
    for (int i = 0; i < 7; ++i) {
      CHECK(p[i] == batch_site[7 * e + i]);
      CHECK(b[i] == batch_body[7 * e + i]);
    }
    for (int i = 0; i < 3; ++i) {
      CHECK(p[i] == float(d->site_xpos[3 * site.id + i]));
      CHECK(b[i] == float(d->xpos[3 * body.id + i]));
    }
    // The quaternion's rotation is site_xmat's.
    mjtNum q[4] = {p[3], p[4], p[5], p[6]}, r[9];
    mju_normalize4(q);
    mju_quat2Mat(r, q);
    for (int i = 0; i < 9; ++i) CHECK(std::fabs(r[i] - d->site_xmat[9 * site.id + i]) < 1e-6);
    ++e;
  }
  // Refusals name the culprit.
  CHECK_THROWS_WITH(wr_mujoco::SensorFrame::at_site(m, scene, "nose"), Catch::Contains("no site named 'nose'"));
  // The trunk has a group (it carries the camera); a shank has none unless SceneOptions names it.
  CHECK(wr_mujoco::SensorFrame::at_site(m, scene, "height_scan", true).exclude_groups != 0u);
  CHECK_THROWS_WITH(wr_mujoco::SensorFrame::at_body(m, scene, "FL_shank", true),
                    Catch::Contains("body") && Catch::Contains("FL_shank") && Catch::Contains("sensor_bodies"));
}
