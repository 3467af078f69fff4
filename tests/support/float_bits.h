// Bit-level float comparisons for the tests. Depth images are specified to be bit-identical in
// several places (thread counts, backends, quaternion orders), and a NaN or -0.0f must compare by
// its bits there, which operator== does not do.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace wr_test {

// The IEEE-754 bits of f.
inline uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

inline bool same_bits(float a, float b) { return bits(a) == bits(b); }

// Same length and every float bit-identical.
inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace wr_test
