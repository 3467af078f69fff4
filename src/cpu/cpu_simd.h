// Which SIMD path the CPU backend traces with, chosen at run time (one binary runs on any
// x86-64): AVX-512 where the CPU has x86-64-v4's AVX-512 subset, else AVX2, else the scalar
// traversal of src/core. Every path gives bit-identical depth. The paths are wr.h's
// wr_cpu_path (a context's setting), WR_CPU_PATH_AUTO excluded.
#pragma once

#include <cstdint>

#include <wr/wr.h>

#include "cpu/packet_tile.h"

namespace wr {

// False for a path this build lacks (not x86-64), this CPU cannot run, or WR_CPU_PATH_AUTO
// (not a path). WR_CPU_PATH_SCALAR: always true.
bool cpu_path_supported(wr_cpu_path path);

// The fastest supported path (detected once).
wr_cpu_path best_cpu_path();

// The packet tile renderer of a supported SIMD path; nullptr for the scalar path.
using PacketTileFn = uint64_t (*)(const PacketTile& tile);
PacketTileFn packet_tile_fn(wr_cpu_path path);

// The grid terrains' packet tile renderers of a supported SIMD path (a height field's, a grid
// mesh's); nullptr for the scalar path.
using GridTileFn = uint64_t (*)(const PacketTile& tile, const GridView& grid);
using GridMeshTileFn = uint64_t (*)(const PacketTile& tile, const GridMeshView& grid);
struct GridTileFns {
  GridTileFn grid = nullptr;
  GridMeshTileFn grid_mesh = nullptr;
};
GridTileFns grid_tile_fns(wr_cpu_path path);

}  // namespace wr
