#include "scene/scene_terrain.h"

#include <chrono>
#include <stdexcept>
#include <string>

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
  bvh_ = build_mesh_bvh(function, vertices, indices, num_triangles, options, &ledger_);
  build_seconds_ = seconds_since(start);
  num_triangles_ = num_triangles;
  for (int a = 0; a < 3; ++a) bounds_min_[a] = bvh_.corners_min[a], bounds_max_[a] = bvh_.corners_max[a];
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
    if (build_grid_terrain(function, desc, options, &grid_)) {
      build_seconds_ = seconds_since(start);
      kind_ = TerrainKind::kGrid;
      num_triangles_ = heightfield_num_cell_triangles(desc) + heightfield_num_side_triangles(desc);
      set_bounds_from_view();
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
  bvh_ = build_mesh_bvh(function, mesh.vertices.data(), mesh.indices.data(), mesh.num_triangles(), options, &ledger_);
  build_seconds_ = seconds_since(start);
  num_triangles_ = mesh.num_triangles();
  for (int a = 0; a < 3; ++a) bounds_min_[a] = bvh_.corners_min[a], bounds_max_[a] = bvh_.corners_max[a];
}

SceneTerrain::SceneTerrain(GridMeshArrays, const char* function, const float* vertices, uint64_t num_vertices,
                           const uint32_t* indices, uint64_t num_triangles) {
  validate_mesh_arrays(function, vertices, num_vertices, indices, num_triangles);
  const auto start = std::chrono::steady_clock::now();
  std::string why;
  if (!build_grid_mesh_terrain(vertices, num_vertices, indices, num_triangles, &mesh_, &ledger_, &why))
    fail(WR_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": the arrays are not a grid-topology mesh (legged_gym's " +
             "convert_heightfield_to_trimesh layout: vertex (r, c) at r cols + c, cell (r, c)'s triangles " +
             "2 (r (cols - 1) + c) + 0 and + 1): " + why + "; wr_scene_create takes any mesh");
  build_seconds_ = seconds_since(start);
  kind_ = TerrainKind::kGridMesh;
  num_triangles_ = num_triangles;
  set_bounds_from_view();
}

TerrainView SceneTerrain::view() const {
  TerrainView t;
  t.kind = kind_;
  if (kind_ == TerrainKind::kBvh) t.bvh = bvh_.view();
  if (kind_ == TerrainKind::kGrid) t.grid = grid_.view();
  if (kind_ == TerrainKind::kGridMesh) t.grid_mesh = mesh_.view();
  return t;
}

// A grid's bounds are its top node's box: every vertex is a corner of one of its triangles. A
// height field's base adds its sides' corners (their BVH's bounds).
void SceneTerrain::set_bounds_from_view() {
  if (kind_ == TerrainKind::kGrid) {
    const GridView g = grid_.view();
    float zmin, zmax;
    detail::grid_node_z(g, g.top, 0, 0, &zmin, &zmax);
    const float lo[3] = {grid_.xs.front(), grid_.ys.front(), zmin};
    const float hi[3] = {grid_.xs.back(), grid_.ys.back(), zmax};
    for (int a = 0; a < 3; ++a) {
      bounds_min_[a] = lo[a], bounds_max_[a] = hi[a];
      if (grid_.has_sides()) {
        const Bvh& s = grid_.sides;
        bounds_min_[a] = s.corners_min[a] < bounds_min_[a] ? s.corners_min[a] : bounds_min_[a];
        bounds_max_[a] = s.corners_max[a] > bounds_max_[a] ? s.corners_max[a] : bounds_max_[a];
      }
    }
  } else {
    const GridMeshView g = mesh_.view();
    detail::grid_node_box(g, g.top, 0, 0, bounds_min_, bounds_max_);
  }
}

}  // namespace wr
