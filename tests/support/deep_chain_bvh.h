// A hand-made BVH deeper than the traversal stack (a real build never gets this deep), for the
// tests of the stack-overflow path: triangle j is the square-ish triangle in the plane x = j + 1;
// the inner node of level k holds triangles 0..n-1-k, its children are the inner node of level
// k + 1 (nearer to a ray going +x) and the leaf of triangle n-1-k (farther), so a ray along +x
// pushes one leaf per level and overflows once n exceeds the stack.
#pragma once

#include <cstdint>
#include <vector>

#include "core/bvh_layout.h"

namespace wr_test {

struct DeepChainBvh {
  std::vector<wr::BvhNode> nodes;
  std::vector<uint32_t> leaf_words;
  std::vector<uint32_t> parents;
  wr::BvhView view() const { return wr::BvhView{nodes.data(), leaf_words.data(), parents.data()}; }
};

inline DeepChainBvh deep_chain_bvh(uint32_t n) {
  DeepChainBvh b;
  // Each leaf holds one triangle: a block (bvh_layout.h) of its 3 corners, one corner word, its id.
  constexpr uint32_t kBlockWords = 3 * 3 + 2, kOneTriangleLeaf = 1 | 3 << wr::kLeafVertexShift;
  for (uint32_t j = 0; j < n; ++j) {
    const float x = float(j + 1);
    for (float f : {x, -10.0f, -10.0f, x, 10.0f, -10.0f, x, 0.0f, 10.0f})
      b.leaf_words.push_back(wr::bits_from_float(f));
    b.leaf_words.push_back(0 | 1 << 8 | 2 << 16);
    b.leaf_words.push_back(j);
  }
  b.nodes.resize(2 * n);
  b.parents.assign(2 * n, wr::kInvalidIndex);
  auto box = [](float x0, float x1, uint32_t first, uint32_t count) {
    return wr::BvhNode{{x0, -10, -10}, first, {x1, 10, 10}, count};
  };
  auto leaf = [&box](float x, uint32_t triangle) { return box(x, x, triangle * kBlockWords, kOneTriangleLeaf); };
  b.nodes[0] = box(1, float(n), 2, 0);
  uint32_t inner = 0;  // the inner node of level k
  for (uint32_t k = 0; k + 1 < n; ++k) {
    const uint32_t pair = 2 + 2 * k, rest = n - 1 - k;  // rest: triangles 0..rest-1 stay nearer
    b.nodes[inner].first = pair;
    b.nodes[pair] = rest > 1 ? box(1, float(rest), 0, 0) : leaf(1, 0);
    b.nodes[pair + 1] = leaf(float(rest + 1), rest);
    b.parents[pair] = b.parents[pair + 1] = inner;
    inner = pair;
  }
  return b;
}

}  // namespace wr_test
