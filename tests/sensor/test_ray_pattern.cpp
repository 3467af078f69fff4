// Ray patterns (wr_pattern_create, src/sensor/ray_pattern.cpp) against the peers' published formulas,
// reimplemented here in double: IsaacLab's grid_pattern (GridPatternCfg(resolution=0.1, size=[1.6,
// 1.0]): 187 rays, both orderings) and mjlab's GridPatternCfg count, IsaacLab's lidar_pattern (16
// channels, +-15 degrees, 0.2 degrees, over 360 and 120 degrees) and bpearl_pattern
// (isaaclab/sensors/ray_caster/patterns/patterns.py; mjlab/sensor/raycast_sensor.py); a table kept
// as given; a rosette within its cone.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "backend_under_test.h"
#include "c_api_world.h"
#include "pattern_test_support.h"

using namespace wr_test::c_api;
using namespace wr_test::patterns;

TEST_CASE("a grid pattern is IsaacLab's grid_pattern: 187 rays for 1.6 x 1.0 at 0.1, in both orderings") {
  for (const wr_grid_ordering ordering : {WR_GRID_XY, WR_GRID_IJ}) {
    wr_pattern_desc d = grid_desc(1.6, 1.0, 0.1);
    d.grid_ordering = ordering;
    const Pattern p(d);
    REQUIRE(p.size() == 187);
    std::vector<float> starts, dirs;
    p.rays(&starts, &dirs);
    // grid_pattern: x = arange(-size[0]/2, size[0]/2 + 1e-9, res), y likewise,
    // meshgrid(x, y, indexing=ordering), starts (x, y, 0), directions (0, 0, -1).
    const std::vector<float> x = arange(-0.8, 0.8 + 1e-9, 0.1), y = arange(-0.5, 0.5 + 1e-9, 0.1);
    REQUIRE(x.size() == 17);
    REQUIRE(y.size() == 11);
    for (size_t i = 0; i < x.size(); ++i)
      for (size_t j = 0; j < y.size(); ++j) {
        const size_t r = ordering == WR_GRID_XY ? j * x.size() + i : i * y.size() + j;
        INFO("ray " << r);
        CHECK(starts[3 * r] == x[i]);
        CHECK(starts[3 * r + 1] == y[j]);
        CHECK(starts[3 * r + 2] == 0.0f);
        CHECK(dirs[3 * r] == 0.0f);
        CHECK(dirs[3 * r + 1] == 0.0f);
        CHECK(dirs[3 * r + 2] == -1.0f);
      }
  }
}

TEST_CASE("a grid pattern counts its samples by IsaacLab's or mjlab's rule") {
  for (const double size : {0.0, 0.3, 0.35, 1.0, 1.6, 2.05})
    for (const double res : {0.05, 0.1, 0.15, 0.4}) {
      for (const wr_grid_count_rule rule : {WR_GRID_COUNT_ISAACLAB, WR_GRID_COUNT_MJLAB}) {
        wr_pattern_desc d = grid_desc(size, 0.0, res);
        d.grid_count_rule = rule;
        const Pattern p(d);
        // IsaacLab: arange(-s/2, s/2 + 1e-9, res); mjlab: arange(-s/2, s/2 + res * 0.5, res).
        const double end = rule == WR_GRID_COUNT_MJLAB ? size / 2 + res * 0.5 : size / 2 + 1e-9;
        const std::vector<float> x = arange(-size / 2, end, res);
        INFO("size " << size << " at " << res << ", rule " << int(rule));
        REQUIRE(p.size() == x.size());
        std::vector<float> starts, dirs;
        p.rays(&starts, &dirs);
        for (size_t i = 0; i < x.size(); ++i) CHECK(starts[3 * i] == x[i]);
      }
    }
}

TEST_CASE("a grid normal to a slanted direction lies across it, and along -Z both planes agree") {
  wr_pattern_desc d = grid_desc(0.4, 0.2, 0.1);
  d.grid_plane = WR_GRID_PLANE_NORMAL;
  const Pattern down(d);
  d.grid_plane = WR_GRID_PLANE_XY;
  const Pattern xy(d);
  std::vector<float> s1, d1, s2, d2;
  down.rays(&s1, &d1);
  xy.rays(&s2, &d2);
  CHECK(s1 == s2);
  CHECK(d1 == d2);
  d.grid_plane = WR_GRID_PLANE_NORMAL;
  d.grid_direction[0] = 1.0f, d.grid_direction[1] = 0.0f, d.grid_direction[2] = -1.0f;  // 45 degrees down
  const Pattern slanted(d);
  slanted.rays(&s1, &d1);
  const double c = std::sqrt(0.5);
  for (uint32_t r = 0; r < slanted.size(); ++r) {
    INFO("ray " << r);
    // Every start lies in the plane normal to the direction, and the rays keep their spacing.
    CHECK(std::fabs(s1[3 * r] * c - s1[3 * r + 2] * c) < 1e-6);
    CHECK(d1[3 * r] == Approx(c));
    CHECK(d1[3 * r + 2] == Approx(-c));
  }
  // (sqrt, not std::hypot: see norm_xy in test_pattern_alignment.cpp)
  const double dx = s1[3] - s1[0], dy = s1[4] - s1[1], dz = s1[5] - s1[2];
  CHECK(std::sqrt(dx * dx + dy * dy + dz * dz) == Approx(0.1).epsilon(1e-6));
}

