// wr_scene_create_heightfield against closed forms (wr.h's triangulation, which is MuJoCo's:
// engine_ray.c, mj_rayHfield, splits cell (c, r) along the diagonal from sample (c, r) to
// (c + 1, r + 1)), through wr_scene_intersect:
//   - a ray straight down meets the surface at the height of the cell's triangle under it, in
//     the triangle wr.h numbers, in either layout;
//   - the two layouts of one grid, and wr_scene_create of the grid triangulated by wr.h's
//     formulas, give the same hits bit for bit;
//   - with a base: the border walls up to the surface's edge and no higher, the bottom at
//     origin[2] - base_depth, nothing below it;
//   - every bad field is refused by name before anything is allocated, and no handle is written.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "c_api_world.h"
#include "splitmix64.h"

using namespace wr_test::c_api;

namespace {

// A grid of samples h[iy][ix] and where it lies.
struct Grid {
  uint32_t nx, ny;
  std::vector<float> h;  // (ny x nx), x fastest
  float sx = 0.3f, sy = 0.45f, z_scale = 0.8f, origin[3] = {-1.0f, 2.0f, 0.5f}, base = 0.0f;
  float at(uint32_t ix, uint32_t iy) const { return h[size_t(iy) * nx + ix]; }
  std::vector<float> y_fastest() const {  // h transposed: (nx x ny)
    std::vector<float> t(h.size());
    for (uint32_t iy = 0; iy < ny; ++iy)
      for (uint32_t ix = 0; ix < nx; ++ix) t[size_t(ix) * ny + iy] = at(ix, iy);
    return t;
  }
  wr_heightfield_desc desc(const std::vector<float>& heights, wr_heightfield_layout layout) const {
    wr_heightfield_desc d;
    wr_heightfield_desc_init(&d);
    d.heights = heights.data();
    d.num_x = nx, d.num_y = ny, d.layout = layout;
    d.spacing_x = sx, d.spacing_y = sy, d.z_scale = z_scale, d.base_depth = base;
    for (int i = 0; i < 3; ++i) d.origin[i] = origin[i];
    return d;
  }
};

Grid random_grid(uint32_t nx, uint32_t ny, uint64_t seed) {
  Grid g{nx, ny, {}};
  wr_tools::SplitMix64 rng{seed};
  for (uint32_t i = 0; i < nx * ny; ++i) g.h.push_back(float(rng.uniform(0.0, 1.0) * 2.0));
  return g;
}

struct Hits {
  std::vector<float> t;
  std::vector<uint32_t> triangle;
};

Hits intersect(wr_scene scene, const std::vector<float>& o, const std::vector<float>& d) {
  Hits h{std::vector<float>(o.size() / 3, kSentinel), std::vector<uint32_t>(o.size() / 3, 7)};
  REQUIRE(wr_scene_intersect(scene, o.data(), d.data(), nullptr, o.size() / 3, h.t.data(), h.triangle.data(),
                             nullptr) == WR_SUCCESS);
  return h;
}

struct Context {
  wr_context c = nullptr;
  Context() { REQUIRE(wr_context_create_cpu(2, &c) == WR_SUCCESS); }
  ~Context() { wr_context_release(c); }
};

wr_scene make(const Context& ctx, const wr_heightfield_desc& d) {
  wr_scene s = nullptr;
  const wr_status status = wr_scene_create_heightfield(ctx.c, &d, &s);
  INFO(wr_last_error());
  REQUIRE(status == WR_SUCCESS);
  return s;
}

}  // namespace

