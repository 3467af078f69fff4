// Binned SAH BVH builder (host). Produces the flattened layout of src/core/bvh_layout.h.
//
// Wald, "On fast Construction of SAH-based Bounding Volume Hierarchies", IEEE RT 2007:
// centroids are binned per axis, the surface area heuristic is evaluated at every bin
// boundary, and the range is partitioned in place (sah_binning.h). Subtrees above a size
// threshold are built on their own threads (build_executor.h); the tree is then laid out
// (bvh_flatten.h).
#pragma once

#include <cstdint>
#include <vector>

#include "core/bvh_layout.h"
#include "scene/build_boxes.h"
#include "memory/tracked_allocator.h"

namespace wr {

// Another way to choose a node's split than binning (tests/support/bvh_full_sweep.h: the SAH at
// every split position, the reference a binned build is judged against). split() may reorder
// items[range] (ids and bounds together); it returns the SAH cost of its split relative to the
// node's area (infinity: none) and, in *mid, where the right side starts (in (begin, end)).
class BvhSplitter {
 public:
  virtual ~BvhSplitter() = default;
  virtual float split(const BuildItems& items, Range range, const Aabb& box, uint32_t* mid) const = 0;
};

struct BvhBuildOptions {
  unsigned num_threads = 0;               // 0: one per hardware thread
  int num_bins = 32;                      // SAH bins per axis (2 to 64)
  uint32_t max_leaf_size = 16;            // larger ranges are always split (at most kMaxLeafTriangles)
  float traversal_cost = 4.0f;            // SAH cost of visiting an inner node. 4 (with leaves of up
                                          // to 16): the CPU's 4x4 packets test a triangle for 16 rays
                                          // in a few instructions but wait on memory at every node, so
                                          // fewer, fuller leaves trace faster and take less memory
                                          // (benchmarks/results/cpu-design-decisions-2026-11-30.md) ...
  float intersection_cost = 1.0f;         // ... relative to testing one triangle
  MemoryLedger* ledger = nullptr;         // where the result and the transient build arrays are accounted
  const BvhSplitter* splitter = nullptr;  // null: binned SAH
};

// Zero-area triangles are left out (they are never hit), so the leaves may hold fewer
// triangles than the input; a scene with no other triangle gets a root with an empty box.
struct Bvh {
  TrackedVector<BvhNode> nodes;        // (num_nodes); root at 0, node 1 unused padding
  TrackedVector<uint32_t> leaf_words;  // every leaf's block (bvh_layout.h), walk order
  TrackedVector<uint32_t> parents;     // (num_nodes); kInvalidIndex for the root and node 1
  // Bounds of every input triangle's corners, zero-area ones included (wr_scene_bounds):
  // computed in the builder's parallel pass over the triangles.
  float corners_min[3] = {}, corners_max[3] = {};
  BvhView view() const { return BvhView{nodes.data(), leaf_words.data(), parents.data()}; }
  // Its arrays, each as f(ledger tag, what it is, host data, count, the view's pointer to it): what
  // a device uploads (kernels/cuda_device.cpp), every pointer of the view visited.
  template <class Fn>
  void for_each_array(BvhView& v, Fn&& f) const {
    f(MemoryTag::kBvhNodes, "uploading BVH nodes", nodes.data(), nodes.size(), v.nodes);
    f(MemoryTag::kBvhTriangles, "uploading BVH leaf blocks", leaf_words.data(), leaf_words.size(), v.leaf_words);
    f(MemoryTag::kBvhParents, "uploading BVH parents", parents.data(), parents.size(), v.parents);
  }
  void corner_bounds(float lo[3], float hi[3]) const {
    for (int a = 0; a < 3; ++a) lo[a] = corners_min[a], hi[a] = corners_max[a];
  }
};

// vertices: (any x 3) float; indices: (num_triangles x 3), already validated (in range,
// vertices finite). num_triangles >= 1.
Bvh build_bvh(const float* vertices, const uint32_t* indices, uint64_t num_triangles,
              const BvhBuildOptions& options = BvhBuildOptions{});

// Expected cost of a BVH under the SAH with the given costs (relative to the root's area):
// used by tests and benchmarks to judge build quality.
double bvh_sah_cost(const Bvh& bvh, float traversal_cost = 1.0f, float intersection_cost = 1.0f);

}  // namespace wr
