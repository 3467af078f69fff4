// The pose gather kernel's per-thread code (kernels/kernel_threads.h, gather_pose_thread), run on the
// CPU over every thread of an emulated launch grid (blocks x kBlockThreads, as cuda_kernels.cu launches
// it), against the CPU backend's gather bit for bit, float and double, both quaternion orders, a
// camera frame; nothing written past the output; an index past the items a NaN pose.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "backend/backend.h"
#include "float_bits.h"
#include "kernel_output_guards.h"
#include "kernel_threads.h"
#include "rotation_test_support.h"

using namespace wr_test::kernels;
using wr_test::same_bits;

TEST_CASE("an emulated pose gather launch equals the CPU backend bit for bit, and a bad index gets NaN") {
  // MuJoCo-like poses: 7 batches of 11 items, float and double, random rotations (with the rounding
  // of a float simulator), gathered at an index table with repeats, with a camera frame.
  std::mt19937 rng(21);
  std::normal_distribution<double> g(0.0, 1.0);
  const uint32_t batches = 7, items = 11;
  std::vector<double> pos(3 * batches * items), mat(9 * batches * items);
  for (double& p : pos) p = 3.0 * g(rng);
  for (size_t i = 0; i < batches * items; ++i) {
    const std::array<double, 9> m = wr_test::rotation_matrix_of(wr_test::random_unit_quaternion(rng).data());
    std::copy(m.begin(), m.end(), mat.begin() + 9 * i);
  }
  const std::vector<float> posf(pos.begin(), pos.end()), matf(mat.begin(), mat.end());
  const std::vector<uint32_t> indices = {10, 0, 3, 3, 7};
  std::unique_ptr<wr::DeviceBackend> cpu = wr::make_cpu_backend("test", 1);
  for (const bool f64 : {false, true})
    for (const bool xyzw : {false, true}) {
      INFO((f64 ? "double" : "float") << ", " << (xyzw ? "x y z w" : "w x y z"));
      wr::PoseGather gather{};
      gather.positions = f64 ? static_cast<const void*>(pos.data()) : posf.data();
      gather.matrices = f64 ? static_cast<const void*>(mat.data()) : matf.data();
      gather.f64 = f64;
      gather.num_batches = batches;
      gather.items_per_batch = items;
      gather.indices = indices.data();
      gather.count = static_cast<uint32_t>(indices.size());
      const double frame[9] = {0, -1, 0, 0, 0, 1, -1, 0, 0};
      std::copy(frame, frame + 9, gather.frame);
      gather.xyzw = xyzw;
      const size_t n = 7 * size_t(batches) * indices.size();
      std::vector<float> want = sentinel_floats(n), got = sentinel_floats(n);
      gather.out = want.data();
      cpu->gather_poses("test", gather, nullptr);
      gather.out = got.data();
      const uint64_t threads = wr::cuda::blocks_for(uint64_t(batches) * indices.size()) * wr::cuda::kBlockThreads;
      for (uint64_t t = 0; t < threads; ++t) wr::cuda::gather_pose_thread(t, gather);
      size_t different = 0;
      for (size_t i = 0; i < n; ++i) different += !same_bits(got[i], want[i]);
      CHECK(different == 0);
      CHECK(guards_touched(got, n) == 0);
      for (size_t i = 0; i < n; ++i) CHECK(std::isfinite(want[i]));
    }
  // An index past the items (which the host refuses before writing) gets a NaN pose on the device.
  const std::vector<uint32_t> bad = {1, items};
  wr::PoseGather gather{};
  gather.positions = pos.data();
  gather.matrices = mat.data();
  gather.f64 = true;
  gather.num_batches = 2;
  gather.items_per_batch = items;
  gather.indices = bad.data();
  gather.count = 2;
  gather.frame[0] = gather.frame[4] = gather.frame[8] = 1.0;
  std::vector<float> out(28, 0.0f);
  gather.out = out.data();
  for (uint64_t t = 0; t < wr::cuda::kBlockThreads; ++t) wr::cuda::gather_pose_thread(t, gather);
  for (int k = 0; k < 7; ++k) {
    CHECK(std::isfinite(out[k]));
    CHECK(std::isnan(out[7 + k]));
    CHECK(std::isfinite(out[14 + k]));
    CHECK(std::isnan(out[21 + k]));
  }
}
