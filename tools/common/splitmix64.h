// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014): a tiny generator whose numbers are the same on every platform and standard library
// (std:: distributions are not), so the tools' outputs are reproducible byte for byte.
// Shared by the demo, the terrain generator and the benchmarks; header only.
#pragma once

#include <cstdint>

namespace wr_tools {

constexpr uint64_t kSplitMix64Gamma = 0x9E3779B97F4A7C15ull;

// One SplitMix64 step from x: also a good 64-bit hash for seeding other generators.
inline uint64_t splitmix64(uint64_t x) {
  x += kSplitMix64Gamma;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct SplitMix64 {
  uint64_t state;

  uint64_t next() {
    const uint64_t r = splitmix64(state);
    state += kSplitMix64Gamma;
    return r;
  }
  /// Uniform in [lo, hi), from the top 24 bits.
  float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 40) * 0x1p-24f; }
  /// Uniform in [lo, hi), from the top 53 bits.
  double uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11) * 0x1p-53; }
};

}  // namespace wr_tools
