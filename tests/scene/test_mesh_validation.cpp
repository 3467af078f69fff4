// validate_mesh_arrays: every rejection with its status and message, valid and degenerate
// meshes accepted, the first bad entry found past the scan's chunk boundaries, and speed.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "errors/status_error.h"
#include "scene/mesh_validation.h"
#include "triangle_mesh.h"

using wr::validate_mesh_arrays;

namespace {

// Runs validate_mesh_arrays and returns the message it throws, checking the status is
// WR_ERROR_INVALID_ARGUMENT; fails the test when nothing is thrown.
std::string rejection(const char* function, const float* vertices, uint64_t num_vertices, const uint32_t* indices,
                      uint64_t num_triangles) {
  try {
    validate_mesh_arrays(function, vertices, num_vertices, indices, num_triangles);
  } catch (const wr::StatusError& e) {
    CHECK(e.status() == WR_ERROR_INVALID_ARGUMENT);
    return e.what();
  }
  FAIL("validate_mesh_arrays accepted the arrays");
  return {};
}

// A 3 x 3 grid of vertices (9) and 3 triangles over it.
wr_tools::TriangleMesh small_mesh() {
  wr_tools::TriangleMesh m;
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) m.vertex(float(x), float(y), 0.5f);
  m.indices = {0, 1, 4, 0, 4, 3, 1, 2, 5};
  return m;
}

// A big grid: (n x n) vertices, 2 (n - 1)^2 triangles.
wr_tools::TriangleMesh grid_mesh(uint32_t n) {
  wr_tools::TriangleMesh m;
  m.vertices.reserve(size_t(n) * n * 3);
  for (uint32_t y = 0; y < n; ++y)
    for (uint32_t x = 0; x < n; ++x) m.vertex(float(x), float(y), float((x * y) % 7));
  m.indices.reserve(size_t(n - 1) * (n - 1) * 6);
  for (uint32_t y = 0; y + 1 < n; ++y)
    for (uint32_t x = 0; x + 1 < n; ++x) {
      const uint32_t a = y * n + x, b = a + 1, c = a + n, d = c + 1;
      m.triangle(a, b, d);
      m.triangle(a, d, c);
    }
  return m;
}

}  // namespace

TEST_CASE("valid meshes pass", "[mesh_validation]") {
  wr_tools::TriangleMesh m = small_mesh();
  REQUIRE_NOTHROW(validate_mesh_arrays("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(),
                                       m.num_triangles()));

  // The largest index allowed is num_vertices - 1; extreme but finite coordinates are fine.
  m.indices[8] = 8;
  m.vertices[0] = std::numeric_limits<float>::max();
  m.vertices[1] = -std::numeric_limits<float>::max();
  m.vertices[2] = std::numeric_limits<float>::denorm_min();
  REQUIRE_NOTHROW(validate_mesh_arrays("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(),
                                       m.num_triangles()));

  // A single triangle.
  const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const uint32_t ids[3] = {2, 0, 1};
  REQUIRE_NOTHROW(validate_mesh_arrays("wr_scene_create", tri, 3, ids, 1));
}

TEST_CASE("degenerate triangles are accepted", "[mesh_validation]") {
  // Repeated indices, collinear corners and all three corners at one point.
  const float v[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 0};
  const uint32_t ids[12] = {0, 0, 1, 2, 2, 2, 0, 1, 2, 0, 3, 0};
  REQUIRE_NOTHROW(validate_mesh_arrays("wr_scene_create", v, 4, ids, 4));
}

TEST_CASE("NULL arrays and zero counts are named", "[mesh_validation]") {
  wr_tools::TriangleMesh m = small_mesh();
  CHECK(rejection("wr_scene_create", nullptr, m.num_vertices(), m.indices.data(), m.num_triangles()) ==
        "wr_scene_create: vertices is NULL");
  CHECK(rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), nullptr, m.num_triangles()) ==
        "wr_scene_create: indices is NULL");
  CHECK(rejection("wr_scene_create", m.vertices.data(), 0, m.indices.data(), m.num_triangles()) ==
        "wr_scene_create: num_vertices is 0");
  CHECK(rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(), 0) ==
        "wr_scene_create: num_triangles is 0");
  // The prefix is whatever function the caller serves.
  CHECK(rejection("wr_scene_load_obj", nullptr, m.num_vertices(), m.indices.data(), m.num_triangles()) ==
        "wr_scene_load_obj: vertices is NULL");
}

TEST_CASE("sizes that overflow or exceed the triangle id range are rejected before any read", "[mesh_validation]") {
  // The arrays are tiny: a validator that read before checking the sizes would crash here.
  wr_tools::TriangleMesh m = small_mesh();
  const uint64_t overflow = std::numeric_limits<uint64_t>::max() / 3 + 1;

  std::string msg = rejection("wr_scene_create", m.vertices.data(), overflow, m.indices.data(), m.num_triangles());
  CHECK_THAT(msg, Catch::StartsWith("wr_scene_create: num_vertices = " + std::to_string(overflow) + " is too large"));
  CHECK_THAT(msg, Catch::Contains("overflows"));

  msg = rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(), overflow);
  CHECK_THAT(msg, Catch::StartsWith("wr_scene_create: num_triangles = " + std::to_string(overflow) + " is too large"));
  CHECK_THAT(msg, Catch::Contains("overflows"));

  // The BVH numbers its nodes (up to 2 per triangle) in 32 bits: at most 2^31 - 1 triangles,
  // refused before the 2^31 x 3 indices the count claims are read.
  msg = rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(), 2147483648ull);
  CHECK_THAT(msg, Catch::StartsWith("wr_scene_create: num_triangles = 2147483648 is too large: at most 2147483647"));
  msg = rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(), 4294967295ull);
  CHECK_THAT(msg, Catch::StartsWith("wr_scene_create: num_triangles = 4294967295 is too large: at most 2147483647"));
  msg = rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(), 4294967296ull + 7);
  CHECK_THAT(msg, Catch::StartsWith("wr_scene_create: num_triangles = 4294967303 is too large"));
}

