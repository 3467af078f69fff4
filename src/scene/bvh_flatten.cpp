// The layout of a built BVH (bvh_flatten.h).
#include "scene/bvh_flatten.h"

#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "scene/leaf_block_writer.h"

namespace wr {
namespace {

// Lays out the subtree at scratch index `slot` as node `out`: the pairs of its descendants
// from index `next` on, its leaves' blocks from word `words` on.
void flatten_subtree(const ScratchTree& tree, const float* vertices, const uint32_t* indices, uint32_t slot,
                     uint32_t out, uint32_t next, uint64_t words, Bvh* bvh) {
  struct Item {
    uint32_t scratch, out;
  };
  std::vector<Item> stack;  // iterative: pathological inputs can make deep trees
  stack.push_back({slot, out});
  BvhNode* nodes = bvh->nodes.data();
  uint32_t* parents = bvh->parents.data();
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    BvhNode node = tree.nodes[item.scratch];
    if (node.count == 0) {
      const uint32_t left = next;
      next += 2;
      parents[left] = parents[left + 1] = item.out;
      stack.push_back({node.first + 1, left + 1});
      stack.push_back({node.first, left});
      node.first = left;
    } else {
      // `node` as the build left it: first is its range in ids and corner_words.
      write_leaf_block(vertices, indices, tree.ids + node.first, leaf_triangle_count(node),
                       tree.corner_words + node.first, leaf_vertex_count(node), bvh->leaf_words.data() + words);
      node.first = static_cast<uint32_t>(words);
      words += leaf_block_words(node);
    }
    nodes[item.out] = node;
  }
}

}  // namespace

// The bytes are those of one walk from the root: the root's two subtrees are laid out at once,
// their sizes known from the build, so where the right one starts is too.
Bvh flatten_bvh(const ScratchTree& tree, const float* vertices, const uint32_t* indices, MemoryLedger* ledger,
                BuildExecutor& executor) {
  Bvh bvh{TrackedVector<BvhNode>(TrackedAllocator<BvhNode>(ledger, MemoryTag::kBvhNodes)),
          TrackedVector<uint32_t>(TrackedAllocator<uint32_t>(ledger, MemoryTag::kBvhTriangles)),
          TrackedVector<uint32_t>(TrackedAllocator<uint32_t>(ledger, MemoryTag::kBvhParents))};
  const SubtreeSize& size = tree.size;
  if (size.words > std::numeric_limits<uint32_t>::max())  // SceneTerrain reports it as a size limit
    throw std::length_error("the BVH's leaf blocks would take " + std::to_string(size.words) +
                            " words, more than its 32-bit offsets reach");
  bvh.nodes.resize(size.nodes + 1);  // + node 1, the padding that puts every pair on one cache line
  bvh.parents.assign(size.nodes + 1, kInvalidIndex);
  bvh.nodes[1] = BvhNode{{0, 0, 0}, 0, {0, 0, 0}, 0};
  bvh.leaf_words.resize(size.words);

  const BvhNode& root = tree.nodes[0];
  if (root.count != 0) {
    flatten_subtree(tree, vertices, indices, 0, 0, 2, 0, &bvh);
    return bvh;
  }
  bvh.nodes[0] = root;
  bvh.nodes[0].first = 2;
  bvh.parents[2] = bvh.parents[3] = 0;
  // The left subtree's descendants take the pairs from 4 on, then the right subtree's.
  const uint32_t right_pairs = 4 + (tree.root_left_size.nodes - 1);
  const auto left = [&] { flatten_subtree(tree, vertices, indices, root.first, 2, 4, 0, &bvh); };
  const auto right = [&] {
    flatten_subtree(tree, vertices, indices, root.first + 1, 3, right_pairs, tree.root_left_size.words, &bvh);
  };
  constexpr uint32_t kMinParallelNodes = 8192;
  std::exception_ptr left_error;
  std::thread worker;
  if (size.nodes < kMinParallelNodes || !executor.start(&worker, [&left, &left_error] {
        try {
          left();
        } catch (...) {
          left_error = std::current_exception();
        }
      })) {
    left();  // one thread, or no thread to be had: this one does both
    right();
    return bvh;
  }
  std::exception_ptr right_error;
  try {
    right();
  } catch (...) {
    right_error = std::current_exception();
  }
  executor.finish(&worker);
  if (left_error) std::rethrow_exception(left_error);
  if (right_error) std::rethrow_exception(right_error);
  return bvh;
}

}  // namespace wr
