// The depth sensor's pose conventions, through the public C API (libwr.so) only: both quaternion
// orders, non-unit quaternions, and the mount composing as camera_in_world = body_in_world * mount.
// Expected values come from the closed form of a box room (conventions in sensor_image_check.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "mesh_builders.h"
#include "sensor_image_check.h"
#include "sensor_poses.h"
#include "sensor_shapes.h"

using namespace wr_test::sensor_tests;  // the helpers of this test family, shared by its files

namespace {

// The box room of the batching, order and mount tests: a closed 8 x 8 x 8 m cube (all dyadic
// bounds, so the float walls are exactly these). Cameras stay within 0.5 m of its centre, so every
// ray meets a wall at incidence cos > 0.45 and direction rounding moves depths by < 1e-6.
const Vector3d kCubeLo(-3.5, -4.25, -3.75), kCubeHi(4.5, 3.75, 4.25);
const Vector3d kCubeCentre = (kCubeLo + kCubeHi) / 2;

Truth cube_truth(const Rigid& cam, const Vector3d& dw) {
  int axis = 0;
  const double t = box_exit(cam.t, dw, kCubeLo, kCubeHi, &axis);
  return hit(t, grazing_tol(dw[axis]));
}

std::vector<Pose> cube_poses(uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Pose> poses;
  for (uint32_t i = 0; i < n; ++i)
    poses.push_back({random_in(rng, kCubeCentre - Vector3d::Constant(0.5), kCubeCentre + Vector3d::Constant(0.5)),
                     random_rotation(rng)});
  return poses;
}

Scene cube_scene() {
  Mesh m;
  add_box(m, kCubeLo, kCubeHi, 16);
  return make_scene(m);
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// 4. Quaternion orders and non-unit quaternions.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: WXYZ and XYZW give identical images, and non-unit quaternions are normalised",
          "[sensor][quaternion]") {
  const Scene scene = cube_scene();
  const std::vector<Pose> poses = cube_poses(8, 7);
  const Pose mount{Vector3d(0.12, -0.05, 0.2), ypr(15, 20, -10)};

  wr_camera_desc wxyz = pinhole(48, 36, 80.0f, WR_DEPTH_RANGE);
  wxyz.quat_order = WR_QUAT_WXYZ;
  set_mount(wxyz, mount);
  wr_camera_desc xyzw = wxyz;
  xyzw.quat_order = WR_QUAT_XYZW;
  set_mount(xyzw, mount);
  REQUIRE(xyzw.mount_rotation[3] == wxyz.mount_rotation[0]);  // really reordered
  REQUIRE(xyzw.mount_rotation[0] == wxyz.mount_rotation[1]);

  const std::vector<float> pw = pose_floats(poses, WR_QUAT_WXYZ), px = pose_floats(poses, WR_QUAT_XYZW);
  const std::vector<float> a = render(scene.get(), wxyz, pw);
  const std::vector<float> b = render(scene.get(), xyzw, px);
  CHECK(same_bits(a, b));

  // The image is the right one: body * mount against the closed form.
  CHECK_REPORT(check_image(a, wxyz, pw, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
    return cube_truth(cam, dw);
  }));

  // Reading the poses in the wrong order must change the image (the order field is honoured).
  CHECK_FALSE(same_bits(a, render(scene.get(), xyzw, pw)));

  for (float scale : {0.3f, 5.0f, -1.0f}) {
    INFO("quaternions (body and mount) scaled by " << scale);
    for (const wr_camera_desc& base : {wxyz, xyzw}) {
      wr_camera_desc d = base;
      for (float& q : d.mount_rotation) q *= scale;
      const std::vector<float> scaled = pose_floats(poses, d.quat_order, scale);
      // Normalising a rounded non-unit quaternion moves the direction by ~1e-7; at incidence cos > 0.45
      // (the cube room) that is < 1e-6 of the depth.
      CHECK_REPORT(compare_images(render(scene.get(), d, scaled), a, 1e-6, d.miss_value));
    }
  }

