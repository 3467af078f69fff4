// The CUDA depth kernel's thread-to-pixel mapping (kernels/warp_tiles.h), checked on the CPU:
// every pixel of every env is rendered by exactly one thread, each warp stays inside one
// env, and its lanes form one tile, for every tile shape (1x32 ... 32x1; the kernel's own is a
// build-time knob, kernels/cuda_tuning.h), two block sizes, and full, partial and tiny images.
#include <catch2/catch.hpp>

#include <vector>

#include "warp_tiles.h"

TEST_CASE("every pixel of every env gets exactly one thread, and warps are tiles of one env") {
  struct Size {
    uint32_t w, h, n;
  };
  for (const Size s : {Size{106, 60, 3}, Size{87, 58, 2}, Size{37, 23, 7}, Size{1, 1, 5}, Size{8, 4, 1}, Size{9, 5, 2},
                       Size{64, 48, 1}, Size{3, 100, 2}}) {
    for (uint32_t shift = 0; shift <= 5; ++shift) {
      for (uint32_t block_threads : {128u, 256u}) {
        const uint32_t tile_w = 1u << shift;
        const wr::cuda::WarpTiles tiles = wr::cuda::WarpTiles::make(s.w, s.h, s.n, shift, block_threads);
        INFO(s.w << "x" << s.h << " x " << s.n << " envs, tile " << tile_w << "x" << 32 / tile_w << ", blocks of "
                 << block_threads);
        std::vector<int> hits(size_t(s.w) * s.h * s.n, 0);
        const uint64_t threads = tiles.blocks * block_threads;
        REQUIRE(threads >= uint64_t(s.w) * s.h * s.n);
        int warps_crossing_envs = 0, lanes_off_tile = 0;
        for (uint64_t warp = 0; warp * 32 < threads; ++warp) {
          uint32_t first_env = ~0u, u0 = 0, v0 = 0;
          for (uint32_t lane = 0; lane < 32; ++lane) {
            uint32_t env, u, v;
            if (!tiles.pixel_of(warp * 32 + lane, &env, &u, &v)) continue;
            REQUIRE(env < s.n);
            REQUIRE(u < s.w);
            REQUIRE(v < s.h);
            ++hits[(size_t(env) * s.h + v) * s.w + u];
            if (first_env == ~0u) {
              first_env = env;
              u0 = u - lane % tile_w;
              v0 = v - lane / tile_w;
            }
            warps_crossing_envs += env != first_env;
            lanes_off_tile += (u != u0 + lane % tile_w) || (v != v0 + lane / tile_w);
          }
        }
        size_t wrong = 0;
        for (int h : hits) wrong += h != 1;
        CHECK(wrong == 0);
        CHECK(warps_crossing_envs == 0);
        CHECK(lanes_off_tile == 0);
      }
    }
  }
}
