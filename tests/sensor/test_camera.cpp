// Camera math (src/core/camera.h) and the camera model (src/sensor/camera_model) against
// Eigen, in double precision, as independent truth.
#include <catch2/catch.hpp>

#include <Eigen/Geometry>
#include <cmath>
#include <random>

#include "errors/status_error.h"
#include "core/camera.h"
#include "sensor/camera_model.h"
#include "float_bits.h"

namespace {

Eigen::Matrix3d to_eigen(const float r[9]) {
  Eigen::Matrix3d m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = r[3 * i + j];
  return m;
}

wr_camera_desc pinhole(uint32_t w, uint32_t h, float hfov) {
  wr_camera_desc d;
  wr_camera_desc_pinhole(&d, w, h, hfov);
  return d;
}

}  // namespace

TEST_CASE("quaternion to matrix matches Eigen and normalises") {
  std::mt19937 rng(1);
  std::normal_distribution<double> n(0, 1);
  for (int i = 0; i < 1000; ++i) {
    Eigen::Quaterniond q(n(rng), n(rng), n(rng), n(rng));
    const double scale = 0.01 + std::fabs(n(rng)) * 10;  // not unit on purpose
    float r[9] = {};
    REQUIRE(
        wr::quat_to_matrix(float(q.w() * scale), float(q.x() * scale), float(q.y() * scale), float(q.z() * scale), r));
    const Eigen::Matrix3d want = q.normalized().toRotationMatrix();
    CHECK((to_eigen(r) - want).cwiseAbs().maxCoeff() < 1e-6);
  }
  float r[9] = {};
  CHECK_FALSE(wr::quat_to_matrix(0, 0, 0, 0, r));
  CHECK_FALSE(wr::quat_to_matrix(NAN, 0, 0, 1, r));
  CHECK_FALSE(wr::quat_to_matrix(INFINITY, 0, 0, 1, r));
}

TEST_CASE("quaternions of any finite, non-zero size: the matrix of the same rotation, bit for bit") {
  // A quaternion of components near 1e-20 has a squared
  // norm below float's normal range, which made 2 / n2 infinite and the matrix NaN while the pose
  // was accepted; one near 1e20 overflowed n2 and was refused as zero. Powers of two from 2^-100
  // to 2^100 scale q exactly: every scale gives q's own matrix. Denormal components (1e-45) too.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int i = 0; i < 200; ++i) {
    const float q[4] = {u(rng), u(rng), u(rng), 0.25f + 0.5f * std::fabs(u(rng))};  // no tiny component
    float want[9] = {};
    REQUIRE(wr::quat_to_matrix(q[0], q[1], q[2], q[3], want));
    for (int e : {-100, -70, -60, -50, 40, 60, 64, 100}) {
      INFO("q = (" << q[0] << ", " << q[1] << ", " << q[2] << ", " << q[3] << ") x 2^" << e);
      const float s = std::ldexp(1.0f, e);
      float r[9] = {};
      REQUIRE(wr::quat_to_matrix(q[0] * s, q[1] * s, q[2] * s, q[3] * s, r));
      int differ = 0;
      for (int k = 0; k < 9; ++k) differ += wr_test::bits(r[k]) != wr_test::bits(want[k]);
      CHECK(differ == 0);
    }
  }
  // The smallest and largest finite ones, on one axis and on two.
  float r[9] = {};
  for (const float c : {1e-45f, 1e-40f, 1e-20f, 1e20f, 3.4028235e38f}) {
    INFO("component " << c);
    REQUIRE(wr::quat_to_matrix(c, 0, 0, 0, r));  // the identity
    for (int k = 0; k < 9; ++k) CHECK(r[k] == (k % 4 == 0 ? 1.0f : 0.0f));
    REQUIRE(wr::quat_to_matrix(c, 0, 0, c, r));  // 90 degrees about z
    CHECK(std::fabs(r[1] + 1.0f) < 1e-6f);
    CHECK(std::fabs(r[3] - 1.0f) < 1e-6f);
    CHECK(std::fabs(r[8] - 1.0f) < 1e-6f);
  }
  CHECK_FALSE(wr::quat_to_matrix(0, -0.0f, 0, 0, r));
  CHECK_FALSE(wr::quat_to_matrix(3e38f, INFINITY, 0, 0, r));
  CHECK_FALSE(wr::quat_to_matrix(1e-30f, 0, NAN, 0, r));
}

TEST_CASE("pose layout: both quaternion orders give the same transform") {
  const Eigen::Quaterniond q = Eigen::Quaterniond(0.3, -0.2, 0.9, 0.1).normalized();
  const float wxyz[7] = {1, 2, 3, float(q.w()), float(q.x()), float(q.y()), float(q.z())};
  const float xyzw[7] = {1, 2, 3, float(q.x()), float(q.y()), float(q.z()), float(q.w())};
  wr::RigidTransform a{}, b{};
  REQUIRE(wr::pose_to_transform(wxyz, wr::kQuatWXYZ, &a));
  REQUIRE(wr::pose_to_transform(xyzw, wr::kQuatXYZW, &b));
  for (int i = 0; i < 9; ++i) CHECK(a.rot[i] == b.rot[i]);
  CHECK((to_eigen(a.rot) - q.toRotationMatrix()).cwiseAbs().maxCoeff() < 1e-6);
  CHECK((a.pos.x == 1 && a.pos.y == 2 && a.pos.z == 3));
  const float bad[7] = {1, NAN, 3, 1, 0, 0, 0};
  CHECK_FALSE(wr::pose_to_transform(bad, wr::kQuatWXYZ, &a));
}

