// The noise models' transcendental functions (src/core/det_math.h), written with +, -, *, / only
// so that host and GPU give the same bits, against libm in double: det_log over every exponent
// of a float (subnormals included) and det_cos_sin_2pi over [0, 1], within a few units in the last
// place (of the result for the log, of 1 for cosine and sine).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/det_math.h"

namespace {

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// The spacing of floats at |v| (the unit in the last place), for a double v.
double ulp_at(double v) {
  const float f = static_cast<float>(std::fabs(v));
  return double(std::nextafter(f, std::numeric_limits<float>::infinity())) - f;
}

}  // namespace

TEST_CASE("det_log is ln within a few units in the last place, from subnormals to the largest float", "[det_math]") {
  double worst = 0.0;  // in units in the last place of the result
  // Every 4099th bit pattern of the positive finite floats: every exponent, many mantissas.
  for (uint64_t b = 1; b < 0x7F800000u; b += 4099) {
    const float x = from_bits(static_cast<uint32_t>(b));
    const double want = std::log(double(x)), got = wr::det_log(x);
    // Near x = 1 the result approaches 0: count the error in units of 2^-24 at least (the
    // absolute precision of m - 1 there).
    const double unit = std::max(ulp_at(want), std::ldexp(1.0, -24));
    worst = std::max(worst, std::fabs(got - want) / unit);
  }
  for (float x : {1.0f, 2.0f, 0.5f, std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::max(), 1.41421356f, 1.41421366f}) {
    const double want = std::log(double(x));
    worst = std::max(worst, std::fabs(wr::det_log(x) - want) / std::max(ulp_at(want), std::ldexp(1.0, -24)));
  }
  CHECK(wr::det_log(1.0f) == 0.0f);
  INFO("largest error: " << worst << " units in the last place");
  CHECK(worst <= 2.0);
}

TEST_CASE("det_cos_sin_2pi is cos and sin of 2 pi u within a few units in the last place of 1", "[det_math]") {
  const double two_pi = 6.283185307179586476925287;
  double worst = 0.0;  // in units of 2^-24
  for (uint32_t i = 0; i <= (1u << 20); ++i) {
    const float u = static_cast<float>(i) / static_cast<float>(1u << 20);
    float c, s;
    wr::det_cos_sin_2pi(u, &c, &s);
    const double a = two_pi * double(u);
    worst = std::max(worst, std::fabs(c - std::cos(a)) / std::ldexp(1.0, -24));
    worst = std::max(worst, std::fabs(s - std::sin(a)) / std::ldexp(1.0, -24));
  }
  INFO("largest error: " << worst << " units of 2^-24");
  CHECK(worst <= 4.0);
}
