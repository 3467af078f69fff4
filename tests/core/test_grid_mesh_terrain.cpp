// The grid kind for grid-topology meshes (src/core/grid_mesh_terrain.h) against the triangle BVH
// over the same arrays: every ray's t bit for bit and its triangle id, on the meshes legged_gym's
// convert_heightfield_to_trimesh makes (reimplemented below from its published source) with slope
// thresholds 0, 0.75 and 1.5 (vertices moved to make vertical walls) and without one, for both
// forms of the traversal.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/bvh_traverse.h"
#include "core/grid_mesh_terrain.h"
#include "float_bits.h"
#include "terrain_parity.h"
#include "legged_gym_trimesh.h"
#include "scene/bvh_builder.h"
#include "scene/grid_mesh_builder.h"

using wr::Vec3;

namespace {

// Terrains of legged_gym's kinds (terrain_utils.py), in raw units of vertical_scale 0.005 m:
// random uniform noise, pyramid stairs, discrete obstacles and a gap, side by side along x.
wr_tools::RawField parkour_raw(uint32_t rows, uint32_t cols, uint32_t seed) {
  wr_tools::RawField f{rows, cols, std::vector<int16_t>(size_t(rows) * cols)};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-10, 10), block(0, 40);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      const uint32_t part = 4 * r / rows;
      int h = 0;
      if (part == 0) h = noise(rng);
      if (part == 1)
        h = 30 * int(std::min(std::min(r % (rows / 4), rows / 4 - r % (rows / 4)), std::min(c, cols - 1 - c)) / 3);
      if (part == 2) h = ((r / 4 + c / 5) % 3 == 0) ? 20 + block(rng) : 0;
      if (part == 3) h = (c > cols / 3 && c < cols / 2) ? -200 : 10;
      f.h[size_t(r) * cols + c] = int16_t(h);
    }
  return f;
}

using Ray = wr_test::TerrainRay;

std::vector<Ray> rays_over(const wr_tools::TriangleMesh& m, uint32_t seed, int random_count) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t k = 0; k < m.vertices.size(); ++k) {
    lo[k % 3] = std::min(lo[k % 3], m.vertices[k]);
    hi[k % 3] = std::max(hi[k % 3], m.vertices[k]);
  }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  const float inf = INFINITY, margin = 0.25f * std::max(hi[0] - lo[0], hi[1] - lo[1]);
  std::vector<Ray> rays;
  const size_t nv = m.vertices.size() / 3;
  // Vertical rays onto every vertex (moved ones on the walls they make), from above and below.
  for (size_t k = 0; k < nv; ++k) {
    const float* p = &m.vertices[3 * k];
    rays.push_back({Vec3{p[0], p[1], hi[2] + 5}, Vec3{0, 0, -1}, 0.0f, inf});
    rays.push_back({Vec3{p[0], p[1], lo[2] - 5}, Vec3{0, 0, 1}, 0.0f, inf});
  }
  // Vertical rays at random (x, y) in and around the mesh, from every height, up and down, some
  // with a later tmin or an earlier tmax, some with a -0 x or y: a vertical ray tests no box first
  // (trace_grid_mesh), so [tmin, tmax] is the triangle test's alone to apply.
  for (int k = 0; k < 3000; ++k) {
    const Vec3 o{lo[0] - margin + (hi[0] - lo[0] + 2 * margin) * u(rng),
                 lo[1] - margin + (hi[1] - lo[1] + 2 * margin) * u(rng), lo[2] - 1 + (hi[2] - lo[2] + 2) * u(rng)};
    const Vec3 d = k % 5 == 0   ? Vec3{-0.0f, 0, -1}
                   : k % 5 == 1 ? Vec3{0, -0.0f, 0.5f}
                                : Vec3{0, 0, k % 2 ? -1.0f : 1.0f};
    rays.push_back(
        {o, d, k % 3 == 0 ? (hi[2] - lo[2]) * u(rng) : 0.0f, k % 4 == 0 ? (hi[2] - lo[2] + 1) * u(rng) : inf});
  }
  // Towards vertices from random points, and horizontal rays into the walls.
  for (int k = 0; k < 2000; ++k) {
    const float* p = &m.vertices[3 * (rng() % nv)];
    const Vec3 o{lo[0] - margin + (hi[0] - lo[0] + 2 * margin) * u(rng),
                 lo[1] - margin + (hi[1] - lo[1] + 2 * margin) * u(rng), lo[2] + (hi[2] - lo[2] + 2) * u(rng)};
    rays.push_back({o, Vec3{p[0] - o.x, p[1] - o.y, p[2] - o.z}, 0.0f, inf});
    const float z = lo[2] + (hi[2] - lo[2]) * u(rng);
    rays.push_back({Vec3{lo[0] - 1, p[1], z}, Vec3{1, 0, 0}, 0.0f, inf});
    rays.push_back({Vec3{p[0], hi[1] + 1, z}, Vec3{0, -1, 0}, 0.0f, inf});
  }
  for (int k = 0; k < random_count; ++k) {
    const Vec3 o{lo[0] - margin + (hi[0] - lo[0] + 2 * margin) * u(rng),
                 lo[1] - margin + (hi[1] - lo[1] + 2 * margin) * u(rng), lo[2] - 0.5f + (hi[2] - lo[2] + 2) * u(rng)};
    const Vec3 to{lo[0] + (hi[0] - lo[0]) * u(rng), lo[1] + (hi[1] - lo[1]) * u(rng), lo[2] + (hi[2] - lo[2]) * u(rng)};
    Vec3 d{to.x - o.x, to.y - o.y, to.z - o.z};
    if (k % 4 == 0) d.z = 0.02f * (u(rng) - 0.7f);
    rays.push_back({o, d, k % 3 == 0 ? 0.3f * u(rng) : 0.0f, k % 5 == 0 ? 2.0f * u(rng) : inf});
  }
  // A camera fan from above one corner, across the field.
  const Vec3 eye{lo[0] - 0.2f, 0.5f * (lo[1] + hi[1]), hi[2] + 1.0f};
  for (int v = 0; v < 60; ++v)
    for (int x = 0; x < 106; ++x)
      rays.push_back({eye, Vec3{1.0f, (float(x) - 52.5f) / 60.0f, -(float(v) + 0.5f) / 60.0f}, 0.05f, 20.0f});
  return rays;
}

