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

}  // namespace wr
