// How the render's kernels map their threads to pixels: each warp of 32 threads renders a tile of
// one env (neighbouring rays from one origin: coherent traversal), (1 << tile_w_shift) pixels
// wide and 32 >> tile_w_shift tall; warps are numbered env by env, tile rows top to bottom. With
// env_blocks, each env's warps are padded to whole blocks, so that every block renders one env
// (an instanced render's block poses its env's instances once, into shared memory).
// Plain integer code (no CUDA), so the CPU tests check that every pixel of every env gets
// exactly one thread, for every tile shape (tests/kernels/test_warp_tiles.cpp).
#pragma once

#include "core/platform.h"
#include "cuda_tuning.h"

namespace wr {
namespace cuda {

constexpr uint32_t kTileWShift = WR_CUDA_TILE_W_SHIFT;     // 3: 8x4 tiles
constexpr uint32_t kBlockThreads = WR_CUDA_BLOCK_THREADS;  // 128: four warps per block

// Blocks of kBlockThreads threads for `count` threads, one per element (rays, envs).
WR_HD uint64_t blocks_for(uint64_t count) { return (count + kBlockThreads - 1) / kBlockThreads; }

struct WarpTiles {
  uint32_t width, height, num_envs;
  uint32_t tile_w_shift;  // tile: (1 << tile_w_shift) x (32 >> tile_w_shift) pixels
  uint32_t tiles_x, tiles_per_env;
  uint32_t warps_per_env;  // tiles_per_env, or with env_blocks rounded up to whole blocks
  uint64_t num_warps;
  uint64_t blocks;  // of block_threads threads

  WR_HD static WarpTiles make(uint32_t width, uint32_t height, uint32_t num_envs, uint32_t tile_w_shift = kTileWShift,
                              uint32_t block_threads = kBlockThreads, bool env_blocks = false) {
    WarpTiles g;
    g.width = width;
    g.height = height;
    g.num_envs = num_envs;
    g.tile_w_shift = tile_w_shift;
    const uint32_t tile_w = 1u << tile_w_shift, tile_h = 32u >> tile_w_shift;
    g.tiles_x = (width + tile_w - 1) / tile_w;
    g.tiles_per_env = g.tiles_x * ((height + tile_h - 1) / tile_h);
    const uint32_t block_warps = block_threads / 32;
    g.warps_per_env = env_blocks ? (g.tiles_per_env + block_warps - 1) / block_warps * block_warps : g.tiles_per_env;
    g.num_warps = static_cast<uint64_t>(g.warps_per_env) * num_envs;
    g.blocks = (g.num_warps * 32 + block_threads - 1) / block_threads;
    return g;
  }

  // The env whose pixels every thread of block `block` renders (made with env_blocks; past the
  // last env for the one block of a launch over no env).
  WR_HD uint32_t env_of_block(uint64_t block, uint32_t block_threads = kBlockThreads) const {
    return static_cast<uint32_t>(block * (block_threads / 32) / warps_per_env);
  }

  // The pixel (u, v) of env `env` that global thread `thread` renders; false when the thread
  // falls outside every image (past the last warp, in a partial tile's overhang, or in an env's
  // padding to whole blocks).
  WR_HD bool pixel_of(uint64_t thread, uint32_t* env, uint32_t* u, uint32_t* v) const {
    const uint64_t warp = thread / 32;
    const uint32_t lane = static_cast<uint32_t>(thread % 32);
    if (warp >= num_warps) return false;
    *env = static_cast<uint32_t>(warp / warps_per_env);
    const uint32_t tile = static_cast<uint32_t>(warp % warps_per_env);
    if (tile >= tiles_per_env) return false;
    *u = ((tile % tiles_x) << tile_w_shift) + (lane & ((1u << tile_w_shift) - 1u));
    *v = (tile / tiles_x) * (32u >> tile_w_shift) + (lane >> tile_w_shift);
    return *u < width && *v < height;
  }
};

}  // namespace cuda
}  // namespace wr