TEST_CASE("camera_in_world = body_in_world * mount") {
  const Eigen::Quaterniond qb = Eigen::Quaterniond(0.9, 0.1, -0.3, 0.2).normalized();
  const Eigen::Quaterniond qm = Eigen::Quaterniond(Eigen::AngleAxisd(0.5, Eigen::Vector3d::UnitY()));
  const Eigen::Vector3d pb(4, -2, 1), pm(0.27, 0, 0.05);
  wr_camera_desc desc = pinhole(8, 6, 90);
  desc.mount_position[0] = float(pm.x());
  desc.mount_position[1] = float(pm.y());
  desc.mount_position[2] = float(pm.z());
  desc.mount_rotation[0] = float(qm.w());
  desc.mount_rotation[1] = float(qm.x());
  desc.mount_rotation[2] = float(qm.y());
  desc.mount_rotation[3] = float(qm.z());
  const wr::DepthParams p = wr::make_depth_params(desc);
  const float body[7] = {float(pb.x()), float(pb.y()), float(pb.z()), float(qb.w()),
                         float(qb.x()), float(qb.y()), float(qb.z())};
  wr::RigidTransform cam{};
  REQUIRE(wr::camera_from_body_pose(body, p, &cam));
  const Eigen::Matrix3d want_rot = (qb * qm).toRotationMatrix();
  const Eigen::Vector3d want_pos = pb + qb * pm;
  CHECK((to_eigen(cam.rot) - want_rot).cwiseAbs().maxCoeff() < 1e-6);
  CHECK(std::fabs(cam.pos.x - want_pos.x()) < 1e-6);
  CHECK(std::fabs(cam.pos.y - want_pos.y()) < 1e-6);
  CHECK(std::fabs(cam.pos.z - want_pos.z()) < 1e-6);
}

TEST_CASE("ray template: pixel centres, axes, and the depth factor") {
  wr_camera_desc desc = pinhole(106, 60, 87);
  desc.cx = 40.3f;  // off-centre principal point
  desc.cy = 33.7f;
  desc.fy = desc.fx * 1.1f;
  for (wr_depth_kind kind : {WR_DEPTH_PLANE, WR_DEPTH_RANGE}) {
    desc.depth_kind = kind;
    std::vector<wr::TemplateRay> rays(106u * 60u);
    wr::build_ray_template(desc, rays.data());
    double worst = 0;
    for (uint32_t v = 0; v < desc.height; ++v)
      for (uint32_t u = 0; u < desc.width; ++u) {
        const Eigen::Vector3d d =
            Eigen::Vector3d(1, -(u + 0.5 - desc.cx) / desc.fx, -(v + 0.5 - desc.cy) / desc.fy).normalized();
        const wr::TemplateRay& r = rays[v * desc.width + u];
        worst = std::max(worst, (Eigen::Vector3d(r.dir[0], r.dir[1], r.dir[2]) - d).cwiseAbs().maxCoeff());
        CHECK(r.depth_scale == Approx(kind == WR_DEPTH_PLANE ? d.x() : 1.0).epsilon(1e-7));
      }
    CHECK(worst < 1e-7);
  }
  // Left columns look left (+Y), top rows look up (+Z).
  std::vector<wr::TemplateRay> rays(100);
  wr::build_ray_template(pinhole(10, 10, 90), rays.data());
  CHECK(rays[0].dir[1] > 0);
  CHECK(rays[0].dir[2] > 0);
  CHECK(rays[99].dir[1] < 0);
  CHECK(rays[99].dir[2] < 0);
}

TEST_CASE("camera description validation names the bad field") {
  auto expect_bad = [](wr_camera_desc d, const char* field) {
    try {
      wr::validate_camera_desc("wr_sensor_create", d);
      FAIL("accepted a bad " << field);
    } catch (const wr::StatusError& e) {
      CHECK(e.status() == WR_ERROR_INVALID_ARGUMENT);
      CHECK_THAT(e.what(), Catch::Contains(field));
    }
  };
  const wr_camera_desc good = pinhole(64, 48, 90);
  CHECK_NOTHROW(wr::validate_camera_desc("f", good));
  wr_camera_desc d = good;
  d.width = 0;
  expect_bad(d, "desc->width");
  d = good;
  d.height = 0;
  expect_bad(d, "desc->height");
  d = good;
  d.fx = 0;
  expect_bad(d, "desc->fx");
  d = good;
  d.fy = NAN;
  expect_bad(d, "desc->fy");
  d = good;
  d.cx = INFINITY;
  expect_bad(d, "desc->cx");
  d = good;
  d.cy = NAN;
  expect_bad(d, "desc->cy");
  d = good;
  d.near_clip = -1;
  expect_bad(d, "desc->near_clip");
  d = good;
  d.far_clip = 0;
  expect_bad(d, "desc->far_clip");
  d = good;
  d.far_clip = NAN;
  expect_bad(d, "desc->far_clip");
  d = good;
  d.depth_kind = static_cast<wr_depth_kind>(7);
  expect_bad(d, "desc->depth_kind");
  d = good;
  d.quat_order = static_cast<wr_quat_order>(-1);
  expect_bad(d, "desc->quat_order");
  d = good;
  d.mount_position[2] = NAN;
  expect_bad(d, "desc->mount_position");
  d = good;
  d.mount_rotation[1] = NAN;
  expect_bad(d, "desc->mount_rotation");
  d = good;
  for (float& q : d.mount_rotation) q = 0.0f;  // all 0: the identity (wr.h), accepted
  CHECK_NOTHROW(wr::validate_camera_desc("f", d));
}
