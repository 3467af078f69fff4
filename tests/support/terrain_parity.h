// Ray-by-ray comparison of a terrain kind with the BVH over the same triangles (the grid kinds'
// tests, tests/core/test_grid_*.cpp): t bit for bit and the triangle id of every ray.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include "core/bvh_traverse.h"
#include "core/terrain.h"
#include "float_bits.h"

namespace wr_test {

struct TerrainRay {
  wr::Vec3 o, d;
  float tmin, tmax;
};

struct TerrainParity {
  size_t hits = 0;        // rays the BVH hits
  size_t mismatches = 0;  // rays whose t bits or triangle id differ
};

// Traces every ray through `bvh` and through `view` of kind Terrain (core/terrain.h), both in the
// traversal form Variant; the first five differences are logged (UNSCOPED_INFO).
template <class Variant, class Terrain>
TerrainParity compare_with_bvh(const wr::BvhView& bvh, const typename Terrain::View& view,
                               const std::vector<TerrainRay>& rays) {
  TerrainParity p;
  for (size_t k = 0; k < rays.size(); ++k) {
    const TerrainRay& r = rays[k];
    const wr::TraceResult a = wr::trace_closest_hit<Variant>(bvh, r.o, r.d, r.tmin, r.tmax);
    const wr::TraceResult b = wr::trace_terrain<Variant>(Terrain{}, view, r.o, r.d, r.tmin, r.tmax);
    p.hits += a.triangle != wr::kInvalidIndex;
    if (a.triangle != b.triangle || !same_bits(a.t, b.t)) {
      if (++p.mismatches <= 5)
        UNSCOPED_INFO("ray " << k << " o (" << r.o.x << ", " << r.o.y << ", " << r.o.z << ") d (" << r.d.x << ", "
                             << r.d.y << ", " << r.d.z << "): BVH " << a.triangle << " at " << a.t << ", grid "
                             << b.triangle << " at " << b.t);
    }
  }
  return p;
}

}  // namespace wr_test
