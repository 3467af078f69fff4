// The depth sensor against closed-form geometry, through the public C API (libwr.so) only: a
// plane, the inside of a closed box, image orientation and principal point, zero-area triangles
// and watertightness at shared vertices and edges. The conventions every expected value is
// computed from are in sensor_image_check.h; poses (tests/sensor/test_sensor_poses.cpp) and clipping,
// batching and threads (tests/sensor/test_sensor_clip_batch_threads.cpp) are tested next to this file.
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

// -------------------------------------------------------------------------------------------------
// 1. A horizontal plane, every pixel against the closed form t = h / -d_world.z.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: horizontal plane matches the closed form at every pixel", "[sensor][plane]") {
  Mesh plane;  // z = 0, x and y in [-100, 100], 20 x 20 quads
  add_quad(plane, Vector3d(-100, -100, 0), Vector3d(200, 0, 0), Vector3d(0, 200, 0), 20, 20);
  const Scene scene = make_scene(plane);
  const double h = 1.3;

  struct Case {
    const char* name;
    Pose pose;
    bool expect_sky;  // some pixel rays point upwards
  };
  const Case cases[] = {
      {"pitched down 35 deg", {Vector3d(0.4, -0.7, h), ypr(0, 35, 0)}, false},
      {"pitched down 35 deg, roll 20 deg, yaw 60 deg", {Vector3d(-3.1, 2.2, h), ypr(60, 35, 20)}, true},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      const std::vector<float> poses = pose_floats({c.pose}, WR_QUAT_WXYZ);
      std::vector<float> images[2];
      for (wr_depth_kind kind : {WR_DEPTH_PLANE, WR_DEPTH_RANGE}) {
        INFO((kind == WR_DEPTH_PLANE ? "WR_DEPTH_PLANE" : "WR_DEPTH_RANGE"));
        // Defaults of wr_camera_desc_pinhole: near 0, far +inf, miss +inf.
        wr_camera_desc desc;
        wr_camera_desc_pinhole(&desc, 106, 60, 87.0f);
        desc.depth_kind = kind;
        REQUIRE(std::isinf(desc.miss_value));
        images[kind] = render(scene.get(), desc, poses);
        long sky = 0;
        const Report r = check_image(images[kind], desc, poses,
                                     [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
                                       if (dw.z() >= 0) ++sky;
                                       return square_truth(cam.t, dw, 2, 0.0, 0.0, 0.0, 100.0);
                                     });
        CHECK_REPORT(r);
        CHECK(r.hits > 106 * 60 / 2);
        CHECK(r.unsure < 106 * 60 / 50);
        if (c.expect_sky) {
          CHECK(sky > 0);
        } else {
          CHECK(sky == 0);
        }
      }
      // PLANE = RANGE * d_cam.x at every pixel, misses in the same places.
      wr_camera_desc desc;
      wr_camera_desc_pinhole(&desc, 106, 60, 87.0f);
      Report r;
      for (uint32_t v = 0; v < 60; ++v) {
        for (uint32_t u = 0; u < 106; ++u) {
          const float plane_depth = images[0][v * 106 + u], range_depth = images[1][v * 106 + u];
          if (std::isinf(plane_depth) || std::isinf(range_depth)) {
            ++r.misses;
            if (plane_depth != range_depth)
              r.fail("pixel " + std::to_string(u) + "," + std::to_string(v) + ": only one kind misses");
            continue;
          }
          ++r.hits;
          const double want = double(range_depth) * ray_cam(desc, u, v).x();
          if (!(std::fabs(plane_depth - want) <= 1e-6 * want))
            r.fail("pixel " + std::to_string(u) + "," + std::to_string(v) + ": plane " + std::to_string(plane_depth) +
                   " vs range * d_cam.x " + std::to_string(want));
        }
      }
      CHECK_REPORT(r);
    }
  }
}

