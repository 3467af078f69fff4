// Shared by the tests of the CUDA backend (test_cuda_*.cpp): device buffers, streams and graphs
// owned by RAII handles, skipping without a GPU, and CPU-vs-GPU renders compared bit by bit.
//
//
// What is checked (include/wr/wr.h is the contract):
//   - parity: the same scene, camera desc and poses rendered by a CPU context and by a CUDA
//     context give BIT-IDENTICAL depth images. No tolerance: the kernel runs the very same
//     src/core code, compiled with --fmad=false (the CPU side with -ffp-contract=off), IEEE
//     division and square root (nvcc's defaults, no --use_fast_math), no flush-to-zero, and
//     both read the ray template and the sensor constants computed once on the host. Any
//     difference is a bug (a contraction, an intrinsic that rounds differently, a race, an
//     unwritten pixel), not noise.
//   - render only enqueues: it is captured into a CUDA graph (global capture mode, which
//     rejects allocation and synchronisation) as exactly one kernel node, and the graph
//     replays with whatever poses the buffer holds at launch time; it returns while its
//     stream is still blocked behind earlier work; free device memory is unchanged across
//     100 renders.
//   - a non-finite pose (or a zero quaternion) in device memory turns exactly that env's
//     image into NaN; a host pointer is rejected with a message naming it.
//   - wr_scene_intersect on a CUDA context gives the CPU's t and triangle ids bit for bit; the
//     rays a CPU context rejects get NaN there (test_cuda_intersect.cpp).
//   - the device bytes a CUDA scene and sensor report are what cudaMemGetInfo sees them take and
//     give back, and no device memory grows with num_envs (test_cuda_memory.cpp).
//   - context errors: a bad ordinal names it; without a usable GPU, WR_DEVICE_CUDA fails with
//     WR_ERROR_UNSUPPORTED carrying the CUDA error text, and the CPU keeps working.
//
// Without a usable GPU every GPU test ends as skipped with its reason (WR_SKIP_TEST_CASE,
// test_skip.h: the program then exits 77, which CTest reports as a skip). Set WR_REQUIRE_GPU=1
// (scripts/gpu-check.sh does) to turn such a skip into a failure, so a broken driver cannot make
// a GPU machine look green.
//
// Device buffers are filled with the byte 0xFF (the float bits 0xFFFFFFFF, a NaN that neither
// backend ever writes) before every render, so a pixel the kernel fails to write shows up as
// a difference from the CPU image.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <wr/wr.h>

#include "api_test_support.h"
#include "float_bits.h"
#include "test_skip.h"

