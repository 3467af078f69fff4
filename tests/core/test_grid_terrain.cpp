// The grid terrain kind (src/core/grid_terrain.h) against the triangle BVH over the same
// triangles (wr_scene_create_heightfield's, scene/heightfield.h): every ray's t bit for bit and
// its triangle id, on adversarial fields (flat planes full of ties on shared edges, checkerboards
// of 0 and 1 m, tilted planes, 2 x 2 and 2 x N fields, walls and bottom of a base, both sample
// layouts) and adversarial rays (vertical, through samples, along grid lines and cell diagonals,
// zero x or y components, grazing, from below, camera fans), for both forms of the traversal
// (core/traversal_variant.h: the host's and the GPU's); and that a traversal probe (the GPU cost
// model's, tools/warp_model) sees the walk's iterations in their order and changes no hit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/bvh_traverse.h"
#include "core/grid_terrain.h"
#include "core/terrain.h"
#include "float_bits.h"
#include "terrain_parity.h"
#include "scene/bvh_builder.h"
#include "scene/grid_builder.h"
#include "scene/heightfield.h"

using wr::Vec3;

namespace {

struct Field {
  std::string name;
  std::vector<float> heights;
  wr_heightfield_desc desc;
};

Field make_field(const std::string& name, uint32_t nx, uint32_t ny, float base_depth,
                 float (*height)(uint32_t ix, uint32_t iy, std::mt19937& rng), uint32_t seed,
                 wr_heightfield_layout layout = WR_HEIGHTFIELD_X_FASTEST) {
  Field f;
  f.name = name;
  std::mt19937 rng(seed);
  f.heights.resize(size_t(nx) * ny);
  for (uint32_t iy = 0; iy < ny; ++iy)
    for (uint32_t ix = 0; ix < nx; ++ix) {
      const size_t k = layout == WR_HEIGHTFIELD_X_FASTEST ? size_t(iy) * nx + ix : size_t(ix) * ny + iy;
      f.heights[k] = height(ix, iy, rng);
    }
  wr_heightfield_desc_init(&f.desc);
  f.desc.heights = f.heights.data();
  f.desc.num_x = nx;
  f.desc.num_y = ny;
  f.desc.layout = layout;
  f.desc.spacing_x = 0.1f;
  f.desc.spacing_y = 0.07f;
  f.desc.z_scale = 0.5f;
  f.desc.origin[0] = -1.3f;
  f.desc.origin[1] = 0.45f;
  f.desc.origin[2] = 0.2f;
  f.desc.base_depth = base_depth;
  return f;
}

std::vector<Field> fields() {
  std::vector<Field> f;
  const auto random = [](uint32_t, uint32_t, std::mt19937& rng) {
    return std::uniform_real_distribution<float>(-1, 1)(rng);
  };
  const auto flat = [](uint32_t, uint32_t, std::mt19937&) { return 0.0f; };
  const auto checker = [](uint32_t ix, uint32_t iy, std::mt19937&) { return float((ix / 3 + iy / 3) % 2) * 2.0f; };
  const auto tilted = [](uint32_t ix, uint32_t iy, std::mt19937&) { return 0.25f * float(ix) - 0.125f * float(iy); };
  const auto steps = [](uint32_t ix, uint32_t, std::mt19937&) { return float(ix / 4) * 0.3f; };
  f.push_back(make_field("random 37 x 29", 37, 29, 0.0f, random, 1));
  f.push_back(make_field("random 37 x 29, base", 37, 29, 0.7f, random, 2));
  f.push_back(make_field("random 19 x 23, y fastest, base", 19, 23, 0.3f, random, 3, WR_HEIGHTFIELD_Y_FASTEST));
  f.push_back(make_field("flat 33 x 33", 33, 33, 0.0f, flat, 4));
  f.push_back(make_field("flat 17 x 9, base", 17, 9, 1.0f, flat, 5));
  f.push_back(make_field("checkerboard 0 / 1 m 31 x 26", 31, 26, 0.0f, checker, 6));
  f.push_back(make_field("tilted plane 21 x 40", 21, 40, 0.0f, tilted, 7));
  f.push_back(make_field("stairs 40 x 12, base", 40, 12, 0.5f, steps, 8));
  f.push_back(make_field("2 x 2", 2, 2, 0.0f, random, 9));
  f.push_back(make_field("2 x 2, base", 2, 2, 0.4f, random, 10));
  f.push_back(make_field("2 x 17", 2, 17, 0.0f, random, 11));
  f.push_back(make_field("17 x 2, base", 17, 2, 0.2f, random, 12));
  f.push_back(make_field("flat 2 x 65", 2, 65, 0.0f, flat, 13));
  return f;
}

using Ray = wr_test::TerrainRay;

// Rays a height field is hard on, for the field `s` (its mesh's vertices).
std::vector<Ray> adversarial_rays(const wr::GridTerrainData& g, uint32_t seed, int random_count) {
  std::vector<Ray> rays;
  std::mt19937 rng(seed);
  const float x0 = g.xs.front(), x1 = g.xs.back(), y0 = g.ys.front(), y1 = g.ys.back();
  const float inf = INFINITY;
  std::uniform_real_distribution<float> u(0, 1);
  const auto in_x = [&](float m) { return x0 - m + (x1 - x0 + 2 * m) * u(rng); };
  const auto in_y = [&](float m) { return y0 - m + (y1 - y0 + 2 * m) * u(rng); };
  const auto sample_of = [&](size_t ix, size_t iy) { return Vec3{g.xs[ix], g.ys[iy], g.zs[iy * g.xs.size() + ix]}; };
  // Vertical rays (a height scan) down onto every sample, every cell's centre and its edges' midpoints.
  for (size_t iy = 0; iy < g.ys.size(); ++iy)
    for (size_t ix = 0; ix < g.xs.size(); ++ix) {
      const Vec3 p = sample_of(ix, iy);
      rays.push_back({Vec3{p.x, p.y, 20.0f}, Vec3{0, 0, -1}, 0.0f, inf});
      rays.push_back({Vec3{p.x, p.y, -20.0f}, Vec3{0, 0, 1}, 0.0f, inf});  // from below
      if (ix + 1 < g.xs.size()) {
        const float mx = 0.5f * (g.xs[ix] + g.xs[ix + 1]);
        rays.push_back({Vec3{mx, p.y, 20.0f}, Vec3{0, 0, -1}, 0.0f, inf});
        if (iy + 1 < g.ys.size())
          rays.push_back({Vec3{mx, 0.5f * (g.ys[iy] + g.ys[iy + 1]), 20.0f}, Vec3{0, 0, -1}, 0.0f, inf});
      }
      if (iy + 1 < g.ys.size())
        rays.push_back({Vec3{p.x, 0.5f * (g.ys[iy] + g.ys[iy + 1]), 20.0f}, Vec3{0, 0, -1}, 0.0f, inf});
    }
  // Vertical rays anywhere, the field's edges and beyond included (-0 components too).
  for (int k = 0; k < 400; ++k)
    rays.push_back(
        {Vec3{in_x(0.3f), in_y(0.3f), 5.0f}, Vec3{k % 2 ? -0.0f : 0.0f, k % 3 ? 0.0f : -0.0f, -2.0f}, 0.0f, inf});
  // From random points towards samples exactly (through a vertex shared by up to six triangles).
  for (int k = 0; k < 400; ++k) {
    const Vec3 p = sample_of(rng() % g.xs.size(), rng() % g.ys.size());
    const Vec3 o{in_x(1.0f), in_y(1.0f), 3.0f * u(rng) - 0.5f};
    rays.push_back({o, Vec3{p.x - o.x, p.y - o.y, p.z - o.z}, 0.0f, inf});
  }
  // Along grid lines (a zero x or y component, the origin on a column or row) and cell diagonals.
  for (int k = 0; k < 400; ++k) {
    const float z = 2.0f * u(rng) - 0.7f, dz = -0.2f * u(rng);
    const size_t ix = rng() % g.xs.size(), iy = rng() % g.ys.size();
    rays.push_back({Vec3{g.xs[ix], y0 - 0.5f, z}, Vec3{0, 1, dz}, 0.0f, inf});
    rays.push_back({Vec3{g.xs[ix], y1 + 0.5f, z}, Vec3{0, -1, dz}, 0.0f, inf});
    rays.push_back({Vec3{x0 - 0.5f, g.ys[iy], z}, Vec3{1, 0, dz}, 0.0f, inf});
    rays.push_back({Vec3{x1 + 0.5f, g.ys[iy], z}, Vec3{-1, 0, dz}, 0.0f, inf});
    const Vec3 a = sample_of(ix, iy);
    const size_t jx = ix + 1 < g.xs.size() ? ix + 1 : ix - 1, jy = iy + 1 < g.ys.size() ? iy + 1 : iy - 1;
    const Vec3 b = sample_of(jx, jy);
    const Vec3 d{b.x - a.x, b.y - a.y, dz};
    rays.push_back({Vec3{a.x - 3 * d.x, a.y - 3 * d.y, z}, d, 0.0f, inf});
  }
  // Grazing rays, rays that start inside the solid, bounded intervals, and plain random ones,
  // from around the field (a quarter of its size beyond its edges) towards a point over it.
  const float margin = 0.25f * std::max(x1 - x0, y1 - y0);
  for (int k = 0; k < random_count; ++k) {
    const int kind = k % 4;
    Vec3 o{in_x(margin), in_y(margin), 4.0f * u(rng) - 1.5f};
    const Vec3 to{in_x(0.0f), in_y(0.0f), 2.0f * u(rng) - 1.0f};
    Vec3 d{to.x - o.x, to.y - o.y, to.z - o.z};
    if (kind == 0) d.z = 0.02f * (u(rng) - 0.7f);
    if (kind == 1) o.z = -0.5f + 0.3f * u(rng);
    const float tmin = kind == 2 ? 0.5f * u(rng) : 0.0f;
    const float tmax = kind == 2 ? tmin + 3.0f * u(rng) : inf;
    rays.push_back({o, d, tmin, tmax});
  }
  // A camera fan: 106 x 60 rays from one point above the field, looking across it.
  const Vec3 eye{x0 - 0.3f, 0.5f * (y0 + y1), 1.2f};
  for (int v = 0; v < 60; ++v)
    for (int uu = 0; uu < 106; ++uu)
      rays.push_back({eye, Vec3{1.0f, (float(uu) - 52.5f) / 60.0f, -(float(v) + 0.5f) / 80.0f}, 0.05f, 10.0f});
  return rays;
}

template <class Variant>
void check_field(const Field& f, int random_count) {
  INFO(f.name);
  const wr::Mesh mesh = wr::triangulate_heightfield("test", f.desc);
  const wr::Bvh bvh = wr::build_bvh(mesh.vertices.data(), mesh.indices.data(), mesh.num_triangles());
  wr::GridTerrainData grid;
  REQUIRE(wr::build_grid_terrain("test", f.desc, wr::BvhBuildOptions{}, &grid));
  const wr::GridView view = grid.view();
  // The grid's vertices are the mesh's, bit for bit.
  for (size_t iy = 0; iy < grid.ys.size(); ++iy)
    for (size_t ix = 0; ix < grid.xs.size(); ++ix) {
      const float* v = &mesh.vertices[3 * (iy * grid.xs.size() + ix)];
      REQUIRE((wr_test::same_bits(v[0], grid.xs[ix]) && wr_test::same_bits(v[1], grid.ys[iy]) &&
               wr_test::same_bits(v[2], grid.zs[iy * grid.xs.size() + ix])));
    }
  const std::vector<Ray> rays = adversarial_rays(grid, 17, random_count);
  const wr_test::TerrainParity parity = wr_test::compare_with_bvh<Variant, wr::GridTerrain>(bvh.view(), view, rays);
  INFO(rays.size() << " rays, " << parity.hits << " hits");
  CHECK(parity.mismatches == 0);
  CHECK(parity.hits > 2000);  // the rays do meet the field
}

}  // namespace

