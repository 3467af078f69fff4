// The reference a binned SAH build is judged against (Wald 2007): the SAH evaluated at every
// split position of every axis, in centroid order. O(n log n) per node; for tests and
// benchmarks, not for production. Plugged into the builder as BvhBuildOptions::splitter.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "scene/bvh_builder.h"

namespace wr_test {

class FullSweepSplitter : public wr::BvhSplitter {
 public:
  float split(const wr::BuildItems& items, wr::Range range, const wr::Aabb& box, uint32_t* mid) const override {
    float best_cost = std::numeric_limits<float>::infinity();
    const float parent_area = box.half_area();
    if (!(parent_area > 0.0f)) return best_cost;
    const uint32_t n = range.count();
    int best_axis = -1;
    uint32_t best_k = 0;  // the left side: sorted positions [0, best_k]
    std::vector<float> right_cost(n);
    for (int axis = 0; axis < 3; ++axis) {
      sort_by_centroid(items, range, axis);
      wr::Aabb acc;
      for (uint32_t k = n - 1; k > 0; --k) {  // right side: positions [k, n)
        acc.grow(items.bounds[range.begin + k]);
        right_cost[k - 1] = acc.half_area() * static_cast<float>(n - k);
      }
      acc = wr::Aabb{};
      for (uint32_t k = 0; k + 1 < n; ++k) {  // left side: positions [0, k]
        acc.grow(items.bounds[range.begin + k]);
        const float cost = (acc.half_area() * static_cast<float>(k + 1) + right_cost[k]) / parent_area;
        if (cost < best_cost) {
          best_axis = axis;
          best_k = k;
          best_cost = cost;
        }
      }
    }
    if (best_axis < 0) return best_cost;
    sort_by_centroid(items, range, best_axis);
    *mid = range.begin + best_k + 1;
    return best_cost;
  }

 private:
  // Sorts items[range] by centroid along `axis`, ties by triangle id.
  static void sort_by_centroid(const wr::BuildItems& items, wr::Range range, int axis) {
    struct Ref {
      float c;
      uint32_t id;
      wr::Aabb bounds;
    };
    std::vector<Ref> refs;
    refs.reserve(range.count());
    for (uint32_t i = range.begin; i < range.end; ++i)
      refs.push_back(Ref{items.bounds[i].centre()[axis], items.ids[i], items.bounds[i]});
    std::sort(refs.begin(), refs.end(),
              [](const Ref& a, const Ref& b) { return a.c < b.c || (a.c == b.c && a.id < b.id); });
    for (uint32_t k = 0; k < range.count(); ++k)
      items.ids[range.begin + k] = refs[k].id, items.bounds[range.begin + k] = refs[k].bounds;
  }
};

}  // namespace wr_test
