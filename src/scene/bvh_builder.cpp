// Binned SAH BVH builder. See bvh_builder.h for the algorithm's source.
//
// Two phases:
//  1. build: recursive binned SAH over a permutation of triangle ids, into a scratch node
//     array in which every subtree owns a fixed, precomputed slice (a subtree of n
//     triangles has at most 2(n-1) descendants). Large subtrees build on their own threads.
//     Every split depends only on the triangles, never on timing, so the tree (and, after
//     flatten, the layout) is the same for any thread count. A leaf's distinct corners are
//     numbered as it is made (leaf_block_writer.h), which sizes its block.
//  2. flatten: a depth-first walk copies the used scratch nodes into the final array with
//     both children of every inner node adjacent at an even index, records parents, and
//     writes each leaf's block of shared corners (bvh_layout.h) where it meets the leaf; the
//     root's two subtrees are walked at once, on two threads.
#include "scene/bvh_builder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "scene/build_executor.h"
#include "scene/leaf_block_writer.h"

namespace wr {
namespace {

// Four floats in one SIMD register (GCC/Clang vector extension: SSE on x86-64, NEON on
// ARM): x, y, z and a spare lane that only repeats z. Lane by lane the operations below are
// the scalar ones (std::min / std::max), so the tree is the same as with scalar code.
typedef float Float4 __attribute__((vector_size(16)));
typedef int32_t Int4 __attribute__((vector_size(16)));

inline Float4 load3(const float p[3]) { return Float4{p[0], p[1], p[2], p[2]}; }

struct Aabb {
  Float4 lo = Float4{} + std::numeric_limits<float>::infinity();
  Float4 hi = Float4{} - std::numeric_limits<float>::infinity();

  void grow(Float4 p) {
    lo = p < lo ? p : lo;  // std::min(lo, p)
    hi = hi < p ? p : hi;  // std::max(hi, p)
  }
  void grow(const float p[3]) { grow(load3(p)); }
  template <class Box>  // Aabb, or anything else with lo and hi
  void grow(const Box& b) {
    lo = b.lo < lo ? b.lo : lo;
    hi = hi < b.hi ? b.hi : hi;
  }
  bool empty() const { return lo[0] > hi[0]; }
  // Half the surface area (the SAH only needs ratios). 0 for an empty box.
  float half_area() const {
    if (empty()) return 0.0f;
    const float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    return dx * dy + dy * dz + dz * dx;
  }
};

// A range's triangle bounds and the bounds of their centroids (what binning divides).
struct RangeBounds {
  Aabb box, cbox;
};

struct Range {
  uint32_t begin, end;
  uint32_t count() const { return end - begin; }
};

// Nodes and leaf block words of a subtree: where flatten() puts the subtrees it lays out at once.
struct SubtreeSize {
  uint32_t nodes = 0;
  uint64_t words = 0;
  void add(const SubtreeSize& o) {
    nodes += o.nodes;
    words += o.words;
  }
};

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
    return flatten(size);
  }

  template <class T>
  TrackedAllocator<T> scratch_allocator() const {
    return TrackedAllocator<T>(options_.ledger, MemoryTag::kBuildScratch);
  }
  template <class T>
  TrackedAllocator<T> result_allocator(MemoryTag tag) const {
    return TrackedAllocator<T>(options_.ledger, tag);
  }

  const float* vertex(uint32_t i) const { return vertices_ + 3ull * i; }

