#include "scene/scene_terrain.h"

#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

#include "errors/status_error.h"
#include "scene/heightfield.h"
#include "scene/mesh_validation.h"

namespace wr {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The BVH of validated arrays, its arrays in `ledger`.
Bvh build_mesh_bvh(const char* function, const float* vertices, const uint32_t* indices, uint64_t num_triangles,
                   BvhBuildOptions options, MemoryLedger* ledger) {
  options.ledger = ledger;
  try {
    return build_bvh(vertices, indices, num_triangles, options);
  } catch (const std::length_error& e) {
    // A limit of the input's size (a scene of hundreds of millions of triangles whose leaves
    // need more corner words than 32-bit offsets reach), not a bug: named as such.
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": num_triangles = " + std::to_string(num_triangles) +
                                        " is too large for one scene: " + e.what());
  }
}

}  // namespace

SceneTerrain::SceneTerrain(const char* function, const float* vertices, uint64_t num_vertices, const uint32_t* indices,
                           uint64_t num_triangles, BvhBuildOptions options) {
  validate_mesh_arrays(function, vertices, num_vertices, indices, num_triangles);  // and the 2^31 - 1 limit
  const auto start = std::chrono::steady_clock::now();
  data_.emplace<Bvh>(build_mesh_bvh(function, vertices, indices, num_triangles, options, &ledger_));
  build_seconds_ = seconds_since(start);
  num_triangles_ = num_triangles;
  set_bounds();
}

SceneTerrain::SceneTerrain(const char* function, const wr_heightfield_desc& desc, int terrain,
                           BvhBuildOptions options) {
  if (terrain != WR_TERRAIN_AUTO && terrain != WR_TERRAIN_BVH && terrain != WR_TERRAIN_GRID)
    fail(WR_ERROR_INVALID_ARGUMENT, std::string(function) + ": desc->terrain = " + std::to_string(terrain) +
                                        ": must be WR_TERRAIN_AUTO (0), WR_TERRAIN_BVH (1) or WR_TERRAIN_GRID (2)");
  check_heightfield(function, desc);
  if (terrain == WR_TERRAIN_GRID) {
    const auto start = std::chrono::steady_clock::now();
    options.ledger = &ledger_;
    GridTerrainData grid(&ledger_);
    if (build_grid_terrain(function, desc, options, &grid)) {
      data_.emplace<GridTerrainData>(std::move(grid));
      build_seconds_ = seconds_since(start);
      num_triangles_ = heightfield_num_cell_triangles(desc) + heightfield_num_side_triangles(desc);
      set_bounds();
      return;
    }
    fail(WR_ERROR_INVALID_ARGUMENT,
         std::string(function) +
             ": desc->terrain = WR_TERRAIN_GRID, but this field cannot be traced as a grid: its columns or rows "
             "are not strictly increasing in float (origin far from 0 against the spacing, so some cells "
             "have no area) or more than 2^23 cells lie along a side; WR_TERRAIN_BVH traces it as a BVH");
  }
  const Mesh mesh = triangulate_heightfield(function, desc);
  validate_mesh_arrays(function, mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(), mesh.num_triangles());
  const auto start = std::chrono::steady_clock::now();
  data_.emplace<Bvh>(
      build_mesh_bvh(function, mesh.vertices.data(), mesh.indices.data(), mesh.num_triangles(), options, &ledger_));
  build_seconds_ = seconds_since(start);
  num_triangles_ = mesh.num_triangles();
  set_bounds();
}

SceneTerrain::SceneTerrain(GridMeshArrays, const char* function, const float* vertices, uint64_t num_vertices,
                           const uint32_t* indices, uint64_t num_triangles) {
  validate_mesh_arrays(function, vertices, num_vertices, indices, num_triangles);
  const auto start = std::chrono::steady_clock::now();
  std::string why;
  GridMeshData mesh(&ledger_);
  if (!build_grid_mesh_terrain(vertices, num_vertices, indices, num_triangles, &mesh, &ledger_, &why))
    fail(WR_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": the arrays are not a grid-topology mesh (legged_gym's " +
             "convert_heightfield_to_trimesh layout: vertex (r, c) at r cols + c, cell (r, c)'s triangles " +
             "2 (r (cols - 1) + c) + 0 and + 1): " + why + "; wr_scene_create takes any mesh");
  data_.emplace<GridMeshData>(std::move(mesh));
  build_seconds_ = seconds_since(start);
  num_triangles_ = num_triangles;
  set_bounds();
}

TerrainView SceneTerrain::view() const {
  TerrainView t;
  t.kind = kind();
  with_terrain_kind(t.kind, [&](auto kind) { view_of(kind, t) = data<decltype(kind)>().view(); });
  return t;
}

void SceneTerrain::set_bounds() {
  std::visit([&](const auto& d) { d.corner_bounds(bounds_min_, bounds_max_); }, data_);
}

}  // namespace wr
