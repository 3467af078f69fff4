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

namespace {

// The path's function of a kind: f512 or f2 where the CPU runs that path, else null.
template <class Fn>
Fn by_path(wr_cpu_path path, Fn avx512, Fn avx2) {
  if (path == WR_CPU_PATH_AUTO || !cpu_path_supported(path)) return nullptr;
  if (path == WR_CPU_PATH_AVX512) return avx512;
  if (path == WR_CPU_PATH_AVX2) return avx2;
  return nullptr;
}

#if defined(WR_HAVE_X86_SIMD)
// The BVH's packets read the BVH from the tile.
uint64_t bvh_tile_avx512(const PacketTile& tile, const BvhView& bvh) {
  PacketTile t = tile;
  t.bvh = bvh;
  return render_tile_avx512(t);
}
uint64_t bvh_tile_avx2(const PacketTile& tile, const BvhView& bvh) {
  PacketTile t = tile;
  t.bvh = bvh;
  return render_tile_avx2(t);
}
#endif

}  // namespace

template <>
PacketTilesFn<BvhTerrain> packet_tiles<BvhTerrain>(wr_cpu_path path) {
#if defined(WR_HAVE_X86_SIMD)
  return by_path<PacketTilesFn<BvhTerrain>>(path, bvh_tile_avx512, bvh_tile_avx2);
#else
  (void)path;
  return nullptr;
#endif
}

template <>
PacketTilesFn<GridTerrain> packet_tiles<GridTerrain>(wr_cpu_path path) {
#if defined(WR_HAVE_X86_SIMD)
  return by_path<PacketTilesFn<GridTerrain>>(path, render_grid_tile_avx512, render_grid_tile_avx2);
#else
  (void)path;
  return nullptr;
#endif
}

template <>
PacketTilesFn<GridMeshTerrain> packet_tiles<GridMeshTerrain>(wr_cpu_path path) {
#if defined(WR_HAVE_X86_SIMD)
  return by_path<PacketTilesFn<GridMeshTerrain>>(path, render_grid_mesh_tile_avx512, render_grid_mesh_tile_avx2);
#else
  (void)path;
  return nullptr;
#endif
}

}  // namespace wr
