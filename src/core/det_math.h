// Transcendental functions that give the same bits on the host and on the GPU: written with
// IEEE single-precision +, -, *, / only (each correctly rounded on both, and the library is built
// without FMA contraction: -ffp-contract=off, nvcc --fmad=false), where libm's logf/cosf and
// CUDA's differ in their last bits. The noise models (noise.h) use them so that one seed gives one
// image on every backend. Accuracy: a few units in the last place over the ranges used, far below
// any sensor noise (tests/core/test_det_math.cpp checks them against libm).
#pragma once

#include "platform.h"

namespace wr {

// ln(x) for finite x > 0. x = m * 2^k with m in [sqrt(1/2), sqrt(2)); ln(m) = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| < 0.1716, by its odd series to s^13 (the next term is below 2^-40).
WR_HD float det_log(float x) {
  uint32_t bits = bits_from_float(x);
  int k = static_cast<int>(bits >> 23) - 127;
  if ((bits >> 23) == 0) {                   // subnormal: scale into the normal range first
    bits = bits_from_float(x * 8388608.0f);  // 2^23
    k = static_cast<int>(bits >> 23) - 127 - 23;
  }
  float m = float_from_bits((bits & 0x007FFFFFu) | 0x3F800000u);  // [1, 2)
  if (m > 1.41421356f) {
    m = m * 0.5f;
    k += 1;
  }
  const float s = (m - 1.0f) / (m + 1.0f);
  const float s2 = s * s;
  const float series =
      s * (2.0f + s2 * (2.0f / 3.0f +
                        s2 * (2.0f / 5.0f +
                              s2 * (2.0f / 7.0f + s2 * (2.0f / 9.0f + s2 * (2.0f / 11.0f + s2 * (2.0f / 13.0f)))))));
  // k * ln 2 in two parts (fdlibm's split): the high part has 16 significant bits, so its product
  // with any exponent k of a float is exact.
  return static_cast<float>(k) * 6.9313812256e-01f + (static_cast<float>(k) * 9.0580006145e-06f + series);
}

// cos(2 pi u) and sin(2 pi u) for u in [0, 1]: the quadrant from 4u, then the Taylor series of
// cos and sin on [0, pi/2) (the first terms left out are below 2^-30).
WR_HD void det_cos_sin_2pi(float u, float* c, float* s) {
  const float w = u * 4.0f;
  int q = static_cast<int>(w);  // 0..4
  const float f = w - static_cast<float>(q);
  const float x = f * 1.57079633f, x2 = x * x;
  const float cx =
      1.0f + x2 * (-0.5f + x2 * (1.0f / 24.0f +
                                 x2 * (-1.0f / 720.0f + x2 * (1.0f / 40320.0f + x2 * (-1.0f / 3628800.0f +
                                                                                      x2 * (1.0f / 479001600.0f))))));
  const float sx =
      x * (1.0f +
           x2 * (-1.0f / 6.0f +
                 x2 * (1.0f / 120.0f + x2 * (-1.0f / 5040.0f + x2 * (1.0f / 362880.0f + x2 * (-1.0f / 39916800.0f))))));
  q &= 3;
  *c = q == 0 ? cx : q == 1 ? -sx : q == 2 ? -cx : sx;
  *s = q == 0 ? sx : q == 1 ? cx : q == 2 ? -sx : -cx;
}

// A standard normal variate from two uniforms in (0, 1) (Box and Muller, "A Note on the
// Generation of Random Normal Deviates", Ann. Math. Statist. 29(2), 1958).
WR_HD float box_muller(float u1, float u2) {
  float c, s;
  det_cos_sin_2pi(u2, &c, &s);
  const float r = -2.0f * det_log(u1);
  return c * sqrt_(r);
}

}  // namespace wr
