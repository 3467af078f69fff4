// The CUDA kernels as the host code of the backend (cuda_device.cpp) calls them: each enqueues one
// launch of what kernel_threads.h does per thread, and returns the launch's error (cudaSuccess or
// the error cudaGetLastError reports for it). Implemented in cuda_kernels.cu, the one file nvcc
// compiles; nothing else there but the __global__ shells.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "core/bvh_layout.h"
#include "core/camera.h"
#include "core/depth_pipeline.h"
#include "core/explicit_rays.h"
#include "warp_tiles.h"

namespace wr {
namespace cuda {

// The depth kernel over every warp of `tiles` (tiles.blocks blocks of kBlockThreads threads):
// body_poses (num_envs x 7), depth_out (num_envs x height x width), device pointers; each ray that
// overflows the traversal stack adds one to *overflows. With tiles of zero envs every thread
// returns at once (the warm-up launch of sensor creation).
cudaError_t launch_depth(const BvhView& bvh, const TemplateRay* rays, const DepthParams& params, const WarpTiles& tiles,
                         const float* body_poses, float* depth_out, unsigned long long* overflows,
                         cudaStream_t stream);

// The intersect kernel over rays.count rays (0: the warm-up launch of scene creation), device
// pointers throughout.
cudaError_t launch_intersect(const BvhView& bvh, const ExplicitRays& rays, cudaStream_t stream);

// One render through the RL depth pipeline, all of it enqueued on `stream`: the bad-env count
// cleared, the camera-image kernel (where p.camera_image), the sample kernel (edge dropout), the
// output kernel, the history kernel (history > 1). Device pointers throughout.
cudaError_t launch_pipeline(const BvhView& bvh, const TemplateRay* rays, const PipelineParams& p, const PipelineCall& c,
                            const PipelineState& s, uint32_t num_envs, unsigned long long* overflows,
                            cudaStream_t stream);

}  // namespace cuda
}  // namespace wr
