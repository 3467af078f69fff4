// Flattened BVH as the traversal reads it: index-based fixed-size nodes and triangles
// permuted into leaf order. Built on the host (src/scene/bvh_builder), read by the CPU
// backend and uploaded unchanged to the GPU.
#pragma once

#include <stddef.h>

#include "platform.h"

namespace wr {

// 32 bytes, 16-byte aligned: two nodes fill one 64-byte cache line. The builder keeps the
// two children of every inner node adjacent at an even index (node 1 is left unused for
// that), so the pair that traversal tests together always shares one line.
struct alignas(16) BvhNode {
  float bmin[3];
  uint32_t first;  // inner node: index of the left child (the right one is first + 1);
                   // leaf: index of its first triangle in leaf order
  float bmax[3];
  uint32_t count;  // 0: inner node; > 0: number of triangles in the leaf
};
static_assert(sizeof(BvhNode) == 32, "BvhNode must stay 32 bytes (two per cache line)");
static_assert(offsetof(BvhNode, bmax) == 16, "traversal reads bmax 4 floats after bmin");

// 40 bytes: the exact corners (the watertight test needs vertices, not edges, so shared
// edges stay bit-identical) and the input id, nothing else. Unpadded on purpose: triangles
// are most of a scene's memory (63 of its bytes per triangle with the nodes); 8-byte
// alignment still allows paired loads.
struct alignas(8) BvhTriangle {
  float v0[3];
  float v1[3];
  float v2[3];
  uint32_t id;  // index of the triangle in the scene's input order
};
static_assert(sizeof(BvhTriangle) == 40, "BvhTriangle must stay 40 bytes");

// Read-only view of a built BVH: host or device pointers, the traversal does not care.
struct BvhView {
  const BvhNode* nodes;      // (num_nodes); root at 0, node 1 unused
  const BvhTriangle* tris;   // (num_triangles) in leaf order
  const uint32_t* parents;   // (num_nodes) parent of each node, kInvalidIndex for the root;
                             // used only by the stackless fallback (bvh_traverse.h)
};

}  // namespace wr
