// Acceptance test: warp-raycaster against an independent ray tracer, Embree 3, on scenes the
// library has never seen (embree_reference_scenes.h), compared pixel by pixel with reference
// images built from the conventions of include/wr/wr.h alone (embree_reference.h).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "backend_under_test.h"
#include "embree_reference.h"
#include "embree_reference_scenes.h"

using namespace wr_test::embree_tests;  // the helpers of this test, shared with its headers

TEST_CASE("terrain with boxes matches Embree pixel by pixel", "[reference][embree]") {
  Terrain terrain;
  std::vector<PlacedBox> boxes;
  const Mesh mesh = make_terrain_scene(20240601u, &terrain, &boxes);
  SceneSpec spec;
  spec.name = "terrain";
  spec.configs = standard_configs(2.0f, 12.0f);
  spec.camera_pose = [&](Rng& rng, const SensorConfig& cfg, uint32_t env) {
    Isometry3d camera = Isometry3d::Identity();
    if (cfg.near_clip > 0.0f && env % 2 == 1) {
      // Close to a box (0.3 - 1.3 m beyond its bounding sphere) and looking at it, so the near
      // plane cuts through the box and the terrain or the box's far walls show behind it.
      const PlacedBox& box = boxes[rng.below(static_cast<uint32_t>(boxes.size()))];
      const double a = rng.uniform(-kPi, kPi);
      const Vector3d p =
          box.centre + (box.half.norm() + rng.uniform(0.3, 1.3)) * Vector3d(std::cos(a), std::sin(a), 0.0);
      camera.translation() = Vector3d(p.x(), p.y(), std::max(p.z(), terrain.height(p.x(), p.y()) + 0.3));
      camera.linear() = (AngleAxisd(a + kPi + rng.uniform(-0.2, 0.2), Vector3d::UnitZ()) *
                         AngleAxisd(rng.uniform(-0.3, 0.3), Vector3d::UnitY()) *
                         AngleAxisd(rng.uniform(-0.5, 0.5), Vector3d::UnitX()))
                            .toRotationMatrix();
      return camera;
    }
    const double x = rng.uniform(4, 26), y = rng.uniform(4, 26);
    camera.translation() = Vector3d(x, y, terrain.height(x, y) + rng.uniform(0.4, 3.0));
    camera.linear() = camera_orientation(rng, env);
    return camera;
  };
  run_scene(spec, mesh, 7u);
}

TEST_CASE("closed subdivided room matches Embree and no ray escapes", "[reference][embree]") {
  const Mesh mesh = make_room_scene();
  SceneSpec spec;
  spec.name = "room";
  spec.configs = standard_configs(1.0f, 6.0f);
  spec.enclosed = true;
  spec.expect_seen_behind_near = false;  // behind a clipped wall there is only the outside
  spec.camera_pose = [](Rng& rng, const SensorConfig& cfg, uint32_t env) {
    Isometry3d camera = Isometry3d::Identity();
    const double margin = 0.4;
    for (int a = 0; a < 3; ++a) camera.translation()[a] = rng.uniform(kRoomMin[a] + margin, kRoomMax[a] - margin);
    if (cfg.near_clip > 0.0f && env % 2 == 1) {
      // Right next to a wall (0.4 - 0.9 m) and facing it, so the near plane cuts it away.
      const int axis = static_cast<int>(rng.below(2));
      const bool high = rng.below(2) == 1;
      camera.translation()[axis] =
          high ? kRoomMax[axis] - rng.uniform(0.4, 0.9) : kRoomMin[axis] + rng.uniform(0.4, 0.9);
      const double yaw = (axis == 0 ? 0.0 : kPi / 2) + (high ? 0.0 : kPi) + rng.uniform(-0.3, 0.3);
      camera.linear() = (AngleAxisd(yaw, Vector3d::UnitZ()) * AngleAxisd(rng.uniform(-0.3, 0.3), Vector3d::UnitY()))
                            .toRotationMatrix();
      return camera;
    }
    camera.linear() = camera_orientation(rng, env);
    return camera;
  };
  run_scene(spec, mesh, 11u);
}

