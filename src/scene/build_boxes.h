// The boxes the BVH builder works with (bvh_builder.cpp, sah_binning.cpp): four floats in one
// SIMD register (GCC/Clang vector extension: SSE on x86-64, NEON on ARM), x, y, z and a spare
// lane that only repeats z. Lane by lane the operations are the scalar ones (std::min /
// std::max), so the tree is the same as with scalar code.
#pragma once

#include <cstdint>
#include <limits>

namespace wr {

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
  // The centre, what binning sorts by (a triangle's centroid is the centre of its box).
  Float4 centre() const { return 0.5f * (lo + hi); }
};

// A range's triangle bounds and the bounds of their centroids (what binning divides).
struct RangeBounds {
  Aabb box, cbox;
};

// Positions [begin, end) of the builder's triangle permutation.
struct Range {
  uint32_t begin, end;
  uint32_t count() const { return end - begin; }
};

// The triangles being built, permuted together: ids[i] is an input triangle id and bounds[i]
// its box, so binning and partitioning read them in order.
struct BuildItems {
  uint32_t* ids;
  Aabb* bounds;
};

}  // namespace wr