TEST_CASE("heightfield: a ray straight down meets the triangle of its cell that MuJoCo's split puts there",
          "[heightfield][reference]") {
  const Context ctx;
  const Grid g = random_grid(7, 5, 11);
  const std::vector<float> transposed = g.y_fastest();
  wr_tools::SplitMix64 rng{12};
  std::vector<float> o, d;
  struct Expect {
    float z;
    uint32_t triangle;
    bool near_diagonal;
  };
  std::vector<Expect> expect;
  const float top = 100.0f;
  for (int i = 0; i < 2000; ++i) {
    // A point inside the grid, as cell (ix, iy) and fractions (u, v) of it.
    const uint32_t ix = uint32_t(rng.uniform(0.0, 1.0) * (g.nx - 1)), iy = uint32_t(rng.uniform(0.0, 1.0) * (g.ny - 1));
    const double u = 0.01 + 0.98 * rng.uniform(0.0, 1.0), v = 0.01 + 0.98 * rng.uniform(0.0, 1.0);
    const double x = g.origin[0] + (ix + u) * g.sx, y = g.origin[1] + (iy + v) * g.sy;
    const double h00 = g.at(ix, iy), h10 = g.at(ix + 1, iy), h01 = g.at(ix, iy + 1), h11 = g.at(ix + 1, iy + 1);
    // Below the diagonal (u >= v): triangle (0,0) (1,1) (1,0); above it: (0,0) (1,1) (0,1).
    const double h = u >= v ? h00 + u * (h10 - h00) + v * (h11 - h10) : h00 + v * (h01 - h00) + u * (h11 - h01);
    const uint32_t cell = iy * (g.nx - 1) + ix;
    expect.push_back({float(g.origin[2] + g.z_scale * h), 2 * cell + (u >= v ? 0u : 1u), std::fabs(u - v) < 1e-3});
    o.insert(o.end(), {float(x), float(y), top});
    d.insert(d.end(), {0.0f, 0.0f, -1.0f});
  }
  for (const wr_heightfield_layout layout : {WR_HEIGHTFIELD_X_FASTEST, WR_HEIGHTFIELD_Y_FASTEST}) {
    INFO("layout " << layout);
    wr_scene s = make(ctx, g.desc(layout == WR_HEIGHTFIELD_X_FASTEST ? g.h : transposed, layout));
    uint64_t triangles = 0;
    REQUIRE(wr_scene_num_triangles(s, &triangles) == WR_SUCCESS);
    CHECK(triangles == 2ull * (g.nx - 1) * (g.ny - 1));
    const Hits hits = intersect(s, o, d);
    int wrong_z = 0, wrong_triangle = 0;
    for (size_t i = 0; i < expect.size(); ++i) {
      const float z = top - hits.t[i];
      if (!(std::fabs(z - expect[i].z) <= 2e-5f * (1.0f + std::fabs(expect[i].z)))) {
        if (++wrong_z <= 5) INFO("ray " << i << ": z " << z << " expected " << expect[i].z);
        CHECK(std::fabs(z - expect[i].z) <= 2e-5f * (1.0f + std::fabs(expect[i].z)));
      }
      if (!expect[i].near_diagonal && hits.triangle[i] != expect[i].triangle) {
        if (++wrong_triangle <= 5)
          INFO("ray " << i << ": triangle " << hits.triangle[i] << " expected " << expect[i].triangle);
        CHECK(hits.triangle[i] == expect[i].triangle);
      }
    }
    CHECK(wrong_z == 0);
    CHECK(wrong_triangle == 0);
    wr_scene_release(s);
  }
}

