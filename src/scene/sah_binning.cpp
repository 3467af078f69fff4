// Binned SAH splits (sah_binning.h).
#include "scene/sah_binning.h"

#include <algorithm>
#include <thread>
#include <utility>

namespace wr {
namespace {

int bin_of(float c, float lo, float scale, int bins) {
  const int b = static_cast<int>((c - lo) * scale);
  return std::min(std::max(b, 0), bins - 1);
}
// bin_of() of the three axes at once (truncation toward zero as static_cast<int>).
Int4 bins_of(Float4 c, Float4 lo, Float4 scale, int bins) {
  Int4 b = __builtin_convertvector((c - lo) * scale, Int4);
  b = b > 0 ? b : Int4{};
  return b < bins - 1 ? b : Int4{} + (bins - 1);
}

// Per-axis bins of centroids: the triangle bounds and count of each.
struct BinBox {  // an Aabb without the initialiser: only the bins in use are set
  Float4 lo, hi;
};
struct Bins {
  BinBox box[3][kMaxSahBins];
  uint32_t count[3][kMaxSahBins];
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

// Bins the triangles at positions [begin, end). Long ranges alternate between two sets of
// bins, merged at the end: consecutive triangles (neighbours in the input, so often in the same
// bin) then do not wait on each other's update of one bin.
void bin_range(const Aabb* bounds, uint32_t begin, uint32_t end, Float4 lo4, Float4 scale4, int bins, Bins* out) {
  out->clear(bins);
  const auto add = [&](Bins* to, uint32_t i) { to->add(bins_of(bounds[i].centre(), lo4, scale4, bins), bounds[i]); };
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

constexpr uint32_t kParallelBinning = 65536;  // ranges binned by two threads

}  // namespace

SahSplit find_binned_split(const BuildItems& items, Range range, const Aabb& box, const Aabb& cbox, int bins,
                           BuildExecutor& executor) {
  SahSplit best;
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
      executor.start(&worker, [&] { bin_range(items.bounds, range.begin, mid, lo4, scale4, bins, &first_half); })) {
    bin_range(items.bounds, mid, range.end, lo4, scale4, bins, &binned);
    executor.finish(&worker);
    binned.merge(first_half, bins);
  } else {
    bin_range(items.bounds, range.begin, range.end, lo4, scale4, bins, &binned);
  }
  const auto& bin_box = binned.box;
  const auto& bin_count = binned.count;
  for (int axis = 0; axis < 3; ++axis) {
    if (!usable[axis]) continue;
    // Only boundaries right after a non-empty bin: one after an empty bin splits the
    // triangles as the boundary before it does, at the same cost, and the lowest boundary
    // wins ties. (Small ranges, most calls, fill few of the bins.)
    int used[kMaxSahBins], num_used = 0;
    for (int b = 0; b < bins; ++b)
      if (bin_count[axis][b]) used[num_used++] = b;
    // Sweep from the right: area * count of everything right of each boundary.
    float right_cost[kMaxSahBins];
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

uint32_t partition_by_bin(const BuildItems& items, Range range, const Aabb& cbox, int bins, const SahSplit& split,
                          RangeBounds* left, RangeBounds* right) {
  const float lo = cbox.lo[split.axis];
  const float scale = static_cast<float>(bins) / (cbox.hi[split.axis] - lo);
  uint32_t first = range.begin, last = range.end;
  while (first < last) {
    const Float4 c = items.bounds[first].centre();
    if (bin_of(c[split.axis], lo, scale, bins) <= split.bin) {
      left->box.grow(items.bounds[first]);
      left->cbox.grow(c);
      ++first;
    } else {
      right->box.grow(items.bounds[first]);
      right->cbox.grow(c);
      --last;
      std::swap(items.ids[first], items.ids[last]);
      std::swap(items.bounds[first], items.bounds[last]);
    }
  }
  return first;
}

}  // namespace wr
