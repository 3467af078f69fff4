// The CUDA backend leaves the calling thread's current context as it found it (kernels/
// cuda_device.cpp, CurrentDevice): the current context is the driver's, shared with the
// application's own CUDA runtime, so a library call must not move the application's next
// allocation or launch, nor leave a context current on a thread that had none (cudaSetDevice would
// make one on GPU 0 there).
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <wr/wr.h>

#include "api_test_support.h"
#include "cuda_test_inputs.h"
#include "cuda_test_support.h"
#include "mesh_builders.h"

using namespace wr_test::cuda_tests;  // the helpers of this test family, shared by its files

namespace {

// The driver's cuCtxGetCurrent, through this program's own runtime.
PFN_cuCtxGetCurrent_v4000 ctx_get_current() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  REQUIRE_CUDA(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 4000, cudaEnableDefault, &found));
  REQUIRE(found == cudaDriverEntryPointSuccess);
  return reinterpret_cast<PFN_cuCtxGetCurrent_v4000>(fn);
}

// What a user thread does with the library: a context, a scene, a sensor, a render, the overflow
// counter, every release. Plain calls, no Catch2 (its assertions are not thread-safe); the first
// failure's status is returned.
wr_status use_library(const float* d_poses, float* d_depth) {
  wr_context ctx = nullptr;
  wr_scene scene = nullptr;
  wr_sensor sensor = nullptr;
  const float v[] = {-50, -50, 0, 50, -50, 0, 50, 50, 0, -50, 50, 0};
  const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
  wr_camera_desc desc;
  wr_camera_desc_pinhole(&desc, 16, 8, 60.0f);
  uint64_t overflows = 0;
  wr_status s = wr_context_create(WR_DEVICE_CUDA, 0, &ctx);
  if (s == WR_SUCCESS) s = wr_scene_create(ctx, v, 4, idx, 2, &scene);
  if (s == WR_SUCCESS) s = wr_sensor_create(scene, &desc, 2, &sensor);
  if (s == WR_SUCCESS) s = wr_sensor_render(sensor, d_poses, d_depth, nullptr);
  if (s == WR_SUCCESS) s = wr_sensor_stack_overflows(sensor, &overflows);
  wr_sensor_release(sensor);
  wr_scene_release(scene);
  wr_context_release(ctx);
  return s;
}

}  // namespace

TEST_CASE("cuda: library calls leave the calling thread's current context as they found it", "[cuda][device]") {
  CUDA_CONTEXT_OR_SKIP(cuda);
  const PFN_cuCtxGetCurrent_v4000 get_current = ctx_get_current();
  // Buffers made on this thread: the worker below must make no CUDA call of its own.
  const std::vector<float> poses = {0, 0, 2, 1, 0, 1, 0, 1, 1, 2, 1, 0, 1, 0};
  DeviceFloats d_poses(poses.size()), d_depth(2 * 16 * 8);
  REQUIRE_CUDA(cudaMemcpy(d_poses.get(), poses.data(), poses.size() * sizeof(float), cudaMemcpyHostToDevice));

  // A thread that never used CUDA: none current before, none after.
  CUcontext before = reinterpret_cast<CUcontext>(1), after = reinterpret_cast<CUcontext>(1);
  CUresult got_before = CUDA_ERROR_UNKNOWN, got_after = CUDA_ERROR_UNKNOWN;
  wr_status status = WR_ERROR_INTERNAL;
  std::thread fresh([&] {
    got_before = get_current(&before);
    status = use_library(d_poses.get(), d_depth.get());
    got_after = get_current(&after);
  });
  fresh.join();
  REQUIRE(status == WR_SUCCESS);
  REQUIRE(got_before == CUDA_SUCCESS);
  REQUIRE(got_after == CUDA_SUCCESS);
  CHECK(before == nullptr);
  CHECK(after == nullptr);

  // This thread, whose current context is device 0's primary one (its own runtime made it so
  // above): the same context afterwards.
  CUcontext mine = nullptr, now = nullptr;
  REQUIRE(get_current(&mine) == CUDA_SUCCESS);
  REQUIRE(mine != nullptr);
  REQUIRE(use_library(d_poses.get(), d_depth.get()) == WR_SUCCESS);
  REQUIRE(get_current(&now) == CUDA_SUCCESS);
  CHECK(now == mine);
  const std::vector<float> depth = d_depth.download(nullptr);
  CHECK(depth[0] > 0.0f);  // the renders ran: a finite depth on the plane
}
