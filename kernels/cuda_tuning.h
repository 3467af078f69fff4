// The CUDA backend's tuning knobs, with the values it ships with. Each can be overridden when
// building (cmake -DWR_CUDA_TUNING="NAME=VALUE;..."): scripts/gpu-bundle.sh builds variants that
// change one knob at a time, and scripts/gpu-check.sh times them side by side on one GPU, so a
// default is changed on a measurement. (The SAH weights of CUDA scenes are knobs too:
// WR_CUDA_BVH_* in cuda_policy.h.)
#pragma once

// Each warp renders a tile of (1 << shift) x (32 >> shift) pixels of one env: 3 is 8x4.
// Square-ish tiles keep a warp's rays closest together (coherent traversal).
#ifndef WR_CUDA_TILE_W_SHIFT
#define WR_CUDA_TILE_W_SHIFT 3
#endif

// Threads per block (a multiple of 32).
#ifndef WR_CUDA_BLOCK_THREADS
#define WR_CUDA_BLOCK_THREADS 128
#endif

// __launch_bounds__'s minimum of resident blocks per SM, which caps registers per thread
// (65536 / (blocks x threads)); 0 leaves the register count to ptxas (its count per kernel and
// architecture: benchmarks/results/cuda-kernel-static-2026-11-30.md, and every GPU check's file).
#ifndef WR_CUDA_MIN_BLOCKS_PER_SM
#define WR_CUDA_MIN_BLOCKS_PER_SM 0
#endif

// The traversal's loop shape in the kernels (core/traversal_variant.h, nested_loops): 1, the
// nested "while-while" loops; 0, the host's one loop, otherwise the same GPU form, so that the
// sweep measures what the nesting gives.
#ifndef WR_CUDA_NESTED_LOOPS
#define WR_CUDA_NESTED_LOOPS 1
#endif

static_assert(WR_CUDA_TILE_W_SHIFT >= 0 && WR_CUDA_TILE_W_SHIFT <= 5, "a warp tile is 1x32 ... 32x1");
static_assert(WR_CUDA_BLOCK_THREADS % 32 == 0 && WR_CUDA_BLOCK_THREADS <= 1024, "whole warps, at most 1024");
