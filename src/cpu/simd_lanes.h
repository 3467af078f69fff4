// 16 float / int lanes for the CPU packet traversal (src/cpu/packet_traversal.h), as GCC/Clang
// vector extensions: one AVX-512 register, two AVX2 registers. Arithmetic on them is plain
// IEEE single precision lane by lane, exactly as the scalar code computes one ray.
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

constexpr int kLanes = 16;

typedef float LaneF __attribute__((vector_size(64)));
typedef int32_t LaneI __attribute__((vector_size(64)));
typedef uint32_t LaneU __attribute__((vector_size(64)));

// The bits of a lane set: bit l stands for lane l.
typedef unsigned LaneBits;

inline LaneF splat(float x) { return LaneF{} + x; }
inline LaneI splat_i(int32_t x) { return LaneI{} + x; }

// Bit l set where lane l of a comparison result (all ones or all zeros) is true.
inline LaneBits bits_of(const LaneI& m) {
#if defined(__AVX512F__)
  return _mm512_cmpneq_epi32_mask(reinterpret_cast<__m512i>(m), _mm512_setzero_si512());
#else
  const __m256i* h = reinterpret_cast<const __m256i*>(&m);
  return static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(h[0]))) |
         static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(h[1]))) << 8;
#endif
}

// Lanes whose bit is set, as a comparison-style mask (all ones / all zeros).
inline LaneI mask_of(LaneBits bits) {
  const LaneI lane_bit = {1 << 0, 1 << 1, 1 << 2,  1 << 3,  1 << 4,  1 << 5,  1 << 6,  1 << 7,
                          1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15};
  return (splat_i(static_cast<int32_t>(bits)) & lane_bit) != 0;
}

// Comparisons straight to lane bits, without the all-ones vector that a vector-extension
// comparison builds first. Same semantics as the C++ operators: false for a NaN operand,
// except ne_bits (a != b), which is true for it.
#if defined(__AVX512F__)
#define WR_LANE_COMPARE(name, predicate)                                                              \
  inline LaneBits name(const LaneF& a, const LaneF& b) {                                           \
    return _mm512_cmp_ps_mask(reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), predicate); \
  }
#else
#define WR_LANE_COMPARE(name, predicate)                                                   \
  inline LaneBits name(const LaneF& a, const LaneF& b) {                                \
    const __m256* x = reinterpret_cast<const __m256*>(&a);                               \
    const __m256* y = reinterpret_cast<const __m256*>(&b);                               \
    return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(x[0], y[0], predicate))) | \
           static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(x[1], y[1], predicate))) << 8; \
  }
#endif
WR_LANE_COMPARE(lt_bits, _CMP_LT_OQ)
WR_LANE_COMPARE(le_bits, _CMP_LE_OQ)
WR_LANE_COMPARE(eq_bits, _CMP_EQ_OQ)
WR_LANE_COMPARE(ne_bits, _CMP_NEQ_UQ)
#undef WR_LANE_COMPARE

// Lane l of `a` where bit l is set, else of `b`.
inline LaneF blend(LaneBits bits, const LaneF& a, const LaneF& b) {
#if defined(__AVX512F__)
  return reinterpret_cast<LaneF>(
      _mm512_mask_blend_ps(static_cast<__mmask16>(bits), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(a)));
#else
  return mask_of(bits) ? a : b;
#endif
}

inline LaneU blend(LaneBits bits, const LaneU& a, const LaneU& b) {
#if defined(__AVX512F__)
  return reinterpret_cast<LaneU>(_mm512_mask_blend_epi32(static_cast<__mmask16>(bits), reinterpret_cast<__m512i>(b),
                                                         reinterpret_cast<__m512i>(a)));
#else
  return mask_of(bits) ? a : b;
#endif
}

// x with the lanes outside `bits` replaced by `fill`, folded to 8 lanes by `op`.
template <class Op>
inline __m256 fold_to_8(const LaneF& x, LaneBits bits, float fill, Op op) {
  const LaneF v = mask_of(bits) ? x : splat(fill);
  const __m256* h = reinterpret_cast<const __m256*>(&v);
  return op(h[0], h[1]);
}

// Smallest / largest value among the lanes whose bit is set (bits != 0). (Not GCC 12's
// _mm512_mask_reduce_min_ps, whose header trips -Wmaybe-uninitialized.)
inline float min_of(const LaneF& x, LaneBits bits) {
  const __m256 m = fold_to_8(x, bits, __builtin_huge_valf(), [](__m256 a, __m256 b) { return _mm256_min_ps(a, b); });
  __m128 q = _mm_min_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  q = _mm_min_ps(q, _mm_movehl_ps(q, q));
  q = _mm_min_ss(q, _mm_shuffle_ps(q, q, 1));
  return _mm_cvtss_f32(q);
}

inline float max_of(const LaneF& x, LaneBits bits) {
  const __m256 m = fold_to_8(x, bits, -__builtin_huge_valf(), [](__m256 a, __m256 b) { return _mm256_max_ps(a, b); });
  __m128 q = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  q = _mm_max_ps(q, _mm_movehl_ps(q, q));
  q = _mm_max_ss(q, _mm_shuffle_ps(q, q, 1));
  return _mm_cvtss_f32(q);
}

}  // namespace
}  // namespace wr