TEMPLATE_TEST_CASE("the grid gives the BVH's t and triangle id, ray by ray, on adversarial fields", "",
                   wr::HostTraversal, wr::GpuTraversal) {
  for (const Field& f : fields()) check_field<TestType>(f, 20000);
}

TEST_CASE("10^6 random rays over a rough field with a base: the grid equals the BVH") {
  const auto rough = [](uint32_t ix, uint32_t iy, std::mt19937& rng) {
    return std::sin(0.3f * float(ix)) * std::cos(0.2f * float(iy)) +
           0.2f * std::uniform_real_distribution<float>(-1, 1)(rng);
  };
  check_field<wr::HostTraversal>(make_field("rough 201 x 157, base", 201, 157, 0.8f, rough, 21), 1000000);
}

TEST_CASE("the grid's memory: samples and a pyramid of a third of the cells, under 7 bytes a sample") {
  const auto flat = [](uint32_t, uint32_t, std::mt19937&) { return 0.0f; };
  const Field f = make_field("1001 x 701", 1001, 701, 0.0f, flat, 1);
  wr::GridTerrainData grid;
  REQUIRE(wr::build_grid_terrain("test", f.desc, wr::BvhBuildOptions{}, &grid));
  const double samples = 1001.0 * 701.0, cells = 1000.0 * 700.0;
  CHECK(grid.sample_bytes() == 4 * (1001 + 701 + 1001 * 701));
  // Levels 1 .. top: ceil(1000 / 2^l) x ceil(700 / 2^l) nodes of 8 bytes.
  uint64_t nodes = 0;
  for (uint32_t l = 1; l <= grid.top; ++l) nodes += uint64_t((999 >> l) + 1) * ((699 >> l) + 1);
  CHECK(grid.top == 10);  // 1000 cells need 2^10
  CHECK(grid.pyramid_bytes() == 8 * nodes);
  CHECK(double(nodes) < cells / 3 + 2 * 11 * 1000);
  CHECK((grid.sample_bytes() + grid.pyramid_bytes()) / samples < 7.0);
}

