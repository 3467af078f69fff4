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
#include <variant>

#include "core/terrain.h"
#include "scene/bvh_builder.h"
#include "scene/grid_builder.h"
#include "scene/grid_mesh_builder.h"

namespace wr {

// Each kind's host data (core/terrain.h's list), each offering one interface: view() (where the
// host reads it), for_each_array (its arrays with their ledger tags, which a device uploads into
// the view: kernels/cuda_device.cpp) and corner_bounds.
template <class Kind>
struct HostData;
template <>
struct HostData<BvhTerrain> {
  using type = Bvh;
};
template <>
struct HostData<GridTerrain> {
  using type = GridTerrainData;
};
template <>
struct HostData<GridMeshTerrain> {
  using type = GridMeshData;
};
template <class Kind>
using HostDataOf = typename HostData<Kind>::type;

// One alternative per kind, in the list's order (so that index() is the TerrainKind).
template <class... Data>
struct TerrainDataOf;
template <class... Data>
struct TerrainDataOf<void, Data...> {
  using type = std::variant<Data...>;
};
#define WR_TERRAIN_HOST_DATA(e, Kind, member) , HostDataOf<Kind>
using TerrainData = typename TerrainDataOf<void WR_TERRAIN_KINDS(WR_TERRAIN_HOST_DATA)>::type;
#undef WR_TERRAIN_HOST_DATA
static_assert(std::variant_size_v<TerrainData> == kNumTerrainKinds, "a host data per kind");

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

  TerrainKind kind() const { return static_cast<TerrainKind>(data_.index()); }
  template <class Kind>
  bool is() const {
    return std::holds_alternative<HostDataOf<Kind>>(data_);
  }
  // Where the host reads it (TerrainView's member of kind()).
  TerrainView view() const;
  // The host data of kind Kind (is<Kind>() only).
  template <class Kind>
  const HostDataOf<Kind>& data() const {
    return std::get<HostDataOf<Kind>>(data_);
  }

  uint64_t num_triangles() const { return num_triangles_; }  // as given, zero-area ones included
  // Bounds of every triangle's corners, zero-area triangles included.
  const float* bounds_min() const { return bounds_min_; }
  const float* bounds_max() const { return bounds_max_; }
  double build_seconds() const { return build_seconds_; }
  MemoryLedger& ledger() { return ledger_; }
  const MemoryLedger& ledger() const { return ledger_; }

 private:
  void set_bounds();

  MemoryLedger ledger_;  // declared first: outlives the arrays it records
  TerrainData data_;     // the kind's arrays, this object's bytes
  float bounds_min_[3] = {}, bounds_max_[3] = {};
  double build_seconds_ = 0.0;
  uint64_t num_triangles_ = 0;
};

}  // namespace wr
