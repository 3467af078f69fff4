// CUDA policy that is not kernel code: how CUDA contexts build their scenes' BVH. Plain C++ (no
// CUDA header), so that the tests and tools that study the GPU's tree build it on any machine.
#pragma once

#include "scene/bvh_builder.h"

// The BvhBuildOptions defaults (scene/bvh_builder.h) are tuned for the CPU's packet traversal.
// CUDA contexts build with the SAH weights the GPU kernel was written for (one thread per ray
// tests every triangle of a leaf alone, so smaller leaves and a cheaper node visit) until a GPU
// run says otherwise; the trees differ, the depth does not (traversal is exact either way). Both
// are build-time knobs like those of cuda_tuning.h, so that the GPU check can time variants side
// by side (WR_CUDA_TUNING, scripts/build-cuda-variants.sh).
#ifndef WR_CUDA_BVH_TRAVERSAL_COST
#define WR_CUDA_BVH_TRAVERSAL_COST 2.0f
#endif
#ifndef WR_CUDA_BVH_MAX_LEAF
#define WR_CUDA_BVH_MAX_LEAF 8
#endif

namespace wr {
namespace cuda {

inline BvhBuildOptions bvh_build_options() {
  BvhBuildOptions options;
  options.traversal_cost = WR_CUDA_BVH_TRAVERSAL_COST;
  options.max_leaf_size = WR_CUDA_BVH_MAX_LEAF;
  return options;
}

}  // namespace cuda
}  // namespace wr