TEST_CASE("a field whose columns float cannot tell apart is left to the BVH") {
  const auto flat = [](uint32_t, uint32_t, std::mt19937&) { return 0.0f; };
  Field f = make_field("far from the origin", 9, 9, 0.0f, flat, 1);
  f.desc.origin[0] = 1.0e8f;  // spacing 0.1 is below the float step there (8)
  wr::GridTerrainData grid;
  CHECK_FALSE(wr::build_grid_terrain("test", f.desc, wr::BvhBuildOptions{}, &grid));
  CHECK(grid.xs.empty());
}

TEST_CASE("the grid builder refuses what wr_scene_create_heightfield refuses, with its message") {
  const auto flat = [](uint32_t, uint32_t, std::mt19937&) { return 0.0f; };
  Field f = make_field("bad", 9, 9, 0.0f, flat, 1);
  f.heights[3 * 9 + 4] = NAN;
  wr::GridTerrainData grid;
  try {
    wr::build_grid_terrain("wr_scene_create_heightfield", f.desc, wr::BvhBuildOptions{}, &grid);
    FAIL("a NaN sample was accepted");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()) ==
          "wr_scene_create_heightfield: desc->heights[31] (sample ix = 4, iy = 3) = nan: must be finite");
  }
}

namespace {

// What a traversal probe (core/bvh_traverse.h) sees, in order: 'n' a node's box (inner_node), 'c'
// a level-1 node's cells tested at once, 'k' a higher node's children, 'u' a climb, 'l' a leaf.
struct RecordingProbe {
  std::string* events;
  void inner_node() const { *events += 'n'; }
  void leaf(uint32_t triangles) const { *events += triangles == 2 ? 'l' : 'L'; }
  void grid_children(uint32_t level) const { *events += level == 1 ? 'c' : 'k'; }
  void grid_climb() const { *events += 'u'; }
};

}  // namespace

