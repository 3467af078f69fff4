// What one thread of each CUDA kernel does, as plain host/device code. The kernels of
// cuda_kernels.cu are launches of these functions and nothing else; tests/test_kernel_threads.cpp
// runs every thread of a launch on the CPU (an emulated grid, for every tile shape) and compares
// the result with the CPU backend's, so the kernels' indexing, their handling of bad poses and
// rays, and their output layout are checked without a GPU.
#pragma once

#include "core/pixel_pipeline.h"
#include "core/traversal_variant.h"
#include "cuda_tuning.h"
#include "warp_tiles.h"

namespace wr {
namespace cuda {

// The traversal as the kernels run it: the GPU's form, with the loop shape of the tuning knob.
using CudaTraversal = TraversalVariant<WR_CUDA_NESTED_LOOPS != 0, GpuTraversal::select_node_planes,
                                       GpuTraversal::minmax_slab>;

// One pixel of the ray template: one 16-byte read-only load on the GPU.
WR_HD TemplateRay load_template_ray(const TemplateRay* p) {
#if defined(__CUDA_ARCH__)
  const float4 r = __ldg(reinterpret_cast<const float4*>(p));
  return TemplateRay{{r.x, r.y, r.z}, r.w};
#else
  return *p;
#endif
}

// Thread `thread` of the depth kernel: renders the pixel WarpTiles assigns it, if any, into
// depth_out (num_envs x height x width). body_poses: (num_envs x 7); rays: (height x width).
// An env whose pose is not finite (or has a zero quaternion) gets NaN at every pixel; other envs
// are not affected. Returns true when this thread's ray overflowed the traversal stack.
WR_HD bool depth_thread(uint64_t thread, const BvhView& bvh, const TemplateRay* rays, const DepthParams& params,
                        const WarpTiles& tiles, const float* body_poses, float* depth_out) {
  uint32_t env, u, v;
  if (!tiles.pixel_of(thread, &env, &u, &v)) return false;
  const uint32_t pixel = v * tiles.width + u;
  float* out = depth_out + static_cast<uint64_t>(env) * tiles.width * tiles.height + pixel;
  RigidTransform camera;
  if (!camera_from_body_pose(body_poses + 7ull * env, params, &camera)) {
    *out = quiet_nan_();  // a bad pose poisons only its own env's image
    return false;
  }
  bool overflowed;
  *out = render_pixel<CudaTraversal>(bvh, load_template_ray(rays + pixel), camera, params, &overflowed);
  return overflowed;
}

// Thread `i` of the intersect kernel (wr_scene_intersect on a CUDA context): ray i of
// origins, directions (count x 3) and tmax (count, or null for +inf). out_t (count) gets the
// nearest t (+inf for a miss), out_triangle (count, or null) the triangle id (kInvalidIndex for a
// miss). A ray that the CPU would reject (non-finite, zero direction, negative tmax) gets NaN and
// kInvalidIndex: on the device it cannot be reported before the results are written.
WR_HD void intersect_thread(uint64_t i, const BvhView& bvh, const float* origins, const float* directions,
                            const float* tmax, uint64_t count, float* out_t, uint32_t* out_triangle) {
  if (i >= count) return;
  const Vec3 o{origins[3 * i], origins[3 * i + 1], origins[3 * i + 2]};
  const Vec3 d{directions[3 * i], directions[3 * i + 1], directions[3 * i + 2]};
  const float t_far = tmax ? tmax[i] : infinity_();
  const bool valid = is_finite_(o.x) && is_finite_(o.y) && is_finite_(o.z) && is_finite_(d.x) &&
                     is_finite_(d.y) && is_finite_(d.z) && (d.x != 0.0f || d.y != 0.0f || d.z != 0.0f) &&
                     t_far >= 0.0f;
  if (!valid) {
    out_t[i] = quiet_nan_();
    if (out_triangle) out_triangle[i] = kInvalidIndex;
    return;
  }
  const TraceResult hit = trace_closest_hit<CudaTraversal>(bvh, o, d, 0.0f, t_far);
  out_t[i] = hit.triangle != kInvalidIndex ? hit.t : infinity_();
  if (out_triangle) out_triangle[i] = hit.triangle;
}

}  // namespace cuda
}  // namespace wr
