#include "cpu/cpu_intersect.h"

#include <limits>

#include "core/traversal_variant.h"

namespace wr {
namespace {

struct Chunks {
  const CpuIntersectJob* job;
  uint64_t rays_per_task;
};

template <class Terrain>
void intersect_chunk(void* context, uint32_t task, unsigned /*thread_index*/) {
  const Chunks& chunks = *static_cast<const Chunks*>(context);
  const CpuIntersectJob& job = *chunks.job;
  const auto& terrain = view_of(Terrain{}, job.terrain);
  const uint64_t begin = task * chunks.rays_per_task;
  const uint64_t end = begin + chunks.rays_per_task < job.rays.count ? begin + chunks.rays_per_task : job.rays.count;
  for (uint64_t i = begin; i < end; ++i) intersect_explicit_ray<HostTraversal, Terrain>(terrain, job.rays, i, true);
}

}  // namespace

uint64_t cpu_intersect_rays_per_task(uint64_t count) {
  constexpr uint64_t kRaysPerTask = 256;
  constexpr uint64_t kMaxTasks = std::numeric_limits<uint32_t>::max();
  // Past 2^40 - 256 rays, 256 per task would take more than 2^32 - 1 tasks.
  const uint64_t at_least = count / kMaxTasks + (count % kMaxTasks != 0);
  return at_least > kRaysPerTask ? at_least : kRaysPerTask;
}

void cpu_intersect(ThreadPool& pool, const CpuIntersectJob& job) {
  Chunks chunks{&job, cpu_intersect_rays_per_task(job.rays.count)};
  const uint64_t tasks = job.rays.count / chunks.rays_per_task + (job.rays.count % chunks.rays_per_task != 0);
  with_terrain_kind(job.terrain.kind, [&](auto kind) {
    pool.run(static_cast<uint32_t>(tasks), intersect_chunk<decltype(kind)>, &chunks);
  });
}

}  // namespace wr
