// render_tile_avx2: the packet traversal of packet_traversal.h compiled for AVX2: 4x2
// packets, 8 lanes in one register.
// This file alone is compiled with those instructions (src/CMakeLists.txt); cpu_simd.cpp
// calls it only on a CPU that has them.
#include "cpu/packet_grid.h"

namespace wr {

uint64_t render_tile_avx2(const PacketTile& tile) { return render_tile_packets(tile); }

uint64_t render_grid_tile_avx2(const PacketTile& tile, const GridView& grid) {
  return render_grid_tile_packets<GridTerrain>(tile, grid);
}

uint64_t render_grid_mesh_tile_avx2(const PacketTile& tile, const GridMeshView& grid) {
  return render_grid_tile_packets<GridMeshTerrain>(tile, grid);
}

}  // namespace wr