// A field of random heights and its adversarial rays (rays along cell diagonals and grid lines,
// through samples, vertical), for the probe tests below.
struct ProbeField {
  Field f;
  wr::GridTerrainData grid;
  std::vector<Ray> rays;
};
const ProbeField& probe_field() {
  static const ProbeField p = [] {
    const auto random = [](uint32_t, uint32_t, std::mt19937& rng) {
      return std::uniform_real_distribution<float>(-1, 1)(rng);
    };
    ProbeField q{make_field("random 37 x 29", 37, 29, 0.0f, random, 1), wr::GridTerrainData{}, {}};
    REQUIRE(wr::build_grid_terrain("test", q.f.desc, wr::BvhBuildOptions{}, &q.grid));
    q.rays = adversarial_rays(q.grid, 5, 3000);
    return q;
  }();
  return p;
}

TEST_CASE("a probe sees the grid walk's iterations and changes none of its hits") {
  // The walk of a node's children (grid_walk_cells): the GPU's form takes it for every ray.
  const wr::GridView view = probe_field().grid.view();
  size_t walks = 0, cells = 0;
  for (const Ray& r : probe_field().rays) {
    std::string events;
    const wr::TraceResult plain =
        wr::trace_terrain<wr::GpuTraversal>(wr::GridTerrain{}, view, r.o, r.d, r.tmin, r.tmax);
    const wr::TraceResult seen =
        wr::trace_terrain<wr::GpuTraversal>(wr::GridTerrain{}, view, r.o, r.d, r.tmin, r.tmax, RecordingProbe{&events});
    INFO("ray " << r.o.x << " " << r.o.y << " " << r.o.z << " -> " << r.d.x << " " << r.d.y << " " << r.d.z << ": "
                << events);
    REQUIRE(wr_test::same_bits(plain.t, seen.t));
    REQUIRE(plain.triangle == seen.triangle);
    if (r.d.x == 0.0f && r.d.y == 0.0f) {  // a cell looked up: one leaf of its cells' triangles, no walk
      CHECK((events.find_first_of("nckuL") == std::string::npos || events == "L"));
      CHECK(events.size() <= 1);
      if (seen.triangle != wr::kInvalidIndex) CHECK(!events.empty());
      continue;
    }
    // A walk: a start node's box, then (above the cells) its children, each cell's test right after
    // its level-1 node's, at most one climb per node whose children were tested.
    size_t children = 0, climbs = 0;
    for (size_t k = 0; k < events.size(); ++k) {
      const char e = events[k];
      if (e == 'n') {
        ++walks;
        CHECK((k + 1 == events.size() || events[k + 1] != 'u'));
      }
      if (e == 'c' || e == 'k') ++children;
      if (e == 'u') ++climbs;
      if (e == 'l') {
        ++cells;
        CHECK(k > 0);
        CHECK(std::string("ncl").find(events[k - 1]) != std::string::npos);  // never right after a climb
      }
    }
    CHECK(climbs <= children);
    if (seen.triangle != wr::kInvalidIndex) CHECK(events.find('l') != std::string::npos);
  }
  CHECK(walks > 1000);
  CHECK(cells > walks);
}