TEST_CASE("heightfield: both layouts and wr_scene_create of wr.h's triangulation give the same hits bit for bit",
          "[heightfield][reference]") {
  const Context ctx;
  Grid g = random_grid(9, 6, 21);
  const std::vector<float> transposed = g.y_fastest();
  // wr.h's formulas, written out here: vertex (ix, iy), two triangles per cell in its order.
  std::vector<float> v;
  std::vector<uint32_t> idx;
  for (uint32_t iy = 0; iy < g.ny; ++iy)
    for (uint32_t ix = 0; ix < g.nx; ++ix)
      v.insert(v.end(), {g.origin[0] + float(ix) * g.sx, g.origin[1] + float(iy) * g.sy,
                         g.origin[2] + g.z_scale * g.at(ix, iy)});
  const auto s_ = [&](uint32_t ix, uint32_t iy) { return iy * g.nx + ix; };
  for (uint32_t iy = 0; iy + 1 < g.ny; ++iy)
    for (uint32_t ix = 0; ix + 1 < g.nx; ++ix)
      idx.insert(idx.end(),
                 {s_(ix, iy), s_(ix + 1, iy + 1), s_(ix + 1, iy), s_(ix, iy), s_(ix + 1, iy + 1), s_(ix, iy + 1)});
  wr_scene mesh = nullptr;
  REQUIRE(wr_scene_create(ctx.c, v.data(), v.size() / 3, idx.data(), idx.size() / 3, &mesh) == WR_SUCCESS);
  wr_scene x_fastest = make(ctx, g.desc(g.h, WR_HEIGHTFIELD_X_FASTEST));
  wr_scene y_fastest = make(ctx, g.desc(transposed, WR_HEIGHTFIELD_Y_FASTEST));
  // Rays from above in every direction downwards, and some grazing ones.
  wr_tools::SplitMix64 rng{22};
  std::vector<float> o, d;
  for (int i = 0; i < 4000; ++i) {
    o.insert(o.end(), {float(-1.5 + 4.0 * rng.uniform(0.0, 1.0)), float(1.5 + 3.5 * rng.uniform(0.0, 1.0)),
                       float(2.0 + 2.0 * rng.uniform(0.0, 1.0))});
    d.insert(d.end(), {float(rng.uniform(0.0, 1.0) - 0.5), float(rng.uniform(0.0, 1.0) - 0.5),
                       float(-0.02 - rng.uniform(0.0, 1.0))});
  }
  const Hits a = intersect(mesh, o, d), b = intersect(x_fastest, o, d), c = intersect(y_fastest, o, d);
  size_t hit = 0;
  for (float t : a.t) hit += std::isfinite(t);
  CHECK(hit > 1000);  // the comparison is not of misses alone
  CHECK(same_bits(a.t, b.t));
  CHECK(same_bits(a.t, c.t));
  CHECK(a.triangle == b.triangle);
  CHECK(a.triangle == c.triangle);
  for (wr_scene s : {mesh, x_fastest, y_fastest}) wr_scene_release(s);
}

