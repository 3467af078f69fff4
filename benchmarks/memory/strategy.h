// The three ways of giving N envs a depth camera that the benchmark compares. Each really
// allocates its buffers (touching every page) when made, and really renders the same depth
// images of the same workload, so that its memory and time are those of a working design.
//
//   a. shared:         this library: one wr_sensor (one ray template) for N envs, plus the
//                      caller's [N, H, W] output.
//   b. ray buffers:    IsaacLab's RayCasterCamera layout: per env and per ray, camera-frame
//                      and world-frame starts and directions, hits, distances, the distance
//                      to the image plane and the output (72 bytes per ray per env).
//   c. render targets: IsaacGym's camera sensors: per camera an RGBA8 colour target and a
//                      float32 depth target, each rendered on its own (here: a 1-env
//                      wr_sensor per camera, so each also holds its own ray template).
#pragma once

#include <cstdint>
#include <memory>

#include <wr/wr.h>

#include "buffer.h"

namespace wrbench {

enum class StrategyKind { kShared = 0, kRayBuffers = 1, kRenderTargets = 2 };
constexpr int kNumStrategies = 3;

/// "shared", "ray-buffers", "render-targets".
const char* strategy_name(StrategyKind kind);

struct StrategyInput {
  wr_scene scene = nullptr;
  wr_camera_desc desc{};
  uint32_t num_envs = 0;
  const float* host_poses = nullptr;  // (num_envs x 7) camera poses, (w, x, y, z), host memory
  Space space = Space::kHost;         // where buffers live: the context's side
  void* stream = nullptr;             // cudaStream_t on the device
};

class Strategy {
 public:
  virtual ~Strategy() = default;

  /// Renders every env once into the output; returns when the frame is done.
  virtual void render_frame() = 0;

  /// Bytes the library reports for this strategy's sensors (wr_sensor_memory, summed; the
  /// scene is counted once by the caller, as every strategy shares it).
  virtual ByteCount library_bytes() const = 0;

  /// The largest wr_memory_stats::per_env_bytes of its sensors (0 without sensors).
  virtual uint64_t library_per_env_bytes() const { return 0; }

  /// Bytes of the strategy's own buffers (poses, outputs, ray buffers, render targets) and
  /// per-camera bookkeeping (handle arrays), counted exactly as allocated.
  virtual ByteCount own_bytes() const = 0;

  /// Copies the output, (num_envs x height x width) floats, into host memory.
  virtual void read_output(float* host) const = 0;
};

std::unique_ptr<Strategy> make_shared_sensor(const StrategyInput& in);
std::unique_ptr<Strategy> make_ray_buffers(const StrategyInput& in);
std::unique_ptr<Strategy> make_render_targets(const StrategyInput& in);

inline std::unique_ptr<Strategy> make_strategy(StrategyKind kind, const StrategyInput& in) {
  switch (kind) {
    case StrategyKind::kShared: return make_shared_sensor(in);
    case StrategyKind::kRayBuffers: return make_ray_buffers(in);
    case StrategyKind::kRenderTargets: return make_render_targets(in);
  }
  return nullptr;
}

/// wr_sensor_memory of `sensor` added to `bytes`; its per_env_bytes kept in *per_env when
/// larger (per_env may be null). Exits on failure.
void add_sensor_memory(wr_sensor sensor, ByteCount* bytes, uint64_t* per_env = nullptr);

}  // namespace wrbench
