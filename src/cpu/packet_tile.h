// The CPU backend's SIMD path: one tile of pixels of one env traced as packets of rays
// that share the camera's origin (src/cpu/packet_traversal.h). One entry point per
// instruction set, each in its own translation unit compiled for it; cpu_simd.h picks the
// one this CPU runs. Depth is bit-identical to the scalar path (tests/test_cpu_packet.cpp).
#pragma once

#include <cstdint>

#include "core/pixel_pipeline.h"

namespace wr {

// One tile: pixels [u0, u1) x [v0, v1) of one env, at most 8 x 8.
struct PacketTile {
  BvhView bvh;
  const TemplateRay* rays;   // (height x width) shared ray template
  uint32_t width;            // of the image
  uint32_t u0, v0, u1, v1;
  RigidTransform camera;     // of this env, from a valid pose
  const DepthParams* params;
  float* image;              // this env's (height x width) depth image
};

// Both fill the tile's pixels of tile.image and return how many of its rays overflowed the
// traversal stack (those are finished exactly by the scalar path, which counts them the same
// way). Call only where cpu_simd_supported() says the CPU has the instruction set.
uint64_t render_tile_avx512(const PacketTile& tile);
uint64_t render_tile_avx2(const PacketTile& tile);

}  // namespace wr