// -------------------------------------------------------------------------------------------------
// 2. Inside a closed box: no pixel misses, every depth is the slab exit distance.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: inside a closed box every pixel hits the wall at the slab exit distance", "[sensor][box]") {
  const Vector3d lo(-3.75, -2.25, -0.5), hi(6.25, 3.75, 3.5);  // 10 x 6 x 4 m, dyadic bounds
  Mesh box;
  add_box(box, lo, hi, 50);
  REQUIRE(box.num_triangles() == 6u * 50 * 50 * 2);
  const Scene scene = make_scene(box);

  std::mt19937 rng(20240611);
  std::vector<Pose> poses;
  const Vector3d margin = Vector3d::Constant(0.5);
  auto place = [&] { return random_in(rng, lo + margin, hi - margin); };
  poses.push_back({place(), ypr(0, 90, 0)});       // straight down
  poses.push_back({place(), ypr(0, -90, 0)});      // straight up
  poses.push_back({place(), ypr(37, 90, 0)});      // down, yawed
  poses.push_back({place(), ypr(-120, -90, 25)});  // up, yawed and rolled
  poses.push_back({place(), ypr(0, 0, 0)});        // level, identity
  poses.push_back({place(), ypr(180, 0, 90)});     // facing -X on its side
  while (poses.size() < 30) poses.push_back({place(), random_rotation(rng)});
  const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);

  for (wr_depth_kind kind : {WR_DEPTH_RANGE, WR_DEPTH_PLANE}) {
    INFO((kind == WR_DEPTH_PLANE ? "WR_DEPTH_PLANE" : "WR_DEPTH_RANGE"));
    wr_camera_desc desc = pinhole(64, 48, 90.0f, kind, -1.0f);  // far = +inf: nothing can be clipped
    REQUIRE(std::isinf(desc.far_clip));
    const std::vector<float> img = render(scene.get(), desc, pf);
    // The camera is >= 0.5 m from every wall and no wall is longer than 10 m, so a ray meets the
    // wall it leaves through at incidence cos >= 0.5 / 11.5 and 1e-4 covers float rounding.
    const Report r = check_image(img, desc, pf, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
      return hit(box_exit(cam.t, dw, lo, hi), 1e-4);
    });
    CHECK_REPORT(r);
    CHECK(r.hits == 30L * 64 * 48);
    CHECK(std::count(img.begin(), img.end(), -1.0f) == 0);
  }
}

// -------------------------------------------------------------------------------------------------
// 3. Image orientation: left is left, up is up, and the principal point moves the image.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: image orientation and principal point", "[sensor][orientation]") {
  const uint32_t W = 64, H = 48;
  struct Case {
    const char* name;
    Pose body;
    Vector3d box_centre;            // world
    float dcx, dcy;                 // principal point offset from the image centre, pixels
    int region;                     // 0 left (u < W/2), 1 right, 2 top (v < H/2), 3 bottom, 4 none
    double centroid_u, centroid_v;  // expected centroid of the hit pixels (u, v), or NaN
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Case cases[] = {
      {"box left (+Y)", {Vector3d::Zero(), Quaterniond::Identity()}, Vector3d(5, 2, 0), 0, 0, 0, nan, nan},
      {"box right (-Y)", {Vector3d::Zero(), Quaterniond::Identity()}, Vector3d(5, -2, 0), 0, 0, 1, nan, nan},
      {"box above (+Z)", {Vector3d::Zero(), Quaterniond::Identity()}, Vector3d(5, 0, 1.5), 0, 0, 2, nan, nan},
      {"box below (-Z)", {Vector3d::Zero(), Quaterniond::Identity()}, Vector3d(5, 0, -1.5), 0, 0, 3, nan, nan},
      // Body yawed +90 deg: forward is world +Y, left is world -X.
      {"yawed body, box to its left", {Vector3d(1, 1, 0), ypr(90, 0, 0)}, Vector3d(-1, 6, 0), 0, 0, 0, nan, nan},
      // Body rolled +90 deg about +X: the camera's up is world -Y.
      {"rolled body, box above it", {Vector3d(0, 0, 2), ypr(0, 0, 90)}, Vector3d(5, -2, 2), 0, 0, 2, nan, nan},
      // Body pitched down 30 deg: the box 30 deg below the horizon is at the image centre.
      {"pitched body, box on its axis",
       {Vector3d(0, 0, 3), ypr(0, 30, 0)},
       Vector3d(6 * std::cos(deg(30)), 0, 3 - 6 * std::sin(deg(30))),
       0,
       0,
       4,
       31.5,
       23.5},
      // A box on the optical axis is imaged at the principal point (u + 0.5 = cx, v + 0.5 = cy).
      {"centred principal point", {Vector3d::Zero(), Quaterniond::Identity()}, Vector3d(5, 0, 0), 0, 0, 4, 31.5, 23.5},
      {"principal point right and up",
       {Vector3d::Zero(), Quaterniond::Identity()},
       Vector3d(5, 0, 0),
       12,
       -8,
       4,
       43.5,
       15.5},
      {"principal point left and down",
       {Vector3d::Zero(), Quaterniond::Identity()},
       Vector3d(5, 0, 0),
       -10.5f,
       6.25f,
       4,
       21.0,
       29.75},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      Mesh m;
      const Vector3d half = Vector3d::Constant(0.5);
      add_box(m, c.box_centre - half, c.box_centre + half, 2);
      const Scene scene = make_scene(m);
      wr_camera_desc desc = pinhole(W, H, 90.0f, WR_DEPTH_PLANE, -1.0f);
      desc.cx += c.dcx;
      desc.cy += c.dcy;
      const std::vector<float> pf = pose_floats({c.body}, WR_QUAT_WXYZ);
      const std::vector<float> img = render(scene.get(), desc, pf);

      const Report r = check_image(img, desc, pf, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
        return box_outside_truth(cam.t, dw, c.box_centre - half, c.box_centre + half);
      });
      CHECK_REPORT(r);
      CHECK(r.hits > 10);

      long hits = 0, outside = 0;
      double su = 0, sv = 0;
      for (uint32_t v = 0; v < H; ++v) {
        for (uint32_t u = 0; u < W; ++u) {
          if (img[v * W + u] == -1.0f) continue;
          ++hits;
          su += u;
          sv += v;
          const bool in = c.region == 0   ? u < W / 2
                          : c.region == 1 ? u >= W / 2
                          : c.region == 2 ? v < H / 2
                          : c.region == 3 ? v >= H / 2
                                          : true;
          outside += !in;
        }
      }
      CHECK(hits > 10);
      CHECK(outside == 0);
      if (!std::isnan(c.centroid_u) && hits > 0) {
        // The box's image is symmetric about the principal point (up to pixel quantisation).
        CHECK(su / hits == Approx(c.centroid_u).margin(0.5));
        CHECK(sv / hits == Approx(c.centroid_v).margin(0.5));
      }
    }
  }
}

