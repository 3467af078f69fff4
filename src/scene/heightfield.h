// Height fields as scene input (wr.h, wr_scene_create_heightfield): the grid of samples turned
// into the triangle mesh the scene is built from, triangulated as MuJoCo triangulates its hfield
// (engine_ray.c, mj_rayHfield: cell (c, r) split along the diagonal from sample (c, r) to
// (c + 1, r + 1)), optionally closed into MuJoCo's solid (border walls down to a base, and a
// bottom).
#pragma once

#include <wr/wr.h>

#include "scene/mesh.h"

namespace wr {

// Checks `desc` (messages "<function>: desc->field ..."; the first non-finite sample by its
// (ix, iy)) and returns its mesh:
//   vertices  the num_x x num_y samples, vertex iy num_x + ix; with a base, then the border's
//             samples again at the base's height, in the order of border_samples()
//   triangles 2 per cell (wr.h numbers them), then with a base 2 per border edge and 2 for the
//             bottom.
// Throws WR_ERROR_INVALID_ARGUMENT; the mesh's arrays may throw std::bad_alloc.
Mesh triangulate_heightfield(const char* function, const wr_heightfield_desc& desc);

// The parts triangulate_heightfield is made of, for the grid terrain (scene/grid_builder.h),
// which holds the same vertices and triangles in its own form.

// The checks of triangulate_heightfield, allocating nothing.
void check_heightfield(const char* function, const wr_heightfield_desc& desc);

// Where desc->heights holds sample (ix, iy).
inline uint64_t heightfield_index(const wr_heightfield_desc& d, uint64_t ix, uint64_t iy) {
  return d.layout == WR_HEIGHTFIELD_X_FASTEST ? iy * d.num_x + ix : ix * d.num_y + iy;
}

// Vertex (ix, iy) of the grid, as wr.h computes it (every backend's vertices are these floats);
// throws WR_ERROR_INVALID_ARGUMENT where a coordinate overflows float. desc checked.
void heightfield_sample(const char* function, const wr_heightfield_desc& desc, uint64_t ix, uint64_t iy, float out[3]);

inline uint64_t heightfield_num_cell_triangles(const wr_heightfield_desc& d) {
  return 2 * (uint64_t(d.num_x) - 1) * (uint64_t(d.num_y) - 1);
}
inline uint64_t heightfield_num_border_samples(const wr_heightfield_desc& d) {
  return 2 * (uint64_t(d.num_x) + d.num_y) - 4;  // = the border's edges
}
inline uint64_t heightfield_num_side_triangles(const wr_heightfield_desc& d) {
  return d.base_depth > 0.0f ? 2 * heightfield_num_border_samples(d) + 2 : 0;
}

// With a base, the walls and the bottom as a mesh of their own: vertices the border's samples
// on top, then the same at the base's height; triangles in the scene's order (its ids
// heightfield_num_cell_triangles(desc) on). Empty without a base. desc checked.
Mesh heightfield_sides(const char* function, const wr_heightfield_desc& desc);

}  // namespace wr