namespace wr_test::cuda_tests {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr uint32_t kUnwritten = 0xFFFFFFFFu;  // bits of a float the fill byte 0xFF makes

#define REQUIRE_CUDA(call)                                                                  \
  do {                                                                                      \
    const cudaError_t e_ = (call);                                                          \
    INFO(#call << " -> " << cudaGetErrorName(e_) << " (" << cudaGetErrorString(e_) << ")"); \
    REQUIRE(e_ == cudaSuccess);                                                             \
  } while (0)

using wr_test::bits;

// ---- handles and device resources ---------------------------------------------------------------

using wr_test::Context;
using wr_test::make_sensor;
using wr_test::Scene;
using wr_test::Sensor;

// A cudaMalloc'd array of n elements of T, freed on scope exit.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) { REQUIRE_CUDA(cudaMalloc(reinterpret_cast<void**>(&p_), bytes())); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

  // Stream-ordered copies and fills: the legacy default stream (cudaMemcpy, cudaMemset) does not
  // order against a non-blocking stream, so everything touching a buffer goes on one stream.
  void upload(const std::vector<T>& host, cudaStream_t stream) {
    REQUIRE(host.size() == n_);
    REQUIRE_CUDA(cudaMemcpyAsync(p_, host.data(), bytes(), cudaMemcpyHostToDevice, stream));
  }
  // Every byte 0xFF: for floats the bits kUnwritten, for ids 0xFFFFFFFF.
  void fill_unwritten(cudaStream_t stream) { REQUIRE_CUDA(cudaMemsetAsync(p_, 0xFF, bytes(), stream)); }
  // Copies back and waits for the stream: the result is complete when this returns.
  std::vector<T> download(cudaStream_t stream) const {
    std::vector<T> host(n_);
    REQUIRE_CUDA(cudaMemcpyAsync(host.data(), p_, bytes(), cudaMemcpyDeviceToHost, stream));
    REQUIRE_CUDA(cudaStreamSynchronize(stream));
    return host;
  }

 private:
  T* p_ = nullptr;
  size_t n_;
};
using DeviceFloats = DeviceBuffer<float>;

// A non-blocking stream (does not synchronise with the legacy default stream), destroyed on exit.
class Stream {
 public:
  Stream() { REQUIRE_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (!s_) return;
    // If a REQUIRE threw in the middle of a capture, end it so later tests are not run under an
    // active global-mode capture (which would make their allocations fail).
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s_, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
      cudaGraph_t g = nullptr;
      cudaStreamEndCapture(s_, &g);
      if (g) cudaGraphDestroy(g);
    }
    cudaStreamSynchronize(s_);
    cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

struct GraphDestroy {
  void operator()(cudaGraph_t g) const { cudaGraphDestroy(g); }
};
struct GraphExecDestroy {
  void operator()(cudaGraphExec_t g) const { cudaGraphExecDestroy(g); }
};
using Graph = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, GraphDestroy>;
using GraphExec = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDestroy>;

// ---- skipping without a GPU ---------------------------------------------------------------------

inline bool gpu_required() {
  const char* v = std::getenv("WR_REQUIRE_GPU");
  return v && *v && std::strcmp(v, "0") != 0;
}

// A CUDA context on device 0, or null with `why` saying why the calling test must be skipped.
// Only WR_ERROR_UNSUPPORTED (no usable driver or device) skips; any other failure is a test
// failure, and so is a skip when WR_REQUIRE_GPU is set.
inline Context cuda_context_or_skip(std::string* why) {
  wr_context c = nullptr;
  const wr_status s = wr_context_create(WR_DEVICE_CUDA, 0, &c);
  if (s == WR_SUCCESS) return Context(c);
  *why = std::string(wr_status_string(s)) + ": " + wr_last_error();
  if (s != WR_ERROR_UNSUPPORTED) FAIL("wr_context_create(WR_DEVICE_CUDA, 0) failed unexpectedly: " << *why);
  if (gpu_required()) FAIL("WR_REQUIRE_GPU is set but no CUDA context can be created: " << *why);
  return nullptr;
}

#define CUDA_CONTEXT_OR_SKIP(var)                      \
  std::string var##_skip_why;                          \
  Context var = cuda_context_or_skip(&var##_skip_why); \
  if (!var) WR_SKIP_TEST_CASE("no usable CUDA device: " << var##_skip_why)

inline Context cpu_context() { return wr_test::make_context(0); }

// ---- rendering and comparing --------------------------------------------------------------------

inline std::vector<float> render_cpu(wr_sensor sensor, const std::vector<float>& poses, size_t count) {
  std::vector<float> depth(count);
  std::memset(depth.data(), 0xFF, count * sizeof(float));
  REQUIRE_OK(wr_sensor_render(sensor, poses.data(), depth.data(), nullptr));
  return depth;
}

// Uploads poses, renders on `stream` (null: the legacy default stream) and copies the image back.
inline std::vector<float> render_gpu(wr_sensor sensor, const std::vector<float>& poses, size_t count,
                                     cudaStream_t stream) {
  DeviceFloats d_poses(poses.size()), d_depth(count);
  d_poses.upload(poses, stream);
  d_depth.fill_unwritten(stream);
  REQUIRE_OK(wr_sensor_render(sensor, d_poses.get(), d_depth.get(), stream));
  return d_depth.download(stream);
}

// Pixels whose float bits differ, with the first few described for the failure message.
struct BitDiff {
  size_t count = 0;
  std::string examples;
};

inline BitDiff compare_bits(const std::vector<float>& cpu, const std::vector<float>& gpu, uint32_t width,
                            uint32_t height, const std::vector<bool>& skip_env = {}) {
  BitDiff d;
  REQUIRE(cpu.size() == gpu.size());
  const size_t per_env = size_t(width) * height;
  std::ostringstream os;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const size_t env = i / per_env;
    if (env < skip_env.size() && skip_env[env]) continue;
    if (bits(cpu[i]) == bits(gpu[i])) continue;
    if (++d.count <= 8) {
      char line[200];
      std::snprintf(line, sizeof line, "  env %zu pixel (u %zu, v %zu): cpu %.9g (0x%08x), gpu %.9g (0x%08x)\n", env,
                    (i % per_env) % width, (i % per_env) / width, double(cpu[i]), bits(cpu[i]), double(gpu[i]),
                    bits(gpu[i]));
      os << line;
    }
  }
  d.examples = os.str();
  return d;
}

#define REQUIRE_BIT_IDENTICAL(cpu, gpu, ...)                                                                          \
  do {                                                                                                                \
    const BitDiff diff_ = compare_bits(cpu, gpu, __VA_ARGS__);                                                        \
    INFO(diff_.count << " of " << (cpu).size() << " pixels differ between the CPU and the GPU:\n" << diff_.examples); \
    REQUIRE(diff_.count == 0);                                                                                        \
  } while (0)

inline size_t count_unwritten(const std::vector<float>& v) {
  return size_t(std::count_if(v.begin(), v.end(), [](float f) { return bits(f) == kUnwritten; }));
}

}  // namespace wr_test::cuda_tests