TEST_CASE("heightfield: a base closes the surface into MuJoCo's solid: walls to the edge, a bottom, nothing below",
          "[heightfield][reference]") {
  const Context ctx;
  Grid g = random_grid(6, 4, 31);
  for (float& h : g.h) h += 0.5f;  // every sample in [0.5, 2.5]: above the base's top
  g.base = 0.7f;
  wr_scene s = make(ctx, g.desc(g.h, WR_HEIGHTFIELD_X_FASTEST));
  uint64_t triangles = 0;
  REQUIRE(wr_scene_num_triangles(s, &triangles) == WR_SUCCESS);
  CHECK(triangles == 2ull * (g.nx - 1) * (g.ny - 1) + 4ull * (g.nx + g.ny - 2) + 2);
  const float x0 = g.origin[0], x1 = g.origin[0] + float(g.nx - 1) * g.sx;
  const float y0 = g.origin[1], y1 = g.origin[1] + float(g.ny - 1) * g.sy;
  const float bottom = g.origin[2] - g.base;
  wr_tools::SplitMix64 rng{32};
  std::vector<float> o, d, expect_t;
  // Horizontal rays towards the wall at x = x0 (from x0 - 1, going +x) at a height z below the
  // surface's edge there (the linear interpolation between the edge's samples) hit it at t = 1;
  // above the edge they pass it.
  std::vector<bool> below;
  for (int i = 0; i < 400; ++i) {
    const uint32_t iy = uint32_t(rng.uniform(0.0, 1.0) * (g.ny - 1));
    const double v = 0.05 + 0.9 * rng.uniform(0.0, 1.0);
    const double edge = g.origin[2] + g.z_scale * ((1 - v) * g.at(0, iy) + v * g.at(0, iy + 1));
    const double z = bottom + 0.01 + (edge + 0.5 - bottom) * rng.uniform(0.0, 1.0);
    if (std::fabs(z - edge) < 1e-3) continue;
    o.insert(o.end(), {x0 - 1.0f, float(y0 + (iy + v) * g.sy), float(z)});
    d.insert(d.end(), {1.0f, 0.0f, 0.0f});
    below.push_back(z < edge);
  }
  const Hits walls = intersect(s, o, d);
  int wrong = 0, hits_below = 0;
  for (size_t i = 0; i < below.size(); ++i) {
    if (below[i]) {
      ++hits_below;
      if (!(std::fabs(walls.t[i] - 1.0f) <= 1e-6f)) ++wrong;  // the wall's plane is x = x0
    } else if (walls.t[i] <= 1.0f) {
      ++wrong;  // nothing at or before the wall's plane above the edge
    }
  }
  CHECK(hits_below > 50);
  CHECK(wrong == 0);
  // Straight up from below: the bottom at z = origin[2] - base_depth; below the base going
  // sideways: nothing.
  o.clear(), d.clear();
  for (int i = 0; i < 200; ++i) {
    o.insert(o.end(), {float(x0 + 0.01 + (x1 - x0 - 0.02) * rng.uniform(0.0, 1.0)),
                       float(y0 + 0.01 + (y1 - y0 - 0.02) * rng.uniform(0.0, 1.0)), bottom - 2.0f});
    d.insert(d.end(), {0.0f, 0.0f, 1.0f});
  }
  for (int i = 0; i < 200; ++i) {
    o.insert(o.end(), {x0 - 1.0f, float(y0 + (y1 - y0) * rng.uniform(0.0, 1.0)), bottom - 0.01f});
    d.insert(d.end(), {1.0f, float(rng.uniform(0.0, 1.0) - 0.5), 0.0f});
  }
  const Hits up = intersect(s, o, d);
  for (int i = 0; i < 200; ++i) CHECK(std::fabs(up.t[i] - 2.0f) <= 1e-6f);
  for (int i = 200; i < 400; ++i) CHECK(std::isinf(up.t[i]));
  // The same grid without a base: the horizontal ray under the surface meets nothing.
  g.base = 0.0f;
  wr_scene open = make(ctx, g.desc(g.h, WR_HEIGHTFIELD_X_FASTEST));
  const float ro[3] = {x0 - 1.0f, 0.5f * (y0 + y1), g.origin[2]}, rd[3] = {1.0f, 0.0f, 0.0f};
  float t = kSentinel;
  REQUIRE(wr_scene_intersect(open, ro, rd, nullptr, 1, &t, nullptr, nullptr) == WR_SUCCESS);
  CHECK(std::isinf(t));
  wr_scene_release(open);
  wr_scene_release(s);
}

