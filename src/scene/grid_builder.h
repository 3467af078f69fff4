// The grid terrain of a height field (core/grid_terrain.h), built from wr_scene_create_heightfield's
// desc: the same vertices and triangles as triangulate_heightfield (scene/heightfield.h) makes for
// the BVH, held as the grid's samples and a min-max pyramid. O(samples) time.
#pragma once

#include <wr/wr.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/grid_terrain.h"
#include "memory/tracked_allocator.h"
#include "scene/bvh_builder.h"

namespace wr {

// Its arrays are recorded in `ledger` (null: nowhere) under the grid's tags.
// Its levels (GridLevels) as grid_levels makes them.
struct GridTerrainData : GridLevels {
  explicit GridTerrainData(MemoryLedger* ledger = nullptr)
      : GridLevels{},
        xs(TrackedAllocator<float>(ledger, MemoryTag::kGridSamples)),
        ys(TrackedAllocator<float>(ledger, MemoryTag::kGridSamples)),
        zs(TrackedAllocator<float>(ledger, MemoryTag::kGridSamples)),
        bounds(TrackedAllocator<float>(ledger, MemoryTag::kGridPyramid)) {}
  TrackedVector<float> xs, ys;  // (cells_x + 1), (cells_y + 1) vertex x of each column, y of each row
  TrackedVector<float> zs;      // ((cells_y + 1) x (cells_x + 1)) vertex z
  TrackedVector<float> bounds;  // (2 x nodes above the cells) z min and max
  Bvh sides;                    // a base's walls and bottom; no nodes without a base
  bool has_sides() const { return !sides.nodes.empty(); }

  GridView view() const;
  // Its arrays as Bvh::for_each_array's (the base's BVH too: empty without a base).
  template <class Fn>
  void for_each_array(GridView& v, Fn&& f) const {
    f(MemoryTag::kGridSamples, "uploading the grid's columns", xs.data(), xs.size(), v.xs);
    f(MemoryTag::kGridSamples, "uploading the grid's rows", ys.data(), ys.size(), v.ys);
    f(MemoryTag::kGridSamples, "uploading the grid's samples", zs.data(), zs.size(), v.zs);
    f(MemoryTag::kGridPyramid, "uploading the grid's pyramid", bounds.data(), bounds.size(), v.bounds);
    sides.for_each_array(v.sides, f);
  }
  // Bounds of every triangle's corners: the top node's box (every sample is a corner), and the
  // base's.
  void corner_bounds(float lo[3], float hi[3]) const;
  // Bytes of the samples (x, y, z) and of the pyramid, the sides' BVH apart.
  uint64_t sample_bytes() const { return 4 * (xs.size() + ys.size() + zs.size()); }
  uint64_t pyramid_bytes() const { return 4 * bounds.size(); }
};

// The pyramid's levels over cells_x x cells_y cells into *levels (GridLevels), and *nodes, the
// nodes of levels 1 .. top. False where more than kMaxGridLevels levels would be needed.
bool grid_levels(uint32_t cells_x, uint32_t cells_y, GridLevels* levels, uint64_t* nodes);

// Checks `desc` as triangulate_heightfield does (same messages, `function` first) and builds its
// grid terrain into *out, its arrays and the sides' BVH recorded in sides_options.ledger. Returns false, *out
// untouched, when a cell's triangles have zero area (columns or rows that float cannot tell apart: origin far from 0
// against a small spacing), which the BVH leaves out, or when more than 2^23 cells lie along x or y: such a field is
// only traced as a BVH.
bool build_grid_terrain(const char* function, const wr_heightfield_desc& desc, const BvhBuildOptions& sides_options,
                        GridTerrainData* out);

}  // namespace wr
