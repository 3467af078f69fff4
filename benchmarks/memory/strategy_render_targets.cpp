// Strategy (c): per-camera render targets, as IsaacGym's camera sensors allocate them: each
// camera owns an RGBA8 colour target and a float32 depth target of H*W pixels and is
// rendered on its own; its depth target is then copied into the caller's [N, H, W] output.
// Each camera is a 1-env wr_sensor here, so each also builds and holds its own ray
// template, as per-camera designs do.
#include <vector>

#include "strategy.h"
#include "workload.h"

namespace wrbench {
namespace {

class RenderTargets final : public Strategy {
 public:
  explicit RenderTargets(const StrategyInput& in)
      : in_(in),
        pixels_(uint64_t(in.desc.width) * in.desc.height),
        poses_(in.space, uint64_t(in.num_envs) * 7 * sizeof(float)),
        output_(in.space, uint64_t(in.num_envs) * pixels_ * sizeof(float)) {
    poses_.upload(in.host_poses, poses_.bytes());
    sensors_.reserve(in.num_envs);
    colour_.reserve(in.num_envs);
    depth_.reserve(in.num_envs);
    for (uint32_t i = 0; i < in.num_envs; ++i) {
      wr_sensor sensor = nullptr;
      WR_CHECK(wr_sensor_create(in.scene, &in.desc, 1, &sensor));
      sensors_.push_back(sensor);
      colour_.emplace_back(in.space, pixels_ * 4);             // RGBA8, (H x W x 4) bytes
      depth_.emplace_back(in.space, pixels_ * sizeof(float));  // (H x W) float32
    }
  }
  ~RenderTargets() override {
    for (wr_sensor s : sensors_) wr_sensor_release(s);
  }

  void render_frame() override {
    const uint64_t image_bytes = pixels_ * sizeof(float);
    for (uint32_t i = 0; i < in_.num_envs; ++i) {
      WR_CHECK(wr_sensor_render(sensors_[i], poses_.as<float>() + 7 * size_t(i), depth_[i].as<float>(), in_.stream));
      copy_bytes(output_, i * image_bytes, depth_[i], 0, image_bytes, in_.stream);
    }
    synchronize(in_.space, in_.stream);
  }
  ByteCount library_bytes() const override {
    ByteCount b;
    for (wr_sensor s : sensors_) add_sensor_memory(s, &b);
    return b;
  }
  uint64_t library_per_env_bytes() const override {
    ByteCount b;
    uint64_t per_env = 0;
    for (wr_sensor s : sensors_) add_sensor_memory(s, &b, &per_env);
    return per_env;
  }
  ByteCount own_bytes() const override {
    ByteCount b;
    b.add(in_.space, poses_.bytes() + output_.bytes());
    for (uint32_t i = 0; i < in_.num_envs; ++i) b.add(in_.space, colour_[i].bytes() + depth_[i].bytes());
    // Per-camera bookkeeping lives on the host whatever the context: the handle array and
    // the two arrays of buffer records.
    b.host += sensors_.capacity() * sizeof(wr_sensor) + (colour_.capacity() + depth_.capacity()) * sizeof(Buffer);
    return b;
  }
  void read_output(float* host) const override { output_.download(host, output_.bytes()); }

 private:
  StrategyInput in_;
  uint64_t pixels_;
  Buffer poses_;                    // (N x 7)
  Buffer output_;                   // (N x H x W)
  std::vector<wr_sensor> sensors_;  // (N): one 1-env sensor per camera
  std::vector<Buffer> colour_;      // (N): (H x W x 4) bytes each
  std::vector<Buffer> depth_;       // (N): (H x W) floats each
};

}  // namespace

std::unique_ptr<Strategy> make_render_targets(const StrategyInput& in) { return std::make_unique<RenderTargets>(in); }

}  // namespace wrbench
