// Philox4x32-10 (src/core/philox.h) against the known-answer vectors that Random123, the
// authors' reference implementation, ships (kat_vectors: counter, key -> output).
#include <catch2/catch.hpp>

#include <cmath>

#include "core/philox.h"

TEST_CASE("Philox4x32-10 gives Random123's known answers") {
  struct Kat {
    uint32_t ctr[4], key[2], out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
      {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
       {0xffffffffu, 0xffffffffu},
       {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
      {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
       {0xa4093822u, 0x299f31d0u},
       {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
  };
  for (const Kat& k : kats) {
    const wr::Philox4x32 r =
        wr::philox4x32_10(wr::Philox4x32{{k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]}}, k.key[0], k.key[1]);
    INFO("counter " << std::hex << k.ctr[0] << " key " << k.key[0]);
    for (int i = 0; i < 4; ++i) CHECK(r.v[i] == k.out[i]);
  }
}

TEST_CASE("uniform_open01 never returns 0 or 1, and is uniform") {
  CHECK(wr::uniform_open01(0) > 0.0f);
  CHECK(wr::uniform_open01(0xffffffffu) < 1.0f);
  double sum = 0.0;
  const int n = 1 << 16;
  for (int i = 0; i < n; ++i)
    sum += wr::uniform_open01(wr::philox4x32_10(wr::Philox4x32{{uint32_t(i), 0, 0, 0}}, 7, 9).v[0]);
  CHECK(std::fabs(sum / n - 0.5) < 0.005);  // 0.5 +- 4 standard errors (1/sqrt(12 n))
}