TEST_CASE("heightfield: every bad field is refused by name, and no handle is written", "[heightfield]") {
  const Context ctx;
  const Grid g = random_grid(4, 3, 41);
  const wr_heightfield_desc good = g.desc(g.h, WR_HEIGHTFIELD_X_FASTEST);
  const wr_scene kUnwritten = reinterpret_cast<wr_scene>(uintptr_t(0x5a5a5a50));
  const char* fn = "wr_scene_create_heightfield";
  const auto refused = [&](const wr_heightfield_desc& d, std::initializer_list<std::string> parts) {
    wr_scene s = kUnwritten;
    const wr_status status = wr_scene_create_heightfield(ctx.c, &d, &s);
    expect_error(status, WR_ERROR_INVALID_ARGUMENT, fn, parts);
    CHECK(s == kUnwritten);
  };
  wr_scene s = kUnwritten;
  EXPECT_FAIL(wr_scene_create_heightfield(nullptr, &good, &s), WR_ERROR_INVALID_ARGUMENT, fn, "context is NULL");
  EXPECT_FAIL(wr_scene_create_heightfield(ctx.c, nullptr, &s), WR_ERROR_INVALID_ARGUMENT, fn, "desc is NULL");
  EXPECT_FAIL(wr_scene_create_heightfield(ctx.c, &good, nullptr), WR_ERROR_INVALID_ARGUMENT, fn, "out is NULL");
  CHECK(s == kUnwritten);
  wr_heightfield_desc d = good;
  d.struct_size = 0;
  refused(d, {"desc->struct_size = 0"});
  d = good, d.heights = nullptr;
  refused(d, {"desc->heights is NULL"});
  d = good, d.heights = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(g.h.data()) + 1);
  refused(d, {"desc->heights is not aligned"});
  d = good, d.num_x = 1;
  refused(d, {"desc->num_x = 1: must be at least 2"});
  d = good, d.num_y = 0;
  refused(d, {"desc->num_y = 0: must be at least 2"});
  d = good, d.layout = bad_enum<wr_heightfield_layout>(2);
  refused(d, {"desc->layout = 2"});
  for (const float bad : {0.0f, -1.0f, kNaN, kInf}) {
    INFO("value " << bad);
    d = good, d.spacing_x = bad;
    refused(d, {"desc->spacing_x = ", "finite and > 0"});
    d = good, d.spacing_y = bad;
    refused(d, {"desc->spacing_y = ", "finite and > 0"});
  }
  d = good, d.z_scale = kNaN;
  refused(d, {"desc->z_scale = nan: must be finite"});
  d = good, d.origin[2] = -kInf;
  refused(d, {"desc->origin[2] = -inf: must be finite"});
  for (const float bad : {-0.5f, kNaN, kInf}) {
    d = good, d.base_depth = bad;
    refused(d, {"desc->base_depth = ", "finite and >= 0"});
  }
  // The first non-finite sample by its index and (ix, iy), in either layout.
  std::vector<float> h = g.h;
  h[2 * 4 + 1] = kNaN;  // ix 1, iy 2
  d = good, d.heights = h.data();
  refused(d, {"desc->heights[9] (sample ix = 1, iy = 2) = nan: must be finite"});
  std::vector<float> t = g.y_fastest();
  t[1 * 3 + 2] = kInf;  // ix 1, iy 2
  d = g.desc(t, WR_HEIGHTFIELD_Y_FASTEST);
  refused(d, {"desc->heights[5] (sample ix = 1, iy = 2) = inf: must be finite"});
  // Finite fields whose grid overflows float: named by the sample and the fields, not as a
  // vertex array the caller never passed.
  d = good, d.spacing_x = 3e38f;  // sample ix = 2 lies past float's range
  refused(d, {"sample ix = 2, iy = 0 lies at (inf, ", "overflows float"});
  d = good, d.z_scale = 1e38f, d.origin[2] = 3e38f;
  std::vector<float> tall(g.h.size(), 1.0f);
  d.heights = tall.data();
  refused(d, {"sample ix = 0, iy = 0 lies at (", ", inf): ", "desc->z_scale desc->heights[0]) overflows float"});
  d = good, d.origin[2] = -3e38f, d.base_depth = 3e38f;
  refused(d, {"desc->origin[2] - desc->base_depth = -inf: the base's height overflows float"});
  // Past 2^31 - 1 triangles: refused before the heights are read (this array has 12 of them).
  d = good, d.num_x = 65536, d.num_y = 32769;
  refused(d, {"desc->num_x x desc->num_y = 65536 x 32769 gives 4294901760 triangles: at most 2147483647"});
  // A good one still works after all of these.
  wr_scene made = make(ctx, good);
  wr_scene_release(made);
}
