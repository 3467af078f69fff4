// A scene's terrain on the host (named apart from wr.hpp's wr::Scene): of one kind
// (core/terrain.h), built once and shared by every sensor and env, immutable after construction:
//   the triangle BVH of a mesh (wr_scene_create, _load_obj; a height field asked for as one),
//   a height field's grid (wr_scene_create_heightfield: scene/grid_builder.h),
//   a grid-topology mesh's grid (wr_scene_create_grid_mesh: scene/grid_mesh_builder.h).
// Every kind reports the same triangles (their count, bounds and ids) as the BVH of the same
// mesh would; only its bytes, and what it is fast at, differ.
#pragma once

#include <wr/wr.h>

#include <cstdint>

#include "core/terrain.h"
#include "scene/bvh_builder.h"
#include "scene/grid_builder.h"
#include "scene/grid_mesh_builder.h"

namespace wr {

class SceneTerrain {
 public:
  // A mesh's BVH: validates the arrays (see mesh_validation.h; `function` prefixes error
  // messages) and builds it with `options` (the device's: DeviceBackend::bvh_build_options; their
  // ledger is replaced by this scene's).
  SceneTerrain(const char* function, const float* vertices, uint64_t num_vertices, const uint32_t* indices,
               uint64_t num_triangles, BvhBuildOptions options = BvhBuildOptions{});

  // A height field (desc checked here, messages "<function>: desc->..."), as the kind `terrain`
  // (a wr_terrain_kind: WR_TERRAIN_AUTO is the BVH, whose packets trace cameras fastest on the
  // CPU; WR_TERRAIN_GRID where the field has no grid is refused, naming why).
  SceneTerrain(const char* function, const wr_heightfield_desc& desc, int terrain,
               BvhBuildOptions options = BvhBuildOptions{});

  // A grid-topology mesh's grid (legged_gym's convert_heightfield_to_trimesh arrays): validates
  // the arrays as the first constructor does, then refuses (WR_ERROR_INVALID_ARGUMENT, naming the
  // first triangle out of the layout) arrays that are not in grid_mesh_terrain.h's layout.
  struct GridMeshArrays {};
  SceneTerrain(GridMeshArrays, const char* function, const float* vertices, uint64_t num_vertices,
               const uint32_t* indices, uint64_t num_triangles);

  TerrainKind kind() const { return kind_; }
  // Where the host reads it (TerrainView's member of kind()).
  TerrainView view() const;
  const Bvh& bvh() const { return bvh_; }                  // kind() kBvh only
  const GridTerrainData& grid() const { return grid_; }    // kGrid only
  const GridMeshData& grid_mesh() const { return mesh_; }  // kGridMesh only

  uint64_t num_triangles() const { return num_triangles_; }  // as given, zero-area ones included
  // Bounds of every triangle's corners, zero-area triangles included.
  const float* bounds_min() const { return bounds_min_; }
  const float* bounds_max() const { return bounds_max_; }
  double build_seconds() const { return build_seconds_; }
  MemoryLedger& ledger() { return ledger_; }
  const MemoryLedger& ledger() const { return ledger_; }

 private:
  void set_bounds_from_view();

  MemoryLedger ledger_;  // declared first: outlives the arrays it records
  TerrainKind kind_ = TerrainKind::kBvh;
  // The kind's arrays (the others stay empty), members so that their objects are this one's bytes.
  Bvh bvh_;
  GridTerrainData grid_{&ledger_};
  GridMeshData mesh_{&ledger_};
  float bounds_min_[3] = {}, bounds_max_[3] = {};
  double build_seconds_ = 0.0;
  uint64_t num_triangles_ = 0;
};

}  // namespace wr
