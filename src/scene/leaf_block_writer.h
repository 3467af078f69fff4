// Writes the leaf blocks of src/core/bvh_layout.h: a leaf's distinct corners, one corner-index
// word per triangle, the triangles' ids. In two steps, because the block's size (its number
// of corners) must be known before the tree is laid out: number_leaf_corners() when the
// builder makes the leaf, write_leaf_block() when it lays the tree out.
#pragma once

#include <cstdint>

#include "core/bvh_layout.h"

namespace wr {

// What number_leaf_corners() tells corners apart with: open addressing on the input vertex
// index, 256 slots for at most 192 corners. A slot is live only when its stamp is the current
// leaf's, so nothing is cleared between leaves. One per thread, reused leaf after leaf.
struct CornerTable {
  static constexpr uint32_t kSlots = 256;
  uint32_t key[kSlots];
  uint32_t stamp[kSlots] = {};
  uint8_t local[kSlots];
  uint32_t current = 0;
};
static_assert(3 * kMaxLeafTriangles <= 3 * CornerTable::kSlots / 4, "the corner table needs a quarter free");

// The leaf of triangles prims[0, count) (input ids; count <= kMaxLeafTriangles), whose corners
// are indices (num_triangles x 3) into the vertex array: numbers its distinct corners in order
// of first use, writes each triangle's corner word (v0 | v1 << 8 | v2 << 16) to
// corner_words[0, count) and returns the number of corners. Corners are told apart by input
// vertex index: equal indices are equal floats, and the watertight test only needs each
// triangle to see its own three vertices exactly.
uint32_t number_leaf_corners(const uint32_t* indices, const uint32_t* prims, uint32_t count, CornerTable* table,
                             uint32_t* corner_words);

// The block of that leaf, from what number_leaf_corners() returned and wrote: `corners` x 3
// words of vertex floats, then the corner words, then the ids (3 x corners + 2 x count words).
void write_leaf_block(const float* vertices, const uint32_t* indices, const uint32_t* prims, uint32_t count,
                      const uint32_t* corner_words, uint32_t corners, uint32_t* block);

}  // namespace wr
