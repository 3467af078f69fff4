// The fixture of the CUDA graph, stream and error tests: one scene, a CPU and a CUDA sensor of the
// same desc, device buffers and a stream.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <wr/wr.h>

#include "api_test_support.h"
#include "cuda_test_inputs.h"
#include "cuda_test_support.h"

namespace wr_test::cuda_tests {

// Shared setup of the graph, stream and error tests: a heightfield seen by a CPU and a CUDA sensor with the
// same desc, device pose and depth buffers, and a non-blocking stream.
struct Rig {
  static constexpr uint32_t kWidth = 37, kHeight = 23, kEnvs = 16;
  Context cpu;
  Scene cpu_scene, gpu_scene;
  Sensor cpu_sensor, gpu_sensor;
  DeviceFloats d_poses{7 * size_t(kEnvs)};
  DeviceFloats d_depth{size_t(kEnvs) * kWidth * kHeight};
  Stream stream;  // after the buffers: destroyed (and synchronised) before they are freed
  std::mt19937 rng{7};

  explicit Rig(wr_context gpu) : cpu(cpu_context()) {
    const Mesh mesh = heightfield_with_boxes(5);
    cpu_scene = make_scene(cpu.get(), mesh);
    gpu_scene = make_scene(gpu, mesh);
    wr_camera_desc desc;
    wr_camera_desc_pinhole(&desc, kWidth, kHeight, 87.0f);
    desc.cx = 17.25f;  // off centre
    desc.far_clip = 8.0f;
    desc.depth_kind = WR_DEPTH_RANGE;
    desc.quat_order = WR_QUAT_XYZW;
    desc.mount_position[0] = 0.3f;
    const Quaterniond m = ypr(0.0, 30.0, 0.0);
    put_quat(desc.mount_rotation, float(m.w()), float(m.x()), float(m.y()), float(m.z()), WR_QUAT_XYZW);
    cpu_sensor = make_sensor(cpu_scene.get(), desc, kEnvs);
    gpu_sensor = make_sensor(gpu_scene.get(), desc, kEnvs);
  }
  static size_t count() { return size_t(kEnvs) * kWidth * kHeight; }
  std::vector<float> poses() {
    return random_poses(rng, kEnvs, WR_QUAT_XYZW, [](std::mt19937& r) {
      std::uniform_real_distribution<double> xy(0.5, 11.5), z(0.5, 2.5);
      return Vector3d(xy(r), xy(r), z(r));
    });
  }
  std::vector<float> cpu_render(const std::vector<float>& p) { return render_cpu(cpu_sensor.get(), p, count()); }
  // One render of `p` on the rig's stream; returns the image once the stream is done.
  std::vector<float> gpu_render(const std::vector<float>& p) {
    d_poses.upload(p, stream.get());
    d_depth.fill_unwritten(stream.get());
    REQUIRE_OK(wr_sensor_render(gpu_sensor.get(), d_poses.get(), d_depth.get(), stream.get()));
    return d_depth.download(stream.get());
  }
};

}  // namespace wr_test::cuda_tests
