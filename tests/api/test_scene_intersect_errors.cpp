// Every error path of wr_scene_intersect, with sentinel-filled outputs that a failure must leave
// untouched, and the edge values it must accept. Part of the executable test_scene_intersect.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "float_bits.h"
#include "random_scenes.h"
#include "scene_intersect_brute_force.h"

using namespace wr_test::scene_intersect;

namespace {

// ---- the message check ---------------------------------------------------------------------

void expect_error(wr_status got, const std::initializer_list<std::string>& parts) {
  const std::string m = wr_last_error();
  INFO("wr_last_error() = \"" << m << "\"");
  CHECK(got == WR_ERROR_INVALID_ARGUMENT);
  CHECK(m.rfind("wr_scene_intersect:", 0) == 0);
  for (const std::string& p : parts) {
    INFO("expected substring \"" << p << "\"");
    CHECK(m.find(p) != std::string::npos);
  }
}

}  // namespace

// ---- error paths -------------------------------------------------------------------------------

TEST_CASE("intersect: every error path names the culprit and writes nothing", "[intersect][errors]") {
  const wr_test::SoupScene soup = wr_test::random_soup(25, 200);
  Scene scene(soup, 2);
  const size_t n = 10;
  Rays rays = soup_rays(soup, n, 8);
  std::vector<float> tmax(n, 100.0f);
  constexpr float kSentinelT = -12345.0f;
  constexpr uint32_t kSentinelId = 0xDEADBEEFu;
  std::vector<float> t(n, kSentinelT);
  std::vector<uint32_t> tri(n, kSentinelId);
  auto untouched = [&] {
    for (size_t i = 0; i < n; ++i)
      if (!same_bits(t[i], kSentinelT) || tri[i] != kSentinelId) return false;
    return true;
  };
  auto run = [&](const Rays& rs, const float* tm, uint64_t count) {
    return wr_scene_intersect(scene.scene, rs.o.data(), rs.d.data(), tm, count, t.data(), tri.data(), nullptr);
  };

  SECTION("NULL arguments and count 0") {
    expect_error(wr_scene_intersect(nullptr, rays.o.data(), rays.d.data(), nullptr, n, t.data(), tri.data(), nullptr),
                 {"scene"});
    CHECK(untouched());
    expect_error(wr_scene_intersect(scene.scene, nullptr, rays.d.data(), nullptr, n, t.data(), tri.data(), nullptr),
                 {"origins"});
    CHECK(untouched());
    expect_error(wr_scene_intersect(scene.scene, rays.o.data(), nullptr, nullptr, n, t.data(), tri.data(), nullptr),
                 {"directions"});
    CHECK(untouched());
    expect_error(
        wr_scene_intersect(scene.scene, rays.o.data(), rays.d.data(), nullptr, n, nullptr, tri.data(), nullptr),
        {"out_t"});
    CHECK(untouched());
    expect_error(
        wr_scene_intersect(scene.scene, rays.o.data(), rays.d.data(), nullptr, 0, t.data(), tri.data(), nullptr),
        {"count"});
    CHECK(untouched());
  }
  SECTION("an array not aligned to 4 bytes is named, and nothing is written") {
    wr_test::MisalignedCopy<float> o(rays.o), d(rays.d), tm(tmax), out_t(t);
    wr_test::MisalignedCopy<uint32_t> out_tri(tri);
    const std::vector<unsigned char> out_t_bytes = out_t.bytes(), out_tri_bytes = out_tri.bytes();
    expect_error(wr_scene_intersect(scene.scene, o.get(), rays.d.data(), nullptr, n, t.data(), tri.data(), nullptr),
                 {"origins", "aligned"});
    expect_error(wr_scene_intersect(scene.scene, rays.o.data(), d.get(), nullptr, n, t.data(), tri.data(), nullptr),
                 {"directions", "aligned"});
    expect_error(
        wr_scene_intersect(scene.scene, rays.o.data(), rays.d.data(), tm.get(), n, t.data(), tri.data(), nullptr),
        {"tmax", "aligned"});
    CHECK(untouched());
    expect_error(
        wr_scene_intersect(scene.scene, rays.o.data(), rays.d.data(), nullptr, n, out_t.get(), tri.data(), nullptr),
        {"out_t", "aligned"});
    expect_error(
        wr_scene_intersect(scene.scene, rays.o.data(), rays.d.data(), nullptr, n, t.data(), out_tri.get(), nullptr),
        {"out_triangle", "aligned"});
    CHECK(untouched());
    CHECK(out_t.bytes() == out_t_bytes);
    CHECK(out_tri.bytes() == out_tri_bytes);
  }
  SECTION("a non-finite origin names the ray") {
    for (const float bad : {kNaN, kInf, -kInf}) {
      for (const int axis : {0, 2}) {
        Rays rs = rays;
        rs.o[3 * 9 + axis] = bad;  // the last ray: every earlier one would already be written
        expect_error(run(rs, nullptr, n), {"ray 9", "origins"});
        CHECK(untouched());
      }
    }
  }
  SECTION("a zero or non-finite direction names the ray") {
    Rays rs = rays;
    rs.d[3 * 7] = rs.d[3 * 7 + 1] = rs.d[3 * 7 + 2] = 0.0f;
    expect_error(run(rs, nullptr, n), {"ray 7", "directions", "zero"});
    CHECK(untouched());
    rs.d[3 * 7 + 2] = -0.0f;  // still zero
    expect_error(run(rs, nullptr, n), {"ray 7", "directions"});
    CHECK(untouched());
    Rays inf_dir = rays;
    inf_dir.d[3 * 4 + 1] = kInf;
    expect_error(run(inf_dir, nullptr, n), {"ray 4", "directions"});
    CHECK(untouched());
    Rays nan_dir = rays;
    nan_dir.d[3 * 6] = kNaN;
    expect_error(run(nan_dir, nullptr, n), {"ray 6", "directions"});
    CHECK(untouched());
  }
  SECTION("a negative or NaN tmax names the ray") {
    std::vector<float> tm = tmax;
    tm[8] = -0.5f;
    expect_error(run(rays, tm.data(), n), {"ray 8", "tmax"});
    CHECK(untouched());
    tm[8] = -kInf;
    expect_error(run(rays, tm.data(), n), {"ray 8", "tmax"});
    CHECK(untouched());
    tm[8] = kNaN;
    expect_error(run(rays, tm.data(), n), {"ray 8", "tmax"});
    CHECK(untouched());
    // With out_triangle NULL, out_t is still left alone.
    expect_error(
        wr_scene_intersect(scene.scene, rays.o.data(), rays.d.data(), tm.data(), n, t.data(), nullptr, nullptr),
        {"ray 8", "tmax"});
    CHECK(untouched());
  }
  SECTION("the first bad ray is the one named") {
    Rays rs = rays;
    rs.o[3 * 3 + 1] = kNaN;
    rs.d[3 * 5] = rs.d[3 * 5 + 1] = rs.d[3 * 5 + 2] = 0.0f;
    expect_error(run(rs, nullptr, n), {"ray 3"});
    CHECK(untouched());
    // Counting only the rays before the bad ones, the call succeeds.
    REQUIRE_OK(run(rs, nullptr, 3));
    CHECK(!untouched());
    CHECK(same_bits(t[3], kSentinelT));  // past count: untouched
  }
  SECTION("valid edge values are accepted: tmax +inf and 0, directions tiny and huge") {
    std::vector<float> tm(n, kInf);
    tm[2] = 0.0f;
    Rays rs = rays;
    for (int a = 0; a < 3; ++a) {
      rs.d[3 * 1 + a] *= 1e-20f;
      rs.d[3 * 2 + a] *= 1e20f;
    }
    REQUIRE_OK(run(rs, tm.data(), n));
    CHECK(tri[2] == kNoHit);
    CHECK(same_bits(t[2], kInf));
  }
}
