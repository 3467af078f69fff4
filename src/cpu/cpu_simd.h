// Which SIMD path the CPU backend traces with, chosen at run time (one binary runs on any
// x86-64): AVX-512 where the CPU has x86-64-v4's AVX-512 subset, else AVX2, else the scalar
// traversal of src/core. Every path gives bit-identical depth. The paths are wr.h's
// wr_cpu_path (a context's setting), WR_CPU_PATH_AUTO excluded.
#pragma once

#include <cstdint>

#include <wr/wr.h>

#include "core/terrain.h"
#include "cpu/packet_tile.h"

namespace wr {

// False for a path this build lacks (not x86-64), this CPU cannot run, or WR_CPU_PATH_AUTO
// (not a path). WR_CPU_PATH_SCALAR: always true.
bool cpu_path_supported(wr_cpu_path path);

// The fastest supported path (detected once).
wr_cpu_path best_cpu_path();

// A terrain kind's SIMD packet tracer of a tile (cpu/packet_tile.h: it fills the tile's pixels and
// returns how many of its rays overflowed the traversal stack), or null where `path` has none
// (WR_CPU_PATH_SCALAR, AUTO, a path this CPU lacks): registered per kind in cpu_simd.cpp, one
// specialisation each, so that the render asks for its kind's (cpu_render.cpp) and never which
// kind it has. A kind without packets needs nothing here: its tiles go pixel by pixel.
template <class Kind>
using PacketTilesFn = uint64_t (*)(const PacketTile& tile, const typename Kind::View& terrain);
template <class Kind>
PacketTilesFn<Kind> packet_tiles(wr_cpu_path) {
  return nullptr;
}
template <>
PacketTilesFn<BvhTerrain> packet_tiles<BvhTerrain>(wr_cpu_path path);
template <>
PacketTilesFn<GridTerrain> packet_tiles<GridTerrain>(wr_cpu_path path);
template <>
PacketTilesFn<GridMeshTerrain> packet_tiles<GridMeshTerrain>(wr_cpu_path path);

}  // namespace wr
