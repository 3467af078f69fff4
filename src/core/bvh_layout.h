// Flattened BVH as the traversal reads it: index-based fixed-size nodes, and each leaf's
// triangles as one compact block of shared corners. Built on the host (src/scene/bvh_builder),
// read by the CPU backend and uploaded unchanged to the GPU.
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
                   // leaf: word offset of its block in BvhView::leaf_words
  float bmax[3];
  uint32_t count;  // 0: inner node; leaf: triangles | vertices << kLeafVertexShift
};
static_assert(sizeof(BvhNode) == 32, "BvhNode must stay 32 bytes (two per cache line)");
static_assert(offsetof(BvhNode, bmax) == 16, "traversal reads bmax 4 floats after bmin");

// Leaf blocks. Each leaf stores its triangles as one block of 32-bit words:
//
//   vertices x 3   the distinct corners of its triangles (x, y, z as float bits)
//   triangles      each triangle's corners as indices into those: v0 | v1 << 8 | v2 << 16
//   triangles      each triangle's input id
//
// Neighbouring triangles share corners (a terrain's leaf of 16 triangles has ~15 corners,
// not 48), so a block takes about half the bytes of separate 40-byte triangles, and the
// corners are exact copies of the input vertices: the watertight test (ray_triangle.h) needs
// the vertices themselves so that a shared edge is evaluated bit for bit the same way from
// both of its triangles. Leaf data is most of a scene's bytes, and on the CPU the first touch
// of each env's part of the BVH is much of a render's time, hence the compaction. The ids come
// last: the scalar path reads them only for a triangle the ray hits. The builder writes the
// blocks (bvh_builder.cpp); tests/scene/test_bvh_builder.cpp checks every block against the input.
constexpr uint32_t kLeafVertexShift = 16;
constexpr uint32_t kMaxLeafTriangles = 64;  // so that 3 x 64 corners fit 8-bit indices

// What a node points to, as traversal carries it from one node to the next: `first` and
// `count` of BvhNode (its children pair, or its leaf block).
struct NodeLink {
  uint32_t first;
  uint32_t count;
};
WR_HD NodeLink node_link(const BvhNode& n) { return NodeLink{n.first, n.count}; }

WR_HD uint32_t leaf_triangle_count(NodeLink leaf) { return leaf.count & ((1u << kLeafVertexShift) - 1u); }
WR_HD uint32_t leaf_vertex_count(NodeLink leaf) { return leaf.count >> kLeafVertexShift; }
WR_HD uint32_t leaf_triangle_count(const BvhNode& leaf) { return leaf_triangle_count(node_link(leaf)); }
WR_HD uint32_t leaf_vertex_count(const BvhNode& leaf) { return leaf_vertex_count(node_link(leaf)); }
WR_HD uint32_t leaf_block_words(const BvhNode& leaf) {
  return 3u * leaf_vertex_count(leaf) + 2u * leaf_triangle_count(leaf);
}
WR_HD uint32_t corner_index(uint32_t corners, int k) { return (corners >> (8 * k)) & 0xFFu; }

// A node read where it lies. On the GPU as two 16-byte loads through the read-only data cache
// (a node is 16-byte aligned) instead of a separate 4-byte load for each field that is used.
WR_HD BvhNode load_node(const BvhNode* p) {
#if defined(__CUDA_ARCH__)
  const float4 lo = __ldg(reinterpret_cast<const float4*>(p));
  const float4 hi = __ldg(reinterpret_cast<const float4*>(p) + 1);
  BvhNode n;
  n.bmin[0] = lo.x;
  n.bmin[1] = lo.y;
  n.bmin[2] = lo.z;
  n.first = __float_as_uint(lo.w);
  n.bmax[0] = hi.x;
  n.bmax[1] = hi.y;
  n.bmax[2] = hi.z;
  n.count = __float_as_uint(hi.w);
  return n;
#else
  return *p;
#endif
}

// Read-only view of a built BVH: host or device pointers, the traversal does not care.
struct BvhView {
  const BvhNode* nodes;        // (num_nodes); root at 0, node 1 unused
  const uint32_t* leaf_words;  // every leaf's block, depth-first leaf order
  const uint32_t* parents;     // (num_nodes) parent of each node, kInvalidIndex for the root;
                               // used only by the stackless fallback (bvh_traverse.h)
};

// One leaf's block, read where it lies.
struct LeafBlock {
  const uint32_t* vertex_words;  // (vertices x 3) float bits
  const uint32_t* corners;       // (triangles) corner index words
  const uint32_t* ids;           // (triangles) input triangle ids
  uint32_t triangles;
};

WR_HD LeafBlock leaf_block(const BvhView& bvh, NodeLink leaf) {
  const uint32_t* words = bvh.leaf_words + leaf.first;
  const uint32_t triangles = leaf_triangle_count(leaf);
  const uint32_t* corners = words + 3u * leaf_vertex_count(leaf);
  return LeafBlock{words, corners, corners + triangles, triangles};
}
WR_HD LeafBlock leaf_block(const BvhView& bvh, const BvhNode& leaf) { return leaf_block(bvh, node_link(leaf)); }

// Vertex v of a block as floats.
WR_HD void load_leaf_vertex(const LeafBlock& block, uint32_t v, float out[3]) {
  out[0] = float_from_bits(block.vertex_words[3 * v]);
  out[1] = float_from_bits(block.vertex_words[3 * v + 1]);
  out[2] = float_from_bits(block.vertex_words[3 * v + 2]);
}

// Vertex v of a block, read one coordinate at a time where it lies (vertex_coordinate()).
// The watertight test (ray_triangle.h) reads coordinates in the ray's own axis order, an index
// known only at run time; on the GPU a float[3] copy indexed that way would live in local
// memory (a store and a load per coordinate), so the test reads the block directly instead.
struct LeafVertex {
  const uint32_t* words;  // (3) x, y, z as float bits
};
WR_HD LeafVertex leaf_vertex(const LeafBlock& block, uint32_t v) { return LeafVertex{block.vertex_words + 3 * v}; }
WR_HD float vertex_coordinate(const LeafVertex& v, int axis) { return float_from_bits(load_readonly(v.words + axis)); }

}  // namespace wr
