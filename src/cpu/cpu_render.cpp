#include "cpu/cpu_render.h"

namespace wr {
namespace {

struct TileGrid : CpuRenderTasks {
  const CpuRenderJob* job;
  PacketTileFn packet_fn;  // nullptr: scalar
};

// One tile of one env; `valid` and `camera` come from the env's pose (camera_from_body_pose).
void render_tile(const TileGrid& grid, uint32_t env, uint32_t tile, bool valid, const RigidTransform& camera) {
  const CpuRenderJob& job = *grid.job;
  const uint32_t u0 = (tile % grid.tiles_x) * kCpuTileSize, v0 = (tile / grid.tiles_x) * kCpuTileSize;
  const uint32_t u1 = u0 + kCpuTileSize < job.width ? u0 + kCpuTileSize : job.width;
  const uint32_t v1 = v0 + kCpuTileSize < job.height ? v0 + kCpuTileSize : job.height;
  float* image = job.depth_out + static_cast<size_t>(env) * job.width * job.height;
  const PacketTile t{job.bvh, u0, v0, u1, v1, job.rays, 0,       0,       job.width, image, 0, 0, job.width,
                     camera,  &job.params, nullptr, nullptr};
  if (!valid) {  // unreachable through the C API, which rejects bad poses first
    for (uint32_t v = v0; v < v1; ++v)
      for (uint32_t u = u0; u < u1; ++u) tile_depth(t, u, v) = quiet_nan_();
    return;
  }
  const uint64_t overflows = trace_tile(t, grid.packet_fn);
  if (overflows) job.stack_overflows->fetch_add(overflows, std::memory_order_relaxed);
}

// One task: consecutive tiles of one env, so one core walks the part of the BVH that env sees.
void render_tiles(void* context, uint32_t task, unsigned /*thread_index*/) {
  const TileGrid& grid = *static_cast<const TileGrid*>(context);
  const uint32_t env = task / grid.tasks_per_env, first = task % grid.tasks_per_env * grid.tiles_per_task;
  const uint32_t end = first + grid.tiles_per_task;
  const uint32_t last = end < grid.tiles_per_env ? end : grid.tiles_per_env;
  RigidTransform camera{};  // once per task, not per tile
  const bool valid = camera_from_body_pose(grid.job->body_poses + 7ull * env, grid.job->params, &camera);
  for (uint32_t tile = first; tile < last; ++tile) render_tile(grid, env, tile, valid, camera);
}

}  // namespace

uint64_t trace_tile(const PacketTile& tile, PacketTileFn packet_fn) {
  if (packet_fn) return packet_fn(tile);
  uint64_t overflows = 0;
  for (uint32_t v = tile.v0; v < tile.v1; ++v) {
    const TemplateRay* rays = &tile_ray(tile, tile.u0, v);
    float* image = &tile_depth(tile, tile.u0, v);
    for (uint32_t i = 0; i < tile.u1 - tile.u0; ++i) {
      bool overflowed;
      uint32_t instance;
      image[i] = render_pixel<HostTraversal>(tile.bvh, tile.instances, rays[i], tile.camera, *tile.params, &overflowed,
                                             &instance);
      set_tile_id(tile, tile.u0 + i, v, instance);
      overflows += overflowed;
    }
  }
  return overflows;
}

CpuRenderTasks cpu_render_tasks(uint32_t width, uint32_t height, uint32_t num_envs, unsigned num_threads) {
  CpuRenderTasks t;
  t.tiles_x = (width + kCpuTileSize - 1) / kCpuTileSize;
  t.tiles_per_env = t.tiles_x * ((height + kCpuTileSize - 1) / kCpuTileSize);
  // Tasks as large as still gives every thread 16 of them, at most a whole env.
  const uint64_t tiles = uint64_t(t.tiles_per_env) * num_envs, min_tasks = 16ull * num_threads;
  const uint64_t per_task = tiles / min_tasks;
  t.tiles_per_task = per_task < 1 ? 1 : per_task > t.tiles_per_env ? t.tiles_per_env : uint32_t(per_task);
  t.tasks_per_env = (t.tiles_per_env + t.tiles_per_task - 1) / t.tiles_per_task;
  t.num_tasks = uint64_t(t.tasks_per_env) * num_envs;
  return t;
}

void cpu_render(ThreadPool& pool, const CpuRenderJob& job) {
  TileGrid grid;
  static_cast<CpuRenderTasks&>(grid) = cpu_render_tasks(job.width, job.height, job.num_envs, pool.num_threads());
  grid.job = &job;
  grid.packet_fn = packet_tile_fn(job.simd);
  pool.run(static_cast<uint32_t>(grid.num_tasks), render_tiles, &grid);
}

}  // namespace wr
