// The CPU backend's SIMD path: one tile of pixels of one env traced as packets of rays
// that share the camera's origin (src/cpu/packet_traversal.h). One entry point per
// instruction set, each in its own translation unit compiled for it; cpu_simd.h picks the
// one this CPU runs. Depth is bit-identical to the scalar path (tests/cpu/test_cpu_packet.cpp).
#pragma once

#include <cstdint>

#include "core/grid_mesh_terrain.h"
#include "core/pixel_pipeline.h"

namespace wr {

// One tile: pixels [u0, u1) x [v0, v1) of one env's camera image, at most 8 x 8. Pixel (u, v)'s
// template ray and depth are elements of two row-major arrays whose first element is the pixel
// (rays_u0, rays_v0), resp. (image_u0, image_v0): the whole template and image (origin 0, stride
// the image width), or a window of them (the RL pipeline's crop, a tile's own rays).
struct PacketTile {
  BvhView bvh;
  uint32_t u0, v0, u1, v1;
  const TemplateRay* rays;
  uint32_t rays_u0, rays_v0, rays_stride;
  float* image;
  uint32_t image_u0, image_v0, image_stride;
  RigidTransform camera;  // of this env, from a valid pose
  const DepthParams* params;
  const EnvInstances* instances;  // the env's instances (core/instances.h), or null: the terrain alone
  uint32_t* ids;                  // the instance each pixel hit, laid out as image; or null
  // The tile's rays are a pinhole's (their directions linear in the pixel), so that the planes
  // through its corner rays bound them all (tile_instances' culling); false for a pattern's rays
  // traced as a one-row camera, whose neighbours need not be neighbours in direction.
  bool pinhole = true;
};

WR_HD const TemplateRay& tile_ray(const PacketTile& t, uint32_t u, uint32_t v) {
  return t.rays[static_cast<size_t>(v - t.rays_v0) * t.rays_stride + (u - t.rays_u0)];
}
WR_HD float& tile_depth(const PacketTile& t, uint32_t u, uint32_t v) {
  return t.image[static_cast<size_t>(v - t.image_v0) * t.image_stride + (u - t.image_u0)];
}
// Pixel (u, v)'s instance id, where the tile has ids.
WR_HD void set_tile_id(const PacketTile& t, uint32_t u, uint32_t v, uint32_t id) {
  if (t.ids) t.ids[static_cast<size_t>(v - t.image_v0) * t.image_stride + (u - t.image_u0)] = id;
}

// Both fill the tile's pixels of tile.image and return how many of its rays overflowed the
// traversal stack (those are finished exactly by the scalar path, which counts them the same
// way). Call only where cpu_path_supported() says the CPU has the instruction set.
uint64_t render_tile_avx512(const PacketTile& tile);
uint64_t render_tile_avx2(const PacketTile& tile);

// The same over a grid terrain: a height field's, a grid-topology mesh's (cpu/packet_grid.h;
// tile.bvh is not read).
uint64_t render_grid_tile_avx512(const PacketTile& tile, const GridView& grid);
uint64_t render_grid_tile_avx2(const PacketTile& tile, const GridView& grid);
uint64_t render_grid_mesh_tile_avx512(const PacketTile& tile, const GridMeshView& grid);
uint64_t render_grid_mesh_tile_avx2(const PacketTile& tile, const GridMeshView& grid);

}  // namespace wr