TEST_CASE("the host walks a height field along the ray and hands the rays near a corner back, hits unchanged") {
  // grid_ray_walk (HostTraversal): a node's box at a time ('n'), a cell's test right after its box,
  // a climb right after a node or a cell; a ray it hands back (within rounding of a corner, or with
  // no x or y component) goes on with the children's walk ('c' and 'k' events).
  const wr::GridView view = probe_field().grid.view();
  size_t along = 0, handed_back = 0, cells = 0;
  for (const Ray& r : probe_field().rays) {
    if (r.d.x == 0.0f && r.d.y == 0.0f) continue;  // a cell looked up (the test above)
    std::string events;
    const wr::TraceResult plain =
        wr::trace_terrain<wr::HostTraversal>(wr::GridTerrain{}, view, r.o, r.d, r.tmin, r.tmax);
    const wr::TraceResult seen = wr::trace_terrain<wr::HostTraversal>(wr::GridTerrain{}, view, r.o, r.d, r.tmin, r.tmax,
                                                                      RecordingProbe{&events});
    const wr::TraceResult gpu = wr::trace_terrain<wr::GpuTraversal>(wr::GridTerrain{}, view, r.o, r.d, r.tmin, r.tmax);
    INFO("ray " << r.o.x << " " << r.o.y << " " << r.o.z << " -> " << r.d.x << " " << r.d.y << " " << r.d.z << ": "
                << events);
    REQUIRE(wr_test::same_bits(plain.t, seen.t));
    REQUIRE(plain.triangle == seen.triangle);
    REQUIRE(wr_test::same_bits(gpu.t, seen.t));  // the children's walk's result, bit for bit
    REQUIRE(gpu.triangle == seen.triangle);
    const size_t back = events.find_first_of("ck");
    const std::string own = events.substr(0, back);  // the ray walk's part (before a hand-back)
    if (back == std::string::npos) {
      ++along;
    } else {
      ++handed_back;
    }
    for (size_t k = 0; k < own.size(); ++k) {
      if (own[k] == 'l') {
        ++cells;
        CHECK((k > 0 && own[k - 1] == 'n'));
      }
      if (own[k] == 'u') CHECK((k > 0 && own[k - 1] != 'u'));
    }
    CHECK(own.find('L') == std::string::npos);
  }
  INFO(along << " rays walked along, " << handed_back << " handed back");
  CHECK(along > 4 * handed_back);  // most rays
  CHECK(handed_back > 10);         // the rays through samples and along diagonals
  CHECK(cells > along);
}
