// Outputs of emulated kernel launches (tests/kernels/test_kernel_threads*.cpp): filled with bits no
// kernel writes and followed by guard elements, so that a test sees which elements a launch wrote
// and that it wrote nothing past its output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "float_bits.h"

namespace wr_test {
namespace kernels {

constexpr uint32_t kSentinel = 0xFFFFFFFFu;  // bits no kernel writes (its NaN is 0x7fc00000)
constexpr size_t kGuard = 64;                // sentinel elements after each output: must stay

// n floats of sentinel bits, then kGuard more.
inline std::vector<float> sentinel_floats(size_t n) {
  std::vector<float> v(n + kGuard);
  for (float& f : v) std::memcpy(&f, &kSentinel, sizeof f);
  return v;
}

// The guard elements (past the first n) a launch wrote.
inline size_t guards_touched(const std::vector<float>& v, size_t n) {
  size_t touched = 0;
  for (size_t i = n; i < v.size(); ++i) touched += wr_test::bits(v[i]) != kSentinel;
  return touched;
}

}  // namespace kernels
}  // namespace wr_test
