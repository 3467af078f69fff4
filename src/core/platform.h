// Host/device portability for src/core. Everything in src/core is compiled both by the
// host C++ compiler (CPU backend, tests) and by nvcc (kernels/), so it uses only this
// macro, plain PODs and <cmath>-free intrinsics below: no STL, no exceptions, no new.
#pragma once

#include <stdint.h>

// WR_HD marks every function of src/core, free or member: host and device under nvcc, plain
// `inline` on the host.
// A host translation unit compiled for a wider instruction set than the rest of the library
// (src/cpu/packet_tile_avx2.cpp, packet_tile_avx512.cpp) is built with WR_ISA_TAG set to its
// instruction set (src/CMakeLists.txt): its copies of these functions then carry that ABI tag
// in their linker names (wr::ray_triangle[abi:avx512]), so the linker, which keeps one copy of
// an inline function program-wide, can never hand an AVX-512 copy to code that runs on a CPU
// without AVX-512. tests/cpu/check_simd_symbols.cmake checks the objects for untagged copies.
#define WR_STRINGIFY_(x) #x
#define WR_STRINGIFY(x) WR_STRINGIFY_(x)
#if defined(__CUDACC__)
#define WR_HD __host__ __device__ __forceinline__
#elif defined(WR_ISA_TAG)
#define WR_HD inline __attribute__((abi_tag(WR_STRINGIFY(WR_ISA_TAG))))
#else
#define WR_HD inline
#endif

namespace wr {

// Float helpers that behave identically on host and device (IEEE, no fast-math).
// fmin_/fmax_ follow IEEE minNum/maxNum: a NaN operand is ignored (the other is returned).
// The robust ray/box test relies on that for the 0 * inf slabs of axis-parallel rays.
// On the host they are written out as glibc's fminf/fmaxf compute them, bit for bit (on a tie of
// +0 and -0 the second operand, as x86's minss/maxss; of two NaNs the first; checked by
// tests/core/test_platform.cpp): GCC calls libm for __builtin_fmaxf, a call per pixel where these are
// a compare and a select.
WR_HD float fmin_(float a, float b) {
#if defined(__CUDA_ARCH__)
  return fminf(a, b);
#else
  return (a < b || b != b) ? a : b;
#endif
}
WR_HD float fmax_(float a, float b) {
#if defined(__CUDA_ARCH__)
  return fmaxf(a, b);
#else
  return (a > b || b != b) ? a : b;
#endif
}
WR_HD float fabs_(float a) { return a < 0.0f ? -a : a; }

// Correctly rounded on both sides (IEEE square root; nvcc's default -prec-sqrt=true), in float and
// in double.
WR_HD float sqrt_(float a) {
#if defined(__CUDA_ARCH__)
  return sqrtf(a);
#else
  return __builtin_sqrtf(a);
#endif
}
WR_HD double sqrt_(double a) {
#if defined(__CUDA_ARCH__)
  return sqrt(a);
#else
  return __builtin_sqrt(a);
#endif
}

// Exact on both sides: the nearest integer, halves away from zero; and the largest integer <= a.
WR_HD float round_(float a) {
#if defined(__CUDA_ARCH__)
  return roundf(a);
#else
  return __builtin_roundf(a);
#endif
}
WR_HD float floor_(float a) {
#if defined(__CUDA_ARCH__)
  return floorf(a);
#else
  return __builtin_floorf(a);
#endif
}

WR_HD bool is_finite_(float a) { return a - a == 0.0f; }  // false for inf and NaN

WR_HD float infinity_() {
#if defined(__CUDA_ARCH__)
  return __int_as_float(0x7f800000);
#else
  return __builtin_huge_valf();
#endif
}
WR_HD float quiet_nan_() {
#if defined(__CUDA_ARCH__)
  return __int_as_float(0x7fc00000);
#else
  return __builtin_nanf("");
#endif
}

// The float whose bits are w, and back (leaf blocks store vertices in 32-bit words).
WR_HD float float_from_bits(uint32_t w) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(w);
#else
  float f;
  __builtin_memcpy(&f, &w, sizeof f);
  return f;
#endif
}
WR_HD uint32_t bits_from_float(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t w;
  __builtin_memcpy(&w, &f, sizeof w);
  return w;
#endif
}

// The number of set bits of w.
WR_HD uint32_t popcount32(uint32_t w) {
#if defined(__CUDA_ARCH__)
  return uint32_t(__popc(w));
#else
  return uint32_t(__builtin_popcount(w));
#endif
}

// A load from data that no thread writes while it is read (the BVH, the ray template). On the
// GPU it goes through the read-only data cache (__ldg): nvcc cannot prove that the arrays behind
// a BvhView are never written, so a plain load would take the ordinary global path.
template <class T>
WR_HD T load_readonly(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

constexpr uint32_t kInvalidIndex = 0xFFFFFFFFu;

}  // namespace wr
