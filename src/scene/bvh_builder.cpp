// Binned SAH BVH builder. See bvh_builder.h for the algorithm's source.
//
// Two phases:
//  1. build (here): recursive binned SAH (sah_binning.h) over a permutation of triangle ids,
//     into a scratch node array in which every subtree owns a fixed, precomputed slice (a
//     subtree of n triangles has at most 2(n-1) descendants). Large subtrees build on their own
//     threads (build_executor.h). Every split depends only on the triangles, never on timing,
//     so the tree (and, after flatten, the layout) is the same for any thread count. A leaf's
//     distinct corners are numbered as it is made (leaf_block_writer.h), which sizes its block.
//  2. flatten (bvh_flatten.h): the scratch tree laid out as core/bvh_layout.h wants it.
#include "scene/bvh_builder.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

#include "scene/build_executor.h"
#include "scene/bvh_flatten.h"
#include "scene/leaf_block_writer.h"
#include "scene/sah_binning.h"
#include "scene/zero_area_triangle.h"

namespace wr {
namespace {

class Builder {
 public:
  Builder(const float* vertices, const uint32_t* indices, uint32_t num_tris, const BvhBuildOptions& options)
      : vertices_(vertices),
        indices_(indices),
        options_(clamped(options)),
        bounds_(num_tris, scratch_allocator<Aabb>()),
        ids_(num_tris, scratch_allocator<uint32_t>()),
        scratch_(2ull * num_tris, scratch_allocator<BvhNode>()),
        corner_words_(num_tris, scratch_allocator<uint32_t>()),
        executor_(options.num_threads) {
    std::atomic<uint32_t> left_out{0};
    std::mutex corners_mutex;
    executor_.for_each_chunk(num_tris, [&](uint32_t begin, uint32_t end) {
      uint32_t zero_area = 0;
      Aabb corners;
      for (uint32_t t = begin; t < end; ++t) {
        Aabb box;
        for (int c = 0; c < 3; ++c) box.grow(vertex(indices_[3ull * t + c]));
        bounds_[t] = box;
        corners.grow(box);
        const bool skip = has_zero_area(t);
        ids_[t] = skip ? kInvalidIndex : t;  // left out below
        zero_area += skip;
      }
      left_out.fetch_add(zero_area, std::memory_order_relaxed);
      std::lock_guard<std::mutex> lock(corners_mutex);
      corner_bounds_.grow(corners);
    });
    if (left_out.load() == 0) return;
    uint32_t kept = 0;  // zero-area triangles out, the order of the others kept
    for (uint32_t t = 0; t < num_tris; ++t) {
      if (ids_[t] == kInvalidIndex) continue;
      ids_[kept] = ids_[t];
      bounds_[kept++] = bounds_[t];
    }
    ids_.resize(kept);
    bounds_.resize(kept);
  }

  static BvhBuildOptions clamped(BvhBuildOptions options) {
    options.max_leaf_size = std::max(1u, std::min(options.max_leaf_size, kMaxLeafTriangles));
    options.num_bins = std::min(std::max(options.num_bins, 2), kMaxSahBins);
    return options;
  }

  Bvh run() {
    Bvh bvh = build_tree();
    for (int a = 0; a < 3; ++a) {
      bvh.corners_min[a] = corner_bounds_.lo[a];
      bvh.corners_max[a] = corner_bounds_.hi[a];
    }
    return bvh;
  }

 private:
  Bvh build_tree() {
    const uint32_t n = static_cast<uint32_t>(ids_.size());
    if (n == 0) return empty_bvh();
    CornerTable table;
    SubtreeSize size;
    build(0, Range{0, n}, 1, bounds_of(Range{0, n}), &table, &size);
    if (error_) std::rethrow_exception(error_);
    return flatten_bvh(ScratchTree{scratch_.data(), ids_.data(), corner_words_.data(), size, root_left_size_},
                       vertices_, indices_, options_.ledger, executor_);
  }

  template <class T>
  TrackedAllocator<T> scratch_allocator() const {
    return TrackedAllocator<T>(options_.ledger, MemoryTag::kBuildScratch);
  }
  template <class T>
  TrackedAllocator<T> result_allocator(MemoryTag tag) const {
    return TrackedAllocator<T>(options_.ledger, tag);
  }
  BuildItems items() { return BuildItems{ids_.data(), bounds_.data()}; }