// -------------------------------------------------------------------------------------------------
// 9. Zero-area triangles are never hit.
// -------------------------------------------------------------------------------------------------
namespace {

// `count` zero-area triangles with x in [x_lo, x_hi], y in [-4, 4], z in [z_lo, z_hi]: collinear
// corners, repeated indices, coincident vertices. Every coordinate is a multiple of 1/64 with few
// significant bits, so the float corners are exactly collinear (really zero area, not merely thin).
void add_degenerates(Mesh& m, std::mt19937& rng, int count, double x_lo, double x_hi, double z_lo, double z_hi,
                     bool flat = false) {
  auto grid = [&](double lo, double hi) {
    std::uniform_int_distribution<int> k(int(std::ceil(lo * 64)), int(std::floor(hi * 64)));
    return k(rng) / 64.0;
  };
  std::uniform_int_distribution<int> step(-32, 32), kind(0, 4);
  for (int i = 0; i < count; ++i) {
    const Vector3d p(grid(x_lo, x_hi), grid(-4, 4), flat ? z_lo : grid(z_lo, z_hi));
    Vector3d d(step(rng) / 64.0, step(rng) / 64.0, flat ? 0.0 : step(rng) / 64.0);
    if (d.isZero()) d = Vector3d(0, 0.5, 0);
    const uint32_t a = m.vertex(p), b = m.vertex(p + d);
    switch (kind(rng)) {
      case 0: m.triangle(a, b, m.vertex(p + 3 * d)); break;  // collinear, b in between
      case 1: m.triangle(a, m.vertex(p + 2 * d), b); break;  // collinear, other order
      case 2: m.triangle(a, a, b); break;                    // repeated index
      case 3: m.triangle(a, m.vertex(p), b); break;          // coincident distinct vertices
      default: m.triangle(b, b, b); break;                   // a point
    }
  }
}

}  // namespace