  // Quaternions whose squared norm leaves float's range (components near 2^-70 or 2^70) were
  // turned into a NaN matrix or refused as zero; scaled by a power of two, they now give exactly
  // the image of the unit ones.
  for (float scale : {0x1p-100f, 0x1p-70f, 0x1p70f, 0x1p100f}) {
    INFO("quaternions (body and mount) scaled by " << scale);
    wr_camera_desc d = wxyz;
    for (float& q : d.mount_rotation) q *= scale;
    CHECK(same_bits(render(scene.get(), d, pose_floats(poses, WR_QUAT_WXYZ, scale)), a));
  }
}

// -------------------------------------------------------------------------------------------------
// 5. The mount: camera_in_world = body_in_world * mount.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: the mount composes as body * mount", "[sensor][mount]") {
  const Scene scene = cube_scene();
  const std::vector<Pose> bodies = cube_poses(6, 11);
  const wr_camera_desc plain = pinhole(48, 36, 80.0f, WR_DEPTH_PLANE);

  SECTION("mount offset (0.27, 0, 0) equals moving the body along its own +X") {
    wr_camera_desc mounted = plain;
    set_mount(mounted, {Vector3d(0.27, 0, 0), Quaterniond::Identity()});
    std::vector<Pose> moved;
    for (const Pose& b : bodies) moved.push_back({b.p + b.q.toRotationMatrix() * Vector3d(0.27, 0, 0), b.q});
    const std::vector<float> a = render(scene.get(), mounted, pose_floats(bodies, WR_QUAT_WXYZ));
    const std::vector<float> b = render(scene.get(), plain, pose_floats(moved, WR_QUAT_WXYZ));
    CHECK_REPORT(compare_images(a, b, 1e-6, plain.miss_value));
    CHECK_FALSE(same_bits(a, render(scene.get(), plain, pose_floats(bodies, WR_QUAT_WXYZ))));  // the mount matters
  }
  SECTION("mount pitched down 30 deg equals the body pitched down 30 deg") {
    std::vector<Pose> level, pitched;
    for (const Pose& b : bodies) {
      level.push_back({b.p, ypr(0, 0, 0)});
      pitched.push_back({b.p, ypr(0, 30, 0)});
    }
    wr_camera_desc mounted = plain;
    set_mount(mounted, {Vector3d::Zero(), ypr(0, 30, 0)});
    const std::vector<float> a = render(scene.get(), mounted, pose_floats(level, WR_QUAT_WXYZ));
    const std::vector<float> b = render(scene.get(), plain, pose_floats(pitched, WR_QUAT_WXYZ));
    CHECK_REPORT(compare_images(a, b, 1e-6, plain.miss_value));
  }
  SECTION("general body and mount: body * mount, not mount * body") {
    const Pose mount{Vector3d(0.3, 0.1, -0.2), ypr(40, 25, 10)};
    wr_camera_desc mounted = plain;
    set_mount(mounted, mount);
    const std::vector<float> pf = pose_floats(bodies, WR_QUAT_WXYZ);
    const std::vector<float> a = render(scene.get(), mounted, pf);
    // Closed form from body * mount (camera_in_world composes inside check_image).
    CHECK_REPORT(check_image(a, mounted, pf, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
      return cube_truth(cam, dw);
    }));
    // The same camera poses given as bodies with no mount.
    std::vector<Pose> composed;
    for (const Pose& b : bodies)
      composed.push_back({b.p + b.q.toRotationMatrix() * mount.p, (b.q * mount.q).normalized()});
    const std::vector<float> b = render(scene.get(), plain, pose_floats(composed, WR_QUAT_WXYZ));
    // Two float rotations composed vs one: ~3e-7 in direction, < 2e-6 in depth in the cube room.
    CHECK_REPORT(compare_images(a, b, 2e-6, plain.miss_value));
    // mount * body would be a different camera for these poses.
    std::vector<Pose> wrong;
    for (const Pose& b : bodies) wrong.push_back({mount.p + mount.q.toRotationMatrix() * b.p, mount.q * b.q});
    const Report r =
        compare_images(a, render(scene.get(), plain, pose_floats(wrong, WR_QUAT_WXYZ)), 1e-3, plain.miss_value);
    CHECK(r.failures > 0);
  }
}
