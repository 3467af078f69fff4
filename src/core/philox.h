// Philox4x32-10, the counter-based random number generator of Salmon, Moraes, Dror and Shaw,
// "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11: ten rounds of a keyed bijection on a
// 128-bit counter. A pure function of (counter, key), so the sensor noise keyed by (seed, env,
// frame, pixel) is the same bits on the CPU and the GPU, for any thread count and tracing path,
// with no generator state anywhere (tests/core/test_philox.cpp checks the Random123 known-answer
// vectors).
#pragma once

#include "platform.h"

namespace wr {

struct Philox4x32 {
  uint32_t v[4];
};

namespace detail {

// The high and low 32 bits of a * b.
WR_HD void mul_hi_lo(uint32_t a, uint32_t b, uint32_t* hi, uint32_t* lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  *lo = static_cast<uint32_t>(p);
}

}  // namespace detail

// The constants of the paper (section 4.2): the multipliers and the Weyl sequence of the key.
constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

WR_HD Philox4x32 philox4x32_10(Philox4x32 ctr, uint32_t key0, uint32_t key1) {
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    detail::mul_hi_lo(kPhiloxM0, ctr.v[0], &hi0, &lo0);
    detail::mul_hi_lo(kPhiloxM1, ctr.v[2], &hi1, &lo1);
    ctr = Philox4x32{{hi1 ^ ctr.v[1] ^ key0, lo1, hi0 ^ ctr.v[3] ^ key1, lo0}};
    key0 += kPhiloxW0;
    key1 += kPhiloxW1;
  }
  return ctr;
}

// A uniform float in (0, 1): the top 23 bits of x, offset by half a step, so that neither 0 nor 1
// is ever returned (the Box-Muller transform takes a logarithm of it); with 23 bits every value,
// the largest (2^23 - 0.5) / 2^23 included, is exact in a float.
WR_HD float uniform_open01(uint32_t x) { return (static_cast<float>(x >> 9) + 0.5f) * (1.0f / 8388608.0f); }

}  // namespace wr
