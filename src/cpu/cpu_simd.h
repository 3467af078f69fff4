// Which SIMD path the CPU backend traces with, chosen at run time (one binary runs on any
// x86-64): AVX-512 where the CPU has x86-64-v4's AVX-512 subset, else AVX2, else the scalar
// traversal of src/core. Every path gives bit-identical depth.
#pragma once

#include <cstdint>

#include "cpu/packet_tile.h"

namespace wr {

enum class CpuSimd : int { kScalar = 0, kAvx2 = 1, kAvx512 = 2 };

// False for a path this build lacks (not x86-64) or this CPU cannot run. kScalar: always true.
bool cpu_simd_supported(CpuSimd simd);

// The fastest supported path (detected once).
CpuSimd best_cpu_simd();

// "avx512", "avx2" or "scalar".
const char* cpu_simd_name(CpuSimd simd);

// The packet tile renderer of a supported SIMD path; nullptr for kScalar.
using PacketTileFn = uint64_t (*)(const PacketTile& tile);
PacketTileFn packet_tile_fn(CpuSimd simd);

}  // namespace wr
