// Strategy (a): this library. One sensor, whose one ray template serves every env; per env
// only the caller's pose (28 bytes) and output image (H*W floats) exist.
#include "strategy.h"
#include "workload.h"

namespace wrbench {

const char* strategy_name(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::kShared: return "shared";
    case StrategyKind::kRayBuffers: return "ray-buffers";
    case StrategyKind::kRenderTargets: return "render-targets";
  }
  return "?";
}

void add_sensor_memory(wr_sensor sensor, ByteCount* bytes, uint64_t* per_env) {
  wr_memory_stats stats{};
  WR_CHECK(wr_sensor_memory(sensor, &stats));
  bytes->host += stats.host_bytes;
  bytes->device += stats.device_bytes;
  if (per_env && stats.per_env_bytes > *per_env) *per_env = stats.per_env_bytes;
}

namespace {

class SharedSensor final : public Strategy {
 public:
  explicit SharedSensor(const StrategyInput& in)
      : in_(in),
        poses_(in.space, uint64_t(in.num_envs) * 7 * sizeof(float)),
        output_(in.space, uint64_t(in.num_envs) * in.desc.width * in.desc.height * sizeof(float)) {
    poses_.upload(in.host_poses, poses_.bytes());
    WR_CHECK(wr_sensor_create(in.scene, &in.desc, in.num_envs, &sensor_));
  }
  ~SharedSensor() override { wr_sensor_release(sensor_); }

  void render_frame() override {
    WR_CHECK(wr_sensor_render(sensor_, poses_.as<float>(), output_.as<float>(), in_.stream));
    synchronize(in_.space, in_.stream);
  }
  ByteCount library_bytes() const override {
    ByteCount b;
    add_sensor_memory(sensor_, &b);
    return b;
  }
  uint64_t library_per_env_bytes() const override {
    ByteCount b;
    uint64_t per_env = 0;
    add_sensor_memory(sensor_, &b, &per_env);
    return per_env;
  }
  ByteCount own_bytes() const override {
    ByteCount b;
    b.add(in_.space, poses_.bytes() + output_.bytes());
    return b;
  }
  void read_output(float* host) const override { output_.download(host, output_.bytes()); }

 private:
  StrategyInput in_;
  Buffer poses_;   // (N x 7)
  Buffer output_;  // (N x H x W)
  wr_sensor sensor_ = nullptr;
};

}  // namespace

std::unique_ptr<Strategy> make_shared_sensor(const StrategyInput& in) { return std::make_unique<SharedSensor>(in); }

}  // namespace wrbench