TEST_CASE("sensor: zero-area triangles are never hit", "[sensor][degenerate]") {
  // W, H odd and the principal point at the centre: the centre pixel's ray is exactly +X.
  const wr_camera_desc desc = pinhole(65, 49, 90.0f, WR_DEPTH_RANGE, -1.0f);
  REQUIRE(ray_cam(desc, 32, 24) == Vector3d(1, 0, 0));

  SECTION("a scene of zero-area triangles only renders all misses") {
    Mesh m;
    std::mt19937 rng(3);
    // On and across the optical axis: the centre ray runs along, and passes through, these.
    auto tri = [&](Vector3d a, Vector3d b, Vector3d c) { m.triangle(m.vertex(a), m.vertex(b), m.vertex(c)); };
    tri(Vector3d(1, 0, 0), Vector3d(2, 0, 0), Vector3d(3, 0, 0));
    tri(Vector3d(5, -1, 0), Vector3d(5, 0, 0), Vector3d(5, 1, 0));
    tri(Vector3d(5, 0, -1), Vector3d(5, 0, 1), Vector3d(5, 0, 0));
    tri(Vector3d(6, -1, -1), Vector3d(6, 0, 0), Vector3d(6, 2, 2));
    tri(Vector3d(4, -4, 0.5), Vector3d(4, 4, 0.5), Vector3d(4, 0, 0.5));  // a row of pixel rays crosses it
    add_degenerates(m, rng, 3000, 1.0, 9.0, -4.0, 4.0);
    const Scene scene = make_scene(m);
    std::vector<Pose> poses = {{Vector3d::Zero(), Quaterniond::Identity()},
                               {Vector3d(-1, 0.25, 0), ypr(10, 5, 0)},
                               {Vector3d(0, 0, 0), ypr(-20, -10, 30)},
                               {Vector3d(5, 0, 6), ypr(0, 90, 0)}};
    const std::vector<float> img = render(scene.get(), desc, pose_floats(poses, WR_QUAT_WXYZ));
    CHECK(std::count(img.begin(), img.end(), -1.0f) == long(img.size()));
  }

  SECTION("zero-area triangles mixed into a plane change nothing") {
    Mesh plane;  // z = -1.5, |x|, |y| <= 50
    add_quad(plane, Vector3d(-50, -50, -1.5), Vector3d(100, 0, 0), Vector3d(0, 100, 0), 10, 10);
    Mesh mixed;
    std::mt19937 rng(8);
    add_degenerates(mixed, rng, 500, 0.5, 9.0, -1.4, 1.0);         // between camera and plane
    add_degenerates(mixed, rng, 500, 0.5, 9.0, -1.5, -1.5, true);  // lying in the plane
    const uint32_t base = uint32_t(mixed.num_vertices());
    mixed.vertices.insert(mixed.vertices.end(), plane.vertices.begin(), plane.vertices.end());
    for (uint64_t t = 0; t < plane.num_triangles(); ++t) {
      mixed.triangle(base + plane.indices[3 * t], base + plane.indices[3 * t + 1], base + plane.indices[3 * t + 2]);
      if (t % 20 == 0) add_degenerates(mixed, rng, 10, 0.5, 9.0, -1.5, 0.5);  // interleaved in index order
    }
    const Scene alone = make_scene(plane), with_degenerates = make_scene(mixed);
    std::vector<Pose> poses = {{Vector3d::Zero(), ypr(0, 20, 0)},
                               {Vector3d(0.5, 0.25, 0), ypr(15, 35, -5)},
                               {Vector3d(2, -1, 0.5), ypr(-30, 60, 10)}};
    const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);
    const std::vector<float> a = render(alone.get(), desc, pf);
    const std::vector<float> b = render(with_degenerates.get(), desc, pf);
    CHECK(same_bits(a, b));
    const Report r = check_image(a, desc, pf, [&](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
      return square_truth(cam.t, dw, 2, -1.5, 0, 0, 50.0);
    });
    CHECK_REPORT(r);
    CHECK(r.hits > long(a.size()) / 2);
  }
}

