// The BVH builder's second phase: the tree the build left in scratch, laid out as
// src/core/bvh_layout.h wants it. A depth-first walk copies the used scratch nodes into the
// final array with both children of every inner node adjacent at an even index, records
// parents, and writes each leaf's block of shared corners (leaf_block_writer.h) where it meets
// the leaf; the root's two subtrees are walked at once, on two threads.
#pragma once

#include <cstdint>

#include "scene/build_executor.h"
#include "scene/bvh_builder.h"

namespace wr {

// Nodes and leaf block words of a subtree: where the layout puts the subtrees it lays out at once.
struct SubtreeSize {
  uint32_t nodes = 0;
  uint64_t words = 0;
  void add(const SubtreeSize& o) {
    nodes += o.nodes;
    words += o.words;
  }
};

// What the build left: the tree in scratch (root at 0; an inner node's `first` is its left
// child's slot, the right child's is next to it; a leaf's `first` is its range in the
// permutation), the permutation of triangle ids, each permuted triangle's corner word
// (number_leaf_corners), and the sizes of the whole tree and of the root's left subtree.
struct ScratchTree {
  const BvhNode* nodes;
  const uint32_t* ids;           // (num_triangles kept)
  const uint32_t* corner_words;  // (num_triangles kept)
  SubtreeSize size, root_left_size;
};

// The laid-out BVH of that tree over vertices (any x 3) and indices (num_triangles x 3), its
// arrays accounted in `ledger` (may be null). Throws std::length_error when the leaf blocks
// would pass the 32-bit word offsets, std::bad_alloc when out of memory.
Bvh flatten_bvh(const ScratchTree& tree, const float* vertices, const uint32_t* indices, MemoryLedger* ledger,
                BuildExecutor& executor);

}  // namespace wr
