// CPU backend of wr_scene_intersect: explicit rays in chunks on the thread pool, through the
// shared trace of src/core (the terrain's kind, then the instances).
#pragma once

#include <cstdint>

#include "core/explicit_rays.h"
#include "cpu/thread_pool.h"

namespace wr {

struct CpuIntersectJob {
  TerrainView terrain;  // the scene's, of its kind (core/terrain.h)
  ExplicitRays rays;    // host pointers, validated (host_data_checks.h, validate_explicit_rays)
};

void cpu_intersect(ThreadPool& pool, const CpuIntersectJob& job);

// Rays each thread-pool task of cpu_intersect traces: 256, or more where `count` rays would
// otherwise take more tasks than the pool numbers (2^32 - 1), as near the API's 2^40 limit.
uint64_t cpu_intersect_rays_per_task(uint64_t count);

}  // namespace wr