// -------------------------------------------------------------------------------------------------
// 10. Watertightness: rays through shared vertices and edges never slip through.
// -------------------------------------------------------------------------------------------------
TEST_CASE("sensor: rays through shared vertices and edges never miss", "[sensor][watertight]") {
  // W = H = 65 and c = 32.5: pixel offsets u + 0.5 - cx are the integers -32..32, so with focal
  // length f a plane at distance D is sampled at multiples of D / f, chosen to land on the
  // vertices and edges of the meshes below (up to the float rounding of the ray, which is exactly
  // where a non-watertight triangle test lets rays through).
  auto desc_with_focal = [](float f, wr_depth_kind kind) {
    wr_camera_desc d = pinhole(65, 65, 90.0f, kind, -1.0f);
    d.fx = d.fy = f;
    d.cx = d.cy = 32.5f;
    return d;
  };
  const std::vector<Pose> facing_x = {{Vector3d(0, 0, 0), Quaterniond::Identity()},
                                      {Vector3d(0, 0.25, -0.5), Quaterniond::Identity()},
                                      {Vector3d(-2, 0.75, 0.25), Quaterniond::Identity()}};

  auto expect_no_miss = [](const std::vector<float>& img, const wr_camera_desc& desc, const std::vector<float>& pf,
                           const TruthFn& truth) {
    const Report r = check_image(img, desc, pf, truth);
    CHECK_REPORT(r);
    CHECK(r.misses == 0);
    CHECK(r.unsure == 0);
    CHECK(std::count(img.begin(), img.end(), -1.0f) == 0);
  };

  SECTION("a fan of triangles around a vertex on the optical axis") {
    Mesh m;
    add_fan(m, Vector3d(6, 0, 0), Vector3d::UnitY(), Vector3d::UnitZ(), 24, 40.0);
    const Scene scene = make_scene(m);
    for (wr_depth_kind kind : {WR_DEPTH_PLANE, WR_DEPTH_RANGE}) {
      // f = 24: the centre pixel's ray is the fan's axis; rows, columns and diagonals of pixels
      // run along the spokes at 0, 45, 90 ... deg.
      const wr_camera_desc desc = desc_with_focal(24.0f, kind);
      const std::vector<float> pf = pose_floats({facing_x[0]}, WR_QUAT_WXYZ);
      const std::vector<float> img = render(scene.get(), desc, pf);
      expect_no_miss(img, desc, pf, [](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
        return square_truth(cam.t, dw, 0, 6.0, 0, 0, 25.0);  // the fan covers this square
      });
    }
  }

  SECTION("a horizontal fan seen from straight above its centre") {
    Mesh m;
    add_fan(m, Vector3d(1.25, -0.75, 0), Vector3d::UnitX(), Vector3d::UnitY(), 16, 60.0);
    const Scene scene = make_scene(m);
    const wr_camera_desc desc = desc_with_focal(16.0f, WR_DEPTH_RANGE);
    const std::vector<Pose> poses = {{Vector3d(1.25, -0.75, 2), ypr(0, 90, 0)},
                                     {Vector3d(1.25, -0.75, 3.5), ypr(30, 90, 0)},
                                     {Vector3d(1.25, -0.75, 1), ypr(-45, 90, 0)}};
    const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);
    const std::vector<float> img = render(scene.get(), desc, pf);
    expect_no_miss(img, desc, pf, [](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
      return square_truth(cam.t, dw, 2, 0.0, 1.25, -0.75, 40.0);
    });
  }

  SECTION("a fine grid with every pixel ray through a vertex or along an edge") {
    Mesh m;  // x = 6, |y|, |z| <= 12, 96 x 96 quads of 0.25 m
    add_quad(m, Vector3d(6, -12, -12), Vector3d(0, 24, 0), Vector3d(0, 0, 24), 96, 96);
    const Scene scene = make_scene(m);
    // From x = 0 at distance 6: f = 24 samples every 0.25 m (every ray through a vertex), f = 48
    // every 0.125 m (vertices and edge midpoints, on both diagonals of the checkerboard).
    // From x = -2 the samples are 8 / f apart: f = 32 hits every vertex as well.
    for (float f : {24.0f, 48.0f, 32.0f}) {
      INFO("focal length " << f);
      const wr_camera_desc desc = desc_with_focal(f, WR_DEPTH_PLANE);
      const std::vector<float> pf = pose_floats(facing_x, WR_QUAT_WXYZ);
      const std::vector<float> img = render(scene.get(), desc, pf);
      expect_no_miss(img, desc, pf, [](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
        return square_truth(cam.t, dw, 0, 6.0, 0, 0, 12.0);
      });
    }
  }

  SECTION("a fine horizontal grid seen from straight above a vertex") {
    Mesh m;  // z = 0, |x|, |y| <= 10, 80 x 80 quads of 0.25 m
    add_quad(m, Vector3d(-10, -10, 0), Vector3d(20, 0, 0), Vector3d(0, 20, 0), 80, 80);
    const Scene scene = make_scene(m);
    // From 3 m up with f = 12 the samples are 0.25 m apart: every ray through a grid vertex.
    const wr_camera_desc desc = desc_with_focal(12.0f, WR_DEPTH_RANGE);
    const std::vector<Pose> poses = {{Vector3d(0.5, -1.25, 3), ypr(0, 90, 0)},
                                     {Vector3d(0.5, -1.25, 3), ypr(90, 90, 0)},
                                     {Vector3d(-0.25, 0.75, 1.5), ypr(180, 90, 0)}};
    const std::vector<float> pf = pose_floats(poses, WR_QUAT_WXYZ);
    const std::vector<float> img = render(scene.get(), desc, pf);
    expect_no_miss(img, desc, pf, [](uint32_t, const Rigid& cam, const Vector3d&, const Vector3d& dw) {
      return square_truth(cam.t, dw, 2, 0.0, 0, 0, 10.0);
    });
  }
}
