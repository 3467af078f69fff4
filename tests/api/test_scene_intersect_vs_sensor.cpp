// wr_scene_intersect against the depth sensor: the rays of every pixel of a WR_DEPTH_RANGE sensor,
// built here from the conventions of include/wr/wr.h, must report the sensor's depth. Part of the
// executable test_scene_intersect.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "backend_under_test.h"
#include "float_bits.h"
#include "random_scenes.h"
#include "scene_intersect_brute_force.h"

using namespace wr_test::scene_intersect;

namespace {

// ---- the scene: a closed, convex room ------------------------------------------------------

// A closed, convex room: the floor is the paraboloid z = 0.02 (x^2 + y^2) over [-5, 5]^2 on a
// 40 x 40 grid (each cell's four corners are coplanar for this separable function, so the
// piecewise-linear floor is convex too), vertical walls up from the floor's border, a flat
// ceiling at z = 3; every vertex shared between faces. Seen from inside, every ray hits it and
// the depth varies continuously with the direction, so directions that differ by an ulp give
// depths that differ by about an ulp (no silhouettes).
wr_test::SoupScene convex_room() {
  const int n = 40, m = 12;
  const double L = 5.0, H = 3.0;
  wr_test::SoupScene s;
  std::map<std::tuple<int, int, int>, uint32_t> index;  // (i, j, k) -> vertex; k = 0 floor, m ceiling
  auto coord = [&](int i) { return -L + 2.0 * L * i / n; };
  auto floor_z = [&](int i, int j) { return 0.02 * (coord(i) * coord(i) + coord(j) * coord(j)); };
  auto vertex = [&](int i, int j, int k) {
    const auto key = std::make_tuple(i, j, k);
    const auto it = index.find(key);
    if (it != index.end()) return it->second;
    const double z0 = floor_z(i, j);
    const double z = k == 0 ? z0 : k == m ? H : z0 + (H - z0) * k / m;
    const uint32_t v = uint32_t(s.vertices.size() / 3);
    s.vertices.insert(s.vertices.end(), {float(coord(i)), float(coord(j)), float(z)});
    index.emplace(key, v);
    return v;
  };
  auto quad = [&](uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    s.indices.insert(s.indices.end(), {a, b, c, a, c, d});
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      quad(vertex(i, j, 0), vertex(i + 1, j, 0), vertex(i + 1, j + 1, 0), vertex(i, j + 1, 0));
      quad(vertex(i, j, m), vertex(i + 1, j, m), vertex(i + 1, j + 1, m), vertex(i, j + 1, m));
    }
  for (int a = 0; a < n; ++a)
    for (int k = 0; k < m; ++k) {
      quad(vertex(a, 0, k), vertex(a + 1, 0, k), vertex(a + 1, 0, k + 1), vertex(a, 0, k + 1));  // y = -L
      quad(vertex(a, n, k), vertex(a + 1, n, k), vertex(a + 1, n, k + 1), vertex(a, n, k + 1));  // y = +L
      quad(vertex(0, a, k), vertex(0, a + 1, k), vertex(0, a + 1, k + 1), vertex(0, a, k + 1));  // x = -L
      quad(vertex(n, a, k), vertex(n, a + 1, k), vertex(n, a + 1, k + 1), vertex(n, a, k + 1));  // x = +L
    }
  return s;
}

}  // namespace

// ---- the sensor --------------------------------------------------------------------------------