  // Zero-area triangles (repeated or collinear corners) can never be hit, and the contract
  // says they never are; leaving them out of the BVH makes that exact, where the float
  // watertight test could round a collinear triangle into a sliver. The cross product of
  // float differences is evaluated in double, where it is exact for all but extreme inputs.
  bool has_zero_area(uint32_t t) const {
    const float* a = vertex(indices_[3ull * t]);
    const float* b = vertex(indices_[3ull * t + 1]);
    const float* c = vertex(indices_[3ull * t + 2]);
    const double ux = double(b[0]) - a[0], uy = double(b[1]) - a[1], uz = double(b[2]) - a[2];
    const double vx = double(c[0]) - a[0], vy = double(c[1]) - a[1], vz = double(c[2]) - a[2];
    return uy * vz - uz * vy == 0.0 && uz * vx - ux * vz == 0.0 && ux * vy - uy * vx == 0.0;
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
  Float4 centroid(uint32_t i) const { return 0.5f * (bounds_[i].lo + bounds_[i].hi); }

  struct Split {
    int axis = -1;
    int bin = 0;  // left side: bins [0, bin] (full sweep: sorted positions [0, bin])
    float cost = std::numeric_limits<float>::infinity();  // SAH cost relative to the node's area
  };

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
    const Split split = n <= 1 || leaf_anyway ? Split{}
                        : options_.full_sweep ? sweep_split(range, box)
                                              : find_split(range, box, cbox);
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

    // Partition by the split's bin, gathering both sides' bounds on the way (so the children
    // need no pass of their own); fall back to the object median in id order.
    uint32_t mid = range.begin + n / 2;
    RangeBounds left_bounds, right_bounds;
    bool have_bounds = false;
    if (split.axis >= 0 && options_.full_sweep) {
      sort_by_centroid(range, split.axis);  // sweep_split's order: the split is a position in it
      mid = range.begin + static_cast<uint32_t>(split.bin) + 1;
    } else if (split.axis >= 0) {
      const int bins = options_.num_bins;
      const float lo = cbox.lo[split.axis];
      const float scale = static_cast<float>(bins) / (cbox.hi[split.axis] - lo);
      uint32_t first = range.begin, last = range.end;
      while (first < last) {
        const Float4 c = centroid(first);
        if (bin_of(c[split.axis], lo, scale, bins) <= split.bin) {
          left_bounds.box.grow(bounds_[first]);
          left_bounds.cbox.grow(c);
          ++first;
        } else {
          right_bounds.box.grow(bounds_[first]);
          right_bounds.cbox.grow(c);
          --last;
          std::swap(ids_[first], ids_[last]);
          std::swap(bounds_[first], bounds_[last]);
        }
      }
      const uint32_t m = first;
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

  static int bin_of(float c, float lo, float scale, int bins) {
    const int b = static_cast<int>((c - lo) * scale);
    return std::min(std::max(b, 0), bins - 1);
  }
  // bin_of() of the three axes at once (truncation toward zero as static_cast<int>).
  static Int4 bins_of(Float4 c, Float4 lo, Float4 scale, int bins) {
    Int4 b = __builtin_convertvector((c - lo) * scale, Int4);
    b = b > 0 ? b : Int4{};
    return b < bins - 1 ? b : Int4{} + (bins - 1);
  }

  // Best SAH split over all axes whose centroid extent is non-zero (Wald 2007, section 3).
  // One pass over the range bins every axis at once (each triangle's bounds are loaded once).
  // Per-axis bins of centroids: the triangle bounds and count of each.
  static constexpr int kMaxBins = 64;
  struct BinBox {  // an Aabb without the initialiser: only the bins in use are set
    Float4 lo, hi;
  };
  struct Bins {
    BinBox box[3][kMaxBins];
    uint32_t count[3][kMaxBins];
    void clear(int bins) {
      const Aabb empty;
      for (int axis = 0; axis < 3; ++axis)
        for (int b = 0; b < bins; ++b) box[axis][b] = BinBox{empty.lo, empty.hi}, count[axis][b] = 0;
    }
    void add(const Int4& k, const Aabb& b) {
      for (int axis = 0; axis < 3; ++axis) {
        BinBox& bin = box[axis][k[axis]];
        bin.lo = b.lo < bin.lo ? b.lo : bin.lo;
        bin.hi = bin.hi < b.hi ? b.hi : bin.hi;
        ++count[axis][k[axis]];
      }
    }
    // Exact: min, max and sums do not depend on the order the triangles came in.
    void merge(const Bins& o, int bins) {
      for (int axis = 0; axis < 3; ++axis)
        for (int b = 0; b < bins; ++b) {
          BinBox& bin = box[axis][b];
          bin.lo = o.box[axis][b].lo < bin.lo ? o.box[axis][b].lo : bin.lo;
          bin.hi = bin.hi < o.box[axis][b].hi ? o.box[axis][b].hi : bin.hi;
          count[axis][b] += o.count[axis][b];
        }
    }
  };

  // Bins the triangles ids_[begin, end). Long ranges alternate between two sets of bins,
  // merged at the end: consecutive triangles (neighbours in the input, so often in the same
  // bin) then do not wait on each other's update of one bin.
  void bin_range(uint32_t begin, uint32_t end, Float4 lo4, Float4 scale4, int bins, Bins* out) const {
    out->clear(bins);
    const auto add = [&](Bins* to, uint32_t i) { to->add(bins_of(centroid(i), lo4, scale4, bins), bounds_[i]); };
    if (end - begin < 256) {
      for (uint32_t i = begin; i < end; ++i) add(out, i);
      return;
    }
    Bins other;
    other.clear(bins);
    uint32_t i = begin;
    for (; i + 1 < end; i += 2) {
      add(out, i);
      add(&other, i + 1);
    }
    if (i < end) add(out, i);
    out->merge(other, bins);
  }

  Split find_split(Range range, const Aabb& box, const Aabb& cbox) {
    const int bins = std::min(std::max(options_.num_bins, 2), kMaxBins);
    Split best;
    const float parent_area = box.half_area();
    if (!(parent_area > 0.0f)) return best;  // all triangles are one point: only a median split helps
    float lo[3], scale[3];
    bool usable[3];
    for (int axis = 0; axis < 3; ++axis) {
      lo[axis] = cbox.lo[axis];
      const float extent = cbox.hi[axis] - lo[axis];
      usable[axis] = extent > 0.0f;
      scale[axis] = usable[axis] ? static_cast<float>(bins) / extent : 0.0f;
    }
    if (!usable[0] && !usable[1] && !usable[2]) return best;
    const Float4 lo4 = load3(lo), scale4 = load3(scale);
    Bins binned;
    const uint32_t n = range.count();
    // The top levels, where subtrees are not yet parallel, bin their halves on two threads (the
    // merge is exact: the same bins as one pass).
    Bins first_half;
    const uint32_t mid = range.begin + n / 2;
    std::thread worker;
    if (n >= kParallelBinning &&
        executor_.start(&worker, [&] { bin_range(range.begin, mid, lo4, scale4, bins, &first_half); })) {
      bin_range(mid, range.end, lo4, scale4, bins, &binned);
      executor_.finish(&worker);
      binned.merge(first_half, bins);
    } else {
      bin_range(range.begin, range.end, lo4, scale4, bins, &binned);
    }
    const auto& bin_box = binned.box;
    const auto& bin_count = binned.count;
    for (int axis = 0; axis < 3; ++axis) {
      if (!usable[axis]) continue;
      // Only boundaries right after a non-empty bin: one after an empty bin splits the
      // triangles as the boundary before it does, at the same cost, and the lowest boundary
      // wins ties. (Small ranges, most calls, fill few of the bins.)
      int used[kMaxBins], num_used = 0;
      for (int b = 0; b < bins; ++b)
        if (bin_count[axis][b]) used[num_used++] = b;
      // Sweep from the right: area * count of everything right of each boundary.
      float right_cost[kMaxBins];
      Aabb acc;
      uint32_t count = 0;
      for (int j = num_used - 1; j > 0; --j) {
        acc.grow(bin_box[axis][used[j]]);
        count += bin_count[axis][used[j]];
        right_cost[j - 1] = acc.half_area() * static_cast<float>(count);
      }
      acc = Aabb{};
      count = 0;
      for (int j = 0; j + 1 < num_used; ++j) {
        acc.grow(bin_box[axis][used[j]]);
        count += bin_count[axis][used[j]];
        const float cost = (acc.half_area() * static_cast<float>(count) + right_cost[j]) / parent_area;
        if (cost < best.cost) {  // 0 < count < range.count() holds here
          best.axis = axis;
          best.bin = used[j];
          best.cost = cost;
        }
      }
    }
    return best;
  }

  // Reference for judging the binned build's quality (BvhBuildOptions::full_sweep): the SAH
  // evaluated at every split position of every axis, in centroid order. O(n log n) per
  // node; for tests and benchmarks, not for production.
  void sort_by_centroid(Range range, int axis) {
    struct Ref {
      float c;
      uint32_t id;
      Aabb bounds;
    };
    std::vector<Ref> refs;
    refs.reserve(range.count());
    for (uint32_t i = range.begin; i < range.end; ++i) refs.push_back(Ref{centroid(i)[axis], ids_[i], bounds_[i]});
    std::sort(refs.begin(), refs.end(),
              [](const Ref& a, const Ref& b) { return a.c < b.c || (a.c == b.c && a.id < b.id); });
    for (uint32_t k = 0; k < range.count(); ++k)
      ids_[range.begin + k] = refs[k].id, bounds_[range.begin + k] = refs[k].bounds;
  }

  Split sweep_split(Range range, const Aabb& box) {
    Split best;
    const float parent_area = box.half_area();
    if (!(parent_area > 0.0f)) return best;
    const uint32_t n = range.count();
    std::vector<float> right_cost(n);
    for (int axis = 0; axis < 3; ++axis) {
      sort_by_centroid(range, axis);
      Aabb acc;
      for (uint32_t k = n - 1; k > 0; --k) {  // right side: positions [k, n)
        acc.grow(bounds_[range.begin + k]);
        right_cost[k - 1] = acc.half_area() * static_cast<float>(n - k);
      }
      acc = Aabb{};
      for (uint32_t k = 0; k + 1 < n; ++k) {  // left side: positions [0, k]
        acc.grow(bounds_[range.begin + k]);
        const float cost = (acc.half_area() * static_cast<float>(k + 1) + right_cost[k]) / parent_area;
        if (cost < best.cost) {
          best.axis = axis;
          best.bin = static_cast<int>(k);
          best.cost = cost;
        }
      }
    }
    return best;
  }

  // Lays the tree out depth first, children pairs adjacent at even indices, every leaf's
  // block where the walk meets it. The root's two subtrees are laid out at once (their sizes
  // are known from the build, so where the right one starts is too); the bytes are those of
  // one walk from the root.
  Bvh flatten(const SubtreeSize& size) {
    Bvh bvh{TrackedVector<BvhNode>(result_allocator<BvhNode>(MemoryTag::kBvhNodes)),
            TrackedVector<uint32_t>(result_allocator<uint32_t>(MemoryTag::kBvhTriangles)),
            TrackedVector<uint32_t>(result_allocator<uint32_t>(MemoryTag::kBvhParents))};
    if (size.words > std::numeric_limits<uint32_t>::max())  // MeshScene reports it as a size limit
      throw std::length_error("the BVH's leaf blocks would take " + std::to_string(size.words) +
                              " words, more than its 32-bit offsets reach");
    bvh.nodes.resize(size.nodes + 1);  // + node 1, the padding that puts every pair on one cache line
    bvh.parents.assign(size.nodes + 1, kInvalidIndex);
    bvh.nodes[1] = BvhNode{{0, 0, 0}, 0, {0, 0, 0}, 0};
    bvh.leaf_words.resize(size.words);

    const BvhNode& root = scratch_[0];
    if (root.count != 0) {
      flatten_subtree(0, 0, 2, 0, &bvh);
      return bvh;
    }
    bvh.nodes[0] = root;
    bvh.nodes[0].first = 2;
    bvh.parents[2] = bvh.parents[3] = 0;
    // The left subtree's descendants take the pairs from 4 on, then the right subtree's.
    const uint32_t right_pairs = 4 + (root_left_size_.nodes - 1);
    const auto left = [&] { flatten_subtree(root.first, 2, 4, 0, &bvh); };
    const auto right = [&] { flatten_subtree(root.first + 1, 3, right_pairs, root_left_size_.words, &bvh); };
    constexpr uint32_t kMinParallelNodes = 8192;
    std::exception_ptr left_error;
    std::thread worker;
    if (size.nodes < kMinParallelNodes || !executor_.start(&worker, [&left, &left_error] {
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
    executor_.finish(&worker);
    if (left_error) std::rethrow_exception(left_error);
    if (right_error) std::rethrow_exception(right_error);
    return bvh;
  }

  // Lays out the subtree at scratch index `slot` as node `out`: the pairs of its descendants
  // from index `next` on, its leaves' blocks from word `words` on.
  void flatten_subtree(uint32_t slot, uint32_t out, uint32_t next, uint64_t words, Bvh* bvh) const {
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
      BvhNode node = scratch_[item.scratch];
      if (node.count == 0) {
        const uint32_t left = next;
        next += 2;
        parents[left] = parents[left + 1] = item.out;
        stack.push_back({node.first + 1, left + 1});
        stack.push_back({node.first, left});
        node.first = left;
      } else {
        // `node` as the build left it: first is its range in ids_ and corner_words_.
        write_leaf_block(vertices_, indices_, ids_.data() + node.first, leaf_triangle_count(node),
                         corner_words_.data() + node.first, leaf_vertex_count(node), bvh->leaf_words.data() + words);
        node.first = static_cast<uint32_t>(words);
        words += leaf_block_words(node);
      }
      nodes[item.out] = node;
    }
  }

  static constexpr uint32_t kParallelThreshold = 16384;
  static constexpr uint32_t kParallelBinning = 65536;  // ranges binned by two threads

  const float* vertices_;
  const uint32_t* indices_;
  BvhBuildOptions options_;
  TrackedVector<Aabb> bounds_;            // (num_tris) bounds of triangle ids_[i], permuted with ids_
                                          // so that binning and partitioning read them in order
  TrackedVector<uint32_t> ids_;           // (num_tris) permutation, becomes leaf order
  TrackedVector<BvhNode> scratch_;        // (2 * num_tris) fixed slices per subtree
  TrackedVector<uint32_t> corner_words_;  // (num_tris) per leaf-order slot: its corner word
  Aabb corner_bounds_;                    // of every input triangle, zero-area ones included
  SubtreeSize root_left_size_;            // of the root's left subtree (flatten)
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