template <class Variant>
void check_mesh(const wr_tools::TriangleMesh& m, const std::string& name, int random_count) {
  INFO(name);
  const uint64_t nt = m.indices.size() / 3, nv = m.vertices.size() / 3;
  const wr::Bvh bvh = wr::build_bvh(m.vertices.data(), m.indices.data(), nt);
  wr::GridMeshData grid;
  REQUIRE(wr::build_grid_mesh_terrain(m.vertices.data(), nv, m.indices.data(), nt, &grid));
  const wr::GridMeshView view = grid.view();
  const std::vector<Ray> rays = rays_over(m, 5, random_count);
  const wr_test::TerrainParity parity = wr_test::compare_with_bvh<Variant, wr::GridMeshTerrain>(bvh.view(), view, rays);
  INFO(rays.size() << " rays, " << parity.hits << " hits");
  CHECK(parity.mismatches == 0);
  CHECK(parity.hits > rays.size() / 4);
}

}  // namespace

TEMPLATE_TEST_CASE("legged_gym's grid meshes: the grid gives the BVH's t and triangle id, ray by ray", "",
                   wr::HostTraversal, wr::GpuTraversal) {
  const wr_tools::RawField f = parkour_raw(96, 41, 3);
  for (double threshold : {-1.0, 0.0, 0.75, 1.5}) {
    const wr_tools::TriangleMesh m = wr_tools::convert_heightfield_to_trimesh(f, 0.1, 0.005, threshold);
    size_t moved = 0;
    for (uint32_t r = 0; r < f.rows; ++r)
      for (uint32_t c = 0; c < f.cols; ++c) {
        const float* v = &m.vertices[3 * (size_t(r) * f.cols + c)];
        moved += v[0] != float(r * 0.1) || v[1] != float(c * 0.1);
      }
    INFO("slope threshold " << threshold << ": " << moved << " vertices moved");
    if (threshold >= 0) CHECK(moved > 50);  // the walls are there to be hit
    check_mesh<TestType>(m, "parkour 96 x 41", 20000);
  }
  // Mirrored in x: the rows' x decrease, so no node's box is its lines' (every one in the side table).
  wr_tools::TriangleMesh mirrored = wr_tools::convert_heightfield_to_trimesh(f, 0.1, 0.005, 0.75);
  for (size_t k = 0; k < mirrored.vertices.size(); k += 3) mirrored.vertices[k] = -mirrored.vertices[k];
  check_mesh<TestType>(mirrored, "parkour 96 x 41 mirrored in x", 20000);
}

