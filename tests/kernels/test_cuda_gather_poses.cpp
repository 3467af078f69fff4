// wr_gather_poses on a CUDA context (the pose gather kernel), through the public C API: the same bits
// as the host for float and double inputs and both quaternion orders; an index past the items gets a
// NaN pose (the host refuses it); host pointers are refused by name and nothing is written. Skips
// without a GPU (cuda_test_support.h).
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <wr/wr.h>

#include "api_test_support.h"
#include "cuda_test_support.h"
#include "rotation_test_support.h"

using namespace wr_test::cuda_tests;

namespace {

// n random rotation matrices (row-major) and positions, of type T.
template <class T>
void random_poses(uint32_t n, std::vector<T>* pos, std::vector<T>* mat) {
  std::mt19937 rng(3);
  std::normal_distribution<double> g(0.0, 1.0);
  for (uint32_t i = 0; i < n; ++i) {
    const std::array<double, 9> m = wr_test::rotation_matrix_of(wr_test::random_unit_quaternion(rng).data());
    for (double v : m) mat->push_back(static_cast<T>(v));
    for (int k = 0; k < 3; ++k) pos->push_back(static_cast<T>(4.0 * g(rng)));
  }
}

template <class T>
void check_device_equals_host(wr_context gpu, wr_quat_order order) {
  const uint32_t batches = 300, items = 29;
  std::vector<T> pos, mat;
  random_poses<T>(batches * items, &pos, &mat);
  const std::vector<uint32_t> indices = {0, 28, 5, 5, 17, 3, 11};
  wr_pose_gather_desc d;
  wr_pose_gather_desc_init(&d);
  d.scalar_type = sizeof(T) == 8 ? WR_SCALAR_FLOAT64 : WR_SCALAR_FLOAT32;
  d.num_batches = batches;
  d.items_per_batch = items;
  d.count = static_cast<uint32_t>(indices.size());
  const float frame[9] = {0, -1, 0, 0, 0, 1, -1, 0, 0};
  std::memcpy(d.frame, frame, sizeof frame);
  d.quat_order = order;
  const size_t n = 7 * size_t(batches) * indices.size();

  d.positions = pos.data();
  d.matrices = mat.data();
  d.indices = indices.data();
  std::vector<float> want(n);
  REQUIRE_OK(wr_gather_poses(nullptr, &d, want.data()));

  const Stream stream;
  DeviceBuffer<T> d_pos(pos.size()), d_mat(mat.size());
  DeviceBuffer<uint32_t> d_idx(indices.size());
  DeviceFloats d_out(n);
  d_pos.upload(pos, stream.get());
  d_mat.upload(mat, stream.get());
  d_idx.upload(indices, stream.get());
  d_out.fill_unwritten(stream.get());
  d.positions = d_pos.get();
  d.matrices = d_mat.get();
  d.indices = d_idx.get();
  d.stream = stream.get();
  REQUIRE_OK(wr_gather_poses(gpu, &d, d_out.get()));
  const std::vector<float> got = d_out.download(stream.get());
  size_t different = 0;
  for (size_t i = 0; i < n; ++i) different += bits(got[i]) != bits(want[i]);
  CHECK(different == 0);
}

}  // namespace

TEST_CASE("cuda: wr_gather_poses on the device equals the host bit for bit", "[cuda][gather]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  check_device_equals_host<float>(gpu.get(), WR_QUAT_WXYZ);
  check_device_equals_host<double>(gpu.get(), WR_QUAT_XYZW);
}

TEST_CASE("cuda: wr_gather_poses writes NaN for an index past the items, refuses host pointers by name",
          "[cuda][gather]") {
  CUDA_CONTEXT_OR_SKIP(gpu);
  const Stream stream;
  std::vector<float> pos, mat;
  random_poses<float>(4, &pos, &mat);
  const std::vector<uint32_t> indices = {1, 4};  // 4 is past items_per_batch = 2
  DeviceBuffer<float> d_pos(pos.size()), d_mat(mat.size());
  DeviceBuffer<uint32_t> d_idx(indices.size());
  DeviceFloats d_out(28);
  d_pos.upload(pos, stream.get());
  d_mat.upload(mat, stream.get());
  d_idx.upload(indices, stream.get());
  d_out.fill_unwritten(stream.get());
  wr_pose_gather_desc d;
  wr_pose_gather_desc_init(&d);
  d.positions = d_pos.get();
  d.matrices = d_mat.get();
  d.num_batches = 2;
  d.items_per_batch = 2;
  d.indices = d_idx.get();
  d.count = 2;
  d.stream = stream.get();
  REQUIRE_OK(wr_gather_poses(gpu.get(), &d, d_out.get()));
  const std::vector<float> got = d_out.download(stream.get());
  for (int b = 0; b < 2; ++b)
    for (int k = 0; k < 7; ++k) {
      CHECK(std::isfinite(got[14 * b + k]));
      CHECK(std::isnan(got[14 * b + 7 + k]));
    }

  d_out.fill_unwritten(stream.get());
  d.indices = indices.data();  // a host pointer
  CHECK(wr_gather_poses(gpu.get(), &d, d_out.get()) == WR_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(wr_last_error()).find("desc->indices is a host pointer") != std::string::npos);
  CHECK(count_unwritten(d_out.download(stream.get())) == 28);
}
