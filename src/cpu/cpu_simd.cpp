#include "cpu/cpu_simd.h"

namespace wr {

bool cpu_path_supported(wr_cpu_path path) {
  switch (path) {
    case WR_CPU_PATH_SCALAR: return true;
#if defined(WR_HAVE_X86_SIMD)
    // __builtin_cpu_supports also checks that the OS saves the wider registers (XGETBV).
    case WR_CPU_PATH_AVX2: return __builtin_cpu_supports("avx2");
    case WR_CPU_PATH_AVX512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
#endif
    default: return false;
  }
}

wr_cpu_path best_cpu_path() {
  static const wr_cpu_path best = cpu_path_supported(WR_CPU_PATH_AVX512) ? WR_CPU_PATH_AVX512
                                  : cpu_path_supported(WR_CPU_PATH_AVX2) ? WR_CPU_PATH_AVX2
                                                                         : WR_CPU_PATH_SCALAR;
  return best;
}

PacketTileFn packet_tile_fn(wr_cpu_path path) {
  if (path == WR_CPU_PATH_AUTO || !cpu_path_supported(path)) return nullptr;
#if defined(WR_HAVE_X86_SIMD)
  if (path == WR_CPU_PATH_AVX512) return render_tile_avx512;
  if (path == WR_CPU_PATH_AVX2) return render_tile_avx2;
#endif
  return nullptr;
}

GridTileFns grid_tile_fns(wr_cpu_path path) {
  GridTileFns f;
  if (path == WR_CPU_PATH_AUTO || !cpu_path_supported(path)) return f;
#if defined(WR_HAVE_X86_SIMD)
  if (path == WR_CPU_PATH_AVX512) f = GridTileFns{render_grid_tile_avx512, render_grid_mesh_tile_avx512};
  if (path == WR_CPU_PATH_AVX2) f = GridTileFns{render_grid_tile_avx2, render_grid_mesh_tile_avx2};
#endif
  return f;
}

}  // namespace wr
