// The CUDA kernels: launches of kernel_threads.h, one thread per pixel or ray, and nothing else
// (tests/kernels/test_kernel_threads.cpp runs every thread of an emulated launch on the CPU).
//
// One render's kernels are templates over its feature set (core/render_features.h), one
// instantiation per set: a render without instances runs kernels without the instance loop. Each
// warp renders a tile of one env's image (8x4 pixels; the shape is a knob, cuda_tuning.h), so its
// 32 rays share an origin and nearly a direction (coherent traversal, few divergent nodes). In an
// instanced render each block renders one env, and first poses that env's instances into shared
// memory, once for all its rays. A kernel's parameters hold the view of the scene's terrain kind
// only. The terrain and the ray template are uploaded once and only read;
// poses are read from and outputs written to the caller's device buffers.
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

__device__ uint64_t global_thread() { return static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }

// The shared phase of an instanced kernel's block where its blocks prepare their env's instances
// (kShared: prepare_block_instances, then the barrier that ANDs the poses' check; every thread of
// the block reaches it). Nothing otherwise.
template <bool kShared>
__device__ BlockInstances block_instances(const WarpTiles& tiles, const PipelineParams& p, const PipelineCall& c) {
  BlockInstances b{nullptr, true};
  if constexpr (kShared) {
    extern __shared__ __align__(16) unsigned char block_shared[];
    PreparedInstance* prepared = reinterpret_cast<PreparedInstance*>(block_shared);
    const uint32_t env = tiles.env_of_block(blockIdx.x, blockDim.x);
    const bool valid =
        env < tiles.num_envs ? prepare_block_instances(c, p, env, threadIdx.x, blockDim.x, prepared) : true;
    b.valid = __syncthreads_and(valid) != 0;
    b.prepared = prepared;
  }
  return b;
}

template <class Terrain>
__global__ void WR_KERNEL_BOUNDS intersect_kernel(typename Terrain::View terrain, ExplicitRays rays) {
  intersect_thread<Terrain>(global_thread(), terrain, rays);
}

__global__ void WR_KERNEL_BOUNDS gather_poses_kernel(PoseGather gather) { gather_pose_thread(global_thread(), gather); }

template <class F, bool kShared>
__global__ void WR_KERNEL_BOUNDS camera_kernel(typename F::Terrain::View terrain, const TemplateRay* __restrict__ rays,
                                               PipelineParams p, PipelineCall c, WarpTiles tiles, PipelineState s,
                                               unsigned long long* __restrict__ overflows) {
  const BlockInstances block = block_instances<kShared>(tiles, p, c);
  if (camera_thread<F, kShared>(global_thread(), terrain, rays, p, c, tiles, s, block)) atomicAdd(overflows, 1ull);
}

template <class F>
__global__ void WR_KERNEL_BOUNDS sample_kernel(PipelineParams p, PipelineCall c, WarpTiles tiles, PipelineState s) {
  sample_thread<F>(global_thread(), p, c, tiles, s);
}

template <class F, bool kShared>
__global__ void WR_KERNEL_BOUNDS output_kernel(typename F::Terrain::View terrain, const TemplateRay* __restrict__ rays,
                                               PipelineParams p, PipelineCall c, WarpTiles tiles, PipelineState s,
                                               unsigned long long* __restrict__ overflows) {
  const BlockInstances block = block_instances<kShared>(tiles, p, c);
  const OutputThreadResult r = output_thread<F, kShared>(global_thread(), terrain, rays, p, c, tiles, s, block);
  if (r.overflowed) atomicAdd(overflows, 1ull);
  if constexpr (F::pipeline)
    if (r.bad_env && c.bad_env_count) atomicAdd(c.bad_env_count, 1u);
}

__global__ void WR_KERNEL_BOUNDS history_kernel(uint32_t num_envs, PipelineParams p, PipelineCall c, PipelineState s) {
  history_thread(global_thread(), num_envs, p, c, s);
}

unsigned grid_of(uint64_t blocks) { return blocks > 0 ? static_cast<unsigned>(blocks) : 1u; }