namespace {

// Every vertex of the mesh `m` (rows x cols), as grid_vertex rebuilds it from the grid, against the
// caller's floats bit for bit.
void check_vertices(const wr_tools::TriangleMesh& m, const wr::GridMeshData& grid) {
  const wr::GridMeshView view = grid.view();
  const uint32_t rows = grid.cells_x + 1, cols = grid.cells_y + 1;
  REQUIRE(uint64_t(rows) * cols == m.vertices.size() / 3);
  uint64_t mismatches = 0;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      const Vec3 v = wr::detail::grid_vertex(view, r, c);
      const float* given = &m.vertices[3 * (uint64_t(r) * cols + c)];
      mismatches += wr_test::bits(v.x) != wr_test::bits(given[0]) || wr_test::bits(v.y) != wr_test::bits(given[1]) ||
                    wr_test::bits(v.z) != wr_test::bits(given[2]);
    }
  CHECK(mismatches == 0);
}

// The lone cells (GridMeshView::flags) against every pair of cells: a cell marked alone has no
// moved vertex and no other cell's extent meets the inside of its box. Returns how many are marked.
uint64_t check_alone(const wr::GridMeshData& grid) {
  const wr::GridMeshView view = grid.view();
  const uint32_t nx = grid.cells_x, ny = grid.cells_y;
  uint64_t marked = 0, wrong = 0;
  for (uint32_t r = 0; r < nx; ++r)
    for (uint32_t c = 0; c < ny; ++c) {
      if (!wr::detail::grid_cell_alone(view, r, c)) continue;
      wrong += !view.lookup;
      ++marked;
      const float bx0 = grid.xs[r], bx1 = grid.xs[r + 1], by0 = grid.ys[c], by1 = grid.ys[c + 1];
      for (uint32_t k = 0; k < 4; ++k) {  // its corners are its box's
        const Vec3 v = wr::detail::grid_vertex(view, r + k / 2, c + k % 2);
        wrong += v.x != (k / 2 ? bx1 : bx0) || v.y != (k % 2 ? by1 : by0);
      }
      for (uint32_t rr = 0; rr < nx; ++rr)
        for (uint32_t cc = 0; cc < ny; ++cc) {
          if (rr == r && cc == c) continue;
          float lo[3], hi[3];
          wr::detail::grid_node_box(view, 0, rr, cc, lo, hi);
          wrong += lo[0] < bx1 && hi[0] > bx0 && lo[1] < by1 && hi[1] > by0;
        }
    }
  CHECK(wrong == 0);
  return marked;
}

// Every node above the cells of the mesh `m`'s grid: its box (grid_stored_box: its lines' x and y and
// its z range, or its box in the side table) against the box of the vertices under it, computed here
// from the mesh's arrays; a node whose box reaches past its lines must be in the side table. Returns
// how many nodes are.
uint64_t check_node_boxes(const wr_tools::TriangleMesh& m, const wr::GridMeshData& grid) {
  const wr::GridMeshView view = grid.view();
  const uint64_t cols = uint64_t(grid.cells_y) + 1;
  uint64_t side = 0, wrong = 0, nodes = 0;
  for (uint32_t l = 1; l <= grid.top; ++l)
    for (uint32_t j = 0; j < wr::grid_level_size(grid.cells_y, l); ++j)
      for (uint32_t i = 0; i < wr::grid_level_size(grid.cells_x, l); ++i) {
        uint32_t x0, x1, y0, y1;
        wr::detail::grid_node_lines(view, l, i, j, &x0, &x1, &y0, &y1);
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint64_t r = x0; r <= x1; ++r)
          for (uint64_t c = y0; c <= y1; ++c)
            for (int a = 0; a < 3; ++a) {
              lo[a] = std::min(lo[a], m.vertices[3 * (r * cols + c) + a]);
              hi[a] = std::max(hi[a], m.vertices[3 * (r * cols + c) + a]);
            }
        float bmin[3], bmax[3];
        wr::detail::grid_stored_box(view, l, i, j, bmin, bmax);
        for (int a = 0; a < 3; ++a) wrong += bmin[a] != lo[a] || bmax[a] != hi[a];
        const bool on_side = std::isnan(view.ranges[2 * view.node_index(l, i, j)]);
        const bool past_lines =
            lo[0] != grid.xs[x0] || hi[0] != grid.xs[x1] || lo[1] != grid.ys[y0] || hi[1] != grid.ys[y1];
        wrong += past_lines && !on_side;
        side += on_side;
        ++nodes;
      }
  CHECK(wrong == 0);
  CHECK(nodes == grid.ranges.size() / 2);
  CHECK(grid.side_boxes.size() == 6 * side);
  return side;
}

}  // namespace