  const float* vertex(uint32_t i) const { return vertices_ + 3ull * i; }

  // Zero-area triangles can never be hit, and the contract says they never are; leaving them
  // out of the BVH makes that exact (zero_area_triangle.h).
  bool has_zero_area(uint32_t t) const {
    return triangle_has_zero_area(vertex(indices_[3ull * t]), vertex(indices_[3ull * t + 1]),
                                  vertex(indices_[3ull * t + 2]));
  }

  // No triangle can be hit: a root whose box is empty (lo = +inf, hi = -inf) rejects every
  // ray at the root test, so traversal never reads past it.
  Bvh empty_bvh() const {
    Bvh bvh{TrackedVector<BvhNode>(result_allocator<BvhNode>(MemoryTag::kBvhNodes)),
            TrackedVector<uint32_t>(result_allocator<uint32_t>(MemoryTag::kBvhTriangles)),
            TrackedVector<uint32_t>(result_allocator<uint32_t>(MemoryTag::kBvhParents))};
    const float inf = std::numeric_limits<float>::infinity();
    bvh.nodes.assign(2, BvhNode{{inf, inf, inf}, 0, {-inf, -inf, -inf}, 0});
    bvh.parents.assign(2, kInvalidIndex);
    return bvh;
  }
  // Centre of the bounds of the triangle at position i of ids_, computed where needed (as
  // cheap as loading a stored one).
  Float4 centroid(uint32_t i) const { return bounds_[i].centre(); }

  RangeBounds bounds_of(Range range) const {
    RangeBounds b;
    for (uint32_t i = range.begin; i < range.end; ++i) {
      b.box.grow(bounds_[i]);
      b.cbox.grow(centroid(i));
    }
    return b;
  }

  // Builds the subtree of `range` (whose bounds are `rb`) at scratch index `slot`; its
  // descendants go to the slice starting at `first_desc` (size 2 * (range.count() - 1)).
  // Returns the end of the part of the slice it used: a subtree built on one thread packs its
  // descendants from the slice's start (the right child's after the left child's), so the
  // scratch memory touched is about what the tree needs, not the worst case.
  // `table`: this thread's (number_leaf_corners). The subtree's size is added to *size.
  uint32_t build(uint32_t slot, Range range, uint32_t first_desc, const RangeBounds& rb, CornerTable* table,
                 SubtreeSize* size) {
    const Aabb& box = rb.box;
    const Aabb& cbox = rb.cbox;
    BvhNode& node = scratch_[slot];
    for (int a = 0; a < 3; ++a) {
      node.bmin[a] = box.lo[a];
      node.bmax[a] = box.hi[a];
    }

    const uint32_t n = range.count();
    const float leaf_cost = options_.intersection_cost * static_cast<float>(n);
    // A split costs at least traversal_cost (split.cost >= 0), so a range whose leaf costs no
    // more is a leaf whatever its best split: no need to look for one (most small ranges).
    const bool leaf_anyway =
        n <= options_.max_leaf_size && options_.intersection_cost >= 0.0f && leaf_cost <= options_.traversal_cost;
    SahSplit split;
    uint32_t splitter_mid = 0;  // options_.splitter's
    if (n > 1 && !leaf_anyway) {
      if (options_.splitter) {
        split.cost = options_.splitter->split(items(), range, box, &splitter_mid);
        split.axis = split.cost < std::numeric_limits<float>::infinity() ? 0 : -1;
      } else {
        split = find_binned_split(items(), range, box, cbox, options_.num_bins, executor_);
      }
    }
    const float split_cost = options_.traversal_cost + options_.intersection_cost * split.cost;
    if (n == 1 || leaf_anyway || (n <= options_.max_leaf_size && leaf_cost <= split_cost)) {
      node.first = range.begin;
      const uint32_t corners =
          number_leaf_corners(indices_, ids_.data() + range.begin, n, table, corner_words_.data() + range.begin);
      node.count = n | corners << kLeafVertexShift;
      size->nodes += 1;
      size->words += leaf_block_words(node);
      return first_desc;
    }

    // Partition by the split, gathering both sides' bounds on the way (so the children need no
    // pass of their own); fall back to the object median in id order.
    uint32_t mid = range.begin + n / 2;
    RangeBounds left_bounds, right_bounds;
    bool have_bounds = false;
    if (split.axis >= 0 && options_.splitter) {
      if (splitter_mid > range.begin && splitter_mid < range.end) mid = splitter_mid;
    } else if (split.axis >= 0) {
      const uint32_t m = partition_by_bin(items(), range, cbox, options_.num_bins, split, &left_bounds, &right_bounds);
      if (m > range.begin && m < range.end) {
        mid = m;
        have_bounds = true;
      }
    }
    if (!have_bounds) {
      left_bounds = bounds_of(Range{range.begin, mid});
      right_bounds = bounds_of(Range{mid, range.end});
    }

    const Range left{range.begin, mid}, right{mid, range.end};
    const uint32_t left_slot = first_desc, right_slot = first_desc + 1, left_desc = first_desc + 2;
    node.first = left_slot;
    node.count = 0;

    SubtreeSize left_size, right_size;
    uint32_t end;
    std::thread worker;  // the left subtree on its own thread, where one is to be had
    const bool parallel = n >= kParallelThreshold &&
                          executor_.start(&worker, [this, left_slot, left, left_desc, &left_bounds, &left_size] {
                            CornerTable worker_table;
                            guarded_build(left_slot, left, left_desc, left_bounds, &worker_table, &left_size);
                          });
    if (parallel) {  // (else this thread builds both, below)
      // In parallel the right subtree cannot wait for the left's size: it starts where the
      // left's worst case ends. (Where nodes sit in scratch does not change the result:
      // flatten() lays the tree out by its structure alone.)
      const uint32_t right_desc = left_desc + 2 * (left.count() - 1);
      end = guarded_build(right_slot, right, right_desc, right_bounds, table, &right_size);
      executor_.finish(&worker);
    } else {
      const uint32_t left_end = build(left_slot, left, left_desc, left_bounds, table, &left_size);
      end = build(right_slot, right, left_end, right_bounds, table, &right_size);
    }
    if (slot == 0) root_left_size_ = left_size;
    size->nodes += 1;
    size->add(left_size);
    size->add(right_size);
    return end;
  }

