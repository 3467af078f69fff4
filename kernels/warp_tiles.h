// How the depth kernel maps its threads to pixels: each warp of 32 threads renders an 8x4
// pixel tile of one env (neighbouring rays from one origin: coherent traversal); warps are
// numbered env by env, tile rows top to bottom. Plain integer code (no CUDA), so the CPU
// tests check that every pixel of every env gets exactly one thread (tests/test_warp_tiles.cpp).
#pragma once

#include "core/platform.h"

namespace wr {
namespace cuda {

constexpr uint32_t kTileW = 8, kTileH = 4;  // one warp
constexpr uint32_t kBlockThreads = 128;     // four warps per block

struct WarpTiles {
  uint32_t width, height, num_envs;
  uint32_t tiles_x, tiles_per_env;
  uint64_t num_warps;
  uint64_t blocks;  // of kBlockThreads threads

  WR_HD static WarpTiles make(uint32_t width, uint32_t height, uint32_t num_envs) {
    WarpTiles g;
    g.width = width;
    g.height = height;
    g.num_envs = num_envs;
    g.tiles_x = (width + kTileW - 1) / kTileW;
    g.tiles_per_env = g.tiles_x * ((height + kTileH - 1) / kTileH);
    g.num_warps = static_cast<uint64_t>(g.tiles_per_env) * num_envs;
    g.blocks = (g.num_warps * 32 + kBlockThreads - 1) / kBlockThreads;
    return g;
  }

  // The pixel (u, v) of env `env` that global thread `thread` renders; false when the thread
  // falls outside every image (past the last warp, or in a partial tile's overhang).
  WR_HD bool pixel_of(uint64_t thread, uint32_t* env, uint32_t* u, uint32_t* v) const {
    const uint64_t warp = thread / 32;
    const uint32_t lane = static_cast<uint32_t>(thread % 32);
    if (warp >= num_warps) return false;
    *env = static_cast<uint32_t>(warp / tiles_per_env);
    const uint32_t tile = static_cast<uint32_t>(warp % tiles_per_env);
    *u = (tile % tiles_x) * kTileW + lane % kTileW;
    *v = (tile / tiles_x) * kTileH + lane / kTileW;
    return *u < width && *v < height;
  }
};

}  // namespace cuda
}  // namespace wr
