// The split of one BVH node by binned SAH (Wald, "On fast Construction of SAH-based Bounding
// Volume Hierarchies", IEEE RT 2007): centroids are binned per axis, the surface area heuristic
// is evaluated at every bin boundary, and the range is partitioned in place by the best one.
#pragma once

#include <cstdint>
#include <limits>

#include "scene/build_boxes.h"
#include "scene/build_executor.h"

namespace wr {

constexpr int kMaxSahBins = 64;

struct SahSplit {
  int axis = -1;                                        // -1: no split found
  int bin = 0;                                          // the left side: bins [0, bin]
  float cost = std::numeric_limits<float>::infinity();  // SAH cost relative to the node's area
};

// The best split of items[range] (whose bounds are `box`, their centroids' `cbox`) over every
// axis whose centroid extent is non-zero, with `bins` bins per axis (2 to kMaxSahBins). Long
// ranges are binned on two threads when the executor has one (the merge is exact).
SahSplit find_binned_split(const BuildItems& items, Range range, const Aabb& box, const Aabb& cbox, int bins,
                           BuildExecutor& executor);

// Partitions items[range] by `split` (from find_binned_split with the same cbox and bins), the
// left side first, gathering both sides' bounds on the way so the children need no pass of their
// own. Returns where the right side starts; range.begin or range.end when one side is empty.
uint32_t partition_by_bin(const BuildItems& items, Range range, const Aabb& cbox, int bins, const SahSplit& split,
                          RangeBounds* left, RangeBounds* right);

}  // namespace wr
