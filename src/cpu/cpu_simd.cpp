#include "cpu/cpu_simd.h"

namespace wr {

bool cpu_simd_supported(CpuSimd simd) {
  switch (simd) {
    case CpuSimd::kScalar:
      return true;
#if defined(WR_HAVE_X86_SIMD)
    // __builtin_cpu_supports also checks that the OS saves the wider registers (XGETBV).
    case CpuSimd::kAvx2:
      return __builtin_cpu_supports("avx2");
    case CpuSimd::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
#endif
    default:
      return false;
  }
}

CpuSimd best_cpu_simd() {
  static const CpuSimd best = cpu_simd_supported(CpuSimd::kAvx512) ? CpuSimd::kAvx512
                              : cpu_simd_supported(CpuSimd::kAvx2) ? CpuSimd::kAvx2
                                                                   : CpuSimd::kScalar;
  return best;
}

const char* cpu_simd_name(CpuSimd simd) {
  switch (simd) {
    case CpuSimd::kAvx512:
      return "avx512";
    case CpuSimd::kAvx2:
      return "avx2";
    default:
      return "scalar";
  }
}

PacketTileFn packet_tile_fn(CpuSimd simd) {
  if (!cpu_simd_supported(simd)) return nullptr;
#if defined(WR_HAVE_X86_SIMD)
  if (simd == CpuSimd::kAvx512) return render_tile_avx512;
  if (simd == CpuSimd::kAvx2) return render_tile_avx2;
#endif
  return nullptr;
}

}  // namespace wr
