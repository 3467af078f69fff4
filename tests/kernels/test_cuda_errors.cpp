// Errors of the CUDA backend, through the public C API (libwr.so): a non-finite pose in device
// memory, host pointers where device pointers belong (and the device memory that is not plain
// cudaMalloc memory but must be accepted), a bad device ordinal, and no usable GPU
// (see cuda_test_support.h for how a test skips without a GPU).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <wr/wr.h>

#include "api_test_support.h"
#include "cuda_test_inputs.h"
#include "cuda_test_support.h"
#include "cuda_rig.h"
#include "mesh_builders.h"

using namespace wr_test::cuda_tests;  // the helpers of this test family, shared by its files

TEST_CASE("cuda: a non-finite pose on the device makes exactly that env's image NaN", "[cuda][pose]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  Rig rig(gpu.get());
  std::vector<float> good = rig.poses();
  std::vector<float> bad = good;
  std::vector<bool> poisoned(Rig::kEnvs, false);
  // env 2: NaN position; env 5: +inf in the quaternion; env 9: -inf z; env 12: a zero quaternion.
  bad[7 * 2 + 0] = kNaN;
  bad[7 * 5 + 4] = kInf;
  bad[7 * 9 + 2] = -kInf;
  for (int i = 3; i < 7; ++i) bad[7 * 12 + i] = 0.0f;
  for (int e : {2, 5, 9, 12}) poisoned[size_t(e)] = true;

  // The CPU backend rejects such poses (the check is free on host data), so the reference
  // renders the good poses; envs are independent, so the other envs' images are the same.
  {
    std::vector<float> depth(Rig::count());
    REQUIRE(wr_sensor_render(rig.cpu_sensor.get(), bad.data(), depth.data(), nullptr) == WR_ERROR_INVALID_ARGUMENT);
  }
  const std::vector<float> want = rig.cpu_render(good);
  const std::vector<float> got = rig.gpu_render(bad);

  const size_t per_env = size_t(Rig::kWidth) * Rig::kHeight;
  for (uint32_t e = 0; e < Rig::kEnvs; ++e) {
    if (!poisoned[e]) continue;
    INFO("env " << e);
    const auto first = got.begin() + std::ptrdiff_t(e * per_env);
    const size_t nan = size_t(std::count_if(first, first + std::ptrdiff_t(per_env), [](float f) {
      return std::isnan(f) && bits(f) != kUnwritten;  // written NaN, not the untouched fill
    }));
    REQUIRE(nan == per_env);
  }
  REQUIRE_BIT_IDENTICAL(want, got, Rig::kWidth, Rig::kHeight, poisoned);
  // The good envs did hit the terrain (desc.miss_value is +inf), so "equal" means something.
  size_t hits = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!poisoned[i / per_env] && std::isfinite(got[i])) ++hits;
  REQUIRE(hits > 0);
}

