// The CUDA kernels: launches of kernel_threads.h, one thread per pixel or ray, and nothing else
// (tests/test_kernel_threads.cpp runs every thread of an emulated launch on the CPU).
//
// One depth launch covers every env. Each warp renders a tile of one env's image (8x4 pixels; the
// shape is a knob, cuda_tuning.h), so its 32 rays share an origin and nearly a direction
// (coherent traversal, few divergent nodes). The BVH and the ray template are uploaded once and
// only read; poses are read from and depth written to the caller's device buffers.
#include "cuda_kernels.h"
#include "kernel_threads.h"

namespace wr {
namespace cuda {
namespace {

// Occupancy knob (cuda_tuning.h): with a minimum of resident blocks, ptxas caps the registers.
#if WR_CUDA_MIN_BLOCKS_PER_SM > 0
#define WR_KERNEL_BOUNDS __launch_bounds__(kBlockThreads, WR_CUDA_MIN_BLOCKS_PER_SM)
#else
#define WR_KERNEL_BOUNDS __launch_bounds__(kBlockThreads)
#endif

__global__ void WR_KERNEL_BOUNDS
    depth_kernel(BvhView bvh, const TemplateRay* __restrict__ rays, DepthParams params, WarpTiles tiles,
                 const float* __restrict__ body_poses, float* __restrict__ depth_out,
                 unsigned long long* __restrict__ overflows) {
  const uint64_t thread = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (depth_thread(thread, bvh, rays, params, tiles, body_poses, depth_out)) atomicAdd(overflows, 1ull);
}

__global__ void WR_KERNEL_BOUNDS intersect_kernel(BvhView bvh, ExplicitRays rays) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  intersect_thread(i, bvh, rays);
}

__global__ void WR_KERNEL_BOUNDS pipeline_camera_kernel(BvhView bvh, const TemplateRay* __restrict__ rays,
                                                       PipelineParams p, PipelineCall c, WarpTiles tiles,
                                                       PipelineState s, unsigned long long* __restrict__ overflows) {
  const uint64_t thread = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (pipeline_camera_thread(thread, bvh, rays, p, c, tiles, s)) atomicAdd(overflows, 1ull);
}

__global__ void WR_KERNEL_BOUNDS pipeline_sample_kernel(PipelineParams p, PipelineCall c, WarpTiles tiles,
                                                       PipelineState s) {
  pipeline_sample_thread(static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x, p, c, tiles, s);
}

__global__ void WR_KERNEL_BOUNDS pipeline_output_kernel(BvhView bvh, const TemplateRay* __restrict__ rays,
                                                       PipelineParams p, PipelineCall c, WarpTiles tiles,
                                                       PipelineState s, unsigned long long* __restrict__ overflows) {
  const uint64_t thread = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const OutputThreadResult r = pipeline_output_thread(thread, bvh, rays, p, c, tiles, s);
  if (r.overflowed) atomicAdd(overflows, 1ull);
  if (r.bad_env && c.bad_env_count) atomicAdd(c.bad_env_count, 1u);
}

__global__ void WR_KERNEL_BOUNDS pipeline_history_kernel(uint32_t num_envs, PipelineParams p, PipelineCall c,
                                                        PipelineState s) {
  pipeline_history_thread(static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x, num_envs, p, c, s);
}

unsigned grid_of(uint64_t blocks) { return blocks > 0 ? static_cast<unsigned>(blocks) : 1u; }

}  // namespace

cudaError_t launch_pipeline(const BvhView& bvh, const TemplateRay* rays, const PipelineParams& p, const PipelineCall& c,
                            const PipelineState& s, uint32_t num_envs, unsigned long long* overflows,
                            cudaStream_t stream) {
  if (c.bad_env_count) {
    const cudaError_t err = cudaMemsetAsync(c.bad_env_count, 0, sizeof(uint32_t), stream);
    if (err != cudaSuccess) return err;
  }
  if (p.camera_image) {
    const WarpTiles window = WarpTiles::make(p.win_w, p.win_h, num_envs);
    pipeline_camera_kernel<<<grid_of(window.blocks), kBlockThreads, 0, stream>>>(bvh, rays, p, c, window, s,
                                                                                overflows);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    if (p.noise.edges) {
      const WarpTiles crop = WarpTiles::make(p.output.crop_w, p.output.crop_h, num_envs);
      pipeline_sample_kernel<<<grid_of(crop.blocks), kBlockThreads, 0, stream>>>(p, c, crop, s);
      err = cudaGetLastError();
      if (err != cudaSuccess) return err;
    }
  }
  const WarpTiles out = WarpTiles::make(p.output.out_w, p.output.out_h, num_envs);
  pipeline_output_kernel<<<grid_of(out.blocks), kBlockThreads, 0, stream>>>(bvh, rays, p, c, out, s, overflows);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess || p.history <= 1) return err;
  pipeline_history_kernel<<<grid_of(blocks_for(num_envs)), kBlockThreads, 0, stream>>>(num_envs, p, c, s);
  return cudaGetLastError();
}

cudaError_t launch_depth(const BvhView& bvh, const TemplateRay* rays, const DepthParams& params, const WarpTiles& tiles,
                         const float* body_poses, float* depth_out, unsigned long long* overflows,
                         cudaStream_t stream) {
  const unsigned blocks = tiles.blocks > 0 ? static_cast<unsigned>(tiles.blocks) : 1u;
  depth_kernel<<<blocks, kBlockThreads, 0, stream>>>(bvh, rays, params, tiles, body_poses, depth_out, overflows);
  return cudaGetLastError();
}

cudaError_t launch_intersect(const BvhView& bvh, const ExplicitRays& rays, cudaStream_t stream) {
  const uint64_t blocks = blocks_for(rays.count);
  intersect_kernel<<<blocks > 0 ? static_cast<unsigned>(blocks) : 1u, kBlockThreads, 0, stream>>>(bvh, rays);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace wr