TEST_CASE("intersect: every pixel's ray, built from the conventions, reports the sensor's range depth",
          "[intersect][sensor]") {
  const wr_test::SoupScene room = convex_room();
  Scene scene(room, 2);

  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 64, 48, 100.0f);
  desc.cx = 30.7f;  // off-centre principal point and non-square pixels
  desc.fy = desc.fx * 0.9f;
  desc.depth_kind = WR_DEPTH_RANGE;
  desc.miss_value = kNaN;
  // Mount: 0.2 m forward, 0.3 m up, pitched 12 degrees down (a positive rotation about +Y turns
  // +X towards -Z); WXYZ.
  const Quaterniond mount_q(AngleAxisd(12.0 * kPi / 180.0, Vector3d::UnitY()));
  const float mount_p[3] = {0.2f, 0.0f, 0.3f};
  for (int i = 0; i < 3; ++i) desc.mount_position[i] = mount_p[i];
  desc.mount_rotation[0] = float(mount_q.w());
  desc.mount_rotation[1] = float(mount_q.x());
  desc.mount_rotation[2] = float(mount_q.y());
  desc.mount_rotation[3] = float(mount_q.z());

  const uint32_t num_envs = 6, W = desc.width, H = desc.height;
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> xy(-3.0, 3.0), z(1.0, 2.2), ang(-kPi, kPi), small(-0.3, 0.3), scale(0.5, 2.0);
  std::vector<float> poses;
  for (uint32_t e = 0; e < num_envs; ++e) {
    const Quaterniond q(AngleAxisd(ang(rng), Vector3d::UnitZ()) * AngleAxisd(small(rng), Vector3d::UnitY()) *
                        AngleAxisd(small(rng), Vector3d::UnitX()));
    const double k = scale(rng);  // not unit: the library normalises
    poses.insert(poses.end(), {float(xy(rng)), float(xy(rng)), float(z(rng)), float(k * q.w()), float(k * q.x()),
                               float(k * q.y()), float(k * q.z())});
  }

  wr_sensor sensor = nullptr;
  REQUIRE_OK(wr_sensor_create(scene.scene, &desc, num_envs, &sensor));
  std::vector<float> depth(size_t(num_envs) * W * H, -7.0f);
  REQUIRE_OK(wr_test::render_on_backend(sensor, poses.data(), poses.size(), depth.data(), depth.size()));
  wr_sensor_release(sensor);

  // The rays, from the conventions of wr.h, in double from the very floats given:
  //   d_cam = normalize(1, -(u + 0.5 - cx) / fx, -(v + 0.5 - cy) / fy)
  //   camera_in_world = body_in_world * mount; origin = camera position; direction = R * d_cam.
  Rays rays;
  const Quaterniond mq(double(desc.mount_rotation[0]), double(desc.mount_rotation[1]), double(desc.mount_rotation[2]),
                       double(desc.mount_rotation[3]));
  const Matrix3d R_mount = mq.normalized().toRotationMatrix();
  const Vector3d p_mount(mount_p[0], mount_p[1], mount_p[2]);
  for (uint32_t e = 0; e < num_envs; ++e) {
    const float* p = &poses[7 * e];
    const Quaterniond bq(p[3], p[4], p[5], p[6]);
    const Matrix3d R_body = bq.normalized().toRotationMatrix();
    const Vector3d origin = Vector3d(p[0], p[1], p[2]) + R_body * p_mount;
    const Matrix3d R = R_body * R_mount;
    for (uint32_t v = 0; v < H; ++v)
      for (uint32_t u = 0; u < W; ++u) {
        const Vector3d d_cam =
            Vector3d(1.0, -((u + 0.5) - desc.cx) / desc.fx, -((v + 0.5) - desc.cy) / desc.fy).normalized();
        rays.add(origin, R * d_cam);
      }
  }
  const Result r = intersect(scene.scene, rays, nullptr);

  size_t bit_equal = 0, within = 0;
  double worst = 0.0;
  for (size_t i = 0; i < rays.count(); ++i) {
    const float want = depth[i];
    const float got = r.t[i];
    REQUIRE(std::isfinite(want));  // the room is closed: every pixel hits
    REQUIRE(r.tri[i] != kNoHit);
    bit_equal += same_bits(got, want) ? 1 : 0;
    const double rel = std::abs(double(got) - double(want)) / double(want);
    worst = std::max(worst, rel);
    if (rel <= kRelTol) {
      ++within;
    } else {
      INFO("env " << i / (W * H) << " pixel (" << (i % W) << ", " << (i / W) % H << "): intersect t = " << got
                  << ", sensor depth = " << want);
      CHECK(rel <= kRelTol);
    }
  }
  std::printf(
      "sensor rays: %zu pixels, %zu bit-equal to the sensor's depth, all within %.2g relative "
      "(worst %.3g)\n",
      rays.count(), bit_equal, kRelTol, worst);
  CHECK(within == rays.count());
}
