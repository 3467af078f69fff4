// A CUDA render's launches (kernels/cuda_kernels.cu, launch) run on the CPU: the same grids
// (render_grids), every block's threads, and for an instanced kernel each block's shared phase
// first (prepare_block_instances into the block's own "shared memory", the barrier's AND), then
// every thread of the block; kernels in the order the stream runs them. Tests only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel_threads.h"

namespace wr_test {

struct EmulatedResult {
  uint64_t overflows = 0;  // what the kernels' atomicAdds on the overflow counter would give
  uint32_t bad_envs = 0;   // and on *bad_env_count
};

// One block of a render kernel: the shared phase where the render's blocks prepare their env's
// instances (kShared), then `thread(global_thread, block_instances)` for each of its threads.
template <bool kShared, class Thread>
void emulate_block(uint64_t block, const wr::cuda::WarpTiles& tiles, const wr::PipelineParams& p,
                   const wr::PipelineCall& c, uint32_t block_instances, std::vector<wr::PreparedInstance>* shared,
                   Thread&& thread) {
  const uint32_t threads = wr::cuda::kBlockThreads;
  wr::cuda::BlockInstances b{nullptr, true};
  if (kShared) {
    shared->assign(block_instances, wr::PreparedInstance{});
    const uint32_t env = tiles.env_of_block(block, threads);
    bool all = true;
    for (uint32_t t = 0; t < threads; ++t)
      all = (env < tiles.num_envs ? wr::cuda::prepare_block_instances(c, p, env, t, threads, shared->data()) : true) &&
            all;
    b = wr::cuda::BlockInstances{shared->data(), all};
  }
  for (uint32_t t = 0; t < threads; ++t) thread(block * threads + t, b);
}

// The launches of one render of feature set F (kShared: its blocks prepare their env's instances),
// as cuda_kernels.cu makes them.
template <class F, bool kShared>
EmulatedResult emulate_render(const typename F::Terrain::View& terrain, const wr::TemplateRay* rays,
                              const wr::PipelineParams& p, const wr::PipelineCall& c, const wr::PipelineState& s,
                              uint32_t num_envs) {
  namespace cuda = wr::cuda;
  const wr::RenderFeatureSet features{F::pipeline, F::instances};  // (the grids do not depend on the terrain)
  const cuda::RenderGrids g = cuda::render_grids(p, c, features, num_envs);
  std::vector<wr::PreparedInstance> shared;
  EmulatedResult r;
  if (F::pipeline && F::RaySource::kCameraImage &&
      p.camera_image) {  // (as cuda_kernels.cu: none for a source without camera images)
    for (uint64_t block = 0; block < g.window.blocks; ++block)
      emulate_block<kShared>(block, g.window, p, c, g.block_instances, &shared,
                             [&](uint64_t t, const cuda::BlockInstances& b) {
                               if constexpr (F::pipeline && F::RaySource::kCameraImage)
                                 r.overflows += cuda::camera_thread<F, kShared>(t, terrain, rays, p, c, g.window, s, b);
                             });
    if (p.noise.edges)
      for (uint64_t t = 0; t < g.crop.blocks * cuda::kBlockThreads; ++t) {
        if constexpr (F::pipeline && F::RaySource::kCameraImage) cuda::sample_thread<F>(t, p, c, g.crop, s);
      }
  }
  for (uint64_t block = 0; block < g.out.blocks; ++block)
    emulate_block<kShared>(
        block, g.out, p, c, g.block_instances, &shared, [&](uint64_t t, const cuda::BlockInstances& b) {
          const cuda::OutputThreadResult o = cuda::output_thread<F, kShared>(t, terrain, rays, p, c, g.out, s, b);
          r.overflows += o.overflowed;
          r.bad_envs += o.bad_env;
        });
  if (F::pipeline && p.history > 1)
    for (uint64_t t = 0; t < g.history_blocks * cuda::kBlockThreads; ++t) cuda::history_thread(t, num_envs, p, c, s);
  return r;
}

// The same, for a feature set given as values (the one a render's call derives) and a terrain of
// the kind it names.
inline EmulatedResult emulate_render(const wr::RenderFeatureSet& features, const wr::TerrainView& terrain,
                                     const wr::TemplateRay* rays, const wr::PipelineParams& p,
                                     const wr::PipelineCall& c, const wr::PipelineState& s, uint32_t num_envs) {
  const wr::cuda::RenderGrids g = wr::cuda::render_grids(p, c, features, num_envs);
  return wr::with_features(features, [&](auto f) {
    using F = decltype(f);
    const auto& view = wr::view_of(typename F::Terrain{}, terrain);
    if constexpr (F::instances)
      if (g.block_instances != 0) return emulate_render<F, true>(view, rays, p, c, s, num_envs);
    return emulate_render<F, false>(view, rays, p, c, s, num_envs);
  });
}

}  // namespace wr_test