TEST_CASE("a spherical pattern is IsaacLab's lidar_pattern: 16 channels at 0.2 degrees over 360 and 120 degrees") {
  for (const double fov : {360.0, 120.0}) {
    const Pattern p(lidar_desc(16, -15.0, 15.0, -fov / 2, fov / 2, 0.2));
    // lidar_pattern: vertical = linspace(v0, v1, channels); n = ceil((h1 - h0) / res) + 1,
    // horizontal = linspace(h0, h1, n), the last dropped where |h1 - h0| is 360; meshgrid(v, h, "ij").
    const std::vector<double> v = linspace(-15.0, 15.0, 16);
    std::vector<double> h = linspace(-fov / 2, fov / 2, size_t(std::ceil(fov / 0.2)) + 1);
    if (fov == 360.0) h.pop_back();
    INFO(fov << " degrees");
    REQUIRE(p.size() == v.size() * h.size());
    if (fov == 360.0) CHECK(p.size() == 28800u);
    std::vector<float> starts, dirs;
    p.rays(&starts, &dirs);
    for (size_t c = 0; c < v.size(); ++c)
      for (size_t a = 0; a < h.size(); ++a) {
        const size_t r = c * h.size() + a;
        const double e = v[c] * kDeg, z = h[a] * kDeg;
        const double want[3] = {std::cos(e) * std::cos(z), std::cos(e) * std::sin(z), std::sin(e)};
        for (int k = 0; k < 3; ++k) {
          INFO("ray " << r << " axis " << k);
          CHECK(std::fabs(dirs[3 * r + k] - want[k]) <= 1e-7);
          CHECK(starts[3 * r + k] == 0.0f);
        }
      }
  }
}

TEST_CASE("explicit elevations and azimuth-major order give IsaacLab's bpearl_pattern") {
  // bpearl_pattern: h = arange(-fov/2, fov/2, res); v = the given angles; meshgrid(v, h, "xy")
  // (h outer); pitch = v + 90 degrees; direction = -(sin p cos h, sin p sin h, cos p).
  const std::vector<float> angles = {89.5f, 86.6875f, 83.875f, 81.0625f, 78.25f, 2.5f, -0.3125f};
  wr_pattern_desc d = lidar_desc(uint32_t(angles.size()), 0, 0, 0.0, 360.0, 10.0);
  d.vertical_angles = angles.data();
  d.spherical_order = WR_SPHERICAL_AZIMUTH_MAJOR;
  const Pattern p(d);  // azimuths 0 .. 350: bpearl's h + 180 degrees
  const std::vector<float> h = arange(-180.0, 180.0, 10.0);
  REQUIRE(p.size() == h.size() * angles.size());
  std::vector<float> starts, dirs;
  p.rays(&starts, &dirs);
  for (size_t a = 0; a < h.size(); ++a)
    for (size_t c = 0; c < angles.size(); ++c) {
      const size_t r = a * angles.size() + c;
      const double pitch = (double(angles[c]) + 90.0) * kDeg, yaw = double(h[a]) * kDeg;
      const double want[3] = {-std::sin(pitch) * std::cos(yaw), -std::sin(pitch) * std::sin(yaw), -std::cos(pitch)};
      for (int k = 0; k < 3; ++k) {
        INFO("ray " << r << " axis " << k);
        CHECK(std::fabs(dirs[3 * r + k] - want[k]) <= 2e-7);
      }
    }
}

TEST_CASE("a table pattern keeps the caller's rays, its directions made unit") {
  const std::vector<float> dirs = {1, 0, 0, 0, 3, 4, 0, 0, -2}, starts = {0.1f, 0, 0, 0, 0.2f, 0, 0, 0, 0.3f};
  wr_pattern_desc d;
  wr_pattern_desc_init(&d);
  d.kind = WR_PATTERN_TABLE;
  d.table_count = 3;
  d.table_directions = dirs.data();
  d.table_starts = starts.data();
  const Pattern p(d);
  std::vector<float> s, u;
  p.rays(&s, &u);
  CHECK(s == starts);
  CHECK(u == std::vector<float>{1, 0, 0, 0, 0.6f, 0.8f, 0, 0, -1});
}

TEST_CASE("a rosette stays within its cone and does not repeat") {
  wr_pattern_desc d;
  wr_pattern_desc_init(&d);
  d.kind = WR_PATTERN_ROSETTE;
  d.rosette_fov = 38.4;
  d.rosette_count = 20000;
  d.rosette_revolutions[0] = 0.0121, d.rosette_revolutions[1] = -0.0077;
  const Pattern p(d);
  REQUIRE(p.size() == 20000);
  std::vector<float> starts, dirs;
  p.rays(&starts, &dirs);
  double widest = 0;
  for (uint32_t r = 0; r < p.size(); ++r) {
    // The two deflections add up to at most fov / 2 from +X (on the sphere, a little less).
    const double angle = std::acos(std::min(1.0, double(dirs[3 * r]))) / kDeg;
    widest = std::max(widest, angle);
    CHECK(starts[3 * r] == 0.0f);
  }
  CHECK(widest <= 19.2 + 1e-4);
  CHECK(widest > 18.0);  // the rosette reaches out to its rim
  // No two rays of the first thousand point the same way.
  size_t same = 0;
  for (uint32_t a = 0; a < 1000; ++a)
    for (uint32_t b = a + 1; b < 1000; ++b)
      same += dirs[3 * a] == dirs[3 * b] && dirs[3 * a + 1] == dirs[3 * b + 1] && dirs[3 * a + 2] == dirs[3 * b + 2];
  CHECK(same == 0u);
  d.rosette_fov = 180.0;
  wr_pattern bad = nullptr;
  EXPECT_FAIL(wr_pattern_create(&d, &bad), WR_ERROR_INVALID_ARGUMENT, "wr_pattern_create", "desc->rosette_fov");
}
