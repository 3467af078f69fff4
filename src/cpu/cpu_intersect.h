// CPU backend of wr_scene_intersect: explicit rays in chunks on the thread pool, through the
// shared traversal of src/core.
#pragma once

#include <cstdint>

#include "core/bvh_layout.h"
#include "cpu/thread_pool.h"

namespace wr {

struct CpuIntersectJob {
  BvhView bvh;
  const float* origins;     // (count x 3)
  const float* directions;  // (count x 3), non-zero
  const float* tmax;        // (count) or null for +inf
  uint64_t count;
  float* out_t;             // (count): nearest t, +inf for a miss
  uint32_t* out_triangle;   // (count) or null: input triangle id, UINT32_MAX for a miss
};

// Throws WR_ERROR_INVALID_ARGUMENT naming the first bad ray ("<function>: directions of
// ray 5 ..."); checks everything before anything is written.
void validate_explicit_rays(const char* function, const float* origins, const float* directions, const float* tmax,
                            uint64_t count);

void cpu_intersect(ThreadPool& pool, const CpuIntersectJob& job);

// Rays each thread-pool task of cpu_intersect traces: 256, or more where `count` rays would
// otherwise take more tasks than the pool numbers (2^32 - 1), as near the API's 2^40 limit.
uint64_t cpu_intersect_rays_per_task(uint64_t count);

}  // namespace wr
