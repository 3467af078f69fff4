// The CPU backend's one render (backend/backend.h, SensorBackend::render), for every feature set
// (core/render_features.h): tiles of neighbouring pixels of one env, in runs of consecutive tiles
// per thread-pool task, traced as SIMD packets (cpu/packet_tile.h) where the CPU allows and
// through the per-pixel pipeline of src/core otherwise, each pixel's value made by the render's
// stages (core/depth_pipeline.h) and emitted into the output and the env's history.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/depth_pipeline.h"
#include "cpu/cpu_simd.h"
#include "cpu/thread_pool.h"

namespace wr {

// Everything one render reads and writes; all pointers are host memory.
struct CpuRenderJob {
  TerrainView terrain;      // the scene's, of the kind features.terrain names
  const TemplateRay* rays;  // (cam_h x cam_w) the sensor's shared template
  const PipelineParams* params;
  PipelineCall call;          // host data already validated (bad envs only where isolating)
  RenderFeatureSet features;  // sensor/render_call.h
  PipelineState state;        // history and frame counts (the CPU keeps images per thread: below)
  uint32_t num_envs;
  float* thread_windows;                   // (threads x win_h x win_w) clean depth, with edge dropout
  float* thread_samples;                   // (threads x crop_h x crop_w) the crop's samples, where params->camera_image
  PreparedInstance* thread_instances;      // (threads x num_instances) an env's instances, prepared once per task
  uint32_t num_instances;                  // of the scene's table: call.instances' slots + globals
  std::atomic<uint64_t>* stack_overflows;  // incremented once per overflowed ray
  wr_cpu_path path = best_cpu_path();      // tracing path; every path gives the same bits
};

// Side of the square pixel tiles a task renders one after the other: 8x8 rays from one origin
// with nearly the same direction visit nearly the same nodes, which stay in cache.
constexpr uint32_t kCpuTileSize = 8;

// The tile's pixels one by one through the per-pixel pipeline, the terrain `terrain` of the kind
// Terrain (tile.bvh is not read).
template <class Terrain>
uint64_t trace_tile_pixels(const PacketTile& tile, const typename Terrain::View& terrain);

// Renders every (updated) env of the job. Allocates nothing; the result does not depend on the
// thread count or the SIMD path. Writes *call.bad_env_count and call.bad_env_mask where given.
void cpu_render(ThreadPool& pool, const CpuRenderJob& job);

// How cpu_render splits a render into thread-pool tasks: each task renders tiles_per_task
// consecutive tiles of one env's traced area, width x height (fewer at the env's end), or the
// whole area where `whole_envs` (a render whose output pixels read other pixels: resampling, edge
// dropout). For width x height x num_envs below 2^32 (the sensor's limit, sensor.cpp) num_tasks
// stays below 2^32, the pool's task numbering; tests/cpu/test_cpu_task_numbering.cpp checks that at
// the limit.
struct CpuRenderTasks {
  // A tile's width and height: kCpuTileSize square, or a row of kCpuTileSize^2 pixels where the area
  // is one row high (a pattern sensor's one-row template), so that its SIMD packets hold a row of
  // rays each (packet_traversal.h); either way a tile's pixels fit kCpuTileSize^2 entries with a row
  // stride of kCpuTileSize.
  uint32_t tile_w, tile_h;
  uint32_t tiles_x, tiles_per_env;  // tiles of one area
  uint32_t tiles_per_task, tasks_per_env;
  uint64_t num_tasks;  // tasks_per_env x num_envs
};
CpuRenderTasks cpu_render_tasks(uint32_t width, uint32_t height, uint32_t num_envs, unsigned num_threads,
                                bool whole_envs = false);

}  // namespace wr