TEST_CASE(
    "a grid mesh gives back every vertex's floats, moved or not, -0 apart from +0, and its lone cells are alone") {
  const wr_tools::RawField f = parkour_raw(70, 37, 6);
  for (double threshold : {-1.0, 0.75, 1.5}) {
    INFO("slope threshold " << threshold);
    const wr_tools::TriangleMesh m = wr_tools::convert_heightfield_to_trimesh(f, 0.1, 0.005, threshold);
    wr::GridMeshData grid;
    REQUIRE(wr::build_grid_mesh_terrain(m.vertices.data(), m.vertices.size() / 3, m.indices.data(),
                                        m.indices.size() / 3, &grid));
    CHECK(grid.moved_xy.empty() == (threshold < 0));  // without a threshold no vertex moves
    CHECK(grid.lookup);
    check_vertices(m, grid);
    const uint64_t side = check_node_boxes(m, grid);
    CHECK((threshold < 0 ? side == 0 : side > 0));  // moved vertices reach past some nodes' lines
    const uint64_t alone = check_alone(grid);
    if (threshold < 0) CHECK(alone == uint64_t(grid.cells_x) * grid.cells_y);
    CHECK(alone > uint64_t(grid.cells_x) * grid.cells_y / 2);
  }
  {  // Mirrored in x: the rows' x decrease, so no node's box is its lines' (every one on the side).
    wr_tools::TriangleMesh m = wr_tools::convert_heightfield_to_trimesh(f, 0.1, 0.005, 0.75);
    for (size_t k = 0; k < m.vertices.size(); k += 3) m.vertices[k] = -m.vertices[k];
    wr::GridMeshData grid;
    REQUIRE(wr::build_grid_mesh_terrain(m.vertices.data(), m.vertices.size() / 3, m.indices.data(),
                                        m.indices.size() / 3, &grid));
    CHECK(check_node_boxes(m, grid) == grid.ranges.size() / 2);
  }
  // Vertices off the grid in every way: a row's x and a column's y with no majority, every vertex
  // jittered in a third of the rows, -0 where the rest of the column has +0, runs of moved vertices
  // across the 32-vertex words of marks.
  wr_tools::TriangleMesh m = wr_tools::convert_heightfield_to_trimesh(f, 0.1, 0.005, 0.75);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> jitter(-0.04f, 0.04f);
  const uint32_t cols = f.cols;
  for (uint32_t r = 0; r < f.rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      float* v = &m.vertices[3 * (size_t(r) * cols + c)];
      if (r % 3 == 1) v[0] += jitter(rng), v[1] += jitter(rng);
      if (r == 5) v[0] = float(c);  // no two alike
      if (c == 0 && r % 2 == 0) v[1] = -0.0f;
      if (r == 9 && c >= 20) v[1] += 0.01f;
    }
  wr::GridMeshData grid;
  REQUIRE(wr::build_grid_mesh_terrain(m.vertices.data(), m.vertices.size() / 3, m.indices.data(), m.indices.size() / 3,
                                      &grid));
  CHECK(grid.moved_xy.size() / 2 > m.vertices.size() / 3 / 3);
  check_vertices(m, grid);
  CHECK(check_node_boxes(m, grid) > 0);
  check_alone(grid);
  check_mesh<wr::HostTraversal>(m, "jittered parkour 70 x 37", 20000);
  check_mesh<wr::GpuTraversal>(m, "jittered parkour 70 x 37", 20000);
}