TEST_CASE("triangle soup with slivers and degenerate triangles matches Embree", "[reference][embree]") {
  uint64_t num_degenerate = 0;
  const Mesh mesh = make_soup_scene(424242u, &num_degenerate);
  REQUIRE(num_degenerate == 400);
  SceneSpec spec;
  spec.name = "soup";
  spec.configs = standard_configs(1.5f, 10.0f);
  spec.camera_pose = [](Rng& rng, const SensorConfig&, uint32_t env) {
    Isometry3d camera = Isometry3d::Identity();
    for (int a = 0; a < 3; ++a) camera.translation()[a] = rng.uniform(2.0, kSoupSize - 2.0);
    camera.linear() = camera_orientation(rng, env);
    return camera;
  };
  run_scene(spec, mesh, 13u);
}

// Rays through zero-area triangles. The camera sits at an exact position with an exactly
// representable rotation (quaternions with small integer components: their normalised rotation
// matrices have entries 0 and +-1 exactly), fx = fy = 64 and a centred principal point, so the
// unnormalised pixel ray (1, a, b) has exact components and the point X = org + t * R (1, a, b),
// t a power of two, is exact: every pixel's ray passes through the X placed for it, up to the
// rounding of the library's own normalised direction (exactly, for the centre pixel of the odd
// sized image, whose ray is an axis). Each pixel gets a zero-area triangle through its X
// (exactly collinear vertices, repeated indices, coincident vertices); none may be hit. As a
// control, the same layout with every triangle given a small real area must be hit at every
// pixel at plane depth t: the rays really do go through those points.
TEST_CASE("zero-area triangles are never hit, even by rays through them", "[reference][embree]") {
  constexpr uint32_t kW = 65, kH = 49, kEnvs = 3;
  const float kF = 64.0f;
  // Body poses: identity at the origin; yawed by 180 degrees (non-unit quaternion (0,0,0,2))
  // at an exact offset; pitched by 90 degrees to look straight down (quaternion (1,0,1,0)).
  const float poses[kEnvs][7] = {{0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f},
                                 {0.5f, -0.25f, 0.125f, 0.0f, 0.0f, 0.0f, 2.0f},
                                 {-1.0f, 2.0f, 40.0f, 1.0f, 0.0f, 1.0f, 0.0f}};
  Rng rng(99u);
  Mesh degenerate, control;
  std::vector<float> expected_depth;  // (kEnvs x kH x kW), the control's plane depth
  for (uint32_t env = 0; env < kEnvs; ++env) {
    const Isometry3d body = read_pose(poses[env], WR_QUAT_WXYZ);
    for (uint32_t v = 0; v < kH; ++v)
      for (uint32_t u = 0; u < kW; ++u) {
        const double t = 4.0 * (1u << ((u + 2 * v) % 3));  // 4, 8 or 16 m
        const Vector3d ray(1.0, -(u + 0.5 - kW / 2.0) / kF, -(v + 0.5 - kH / 2.0) / kF);
        // Exact values are multiples of 1/32; snapping drops the 1e-16 noise of the double
        // rotation matrix, so that x and the vertices built from it are exact in float.
        const Vector3d x_raw = body.translation() + t * (body.linear() * ray);
        const Vector3d x = (x_raw * 1024.0).array().round().matrix() / 1024.0;
        // Small offsets with components k / 512 (exact), kept below half a pixel footprint.
        auto offset = [&] {
          for (;;) {
            const Vector3d e(rng.below(9) - 4.0, rng.below(9) - 4.0, rng.below(9) - 4.0);
            if (e.squaredNorm() >= 4.0) return Vector3d(e / 512.0);
          }
        };
        // e and f drawn together until the control triangle (spanned by e and f) faces the
        // ray at 72 degrees or less from its normal: a pair is accepted with fair probability.
        Vector3d e, f;
        do {
          e = offset(), f = offset();
        } while (e.cross(f).norm() < 2.0 / (512.0 * 512.0) ||
                 std::abs(e.cross(f).normalized().dot(body.linear() * ray.normalized())) < 0.3);
        // Zero-area triangles through x (every vertex exact in float, so exactly zero area).
        switch ((u + v) % 5) {
          case 0:
            degenerate.add_degenerate_triangle(degenerate.add_vertex(x - e), degenerate.add_vertex(x + e),
                                               degenerate.add_vertex(x));
            break;
          case 1:
            degenerate.add_degenerate_triangle(degenerate.add_vertex(x + 2.0 * e), degenerate.add_vertex(x - e),
                                               degenerate.add_vertex(x + e));
            break;
          case 2: {
            const uint32_t a = degenerate.add_vertex(x - e), b = degenerate.add_vertex(x + e);
            degenerate.add_degenerate_triangle(a, a, b);
            break;
          }
          case 3: {
            const uint32_t a = degenerate.add_vertex(x);
            degenerate.add_degenerate_triangle(a, a, a);
            break;
          }
          default:
            degenerate.add_degenerate_triangle(degenerate.add_vertex(x), degenerate.add_vertex(x),
                                               degenerate.add_vertex(x));
            break;
        }
        // Control: a real triangle whose interior contains x (x = centroid-ish, off every edge).
        control.triangle(control.add_vertex(x - e - f), control.add_vertex(x + e - f), control.add_vertex(x + f));
        expected_depth.push_back(static_cast<float>(t));
      }
  }
  LibraryScene lib;
  REQUIRE(wr_test::create_backend_context(0, &lib.context) == WR_SUCCESS);
  wr_camera_desc desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.struct_size = sizeof(desc);
  desc.width = kW, desc.height = kH, desc.fx = kF, desc.fy = kF, desc.cx = kW / 2.0f, desc.cy = kH / 2.0f;
  desc.near_clip = 0.0f, desc.far_clip = kInf, desc.miss_value = kInf;
  desc.depth_kind = WR_DEPTH_PLANE, desc.quat_order = WR_QUAT_WXYZ;
  desc.mount_rotation[0] = 1.0f;

  auto render = [&](const Mesh& mesh) {
    wr_scene scene = nullptr;
    const wr_status s = wr_scene_create(lib.context, mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(),
                                        mesh.num_triangles(), &scene);
    INFO("wr_scene_create: " << wr_status_string(s) << " " << wr_last_error());
    REQUIRE(s == WR_SUCCESS);
    wr_sensor sensor = nullptr;
    const wr_status c = wr_sensor_create(scene, &desc, kEnvs, &sensor);
    wr_scene_release(scene);
    INFO("wr_sensor_create: " << wr_status_string(c) << " " << wr_last_error());
    REQUIRE(c == WR_SUCCESS);
    std::vector<float> depth(kEnvs * kW * kH, -12345.0f);
    const wr_status r = wr_test::render_on_backend(sensor, &poses[0][0], kEnvs * 7, depth.data(), depth.size());
    wr_sensor_release(sensor);
    INFO("wr_sensor_render: " << wr_status_string(r) << " " << wr_last_error());
    REQUIRE(r == WR_SUCCESS);
    return depth;
  };

  SECTION("control: the same layout with real triangles is hit at every pixel at depth t") {
    const std::vector<float> depth = render(control);
    uint64_t wrong = 0;
    std::ostringstream first;
    for (size_t k = 0; k < depth.size(); ++k) {
      if (std::abs(depth[k] - expected_depth[k]) <= kTightRelTol * expected_depth[k]) continue;
      if (wrong++ < 10)
        first << "\n  env " << k / (kW * kH) << " (" << k % kW << ", " << (k / kW) % kH << "): " << depth[k] << " vs "
              << expected_depth[k];
    }
    INFO("pixels not at their control triangle's depth:" << first.str());
    CAPTURE(wrong);
    REQUIRE(wrong == 0);
  }
  SECTION("zero-area triangles through every pixel's ray: nothing is hit") {
    REQUIRE(degenerate.reference_indices.empty());
    const std::vector<float> depth = render(degenerate);
    uint64_t hits = 0;
    std::ostringstream first;
    for (size_t k = 0; k < depth.size(); ++k) {
      if (std::isinf(depth[k]) && depth[k] > 0) continue;
      const uint32_t u = k % kW, v = (k / kW) % kH;
      if (hits++ < 10)
        first << "\n  env " << k / (kW * kH) << " (" << u << ", " << v << "), triangle type " << (u + v) % 5 << ": "
              << depth[k];
    }
    INFO(
        "pixels that hit a zero-area triangle (types: 0, 1 collinear; 2 repeated index; 3 one vertex thrice; "
        "4 coincident vertices):"
        << first.str());
    CAPTURE(hits);
    REQUIRE(hits == 0);
  }
}
