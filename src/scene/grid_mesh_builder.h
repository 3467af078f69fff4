// The grid kind of a grid-topology mesh (core/grid_mesh_terrain.h): recognises the layout
// convert_heightfield_to_trimesh gives (legged_gym, IsaacLab) in a mesh's arrays, splits its
// vertices into the rows' x, the columns' y, the z and the moved ones, and builds its pyramid of
// z ranges (and boxes where they reach past their lines). O(triangles) time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/grid_mesh_terrain.h"
#include "memory/tracked_allocator.h"

namespace wr {

// Its arrays are recorded in `ledger` (null: nowhere) under the grid's tags.
// Its levels (GridLevels) as grid_levels makes them.
struct GridMeshData : GridLevels {
  explicit GridMeshData(MemoryLedger* ledger = nullptr)
      : GridLevels{},
        xs(TrackedAllocator<float>(ledger, MemoryTag::kGridSamples)),
        ys(TrackedAllocator<float>(ledger, MemoryTag::kGridSamples)),
        lines(TrackedAllocator<uint32_t>(ledger, MemoryTag::kGridSamples)),
        moved_xy(TrackedAllocator<float>(ledger, MemoryTag::kGridSamples)),
        ranges(TrackedAllocator<float>(ledger, MemoryTag::kGridPyramid)),
        side_boxes(TrackedAllocator<float>(ledger, MemoryTag::kGridPyramid)),
        reach(TrackedAllocator<float>(ledger, MemoryTag::kGridSamples)),
        zero_area(TrackedAllocator<uint32_t>(ledger, MemoryTag::kGridSamples)) {}
  TrackedVector<float> xs, ys;        // (rows), (cols) GridMeshView::xs, ys
  TrackedVector<uint32_t> lines;      // (16 ceil(rows cols / 14)) GridMeshView::lines: z and flags
  TrackedVector<float> moved_xy;      // (moved vertices x 2)
  TrackedVector<float> ranges;        // (2 x nodes above the cells) GridMeshView::ranges
  TrackedVector<float> side_boxes;    // (6 x nodes marked in ranges) GridMeshView::side_boxes
  TrackedVector<float> reach;         // (2 cells_x + 2 cells_y) GridMeshView::reach
  TrackedVector<uint32_t> zero_area;  // (ceil(triangles / 32)) a bit per zero-area triangle; empty if none
  bool lookup = false;                // GridMeshView::lookup
  float cells_per_x = 0.0f, cells_per_y = 0.0f;

  GridMeshView view() const;
  // Its arrays as Bvh::for_each_array's (the empty ones: no moved vertices, no side boxes, no
  // zero-area triangle, as null pointers).
  template <class Fn>
  void for_each_array(GridMeshView& v, Fn&& f) const {
    f(MemoryTag::kGridSamples, "uploading the grid's rows", xs.data(), xs.size(), v.xs);
    f(MemoryTag::kGridSamples, "uploading the grid's columns", ys.data(), ys.size(), v.ys);
    f(MemoryTag::kGridSamples, "uploading the grid's vertex z and flags", lines.data(), lines.size(), v.lines);
    f(MemoryTag::kGridSamples, "uploading the grid's moved vertices", moved_xy.data(), moved_xy.size(), v.moved_xy);
    f(MemoryTag::kGridPyramid, "uploading the grid's pyramid", ranges.data(), ranges.size(), v.ranges);
    f(MemoryTag::kGridPyramid, "uploading the grid's side boxes", side_boxes.data(), side_boxes.size(), v.side_boxes);
    f(MemoryTag::kGridSamples, "uploading the grid's reach", reach.data(), reach.size(), v.reach);
    f(MemoryTag::kGridSamples, "uploading the grid's zero-area bits", zero_area.data(), zero_area.size(), v.zero_area);
  }
  // Bounds of every triangle's corners: the top node's box.
  void corner_bounds(float lo[3], float hi[3]) const;
  uint64_t bytes() const {
    return 4 * (xs.size() + ys.size() + lines.size() + moved_xy.size() + ranges.size() + side_boxes.size() +
                reach.size() + zero_area.size());
  }
};

// True, and the mesh's grid in *out (its arrays recorded in `ledger`), when the triangles are
// grid_mesh_terrain.h's layout over the vertices in their order (rows x cols of them, rows and
// cols >= 2), at most 2^23 cells lie along a side and at most 2^32 vertices in all; false, *out
// untouched and the first thing that is not so in *why (where not null), otherwise. Zero-area
// triangles (zero_area_triangle.h, left out of a BVH) are marked, never hit. vertices
// (num_vertices x 3) finite and indices (num_triangles x 3) in range, as the scene's validation
// leaves them.
bool build_grid_mesh_terrain(const float* vertices, uint64_t num_vertices, const uint32_t* indices,
                             uint64_t num_triangles, GridMeshData* out, MemoryLedger* ledger = nullptr,
                             std::string* why = nullptr);

}  // namespace wr
