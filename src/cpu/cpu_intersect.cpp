#include "cpu/cpu_intersect.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "common/status_error.h"
#include "core/traversal_variant.h"
#include "scene/instance_layout.h"

namespace wr {
namespace {

struct Chunks {
  const CpuIntersectJob* job;
  uint64_t rays_per_task;
};

void intersect_chunk(void* context, uint32_t task, unsigned /*thread_index*/) {
  const Chunks& chunks = *static_cast<const Chunks*>(context);
  const CpuIntersectJob& job = *chunks.job;
  const uint64_t begin = task * chunks.rays_per_task;
  const uint64_t end = begin + chunks.rays_per_task < job.rays.count ? begin + chunks.rays_per_task : job.rays.count;
  for (uint64_t i = begin; i < end; ++i) intersect_explicit_ray<HostTraversal>(job.bvh, job.rays, i, true);
}

[[noreturn]] void bad_ray(const char* function, const char* array, uint64_t ray, const float* v, int n,
                          const char* why) {
  char values[160];
  if (n == 3)
    std::snprintf(values, sizeof values, "(%g, %g, %g)", v[0], v[1], v[2]);
  else
    std::snprintf(values, sizeof values, "%g", v[0]);
  fail(WR_ERROR_INVALID_ARGUMENT,
       std::string(function) + ": " + array + " of ray " + std::to_string(ray) + " = " + values + " " + why);
}

}  // namespace

void validate_explicit_rays(const char* function, const ExplicitRays& r) {
  for (uint64_t i = 0; i < r.count; ++i) {
    const float* o = r.origins + 3 * i;
    const float* d = r.directions + 3 * i;
    if (!(std::isfinite(o[0]) && std::isfinite(o[1]) && std::isfinite(o[2])))
      bad_ray(function, "origins", i, o, 3, "is not finite");
    if (!(std::isfinite(d[0]) && std::isfinite(d[1]) && std::isfinite(d[2])))
      bad_ray(function, "directions", i, d, 3, "is not finite");
    if (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f) bad_ray(function, "directions", i, d, 3, "is zero");
    if (r.tmax && !(r.tmax[i] >= 0.0f)) bad_ray(function, "tmax", i, r.tmax + i, 1, "must be >= 0 (+inf allowed)");
  }
  if (num_instances(r.instances) != 0)
    validate_instance_poses(function, r.instances, r.instance_poses, r.global_poses, r.count / r.rays_per_env,
                            nullptr, r.quat_order, "nothing was traced");
}

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
  pool.run(static_cast<uint32_t>(tasks), intersect_chunk, &chunks);
}

}  // namespace wr