  uint32_t guarded_build(uint32_t slot, Range range, uint32_t first_desc, const RangeBounds& rb, CornerTable* table,
                         SubtreeSize* size) {
    try {
      return build(slot, range, first_desc, rb, table, size);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
      return first_desc;
    }
  }

  static constexpr uint32_t kParallelThreshold = 16384;

  const float* vertices_;
  const uint32_t* indices_;
  BvhBuildOptions options_;
  TrackedVector<Aabb> bounds_;            // (num_tris) bounds of triangle ids_[i], permuted with ids_
                                          // so that binning and partitioning read them in order
  TrackedVector<uint32_t> ids_;           // (num_tris) permutation, becomes leaf order
  TrackedVector<BvhNode> scratch_;        // (2 * num_tris) fixed slices per subtree
  TrackedVector<uint32_t> corner_words_;  // (num_tris) per leaf-order slot: its corner word
  Aabb corner_bounds_;                    // of every input triangle, zero-area ones included
  SubtreeSize root_left_size_;            // of the root's left subtree (flatten_bvh)
  BuildExecutor executor_;                // the build threads, the caller's included
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

}  // namespace

Bvh build_bvh(const float* vertices, const uint32_t* indices, uint64_t num_triangles, const BvhBuildOptions& options) {
  Builder builder(vertices, indices, static_cast<uint32_t>(num_triangles), options);
  return builder.run();
}

double bvh_sah_cost(const Bvh& bvh, float traversal_cost, float intersection_cost) {
  auto half_area = [](const BvhNode& n) {
    const double dx = double(n.bmax[0]) - n.bmin[0], dy = double(n.bmax[1]) - n.bmin[1],
                 dz = double(n.bmax[2]) - n.bmin[2];
    return dx * dy + dy * dz + dz * dx;
  };
  const double root = half_area(bvh.nodes[0]);
  if (!(root > 0.0)) return intersection_cost * double(leaf_triangle_count(bvh.nodes[0]));
  double cost = 0.0;
  for (size_t i = 0; i < bvh.nodes.size(); ++i) {
    if (i == 1) continue;  // padding
    const BvhNode& n = bvh.nodes[i];
    const double rel = half_area(n) / root;
    cost += n.count == 0 ? traversal_cost * rel : intersection_cost * double(leaf_triangle_count(n)) * rel;
  }
  return cost;
}

}  // namespace wr
