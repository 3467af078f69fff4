// CPU backend of the depth sensor: tiles of neighbouring pixels of one env per task, run on
// the context's thread pool, traced as SIMD packets (cpu/packet_tile.h) where the CPU allows
// and through the per-pixel pipeline of src/core (core/pixel_pipeline.h) otherwise.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/pixel_pipeline.h"
#include "cpu/cpu_simd.h"
#include "cpu/thread_pool.h"

namespace wr {

// Everything one render reads and writes; all pointers are host memory.
struct CpuRenderJob {
  BvhView bvh;
  const TemplateRay* rays;  // (height x width) shared ray template
  uint32_t width, height, num_envs;
  DepthParams params;
  const float* body_poses;  // (num_envs x 7), already validated
  float* depth_out;         // (num_envs x height x width)
  std::atomic<uint64_t>* stack_overflows;  // incremented once per overflowed ray
  CpuSimd simd = best_cpu_simd();          // tracing path; every path gives the same depth
};

// Side of the square pixel tiles a task renders one after the other (a task is a run of
// consecutive tiles of one env, a whole env when there are enough envs): 8x8 rays from one
// origin with nearly the same direction visit nearly the same nodes, which stay in cache.
constexpr uint32_t kCpuTileSize = 8;

// Traces one tile (cpu/packet_tile.h, a valid camera) with the SIMD packet path packet_fn, or
// with the per-pixel pipeline where it is null; returns the rays that overflowed the stack.
uint64_t trace_tile(const PacketTile& tile, PacketTileFn packet_fn);

// Fills job.depth_out. Allocates nothing; the result does not depend on the thread count.
void cpu_render(ThreadPool& pool, const CpuRenderJob& job);

// How cpu_render splits a render into thread-pool tasks: each task renders tiles_per_task
// consecutive tiles of one env (fewer at the env's end). For width x height x num_envs below
// 2^32 (the sensor's limit, sensor.cpp) num_tasks stays below 2^32, the pool's task numbering;
// tests/test_cpu_task_numbering.cpp checks that at the limit.
struct CpuRenderTasks {
  uint32_t tiles_x, tiles_per_env;   // kCpuTileSize-square tiles of one image
  uint32_t tiles_per_task, tasks_per_env;
  uint64_t num_tasks;                // tasks_per_env x num_envs
};
CpuRenderTasks cpu_render_tasks(uint32_t width, uint32_t height, uint32_t num_envs, unsigned num_threads);

}  // namespace wr