TEST_CASE("cuda: host and misaligned pointers are rejected by name and the sensor still works", "[cuda][errors]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  Rig rig(gpu.get());
  const cudaStream_t stream = rig.stream.get();
  const std::vector<float> p = rig.poses();
  rig.d_poses.upload(p, stream);
  rig.d_depth.fill_unwritten(stream);
  REQUIRE_CUDA(cudaStreamSynchronize(stream));

  struct Free {
    void operator()(float* f) const { std::free(f); }
  };
  std::unique_ptr<float, Free> host_poses(static_cast<float*>(std::malloc(p.size() * sizeof(float))));
  std::unique_ptr<float, Free> host_depth(static_cast<float*>(std::malloc(Rig::count() * sizeof(float))));
  REQUIRE(host_poses);
  REQUIRE(host_depth);
  std::memcpy(host_poses.get(), p.data(), p.size() * sizeof(float));
  std::memset(host_depth.get(), 0xFF, Rig::count() * sizeof(float));

  const wr_status s1 = wr_sensor_render(rig.gpu_sensor.get(), host_poses.get(), rig.d_depth.get(), stream);
  const std::string m1 = wr_last_error();
  INFO("host body_poses -> " << wr_status_string(s1) << ": " << m1);
  REQUIRE(s1 == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(m1, Catch::StartsWith("wr_sensor_render"));
  CHECK_THAT(m1, Catch::Contains("body_poses"));
  CHECK_THAT(m1, Catch::Contains("host pointer"));

  const wr_status s2 = wr_sensor_render(rig.gpu_sensor.get(), rig.d_poses.get(), host_depth.get(), stream);
  const std::string m2 = wr_last_error();
  INFO("host depth_out -> " << wr_status_string(s2) << ": " << m2);
  REQUIRE(s2 == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(m2, Catch::StartsWith("wr_sensor_render"));
  CHECK_THAT(m2, Catch::Contains("depth_out"));
  CHECK_THAT(m2, Catch::Contains("host pointer"));

  // Device pointers one byte into the buffers: a kernel reading or writing floats there would
  // fault and break the whole CUDA context; they are refused by name before any launch.
  const float* odd_poses = reinterpret_cast<const float*>(reinterpret_cast<const char*>(rig.d_poses.get()) + 1);
  float* odd_depth = reinterpret_cast<float*>(reinterpret_cast<char*>(rig.d_depth.get()) + 1);
  const wr_status s3 = wr_sensor_render(rig.gpu_sensor.get(), odd_poses, rig.d_depth.get(), stream);
  const std::string m3 = wr_last_error();
  INFO("misaligned device body_poses -> " << wr_status_string(s3) << ": " << m3);
  REQUIRE(s3 == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(m3, Catch::Contains("body_poses is not aligned"));
  const wr_status s4 = wr_sensor_render(rig.gpu_sensor.get(), rig.d_poses.get(), odd_depth, stream);
  const std::string m4 = wr_last_error();
  INFO("misaligned device depth_out -> " << wr_status_string(s4) << ": " << m4);
  REQUIRE(s4 == WR_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(m4, Catch::Contains("depth_out is not aligned"));

  // None of the failed calls wrote anything, on the host or on the device.
  CHECK(count_unwritten(std::vector<float>(host_depth.get(), host_depth.get() + Rig::count())) == Rig::count());
  CHECK(count_unwritten(rig.d_depth.download(stream)) == Rig::count());

  // And the sensor renders correctly right after.
  REQUIRE_BIT_IDENTICAL(rig.cpu_render(p), rig.gpu_render(p), Rig::kWidth, Rig::kHeight);
}

TEST_CASE("cuda: managed and stream-ordered (cudaMallocAsync) memory are accepted, pinned host memory is not",
          "[cuda][errors]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  Rig rig(gpu.get());
  const cudaStream_t stream = rig.stream.get();
  const std::vector<float> p = rig.poses();
  const std::vector<float> want = rig.cpu_render(p);
  const size_t pose_bytes = p.size() * sizeof(float), depth_bytes = Rig::count() * sizeof(float);
  std::vector<float> got(Rig::count());

  SECTION("managed memory (cudaMallocManaged) is device-accessible memory: rendered into") {
    struct Free {
      void operator()(float* f) const { cudaFree(f); }
    };
    float *poses = nullptr, *depth = nullptr;
    REQUIRE_CUDA(cudaMallocManaged(&poses, pose_bytes));
    std::unique_ptr<float, Free> own_poses(poses);
    REQUIRE_CUDA(cudaMallocManaged(&depth, depth_bytes));
    std::unique_ptr<float, Free> own_depth(depth);
    std::memcpy(poses, p.data(), pose_bytes);  // no kernel runs yet: the host may write it
    REQUIRE_OK(wr_sensor_render(rig.gpu_sensor.get(), poses, depth, stream));
    REQUIRE_CUDA(cudaStreamSynchronize(stream));
    std::memcpy(got.data(), depth, depth_bytes);
    REQUIRE_BIT_IDENTICAL(want, got, Rig::kWidth, Rig::kHeight);
  }
  SECTION("memory of the stream-ordered allocator (cudaMallocAsync, as pools hand out): rendered into") {
    float *poses = nullptr, *depth = nullptr;
    REQUIRE_CUDA(cudaMallocAsync(&poses, pose_bytes, stream));
    REQUIRE_CUDA(cudaMallocAsync(&depth, depth_bytes, stream));
    REQUIRE_CUDA(cudaMemcpyAsync(poses, p.data(), pose_bytes, cudaMemcpyHostToDevice, stream));
    const wr_status s = wr_sensor_render(rig.gpu_sensor.get(), poses, depth, stream);
    const std::string m = wr_last_error();
    REQUIRE_CUDA(cudaMemcpyAsync(got.data(), depth, depth_bytes, cudaMemcpyDeviceToHost, stream));
    REQUIRE_CUDA(cudaFreeAsync(poses, stream));
    REQUIRE_CUDA(cudaFreeAsync(depth, stream));
    REQUIRE_CUDA(cudaStreamSynchronize(stream));
    INFO(wr_status_string(s) << ": " << m);
    REQUIRE(s == WR_SUCCESS);
    REQUIRE_BIT_IDENTICAL(want, got, Rig::kWidth, Rig::kHeight);
  }
  SECTION("pinned host memory (cudaMallocHost) is a host pointer: rejected by name, nothing written") {
    struct FreeHost {
      void operator()(float* f) const { cudaFreeHost(f); }
    };
    float* depth = nullptr;
    REQUIRE_CUDA(cudaMallocHost(&depth, depth_bytes));
    std::unique_ptr<float, FreeHost> own_depth(depth);
    std::memset(depth, 0xFF, depth_bytes);
    rig.d_poses.upload(p, stream);
    REQUIRE_CUDA(cudaStreamSynchronize(stream));
    const wr_status s = wr_sensor_render(rig.gpu_sensor.get(), rig.d_poses.get(), depth, stream);
    const std::string m = wr_last_error();
    INFO(wr_status_string(s) << ": " << m);
    REQUIRE(s == WR_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(m, Catch::Contains("depth_out"));
    CHECK_THAT(m, Catch::Contains("host pointer"));
    REQUIRE_CUDA(cudaStreamSynchronize(stream));
    CHECK(count_unwritten(std::vector<float>(depth, depth + Rig::count())) == Rig::count());
  }
}

TEST_CASE("cuda: an ordinal past the last device is an invalid argument naming it", "[cuda][errors]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  wr_context c = nullptr;
  const wr_status s = wr_context_create(WR_DEVICE_CUDA, 9999, &c);
  const std::string m = wr_last_error();
  INFO("wr_context_create(WR_DEVICE_CUDA, 9999) -> " << wr_status_string(s) << ": " << m);
  REQUIRE(s == WR_ERROR_INVALID_ARGUMENT);
  CHECK(c == nullptr);
  CHECK_THAT(m, Catch::StartsWith("wr_context_create"));
  CHECK_THAT(m, Catch::Contains("ordinal"));
  CHECK_THAT(m, Catch::Contains("9999"));
  // Device 0 is still fine.
  REQUIRE_OK(wr_context_create(WR_DEVICE_CUDA, 0, &c));
  wr_context_release(c);
}

// [fallback]: the one test of this program that needs no GPU (CTest runs it on its own and
// labels it cpu too: tests/CMakeLists.txt).
TEST_CASE("cuda: without a usable GPU, WR_DEVICE_CUDA fails with the reason and the CPU still works",
          "[cuda][errors][fallback]") {
  // Always runs: on a GPU machine it checks only the CPU half.
  for (int attempt = 0; attempt < 2; ++attempt) {  // a failed attempt leaves nothing broken behind
    wr_context c = nullptr;
    const wr_status s = wr_context_create(WR_DEVICE_CUDA, 0, &c);
    const std::string m = wr_last_error();
    if (s == WR_SUCCESS) {
      wr_context_release(c);
      if (attempt == 0) WARN("a usable CUDA device is present: the no-GPU path is not exercised on this machine");
      continue;
    }
    INFO("attempt " << attempt << ": wr_context_create(WR_DEVICE_CUDA, 0) -> " << wr_status_string(s) << ": " << m);
    REQUIRE(s == WR_ERROR_UNSUPPORTED);
    CHECK(c == nullptr);
    CHECK_THAT(m, Catch::StartsWith("wr_context_create"));
    // This test's own CUDA runtime meets the same driver; where it fails, libwr must have
    // reported that very error, or, where there is no driver at all, said so (the runtime's
    // "insufficient driver" would send users to update a driver they do not have).
    int devices = 0, driver = 0;
    const cudaError_t e = cudaGetDeviceCount(&devices);
    cudaGetLastError();
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    cudaGetLastError();
    if (driver == 0) {
      CHECK_THAT(m, Catch::Contains("no NVIDIA driver was found"));
      CHECK_THAT(m, Catch::Contains("needs an NVIDIA driver of branch R"));
    } else if (e != cudaSuccess) {
      CHECK_THAT(m, Catch::Contains(cudaGetErrorName(e)));
      CHECK_THAT(m, Catch::Contains(cudaGetErrorString(e)));
    } else {
      CHECK_THAT(m, Catch::Contains("CUDA"));
    }
    if (gpu_required()) FAIL("WR_REQUIRE_GPU is set but WR_DEVICE_CUDA is unsupported: " << m);
  }

  // A CPU context works right after: a camera 2 m above the plane z = 0, looking straight down
  // (the integer quaternion (1, 0, 1, 0) is an exact +90 degree pitch once normalised), sees
  // plane depth 2 at every pixel.
  Context cpu = cpu_context();
  Mesh plane;
  const uint32_t a = plane.vertex(-50, -50, 0), b = plane.vertex(50, -50, 0), c = plane.vertex(50, 50, 0),
                 d = plane.vertex(-50, 50, 0);
  plane.triangle(a, b, c);
  plane.triangle(a, c, d);
  Scene scene = make_scene(cpu.get(), plane);
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 9, 7, 60.0f);
  Sensor sensor = make_sensor(scene.get(), desc, 2);
  const std::vector<float> poses = {0, 0, 2, 1, 0, 1, 0, 3, -4, 2, 1, 0, 1, 0};
  const std::vector<float> depth = render_cpu(sensor.get(), poses, 2 * 9 * 7);
  for (float v : depth) REQUIRE(v == Approx(2.0f).epsilon(1e-6));
}