// One render's launches, with kShared where its blocks prepare their env's instances (g's).
template <class F, bool kShared>
cudaError_t launch(const typename F::Terrain::View& terrain, const TemplateRay* rays, const PipelineParams& p,
                   const PipelineCall& c, const RenderGrids& g, const PipelineState& s, uint32_t num_envs,
                   unsigned long long* overflows, cudaStream_t stream) {
  const size_t shared_bytes = size_t(g.block_instances) * sizeof(PreparedInstance);
  cudaError_t err = cudaSuccess;
  if constexpr (F::pipeline) {
    if (c.bad_env_count) {
      err = cudaMemsetAsync(c.bad_env_count, 0, sizeof(uint32_t), stream);
      if (err != cudaSuccess) return err;
    }
    // A source that never makes a camera image (a pattern's: sensor/pattern_model.cpp refuses
    // crops, resampling and edge dropout): its sets carry no camera or sample kernel.
    if constexpr (F::RaySource::kCameraImage) {
      if (p.camera_image) {
        camera_kernel<F, kShared><<<grid_of(g.window.blocks), kBlockThreads, shared_bytes, stream>>>(
            terrain, rays, p, c, g.window, s, overflows);
        err = cudaGetLastError();
        if (err != cudaSuccess) return err;
        if (p.noise.edges) {
          sample_kernel<F><<<grid_of(g.crop.blocks), kBlockThreads, 0, stream>>>(p, c, g.crop, s);
          err = cudaGetLastError();
          if (err != cudaSuccess) return err;
        }
      }
    }
  }
  output_kernel<F, kShared>
      <<<grid_of(g.out.blocks), kBlockThreads, shared_bytes, stream>>>(terrain, rays, p, c, g.out, s, overflows);
  err = cudaGetLastError();
  if constexpr (F::pipeline) {
    if (err != cudaSuccess || p.history <= 1) return err;
    history_kernel<<<grid_of(g.history_blocks), kBlockThreads, 0, stream>>>(num_envs, p, c, s);
    err = cudaGetLastError();
  }
  return err;
}

}  // namespace

cudaError_t launch_render(const TerrainView& terrain, const TemplateRay* rays, const PipelineParams& p,
                          const PipelineCall& c, const RenderFeatureSet& features, const PipelineState& s,
                          uint32_t num_envs, unsigned long long* overflows, cudaStream_t stream) {
  const RenderGrids g = render_grids(p, c, features, num_envs);
  return with_features(features, [&](auto f) {
    using F = decltype(f);
    const auto& view = view_of(typename F::Terrain{}, terrain);
    if constexpr (F::instances)
      if (g.block_instances != 0) return launch<F, true>(view, rays, p, c, g, s, num_envs, overflows, stream);
    return launch<F, false>(view, rays, p, c, g, s, num_envs, overflows, stream);
  });
}

uint64_t render_blocks(const PipelineParams& p, const PipelineCall& c, const RenderFeatureSet& features,
                       uint32_t num_envs) {
  const RenderGrids g = render_grids(p, c, features, num_envs);
  const uint64_t window = features.pipeline && p.camera_image ? g.window.blocks : 0;
  return g.out.blocks > window ? g.out.blocks : window;
}

cudaError_t launch_intersect(const TerrainView& terrain, const ExplicitRays& rays, cudaStream_t stream) {
  const uint64_t blocks = blocks_for(rays.count);
  const unsigned grid = blocks > 0 ? static_cast<unsigned>(blocks) : 1u;
  with_terrain_kind(terrain.kind, [&](auto kind) {
    using T = decltype(kind);
    intersect_kernel<T><<<grid, kBlockThreads, 0, stream>>>(view_of(kind, terrain), rays);
  });
  return cudaGetLastError();
}

cudaError_t launch_gather_poses(const PoseGather& gather, cudaStream_t stream) {
  const uint64_t blocks = blocks_for(uint64_t(gather.num_batches) * gather.count);
  if (blocks == 0) return cudaSuccess;
  gather_poses_kernel<<<static_cast<unsigned>(blocks), kBlockThreads, 0, stream>>>(gather);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace wr
