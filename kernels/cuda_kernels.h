// The CUDA kernels as the host code of the backend (cuda_device.cpp) calls them: each enqueues
// the launches of what kernel_threads.h does per thread, and returns the launches' error
// (cudaSuccess or the error cudaGetLastError reports for one). Implemented in cuda_kernels.cu, the
// one file nvcc compiles; nothing else there but the __global__ shells.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "core/bvh_layout.h"
#include "core/camera.h"
#include "core/depth_pipeline.h"
#include "core/explicit_rays.h"
#include "core/pose_gather.h"
#include "warp_tiles.h"

namespace wr {
namespace cuda {

// The intersect kernel of the terrain's kind over rays.count rays (0: the warm-up launch of scene
// creation), device pointers throughout.
cudaError_t launch_intersect(const TerrainView& terrain, const ExplicitRays& rays, cudaStream_t stream);

// The pose gather kernel (wr_gather_poses): one thread per pose, num_batches x count of them (the API
// bounds them below 2^31).
cudaError_t launch_gather_poses(const PoseGather& gather, cudaStream_t stream);

// The launches of one render, all enqueued on `stream`, each kernel the instantiation for
// `features` (core/render_features.h): the bad-env count cleared (where asked), the camera-image
// kernel (with the pipeline, where p.camera_image), the sample kernel (edge dropout), the output
// kernel, the history kernel (history > 1). Device pointers throughout; each ray that overflows
// the traversal stack adds one to *overflows. With num_envs 0 every thread returns at once (the
// warm-up launches of sensor creation).
cudaError_t launch_render(const TerrainView& terrain, const TemplateRay* rays, const PipelineParams& p,
                          const PipelineCall& c, const RenderFeatureSet& features, const PipelineState& s,
                          uint32_t num_envs, unsigned long long* overflows, cudaStream_t stream);

// The warps of a render's widest launch, for the host's check of the grid's limit.
uint64_t render_blocks(const PipelineParams& p, const PipelineCall& c, const RenderFeatureSet& features,
                       uint32_t num_envs);

}  // namespace cuda
}  // namespace wr
