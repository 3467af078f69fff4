// The float helpers of src/core/platform.h that the traversal and the per-pixel pipeline share
// between host and device.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/platform.h"
#include "float_bits.h"

TEST_CASE("fmin_ and fmax_ are IEEE minNum/maxNum, bit for bit as libm's fminf/fmaxf on this host") {
  // The host spells them out (a compare and a select) instead of calling libm; the depth the
  // library reports depends on their bits where a value ties a clip bound, so they must give
  // what the libm functions give, signed zeros and NaN operands included.
  const std::vector<float> values = {0.0f, -0.0f, 1.0f,   -1.0f,   2.5f,    INFINITY, -INFINITY,
                                     NAN,  -NAN,  1e-45f, -1e-45f, 3.4e38f, -3.4e38f};
  int checked = 0;
  for (float value_a : values)
    for (float value_b : values) {
      // volatile: libm's functions at run time, which GCC would otherwise fold on these constants
      // (by its own rules for signed zeros).
      volatile float va = value_a, vb = value_b;
      const float a = va, b = vb;
      INFO("a = " << a << " (0x" << std::hex << wr_test::bits(a) << "), b = " << b << " (0x" << wr_test::bits(b)
                  << ")");
      // Through a volatile pointer: the library function, with a and b in this order. ISO C leaves
      // the sign of fmax(+0, -0) unspecified, so GCC treats fmax and fmin as commutative and may
      // swap the operands of a call it can see (it did, in the sanitizer build).
      float (*volatile libm_fmax)(float, float) = std::fmax;
      float (*volatile libm_fmin)(float, float) = std::fmin;
      volatile float want_max = libm_fmax(a, b), want_min = libm_fmin(a, b);
      CHECK(wr_test::bits(wr::fmax_(a, b)) == wr_test::bits(want_max));
      CHECK(wr_test::bits(wr::fmin_(a, b)) == wr_test::bits(want_min));
      ++checked;
    }
  CHECK(checked == 169);
  CHECK(wr::fmax_(NAN, 1.0f) == 1.0f);  // a NaN operand is ignored
  CHECK(wr::fmin_(1.0f, NAN) == 1.0f);
}

TEST_CASE("is_finite_, infinity_ and the float/bits round trip") {
  CHECK(wr::is_finite_(1.0f));
  CHECK_FALSE(wr::is_finite_(INFINITY));
  CHECK_FALSE(wr::is_finite_(NAN));
  CHECK(wr::infinity_() == INFINITY);
  CHECK(std::isnan(wr::quiet_nan_()));
  for (float f : {0.0f, -0.0f, 1.5f, -3.25e-20f}) CHECK(wr::float_from_bits(wr::bits_from_float(f)) == f);
  CHECK(wr::bits_from_float(-0.0f) == 0x80000000u);
}

TEST_CASE("popcount32 counts the set bits, as a bit-by-bit loop does") {
  uint32_t w = 0x9e3779b9u;
  for (int k = 0; k < 1000; ++k) {
    w = w * 1664525u + 1013904223u;
    const uint32_t v = k < 3 ? (k == 0 ? 0u : k == 1 ? 0xffffffffu : 0x80000001u) : w;
    uint32_t loop = 0;
    for (int b = 0; b < 32; ++b) loop += v >> b & 1u;
    CHECK(wr::popcount32(v) == loop);
  }
}