TEST_CASE("the first out-of-range index is named with its triangle, corner and num_vertices", "[mesh_validation]") {
  wr_tools::TriangleMesh m = small_mesh();
  m.indices[7] = 12;  // triangle 2, corner 1
  CHECK(rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles()) ==
        "wr_scene_create: indices[7] (triangle 2, corner 1) = 12 is out of range: num_vertices is 9");

  // num_vertices itself is one past the end; the first of several bad ones is reported.
  m.indices[4] = 9;
  m.indices[5] = 4000000000u;
  CHECK(rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles()) ==
        "wr_scene_create: indices[4] (triangle 1, corner 1) = 9 is out of range: num_vertices is 9");

  // Fewer vertices declared than the array holds: the declared count rules.
  wr_tools::TriangleMesh ok = small_mesh();
  CHECK(rejection("wr_scene_create", ok.vertices.data(), 5, ok.indices.data(), ok.num_triangles()) ==
        "wr_scene_create: indices[8] (triangle 2, corner 2) = 5 is out of range: num_vertices is 5");
}

TEST_CASE("the first non-finite vertex is named with its coordinates", "[mesh_validation]") {
  wr_tools::TriangleMesh m = small_mesh();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  m.vertices[3 * 4 + 0] = 1.0f;
  m.vertices[3 * 4 + 1] = nan;
  m.vertices[3 * 4 + 2] = 0.0f;
  CHECK(rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles()) ==
        "wr_scene_create: vertex 4 = (1, nan, 0) is not finite");

  m.vertices[3 * 2 + 2] = -inf;
  CHECK(rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles()) ==
        "wr_scene_create: vertex 2 = (2, 0, -inf) is not finite");

  // Unreferenced vertices count too: the scene's bounds cover every vertex.
  wr_tools::TriangleMesh u = small_mesh();
  u.vertices[3 * 8 + 0] = inf;
  CHECK(rejection("wr_scene_create", u.vertices.data(), u.num_vertices(), u.indices.data(), u.num_triangles()) ==
        "wr_scene_create: vertex 8 = (inf, 2, 0.5) is not finite");
}

TEST_CASE("indices are checked before vertices", "[mesh_validation]") {
  wr_tools::TriangleMesh m = small_mesh();
  m.vertices[0] = std::numeric_limits<float>::quiet_NaN();
  m.indices[8] = 100;
  CHECK_THAT(rejection("wr_scene_create", m.vertices.data(), m.num_vertices(), m.indices.data(), m.num_triangles()),
             Catch::StartsWith("wr_scene_create: indices[8] (triangle 2, corner 2) = 100"));
}

TEST_CASE("bad entries deep inside large arrays are found exactly", "[mesh_validation]") {
  const wr_tools::TriangleMesh g =
      grid_mesh(300);  // 90000 vertices, 178802 triangles: many scan chunks, a partial last one
  REQUIRE(g.num_triangles() == 2ull * 299 * 299);
  REQUIRE_NOTHROW(validate_mesh_arrays("wr_scene_create", g.vertices.data(), g.num_vertices(), g.indices.data(),
                                       g.num_triangles()));

  for (uint64_t pos : {uint64_t(4095), uint64_t(4096), uint64_t(300001), g.num_triangles() * 3 - 1}) {
    wr_tools::TriangleMesh b = g;
    b.indices[pos] = 90000;
    const std::string expected = "wr_scene_create: indices[" + std::to_string(pos) + "] (triangle " +
                                 std::to_string(pos / 3) + ", corner " + std::to_string(pos % 3) +
                                 ") = 90000 is out of range: num_vertices is 90000";
    CHECK(rejection("wr_scene_create", b.vertices.data(), b.num_vertices(), b.indices.data(), b.num_triangles()) ==
          expected);
  }

  for (uint64_t vertex : {uint64_t(1365), uint64_t(1366), uint64_t(54321), g.num_vertices() - 1}) {
    wr_tools::TriangleMesh b = g;
    b.vertices[3 * vertex + 1] = std::numeric_limits<float>::infinity();
    CHECK_THAT(
        rejection("wr_scene_create", b.vertices.data(), b.num_vertices(), b.indices.data(), b.num_triangles()),
        Catch::StartsWith("wr_scene_create: vertex " + std::to_string(vertex) + " = (") &&
            Catch::EndsWith(", inf, " + std::to_string((vertex % 300) * (vertex / 300) % 7) + ") is not finite"));
  }
}

TEST_CASE("a million triangles validate in milliseconds", "[mesh_validation][performance]") {
  const wr_tools::TriangleMesh g = grid_mesh(709);  // 502681 vertices, 1002528 triangles
  REQUIRE(g.num_triangles() > 1000000);
  double best_ms = 1e9;
  for (int run = 0; run < 3; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    validate_mesh_arrays("wr_scene_create", g.vertices.data(), g.num_vertices(), g.indices.data(), g.num_triangles());
    const auto t1 = std::chrono::steady_clock::now();
    best_ms = std::min(best_ms, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  // A few ms in a release build; the bound is loose so a loaded machine or a debug build
  // does not fail, while anything worse than one linear pass would.
  INFO("validated 1002528 triangles in " << best_ms << " ms");
  CHECK(best_ms < 100.0);
}