TEST_CASE("a grid mesh is recognised only in convert_heightfield_to_trimesh's layout") {
  const wr_tools::RawField f = parkour_raw(12, 9, 4);
  wr_tools::TriangleMesh m = wr_tools::convert_heightfield_to_trimesh(f, 0.1, 0.005, 0.75);
  wr::GridMeshData grid;
  REQUIRE(wr::build_grid_mesh_terrain(m.vertices.data(), m.vertices.size() / 3, m.indices.data(), m.indices.size() / 3,
                                      &grid));
  CHECK(grid.cells_x == 11);
  CHECK(grid.cells_y == 8);
  // 4 bytes a vertex row and column, a 64-byte line per 14 vertices (their z and flags), 8 per moved
  // vertex, 8 a row and a column of cells, 8 a node above the cells and 24 more for those whose box
  // reaches past their lines, and a bit per triangle where some have zero area.
  const uint64_t moved = grid.moved_xy.size() / 2;
  CHECK(moved > 0);
  CHECK(grid.bytes() == 4 * (12 + 9) + 64 * ((12 * 9 + 13) / 14) + 8 * moved + 8 * (11 + 8) +
                            8 * (6 * 4 + 3 * 2 + 2 * 1 + 1) + 24 * check_node_boxes(m, grid) +
                            4 * grid.zero_area.size());
  wr_tools::TriangleMesh swapped = m;  // one triangle's corners in another order
  std::swap(swapped.indices[7], swapped.indices[8]);
  CHECK_FALSE(wr::build_grid_mesh_terrain(swapped.vertices.data(), swapped.vertices.size() / 3, swapped.indices.data(),
                                          swapped.indices.size() / 3, &grid));
  wr_tools::TriangleMesh fewer = m;  // a triangle short
  fewer.indices.resize(fewer.indices.size() - 3);
  CHECK_FALSE(wr::build_grid_mesh_terrain(fewer.vertices.data(), fewer.vertices.size() / 3, fewer.indices.data(),
                                          fewer.indices.size() / 3, &grid));
  // More vertices than 32-bit indices name (65537 x 65537, with the triangles that many make): refused
  // from the counts and triangle 0 alone, before any vertex or later triangle is read.
  const uint32_t huge_first[3] = {0, 65537 + 1, 1};
  std::string why;
  CHECK_FALSE(wr::build_grid_mesh_terrain(m.vertices.data(), 65537ull * 65537ull, huge_first, 2ull * 65536 * 65536,
                                          &grid, nullptr, &why));
  CHECK(why == "num_vertices = 4295098369 is more than 2^32");
  CHECK(grid.cells_x == 11);  // untouched by the refusals
  // A zero-area triangle (two corners at one place) is marked, as the BVH leaves it out.
  wr_tools::TriangleMesh flat = m;
  for (int a = 0; a < 3; ++a) flat.vertices[3 * 1 + a] = flat.vertices[3 * 0 + a];
  wr::GridMeshData flat_grid;
  REQUIRE(wr::build_grid_mesh_terrain(flat.vertices.data(), flat.vertices.size() / 3, flat.indices.data(),
                                      flat.indices.size() / 3, &flat_grid));
  REQUIRE(flat_grid.zero_area.size() == (2 * 11 * 8 + 31) / 32);
  CHECK((flat_grid.zero_area[0] & 1u) == 1u);  // triangle 0: (v0, v10, v1)
}

TEST_CASE("a grid mesh's reach lookups are a binary search's bounds, from a guess and steps") {
  // Non-decreasing arrays, even, uneven, with runs of equal values and a single value, against
  // std::lower_bound (first >= x) and std::upper_bound (first > x), at values on, between and
  // outside their entries, infinities and NaN (no entry compares with NaN: n and 0).
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> step(0.0f, 1.0f);
  std::vector<std::vector<float>> arrays = {{0.0f}, {1.0f, 1.0f, 1.0f}, {-2.0f, -1.0f, 0.0f, 3.0f}};
  for (int k = 0; k < 20; ++k) {
    std::vector<float> a(1 + rng() % 300);
    float v = step(rng) * 10.0f - 5.0f;
    for (float& x : a) x = v, v += (k % 3 == 0 ? std::floor(3.0f * step(rng)) : step(rng)) * (k % 2 ? 0.05f : 1.0f);
    arrays.push_back(a);
  }
  const float inf = INFINITY;
  for (const std::vector<float>& a : arrays) {
    const uint32_t n = uint32_t(a.size());
    std::vector<float> xs = {-inf, inf, a.front() - 1.0f, a.back() + 1.0f};
    for (float x : a) xs.insert(xs.end(), {x, std::nextafter(x, -inf), std::nextafter(x, inf)});
    for (int k = 0; k < 50; ++k) xs.push_back(a.front() + (a.back() - a.front() + 2.0f) * step(rng) - 1.0f);
    for (float x : xs) {
      INFO("n = " << n << ", x = " << x);
      CHECK(wr::detail::first_at_least(a.data(), n, x) ==
            uint32_t(std::lower_bound(a.begin(), a.end(), x) - a.begin()));
      CHECK(wr::detail::first_above(a.data(), n, x) == uint32_t(std::upper_bound(a.begin(), a.end(), x) - a.begin()));
    }
    CHECK(wr::detail::first_at_least(a.data(), n, NAN) == n);
    CHECK(wr::detail::first_above(a.data(), n, NAN) == 0);
  }
}
