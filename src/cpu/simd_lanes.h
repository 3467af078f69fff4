// The lanes of the CPU packet traversal (src/cpu/packet_traversal.h): one float / int per ray,
// as GCC/Clang vector extensions exactly one register wide (16 lanes in an AVX-512 register,
// 8 in an AVX2 one: vectors wider than the target's registers compile to far slower code).
// Arithmetic on them is plain IEEE single precision lane by lane, exactly as the scalar code
// computes one ray.
//
// Included only by the translation units compiled for one instruction set
// (packet_tile_avx512.cpp, packet_tile_avx2.cpp): everything here has internal linkage, so
// no copy built for a wide instruction set can leak into code that runs without it.
#pragma once

#include <stdint.h>

#include <immintrin.h>

#if !defined(__AVX2__)
#error "simd_lanes.h is for translation units compiled with -mavx2 or -mavx512f"
#endif

namespace wr {
namespace {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
#else
constexpr int kLanes = 8;
#endif

typedef float LaneF __attribute__((vector_size(4 * kLanes)));
typedef int32_t LaneI __attribute__((vector_size(4 * kLanes)));
typedef uint32_t LaneU __attribute__((vector_size(4 * kLanes)));

// The bits of a lane set: bit l stands for lane l.
typedef unsigned LaneBits;

inline LaneF splat(float x) { return LaneF{} + x; }
inline LaneI splat_i(int32_t x) { return LaneI{} + x; }

// Comparisons straight to lane bits, without the all-ones vector that a vector-extension
// comparison builds first. Same semantics as the C++ operators: false for a NaN operand,
// except ne_bits (a != b), which is true for it.
template <int kPredicate>
inline LaneBits compare_bits(const LaneF& a, const LaneF& b) {
#if defined(__AVX512F__)
  return _mm512_cmp_ps_mask(reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), kPredicate);
#else
  return static_cast<unsigned>(
      _mm256_movemask_ps(_mm256_cmp_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), kPredicate)));
#endif
}
inline LaneBits lt_bits(const LaneF& a, const LaneF& b) { return compare_bits<_CMP_LT_OQ>(a, b); }
inline LaneBits le_bits(const LaneF& a, const LaneF& b) { return compare_bits<_CMP_LE_OQ>(a, b); }
inline LaneBits eq_bits(const LaneF& a, const LaneF& b) { return compare_bits<_CMP_EQ_OQ>(a, b); }
inline LaneBits ne_bits(const LaneF& a, const LaneF& b) { return compare_bits<_CMP_NEQ_UQ>(a, b); }

// Bit l set where lane l of a comparison result (all ones or all zeros) is true.
inline LaneBits bits_of(const LaneI& m) {
#if defined(__AVX512F__)
  return _mm512_cmpneq_epi32_mask(reinterpret_cast<__m512i>(m), _mm512_setzero_si512());
#else
  return static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(reinterpret_cast<__m256i>(m))));
#endif
}

// Lanes whose bit is set, as a comparison-style mask (all ones / all zeros).
inline LaneI mask_of(LaneBits bits) {
#if defined(__AVX512F__)
  return reinterpret_cast<LaneI>(_mm512_movm_epi32(static_cast<__mmask16>(bits)));
#else
  const LaneI lane_bit = {1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7};
  return (splat_i(static_cast<int32_t>(bits)) & lane_bit) != 0;
#endif
}

// Lane l of `a` where bit l is set, else of `b`.
template <class V>
inline V blend(LaneBits bits, const V& a, const V& b) {
#if defined(__AVX512F__)
  return reinterpret_cast<V>(_mm512_mask_blend_epi32(static_cast<__mmask16>(bits), reinterpret_cast<__m512i>(b),
                                                     reinterpret_cast<__m512i>(a)));
#else
  return mask_of(bits) ? a : b;
#endif
}

}  // namespace
}  // namespace wr
